//! kustomize's deprecation notices: the lines kustomize prints on stderr when it loads a
//! kustomization that uses a deprecated field (`# Warning: 'commonLabels' is deprecated.
//! ...`). Both kubectl versions print them, so kbuild prints the same lines, in kustomize's
//! order, once per load (a base listed twice is loaded, and warned about, twice).
//!
//! kustomize warns when the decoded field is not nil: `vars: []` and `commonLabels: {}`
//! warn, `vars:` (null) does not. Keys match case-insensitively and the last one spelled
//! in any case wins, as in Go's `encoding/json` (see `empty.rs`).

use crate::yaml::Node;

/// How every notice starts (and no kbuild warning does).
pub const PREFIX: &str = "# Warning: ";

/// Deprecated fields in the order kustomize checks them (its `CheckDeprecatedFields`):
/// the field, its replacement, and whether `kustomize edit fix` is experimental for it.
const FIELDS: [(&str, &str, bool); 6] = [
    ("bases", "resources", false),
    ("commonLabels", "labels", false),
    ("imageTags", "images", false),
    ("patchesJson6902", "patches", false),
    ("patchesStrategicMerge", "patches", false),
    ("vars", "replacements", true),
];

/// The notices for the kustomization file parsed as `node`, each one line as kustomize
/// prints it.
pub fn notices(node: &Node) -> Vec<String> {
    let Node::Map(map) = node else {
        return Vec::new();
    };
    FIELDS
        .iter()
        .filter(|(field, _, _)| {
            map.iter()
                .rfind(|(k, _)| k.as_str().eq_ignore_ascii_case(field))
                .is_some_and(|(_, v)| !v.is_null())
        })
        .map(|(field, instead, experimental)| {
            let fix = if *experimental { "[EXPERIMENTAL] " } else { "" };
            format!(
                "{PREFIX}'{field}' is deprecated. Please use '{instead}' instead. {fix}Run 'kustomize edit fix' to update your Kustomization automatically."
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::notices;

    fn of(text: &str) -> Vec<String> {
        let node = crate::yaml::parse::parse_document(text, "k.yaml").expect("parses");
        notices(&node)
    }

    #[test]
    fn in_kustomizes_order_when_not_null() {
        let got =
            of("vars: []\ncommonLabels: {}\nbases:\n- a\nimageTags:\npatchesJson6902: null\n");
        assert_eq!(got.len(), 3);
        assert!(got[0].starts_with("# Warning: 'bases' is deprecated. Please use 'resources'"));
        assert!(got[1].starts_with("# Warning: 'commonLabels'"));
        assert_eq!(
            got[2],
            "# Warning: 'vars' is deprecated. Please use 'replacements' instead. [EXPERIMENTAL] Run 'kustomize edit fix' to update your Kustomization automatically."
        );
        assert!(of("resources: []\n").is_empty());
        // The last spelling wins, in any case.
        assert!(of("vars: []\nVars: null\n").is_empty());
        assert_eq!(of("CommonLabels:\n  a: b\n").len(), 1);
    }
}
