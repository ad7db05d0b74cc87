//! Annotations as kustomize writes them: a map of strings.
//!
//! kustomize reads every resource's annotations into a string map and writes them back
//! before printing, so whatever a patch or transformer put there comes out as a string (a
//! JSON patch's `value: 5` -> "5", a sequence -> ""), and an empty or null `annotations` field
//! disappears. The parser already keeps annotation values of input files as their text
//! (`yaml::parse`); this pass covers what later steps added.

use crate::resource::resmap::ResMap;
use crate::yaml::Node;

/// Rewrites every resource's `metadata.annotations` as strings, dropping it when empty.
pub(crate) fn normalize_annotations(resmap: &mut ResMap) {
    for res in resmap.iter_mut() {
        normalize(res.node_mut());
    }
}

fn normalize(node: &mut Node) {
    let Some(meta) = node.get_path_mut(&["metadata"]).and_then(Node::as_map_mut) else {
        return;
    };
    let empty = match meta.get_mut("annotations") {
        None => return,
        Some(Node::Map(ann)) => {
            for value in ann.values_mut() {
                if !matches!(value, Node::Str(_)) {
                    *value = Node::text(value.scalar_string().unwrap_or_default());
                }
            }
            ann.is_empty()
        }
        Some(Node::Null) => true,
        // Not a map: kustomize fails earlier on such input; leave it for that check.
        Some(_) => false,
    };
    if empty {
        meta.shift_remove("annotations");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_become_strings_and_empty_maps_go() {
        let mut n = Node::from(
            &json!({"metadata": {"name": "a", "annotations": {"i": 5, "b": true, "s": [1], "n": null}}}),
        );
        normalize(&mut n);
        assert_eq!(
            n,
            Node::from(
                &json!({"metadata": {"name": "a", "annotations": {"i": "5", "b": "true", "s": "", "n": ""}}})
            )
        );
        let mut n = Node::from(&json!({"metadata": {"name": "a", "annotations": {}}}));
        normalize(&mut n);
        assert_eq!(n, Node::from(&json!({"metadata": {"name": "a"}})));
    }
}
