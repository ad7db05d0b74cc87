//! The keys a CRD declares for one list, for the warning the default mode gives when a
//! patch replaces such a list whole. Nothing is checked here: a warning never fails a
//! build.

use crate::yaml::Node;

/// The `x-kubernetes-list-map-keys` of the list at `path` (field names from the resource's
/// top, through objects only: in the default mode kustomize never merges inside a custom
/// resource's list) in the CRD document `crd`, for `version`; `None` unless the CRD serves
/// that version and declares the list `x-kubernetes-list-type: map`.
pub fn list_map_keys(crd: &Node, version: &str, path: &[String]) -> Option<Vec<String>> {
    let versions = crd.get_path(&["spec", "versions"]).and_then(Node::as_seq);
    let mut schema = versions
        .into_iter()
        .flatten()
        .find(|v| v.get_str(&["name"]) == Some(version))
        .and_then(|v| v.get_path(&["schema", "openAPIV3Schema"]))
        .or_else(|| crd.get_path(&["spec", "validation", "openAPIV3Schema"]))?;
    for field in path {
        schema = schema
            .get("properties")
            .and_then(|p| p.get(field))
            .or_else(|| {
                schema
                    .get("additionalProperties")
                    .filter(|a| a.as_map().is_some())
            })?;
    }
    if schema.get_str(&["x-kubernetes-list-type"]) != Some("map") {
        return None;
    }
    let keys: Vec<String> = schema
        .get("x-kubernetes-list-map-keys")?
        .as_seq()?
        .iter()
        .filter_map(|k| k.as_str().map(str::to_string))
        .collect();
    (!keys.is_empty()).then_some(keys)
}
