//! The directives carried by keys of a patch mapping: `$retainKeys`,
//! `$setElementOrder/<list>` (with the live order Go's in-place merge leaves) and the
//! `<prefix>/<list>` key format shared with `$deleteFromPrimitiveList`.

use crate::error::Error;
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
fn aliased_live_order(live: &[Node], patch: &[Node], merge_key: &str) -> Vec<Node> {
    let n = live.len();
    let cap = n.next_power_of_two();
    let mut backing: Vec<Node> = live.to_vec();
    backing.resize(cap, Node::Null);
    let mut len = n;
    let key_of = |e: &Node| e.get(merge_key).cloned();
    for item in patch {
        match item.get(DIRECTIVE).and_then(Node::as_str) {
            Some("delete") => {
                let Some(value) = item.get(merge_key) else {
                    continue;
                };
                while let Some(k) = backing[..len]
                    .iter()
                    .position(|e| key_of(e).is_some_and(|v| deep_eq(&v, value)))
                {
                    // `append(s[:k], s[k+1:]...)`: shift left, the old last slot keeps its value.
                    for i in k..len - 1 {
                        backing[i] = backing[i + 1].clone();
                    }
                    len -= 1;
                }
            }
            Some(_) => return backing[..n].to_vec(),
            None => {}
        }
    }
    let mut spilled: Vec<Node> = Vec::new();
    for item in patch.iter().filter(|i| i.get(DIRECTIVE).is_none()) {
        let Some(value) = item.get(merge_key) else {
            continue;
        };
        let present = backing[..len]
            .iter()
            .chain(&spilled)
            .any(|e| key_of(e).is_some_and(|v| deep_eq(&v, value)));
        if present {
            continue;
        }
        if spilled.is_empty() && len < cap {
            backing[len] = item.clone();
            len += 1;
        } else {
            spilled.push(item.clone());
        }
    }
    backing.truncate(n);
    backing
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
    let keep: Vec<String> = list
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    for (k, v) in patch.iter() {
        if v.is_null()
            || k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            || k.starts_with(SET_ELEMENT_ORDER)
        {
            continue;
        }
        if !keep.iter().any(|x| x == k) {
            return Err(bad());
        }
    }
    original.retain(|k, _| keep.iter().any(|x| x == k));
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
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .map(|k| k.to_string())
        .collect();
    for key in keys {
        let Some(order) = patch.shift_remove(&key) else {
            continue;
        };
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
        patch.shift_remove(&list_key);
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
