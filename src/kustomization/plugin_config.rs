//! Plugin config documents, as `generators:` and `transformers:` list them:
//! their identity (`apiVersion`, `kind`, `metadata`) and lenient decoding.
//!
//! kustomize reads built-in configs leniently (unknown fields are ignored);
//! only `apiVersion: builtin` configs are built-in.

use super::config_text;
use crate::error::{Error, Result};
use crate::yaml::Node;
use crate::yaml::de::from_node_lenient;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// Metadata of a config (`metadata.name`, `metadata.namespace`).
#[derive(Debug, Default, Deserialize)]
pub struct Meta {
    /// The config's `metadata.name`; a ConfigMap or Secret generator config without its own
    /// `name` names the generated object with it.
    #[serde(default)]
    pub name: String,
    /// The config's `metadata.namespace`; likewise the generated object's namespace when
    /// the generator config gives none.
    #[serde(default)]
    pub namespace: String,
}

/// Decodes a config of kind `kind` leniently, its numbers and booleans read as kustomize
/// reads them (see [`config_text`]).
pub fn decode<T: DeserializeOwned>(node: &Node, kind: &str) -> Result<T> {
    decode_with(node, kind, config_text::text_fields(kind))
}

fn decode_with<T: DeserializeOwned>(node: &Node, kind: &str, text_fields: &[&str]) -> Result<T> {
    let mut node = node.clone();
    config_text::convert(&mut node, text_fields);
    from_node_lenient(&node)
        .map_err(|e| Error::invalid_config(format!("invalid {kind} config: {e}")))
}

/// kind, metadata.name and metadata.namespace of a builtin config document. A config whose
/// `apiVersion` is not exactly `builtin` (none included: kustomize wants group "" and version
/// "builtin") is an external plugin, and an error here; a build refuses those earlier, with
/// the error `--enable-alpha-plugins` calls for (see build/plugins.rs).
pub fn identity(node: &Node) -> Result<(String, Meta)> {
    let api = node.get_str(&["apiVersion"]).unwrap_or_default();
    let kind = node.get_str(&["kind"]).unwrap_or_default().to_string();
    let meta: Meta = node
        .get("metadata")
        .map(|m| decode_with(m, "metadata", config_text::METADATA_FIELDS))
        .transpose()?
        .unwrap_or_default();
    if api != "builtin" {
        return Err(Error::Unsupported {
            what: format!(
                "{kind} ({api}) is not a builtin plugin: kbuild does not run external plugins (exec, Go or KRM functions)"
            ),
            hint: Some("only apiVersion: builtin configs are supported".into()),
        });
    }
    Ok((kind, meta))
}

/// The built-in generator kinds kbuild runs from `generators:`.
pub const GENERATOR_KINDS: &[&str] = &[
    "ConfigMapGenerator",
    "SecretGenerator",
    "IAMPolicyGenerator",
];

/// The built-in transformer kinds kbuild runs from `transformers:`.
pub const TRANSFORMER_KINDS: &[&str] = &[
    "AnnotationsTransformer",
    "HashTransformer",
    "ImageTagTransformer",
    "LabelTransformer",
    "NamespaceTransformer",
    "PatchJson6902Transformer",
    "PatchStrategicMergeTransformer",
    "PatchTransformer",
    "PrefixSuffixTransformer",
    "PrefixTransformer",
    "ReplacementTransformer",
    "ReplicaCountTransformer",
    "SuffixTransformer",
    "ValueAddTransformer",
];

/// The error for a config whose kind is no built-in `what` ("transformer", "generator").
pub fn unknown(kind: &str, what: &str) -> Error {
    Error::invalid_config(format!(
        "unable to load builtin {kind}: not a builtin {what} kbuild knows (builtin {what}s: {})",
        if what == "transformer" {
            TRANSFORMER_KINDS
        } else {
            GENERATOR_KINDS
        }
        .join(", ")
    ))
}
