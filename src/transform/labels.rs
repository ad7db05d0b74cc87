//! `commonLabels` and `labels`: set label pairs at the field specs' paths.

use crate::config::fieldspec::{CreateKind, SplitSpecs};
use crate::error::Result;
use crate::kustomization::{FieldSpec, StringMap};
use crate::resource::resmap::ResMap;
use crate::yaml::Node;

/// Writes every pair into the mapping at each selected field spec (kustomize's
/// LabelTransformer and AnnotationsTransformer do the same walk).
pub fn set_pairs(resmap: &mut ResMap, pairs: &StringMap, specs: &[FieldSpec]) -> Result<()> {
    if pairs.is_empty() {
        return Ok(());
    }
    let specs = SplitSpecs::new(specs);
    for res in resmap.iter_mut() {
        let gvk = res.gvk();
        specs
            .apply(&mut res.node, &gvk, CreateKind::Map, &mut |target| {
                set_in_map(target, pairs)
            })
            .map_err(|e| e.context(format!("in {}", res.id())))?;
    }
    Ok(())
}

fn set_in_map(target: &mut Node, pairs: &StringMap) -> Result<()> {
    if target.is_null() {
        *target = Node::map();
    }
    let Node::Map(m) = target else {
        return Err(crate::Error::invalid_resource(format!(
            "expected a mapping to hold labels or annotations, found a {}",
            target.type_name()
        )));
    };
    for (k, v) in pairs {
        m.insert(k.clone(), Node::text(v.clone()));
    }
    Ok(())
}
