//! Writing a build: one YAML stream, or kustomize's one-file-per-resource
//! directory layout. Files are written atomically (temporary file + rename).

use crate::error::{Error, Result};
use crate::openapi;
use crate::resource::resmap::ResMap;
use crate::yaml::emit;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The multi-document stream `kustomize build` prints.
pub fn render(resmap: &ResMap) -> String {
    let docs: Vec<&crate::yaml::Node> = resmap.iter().map(|r| &r.node).collect();
    emit::emit_stream_refs(&docs)
}

/// Writes `bytes` to `path` through a temporary file in the same directory,
/// so readers never see a half-written file.
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| io(without_temp_path(e)))?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
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

/// Writes one file per resource into `dir`. Namespaced resources get their
/// namespace as a prefix when the build spans more than one namespace.
pub fn write_dir(resmap: &ResMap, dir: &Path) -> Result<()> {
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
    let mut files: Vec<(String, String)> = Vec::new();
    for (ns, list) in &by_ns {
        for r in list {
            let mut name = file_name(r);
            if multi {
                name = format!("{}_{name}", ns.to_lowercase());
            }
            files.push((name, doc(r)));
        }
    }
    for r in cluster {
        files.push((file_name(r), doc(r)));
    }
    for (name, text) in files {
        write_file_atomic(&dir.join(name), text.as_bytes())?;
    }
    Ok(())
}

fn doc(r: &crate::resource::Resource) -> String {
    let mut s = String::new();
    emit::emit_document(&r.node, &mut s);
    s
}
