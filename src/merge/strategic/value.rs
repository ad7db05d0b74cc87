//! Values as Go sees them after JSON decoding: apimachinery's type classes,
//! `reflect.DeepEqual`, `fmt.Sprintf("%v")` (which it sorts and pairs by), its error texts,
//! and the sorting of lists before diffing.

use crate::error::Error;
use crate::merge::index::{Equality, LiveIndex, ValueHasher};
use crate::yaml::{Map, Node};

/// Go's `reflect.TypeOf` classes of a decoded JSON value.
pub(super) fn type_class(node: &Node) -> u8 {
    match node {
        Node::Null => 0,
        Node::Bool(_) => 1,
        Node::Int(_) | Node::Uint(_) | Node::Float(_) => 2,
        Node::Str(_) => 3,
        Node::Seq(_) => 4,
        Node::Map(_) => 5,
    }
}

#[cfg(test)]
thread_local! {
    /// How many times [`deep_eq`] ran on this thread: the tests bound the comparisons a
    /// merge makes (a count, not a time, so they do not depend on the machine).
    pub(super) static DEEP_EQ_CALLS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// `reflect.DeepEqual` on decoded JSON (numbers by value).
pub(super) fn deep_eq(a: &Node, b: &Node) -> bool {
    #[cfg(test)]
    DEEP_EQ_CALLS.with(|c| c.set(c.get() + 1));
    match (a, b) {
        (Node::Int(i), Node::Float(f)) | (Node::Float(f), Node::Int(i)) => *i as f64 == *f,
        (Node::Map(x), Node::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_eq(v, w)))
        }
        (Node::Seq(x), Node::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| deep_eq(v, w))
        }
        _ => a == b,
    }
}

pub(super) fn deep_eq_opt(a: Option<&Node>, b: Option<&Node>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => deep_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Go's `fmt.Sprintf("%v", v)`, which apimachinery sorts and pairs by.
pub(super) fn go_str(node: &Node) -> String {
    match node {
        Node::Null => "<nil>".into(),
        Node::Seq(items) => format!(
            "[{}]",
            items.iter().map(go_str).collect::<Vec<_>>().join(" ")
        ),
        Node::Map(m) => {
            let mut keys: Vec<&crate::yaml::map::Key> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", go_str(&m[k])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
        other => other.scalar_string().unwrap_or_default(),
    }
}

pub(super) fn no_merge_key(element: &Node, key: &str) -> Error {
    Error::invalid_patch(format!(
        "map: {} does not contain declared merge key: {key}",
        go_str(element)
    ))
}

pub(super) fn bad_arg(want: &str, got: &Node) -> Error {
    Error::invalid_patch(format!(
        "expected a {want}, but received a {}: {}",
        got.type_name(),
        go_str(got)
    ))
}

/// The common element type of lists: 4 is a list (an error), 5 a mapping, others scalars.
pub(super) fn slice_element_type(lists: &[&[Node]]) -> Result<u8, Error> {
    let mut prev = None;
    for item in lists.iter().flat_map(|l| l.iter()) {
        let t = type_class(item);
        match prev {
            None if t == 4 => return Err(Error::invalid_patch("lists of lists are not supported")),
            None => prev = Some(t),
            Some(p) if p != t => {
                return Err(Error::invalid_patch(format!(
                    "list element types are not identical: {}",
                    lists
                        .iter()
                        .map(|l| go_str(&Node::Seq(l.to_vec())))
                        .collect::<Vec<_>>()
                        .join(" ")
                )));
            }
            Some(_) => {}
        }
    }
    prev.ok_or_else(|| Error::invalid_patch("no elements in any of the given slices"))
}

pub(super) fn sort_scalars(list: &[Node]) -> Vec<Node> {
    let mut out = list.to_vec();
    // Stable, as Go's `sort.SliceStable`; each text is made once.
    out.sort_by_cached_key(go_str);
    out
}

/// The list without the elements equal to an earlier one that is kept.
pub(super) fn dedup_scalars(list: Vec<Node>) -> Vec<Node> {
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::dedup_scalars(list);
    }
    let hasher = ValueHasher::new(Equality::Numeric);
    let mut kept = LiveIndex::default();
    let mut out: Vec<Node> = Vec::with_capacity(list.len());
    for v in list {
        let hash = hasher.hash(&v);
        if kept.first(hash, |i| deep_eq(&out[i], &v)).is_none() {
            kept.set(out.len(), hash);
            out.push(v);
        }
    }
    out
}

pub(super) fn dedup_and_sort_scalars(list: &[Node]) -> Vec<Node> {
    sort_scalars(&dedup_scalars(list.to_vec()))
}

fn sort_maps_by_field(list: &[Node], key: &str) -> Vec<Node> {
    let mut out = list.to_vec();
    out.sort_by_cached_key(|e| e.get(key).map(go_str).unwrap_or_else(|| "<nil>".into()));
    out
}

/// Sorts a merging list for diffing: maps by merge key, scalars deduplicated and sorted.
pub(super) fn sort_for_diff(list: &[Node], merge_key: &str) -> Vec<Node> {
    match list.first() {
        Some(Node::Map(_)) => sort_maps_by_field(list, merge_key),
        Some(_) => dedup_and_sort_scalars(list),
        None => Vec::new(),
    }
}

pub(super) fn map_and_key<'n>(
    item: &'n Node,
    merge_key: &str,
) -> Result<(&'n Map, &'n Node), Error> {
    let m = item.as_map().ok_or_else(|| bad_arg("map", item))?;
    let v = m
        .get(merge_key)
        .ok_or_else(|| no_merge_key(item, merge_key))?;
    Ok((m, v))
}
