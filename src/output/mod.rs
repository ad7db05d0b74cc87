//! Writing a build: one YAML stream, or kustomize's one-file-per-resource
//! directory layout. Files are written atomically (temporary file + rename, a
//! set of files all or nothing), keep the mode and owner of the file they
//! replace, and never replace a device or a symlink (`target.rs`).

pub(crate) mod children;
mod cleanup;
mod set;
mod target;
pub mod temp;

use crate::error::{Error, Result};
use crate::openapi;
use crate::resource::resmap::ResMap;
use crate::yaml::emit;
pub use cleanup::Cleanup;
pub use set::{FileSet, write_file_atomic, write_file_atomic_with};
use std::collections::BTreeMap;
use std::path::Path;
pub(crate) use target::confined;

/// The multi-document stream `kustomize build` prints.
pub fn render(resmap: &ResMap) -> String {
    let docs: Vec<&crate::yaml::Node> = resmap.iter().map(|r| r.node()).collect();
    emit::emit_stream_refs(&docs)
}

/// [`render`] in pieces, in order, to be written one after another (see
/// [`emit::emit_stream_parts`]): the stream is their concatenation.
pub fn render_parts(resmap: &ResMap) -> Vec<String> {
    let docs: Vec<&crate::yaml::Node> = resmap.iter().map(|r| r.node()).collect();
    emit::emit_stream_parts(&docs)
}

/// tempfile's error without the name of the temporary file (`.tmpXXXX`, which the user
/// never asked for): tempfile wraps the OS error as `<error> at path "<temp file>"` and
/// hides the original, so the suffix is cut off the text; the message names the output
/// file instead.
pub(crate) fn without_temp_path(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.split_once(" at path \"") {
        Some((os, _)) => std::io::Error::new(e.kind(), os.to_string()),
        None => e,
    }
}

/// kustomize's file name for a resource in `-o DIR` mode:
/// `[namespace_]group_version_kind_name.yaml`, lower-cased.
fn file_name(res: &crate::resource::Resource) -> String {
    let gvk = res.gvk();
    let parts: Vec<&str> = [gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    format!("{}_{}.yaml", parts.join("_"), res.name()).to_lowercase()
}

/// Refuses a file name that is not one plain path component. kustomize joins the
/// namespace, apiVersion group, kind and name unchecked, so `namespace: ../x` or `/etc`
/// writes outside the output directory; kbuild names the resource instead.
fn single_component(name: &str, res: &crate::resource::Resource, dir: &Path) -> Result<()> {
    let mut parts = Path::new(name).components();
    let plain = matches!(parts.next(), Some(std::path::Component::Normal(_)))
        && parts.next().is_none()
        && !name.contains(['/', '\0']);
    if plain {
        return Ok(());
    }
    Err(Error::Output(format!(
        "{} {}: its -o file name '{name}' (from its namespace, apiVersion, kind and name) is not a single file name in {}; fix the field with the '/' (or write the stream to one file)",
        res.gvk().kind,
        res.name(),
        dir.display()
    )))
}

/// Writes one file per resource into `dir`, all or none ([`FileSet`]).
/// Namespaced resources get their namespace as a prefix when the build spans
/// more than one namespace.
pub fn write_dir(resmap: &ResMap, dir: &Path, cleanup: &Cleanup) -> Result<()> {
    let mut by_ns: BTreeMap<String, Vec<&crate::resource::Resource>> = BTreeMap::new();
    let mut cluster = Vec::new();
    for r in resmap.iter() {
        let gvk = r.gvk();
        if openapi::is_namespaced(&gvk.group, &gvk.version, &gvk.kind) {
            by_ns
                .entry(r.id().effective_namespace().to_string())
                .or_default()
                .push(r);
        } else {
            cluster.push(r);
        }
    }
    let multi = by_ns.len() > 1;
    let mut files = FileSet::new().with_cleanup(cleanup);
    let mut add = |name: String, r: &crate::resource::Resource| -> Result<()> {
        single_component(&name, r, dir)?;
        files.write(dir.join(name), doc(r).into_bytes());
        Ok(())
    };
    for (ns, list) in &by_ns {
        for r in list {
            let mut name = file_name(r);
            if multi {
                name = format!("{}_{name}", ns.to_lowercase());
            }
            add(name, r)?;
        }
    }
    for r in cluster {
        add(file_name(r), r)?;
    }
    files.commit()
}

fn doc(r: &crate::resource::Resource) -> String {
    let mut s = String::new();
    emit::emit_document(r.node(), &mut s);
    s
}
