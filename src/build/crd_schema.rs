//! `--crd-merge-keys` and `--merge-key`: a build whose custom resources' lists merge by the
//! keys their CRDs declare (or the flags give), with output byte-identical to kustomize's
//! when the top kustomization names the document `kbuild openapi from-crds` writes for it in
//! `openapi: path:`.
//!
//! kustomize reads the top kustomization's `openapi:` before any resource, and that schema
//! applies to every patch of the build, its bases' included (measured with `kubectl
//! kustomize` v5.5.0 and v5.8.1). So the build runs twice: first as kustomize would, to find
//! the CRDs in its output (those a helm chart renders included); then with the document
//! made from them as the schema from the start, exactly as if the file were named there.
//! The second build costs as much as the first; the flags are opt-in.

use std::path::Path;
use std::sync::Arc;

use super::{BuildOptions, BuildOutput, SchemaRef, build_with_cache, cache::FileCache};
use crate::error::{Error, Result};
use crate::load::Files;
use crate::openapi::Schemas;
use crate::openapi::crd::{self, CrdSet};

/// Builds `dir` with the merge keys `options.merge_keys` asks for.
pub(super) fn build(files: &Files, dir: &Path, options: &BuildOptions) -> Result<BuildOutput> {
    let plain = BuildOptions {
        merge_keys: Default::default(),
        ..options.clone()
    };
    let (first, top) = build_with_cache(files, dir, &plain, &FileCache::default(), None)?;
    if top.openapi.is_some() {
        return Err(Error::invalid_config(format!(
            "{}: the kustomization names a schema already (openapi:), and --crd-merge-keys or \
             --merge-key would replace it; write kbuild's with `kbuild openapi from-crds`, \
             merge the two, and name the result in openapi: instead of using the flags",
            dir.display()
        )));
    }
    let source = format!("the build of {}", dir.display());
    let mut crds = CrdSet::default();
    for r in first.resmap.iter() {
        crds.add(r.node(), &source)?;
    }
    // `--crds`: CRDs the build does not hold (installed in the cluster by other means).
    for (crd, file) in crate::openapi::crd::read_crd_files(&options.merge_keys.crd_files)? {
        crds.add(&crd, &file)?;
    }
    let keys = &options.merge_keys;
    let doc = crd::document(&crds, &keys.declared, keys.from_crds)?;
    let schemas = Schemas::from_openapi_text(&doc.text, "--crd-merge-keys")?;
    let preset = SchemaRef::Custom(Arc::new(schemas));
    let (mut out, _) = build_with_cache(files, dir, options, &FileCache::default(), Some(preset))?;
    for key in doc.unmatched {
        out.warnings.push(format!(
            "--merge-key {key:?}: no CustomResourceDefinition and no resource of that group \
             and kind in the build, so it changes nothing"
        ));
    }
    Ok(out)
}
