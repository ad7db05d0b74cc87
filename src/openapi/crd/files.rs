//! CRD files the user names on the command line (`--crds PATH`): their CustomResourceDefinitions
//! count as if they were in the build, for the warning about a patch replacing a list a
//! CRD declares keyed (transform/list_replace.rs) and for `--crd-merge-keys`. For CRDs
//! that are installed in the cluster but not part of the kustomization.
//!
//! A path is a YAML or JSON file (every CRD in it, `List`s flattened as resources are) or a
//! directory (its `.yaml`, `.yml` and `.json` files, recursively, hidden directories
//! skipped). A file the user named must parse; in a directory, a file that does not is
//! passed over unless it mentions `CustomResourceDefinition`.

use std::path::Path;

use crate::error::{Error, Result};
use crate::yaml::Node;

/// The CustomResourceDefinition documents under `paths`, in path order, with their source.
pub fn read_crd_files(paths: &[impl AsRef<Path>]) -> Result<Vec<(Node, String)>> {
    let mut out = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let meta = std::fs::metadata(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if !meta.is_dir() {
            read_file(path, true, &mut out)?;
            continue;
        }
        let walker = walkdir::WalkDir::new(path).sort_by_file_name().into_iter();
        let entries = walker
            .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
        for entry in entries {
            let entry =
                entry.map_err(|e| Error::msg(format!("--crds '{}': {e}", path.display())))?;
            let name = entry.file_name().to_string_lossy();
            let wanted = [".yaml", ".yml", ".json"].iter().any(|x| name.ends_with(x));
            if entry.file_type().is_file() && wanted {
                read_file(entry.path(), false, &mut out)?;
            }
        }
    }
    Ok(out)
}

/// Whether `doc` is a CustomResourceDefinition.
pub fn is_crd(doc: &Node) -> bool {
    doc.get_str(&["kind"]) == Some("CustomResourceDefinition")
        && doc
            .get_str(&["apiVersion"])
            .is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
}

/// The YAML documents of the file `path` and its name for messages. A file the user named
/// (`named`) must be UTF-8 and parse; one found in a directory that does not is passed over
/// (`None`) unless it mentions `CustomResourceDefinition`. Shared with `openapi from-crds`
/// (crd_openapi.rs), which reads its paths the same way.
pub(crate) fn read_yaml_docs(path: &Path, named: bool) -> Result<Option<(Vec<Node>, String)>> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let source = path.display().to_string();
    let text = match (crate::yaml::utf8(bytes, path), named) {
        (Ok(text), _) => text,
        (Err(e), true) => return Err(e),
        (Err(_), false) => return Ok(None),
    };
    match crate::yaml::parse::parse_stream(&text, &source) {
        Ok(docs) => Ok(Some((docs, source))),
        Err(e) if named || text.contains("CustomResourceDefinition") => Err(e),
        Err(_) => Ok(None),
    }
}

fn read_file(path: &Path, named: bool, out: &mut Vec<(Node, String)>) -> Result<()> {
    let Some((docs, source)) = read_yaml_docs(path, named)? else {
        return Ok(());
    };
    for doc in docs {
        let items = match doc.get("items").and_then(Node::as_seq) {
            Some(items) if doc.get_str(&["kind"]).is_some_and(|k| k.ends_with("List")) => {
                items.clone()
            }
            _ => vec![doc],
        };
        out.extend(
            items
                .into_iter()
                .filter(is_crd)
                .map(|d| (d, source.clone())),
        );
    }
    Ok(())
}
