//! kustomize ends every build by rewriting each resource's annotations
//! (to remove its internal build annotations), reading them as a
//! string-to-string map and writing them back. So annotation values always
//! come out as strings: `replicas: 3` under `metadata.annotations` is printed
//! `"3"`, whether it came from a file or was put there by a replacement.
//! Labels are not rewritten and keep their type.

use crate::resmap::ResMap;
use crate::yaml::Node;

/// Turns every scalar annotation value into a string. A mapping or list
/// value has no scalar text and becomes the empty string, as in kustomize.
pub fn apply(rm: &mut ResMap) {
    for r in rm.iter_mut() {
        let Some(Node::Map(ann)) = r.node.get_path_mut(&["metadata", "annotations"]) else {
            continue;
        };
        for v in ann.values_mut() {
            if !matches!(v, Node::Str(_)) {
                *v = Node::Str(v.scalar_string().unwrap_or_default());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_values_become_strings() {
        let node = Node::from(&serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "annotations": {"n": 1, "b": true, "s": "x", "m": {"k": "v"}}, "labels": {"n": 2}}
        }));
        let mut rm = ResMap::new();
        rm.resources.push(crate::resource::Resource::new(node).expect("resource"));
        apply(&mut rm);
        let meta = rm.resources[0].node.get("metadata").cloned().unwrap_or_default();
        let want = Node::from(&serde_json::json!({
            "name": "a", "annotations": {"n": "1", "b": "true", "s": "x", "m": ""}, "labels": {"n": 2}
        }));
        assert_eq!(meta, want);
    }
}
