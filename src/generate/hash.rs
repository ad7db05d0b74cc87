//! The name suffix kustomize appends to generated ConfigMaps and Secrets.
//!
//! kustomize hashes at the very end of a build, after patches and merges, so
//! the suffix reflects the final content. It encodes selected fields as Go
//! JSON, takes the SHA-256 hex digest, keeps the first 10 characters and
//! replaces `0 1 3 a e` with `g h k m t` so the suffix cannot spell words.
//!
//! Quirk kept on purpose: kustomize looks the name up with the single path
//! element `"metadata/name"`, which never matches, so the name it hashes is
//! always `""`. Two generators with the same content get the same suffix.

use crate::error::Error;
use crate::yaml::Node;
use crate::yaml::gojson::{self, Numbers};
use sha2::{Digest, Sha256};

/// The 10-character suffix for a resource (without the joining `-`).
///
/// ConfigMaps hash `kind`, `name` (always empty, see above), `data` and
/// `binaryData`; Secrets hash `kind`, `name`, `type`, `data` and
/// `stringData`. Labels, annotations and `immutable` do not count.
///
/// Any other kind (a generated resource whose kind a patch with `allowKindChange`
/// changed) is refused: kustomize hashes go-yaml's in-memory node *structure* for it
/// (`json.Marshal` of the `yaml.Node`: each node's kind, style, tag, text, line and
/// column, as the generator, the patches and every transformer left them), which a
/// tree of values cannot reproduce; a different name would deploy another object.
pub(crate) fn name_hash(node: &Node) -> Result<String, Error> {
    let encoded = match node.get("kind") {
        Some(Node::Str(k)) if k == "ConfigMap" => {
            encode_fields(node, "ConfigMap", &["binaryData"])?
        }
        Some(Node::Str(k)) if k == "Secret" => {
            encode_fields(node, "Secret", &["stringData", "type"])?
        }
        other => {
            let kind = match other {
                Some(Node::Str(k)) => k.to_string(),
                _ => "(no kind)".to_string(),
            };
            let name = node.get_str(&["metadata", "name"]).unwrap_or_default();
            return Err(Error::invalid_config(format!(
                "{kind} {name:?} was generated and needs a name hash, but its kind is neither ConfigMap nor Secret \
                 (a patch with allowKindChange changed it, or a generator plugin marked it): kustomize hashes its YAML nodes as go-yaml holds them in memory \
                 (with their line and column), which kbuild cannot reproduce, so it refuses rather than print another name; \
                 set disableNameSuffixHash: true in the generator's options, or generate the kind you want"
            )));
        }
    };
    Ok(suffix(&encoded))
}

/// Encodes `{"data":…,"kind":…,"name":"", …extra}` with keys in Go's order.
///
/// `data` and `type` are always present (`""` when missing); `binaryData`
/// and `stringData` only when they hold a collection, as kustomize leaves
/// out empty optional fields.
fn encode_fields(node: &Node, kind: &str, extra: &[&str]) -> Result<String, Error> {
    let mut fields: Vec<(&str, String)> = vec![
        ("data", field_json(node.get("data"))?),
        ("kind", quoted(kind)),
        ("name", quoted("")),
    ];
    for &name in extra {
        let value = node.get(name);
        let always = name == "type";
        if always || matches!(value, Some(Node::Map(_) | Node::Seq(_))) {
            fields.push((name, field_json(value)?));
        }
    }
    fields.sort_by(|a, b| a.0.cmp(b.0));
    let body: Vec<String> = fields
        .into_iter()
        .map(|(k, v)| format!("{}:{v}", quoted(k)))
        .collect();
    Ok(format!("{{{}}}", body.join(",")))
}

/// One field's value as kustomize sees it: a missing field is `""`, a
/// scalar is its text, a mapping goes through a JSON round trip (numbers
/// become float64), and a sequence fails to decode into a map and ends up a
/// nil map, which Go writes as `null`.
fn field_json(value: Option<&Node>) -> Result<String, Error> {
    Ok(match value {
        None => quoted(""),
        Some(map @ Node::Map(_)) => gojson::to_string(map, Numbers::Float64)?,
        Some(Node::Seq(_)) => "null".to_string(),
        // The YAML text of a null scalar written by kustomize is `null`.
        Some(Node::Null) => quoted("null"),
        Some(scalar) => quoted(&scalar.scalar_string().unwrap_or_default()),
    })
}

fn quoted(s: &str) -> String {
    let mut out = String::new();
    gojson::write_str(s, &mut out);
    out
}

