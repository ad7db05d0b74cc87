//! Name hashes: generated ConfigMaps and Secrets get a suffix hashed from
//! their content (kustomize's HashTransformer), once at the end of a build and
//! wherever a `transformers:` entry asks for a HashTransformer.

use crate::error::Result;
use crate::resource::resmap::ResMap;

/// Appends the content hash to the names of resources that need one. At the
/// end of the build the need is then met; a HashTransformer config leaves it
/// set (kustomize's does), so the final step appends a second hash.
pub(crate) fn apply(resmap: &mut ResMap, final_step: bool) -> Result<()> {
    for res in resmap.iter_mut().filter(|r| r.needs_hash) {
        let hash = crate::generate::hash::name_hash(&res.node)?;
        res.store_prev_id();
        let name = format!("{}-{hash}", res.name());
        res.set_name(&name);
        if final_step {
            res.needs_hash = false;
        }
    }
    Ok(())
}
