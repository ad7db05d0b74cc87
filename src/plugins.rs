//! Builtin transformer and generator configs listed under `transformers:`
//! and `generators:` (`apiVersion: builtin`, `kind: LabelTransformer`, …).
//!
//! kustomize reads these configs leniently (unknown fields are ignored), and
//! each kind's `fieldSpecs` replace the defaults rather than adding to them.

use crate::error::{Error, Result};
use crate::kustomization::{FieldSpec, GeneratorArgs, Image, Patch, Replica, Selector, StringMap};
use crate::merge::smp::MergeOptions;
use crate::resource::resmap::ResMap;
use crate::transform::union_check::Changes;
use crate::transform::{self, patch};
use crate::yaml::Node;
use crate::yaml::de::from_node_lenient;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// Metadata of a config (`metadata.name`, `metadata.namespace`).
#[derive(Debug, Default, Deserialize)]
pub struct Meta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
}

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
    metadata: Meta,
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
    replacements: Vec<crate::kustomization::ReplacementField>,
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

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GeneratorConfig {
    #[serde(default)]
    metadata: Meta,
    #[serde(flatten)]
    args: GeneratorArgsLenient,
}

/// The generator fields of a ConfigMapGenerator/SecretGenerator config.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GeneratorArgsLenient {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    behavior: String,
    #[serde(default)]
    literals: Vec<String>,
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    envs: Vec<String>,
    #[serde(default)]
    env: String,
    #[serde(default)]
    options: Option<crate::kustomization::GeneratorOptions>,
    #[serde(default, rename = "type")]
    secret_type: String,
}

fn decode<T: DeserializeOwned>(node: &Node, kind: &str) -> Result<T> {
    from_node_lenient(node).map_err(|e| Error::msg(format!("invalid {kind} config: {e}")))
}

/// kind, metadata.name and metadata.namespace of a config document.
pub fn identity(node: &Node) -> Result<(String, Meta)> {
    let api = node.get_str(&["apiVersion"]).unwrap_or_default();
    let kind = node.get_str(&["kind"]).unwrap_or_default().to_string();
    let meta: Meta = node
        .get("metadata")
        .map(|m| decode(m, "metadata"))
        .transpose()?
        .unwrap_or_default();
    if api != "builtin" && !api.is_empty() {
        return Err(Error::msg(format!(
            "{kind} ({api}) is not a builtin plugin: kbuild does not run external plugins (exec, Go or KRM functions); only apiVersion: builtin configs are supported"
        )));
    }
    Ok((kind, meta))
}

/// Runs one builtin transformer config over the resource map; returns its kind.
pub fn run_transformer(
    rm: &mut ResMap,
    node: &Node,
    read: &mut dyn FnMut(&str) -> Result<String>,
    merge: &MergeOptions,
    changes: &mut Changes,
    root: &std::path::Path,
) -> Result<String> {
    let (kind, _) = identity(node)?;
    // Patches note the resources they change; other transformers may change any.
    if !matches!(
        kind.as_str(),
        "PatchTransformer" | "PatchStrategicMergeTransformer" | "PatchJson6902Transformer"
    ) {
        changes.will_change_all(rm);
    }
    match kind.as_str() {
        "LabelTransformer" => {
            let c: PairsConfig = decode(node, &kind)?;
            transform::labels::set_pairs(rm, &c.labels, &c.field_specs)?;
        }
        "AnnotationsTransformer" => {
            let c: PairsConfig = decode(node, &kind)?;
            transform::annotations::add(rm, &c.annotations, &c.field_specs)?;
        }
        "NamespaceTransformer" => {
            let c: NamespaceConfig = decode(node, &kind)?;
            let opts = transform::namespace::Options {
                unset_only: c.unset_only,
                subjects: transform::namespace::Subjects::parse(&c.set_role_binding_subjects)?,
            };
            transform::namespace::apply(rm, &c.metadata.namespace, &c.field_specs, opts)?;
        }
        "PrefixSuffixTransformer" | "PrefixTransformer" | "SuffixTransformer" => {
            let c: AffixConfig = decode(node, &kind)?;
            transform::name_affix::apply(rm, &c.prefix, &c.suffix, &c.field_specs)?;
        }
        "ImageTagTransformer" => {
            let c: ImageConfig = decode(node, &kind)?;
            transform::images::apply(rm, std::slice::from_ref(&c.image_tag), &c.field_specs)?;
        }
        "ReplicaCountTransformer" => {
            let c: ReplicaConfig = decode(node, &kind)?;
            transform::replicas::apply(rm, std::slice::from_ref(&c.replica), &c.field_specs)?;
        }
        "PatchTransformer" => {
            let p: Patch = decode(node, &kind)?;
            crate::build::apply_patch_entry(rm, &p, read, merge, changes)?;
        }
        "PatchStrategicMergeTransformer" => {
            let c: SmpConfig = decode(node, &kind)?;
            let mut entries: Vec<String> = c.paths.clone();
            if !c.patches.is_empty() {
                entries.push(c.patches.clone());
            }
            for e in &entries {
                crate::build::apply_strategic_merge_entry(rm, e, read, merge, changes)?;
            }
        }
        "PatchJson6902Transformer" => {
            let c: Json6902Config = decode(node, &kind)?;
            let text = if c.path.is_empty() {
                c.json_op.clone()
            } else {
                read(&c.path)?
            };
            let ops = crate::merge::json6902::parse_ops(&text, "PatchJson6902Transformer")?;
            let target = c
                .target
                .ok_or_else(|| Error::msg("PatchJson6902Transformer needs a target"))?;
            patch::apply_json(rm, &ops, &target, changes)?;
        }
        "ReplacementTransformer" => {
            let c: ReplacementConfig = decode(node, &kind)?;
            use transform::replacements::{Decode, apply_entries};
            apply_entries(rm, &c.replacements, Decode::Lenient, read)?;
        }
        "ValueAddTransformer" => {
            let c: transform::value_add::Config = decode(node, &kind)?;
            transform::value_add::apply(rm, &c.resolve(root, read)?)?;
        }
        other => return Err(unknown(other, "transformer")),
    }
    Ok(kind)
}

