//! The second front end: `transformers:` config documents (`apiVersion:
//! builtin`, `kind: LabelTransformer`, …) as built-in transformer steps.
//!
//! kustomize decodes these configs leniently (unknown fields are ignored), and
//! each kind's `fieldSpecs` replace the defaults rather than adding to them.

use super::{Builtin, Step};
use crate::error::{Error, Result};
use crate::kustomization::plugin_config::{self, decode, identity};
use crate::kustomization::{
    FieldSpec, Image, Patch, ReplacementField, Replica, Selector, StringMap,
};
use crate::transform::{namespace, replacements};
use crate::yaml::Node;
use serde::Deserialize;
use std::borrow::Cow;
use std::path::Path;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PairsConfig {
    #[serde(default)]
    labels: StringMap,
    #[serde(default)]
    annotations: StringMap,
    #[serde(default)]
    field_specs: Vec<FieldSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NamespaceConfig {
    #[serde(default)]
    metadata: plugin_config::Meta,
    #[serde(default)]
    field_specs: Vec<FieldSpec>,
    #[serde(default)]
    unset_only: bool,
    #[serde(default)]
    set_role_binding_subjects: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AffixConfig {
    #[serde(default)]
    prefix: String,
    #[serde(default)]
    suffix: String,
    #[serde(default)]
    field_specs: Vec<FieldSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ImageConfig {
    #[serde(default)]
    image_tag: Image,
    #[serde(default)]
    field_specs: Vec<FieldSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplicaConfig {
    #[serde(default)]
    replica: Replica,
    #[serde(default)]
    field_specs: Vec<FieldSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplacementConfig {
    #[serde(default)]
    replacements: Vec<ReplacementField>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SmpConfig {
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    patches: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json6902Config {
    #[serde(default)]
    target: Option<Selector>,
    #[serde(default)]
    path: String,
    #[serde(default)]
    json_op: String,
}

/// The step a transformer config (from the file `source`) asks for.
pub(crate) fn step(node: &Node, source: &Path) -> Result<Step<'static>> {
    let (kind, meta) = identity(node)?;
    let builtin = builtin(node, &kind)?;
    Ok(Step {
        builtin,
        warn_as: Some(format!("transformer {kind} from {}", source.display())),
        context: Some(format!("running transformer from {}", source.display())),
        record: true,
        config_name: Some(meta.name).filter(|n| !n.is_empty()),
        config_namespace: Some(meta.namespace).filter(|n| !n.is_empty()),
        entry: None,
    })
}

/// The built-in transformer of kind `kind` that `node` configures.
fn builtin(node: &Node, kind: &str) -> Result<Builtin<'static>> {
    Ok(match kind {
        "LabelTransformer" => {
            let c: PairsConfig = decode(node, kind)?;
            Builtin::Labels {
                labels: Cow::Owned(c.labels),
                specs: Cow::Owned(c.field_specs),
            }
        }
        "AnnotationsTransformer" => {
            let c: PairsConfig = decode(node, kind)?;
            Builtin::Annotations {
                annotations: Cow::Owned(c.annotations),
                specs: Cow::Owned(c.field_specs),
            }
        }
        "NamespaceTransformer" => {
            let c: NamespaceConfig = decode(node, kind)?;
            Builtin::Namespace {
                namespace: Cow::Owned(c.metadata.namespace),
                specs: Cow::Owned(c.field_specs),
                options: namespace::Options {
                    unset_only: c.unset_only,
                    subjects: namespace::Subjects::parse(&c.set_role_binding_subjects)?,
                    // Decided by the kustomize version when the step runs (builtin/mod.rs).
                    skip_helm_generated: false,
                },
            }
        }
        "PrefixSuffixTransformer" | "PrefixTransformer" | "SuffixTransformer" => {
            let c: AffixConfig = decode(node, kind)?;
            Builtin::PrefixSuffix {
                kind: match kind {
                    "PrefixTransformer" => "PrefixTransformer",
                    "SuffixTransformer" => "SuffixTransformer",
                    _ => "PrefixSuffixTransformer",
                },
                prefix: Cow::Owned(c.prefix),
                suffix: Cow::Owned(c.suffix),
                specs: Cow::Owned(c.field_specs),
            }
        }
        "ImageTagTransformer" => {
            let c: ImageConfig = decode(node, kind)?;
            Builtin::ImageTag {
                image: Cow::Owned(c.image_tag),
                specs: Cow::Owned(c.field_specs),
            }
        }
        "ReplicaCountTransformer" => {
            let c: ReplicaConfig = decode(node, kind)?;
            Builtin::ReplicaCount {
                replica: Cow::Owned(c.replica),
                specs: Cow::Owned(c.field_specs),
            }
        }
        "PatchTransformer" => Builtin::Patch(Cow::Owned(decode::<Patch>(node, kind)?)),
        "PatchStrategicMergeTransformer" => {
            let c: SmpConfig = decode(node, kind)?;
            let mut entries = c.paths;
            if !c.patches.is_empty() {
                entries.push(c.patches);
            }
            Builtin::PatchStrategicMerge(Cow::Owned(entries))
        }
        "PatchJson6902Transformer" => {
            let c: Json6902Config = decode(node, kind)?;
            if c.target.is_none() {
                return Err(Error::invalid_patch(
                    "PatchJson6902Transformer needs a target",
                ));
            }
            // Refused when configured, by kustomize v5.5.0 and v5.8.1 alike.
            if c.target.as_ref().is_some_and(|t| t.name.is_empty()) {
                return Err(Error::invalid_config(
                    "invalid PatchJson6902Transformer config: must specify the target name",
                ));
            }
            // kustomize reads the file when `path` is set, else `jsonOp`.
            let (path, patch) = if c.path.is_empty() {
                (String::new(), c.json_op)
            } else {
                (c.path, String::new())
            };
            Builtin::PatchJson6902(Cow::Owned(Patch {
                path,
                patch,
                target: c.target,
                options: Default::default(),
            }))
        }
        "ReplacementTransformer" => {
            let c: ReplacementConfig = decode(node, kind)?;
            Builtin::Replacement {
                entries: Cow::Owned(c.replacements),
                decode: replacements::Decode::Lenient,
            }
        }
        "HashTransformer" => Builtin::Hash,
        "ValueAddTransformer" => Builtin::ValueAdd(Box::new(decode(node, kind)?)),
        other => return Err(plugin_config::unknown(other, "transformer")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kustomization::plugin_config::TRANSFORMER_KINDS;

    /// The list `edit alpha-list-builtin-plugin` and the unknown-kind error print is the
    /// list this dispatch knows.
    #[test]
    fn every_listed_transformer_kind_is_dispatched() {
        for kind in TRANSFORMER_KINDS {
            let node = crate::yaml::parse::parse_document(
                &format!("apiVersion: builtin\nkind: {kind}\nmetadata:\n  name: x\n"),
                "config.yaml",
            )
            .unwrap();
            if let Err(e) = builtin(&node, kind) {
                assert!(!e.to_string().contains("not a builtin"), "{kind}: {e}");
            }
        }
        assert!(builtin(&Node::Null, "NoSuchTransformer").is_err());
    }
}
