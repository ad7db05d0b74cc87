//! Runs of operations on one list or mapping, applied at once with the result of applying
//! them one by one.
//!
//! Removing from a mapping shifts the entries after it, and inserting into or removing
//! from a list shifts the elements after it, so a patch of many such operations on one
//! large container was quadratic (10,000 removals from a ConfigMap of 20,000 keys took
//! 9 s; a patch of 100,000, minutes). A run of consecutive `remove` operations on one
//! container (or of `add` operations on one list) is checked operation by operation, as
//! each would fail, and then applied in one pass: positions in a list as it shrinks or
//! grows are followed with a Fenwick tree.

use std::collections::HashSet;

use crate::yaml::Node;

use super::{decode, existing_index, find};

/// The parent of a JSON pointer (`/a/b` → `/a`); `None` for a pointer without `/`.
fn parent(path: &str) -> Option<&str> {
    path.rsplit_once('/').map(|(p, _)| p)
}

/// How many operations from `ops[0]` make a run: consecutive operations `op`, each with
/// a string path under the same parent (1 when there is no run).
pub(super) fn run_len(ops: &[Node], op: &str) -> usize {
    fn path_of<'o>(o: &'o Node, op: &str) -> Option<&'o str> {
        match (o.get("op"), o.get("path")) {
            (Some(Node::Str(kind)), Some(Node::Str(path))) if kind == op => parent(path),
            _ => None,
        }
    }
    let Some(first) = ops.first().and_then(|o| path_of(o, op)) else {
        return 1;
    };
    1 + ops[1..]
        .iter()
        .take_while(|o| path_of(o, op) == Some(first))
        .count()
}

/// A run's failure: the operation's index in the run and its message.
pub(super) type RunError = (usize, String);

/// Applies a run of `remove` operations (see [`run_len`]); `Ok(false)` when the
/// container is neither a mapping nor a list (the caller applies them one by one).
pub(super) fn remove_run(doc: &mut Node, run: &[Node]) -> Result<bool, RunError> {
    let paths: Vec<&str> = run.iter().filter_map(|o| o.get_str(&["path"])).collect();
    let Some((container, _)) = find(doc, paths[0]) else {
        return Err((0, "the path's parent does not exist".to_string()));
    };
    let keys: Vec<String> = paths
        .iter()
        .map(|p| decode(p.rsplit_once('/').map_or("", |(_, k)| k)))
        .collect();
    match container {
        Node::Map(m) => {
            let mut gone: HashSet<&str> = HashSet::with_capacity(keys.len());
            for (j, key) in keys.iter().enumerate() {
                if gone.contains(key.as_str()) || !m.contains_key(key) {
                    return Err((j, format!("unable to remove nonexistent key '{key}'")));
                }
                gone.insert(key);
            }
            m.retain(|k, _| !gone.contains(k.as_str()));
            Ok(true)
        }
        Node::Seq(items) => {
            let mut alive = Fenwick::full(items.len());
            let mut kept = vec![true; items.len()];
            for (j, key) in keys.iter().enumerate() {
                let i = existing_index(key, alive.count()).map_err(|e| (j, e))?;
                let at = alive.nth(i);
                alive.take(at);
                kept[at] = false;
            }
            let mut flags = kept.into_iter();
            items.retain(|_| flags.next().unwrap_or(true));
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Applies a run of `add` operations into one list (see [`run_len`]); `Ok(false)` when
/// the container is not a list (the caller applies them one by one).
pub(super) fn add_run(doc: &mut Node, run: &[Node]) -> Result<bool, RunError> {
    let Some(first) = run[0].get_str(&["path"]) else {
        return Ok(false);
    };
    let Some((Node::Seq(items), _)) = find(doc, first) else {
        return Ok(false);
    };
    // Where each goes in the list as it stands then, checked as `add` checks it.
    let mut at = Vec::with_capacity(run.len());
    for (j, op) in run.iter().enumerate() {
        let path = op.get_str(&["path"]).unwrap_or_default();
        let key = decode(path.rsplit_once('/').map_or("", |(_, k)| k));
        let len = items.len() + j;
        if key == "-" {
            at.push(len);
            continue;
        }
        let i: i64 = key
            .parse()
            .map_err(|_| (j, format!("'{key}' is not a list index")))?;
        // Counted on the list after insertion: -1 appends.
        let size = len as i64 + 1;
        let i = if i < 0 { i + size } else { i };
        if !(0..size).contains(&i) {
            return Err((
                j,
                format!("index {key} is out of range (the list has {len} elements)"),
            ));
        }
        at.push(i as usize);
    }
    // The last insertion is at its index in the final list; without it, the one before
    // is at its index among the slots left, and so on; the list's own elements fill the
    // slots no insertion took, in order.
    let total = items.len() + run.len();
    let mut free = Fenwick::full(total);
    let mut slots: Vec<Option<Node>> = vec![None; total];
    for (op, &i) in run.iter().zip(&at).rev() {
        let slot = free.nth(i);
        free.take(slot);
        slots[slot] = Some(op.get("value").cloned().unwrap_or(Node::Null));
    }
    let mut own = std::mem::take(items).into_iter();
    *items = slots
        .into_iter()
        .map(|s| s.or_else(|| own.next()).unwrap_or_default())
        .collect();
    Ok(true)
}

/// Counts of present positions, to find the `n`-th present one and take it away, each in
/// `O(log n)`.
struct Fenwick {
    tree: Vec<usize>,
    count: usize,
}

impl Fenwick {
    /// Positions `0..len`, all present.
    fn full(len: usize) -> Fenwick {
        let mut tree = vec![0; len + 1];
        for i in 1..=len {
            tree[i] += 1;
            let parent = i + (i & i.wrapping_neg());
            if parent <= len {
                tree[parent] += tree[i];
            }
        }
        Fenwick { tree, count: len }
    }

    fn count(&self) -> usize {
        self.count
    }

    /// The position of the `n`-th present position (from 0; `n` < [`Fenwick::count`]).
    fn nth(&self, n: usize) -> usize {
        let mut pos = 0;
        let mut left = n + 1;
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && self.tree[next] < left {
                pos = next;
                left -= self.tree[next];
            }
            step /= 2;
        }
        pos
    }

    /// Takes present position `at` away.
    fn take(&mut self, at: usize) {
        let mut i = at + 1;
        while i < self.tree.len() {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
        self.count -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nth_present_position_follows_removals() {
        let mut f = Fenwick::full(10);
        assert_eq!(
            (0..10).map(|n| f.nth(n)).collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
        f.take(3);
        f.take(0);
        assert_eq!(f.count(), 8);
        assert_eq!(f.nth(0), 1);
        assert_eq!(f.nth(2), 4);
        assert_eq!(f.nth(7), 9);
    }
}
