//! The directives carried by keys of a patch mapping: `$retainKeys`,
//! `$setElementOrder/<list>` (with the live order Go's in-place merge leaves) and the
//! `<prefix>/<list>` key format shared with `$deleteFromPrimitiveList`.

use foldhash::{HashSet, HashSetExt};

use crate::error::Error;
use crate::merge::index::{Equality, LiveIndex, ValueHasher};
use crate::yaml::{Map, Node};

use super::diff::merge_key_value_equal;
use super::list::merge_slice;
use super::merge::remove_directives;
use super::order::{normalize_element_order, partition};
use super::value::{bad_arg, deep_eq, go_str, slice_element_type};
use super::{
    DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, MergeOptions, Meta, PatchSchema, RETAIN_KEYS,
    SET_ELEMENT_ORDER, lookup,
};

/// The live list as apimachinery sees it after merging a patch into it. Go merges in place:
/// deleting elements shifts the live list's backing array, and new elements appended
/// after deletions land in its spare capacity, so the "live order" used to place live-only
/// elements is the live list overwritten that way. JSON decoding builds lists by appending,
/// so their capacity is the next power of two.
///
/// Computed without moving anything: deleting an element from the `len` in use shifts the
/// rest left, and the slot `len - 1` keeps what it held, the last element still in use.
/// So the result is the surviving elements in order, then for each slot the deletions
/// freed either a new element (written there, while the capacity lasts) or the element it
/// kept when it was freed.
fn aliased_live_order(live: &[Node], patch: &[Node], merge_key: &str) -> Vec<Node> {
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::aliased_live_order(live, patch, merge_key);
    }
    let n = live.len();
    let cap = n.next_power_of_two();
    let hasher = ValueHasher::new(Equality::Numeric);
    // Elements in use by hashed key: live ones by position, new ones at `n` + their index
    // in the patch.
    let mut in_use = LiveIndex::default();
    for (i, e) in live.iter().enumerate() {
        in_use.set(i, e.get(merge_key).and_then(|v| hasher.hash(v)));
    }
    let key_of = |id: usize| match id < n {
        true => live[id].get(merge_key),
        false => patch[id - n].get(merge_key),
    };
    let mut alive = vec![true; n];
    let mut last_alive = n.checked_sub(1);
    let mut len = n;
    // For a freed slot, the live element it kept.
    let mut kept: Vec<usize> = vec![0; n];
    let survivors_then_kept = |alive: &[bool], len: usize, kept: &[usize], new: &[usize]| {
        let mut out: Vec<Node> = (0..n)
            .filter(|&i| alive[i])
            .map(|i| live[i].clone())
            .collect();
        out.extend(new.iter().take(n - len).map(|&j| patch[j].clone()));
        let filled = out.len();
        out.extend((filled..n).map(|slot| live[kept[slot]].clone()));
        out
    };
    for item in patch {
        match item.get(DIRECTIVE).and_then(Node::as_str) {
            Some("delete") => {
                let Some(value) = item.get(merge_key) else {
                    continue;
                };
                let doomed: Vec<usize> = in_use
                    .positions(hasher.hash(value))
                    .filter(|&i| key_of(i).is_some_and(|v| deep_eq(v, value)))
                    .collect();
                for k in doomed {
                    let Some(last) = last_alive else { break };
                    kept[len - 1] = last;
                    len -= 1;
                    alive[k] = false;
                    in_use.remove(k);
                    if k == last {
                        last_alive = (0..k).rev().find(|&i| alive[i]);
                    }
                }
            }
            Some(_) => return survivors_then_kept(&alive, len, &kept, &[]),
            None => {}
        }
    }
    // New elements (not in use by key) go into the spare capacity while there is room and
    // nothing spilled; past it they are appended elsewhere and leave the live order alone.
    let mut written: Vec<usize> = Vec::new();
    let mut spilled = false;
    let mut used = len;
    for (j, item) in patch.iter().enumerate() {
        if item.get(DIRECTIVE).is_some() {
            continue;
        }
        let Some(value) = item.get(merge_key) else {
            continue;
        };
        let hash = hasher.hash(value);
        let present = in_use
            .first(hash, |id| key_of(id).is_some_and(|v| deep_eq(v, value)))
            .is_some();
        if present {
            continue;
        }
        if !spilled && used < cap {
            written.push(j);
            used += 1;
        } else {
            spilled = true;
        }
        in_use.set(n + j, hash);
    }
    survivors_then_kept(&alive, len, &kept, &written)
}

pub(super) fn extract_key(key: &str, prefix: &str) -> Result<String, Error> {
    match key.split_once('/') {
        Some((p, rest)) if p == prefix && !rest.contains('/') => Ok(rest.to_string()),
        _ => Err(Error::invalid_patch(format!(
            "unable to find api field: malformed directive key {key:?}"
        ))),
    }
}

