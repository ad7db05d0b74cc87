//! `commonAnnotations`.

use crate::error::Result;
use crate::kustomization::{FieldSpec, StringMap};
use crate::resource::resmap::ResMap;

/// Adds the annotations at every selected field spec.
pub fn add(resmap: &mut ResMap, annotations: &StringMap, specs: &[FieldSpec]) -> Result<()> {
    super::labels::set_pairs(resmap, annotations, specs)
}
