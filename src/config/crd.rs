//! What a kustomization's `crds:` files tell kustomize.
//!
//! Despite the name, kustomize does not read CustomResourceDefinition manifests there (it
//! rejects them: "cannot unmarshal string into Go value of type
//! accumulator.OpenAPIDefinition"). A `crds:` file is a JSON or YAML map from Go type names to
//! kube-openapi definitions (`{Schema: <OpenAPI schema>, Dependencies: [...]}`). It does not
//! affect strategic merges; kustomize derives field specs for its transformers from these
//! property extensions, on every definition that has `kind`, `apiVersion` and `metadata`
//! properties, following `$ref`s to other definitions of the file:
//!
//! - `x-kubernetes-annotation` (common annotations),
//! - `x-kubernetes-label-selector` (common labels),
//! - `x-kubernetes-identity` (name prefix/suffix),
//! - `x-kubernetes-object-ref-kind` with `x-kubernetes-object-ref-api-version` (and optional
//!   `x-kubernetes-object-ref-name-key`, default `name`): a name reference to that kind.
//!
//! The referring kind is the last dot-separated part of the type name, with no group or
//! version (kustomize's "TODO: Get Group and Version for CRD").

use crate::config::TransformerConfig;
use crate::config::name_reference_specs::NameRefSpec;
use crate::error::Error;
use crate::kustomization::FieldSpec;
use crate::yaml::{Map, Node};

/// What a field of a custom resource is, for kustomize's transformers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CrdFieldRole {
    /// Gets the common annotations.
    Annotation,
    /// Gets the common labels (a label selector).
    LabelSelector,
    /// Gets the name prefix and suffix.
    Identity,
    /// Holds the name of an object of this kind and version.
    NameReference { kind: String, version: String },
}

/// One field spec derived from a `crds:` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CrdFieldSpec {
    /// The kind of the custom resource holding the field.
    pub kind: String,
    /// The field path, `/`-separated as in kustomize's field specs.
    pub path: String,
    pub role: CrdFieldRole,
}

/// Nesting limit for `$ref` chains (recursive types would otherwise never end; kustomize
/// itself would overflow its stack).
const MAX_DEPTH: usize = 64;

/// Parses a `crds:` file (JSON or YAML); `source` names it in errors.
pub(crate) fn crd_field_specs_from_text(
    text: &str,
    source: &str,
) -> Result<Vec<CrdFieldSpec>, Error> {
    let doc = if text.trim_start().starts_with('{') {
        let json: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Error::invalid_config(format!(
                "unable to parse open API definition from '{source}': {e}"
            ))
        })?;
        Node::from(&json)
    } else {
        crate::yaml::parse::parse_stream(text, source)?
            .into_iter()
            .next()
            .unwrap_or_default()
    };
    crd_field_specs(&doc, source)
}

/// The field specs a parsed `crds:` file yields, sorted by kind, path and role.
pub(crate) fn crd_field_specs(doc: &Node, source: &str) -> Result<Vec<CrdFieldSpec>, Error> {
    let defs = doc.as_map().ok_or_else(|| not_definitions(source))?;
    if defs.values().any(|d| !matches!(d, Node::Map(_))) {
        return Err(not_definitions(source));
    }
    let mut specs = Vec::new();
    for (name, def) in defs {
        let props = properties(def);
        let is_kind = props.is_some_and(|p| {
            ["kind", "apiVersion", "metadata"]
                .iter()
                .all(|k| p.contains_key(k))
        });
        if !is_kind {
            continue;
        }
        let kind = name.rsplit('.').next().unwrap_or(name);
        let mut path = Vec::new();
        collect(defs, name, kind, &mut path, &mut specs);
    }
    specs.sort_by(|a, b| {
        (&a.kind, &a.path, format!("{:?}", a.role)).cmp(&(
            &b.kind,
            &b.path,
            format!("{:?}", b.role),
        ))
    });
    specs.dedup();
    Ok(specs)
}

/// What `specs` tell kustomize's transformers, as the configuration kustomize merges in for
/// a kustomization's `crds:` (after its `configurations:`): annotations and label selectors
/// get the common annotations and labels, identities the name prefix only (kustomize adds no
/// suffix spec for them), object references become name references to the kind and version
/// (no group) they name. None of them creates missing fields.
pub(crate) fn crd_config(specs: &[CrdFieldSpec]) -> Result<TransformerConfig, Error> {
    let mut config = TransformerConfig::empty();
    for s in specs {
        let field = FieldSpec {
            kind: s.kind.clone(),
            path: s.path.clone(),
            ..FieldSpec::default()
        };
        let mut one = TransformerConfig::empty();
        match &s.role {
            CrdFieldRole::Annotation => one.common_annotations.push(field),
            CrdFieldRole::LabelSelector => one.common_labels.push(field),
            CrdFieldRole::Identity => one.name_prefix.push(field),
            CrdFieldRole::NameReference { kind, version } => one.name_reference.push(NameRefSpec {
                version: version.clone(),
                kind: kind.clone(),
                field_specs: vec![field],
                ..NameRefSpec::default()
            }),
        }
        config.merge(&one)?;
    }
    Ok(config)
}

