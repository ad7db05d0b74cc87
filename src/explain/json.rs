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

use super::report::{LocatedStep, Locator};
use crate::provenance::{FieldPath, Link, Provenance, diff};
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use serde_json::{Map, Value, json};

/// The schema's name and version.
pub const SCHEMA: &str = "kbuild.dev/provenance/v1";

/// The whole build: every resource, every leaf field with its chain, as the pretty-printed
/// document `build --provenance` writes. Written resource by resource (each one's value is
/// made, printed indented as it stands in the document, and dropped): the document of a
/// large build is many times the size of its YAML, and a tree of JSON values for all of it
/// at once would be several times that again.
pub fn document(resmap: &ResMap, loc: &mut Locator<'_>) -> String {
    use std::fmt::Write as _;
    let names = super::select::Names::of(resmap);
    let mut out = format!(
        "{{\n  \"schema\": {},\n  \"resources\": [",
        Value::from(SCHEMA)
    );
    for (i, r) in resmap.iter().enumerate() {
        let value = value_of(&names, r, None, loc);
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        for (j, line) in format!("{value:#}").lines().enumerate() {
            if j > 0 {
                out.push('\n');
            }
            let _ = write!(out, "    {line}");
        }
    }
    out.push_str(if resmap.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    out
}

/// One resource: its leaf fields (only those at or below `only`, when given).
pub fn resource(
    resmap: &ResMap,
    r: &Resource,
    only: Option<&FieldPath>,
    loc: &mut Locator<'_>,
) -> Value {
    value_of(&super::select::Names::of(resmap), r, only, loc)
}

fn value_of(
    names: &super::select::Names,
    r: &Resource,
    only: Option<&FieldPath>,
    loc: &mut Locator<'_>,
) -> Value {
    let id = r.id();
    let empty = Provenance::default();
    let p = r.provenance.as_deref().unwrap_or(&empty);
    // Each field's links, found in one pass over the record (asking the record per field
    // is quadratic in the size of the resource).
    let mut links: foldhash::HashMap<&FieldPath, Vec<Link<'_>>> = foldhash::HashMap::default();
    for step in &p.steps {
        for change in &step.changes {
            links
                .entry(&change.path)
                .or_default()
                .push(Link { step, change });
        }
    }
    let fields: Vec<Value> = diff::leaves(&r.node)
        .into_iter()
        .filter(|(path, _)| only.is_none_or(|o| path.starts_with(o)))
        .map(|(path, value)| {
            let chain: Vec<Value> = links
                .get(&path)
                .map(|l| l.iter().map(|link| step(&loc.locate(link))).collect())
                .unwrap_or_default();
            json!({ "path": path.to_string(), "value": value, "chain": chain })
        })
        .collect();
    json!({
        "resource": names.spelling(r),
        "id": {
            "group": id.gvk.group.as_str(),
            "version": id.gvk.version.as_str(),
            "kind": id.gvk.kind.as_str(),
            "namespace": id.namespace.as_str(),
            "name": id.name.as_str(),
        },
        "origin": p.origin().map(origin),
        "fields": fields,
    })
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
    let mut m = Map::new();
    m.insert("step".into(), s.kind.as_str().into());
    if let Some(actor) = &s.actor {
        m.insert("entry".into(), actor.clone().into());
    }
    if let Some(transformer) = &s.transformer {
        m.insert("transformer".into(), transformer.clone().into());
    }
    if let Some(at) = &s.entry_at {
        m.insert("entryFile".into(), at.file.display().to_string().into());
        if at.line > 0 {
            m.insert("entryLine".into(), at.line.into());
            m.insert("entryColumn".into(), at.column.into());
        }
    }
    if let Some(at) = &s.value_at {
        m.insert("file".into(), at.file.display().to_string().into());
        if at.line > 0 {
            m.insert("line".into(), at.line.into());
            m.insert("column".into(), at.column.into());
        }
    }
    if let Some(before) = &s.before {
        m.insert("before".into(), before.clone().into());
    }
    if let Some(after) = &s.after {
        m.insert("after".into(), after.clone().into());
    }
    Value::Object(m)
}
