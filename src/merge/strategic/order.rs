//! Ordering of list elements: apimachinery's `normalizeElementOrder` and the helpers that
//! find elements by merge key or value, through an index ([`crate::merge::index`]) so that
//! ordering a list is `O(n log n)`, never a scan per element.

use std::collections::BTreeMap;

use crate::error::Error;
use crate::merge::index::{Equality, FirstIndex, ValueHasher};
use crate::yaml::Node;

use super::DIRECTIVE;
use super::value::{bad_arg, deep_eq, map_and_key};

/// The positions of a list's elements by merge key (mappings, `kind` 5) or by value
/// (scalars): what apimachinery finds with `index(list, value)`, a scan for the first equal
/// element.
pub(super) struct Positions<'l> {
    keys: Vec<Option<&'l Node>>,
    hasher: ValueHasher,
    index: FirstIndex,
    merge_key: &'l str,
    by_key: bool,
}

impl<'l> Positions<'l> {
    pub(super) fn new(list: &'l [Node], merge_key: &'l str, kind: u8) -> Positions<'l> {
        let by_key = kind == 5;
        let keys: Vec<Option<&Node>> = list
            .iter()
            .map(|e| if by_key { e.get(merge_key) } else { Some(e) })
            .collect();
        let hasher = ValueHasher::new(Equality::Numeric);
        let index = FirstIndex::new(&keys, |k| hasher.hash(k), |a, b| a == b);
        Positions {
            keys,
            hasher,
            index,
            merge_key,
            by_key,
        }
    }

    /// The position of the first element equal to `value` (by merge key for mappings).
    pub(super) fn of(&self, value: &Node) -> Option<usize> {
        let v = if self.by_key {
            value.get(self.merge_key)?
        } else {
            value
        };
        self.index.first(self.hasher.hash(v), |i| {
            self.keys[i].is_some_and(|k| deep_eq(k, v))
        })
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
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::normalize_slice_order(to_sort, order, merge_key, kind);
    }
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
    let positions = Positions::new(order, merge_key, kind);
    let ranks: Vec<Option<usize>> = items.iter().map(|e| positions.of(e)).collect();
    let mut items = insertion_sorted(items, &ranks);
    items.extend(to_delete);
    Ok(items)
}

/// What an insertion sort of `items` gives with the comparator "`a` is less than `b` when
/// `a`'s rank is below `b`'s, or either has no rank" (kbuild's reading of apimachinery's
/// comparator), in `O(n log n)`.
///
/// Insertion sort takes the items one by one and moves each left while it is "less" than
/// its neighbour. An item without a rank is less than anything: it moves to the very
/// front. An item with a rank moves past unranked items and past ranked items of a higher
/// rank, and stops behind the last ranked item of its rank or lower. So the ranked items
/// stay sorted by rank (stably), and the unranked ones sit in gaps between them: each
/// new unranked item opens the front gap, and a ranked item placed behind another takes
/// over the gap that followed it (the items of that gap now follow the new one); one
/// placed in front of everything takes over the front gap.
fn insertion_sorted(items: Vec<Node>, ranks: &[Option<usize>]) -> Vec<Node> {
    // Ranked items by (rank, arrival), each with the gap after it. A gap lists its items
    // newest first in the list, so it is kept in arrival order and read backwards.
    let mut ranked: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    let mut front: Vec<usize> = Vec::new();
    for (i, rank) in ranks.iter().enumerate() {
        let Some(rank) = *rank else {
            front.push(i);
            continue;
        };
        let gap = match ranked.range_mut(..=(rank, usize::MAX)).next_back() {
            Some((_, gap)) => std::mem::take(gap),
            None => std::mem::take(&mut front),
        };
        ranked.insert((rank, i), gap);
    }
    let mut slots: Vec<Option<Node>> = items.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for &i in front.iter().rev() {
        out.extend(slots[i].take());
    }
    for ((_, i), gap) in ranked {
        out.extend(slots[i].take());
        for &j in gap.iter().rev() {
            out.extend(slots[j].take());
        }
    }
    out
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
    let positions = Positions::new(server_order, merge_key, kind);
    let ranked = |list: Vec<Node>| -> Vec<(Option<usize>, Node)> {
        list.into_iter().map(|e| (positions.of(&e), e)).collect()
    };
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = ranked(left).into_iter().peekable();
    let mut right = ranked(right).into_iter().peekable();
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some((l, _)), Some((r, _))) => matches!((l, r), (Some(a), Some(b)) if a < b),
        };
        let next = if take_left { left.next() } else { right.next() };
        out.extend(next.map(|(_, e)| e));
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
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::normalize_element_order(
            patch_items,
            server_only,
            patch_order,
            server_order,
            merge_key,
            kind,
        );
    }
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
/// apimachinery scans `by` for each element and fails on the first entry of `by` that is
/// not a mapping before a match: so does this, from the index.
pub(super) fn partition(
    list: Vec<Node>,
    by: &[Node],
    merge_key: &str,
) -> Result<(Vec<Node>, Vec<Node>), Error> {
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::partition(list, by, merge_key);
    }
    let by_key = !merge_key.is_empty();
    let positions = Positions::new(by, merge_key, if by_key { 5 } else { 0 });
    let first_non_map = if by_key {
        by.iter().position(|b| b.as_map().is_none())
    } else {
        None
    };
    let mut inside = Vec::new();
    let mut outside = Vec::new();
    for item in list {
        let found = if by_key {
            map_and_key(&item, merge_key)?;
            let at = positions.of(&item);
            if let Some(bad) = first_non_map.filter(|&bad| at.is_none_or(|at| bad < at)) {
                return Err(bad_arg("map", &by[bad]));
            }
            at.is_some()
        } else {
            positions.of(&item).is_some()
        };
        if found {
            inside.push(item);
        } else {
            outside.push(item);
        }
    }
    Ok((inside, outside))
}