/// What a generator config asks for.
pub enum GeneratorConfigKind {
    /// A ConfigMap or Secret from generator arguments.
    Data(crate::generate::GeneratorKind, Box<GeneratorArgs>, Meta),
    /// A ready resource (IAMPolicyGenerator's ServiceAccount).
    Resource(Node, Meta),
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct IamPolicyConfig {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    cloud: String,
    #[serde(default)]
    kubernetes_service: Meta,
    #[serde(default)]
    service_account: GcpServiceAccount,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GcpServiceAccount {
    #[serde(default)]
    name: String,
    #[serde(default)]
    project_id: String,
}

/// IAMPolicyGenerator: a ServiceAccount bound to a GCP service account
/// (workload identity); only `cloud: gke` exists.
fn iam_policy(node: &Node) -> Result<(Node, Meta)> {
    let c: IamPolicyConfig = decode(node, "IAMPolicyGenerator")?;
    if c.cloud != "gke" {
        return Err(Error::msg(format!(
            "IAMPolicyGenerator: cloud {:?} is not supported; only gke is",
            c.cloud
        )));
    }
    let mut meta = crate::yaml::Map::new();
    meta.insert(
        "annotations",
        Node::Map(
            [(
                "iam.gke.io/gcp-service-account".to_string(),
                Node::text(format!(
                    "{}@{}.iam.gserviceaccount.com",
                    c.service_account.name, c.service_account.project_id
                )),
            )]
            .into_iter()
            .collect(),
        ),
    );
    meta.insert("name", Node::text(c.kubernetes_service.name.clone()));
    if !c.kubernetes_service.namespace.is_empty() {
        meta.insert(
            "namespace",
            Node::text(c.kubernetes_service.namespace.clone()),
        );
    }
    let mut sa = crate::yaml::Map::new();
    sa.insert("apiVersion", Node::Str("v1".into()));
    sa.insert("kind", Node::Str("ServiceAccount".into()));
    sa.insert("metadata", Node::Map(meta));
    Ok((Node::Map(sa), c.metadata))
}

/// Reads a generator config: ConfigMapGenerator/SecretGenerator arguments
/// (`name`/`namespace` default to the config's metadata), or a ready
/// resource.
pub fn generator_config(node: &Node) -> Result<GeneratorConfigKind> {
    let (kind, _) = identity(node)?;
    let gk = match kind.as_str() {
        "ConfigMapGenerator" => crate::generate::GeneratorKind::ConfigMap,
        "SecretGenerator" => crate::generate::GeneratorKind::Secret,
        "IAMPolicyGenerator" => {
            let (n, m) = iam_policy(node)?;
            return Ok(GeneratorConfigKind::Resource(n, m));
        }
        other => return Err(unknown(other, "generator")),
    };
    let c: GeneratorConfig = decode(node, &kind)?;
    let a = c.args;
    let mut args = GeneratorArgs {
        namespace: a.namespace,
        name: a.name,
        behavior: a.behavior,
        literals: a.literals,
        files: a.files,
        envs: a.envs,
        env: a.env,
        options: a.options,
        secret_type: a.secret_type,
    };
    if args.name.is_empty() {
        args.name = c.metadata.name.clone();
    }
    if args.namespace.is_empty() {
        args.namespace = c.metadata.namespace.clone();
    }
    if !args.env.is_empty() {
        args.envs.push(std::mem::take(&mut args.env));
    }
    Ok(GeneratorConfigKind::Data(gk, Box::new(args), c.metadata))
}

fn unknown(kind: &str, what: &str) -> Error {
    Error::msg(format!(
        "unable to load builtin {kind}: not a builtin {what} kbuild knows (builtin {what}s: {})",
        if what == "transformer" {
            "AnnotationsTransformer, ImageTagTransformer, LabelTransformer, NamespaceTransformer, PatchJson6902Transformer, PatchStrategicMergeTransformer, PatchTransformer, PrefixSuffixTransformer, PrefixTransformer, ReplacementTransformer, ReplicaCountTransformer, SuffixTransformer, ValueAddTransformer"
        } else {
            "ConfigMapGenerator, SecretGenerator, IAMPolicyGenerator"
        }
    ))
}