pub(super) fn apply_retain_keys(
    original: &mut Map,
    patch: &mut Map,
    options: MergeOptions,
) -> Result<(), Error> {
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::apply_retain_keys(original, patch, options);
    }
    let Some(retain) = patch.shift_remove(RETAIN_KEYS) else {
        return Ok(());
    };
    if !options.merge_parallel_list {
        // Merging two patches: the directive must agree.
        match original.get(RETAIN_KEYS) {
            Some(existing) if !deep_eq(existing, &retain) => {
                return Err(Error::invalid_patch(format!(
                    "{} and {} are not deep equal: this may happen when calculating the 3-way diff patch",
                    go_str(existing),
                    go_str(&retain)
                )));
            }
            Some(_) => {}
            None => {
                original.insert(RETAIN_KEYS, retain);
            }
        }
        return Ok(());
    }
    let bad = || Error::invalid_patch("invalid patch format of retainKeys");
    let list = retain.as_seq().ok_or_else(bad)?;
    let keep: HashSet<&str> = list.iter().filter_map(Node::as_str).collect();
    for (k, v) in patch.iter() {
        if v.is_null()
            || k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            || k.starts_with(SET_ELEMENT_ORDER)
        {
            continue;
        }
        if !keep.contains(k.as_str()) {
            return Err(bad());
        }
    }
    original.retain(|k, _| keep.contains(k.as_str()));
    Ok(())
}

/// Handles `$setElementOrder/<list>`: merges the list it names and puts the result in the
/// order it gives.
pub(super) fn merge_set_element_order<S: PatchSchema>(
    original: &mut Map,
    patch: &mut Map,
    schema: Option<S>,
    options: MergeOptions,
) -> Result<(), Error> {
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::merge_set_element_order(original, patch, schema, options);
    }
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .map(|k| k.to_string())
        .collect();
    // The directives and the lists they order leave the patch at the end, all at once
    // (removing a key from a mapping shifts the ones after it).
    let mut done: HashSet<String> = HashSet::new();
    for key in keys {
        let Some(order) = patch.get(&key).cloned() else {
            continue;
        };
        done.insert(key.clone());
        if !options.merge_parallel_list {
            match original.get(&key) {
                Some(existing) if !deep_eq(existing, &order) => {
                    return Err(Error::invalid_patch(
                        "invalid patch format of setElementOrder list: the lists differ",
                    ));
                }
                Some(_) => {}
                None => {
                    original.insert(key.clone(), order.clone());
                }
            }
        }
        let order = match order {
            Node::Seq(items) => items,
            other => return Err(bad_arg("list", &other)),
        };
        let list_key = extract_key(&key, SET_ELEMENT_ORDER)?;
        let original_list = match original.get(&list_key) {
            None => None,
            Some(Node::Seq(items)) => Some(items.clone()),
            Some(other) => return Err(bad_arg("list", other)),
        };
        let patch_list = match patch.get(&list_key) {
            None => None,
            Some(Node::Seq(items)) => Some(items.clone()),
            Some(other) => return Err(bad_arg("list", other)),
        };
        let meta = lookup(schema, &list_key, true)?;
        validate_patch_with_order(
            patch_list.as_deref().unwrap_or(&[]),
            &order,
            &meta.merge_key,
        )?;
        let merged = match (&original_list, &patch_list) {
            (Some(o), None) => o.clone(),
            (None, Some(p)) => match remove_directives(Node::Seq(p.clone())) {
                Some(Node::Seq(items)) => items,
                _ => continue,
            },
            (Some(o), Some(p)) => merge_slice_or_replace(o.clone(), p.clone(), &meta, options)?,
            (None, None) => continue,
        };
        let (patch_items, server_only) = partition(merged, &order, &meta.merge_key)?;
        let mut original_items = original_list.unwrap_or_default();
        if let (Some(p), true) = (
            &patch_list,
            meta.strategy.merge && !meta.merge_key.is_empty(),
        ) {
            original_items = aliased_live_order(&original_items, p, &meta.merge_key);
        }
        let kind = slice_element_type(&[&original_items, patch_list.as_deref().unwrap_or(&[])])?;
        let both = normalize_element_order(
            patch_items,
            server_only,
            &order,
            &original_items,
            &meta.merge_key,
            kind,
        )?;
        original.insert(list_key.clone(), Node::Seq(both));
        done.insert(list_key);
    }
    if !done.is_empty() {
        patch.retain(|k, _| !done.contains(k.as_str()));
    }
    Ok(())
}

fn merge_slice_or_replace<S: PatchSchema>(
    original: Vec<Node>,
    patch: Vec<Node>,
    meta: &Meta<S>,
    options: MergeOptions,
) -> Result<Vec<Node>, Error> {
    if meta.strategy.merge {
        merge_slice(
            original,
            patch,
            meta.schema,
            &meta.merge_key,
            options,
            false,
        )
    } else {
        Ok(patch)
    }
}

fn validate_patch_with_order(patch: &[Node], order: &[Node], merge_key: &str) -> Result<(), Error> {
    if order.is_empty() || patch.is_empty() {
        return Ok(());
    }
    let non_delete: Vec<&Node> = if merge_key.is_empty() {
        patch.iter().collect()
    } else {
        patch
            .iter()
            .filter(|e| e.get(DIRECTIVE).and_then(Node::as_str) != Some("delete"))
            .collect()
    };
    let (mut i, mut j) = (0, 0);
    while i < non_delete.len() && j < order.len() {
        if non_delete[i].get(DIRECTIVE).is_some() {
            i += 1;
            continue;
        }
        if merge_key_value_equal(non_delete[i], &order[j], merge_key)? {
            i += 1;
        }
        j += 1;
    }
    if i < non_delete.len() && j >= order.len() {
        return Err(Error::invalid_patch(format!(
            "The order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER} list:\n{}\n",
            go_str(&Node::Seq(patch.to_vec())),
            go_str(&Node::Seq(order.to_vec()))
        )));
    }
    Ok(())
}
