//! Builtin plugin configs under `generators:`, `transformers:` and `validators:` (inline
//! or in a file): the fields that name files, localized as kustomize v5.8.1's
//! `localizeBuiltinPlugins` does (`env`, `envs`, `files` of the ConfigMap and Secret
//! generators; `valuesFile`, `additionalValuesFiles`, `chartHome` of
//! HelmChartInflationGenerator; `path` of PatchTransformer and PatchJson6902Transformer;
//! `paths` of PatchStrategicMergeTransformer; `replacements[].path` of
//! ReplacementTransformer). Other configs (external plugins) are copied as written.
//! Each document is edited in place, its comments kept.

use super::walk::{Root, Walk};
use crate::edit::document::{Document, Step};
use crate::edit::rewrite::{split_documents, split_head};
use crate::error::Result;
use crate::yaml::Node;

/// `text` (one or more YAML documents) with its builtin plugins' file fields localized.
pub(super) fn localize_text(w: &mut Walk, r: &Root, text: &str, source: &str) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    for piece in split_documents(text) {
        out.push_str(&localize_document(w, r, piece, source)?);
    }
    Ok(out)
}

/// One document (its leading `---` line included), localized.
fn localize_document(w: &mut Walk, r: &Root, piece: &str, source: &str) -> Result<String> {
    // The separator line is not part of what the editor parses.
    let (head, body) = split_head(piece);
    if body.trim().is_empty() {
        return Ok(piece.to_string());
    }
    let mut doc = Document::parse(body.to_string(), source)?;
    let value = doc.value().clone();
    if value.get_str(&["apiVersion"]) != Some("builtin") {
        return Ok(piece.to_string());
    }
    let kind = value.get_str(&["kind"]).unwrap_or_default();
    let mut found: Vec<(Vec<Step>, String, Field)> = Vec::new();
    let mut scalar_or_list = |key: &str, field: Field| match value.get(key) {
        Some(Node::Seq(items)) => {
            for (i, n) in items.iter().enumerate() {
                if let Some(s) = n.as_str() {
                    found.push((vec![Step::key(key), Step::Index(i)], s.into(), field));
                }
            }
        }
        Some(n) => {
            if let Some(s) = n.as_str() {
                found.push((vec![Step::key(key)], s.into(), field));
            }
        }
        None => {}
    };
    match kind {
        "ConfigMapGenerator" | "SecretGenerator" => {
            scalar_or_list("env", Field::File);
            scalar_or_list("envs", Field::File);
            scalar_or_list("files", Field::FileSource);
        }
        "HelmChartInflationGenerator" => {
            scalar_or_list("valuesFile", Field::File);
            scalar_or_list("additionalValuesFiles", Field::File);
            scalar_or_list("chartHome", Field::ChartHome);
        }
        "PatchTransformer" | "PatchJson6902Transformer" => scalar_or_list("path", Field::File),
        "PatchStrategicMergeTransformer" => scalar_or_list("paths", Field::MaybeInline),
        "ReplacementTransformer" => {
            if let Some(Node::Seq(items)) = value.get("replacements") {
                for (i, n) in items.iter().enumerate() {
                    if let Some(p) = n.get("path").and_then(Node::as_str) {
                        let path =
                            vec![Step::key("replacements"), Step::Index(i), Step::key("path")];
                        found.push((path, p.into(), Field::File));
                    }
                }
            }
        }
        _ => {}
    }
    if kind == "HelmChartInflationGenerator" && value.get("chartHome").is_none() {
        w.copy_chart_home(r, "charts")?;
    }
    let mut changed = false;
    for (path, old, field) in found {
        let new = match field {
            Field::File => w.file(r, &old)?,
            Field::FileSource => w.file_source(r, &old)?,
            Field::MaybeInline if old.contains('\n') => old.clone(),
            Field::MaybeInline => w.file(r, &old)?,
            Field::ChartHome => w.copy_chart_home(r, &old)?,
        };
        if new != old {
            doc.set(&path, &Node::text(new))?;
            changed = true;
        }
    }
    if !changed {
        return Ok(piece.to_string());
    }
    Ok(format!("{head}{}", doc.text()))
}

#[derive(Clone, Copy)]
enum Field {
    File,
    FileSource,
    MaybeInline,
    ChartHome,
}
