//! kustomize's built-in schema (the table in `builtin.rs`) written back as OpenAPI
//! (swagger 2.0) definitions, for the document `kbuild openapi from-crds` writes.
//!
//! Why a schema file for custom resources must carry the built-in kinds too: a file named
//! in `openapi: path:` *replaces* kustomize's built-in schema (measured with `kubectl
//! kustomize` v5.5.0 and v5.8.1: with a file that describes only a CRD, a Deployment patch
//! replaces the containers list instead of merging it by name; see `schemas.rs` for the one
//! exception). So the document holds, next to the CRDs, every built-in kind with the
//! definitions it reaches.
//!
//! What is written is the table, not the Kubernetes document it was generated from: the
//! fields that carry merge metadata (`x-kubernetes-patch-strategy`,
//! `x-kubernetes-patch-merge-key`, `x-kubernetes-list-type`, `x-kubernetes-list-map-keys`) or
//! lead to one, and the object fields below them as `{"type": "object"}`. Scalars without
//! metadata merge as fields the schema does not know, in kyaml as in kbuild, so the file is
//! a fifth of the size and merges the same (the tests read it back and compare it with the
//! table kind by kind; `tests/crd_merge.rs` compares kustomize's output with and without
//! it). Definitions keep their Kubernetes names (`io.k8s.api.apps.v1.Deployment`), so a
//! reviewer recognises them.
//!
//! Left out: the kinds whose definitions carry no merge metadata at all (`DeleteOptions`,
//! `Status`, `WatchEvent`, `APIGroup`, ...: nothing of theirs merges by key, with or without
//! a schema).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use super::builtin;
use super::table::{ListType, N, Shape};

/// The built-in definitions, by name, each a JSON schema object; kinds carry their
/// `x-kubernetes-group-version-kind`.
pub(crate) fn builtin_definitions() -> BTreeMap<String, Value> {
    let names = type_names();
    let mut kinds: HashMap<u32, Vec<Value>> = HashMap::new();
    for k in builtin::KINDS {
        let Some(shape) = builtin::SHAPES.get(k.shape as usize) else {
            continue;
        };
        if shape.object != N {
            kinds
                .entry(shape.object)
                .or_default()
                .push(gvk(&k.group, &k.version, &k.kind));
        }
    }
    let mut out = BTreeMap::new();
    for (ty, name) in &names {
        let Some(def) = builtin::TYPES.get(*ty as usize) else {
            continue;
        };
        let range = def.first as usize..(def.first + def.len) as usize;
        let mut properties = Map::new();
        for f in builtin::FIELDS.get(range).unwrap_or_default() {
            properties.insert(f.name.to_string(), shape_json(f.shape, &names));
        }
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        if !properties.is_empty() {
            schema.insert("properties".into(), Value::Object(properties));
        }
        if def.additional != N {
            schema.insert(
                "additionalProperties".into(),
                shape_json(def.additional, &names),
            );
        }
        if let Some(gvks) = kinds.remove(ty) {
            schema.insert("x-kubernetes-group-version-kind".into(), Value::Array(gvks));
        }
        out.insert(name.to_string(), Value::Object(schema));
    }
    out
}

/// A `x-kubernetes-group-version-kind` entry.
pub(crate) fn gvk(group: &str, version: &str, kind: &str) -> Value {
    let mut m = Map::new();
    m.insert("group".into(), group.into());
    m.insert("kind".into(), kind.into());
    m.insert("version".into(), version.into());
    Value::Object(m)
}

/// Each object type of the table with the name of the Kubernetes definition it came from
/// (the first by name, when a definition is only a `$ref` to another).
fn type_names() -> BTreeMap<u32, &'static str> {
    let mut names = BTreeMap::new();
    for &(name, shape) in builtin::DEFINITIONS {
        if shape == N {
            continue;
        }
        if let Some(s) = builtin::SHAPES.get(shape as usize)
            && s.object != N
        {
            names.entry(s.object).or_insert(name);
        }
    }
    names
}

/// The schema of one field, list element or map value: a `$ref` to the definition of its
/// object, `items` for a list, its merge metadata.
fn shape_json(index: u32, names: &BTreeMap<u32, &'static str>) -> Value {
    let Some(shape) = builtin::SHAPES.get(index as usize) else {
        return Value::Object(Map::new());
    };
    let mut m = Map::new();
    if shape.object != N
        && let Some(name) = names.get(&shape.object)
    {
        m.insert("$ref".into(), format!("#/definitions/{name}").into());
    }
    if shape.items != N {
        m.insert("type".into(), "array".into());
        m.insert("items".into(), shape_json(shape.items, names));
    }
    let plain = shape.object == N && shape.items == N;
    if plain && !has_metadata(shape) {
        // An object without metadata below it: kept, so that kyaml does not look its
        // schema up from its own apiVersion and kind (see tools/gen_openapi.py).
        m.insert("type".into(), "object".into());
    }
    metadata_json(shape, &mut m);
    Value::Object(m)
}