/// First 10 hex digits of the SHA-256, with confusable characters replaced.
fn suffix(encoded: &str) -> String {
    let digest = Sha256::digest(encoded.as_bytes());
    digest
        .iter()
        .flat_map(|b| [b >> 4, b & 0xf])
        .take(10)
        .map(|nibble| match nibble {
            0x0 => 'g',
            0x1 => 'h',
            0x3 => 'k',
            0xa => 'm',
            0xe => 't',
            n => char::from_digit(u32::from(n), 16).unwrap_or('?'),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hash(v: serde_json::Value) -> String {
        name_hash(&Node::from(&v)).expect("hashable")
    }

    fn cm(data: serde_json::Value) -> serde_json::Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": data})
    }

    /// kubectl kustomize named `test` with this data `test-k9cc55dfm5`, and
    /// gave ConfigMaps `c` and `c2` with equal data the same suffix: the
    /// name (and the rest of the metadata) is not part of the hash.
    #[test]
    fn name_does_not_count() {
        let mut a = cm(json!({"TEST": "this is a 'test'"}));
        assert_eq!(hash(a.clone()), "k9cc55dfm5");
        a["metadata"] = json!({"name": "other", "namespace": "ns", "labels": {"l": "v"}});
        assert_eq!(hash(a), "k9cc55dfm5");
    }

    /// Generated ConfigMaps changed by JSON patches before the hash was
    /// taken; kubectl named them `ints-856tgccb99`, `floats-8hb9gfhf9f`,
    /// `nested-bdc8fh585g`, `list-t8bmh4kc6d` (data and binaryData replaced
    /// by lists) and `nulls-g886t7dd28` (data replaced by null).
    #[test]
    fn patched_config_maps() {
        assert_eq!(
            hash(cm(json!({"a": "1", "n": 5, "b": true, "z": null}))),
            "856tgccb99"
        );
        let floats = Node::from(&cm(
            json!({"a": "1", "f": 1.5, "g": 1e21, "h": 1e-7, "j": 1e20}),
        ));
        let mut floats = floats;
        if let Some(data) = floats.get_mut("data").and_then(Node::as_map_mut) {
            data.insert("i", Node::Float(12345678901234567890.0));
        }
        assert_eq!(name_hash(&floats).expect("hashable"), "8hb9gfhf9f");
        assert_eq!(
            hash(cm(
                json!({"a": "1", "m": {"x": [1, "two", {"true": null}]}})
            )),
            "bdc8fh585g"
        );
        let mut list = cm(json!([1, 2]));
        list["binaryData"] = json!([3]);
        assert_eq!(hash(list), "t8bmh4kc6d");
        assert_eq!(hash(cm(json!(null))), "g886t7dd28");
    }

    /// kubectl: a Secret given `stringData: {x: "<y>", "false": 3}` by a
    /// patch was `sd-t9h8h6gkcf`; with `stringData: [1]` and `type: 7`,
    /// `sdlist-8h6m5tgg58`; without `type`, `notype-6g8882bmfm`; a merged
    /// Secret left without `data`, `s-8226t8dd99`.
    #[test]
    fn secrets() {
        let secret = |extra: serde_json::Value| {
            let mut s = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"a": "MQ=="}, "type": "Opaque"});
            if let (Some(s), Some(extra)) = (s.as_object_mut(), extra.as_object()) {
                for (k, v) in extra {
                    if v.is_null() {
                        s.remove(k);
                    } else {
                        s.insert(k.clone(), v.clone());
                    }
                }
            }
            s
        };
        assert_eq!(
            hash(secret(json!({"stringData": {"x": "<y>", "false": 3}}))),
            "t9h8h6gkcf"
        );
        assert_eq!(
            hash(secret(json!({"stringData": [1], "type": 7}))),
            "8h6m5tgg58"
        );
        assert_eq!(hash(secret(json!({"type": null}))), "6g8882bmfm");
        assert_eq!(
            hash(
                json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "type": "Opaque"})
            ),
            "8226t8dd99"
        );
    }

    /// Other kinds are refused (see [`name_hash`]).
    #[test]
    fn other_kinds_are_refused() {
        let err = name_hash(&Node::from(
            &json!({"kind": "Other", "metadata": {"name": "a"}}),
        ))
        .expect_err("refused");
        assert!(err.to_string().contains("disableNameSuffixHash"), "{err}");
    }

    #[test]
    fn unencodable_values_are_errors() {
        let n = Node::from(&cm(json!({"a": "1"})));
        let mut n = n;
        if let Some(data) = n.get_mut("data").and_then(Node::as_map_mut) {
            data.insert("nan", Node::Float(f64::NAN));
        }
        assert!(name_hash(&n).is_err());
    }
}
