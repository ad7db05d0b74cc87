//! The values file `helm template` gets: the chart's `values.yaml` or `valuesFile`, combined
//! with `valuesInline` per `valuesMerge` (kustomize's `createNewMergedValuesFile` and
//! `copyValuesFile`).

use super::args::{ChartArgs, ValuesMerge};
use super::HelmProblem;
use crate::error::Result;
use crate::yaml::Node;
use std::path::Path;

/// The bytes of the values file to write for `chart`, whose directory is `chart_dir`.
pub(super) fn values_file(chart: &ChartArgs, chart_dir: &Path) -> Result<Vec<u8>> {
    let inline = chart
        .chart
        .values_inline
        .as_ref()
        .filter(|v| matches!(v, Node::Map(m) if !m.is_empty()));
    let Some(inline) = inline else {
        // Copied as it is (kustomize does not parse it); parsed here only so that a broken
        // file gets a clear error rather than whatever helm says.
        let (source, bytes) = chart.values_source(chart_dir)?;
        parse(chart, &source, &bytes)?;
        return Ok(bytes);
    };
    let merged = match chart.values_merge {
        ValuesMerge::Replace => inline.clone(),
        ValuesMerge::Override | ValuesMerge::Merge => {
            let (source, bytes) = chart.values_source(chart_dir)?;
            let file = parse(chart, &source, &bytes)?;
            // kyaml's merge2 with no schema: mappings merge key by key, the patch's
            // scalars and lists replace, a null removes. kustomize passes the two in
            // opposite orders for `override` (inline values patch the file's) and `merge`
            // (the file's values patch the inline ones).
            let (mut dest, patch) = match chart.values_merge {
                ValuesMerge::Override => (file, inline),
                _ => (inline.clone(), &file),
            };
            crate::merge::smp::apply(&mut dest, patch, None).map_err(|e| {
                e.context(format!("helm chart '{}': could not merge values", chart.chart.name))
            })?;
            dest
        }
    };
    // kustomize writes the merged values through sigs.k8s.io/yaml, as it writes resources.
    let mut out = String::new();
    crate::yaml::emit::emit_document(&merged, &mut out);
    Ok(out.into_bytes())
}

/// The values file's content as a tree: an empty file is no values.
fn parse(chart: &ChartArgs, source: &Path, bytes: &[u8]) -> Result<Node> {
    let bad = |msg: String| {
        super::failure(
            chart,
            HelmProblem::BadValues {
                path: source.to_path_buf(),
                msg,
            },
        )
    };
    let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
    let node = crate::yaml::parse::parse_document(text, &source.display().to_string())
        .map_err(|e| bad(e.to_string()))?;
    match node {
        Node::Map(_) => Ok(node),
        n if n.is_null() => Ok(Node::Map(Default::default())),
        other => Err(bad(format!(
            "values must be a mapping, found a {}",
            other.type_name()
        ))),
    }
}
