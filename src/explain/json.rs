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

use super::report::{LocatedStep, Locator, Prepared};
use crate::provenance::{FieldPath, Link, Provenance, diff};
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use serde::Serialize;
use serde::ser::SerializeSeq;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::io::Write;

/// The schema's name and version.
pub const SCHEMA: &str = "kbuild.dev/provenance/v1";

/// The whole build: every resource, every leaf field with its chain, as the pretty-printed
/// document `build --provenance` writes, written to `out` as it is made. Serialized
/// resource by resource from typed records (each made, written and dropped in turn): the
/// document of a large build is many times the size of its YAML, and neither a tree of
/// JSON values for all of it nor its whole text is ever held (the text of the medium
/// bench tree's is 24 MB).
pub fn write_document(
    resmap: &ResMap,
    loc: &mut Locator<'_>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let names = super::select::Names::of(resmap);
    let doc = Document {
        schema: SCHEMA,
        resources: Resources {
            resmap,
            names: &names,
            loc: RefCell::new(loc),
        },
    };
    // serde_json writes a pretty document in many small pieces (each key, quote and
    // indent): a buffer of a known type takes them without a dynamic call each.
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut buffered, &doc).map_err(std::io::Error::from)?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

#[derive(Serialize)]
struct Document<'a, 'l, 'f> {
    schema: &'static str,
    resources: Resources<'a, 'l, 'f>,
}

/// The resources, each made as it is written.
struct Resources<'a, 'l, 'f> {
    resmap: &'a ResMap,
    names: &'a super::select::Names,
    loc: RefCell<&'l mut Locator<'f>>,
}

impl Serialize for Resources<'_, '_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.resmap.len()))?;
        let mut loc = self
            .loc
            .try_borrow_mut()
            .map_err(|e| serde::ser::Error::custom(e.to_string()))?;
        for r in self.resmap.iter() {
            seq.serialize_element(&record(self.names, r, None, &mut loc))?;
        }
        seq.end()
    }
}

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
    let mut links: foldhash::HashMap<std::borrow::Cow<'_, FieldPath>, Vec<(usize, Link<'_>)>> =
        foldhash::HashMap::default();
    for (path, i, link) in p.links() {
        links.entry(path).or_default().push((i, link));
    }
    // What locating needs of each step, found once for all the fields it changed.
    let mut prepared: Vec<Option<Prepared>> = p.steps.iter().map(|_| None).collect();
    let mut fields = Vec::new();
    diff::each_leaf(r.node(), &mut |path, value| {
        if only.is_some_and(|o| !path.starts_with(o)) {
            return;
        }
        let chain = links
            .get(path)
            .map(|l| {
                l.iter()
                    .map(|(i, link)| {
                        let slot = &mut prepared[*i];
                        let step = slot.get_or_insert_with(|| loc.prepare(link.step));
                        step_out(&loc.locate_prepared(step, link))
                    })
                    .collect()
            })
            .unwrap_or_default();
        fields.push(FieldOut {
            path: path.to_string(),
            value,
            chain,
        });
    });
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
