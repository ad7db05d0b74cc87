//! Ordering of list elements: apimachinery's `normalizeElementOrder` and the helpers that
//! find elements by merge key or value.

use crate::error::Error;
use crate::yaml::Node;

use super::DIRECTIVE;
use super::value::{bad_arg, deep_eq, map_and_key};

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
