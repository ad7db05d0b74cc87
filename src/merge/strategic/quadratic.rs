//! The list and mapping merges as they were before the indexes: each element found by a
//! scan, so quadratic (and worse) in the list length. Kept, for tests only, as the
//! reference the indexed code is compared with on random inputs (`strategic_tests.rs`);
//! [`force`] makes the strategic merge take these paths.

use std::cell::Cell;

use crate::error::Error;
use crate::yaml::{Map, Node};

use super::diff::merge_key_value_equal;
use super::directives::extract_key;
use super::merge::{merge_map, remove_directives};
use super::value::{
    bad_arg, deep_eq, go_str, map_and_key, no_merge_key, slice_element_type, type_class,
};
use super::{
    DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, MergeOptions, Meta, PatchSchema, RETAIN_KEYS,
    SET_ELEMENT_ORDER, lookup,
};

thread_local! {
    static FORCED: Cell<bool> = const { Cell::new(false) };
}

/// Whether the strategic merge takes the quadratic paths on this thread.
pub(super) fn forced() -> bool {
    FORCED.with(Cell::get)
}

/// Makes the strategic merge on this thread take the quadratic paths (or not).
pub(super) fn force(on: bool) {
    FORCED.with(|f| f.set(on));
}

pub(super) fn dedup_scalars(list: Vec<Node>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::with_capacity(list.len());
    for v in list {
        if !out.iter().any(|o| deep_eq(o, &v)) {
            out.push(v);
        }
    }
    out
}

/// Position of `value` in `list`: by merge key for mappings, by value for scalars.
fn index_of(list: &[Node], value: &Node, merge_key: &str, kind: u8) -> Option<usize> {
    if kind == 5 {
        let v = value.get(merge_key)?;
        list.iter()
            .position(|e| e.get(merge_key).is_some_and(|w| deep_eq(v, w)))
    } else {
        list.iter().position(|e| deep_eq(e, value))
    }
}

/// Go's `sort.SliceStable` (an insertion sort on short lists) with apimachinery's
/// comparator, which calls an element missing from `order` "less" than anything.
pub(super) fn normalize_slice_order(
    to_sort: Vec<Node>,
    order: &[Node],
    merge_key: &str,
    kind: u8,
) -> Result<Vec<Node>, Error> {
    let mut to_delete = Vec::new();
    let mut items = to_sort;
    if kind == 5 {
        for item in items.iter().chain(order) {
            map_and_key(item, merge_key)?;
        }
        let (keep, delete): (Vec<Node>, Vec<Node>) = items
            .into_iter()
            .partition(|e| e.get(DIRECTIVE).and_then(Node::as_str) != Some("delete"));
        items = keep;
        to_delete = delete;
    }
    let less = |a: &Node, b: &Node| match (
        index_of(order, a, merge_key, kind),
        index_of(order, b, merge_key, kind),
    ) {
        (Some(x), Some(y)) => x < y,
        _ => true,
    };
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && less(&items[j], &items[j - 1]) {
            items.swap(j, j - 1);
            j -= 1;
        }
    }
    items.extend(to_delete);
    Ok(items)
}

/// Interleaves the live-only elements (`left`) into the patched ones (`right`) by their
/// live position, keeping both relative orders.
fn merge_sorted_slice(
    left: Vec<Node>,
    right: Vec<Node>,
    server_order: &[Node],
    merge_key: &str,
    kind: u8,
) -> Vec<Node> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => matches!(
                (
                    index_of(server_order, l, merge_key, kind),
                    index_of(server_order, r, merge_key, kind),
                ),
                (Some(a), Some(b)) if a < b
            ),
        };
        let next = if take_left { left.next() } else { right.next() };
        out.extend(next);
    }
    out
}

pub(super) fn normalize_element_order(
    patch_items: Vec<Node>,
    server_only: Vec<Node>,
    patch_order: &[Node],
    server_order: &[Node],
    merge_key: &str,
    kind: u8,
) -> Result<Vec<Node>, Error> {
    let patch_items = normalize_slice_order(patch_items, patch_order, merge_key, kind)?;
    let server_only = normalize_slice_order(server_only, server_order, merge_key, kind)?;
    Ok(merge_sorted_slice(
        server_only,
        patch_items,
        server_order,
        merge_key,
        kind,
    ))
}

