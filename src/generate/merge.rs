//! `behavior: merge` and `behavior: replace`: folding a generated ConfigMap
//! or Secret into an existing resource with the same id (usually from a
//! base).
//!
//! What kustomize does, checked with `kubectl kustomize` on a base and an
//! overlay:
//! - the result is the generated resource, so everything else of the
//!   existing one is dropped (a Secret's `type`, `stringData`, `immutable`);
//! - it keeps the existing resource's name (with any prefix or suffix the
//!   base added) and namespace;
//! - labels and annotations are merged, the generator's winning;
//! - `merge` also merges `data` and `binaryData` key by key, the
//!   generator's winning; values of the existing resource become strings
//!   (`5` becomes `"5"`, null and nested values `""`);
//! - `merge` keeps the existing `config.kubernetes.io/origin` annotation,
//!   `replace` takes the generator's;
//! - the name hash is added only if both the existing resource and the
//!   generator want one (see [`merged_hash_suffix`]).

use super::Behavior;
use crate::error::Error;
use crate::yaml::{Map, Node};

const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";

/// Replaces `existing` with `generated` merged into it according to
/// `behavior`. `create` (or no behavior) is an error: the id is taken.
pub(crate) fn merge_into(
    existing: &mut Node,
    generated: &Node,
    behavior: Behavior,
) -> Result<(), Error> {
    if matches!(behavior, Behavior::Create | Behavior::Unspecified) {
        let kind = existing.get_str(&["kind"]).unwrap_or("resource");
        let name = existing.get_str(&["metadata", "name"]).unwrap_or_default();
        let id = crate::resource::id::ResId {
            gvk: crate::resource::id::Gvk::from_api_version(
                existing.get_str(&["apiVersion"]).unwrap_or_default(),
                kind,
            ),
            namespace: existing
                .get_str(&["metadata", "namespace"])
                .unwrap_or_default()
                .into(),
            name: name.into(),
        };
        return Err(Error::duplicate_id(
            crate::resource::resmap::id_text(&id),
            format!(
                "{kind} {name:?} already exists; a generator for it needs behavior: merge or replace"
            ),
        ));
    }
    let mut result = generated.clone();
    let Some(meta) = result.ensure_map(&["metadata"]) else {
        return Err(Error::invalid_resource(
            "the generated resource's metadata is not a mapping",
        ));
    };
    let mut annotations = merged(
        existing.get_path(&["metadata", "annotations"]),
        generated.get_path(&["metadata", "annotations"]),
    );
    if behavior == Behavior::Merge
        && let Some(origin) = existing.get_path(&["metadata", "annotations", ORIGIN_ANNOTATION])
    {
        annotations.insert(ORIGIN_ANNOTATION, Node::text(as_text(origin)));
    }
    let labels = merged(
        existing.get_path(&["metadata", "labels"]),
        generated.get_path(&["metadata", "labels"]),
    );
    set_or_remove(meta, "labels", labels);
    set_or_remove(meta, "annotations", annotations);
    if let Some(name) = existing
        .get_path(&["metadata", "name"])
        .map(as_text)
        .filter(|n| !n.is_empty())
    {
        meta.insert("name", Node::text(name));
    }
    copy_or_remove(
        meta,
        "namespace",
        existing.get_path(&["metadata", "namespace"]),
    );
    meta.sort_keys();

    if behavior == Behavior::Merge
        && let Some(root) = result.as_map_mut()
    {
        for field in ["data", "binaryData"] {
            let mut map = merged(existing.get(field), generated.get(field));
            crate::merge::scalar_style::style_generated_strings(&mut map);
            set_or_remove(root, field, map);
        }
        root.sort_keys();
    }
    *existing = result;
    Ok(())
}

/// Whether the merged resource gets a name hash: kustomize keeps its
/// "needs hash" mark only when both sides carry it. So a generator merged
/// into a plain ConfigMap from `resources` adds no hash, one with
/// `disableNameSuffixHash: true` removes the hash a base generator wanted,
/// and one merged into a base generator that disabled the hash adds none.
pub(crate) fn merged_hash_suffix(existing: bool, generated: bool) -> bool {
    existing && generated
}

/// `old` and `new` string maps merged, `new` winning, keys sorted (a
/// missing or non-mapping side counts as empty).
fn merged(old: Option<&Node>, new: Option<&Node>) -> Map {
    let mut out = Map::new();
    for side in [old, new].into_iter().flatten() {
        if let Some(m) = side.as_map() {
            for (k, v) in m {
                // A number reads as the text it was written as (`1.50`, `0x1F`).
                let text = match m.typed_text(k) {
                    Some(t) => t.to_owned(),
                    None => as_text(v),
                };
                out.insert(k.clone(), Node::text(text));
            }
        }
    }
    out.sort_keys();
    out
}

