//! The provenance of a build as JSON: what `kbuild build --provenance FILE` writes and
//! `kbuild explain --output json` prints. The schema is versioned (`schema` below) and
//! documented in docs/src/reference/provenance.md; fields are only ever added within a
//! version.
//!
//! ```json
//! {"schema": "kbuild.dev/provenance/v1",
//!  "resources": [{"resource": "Deployment/prod-web",
//!    "id": {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "", "name": "prod-web"},
//!    "fields": [{"path": "spec.replicas", "value": "3",
//!      "chain": [{"step": "source", "file": "base/deploy.yaml", "line": 6, "column": 13, "after": "1"},
//!                {"step": "merge", "entry": "patches[0]", "entryFile": "prod/kustomization.yaml",
//!                 "entryLine": 4, "entryColumn": 3, "file": "prod/replicas.yaml", "line": 6,
//!                 "column": 13, "before": "1", "after": "3"}]}]}]}
//! ```

use super::report::{Files, LocatedStep, Locator, Prepared, Read};
use crate::provenance::{Change, FieldPath, Link, Provenance, diff};
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::io::Write;

/// The schema's name and version.
pub const SCHEMA: &str = "kbuild.dev/provenance/v1";

/// The whole build: every resource, every leaf field with its chain, as the pretty-printed
/// document `build --provenance` writes, written to `out` as it is made, with the files
/// the positions are found in read by `read`. Serialized resource by resource from typed
/// records (each made, written and dropped in turn): the document of a large build is
/// many times the size of its YAML, and neither a tree of JSON values for all of it nor
/// its whole text is ever held (the text of the medium bench tree's is 24 MB).
///
/// The resources are made on all cores, a batch at a time: each thread has a locator of
/// its own (one that finds a position caches the file it read) and takes a run of
/// neighbouring resources of the batch (those mostly come from the same files), each
/// resource serialized into the thread's buffer; the buffers are written in order. The
/// bytes are those of serializing the whole document at once, as serde_json's pretty
/// printer writes it: the framing is written here, and each resource, serialized on its
/// own, is indented to its depth (JSON strings hold no raw newline).
pub fn write_document(resmap: &ResMap, read: &Read, out: &mut dyn Write) -> std::io::Result<()> {
    let names = super::select::Names::of(resmap);
    // serde_json writes a pretty document in many small pieces (each key, quote and
    // indent): a buffer of a known type takes them without a dynamic call each.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    out.write_all(b"{\n  \"schema\": ")?;
    serde_json::to_writer(&mut out, SCHEMA).map_err(std::io::Error::from)?;
    out.write_all(b",\n  \"resources\": [")?;
    let resources: Vec<&Resource> = resmap.iter().collect();
    let files = Files::read(&files_of(&resources), read);
    let threads = rayon::current_num_threads().max(1);
    // Each thread's locator, buffer and the buffer of the resource at hand, kept from
    // batch to batch.
    let mut workers: Vec<(Locator<'_>, Vec<u8>, Vec<u8>)> = (0..threads)
        .map(|_| (Locator::sharing(read, &files), Vec::new(), Vec::new()))
        .collect();
    for (b, batch) in resources.chunks(BATCH * threads).enumerate() {
        let run = batch.len().div_ceil(threads);
        workers
            .par_iter_mut()
            .zip(batch.par_chunks(run))
            .enumerate()
            .try_for_each(|(t, ((loc, buf, one), run))| {
                buf.clear();
                for (i, r) in run.iter().enumerate() {
                    // Every element but the document's first follows a comma.
                    if b > 0 || t > 0 || i > 0 {
                        buf.push(b',');
                    }
                    one.clear();
                    serde_json::to_writer_pretty(&mut *one, &record(&names, r, None, loc))
                        .map_err(std::io::Error::from)?;
                    // Each line on one of its own, two levels deeper.
                    for line in one.split(|&c| c == b'\n') {
                        buf.extend_from_slice(b"\n    ");
                        buf.extend_from_slice(line);
                    }
                }
                Ok::<(), std::io::Error>(())
            })?;
        for (_, buf, _) in &workers {
            out.write_all(buf)?;
        }
    }
    if !resources.is_empty() {
        out.write_all(b"\n  ")?;
    }
    out.write_all(b"]\n}\n")?;
    out.flush()
}

/// The files the steps of `resources` wrote and were configured in: where their
/// positions are, each once.
fn files_of<'r>(resources: &[&'r Resource]) -> Vec<&'r std::path::Path> {
    let mut seen = foldhash::HashSet::default();
    let steps = resources
        .iter()
        .filter_map(|r| r.provenance.as_deref())
        .flat_map(|p| &p.steps);
    let mut files = Vec::new();
    for step in steps {
        let entry = step.entry.as_ref().map(|e| e.file.as_path());
        let wrote = step.wrote.as_ref().map(|w| w.file.as_path());
        for file in entry.into_iter().chain(wrote) {
            if seen.insert(file) {
                files.push(file);
            }
        }
    }
    files
}

/// Resources each thread makes at a time: the buffers of a batch are held until written
/// (the text of a resource's provenance is about ten times its YAML).
const BATCH: usize = 16;

/// One resource: its leaf fields (only those at or below `only`, when given).
pub fn resource(
    resmap: &ResMap,
    r: &Resource,
    only: Option<&FieldPath>,
    loc: &mut Locator<'_>,
) -> Value {
    let names = super::select::Names::of(resmap);
    serde_json::to_value(record(&names, r, only, loc)).unwrap_or(Value::Null)
}

#[derive(Serialize)]
struct ResourceOut {
    resource: String,
    id: IdOut,
    origin: Option<Value>,
    fields: Vec<FieldOut>,
}

