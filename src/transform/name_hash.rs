//! Name hashes: generated ConfigMaps and Secrets get a suffix hashed from
//! their content (kustomize's HashTransformer), once at the end of a build and
//! wherever a `transformers:` entry asks for a HashTransformer.

use crate::error::Result;
use crate::resource::resmap::ResMap;

/// Appends the content hash to the names of resources that need one. At the
/// end of the build the need is then met; a HashTransformer config leaves it
/// set (kustomize's does), so the final step appends a second hash.
pub(crate) fn apply(resmap: &mut ResMap, final_step: bool) -> Result<()> {
    use rayon::prelude::*;
    /// Hashes worth handing to the thread pool: each one encodes its resource as JSON and
    /// runs SHA-256 over it, and a build with this many generated resources is past the
    /// size where kbuild starts the pool anyway.
    const PARALLEL: usize = 32;
    let count = resmap.iter().filter(|r| r.needs_hash).count();
    let hash = |r: &crate::resource::Resource| {
        r.needs_hash
            .then(|| crate::generate::hash::name_hash(r.node()))
    };
    let hashes: Vec<Option<Result<String>>> = if count >= PARALLEL {
        resmap.resources.par_iter().map(hash).collect()
    } else {
        resmap.resources.iter().map(hash).collect()
    };
    for (res, hash) in resmap.iter_mut().zip(hashes) {
        let Some(hash) = hash else { continue };
        let hash = hash?;
        res.store_prev_id();
        let name = format!("{}-{hash}", res.name());
        res.set_name(&name);
        if final_step {
            res.needs_hash = false;
        }
    }
    Ok(())
}
