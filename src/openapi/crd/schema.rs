//! One served version's schema, cut down to what changes a merge: the lists that merge by
//! key (`x-kubernetes-list-type: map`, or named by a `--merge-key`) and the objects on the
//! way to them. Everything else is left out, so it merges exactly as without the document:
//! a field the schema does not describe is merged as kustomize merges any custom resource's
//! (and an embedded object with its own `apiVersion` and `kind` is still looked up by
//! them). The list-type extensions are checked as the API server checks them, so a CRD the
//! cluster would refuse is refused here, naming the list.

use serde_json::{Map, Value};

use super::merge_key::{MergeKey, Segment, path_text};
use crate::error::{Error, Result};
use crate::yaml::Node;

/// Where the schema comes from, for messages, and the `--merge-key`s of its kind.
pub(super) struct Cut<'a> {
    pub(super) source: &'a str,
    pub(super) crd: &'a str,
    pub(super) version: &'a str,
    pub(super) declared: &'a [&'a MergeKey],
}

impl Cut<'_> {
    fn error(&self, path: &[Segment], what: impl std::fmt::Display) -> Error {
        let at = if path.is_empty() {
            "the schema's top".to_string()
        } else {
            path_text(path)
        };
        Error::invalid_resource(format!(
            "{}: CustomResourceDefinition '{}', version {}, {at}: {what}",
            self.source, self.crd, self.version
        ))
    }

    /// The cut schema of `schema` (at `path`), `None` when nothing below it merges by key.
    pub(super) fn schema(&self, schema: &Node, path: &mut Vec<Segment>) -> Result<Option<Value>> {
        let list_type = schema.get("x-kubernetes-list-type");
        let map_keys = schema.get("x-kubernetes-list-map-keys");
        if is_array(schema) {
            return self.list(schema, path);
        }
        if list_type.is_some() || map_keys.is_some() {
            return Err(self.error(
                path,
                "x-kubernetes-list-type and x-kubernetes-list-map-keys belong on a list (type: array)",
            ));
        }
        let mut fields = Map::new();
        if let Some(props) = schema.get("properties").and_then(Node::as_map) {
            for (name, prop) in props {
                path.push(Segment {
                    name: name.to_string(),
                    list: false,
                });
                let cut = self.schema(prop, path);
                path.pop();
                if let Some(cut) = cut? {
                    fields.insert(name.to_string(), cut);
                }
            }
        }
        let mut additional = None;
        if let Some(extra @ Node::Map(_)) = schema.get("additionalProperties") {
            path.push(Segment {
                name: "*".into(),
                list: false,
            });
            let cut = self.schema(extra, path);
            path.pop();
            additional = cut?;
        }
        if fields.is_empty() && additional.is_none() {
            return Ok(None);
        }
        let mut out = Map::new();
        out.insert("type".into(), "object".into());
        if !fields.is_empty() {
            out.insert("properties".into(), Value::Object(fields));
        }
        if let Some(extra) = additional {
            out.insert("additionalProperties".into(), extra);
        }
        Ok(Some(Value::Object(out)))
    }

    fn list(&self, schema: &Node, path: &mut Vec<Segment>) -> Result<Option<Value>> {
        let declared = self
            .declared
            .iter()
            .find(|k| same_path(&k.path, path))
            .map(|k| k.keys.clone());
        let keys = match (self.map_keys(schema, path)?, declared) {
            (_, Some(keys)) | (Some(keys), None) => keys,
            // `atomic`, `set` or no list type: replaced whole, and kyaml never looks inside
            // a list it replaces, so nothing below matters either.
            (None, None) => return Ok(None),
        };
        if let Some(last) = path.last_mut() {
            last.list = true;
        }
        let items = schema.get("items").filter(|i| i.as_map().is_some());
        let cut = items.map(|i| self.schema(i, path)).transpose();
        if let Some(last) = path.last_mut() {
            last.list = false;
        }
        Ok(Some(merging_list(&keys, cut?.flatten())))
    }

    /// The list-map keys of a `list-type: map` list, checked; `None` for another list type.
    fn map_keys(&self, schema: &Node, path: &[Segment]) -> Result<Option<Vec<String>>> {
        let list_type = match schema.get("x-kubernetes-list-type") {
            None => None,
            Some(Node::Str(t)) if matches!(t.as_str(), "atomic" | "set" | "map") => {
                Some(t.as_str())
            }
            Some(other) => {
                return Err(self.error(
                    path,
                    format_args!(
                        "x-kubernetes-list-type is {}; it must be atomic, set or map",
                        show(other)
                    ),
                ));
            }
        };
        let keys = schema.get("x-kubernetes-list-map-keys");
        if list_type != Some("map") {
            if keys.is_some() {
                return Err(self.error(
                    path,
                    "x-kubernetes-list-map-keys is set, but x-kubernetes-list-type is not map",
                ));
            }
            return Ok(None);
        }
        let Some(keys) = keys else {
            return Err(self.error(
                path,
                "x-kubernetes-list-type is map, but x-kubernetes-list-map-keys is missing: the list needs the fields that tell its items apart",
            ));
        };
        let invalid = |why: &str| {
            self.error(
                path,
                format_args!("invalid x-kubernetes-list-map-keys {}: {why}", show(keys)),
            )
        };
        let keys: Vec<String> = match keys.as_seq() {
            Some(items) if !items.is_empty() => items
                .iter()
                .map(|k| k.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| invalid("each key must be a field name"))?,
            _ => return Err(invalid("it must be a non-empty list of field names")),
        };
        if let Some(k) = keys
            .iter()
            .enumerate()
            .find(|(i, k)| keys[..*i].contains(k))
        {
            return Err(invalid(&format!("{:?} is listed twice", k.1)));
        }
        let props = schema
            .get_path(&["items", "properties"])
            .and_then(Node::as_map);
        for key in &keys {
            if !props.is_some_and(|p| p.contains_key(key.as_str())) {
                return Err(invalid(&format!(
                    "the list's items have no field {key:?}{}",
                    match props {
                        Some(p) if !p.is_empty() => format!(
                            " (they have {})",
                            p.keys()
                                .map(|k| k.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        _ => String::new(),
                    }
                )));
            }
        }
        Ok(Some(keys))
    }
}

/// The schema of a list that merges by `keys`, in the form kustomize merges without
/// losing items (see the module documentation of `crd`).
pub(super) fn merging_list(keys: &[String], items: Option<Value>) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), "array".into());
    if let Some(items) = items {
        out.insert("items".into(), items);
    }
    out.insert("x-kubernetes-list-type".into(), "map".into());
    out.insert(
        "x-kubernetes-list-map-keys".into(),
        Value::Array(keys.iter().map(|k| Value::from(k.as_str())).collect()),
    );
    if let [key] = keys {
        out.insert("x-kubernetes-patch-merge-key".into(), key.as_str().into());
    }
    out.insert("x-kubernetes-patch-strategy".into(), "merge".into());
    Value::Object(out)
}

/// Whether a schema describes a list.
pub(super) fn is_array(schema: &Node) -> bool {
    schema.get_str(&["type"]) == Some("array") || schema.get("items").is_some()
}

/// Whether a `--merge-key` path names the list at `path` (whose last step is the list).
fn same_path(declared: &[Segment], path: &[Segment]) -> bool {
    declared.len() == path.len()
        && declared
            .iter()
            .zip(path)
            .all(|(d, p)| d.name == p.name && d.list == p.list)
}

/// A value of the schema as it is written, for messages.
fn show(node: &Node) -> String {
    serde_json::to_string(&node.to_json()).unwrap_or_else(|_| "?".into())
}
