//! Merge keys (`<<`): kyaml's `DeAnchor` for resources, applied when the mapping ends, and
//! go-yaml v2's in-place merge for kustomization files.

use crate::yaml::{Map, Node};

use super::builder::{Builder, MapFrame};
use super::position::Stop;

pub(super) const MERGE_WANTS_MAP: &str = "map merge requires map or sequence of maps as the value";

impl<'i, 's> Builder<'i, 's> {
    /// Applies a resource mapping's merge key like kyaml's `DeAnchor`: the mapping's own
    /// keys win, then the merged mappings in the order listed.
    pub(super) fn finish_map(&self, m: MapFrame) -> Result<Map, Stop> {
        let mut map = m.map;
        if let Some((value, at, from_alias)) = m.merge {
            let sources = merge_sources(value, from_alias).map_err(|e| self.ctx.error(at, e))?;
            for source in sources {
                for (k, v) in source {
                    map.entry(k).or_insert(v);
                }
            }
        }
        map.shrink_if_sparse();
        Ok(map)
    }
}

/// The mappings a merge key's value names, in priority order, with kyaml's messages.
fn merge_sources(value: Node, from_alias: bool) -> Result<Vec<Map>, &'static str> {
    match value {
        Node::Map(m) => Ok(vec![m]),
        _ if from_alias => Err("invalid map merge: received alias for a non-map value"),
        Node::Seq(items) => items
            .into_iter()
            .map(|item| match item {
                Node::Map(m) => Ok(m),
                Node::Seq(_) => Err("invalid map merge: received a nested sequence"),
                _ => Err(MERGE_WANTS_MAP),
            })
            .collect(),
        _ => Err(MERGE_WANTS_MAP),
    }
}

/// go-yaml v2's merge: the merged keys overwrite the keys before `<<` and are overwritten
/// by the keys after it; in a list of mappings, earlier ones win.
pub(super) fn merge_in_place(map: &mut Map, value: Node) -> Result<(), &'static str> {
    let sources = match value {
        Node::Map(m) => vec![m],
        Node::Seq(items) => items
            .into_iter()
            .map(|item| match item {
                Node::Map(m) => Ok(m),
                _ => Err(MERGE_WANTS_MAP),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(MERGE_WANTS_MAP),
    };
    for source in sources.into_iter().rev() {
        map.extend(source);
    }
    Ok(())
}
