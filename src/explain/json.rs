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
use crate::provenance::{FieldPath, Provenance, diff};
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use serde_json::{Map, Value, json};

/// The schema's name and version.
pub const SCHEMA: &str = "kbuild.dev/provenance/v1";

/// The whole build: every resource, every leaf field with its chain.
pub fn build(resmap: &ResMap, loc: &mut Locator<'_>) -> Value {
    let resources: Vec<Value> = resmap
        .iter()
        .map(|r| resource(resmap, r, None, loc))
        .collect();
    json!({ "schema": SCHEMA, "resources": resources })
}

/// One resource: its leaf fields (only those at or below `only`, when given).
pub fn resource(
    resmap: &ResMap,
    r: &Resource,
    only: Option<&FieldPath>,
    loc: &mut Locator<'_>,
) -> Value {
    let id = r.id();
    let empty = Provenance::default();
    let p = r.provenance.as_deref().unwrap_or(&empty);
    let fields: Vec<Value> = diff::leaves(&r.node)
        .into_iter()
        .filter(|(path, _)| only.is_none_or(|o| path.starts_with(o)))
        .map(|(path, value)| {
            let chain: Vec<Value> = p
                .chain(&path)
                .into_iter()
                .filter(|link| link.change.path == path)
                .map(|link| step(&loc.locate(&link)))
                .collect();
            json!({ "path": path.to_string(), "value": value, "chain": chain })
        })
        .collect();
    json!({
        "resource": super::select::spelling(resmap, r),
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