/// Splits `list` into the elements `by` has (by merge key, or by value) and the others.
pub(super) fn partition(
    list: Vec<Node>,
    by: &[Node],
    merge_key: &str,
) -> Result<(Vec<Node>, Vec<Node>), Error> {
    let mut inside = Vec::new();
    let mut outside = Vec::new();
    for item in list {
        let found = if merge_key.is_empty() {
            by.iter().any(|b| deep_eq(b, &item))
        } else {
            let (_, value) = map_and_key(&item, merge_key)?;
            find_by_key(by, merge_key, value)?.is_some()
        };
        if found {
            inside.push(item);
        } else {
            outside.push(item);
        }
    }
    Ok((inside, outside))
}

pub(super) fn find_by_key(
    list: &[Node],
    merge_key: &str,
    value: &Node,
) -> Result<Option<usize>, Error> {
    for (i, item) in list.iter().enumerate() {
        let m = item.as_map().ok_or_else(|| bad_arg("map", item))?;
        if m.get(merge_key).is_some_and(|v| deep_eq(v, value)) {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

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

/// The live list as apimachinery sees it after merging a patch into it. Go merges in place:
/// deleting elements shifts the live list's backing array, and new elements appended
/// after deletions land in its spare capacity, so the "live order" used to place live-only
/// elements is the live list overwritten that way. JSON decoding builds lists by appending,
/// so their capacity is the next power of two.
pub(super) fn aliased_live_order(live: &[Node], patch: &[Node], merge_key: &str) -> Vec<Node> {
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

/// The fields loop of `merge_map`, with `shift_remove`.
pub(super) fn merge_fields<S: PatchSchema>(
    mut original: Map,
    patch: Map,
    schema: Option<S>,
    options: MergeOptions,
) -> Result<Map, Error> {
    // Parallel deletion lists go last, after the lists they edit have been merged.
    let (deletions, rest): (Vec<_>, Vec<_>) = patch
        .into_iter()
        .partition(|(k, _)| k.starts_with(DELETE_FROM_PRIMITIVE_LIST));
    for (key, mut patch_value) in rest.into_iter().chain(deletions) {
        let (key, is_delete_list) = if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            if !options.merge_parallel_list {
                original.insert(key, patch_value);
                continue;
            }
            (extract_key(&key, DELETE_FROM_PRIMITIVE_LIST)?.into(), true)
        } else {
            (key, false)
        };
        if patch_value.is_null() {
            original.shift_remove(&key);
            if options.ignore_unmatched_nulls {
                continue;
            }
        }
        let same_type = original
            .get(&key)
            .is_some_and(|o| type_class(o) == type_class(&patch_value));
        if !same_type {
            if !is_delete_list {
                if options.ignore_unmatched_nulls {
                    super::merge::discard_nulls(&mut patch_value);
                }
                // A value the object does not have is added without its directives.
                if let Some(value) = remove_directives(patch_value) {
                    original.insert(key, value);
                }
            }
            continue;
        }
        let Some(current) = original.get_mut(&key) else {
            continue;
        };
        let merged = match (std::mem::take(current), patch_value) {
            (Node::Map(o), Node::Map(p)) => {
                let meta = lookup(schema, &key, false)?;
                if meta.strategy.replace {
                    Node::Map(p)
                } else {
                    Node::Map(merge_map(o, p, meta.schema, options)?)
                }
            }
            (Node::Seq(o), Node::Seq(p)) => {
                let meta = lookup(schema, &key, true)?;
                // A deletion list removes scalars whatever the list's strategy.
                if meta.strategy.merge || is_delete_list {
                    Node::Seq(merge_slice(
                        o,
                        p,
                        meta.schema,
                        &meta.merge_key,
                        options,
                        is_delete_list,
                    )?)
                } else {
                    Node::Seq(p)
                }
            }
            (_, p) => p,
        };
        *current = merged;
    }
    Ok(original)
}