/// A value as kustomize reads it into a string map: scalars as text, null
/// and collections as `""`.
fn as_text(v: &Node) -> String {
    match v {
        Node::Null | Node::Seq(_) | Node::Map(_) => String::new(),
        scalar => scalar.scalar_string().unwrap_or_default(),
    }
}

/// kustomize drops a label, annotation or data field that ends up empty.
fn set_or_remove(map: &mut Map, field: &str, value: Map) {
    if value.is_empty() {
        map.shift_remove(field);
    } else {
        map.insert(field, Node::Map(value));
    }
}

/// Takes `value` as the string field, or removes the field when it is
/// missing or empty (kustomize's `SetNamespace("")` drops the field).
fn copy_or_remove(map: &mut Map, field: &str, value: Option<&Node>) {
    match value.map(as_text) {
        Some(s) if !s.is_empty() => {
            map.insert(field, Node::text(s));
        }
        _ => {
            map.shift_remove(field);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::hash::name_hash;
    use serde_json::json;

    fn node(v: serde_json::Value) -> Node {
        Node::from(&v)
    }

    fn merge(
        existing: serde_json::Value,
        generated: serde_json::Value,
        behavior: Behavior,
    ) -> Node {
        let mut e = node(existing);
        merge_into(&mut e, &node(generated), behavior).expect("merges");
        e
    }

    fn cm(name: &str, meta: serde_json::Value, data: serde_json::Value) -> serde_json::Value {
        let mut m = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
        if let (Some(md), Some(extra)) = (m["metadata"].as_object_mut(), meta.as_object()) {
            md.extend(extra.clone());
        }
        if !data.is_null() {
            m["data"] = data;
        }
        m
    }

    /// kubectl: base generator `gen` (namePrefix p-) with `a=1, b=2`, labels
    /// `l1, l2: base`, annotation `an1: base`; overlay merge with `b=3, c=4`,
    /// labels `l2, l3: ov`, annotation `an2: ov`, hash disabled. Printed
    /// `p-gen` with data a=1 b=3 c=4, labels l1: base l2: ov l3: ov,
    /// annotations an1: base an2: ov.
    #[test]
    fn merge_generators() {
        let existing = cm(
            "p-gen",
            json!({"labels": {"l1": "base", "l2": "base"}, "annotations": {"an1": "base"}}),
            json!({"a": "1", "b": "2"}),
        );
        let generated = cm(
            "gen",
            json!({"labels": {"l2": "ov", "l3": "ov"}, "annotations": {"an2": "ov"}}),
            json!({"b": "3", "c": "4"}),
        );
        assert_eq!(
            merge(existing, generated, Behavior::Merge),
            node(cm(
                "p-gen",
                json!({"labels": {"l1": "base", "l2": "ov", "l3": "ov"}, "annotations": {"an1": "base", "an2": "ov"}}),
                json!({"a": "1", "b": "3", "c": "4"})
            ))
        );
        assert!(!merged_hash_suffix(true, false));
    }

    /// kubectl: a plain ConfigMap from `resources` (data `a: "1"`, `n: 5`,
    /// `t: true`, binaryData `bb`) merged with `c=4` printed data a c n t
    /// all strings, kept binaryData and labels, and got no hash.
    #[test]
    fn merge_into_plain_resource() {
        let mut existing = cm(
            "p-plain",
            json!({"labels": {"l1": "base", "num": "5"}}),
            json!({"a": "1", "n": 5, "t": true}),
        );
        existing["binaryData"] = json!({"bb": "YWJj"});
        let mut want = cm(
            "p-plain",
            json!({"labels": {"l1": "base", "num": "5"}}),
            json!({"a": "1", "c": "4", "n": "5", "t": "true"}),
        );
        want["binaryData"] = json!({"bb": "YWJj"});
        assert_eq!(
            merge(
                existing,
                cm("plain", json!({}), json!({"c": "4"})),
                Behavior::Merge
            ),
            node(want)
        );
        assert!(!merged_hash_suffix(false, true));
    }

    /// kubectl: a ConfigMap in namespace `default` with null and nested
    /// data merged with an empty generator kept the namespace and printed
    /// every such value as `""`.
    #[test]
    fn merge_stringifies_odd_values() {
        let existing = cm(
            "nulls",
            json!({"namespace": "default"}),
            json!({"nn": null, "nested": {"a": "b"}}),
        );
        assert_eq!(
            merge(
                existing,
                cm("nulls", json!({}), json!(null)),
                Behavior::Merge
            ),
            node(cm(
                "nulls",
                json!({"namespace": "default"}),
                json!({"nn": "", "nested": ""})
            ))
        );
    }

    /// kubectl: a plain Secret (`stringData`, `immutable`, data a) and a base
    /// generator Secret of type kubernetes.io/tls, each merged with `c=3`,
    /// came out as Opaque Secrets with only merged `data`.
    #[test]
    fn merge_secrets_takes_generated_fields() {
        let existing = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "p-plainsec"},
            "stringData": {"x": "y"}, "data": {"a": "MQ=="}, "immutable": true, "type": "kubernetes.io/tls"});
        let generated = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "plainsec"}, "data": {"c": "Mw=="}, "type": "Opaque"});
        assert_eq!(
            merge(existing, generated, Behavior::Merge),
            node(
                json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "p-plainsec"}, "data": {"a": "MQ==", "c": "Mw=="}, "type": "Opaque"})
            )
        );
    }

    /// kubectl: base `rep` (a=1 b=2, label x: base, immutable) replaced by
    /// c=3 with label z: ov printed data c=3, labels x and z, no immutable,
    /// `rep-c966fbk687`; `nodata` replaced by an empty generator had no data
    /// (`nodata-6ct58987ht`); `both` merged a=1 with b=1: `both-8gchk5bfmb`.
    #[test]
    fn replace_and_hashes() {
        let mut existing = cm(
            "rep",
            json!({"labels": {"x": "base"}}),
            json!({"a": "1", "b": "2"}),
        );
        existing["immutable"] = json!(true);
        let replaced = merge(
            existing,
            cm("rep", json!({"labels": {"z": "ov"}}), json!({"c": "3"})),
            Behavior::Replace,
        );
        assert_eq!(
            replaced,
            node(cm(
                "rep",
                json!({"labels": {"x": "base", "z": "ov"}}),
                json!({"c": "3"})
            ))
        );
        assert_eq!(name_hash(&replaced).expect("hash"), "c966fbk687");

        let nodata = merge(
            cm("nodata", json!({}), json!({"a": "1"})),
            cm("nodata", json!({}), json!(null)),
            Behavior::Replace,
        );
        assert_eq!(nodata, node(cm("nodata", json!({}), json!(null))));
        assert_eq!(name_hash(&nodata).expect("hash"), "6ct58987ht");

        let both = merge(
            cm("both", json!({}), json!({"a": "1"})),
            cm("both", json!({}), json!({"b": "1"})),
            Behavior::Merge,
        );
        assert_eq!(name_hash(&both).expect("hash"), "8gchk5bfmb");
        assert!(merged_hash_suffix(true, true));
    }

    /// kubectl: an empty Secret replaced by an empty generator kept
    /// `data: {}` (`s-46f8b28mk5`); merged, it lost `data` (`s-8226t8dd99`).
    #[test]
    fn empty_secrets() {
        let empty = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {}, "type": "Opaque"});
        let replaced = merge(empty.clone(), empty.clone(), Behavior::Replace);
        assert_eq!(replaced, node(empty.clone()));
        assert_eq!(name_hash(&replaced).expect("hash"), "46f8b28mk5");
        let merged = merge(empty.clone(), empty, Behavior::Merge);
        assert_eq!(merged.get("data"), None);
        assert_eq!(name_hash(&merged).expect("hash"), "8226t8dd99");
    }

    /// Conformance TestAnnoOriginConfigMapGeneratorMerge/Replace: merge keeps
    /// the base's origin annotation, replace shows the overlay's.
    #[test]
    fn origin_annotation() {
        let base = cm(
            "bob",
            json!({"annotations": {ORIGIN_ANNOTATION: "base"}}),
            json!({"a": "1"}),
        );
        let overlay = cm(
            "bob",
            json!({"annotations": {ORIGIN_ANNOTATION: "overlay"}}),
            json!({"b": "1"}),
        );
        let merged = merge(base.clone(), overlay.clone(), Behavior::Merge);
        assert_eq!(
            merged.get_str(&["metadata", "annotations", ORIGIN_ANNOTATION]),
            Some("base")
        );
        let replaced = merge(base, overlay, Behavior::Replace);
        assert_eq!(
            replaced.get_str(&["metadata", "annotations", ORIGIN_ANNOTATION]),
            Some("overlay")
        );
    }

    /// kubectl: "id ... exists; behavior must be merge or replace" for
    /// `behavior: create`, `bogus`, `Merge` or none.
    #[test]
    fn create_on_existing_is_an_error() {
        for behavior in [Behavior::Create, Behavior::Unspecified] {
            let mut e = node(cm("q", json!({}), json!({"a": "1"})));
            let err = merge_into(
                &mut e,
                &node(cm("q", json!({}), json!({"b": "1"}))),
                behavior,
            )
            .expect_err("id taken");
            assert_eq!(
                err.to_string(),
                r#"ConfigMap "q" already exists; a generator for it needs behavior: merge or replace"#
            );
        }
    }
}
