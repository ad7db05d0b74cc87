//! Resource files: YAML streams to resources, with `List`s flattened.

use super::Resource;
use crate::error::{Error, Result};
use crate::yaml::{self, Node};
use std::path::Path;

/// Parses a resource file into resources: empty documents are skipped and
/// lists (`kind: List`, `FooList` with an `items` field) are flattened, their items queued after the
/// file's remaining documents as kustomize does.
pub fn parse_resources(bytes: Vec<u8>, path: &Path) -> Result<Vec<Resource>> {
    let text = crate::yaml::utf8(bytes, path)?;
    let docs = yaml::parse::parse_resource_stream(&text, &path.display().to_string())?;
    let mut queue: std::collections::VecDeque<(Node, yaml::parse::EmptyNulls)> = docs.into();
    // Exact for a stream without lists: a stream of many small objects holds little more
    // than its resources.
    let mut out = Vec::with_capacity(queue.len());
    while let Some((doc, empty_nulls)) = queue.pop_front() {
        if doc.is_null() {
            continue;
        }
        let kind = doc.get_str(&["kind"]).unwrap_or_default();
        // A `FooList` without an `items` field is an ordinary resource (kustomize
        // issues 5042, 5485); `items: null` is an empty list.
        if kind.ends_with("List") && doc.get("items").is_some() {
            match doc.get("items") {
                None | Some(Node::Null) => {}
                Some(Node::Seq(items)) => {
                    queue.extend(items.iter().map(|i| (i.clone(), Vec::new())))
                }
                Some(other) => {
                    return Err(Error::invalid_resource(format!(
                        "{}: expected a list in {kind}.items, found a {}",
                        path.display(),
                        other.type_name()
                    )));
                }
            }
            continue;
        }
        let mut res =
            Resource::new(doc).map_err(|e| e.context(format!("in {}", path.display())))?;
        res.empty_nulls = empty_nulls;
        out.push(res);
    }
    Ok(out)
}
