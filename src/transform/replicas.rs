//! `replicas`: set replica counts by resource name.

use crate::config::fieldspec::{CreateKind, apply_specs};
use crate::error::{Error, Result};
use crate::kustomization::{FieldSpec, Replica};
use crate::resource::resmap::ResMap;
use crate::yaml::Node;

/// Sets `count` on the resources named `name` (current or any previous
/// name) whose kind has a replicas field spec; none matching is an error. Whether any
/// count changed (for the warning about an entry that changes nothing).
pub(crate) fn apply(
    resmap: &mut ResMap,
    replicas: &[Replica],
    specs: &[FieldSpec],
) -> Result<bool> {
    let mut changed = false;
    if replicas.is_empty() {
        return Ok(changed);
    }
    // Setting a count changes no id: each resource's id is read once, not once per
    // replica, spec and resource.
    let ids: Vec<_> = resmap.iter().map(|r| r.id()).collect();
    for rep in replicas {
        let mut found = false;
        for fs in specs {
            for (res, id) in resmap.iter_mut().zip(&ids) {
                let hit = std::iter::once(id)
                    .chain(&res.prev_ids)
                    .any(|id| id.name == rep.name && fs.selects(&id.gvk));
                if !hit {
                    continue;
                }
                found = true;
                apply_specs(
                    res.node_mut(),
                    &id.gvk,
                    std::slice::from_ref(fs),
                    CreateKind::Scalar,
                    &mut |n| {
                        let new = Node::Int(rep.count);
                        changed |= *n != new;
                        *n = new;
                        Ok(())
                    },
                )?;
            }
        }
        if !found {
            let kinds: Vec<&str> = specs.iter().map(|f| f.kind.as_str()).collect();
            return Err(Error::no_match(
                0,
                format!(
                    "no resource named {:?} of a kind with a replica count ({})",
                    rep.name,
                    kinds.join(", ")
                ),
            ));
        }
    }
    Ok(changed)
}
