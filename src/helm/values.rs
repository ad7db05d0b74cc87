//! The values file `helm template` gets: the chart's `values.yaml` or `valuesFile`, combined
//! with `valuesInline` per `valuesMerge` (kustomize's `createNewMergedValuesFile` and
//! `copyValuesFile`).

use super::HelmProblem;
use super::args::{ChartArgs, ValuesMerge};
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
            let (mut file, empty) = parse(chart, &source, &bytes)?;
            if chart.values_merge == ValuesMerge::Override {
                // kyaml's merge walks the destination and drops its fields written as
                // nothing (`key:`); `key: null` stays.
                crate::resource::drop_empty_nulls(&mut file, empty, None);
            }
            // kyaml's merge2 with no schema: mappings merge key by key, the patch's
            // scalars and lists replace, a null removes. kustomize passes the two in
            // opposite orders for `override` (inline values patch the file's) and `merge`
            // (the file's values patch the inline ones).
            let (mut dest, patch) = match chart.values_merge {
                ValuesMerge::Override => (file, inline),
                _ => (inline.clone(), &file),
            };
            crate::merge::smp::apply(&mut dest, patch, None).map_err(|e| {
                e.context(format!(
                    "helm chart '{}': could not merge values",
                    chart.chart.name
                ))
            })?;
            dest
        }
    };
    // kustomize writes the merged values through sigs.k8s.io/yaml, as it writes resources.
    let mut out = String::new();
    crate::yaml::emit::emit_document(&merged, &mut out);
    Ok(out.into_bytes())
}

/// The values file's content as a tree (an empty file is no values), with the paths of
/// the fields it writes as nothing.
fn parse(
    chart: &ChartArgs,
    source: &Path,
    bytes: &[u8],
) -> Result<(Node, crate::yaml::parse::EmptyNulls)> {
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
    // kustomize reads the file with kyaml (go-yaml v3: `y` and `on` are strings) and writes
    // it back through JSON, as it reads resources; only the first document counts.
    let docs = crate::yaml::parse::parse_resource_stream(text, &source.display().to_string())
        .map_err(|e| bad(e.to_string()))?;
    match docs.into_iter().next().unwrap_or((Node::Null, Vec::new())) {
        (node @ Node::Map(_), empty) => Ok((node, empty)),
        (n, _) if n.is_null() => Ok((Node::Map(Default::default()), Vec::new())),
        (other, _) => Err(bad(format!(
            "values must be a mapping, found a {}",
            other.type_name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helm::args::ValuesSource;
    use crate::kustomization::helm::{HelmChart, HelmGlobals};
    use std::path::PathBuf;

    fn chart(file: &str, inline: &str, merge: ValuesMerge) -> ChartArgs {
        let inline = crate::yaml::parse::parse_document(inline, "inline").unwrap();
        ChartArgs {
            chart: HelmChart {
                name: "web".into(),
                values_inline: Some(inline),
                ..HelmChart::default()
            },
            globals: HelmGlobals::default(),
            chart_home: PathBuf::from("/c"),
            additional_values: Vec::new(),
            values_merge: merge,
            values: ValuesSource::Read(PathBuf::from("/v.yaml"), file.as_bytes().to_vec()),
        }
    }

    fn values(file: &str, inline: &str, merge: ValuesMerge) -> String {
        let bytes = values_file(&chart(file, inline, merge), Path::new("/c/web")).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    const FILE: &str = "a: 1\nm:\n  x: file\n  y: file\nlist: [1, 2]\ngone: here\n";
    const INLINE: &str = "m:\n  x: inline\n  z: inline\nlist: [3]\ngone: null\n";

    #[test]
    fn override_lets_inline_values_win() {
        // `y` is a string to go-yaml v3, which reads the file, and quoted when written as
        // go-yaml v2 writes it (sigs.k8s.io/yaml).
        assert_eq!(
            values(FILE, INLINE, ValuesMerge::Override),
            "a: 1\nlist:\n- 3\nm:\n  x: inline\n  \"y\": file\n  z: inline\n"
        );
    }

    #[test]
    fn merge_lets_the_files_values_win() {
        // kustomize passes the file's values as the patch: its `gone` replaces the inline null.
        assert_eq!(
            values(FILE, INLINE, ValuesMerge::Merge),
            "a: 1\ngone: here\nlist:\n- 1\n- 2\nm:\n  x: file\n  \"y\": file\n  z: inline\n"
        );
    }

    #[test]
    fn replace_takes_inline_values_only() {
        assert_eq!(
            values(FILE, INLINE, ValuesMerge::Replace),
            "gone: null\nlist:\n- 3\nm:\n  x: inline\n  z: inline\n"
        );
    }

    #[test]
    fn without_inline_values_the_file_is_copied_as_written() {
        let c = chart("# keep\na:   1\n", "{}", ValuesMerge::Override);
        let bytes = values_file(&c, Path::new("/c/web")).unwrap();
        assert_eq!(bytes, b"# keep\na:   1\n");
        let bad = chart("a: [1\n", "{}", ValuesMerge::Override);
        let e = values_file(&bad, Path::new("/c/web")).unwrap_err();
        assert!(e.to_string().contains("does not parse"), "{e}");
    }
}
