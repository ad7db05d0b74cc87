//! Merging lists (apimachinery's `mergeSlice`): sets of scalars, deletion lists, and lists
//! of mappings by merge key with their `$patch` elements. Elements are found through
//! indexes ([`crate::merge::index`]), so a merge is `O(n log n)` in the lengths.

use crate::error::Error;
use crate::merge::index::{Equality, LiveIndex, ValueHasher};
use crate::yaml::Node;

use super::merge::merge_map;
use super::order::{Positions, normalize_element_order, partition};
use super::value::{dedup_scalars, deep_eq, go_str, map_and_key, no_merge_key, slice_element_type};
use super::{DIRECTIVE, MergeOptions, PatchSchema};

pub(super) fn merge_slice<S: PatchSchema>(
    original: Vec<Node>,
    patch: Vec<Node>,
    schema: Option<S>,
    merge_key: &str,
    options: MergeOptions,
    is_delete_list: bool,
) -> Result<Vec<Node>, Error> {
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::merge_slice(
            original,
            patch,
            schema,
            merge_key,
            options,
            is_delete_list,
        );
    }
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = slice_element_type(&[&original, &patch])?;
    let (merged, server_order, patch) = if kind != 5 {
        if options.merge_parallel_list && is_delete_list {
            // Every element equal to one of the patch's goes.
            let deleted = Positions::new(&patch, "", kind);
            return Ok(original
                .into_iter()
                .filter(|v| deleted.of(v).is_none())
                .collect());
        }
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        (dedup_scalars(both), original, patch)
    } else {
        if merge_key.is_empty() {
            return Err(Error::invalid_patch(
                "cannot merge lists without merge key for map[string]interface {}",
            ));
        }
        let (original, patch) = merge_special_elements(original, patch, merge_key)?;
        let merged = merge_plain_elements(original.clone(), &patch, merge_key, schema, options)?;
        (merged, original, patch)
    };
    let (patch_items, server_only) =
        partition(merged, &patch, if kind == 5 { merge_key } else { "" })?;
    normalize_element_order(
        patch_items,
        server_only,
        &patch,
        &server_order,
        if kind == 5 { merge_key } else { "" },
        kind,
    )
}

/// The positions of a list's elements by the hash of their merge key value.
fn key_index(list: &[Node], merge_key: &str, hasher: &ValueHasher) -> LiveIndex {
    let mut index = LiveIndex::default();
    for (i, element) in list.iter().enumerate() {
        index.set(i, element.get(merge_key).and_then(|v| hasher.hash(v)));
    }
    index
}

/// Applies the `$patch` elements of a merging list: `delete` removes the elements with that
/// key, `replace` makes the rest of the patch the whole list. (Every element is a mapping
/// here: the caller checked the lists' element type.)
fn merge_special_elements(
    original: Vec<Node>,
    patch: Vec<Node>,
    merge_key: &str,
) -> Result<(Vec<Node>, Vec<Node>), Error> {
    let hasher = ValueHasher::new(Equality::Numeric);
    let mut index = key_index(&original, merge_key, &hasher);
    let mut kept = vec![true; original.len()];
    let mut plain = Vec::new();
    let mut replace = false;
    for item in patch {
        let Some(directive) = item.get(DIRECTIVE) else {
            plain.push(item);
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                let value = item
                    .get(merge_key)
                    .ok_or_else(|| no_merge_key(&item, merge_key))?;
                let doomed: Vec<usize> = index
                    .positions(hasher.hash(value))
                    .filter(|&i| {
                        original[i]
                            .get(merge_key)
                            .is_some_and(|v| deep_eq(v, value))
                    })
                    .collect();
                for i in doomed {
                    kept[i] = false;
                    index.remove(i);
                }
            }
            Some("replace") => replace = true,
            Some("merge") => {
                return Err(Error::invalid_patch(
                    "merging lists cannot yet be specified in the patch",
                ));
            }
            _ => {
                return Err(Error::invalid_patch(format!(
                    "Unknown patch type: {} in map: {}",
                    go_str(directive),
                    go_str(&item)
                )));
            }
        }
    }
    if replace {
        return Ok((plain, Vec::new()));
    }
    let original = original
        .into_iter()
        .zip(kept)
        .filter_map(|(o, keep)| keep.then_some(o))
        .collect();
    Ok((original, plain))
}

fn merge_plain_elements<S: PatchSchema>(
    mut original: Vec<Node>,
    patch: &[Node],
    merge_key: &str,
    schema: Option<S>,
    options: MergeOptions,
) -> Result<Vec<Node>, Error> {
    let hasher = ValueHasher::new(Equality::Numeric);
    let mut index = key_index(&original, merge_key, &hasher);
    for item in patch {
        let (map, value) = map_and_key(item, merge_key)?;
        // The first element with this key, as apimachinery's scan finds it.
        let found = index.first(hasher.hash(value), |i| {
            original[i]
                .get(merge_key)
                .is_some_and(|v| deep_eq(v, value))
        });
        let i = match found {
            Some(i) => {
                let current = original[i].as_map().cloned().unwrap_or_default();
                original[i] = Node::Map(merge_map(current, map.clone(), schema, options)?);
                i
            }
            None => {
                original.push(item.clone());
                original.len() - 1
            }
        };
        // A merge may change the key (a null in the patch removes it).
        index.set(i, original[i].get(merge_key).and_then(|v| hasher.hash(v)));
    }
    Ok(original)
}
