//! Generator `behavior`: a generated resource is new (`create`), or folds into
//! the resource of the same id from a base (`merge`, `replace`).

use super::{Behavior, merge};
use crate::error::{Error, Result};
use crate::resource::Resource;
use crate::resource::resmap::{AnyIdIndex, ResMap};

/// How many generated resources make an index of the map worth building.
pub(crate) const INDEX_FROM: usize = 16;

/// Adds a generated resource, or folds it into the existing resource with
/// the same id (current or previous) when its behavior is merge or replace.
/// `index`, when given, is `resmap.any_id_index()`, kept up to date here: one per
/// run of many generators keeps them linear (without, each scans the map, which is
/// cheaper for a few: building the index hashes every resource's ids).
pub(crate) fn absorb(
    resmap: &mut ResMap,
    index: Option<&mut AnyIdIndex>,
    res: Resource,
    behavior: Behavior,
) -> Result<()> {
    use Behavior as B;
    let id = res.id();
    let scanned;
    let hits = match index.as_deref() {
        Some(index) => index.find(&id),
        None => {
            scanned = resmap.find_by_any_id(&id);
            &scanned[..]
        }
    };
    match hits {
        [] => match behavior {
            B::Merge | B::Replace => Err(Error::no_match(
                0,
                format!(
                    "behavior {} needs an existing {} to act on, but there is none (the generator must have the same name and namespace as a resource from a base)",
                    if behavior == B::Merge {
                        "merge"
                    } else {
                        "replace"
                    },
                    id
                ),
            )),
            _ => {
                // No resource has this id (current or previous): nothing to conflict with.
                if let Some(index) = index {
                    index.add(resmap.resources.len(), &res);
                }
                resmap.resources.push(res);
                Ok(())
            }
        },
        [i] if matches!(behavior, B::Merge | B::Replace)
            && resmap.resources[*i].id().gvk != id.gvk =>
        {
            // kustomize finds the resource by any id, then puts the merged one (the
            // generator's kind, the old name and namespace) in the place of the resource
            // whose *current* id that is: after a patch changed the old one's kind
            // (`allowKindChange`) there is none, or another one.
            let old = resmap.resources[*i].id();
            let want = crate::resource::id::ResId {
                gvk: id.gvk.clone(),
                namespace: old.namespace.clone(),
                name: old.name.clone(),
            };
            let at = resmap.resources.iter().position(|r| r.id().equals(&want));
            Err(Error::no_match(
                0,
                match at {
                    None => format!(
                        "cannot find resource with id {} to replace",
                        crate::resource::resmap::id_text(&want)
                    ),
                    Some(_) => "unexpected target index in replacement".to_string(),
                },
            ))
        }
        [i] => {
            let old = &mut resmap.resources[*i];
            merge::merge_into(old.node_mut(), res.node(), behavior)?;
            // What the generator wrote, also where the old resource had the same value
            // (see provenance/writes.rs).
            old.note_written(|node| crate::provenance::writes::merged(node, res.node()));
            // kustomize keeps the generated resource, with the old one's labels and
            // annotations copied into new mappings: no field shares a value any more.
            old.shared.clear();
            old.needs_hash = merge::merged_hash_suffix(old.needs_hash, res.needs_hash);
            if behavior == B::Replace && res.origin.is_some() {
                old.origin = res.origin;
            }
            Ok(())
        }
        _ => Err(Error::no_match(
            hits.len(),
            format!(
                "several resources could take the generated {}: {}",
                id,
                hits.iter()
                    .map(|i| resmap.resources[*i].id().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}
