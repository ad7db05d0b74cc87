//! `generators:` config documents (`apiVersion: builtin`): ConfigMapGenerator
//! and SecretGenerator arguments, or IAMPolicyGenerator's ready resource.

use crate::error::{Error, Result};
use crate::kustomization::GeneratorArgs;
use crate::kustomization::plugin_config::{self, decode, identity};
use crate::yaml::Node;
use serde::Deserialize;

/// A ConfigMapGenerator/SecretGenerator config: its `metadata`, and beside it the generator
/// fields (one struct, not a flattened one, so that errors name the field).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GeneratorConfig {
    #[serde(default)]
    metadata: plugin_config::Meta,
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

/// What a generator config asks for.
pub(crate) enum GeneratorConfigKind {
    /// A ConfigMap or Secret from generator arguments.
    Data(crate::generate::GeneratorKind, Box<GeneratorArgs>),
    /// A ready resource (IAMPolicyGenerator's ServiceAccount).
    Resource(Node),
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct IamPolicyConfig {
    #[serde(default)]
    cloud: String,
    #[serde(default)]
    kubernetes_service: plugin_config::Meta,
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
fn iam_policy(node: &Node) -> Result<Node> {
    let c: IamPolicyConfig = decode(node, "IAMPolicyGenerator")?;
    if c.cloud != "gke" {
        return Err(Error::invalid_config(format!(
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
    Ok(Node::Map(sa))
}

/// Reads a generator config: ConfigMapGenerator/SecretGenerator arguments
/// (`name`/`namespace` default to the config's metadata), or a ready
/// resource.
pub(crate) fn generator_config(node: &Node) -> Result<GeneratorConfigKind> {
    let (kind, _) = identity(node)?;
    let gk = match kind.as_str() {
        "ConfigMapGenerator" => crate::generate::GeneratorKind::ConfigMap,
        "SecretGenerator" => crate::generate::GeneratorKind::Secret,
        "IAMPolicyGenerator" => {
            return Ok(GeneratorConfigKind::Resource(iam_policy(node)?));
        }
        other => return Err(plugin_config::unknown(other, "generator")),
    };
    let a: GeneratorConfig = decode(node, &kind)?;
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
        args.name = a.metadata.name.clone();
    }
    if args.namespace.is_empty() {
        args.namespace = a.metadata.namespace.clone();
    }
    if !args.env.is_empty() {
        args.envs.push(std::mem::take(&mut args.env));
    }
    Ok(GeneratorConfigKind::Data(gk, Box::new(args)))
}