#[derive(Serialize)]
struct IdOut {
    group: String,
    version: String,
    kind: String,
    namespace: String,
    name: String,
}

#[derive(Serialize)]
struct FieldOut {
    path: String,
    value: String,
    chain: Vec<StepOut>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StepOut {
    step: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transformer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<String>,
}

fn record(
    names: &super::select::Names,
    r: &Resource,
    only: Option<&FieldPath>,
    loc: &mut Locator<'_>,
) -> ResourceOut {
    let id = r.id();
    let empty = Provenance::default();
    let p = r.provenance.as_deref().unwrap_or(&empty);
    // Each field's links, found in one pass over the record (asking the record per field
    // is quadratic in the size of the resource).
    let mut links: foldhash::HashMap<Cow<'_, FieldPath>, Vec<(usize, Link<'_>)>> =
        foldhash::HashMap::default();
    // The links of the step the resource came from (every leaf it had then) are not
    // made one per leaf when no step renamed a list element (nearly always): the leaf at
    // the same path in what it made is read beside each leaf of the resource.
    let made = p.steps.first().and_then(|s| {
        let node = s.created.as_ref()?;
        p.steps
            .iter()
            .all(|s| s.renames.is_empty())
            .then_some((s, node))
    });
    match made {
        Some(_) => {
            for (i, step) in p.steps.iter().enumerate().skip(1) {
                for change in &step.changes {
                    let link = Link {
                        step,
                        change: Cow::Borrowed(change),
                    };
                    links
                        .entry(Cow::Borrowed(&change.path))
                        .or_default()
                        .push((i, link));
                }
            }
        }
        None => {
            for (path, i, link) in p.links() {
                links.entry(path).or_default().push((i, link));
            }
        }
    }
    // What locating needs of each step, found once for all the fields it changed.
    let mut prepared: Vec<Option<Prepared>> = p.steps.iter().map(|_| None).collect();
    let mut fields = Vec::new();
    let mut field = |path: &FieldPath, value: String, made_leaf: Option<&crate::yaml::Node>| {
        if only.is_some_and(|o| !path.starts_with(o)) {
            return;
        }
        let later = links.get(path).map_or(&[][..], Vec::as_slice);
        let source = made.zip(made_leaf).map(|((step, _), leaf)| {
            let change = Cow::Owned(Change {
                path: path.clone(),
                before: None,
                after: Some(diff::short_text(leaf)),
            });
            (0, Link { step, change })
        });
        let chain = source
            .iter()
            .chain(later)
            .map(|(i, link)| {
                let slot = &mut prepared[*i];
                let step = slot.get_or_insert_with(|| loc.prepare(link.step));
                step_out(&loc.locate_prepared(step, link))
            })
            .collect();
        fields.push(FieldOut {
            path: path.to_string(),
            value,
            chain,
        });
    };
    match made {
        Some((_, node)) => diff::each_leaf_beside(r.node(), node, &mut field),
        None => diff::each_leaf(r.node(), &mut |path, value| field(path, value, None)),
    }
    ResourceOut {
        resource: names.spelling(r),
        id: IdOut {
            group: id.gvk.group.to_string(),
            version: id.gvk.version.to_string(),
            kind: id.gvk.kind.to_string(),
            namespace: id.namespace.to_string(),
            name: id.name.to_string(),
        },
        origin: p.origin().map(origin),
        fields,
    }
}

fn step_out(s: &LocatedStep) -> StepOut {
    let known = |at: &Option<super::report::Position>| {
        at.as_ref()
            .filter(|a| a.line > 0)
            .map(|a| (a.line, a.column))
    };
    StepOut {
        step: s.kind.as_str(),
        entry: s.actor.clone(),
        transformer: s.transformer.clone(),
        entry_file: s.entry_at.as_ref().map(|a| shown(&a.file)),
        entry_line: known(&s.entry_at).map(|p| p.0),
        entry_column: known(&s.entry_at).map(|p| p.1),
        file: s.value_at.as_ref().map(|a| shown(&a.file)),
        line: known(&s.value_at).map(|p| p.0),
        column: known(&s.value_at).map(|p| p.1),
        before: s.before.clone(),
        after: s.after.clone(),
    }
}

/// A path as the document writes it (as `Path::display`, without its lossy conversion
/// for the usual UTF-8 path: this runs for every step of every field).
fn shown(path: &std::path::Path) -> String {
    path.to_str()
        .map_or_else(|| path.display().to_string(), str::to_owned)
}

/// A resource's origin (see [`Provenance::origin`]): its kind and file.
fn origin(step: &crate::provenance::Step) -> Value {
    let file = step
        .entry
        .as_ref()
        .map(|e| &e.file)
        .or(step.wrote.as_ref().map(|w| &w.file));
    let mut m = Map::new();
    m.insert("step".into(), step.kind.as_str().into());
    if let Some(entry) = &step.entry {
        m.insert("entry".into(), entry.place.to_string().into());
    }
    if let Some(file) = file {
        m.insert("file".into(), file.display().to_string().into());
    }
    Value::Object(m)
}

/// One step of a chain.
pub fn step(s: &LocatedStep) -> Value {
    serde_json::to_value(step_out(s)).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_without_resources_is_an_empty_list() {
        let mut out = Vec::new();
        let read = |_: &std::path::Path| None;
        write_document(&ResMap::default(), &read, &mut out).expect("writes");
        let whole = serde_json::json!({"schema": SCHEMA, "resources": []});
        let want = format!(
            "{}\n",
            serde_json::to_string_pretty(&whole).expect("prints")
        );
        assert_eq!(String::from_utf8_lossy(&out), want);
    }
}
