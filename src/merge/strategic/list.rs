//! Merging lists (apimachinery's `mergeSlice`): sets of scalars, deletion lists, and lists
//! of mappings by merge key with their `$patch` elements.

use crate::error::Error;
use crate::yaml::Node;

use super::merge::merge_map;
use super::order::{find_by_key, normalize_element_order, partition};
use super::value::{
    bad_arg, dedup_scalars, deep_eq, go_str, map_and_key, no_merge_key, slice_element_type,
};
use super::{DIRECTIVE, MergeOptions, PatchSchema};

pub(super) fn merge_slice<S: PatchSchema>(
    original: Vec<Node>,
    patch: Vec<Node>,
    schema: Option<S>,
    merge_key: &str,
    options: MergeOptions,
    is_delete_list: bool,
) -> Result<Vec<Node>, Error> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = slice_element_type(&[&original, &patch])?;
    let (merged, server_order, patch) = if kind != 5 {
        if options.merge_parallel_list && is_delete_list {
            return Ok(original
                .into_iter()
                .filter(|v| !patch.iter().any(|d| deep_eq(d, v)))
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

/// Applies the `$patch` elements of a merging list: `delete` removes the elements with that
/// key, `replace` makes the rest of the patch the whole list.
fn merge_special_elements(
    mut original: Vec<Node>,
    patch: Vec<Node>,
    merge_key: &str,
) -> Result<(Vec<Node>, Vec<Node>), Error> {
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
                let mut kept = Vec::with_capacity(original.len());
                for o in original {
                    let m = o.as_map().ok_or_else(|| bad_arg("map", &o))?;
                    if !m.get(merge_key).is_some_and(|v| deep_eq(v, value)) {
                        kept.push(o);
                    }
                }
                original = kept;
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
    Ok((original, plain))
}

fn merge_plain_elements<S: PatchSchema>(
    mut original: Vec<Node>,
    patch: &[Node],
    merge_key: &str,
    schema: Option<S>,
    options: MergeOptions,
) -> Result<Vec<Node>, Error> {
    for item in patch {
        let (map, value) = map_and_key(item, merge_key)?;
        match find_by_key(&original, merge_key, value)? {
            Some(i) => {
                let current = original[i].as_map().cloned().unwrap_or_default();
                original[i] = Node::Map(merge_map(current, map.clone(), schema, options)?);
            }
            None => original.push(item.clone()),
        }
    }
    Ok(original)
}
