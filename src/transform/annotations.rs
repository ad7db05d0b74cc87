//! `commonAnnotations`.

use crate::error::Result;
use crate::kustomization::{FieldSpec, StringMap};
use crate::resource::resmap::ResMap;

/// Adds the annotations at every selected field spec; whether any field was added or
/// changed.
pub(crate) fn add(
    resmap: &mut ResMap,
    annotations: &StringMap,
    specs: &[FieldSpec],
) -> Result<bool> {
    super::labels::set_pairs(resmap, annotations, specs)
}