fn has_metadata(shape: &Shape) -> bool {
    !shape.strategy.is_empty()
        || shape.merge_key.is_some()
        || shape.list_type.is_some()
        || !shape.list_map_keys.is_empty()
}

fn metadata_json(shape: &Shape, m: &mut Map<String, Value>) {
    if !shape.strategy.is_empty() {
        m.insert(
            "x-kubernetes-patch-strategy".into(),
            shape.strategy.to_string().into(),
        );
    }
    if let Some(key) = &shape.merge_key {
        m.insert(
            "x-kubernetes-patch-merge-key".into(),
            key.to_string().into(),
        );
    }
    if let Some(t) = shape.list_type {
        let text = match t {
            ListType::Atomic => "atomic",
            ListType::Set => "set",
            ListType::Map => "map",
        };
        m.insert("x-kubernetes-list-type".into(), text.into());
    }
    if !shape.list_map_keys.is_empty() {
        let keys = shape
            .list_map_keys
            .iter()
            .map(|k| Value::from(k.to_string()))
            .collect();
        m.insert("x-kubernetes-list-map-keys".into(), Value::Array(keys));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openapi::Schemas;
    use crate::openapi::table::Table;
    use crate::yaml::Node;
    use std::collections::HashSet;

    /// Compares two shapes of two tables, and everything below them.
    fn same(a: &Table, sa: u32, b: &Table, sb: u32, seen: &mut HashSet<(u32, u32)>, at: &str) {
        if !seen.insert((sa, sb)) {
            return;
        }
        let (x, y) = (&a.shapes[sa as usize], &b.shapes[sb as usize]);
        assert_eq!(x.strategy, y.strategy, "{at}");
        assert_eq!(x.merge_key, y.merge_key, "{at}");
        assert_eq!(x.list_type, y.list_type, "{at}");
        assert_eq!(x.list_map_keys, y.list_map_keys, "{at}");
        assert_eq!(x.items == N, y.items == N, "{at}: items");
        if x.items != N {
            same(a, x.items, b, y.items, seen, &format!("{at}[]"));
        }
        // An object without fields reads as no object: both merge the same.
        let fields = |t: &Table, s: &Shape| {
            if s.object == N {
                return (Vec::new(), N);
            }
            let ty = &t.types[s.object as usize];
            let range = ty.first as usize..(ty.first + ty.len) as usize;
            let fields: Vec<(String, u32)> = t.fields[range]
                .iter()
                .map(|f| (f.name.to_string(), f.shape))
                .collect();
            (fields, ty.additional)
        };
        let ((fx, ax), (fy, ay)) = (fields(a, x), fields(b, y));
        let names = |f: &[(String, u32)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&fx), names(&fy), "{at}: fields");
        for ((n, p), (_, q)) in fx.iter().zip(&fy) {
            same(a, *p, b, *q, seen, &format!("{at}.{n}"));
        }
        assert_eq!(ax == N, ay == N, "{at}: additionalProperties");
        if ax != N {
            same(a, ax, b, ay, seen, &format!("{at}.*"));
        }
    }

    #[test]
    fn exported_definitions_read_back_as_the_builtin_table() {
        let defs: Map<String, Value> = builtin_definitions().into_iter().collect();
        let doc = serde_json::json!({ "definitions": Value::Object(defs) });
        let schemas = Schemas::from_openapi_document(&Node::from(&doc), "export").unwrap();
        let (ours, theirs) = (Schemas::builtin().table(), schemas.table());
        let mut checked = 0;
        for k in builtin::KINDS {
            let shape = &builtin::SHAPES[k.shape as usize];
            let found = theirs.lookup(&k.group, &k.version, &k.kind);
            if shape.object == N {
                // Left out (see the module documentation).
                assert!(found.is_none(), "{} {}", k.group, k.kind);
                continue;
            }
            let key = (&*k.group, &*k.version, &*k.kind);
            let i = theirs
                .kinds
                .binary_search_by(|e| (&*e.group, &*e.version, &*e.kind).cmp(&key))
                .unwrap();
            let mut seen = HashSet::new();
            let at = format!("{}/{} {}", k.group, k.version, k.kind);
            same(ours, k.shape, theirs, theirs.kinds[i].shape, &mut seen, &at);
            checked += 1;
        }
        assert!(checked > 150, "{checked}");
    }

    #[test]
    fn deployment_keeps_its_name() {
        let defs = builtin_definitions();
        let d = &defs["io.k8s.api.apps.v1.Deployment"];
        assert_eq!(
            d["x-kubernetes-group-version-kind"][0]["kind"],
            Value::from("Deployment")
        );
        let containers = &defs["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
        assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
        assert_eq!(
            containers["items"]["$ref"],
            "#/definitions/io.k8s.api.core.v1.Container"
        );
    }
}
