//! What kustomize calls an empty kustomization, which it refuses ("kustomization.yaml is
//! empty") for the top level, bases, components and plugin-config directories alike.
//!
//! kustomize decodes the file, folds deprecated fields into their replacements, and
//! compares the result with a zero `Kustomization` (`CheckEmpty`, `reflect.DeepEqual`),
//! `apiVersion` and `kind` aside. Go's zero values decide, so the check reads the parsed
//! mapping rather than kbuild's model (which cannot tell `resources: []` from no
//! `resources`): a field written as null or `""` is unset, while any list or mapping is set,
//! even an empty one (`resources: []` or `metadata: {}` make a kustomization that builds
//! nothing without complaint). The exceptions are the deprecated lists kustomize appends to
//! their replacements: `bases: []`, `imageTags: []` and `helmChartInflationGenerator: []`
//! add nothing, so alone they leave the kustomization empty. Measured with kustomize v5.5.0
//! and v5.8.1, which agree.

use crate::yaml::Node;

/// Whether the kustomization `node` (already decoded without error, so every key is a
/// field name in some letter case) is empty in kustomize's sense.
pub fn is_empty(node: &Node) -> bool {
    let Node::Map(map) = node else {
        // An empty file, a comment or `null`: nothing is set.
        return matches!(node, Node::Null);
    };
    // Go's JSON decoder lets a later key overwrite an earlier one spelled in another case
    // (`resources: [a]` then `Resources: null` leaves nothing): the last value counts.
    let mut last: Vec<(String, &Node)> = Vec::new();
    for (key, value) in map.iter() {
        let field = key.as_str().to_ascii_lowercase();
        match last.iter_mut().find(|(f, _)| *f == field) {
            Some(entry) => entry.1 = value,
            None => last.push((field, value)),
        }
    }
    last.iter().all(|(field, value)| unset(field, value))
}

/// Whether the field `field` (lower case) holding `value` leaves the kustomization as a zero
/// `Kustomization` would be.
fn unset(field: &str, value: &Node) -> bool {
    match field {
        // TypeMeta is copied into the zero value before comparing.
        "apiversion" | "kind" => true,
        // Appended to `resources`, `images` and `helmCharts`, then cleared: an empty list
        // adds nothing.
        "bases" | "imagetags" | "helmchartinflationgenerator" => {
            matches!(value, Node::Null) || matches!(value, Node::Seq(s) if s.is_empty())
        }
        _ => match value {
            Node::Null => true,
            Node::Str(s) => s.is_empty(),
            // No top-level field is a boolean or a number (decoding refused those), and a
            // list or mapping is a non-nil Go value however short.
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_document;

    fn empty(text: &str) -> bool {
        is_empty(&parse_document(text, "k").expect("parses"))
    }

    #[test]
    fn unset_fields_and_type_meta_leave_it_empty() {
        for text in [
            "",
            "# a comment\n",
            "{}",
            "null",
            "---\n",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n",
            "kind: Component\n",
            "resources:\n",
            "namePrefix: \"\"\n",
            "metadata:\n",
            "bases: []\n",
            "imageTags: []\n",
            "helmChartInflationGenerator: []\n",
            "resources: [a]\nResources: null\n",
        ] {
            assert!(empty(text), "{text:?}");
        }
    }

    #[test]
    fn any_list_or_mapping_or_text_makes_it_non_empty() {
        for text in [
            "resources: []\n",
            "metadata: {}\n",
            "commonLabels: {}\n",
            "namePrefix: x\n",
            "bases: [b]\n",
            "bases: []\nresources: []\n",
            "configMapGenerator: []\n",
            "sortOptions: {order: fifo}\n",
        ] {
            assert!(!empty(text), "{text:?}");
        }
    }
}
