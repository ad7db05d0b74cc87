//! Reading a kustomization file: YAML to the typed model, with kustomize's
//! checks of emptiness, of `apiVersion`/`kind` and of fields kbuild refuses.

use super::Kustomization;
use crate::error::{Error, FieldError, Result};
use crate::yaml::parse::PathStep;
use crate::yaml::{self, Node};
use std::path::PathBuf;

/// Decodes the kustomization file `file` holding `bytes` (kustomize's field-name rules: see
/// `yaml::de`) and checks its `apiVersion` and `kind`, as
/// kustomize does when it loads one; deprecated fields are folded into their replacements.
/// A field's error ([`Error::Field`]) gives the line and column where the field is written.
pub fn decode(file: PathBuf, bytes: Vec<u8>) -> Result<(PathBuf, Kustomization)> {
    let text = yaml::utf8(bytes, &file)?;
    let node = yaml::parse::parse_document(&text, &file.display().to_string())?;
    if !matches!(node, Node::Map(_) | Node::Null) {
        return Err(Error::invalid_config(format!(
            "{}: a kustomization must be a mapping, found a {}",
            file.display(),
            node.type_name()
        )));
    }
    let mut k: Kustomization = yaml::de::from_node(&node).map_err(|e| {
        Error::Field(Box::new(FieldError {
            file: file.clone(),
            pos: field_position(&text, &e.steps),
            path: e.path,
            msg: e.msg,
            hint: e.hint,
        }))
    })?;
    // kustomize checks emptiness after decoding and before apiVersion and kind.
    if super::empty::is_empty(&node) {
        return Err(Error::Field(Box::new(FieldError {
            file,
            pos: None,
            path: String::new(),
            msg: "it is empty (no field but apiVersion and kind is set), which kustomize refuses"
                .into(),
            hint: Some(
                "list what it builds (resources, components, generators, ...); \
                 `resources: []` makes a kustomization that builds nothing on purpose"
                    .into(),
            ),
        })));
    }
    if let Some((field, msg)) = type_meta_problem(&k) {
        return Err(Error::Field(Box::new(FieldError {
            pos: field_position(&text, &[PathStep::Key(field.into())]),
            file,
            path: field.into(),
            msg,
            hint: None,
        })));
    }
    k.deprecation_notices = super::deprecated::notices(&node);
    k.fix_deprecated();
    Ok((file, k))
}

/// Where the field at `steps` is written; `None` for the whole file.
fn field_position(text: &str, steps: &[PathStep]) -> Option<(usize, usize)> {
    if steps.is_empty() {
        return None;
    }
    yaml::locate::locate(text, steps)
}

/// The field that makes `apiVersion`/`kind` wrong, and what is wrong with it.
fn type_meta_problem(k: &Kustomization) -> Option<(&'static str, String)> {
    let (kind, want) = match k.kind.as_deref().unwrap_or("") {
        "" | "Kustomization" => ("Kustomization", "kustomize.config.k8s.io/v1beta1"),
        "Component" => ("Component", "kustomize.config.k8s.io/v1alpha1"),
        other => {
            let msg = format!("should be Kustomization or Component, found {other:?}");
            return Some(("kind", msg));
        }
    };
    match k.api_version.as_deref().unwrap_or("") {
        "" => None,
        v if v == want => None,
        v => Some((
            "apiVersion",
            format!("should be {want} for a {kind}, found {v:?}"),
        )),
    }
}