fn not_definitions(source: &str) -> Error {
    Error::invalid_config(format!(
        "unable to parse open API definition from '{source}': expected a map of type names to \
         {{Schema, Dependencies}} definitions (kustomize's crds: does not read CustomResourceDefinition manifests)"
    ))
}

fn properties(def: &Node) -> Option<&Map> {
    def.get_path(&["Schema", "properties"])
        .and_then(Node::as_map)
}

fn collect(
    defs: &Map,
    type_name: &str,
    kind: &str,
    path: &mut Vec<String>,
    out: &mut Vec<CrdFieldSpec>,
) {
    if path.len() > MAX_DEPTH {
        return;
    }
    let Some(props) = defs.get(type_name).and_then(properties) else {
        return;
    };
    for (prop_name, prop) in props {
        path.push(prop_name.to_string());
        let spec = |role, path: String| CrdFieldSpec {
            kind: kind.to_string(),
            path,
            role,
        };
        // kube-openapi's `Extensions.GetString`: present *and* a string.
        let has = |ext: &str| matches!(prop.get(ext), Some(Node::Str(_)));
        let joined = path.join("/");
        if has("x-kubernetes-annotation") {
            out.push(spec(CrdFieldRole::Annotation, joined.clone()));
        }
        if has("x-kubernetes-label-selector") {
            out.push(spec(CrdFieldRole::LabelSelector, joined.clone()));
        }
        if has("x-kubernetes-identity") {
            out.push(spec(CrdFieldRole::Identity, joined.clone()));
        }
        let text = |ext: &str| prop.get_str(&[ext]);
        if let (Some(version), Some(ref_kind)) = (
            text("x-kubernetes-object-ref-api-version"),
            text("x-kubernetes-object-ref-kind"),
        ) {
            let name_key = text("x-kubernetes-object-ref-name-key").unwrap_or("name");
            let role = CrdFieldRole::NameReference {
                kind: ref_kind.to_string(),
                version: version.to_string(),
            };
            out.push(spec(role, format!("{joined}/{name_key}")));
        }
        if let Some(target) = text("$ref").filter(|r| !r.is_empty()) {
            collect(defs, target, kind, path, out);
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn name_references_follow_refs_and_default_the_name_key() {
        let doc = Node::from(&json!({
            "pkg.v1.MyKind": {"Schema": {"properties": {
                "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                "metadata": {"$ref": "meta.ObjectMeta"},
                "spec": {"$ref": "pkg.v1.MyKindSpec"}}}},
            "pkg.v1.MyKindSpec": {"Schema": {"properties": {
                "secretRef": {"x-kubernetes-object-ref-api-version": "v1",
                              "x-kubernetes-object-ref-kind": "Secret",
                              "$ref": "core.LocalObjectReference"},
                "sel": {"x-kubernetes-label-selector": ""},
                "beeRef": {"x-kubernetes-object-ref-api-version": "v1beta1",
                           "x-kubernetes-object-ref-kind": "Bee",
                           "x-kubernetes-object-ref-name-key": "id"}}}},
            "pkg.v1.NotAKind": {"Schema": {"properties": {
                "x": {"x-kubernetes-annotation": ""}}}}
        }));
        let specs = crd_field_specs(&doc, "crd.json").unwrap();
        let got: Vec<_> = specs
            .iter()
            .map(|s| (s.kind.as_str(), s.path.as_str(), s.role.clone()))
            .collect();
        let nr = |k: &str, v: &str| CrdFieldRole::NameReference {
            kind: k.into(),
            version: v.into(),
        };
        assert_eq!(
            got,
            vec![
                ("MyKind", "spec/beeRef/id", nr("Bee", "v1beta1")),
                ("MyKind", "spec/secretRef/name", nr("Secret", "v1")),
                ("MyKind", "spec/sel", CrdFieldRole::LabelSelector),
            ]
        );
    }

    #[test]
    fn a_crd_manifest_is_rejected() {
        let doc = Node::from(
            &json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}),
        );
        let err = crd_field_specs(&doc, "crd.yaml").unwrap_err().to_string();
        assert!(
            err.contains("unable to parse open API definition from 'crd.yaml'"),
            "{err}"
        );
    }
}
