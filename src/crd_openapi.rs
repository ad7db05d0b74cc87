//! `kbuild openapi from-crds`: the CustomResourceDefinitions under some paths, written as
//! the OpenAPI document kustomize reads from `openapi: path:` (see [`crate::openapi::crd`]
//! for what it holds and why).
//!
//! A path is a YAML or JSON file (every CRD in it, `List`s included), a directory holding a
//! kustomization (built as `kbuild build` builds it: CRDs its helm charts render count, with
//! the build flags given), or any other directory (its `.yaml`, `.yml` and `.json` files,
//! recursively, hidden directories skipped). In a directory, a file that is not YAML (a helm
//! template, say) is passed over unless it mentions `CustomResourceDefinition`, whose
//! error is then reported: a CRD is never dropped silently.

use std::path::{Path, PathBuf};

use crate::build::{BuildOptions, build_with_warnings};
use crate::error::{Error, Result};
use crate::openapi::crd::{self, CrdSet, Document, MergeKey};

/// What to read and how.
#[derive(Clone, Debug, Default)]
pub struct FromCrds {
    /// Files, directories and kustomizations (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// `--merge-key`s, for lists no CRD describes.
    pub merge_keys: Vec<MergeKey>,
    /// How kustomizations among the paths are built.
    pub build: BuildOptions,
}

/// Reads the paths and writes the document. The warnings of the kustomizations built are
/// left out: they are about their output, which is not this command's.
pub fn generate(job: &FromCrds) -> Result<Document> {
    let mut crds = CrdSet::default();
    let here = [PathBuf::from(".")];
    let paths = if job.paths.is_empty() {
        &here[..]
    } else {
        &job.paths
    };
    let options = BuildOptions {
        // A build that finds CRDs is the build kustomize would do.
        merge_keys: Default::default(),
        ..job.build.clone()
    };
    for path in paths {
        read_path(path, &options, &mut crds)?;
    }
    let document = crd::document(&crds, &job.merge_keys, true)?;
    if let Some(key) = document.unmatched.first() {
        return Err(Error::invalid_config(format!(
            "--merge-key {key:?}: no CustomResourceDefinition and no resource of that group and \
             kind under {}, so there is no version to write it for; add the CRD (or a \
             resource of the kind) to the paths",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(document)
}

fn read_path(path: &Path, options: &BuildOptions, crds: &mut CrdSet) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return read_file(path, true, crds);
    }
    if crate::load::find_kustomization_file(path).is_ok() {
        let built = build_with_warnings(path, options)
            .map_err(|e| e.context(format!("building '{}'", path.display())))?;
        let source = format!("the build of {}", path.display());
        for r in built.resmap.iter() {
            crds.add(r.node(), &source)?;
        }
        return Ok(());
    }
    let walker = walkdir::WalkDir::new(path).sort_by_file_name().into_iter();
    let entries = walker
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in entries {
        let entry = entry.map_err(|e| Error::msg(format!("reading '{}': {e}", path.display())))?;
        let name = entry.file_name().to_string_lossy();
        let wanted = [".yaml", ".yml", ".json"].iter().any(|x| name.ends_with(x));
        if entry.file_type().is_file() && wanted {
            read_file(entry.path(), false, crds)?;
        }
    }
    Ok(())
}

/// Reads one file's documents into `crds`; `named`: the user named the file, so any
/// problem is an error.
fn read_file(path: &Path, named: bool, crds: &mut CrdSet) -> Result<()> {
    let Some((docs, source)) = crate::openapi::crd::files::read_yaml_docs(path, named)? else {
        return Ok(());
    };
    for doc in &docs {
        if doc.as_map().is_some() {
            crds.add(doc, &source)?;
        }
    }
    Ok(())
}
