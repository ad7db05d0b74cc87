//! What one step of a build changed in one resource, field by field: the leaves (scalars,
//! and empty mappings and lists) whose value differs between the resource before the step
//! and after it.
//!
//! Provenance is recorded this way, by comparing, rather than by each transformer saying
//! what it wrote: every step of the pipeline (the built-in transformers, patches of every
//! kind, replacements, plugins, helm) is covered the same way and a new transformer cannot
//! be forgotten. What comparing cannot see, a field written with the value it had, the
//! patches and the label and annotation transformers add (see `writes.rs`).

use super::path::{FieldPath, MERGE_KEYS, Part, element_parts};
use crate::yaml::Node;
use crate::yaml::node::Str;

/// One leaf that a step changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The field.
    pub path: FieldPath,
    /// Its value before the step, as text (`None`: it did not exist). Short texts, as
    /// most values are, are stored inline: a record holds one per changed leaf.
    pub before: Option<Str>,
    /// Its value after the step (`None`: the step removed it).
    pub after: Option<Str>,
}

/// A list element whose name a step changed in place (a name reference, a prefix): its
/// fields are followed from the old name to the new one.
#[derive(Clone, Debug, PartialEq)]
pub struct Rename {
    /// The element's path before the step (`subjects.[name=sa]`).
    pub from: FieldPath,
    /// Its path after it (`subjects.[name=prod-sa]`).
    pub to: FieldPath,
}

/// Every leaf whose value differs between `before` and `after`, in document order.
pub fn changes(before: &Node, after: &Node) -> Vec<Change> {
    changes_renaming(before, after).0
}

/// [`changes`], with the list elements the step renamed (see [`Rename`]); the changes of
/// a renamed element are under its new name.
pub fn changes_renaming(before: &Node, after: &Node) -> (Vec<Change>, Vec<Rename>) {
    let mut out = Out::default();
    let mut at = FieldPath::default();
    // `compare` takes values known to differ, but for mappings, which it compares key
    // by key (a resource touched but left as it was costs that one pass).
    let maps = matches!((before, after), (Node::Map(_), Node::Map(_)));
    if !maps && before == after {
        return (out.changes, out.renames);
    }
    compare(&mut at, Some(before), Some(after), &mut out);
    (out.changes, out.renames)
}

#[derive(Default)]
struct Out {
    changes: Vec<Change>,
    renames: Vec<Rename>,
}

impl Out {
    fn push(&mut self, change: Change) {
        self.changes.push(change);
    }
}

/// Whether `after` is `before` renamed in place: the element at the same position, under
/// another `name`, with every other field of `before` kept as it was, but its
/// `namespace` (a name reference to a ServiceAccount that a prefix and a namespace moved
/// renames the subject and sets its namespace). Fields may be added. An element replaced
/// by a different one is not a rename: its fields are not the old element's.
fn renamed(before: &Node, after: &Node) -> bool {
    let (Some(b), Some(a)) = (before.as_map(), after.as_map()) else {
        return false;
    };
    b.iter()
        .filter(|(k, _)| !matches!(k.as_str(), "name" | "namespace"))
        .all(|(k, v)| a.get(k) == Some(v))
}

/// How many changes [`written_unchanged`] scans for each written field before it hashes.
const SCAN: usize = 16;

/// Adds to `changes` (a step's, found by comparing) the fields of `written` (those the
/// step wrote) that it did not change: each a change from its value to itself.
pub(crate) fn written_unchanged(changes: &mut Vec<Change>, written: Vec<FieldPath>, now: &Node) {
    if written.is_empty() {
        return;
    }
    // Nearly always every field written is among those changed (a label added, not
    // rewritten): found by a scan of the few changes, without hashing any path.
    let changed = |path: &FieldPath| changes.iter().any(|c| c.path == *path);
    if changes.len() <= SCAN && written.iter().all(changed) {
        return;
    }
    // The fields already changed, and those added here: each once.
    let mut seen: foldhash::HashSet<&FieldPath> = changes.iter().map(|c| &c.path).collect();
    let mut added = Vec::new();
    for path in &written {
        if !seen.insert(path) {
            continue;
        }
        let Some(leaf) = path.lookup(now).filter(|n| is_leaf(n)) else {
            continue;
        };
        let text = short_text(leaf);
        added.push(Change {
            path: path.clone(),
            before: Some(text.clone()),
            after: Some(text),
        });
    }
    changes.extend(added);
}

/// Every leaf of `node` as set from nothing: what a source or a generator writes.
pub fn created(node: &Node) -> Vec<Change> {
    let mut out = Vec::new();
    collect(&mut FieldPath::default(), node, &mut |path, leaf| {
        out.push(Change {
            path: path.clone(),
            before: None,
            after: Some(short_text(leaf)),
        });
    });
    out
}

/// Every leaf of `node`, with its path and text, in document order.
pub fn leaves(node: &Node) -> Vec<(FieldPath, String)> {
    let mut out = Vec::new();
    each_leaf(node, &mut |path, text| out.push((path.clone(), text)));
    out
}

/// Calls `f` with every leaf of `node`, its path and text, in document order ([`leaves`]
/// without a copy of each path).
pub fn each_leaf(node: &Node, f: &mut dyn FnMut(&FieldPath, String)) {
    collect(&mut FieldPath::default(), node, &mut |path, leaf| {
        f(path, text(leaf))
    });
}

/// [`each_leaf`], with each leaf of `node` given the leaf `beside` has at the same path
/// (as `beside` names its list elements), if it has one there: a report of a resource
/// finds there what the step it came from set (see `Step::created`), without a path
/// made for every leaf of that step.
pub fn each_leaf_beside(
    node: &Node,
    beside: &Node,
    f: &mut dyn FnMut(&FieldPath, String, Option<&Node>),
) {
    walk_beside(&mut FieldPath::default(), node, Some(beside), f);
}

fn walk_beside(
    at: &mut FieldPath,
    node: &Node,
    beside: Option<&Node>,
    f: &mut dyn FnMut(&FieldPath, String, Option<&Node>),
) {
    match node {
        Node::Map(m) if !m.is_empty() => {
            let other = beside.and_then(Node::as_map).filter(|o| !o.is_empty());
            for (k, v) in m.iter() {
                at.0.push(Part::Key(k.clone()));
                walk_beside(at, v, other.and_then(|o| o.get(k)), f);
                at.0.pop();
            }
        }
        Node::Seq(items) if !items.is_empty() => {
            let other = match beside {
                Some(Node::Seq(o)) if !o.is_empty() => Some((o, element_parts(o))),
                _ => None,
            };
            for (part, v) in element_parts(items).into_iter().zip(items) {
                let o = other.as_ref().and_then(|(o, parts)| {
                    parts.iter().position(|p| *p == part).and_then(|j| o.get(j))
                });
                at.0.push(part);
                walk_beside(at, v, o, f);
                at.0.pop();
            }
        }
        leaf => f(at, text(leaf), beside.filter(|b| is_leaf(b))),
    }
}

/// [`changes_renaming`] of `seen` (a resource as its record last saw it) and `now`,
/// making `seen` the same as `now` where they differ, in the same pass: a step changes a
/// few fields, and comparing the whole resource again to copy them (see [`sync`]) cost
/// as much as finding them. The third value says whether some part of `seen` was left
/// equal to `now` but with its keys in another order: a record whose step changed
/// something is then made identical ([`sync`]) as it was before this pass existed; one
/// whose step changed nothing keeps its copy as it was.
pub(crate) fn changes_syncing(seen: &mut Node, now: &Node) -> (Vec<Change>, Vec<Rename>, bool) {
    let mut out = Out::default();
    let mut at = FieldPath::default();
    let mut reordered = false;
    if aligned(seen, now) {
        compare_sync(&mut at, seen, now, &mut out, &mut reordered);
    } else if seen == now {
        reordered = !identical(seen, now);
    } else {
        compare(&mut at, Some(seen), Some(now), &mut out);
        sync(seen, now);
    }
    (out.changes, out.renames, reordered)
}

/// A path of mapping keys from a resource's root: what a step writes along (see
/// `Resource::node_mut_within`). Shared: a step lists the same few paths for every
/// resource of a kind.
pub(crate) type KeyPath = std::sync::Arc<[Str]>;

/// [`changes_syncing`] of a resource whose step wrote only along the paths `within` (see
/// `Resource::node_mut_within`): the rest of the object is as `seen` holds it, so only
/// the mappings on those paths are gone into, and what a path leads to (or the first
/// value on it that is not a mapping) is compared whole. The result is the one
/// [`changes_syncing`] gives, in the same order: keys are visited in the object's order.
pub(crate) fn changes_syncing_within(
    seen: &mut Node,
    now: &Node,
    within: &[KeyPath],
) -> (Vec<Change>, Vec<Rename>, bool) {
    let paths: Vec<&[Str]> = within.iter().map(|p| &**p).collect();
    let (Node::Map(s), Node::Map(n)) = (&mut *seen, now) else {
        return changes_syncing(seen, now);
    };
    // An empty path is the whole object.
    if !maps_aligned(s, n) || paths.iter().any(|p| p.is_empty()) {
        return changes_syncing(seen, now);
    }
    let mut out = Out::default();
    let mut reordered = false;
    compare_sync_maps_along(
        &mut FieldPath::default(),
        s,
        n,
        Some(&paths),
        &mut out,
        &mut reordered,
    );
    (out.changes, out.renames, reordered)
}

/// Two non-empty mappings with the same keys in the same order.
fn aligned(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Map(a), Node::Map(b)) => maps_aligned(a, b),
        _ => false,
    }
}

/// [`aligned`], of two mappings.
fn maps_aligned(a: &crate::yaml::Map, b: &crate::yaml::Map) -> bool {
    !a.is_empty() && a.len() == b.len() && a.keys().eq(b.keys())
}

/// See [`changes_syncing`]: `seen` and `now` are aligned mappings (perhaps identical), or
/// are not identical. Aligned mappings are compared key by key and their differing values
/// synced as they are found; anything else that differs is compared by [`compare`] and
/// then synced.
fn compare_sync(
    at: &mut FieldPath,
    seen: &mut Node,
    now: &Node,
    out: &mut Out,
    reordered: &mut bool,
) {
    match (seen, now) {
        (Node::Map(s), Node::Map(n)) if maps_aligned(s, n) => {
            compare_sync_maps(at, s, n, out, reordered);
        }
        (seen, now) => compare_sync_differing(at, seen, now, out, reordered),
    }
}

/// [`compare_sync`] of two aligned mappings. An aligned value is gone into without
/// comparing it whole first: that comparison stops at the first change, and going in
/// compared the part before it again, once for every level above the change.
fn compare_sync_maps(
    at: &mut FieldPath,
    seen: &mut crate::yaml::Map,
    now: &crate::yaml::Map,
    out: &mut Out,
    reordered: &mut bool,
) {
    compare_sync_maps_along(at, seen, now, None, out, reordered);
}

/// [`compare_sync_maps`] of the keys that `paths` (each starting with a key) go through,
/// or of every key (`None`); a key where a path ends is compared whole.
fn compare_sync_maps_along(
    at: &mut FieldPath,
    seen: &mut crate::yaml::Map,
    now: &crate::yaml::Map,
    paths: Option<&[&[Str]]>,
    out: &mut Out,
    reordered: &mut bool,
) {
    let mut below: Vec<&[Str]> = Vec::new();
    for ((k, sv), (_, nv)) in seen.iter_mut().zip(now.iter()) {
        // What of the value to go into: every key (`None`), or the paths going on below.
        let deeper = match paths {
            None => None,
            Some(paths) => {
                below.clear();
                let mut whole = false;
                for p in paths {
                    if let [first, rest @ ..] = p
                        && first == k
                    {
                        match rest {
                            [] => whole = true,
                            _ => below.push(rest),
                        }
                    }
                }
                if !whole && below.is_empty() {
                    continue;
                }
                (!whole).then_some(below.as_slice())
            }
        };
        if let (Node::Map(s), Node::Map(n)) = (&mut *sv, nv)
            && maps_aligned(s, n)
        {
            at.0.push(Part::Key(k.clone()));
            compare_sync_maps_along(at, s, n, deeper, out, reordered);
            at.0.pop();
        } else if !identical(sv, nv) {
            at.0.push(Part::Key(k.clone()));
            compare_sync_differing(at, sv, nv, out, reordered);
            at.0.pop();
        }
    }
}

/// [`compare_sync`] of values that are not identical (and not aligned mappings): maybe
/// equal, with keys in another order, else compared and synced.
fn compare_sync_differing(
    at: &mut FieldPath,
    seen: &mut Node,
    now: &Node,
    out: &mut Out,
    reordered: &mut bool,
) {
    if *seen == *now {
        *reordered = true;
        return;
    }
    compare(at, Some(seen), Some(now), out);
    sync(seen, now);
}

/// Makes `seen` (a resource as a record last saw it) the same as `now`, keys in `now`'s
/// order included, copying only what differs: after a step changed a few fields of a
/// resource, those, not the whole resource. A mapping whose keys differ (or are in
/// another order) or a list of another length is copied whole. One pass: each node is
/// looked at once (comparing each subtree before going into it looked at a node once
/// for every mapping above it that held a change).
pub(crate) fn sync(seen: &mut Node, now: &Node) {
    match (&mut *seen, now) {
        (Node::Map(s), Node::Map(n)) if s.len() == n.len() && s.keys().eq(n.keys()) => {
            for (sv, (_, nv)) in s.values_mut().zip(n.iter()) {
                sync(sv, nv);
            }
        }
        (Node::Seq(s), Node::Seq(n)) if s.len() == n.len() => {
            for (sv, nv) in s.iter_mut().zip(n) {
                sync(sv, nv);
            }
        }
        (seen, now) => {
            if !identical(seen, now) {
                *seen = now.clone();
            }
        }
    }
}

/// Equal, with mapping keys in the same order (`==` on mappings ignores their order).
fn identical(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Map(a), Node::Map(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|((k, v), (l, w))| k == l && identical(v, w))
        }
        (Node::Seq(a), Node::Seq(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(v, w)| identical(v, w))
        }
        (a, b) => a == b,
    }
}

// The path is one stack, pushed and popped on the way down, and copied only for a leaf
// that changed: a step changes few fields of a resource, and most of the comparison is
// of equal subtrees, which `==` settles without building a path (recording a build
// compares every resource after every step). Each pair of values is compared with `==`
// once, by the mapping or list holding them (see `differ`), not again at each level
// above a change.
fn compare(at: &mut FieldPath, before: Option<&Node>, after: Option<&Node>, out: &mut Out) {
    match (before, after) {
        (Some(Node::Map(b)), Some(Node::Map(a)))
            if !(b.is_empty() || a.is_empty()) && b.len() == a.len() && b.keys().eq(a.keys()) =>
        {
            // The same keys in the same order, as after nearly every step: pairwise.
            for ((k, bv), (_, av)) in b.iter().zip(a.iter()) {
                if bv != av {
                    at.0.push(Part::Key(k.clone()));
                    compare(at, Some(bv), Some(av), out);
                    at.0.pop();
                }
            }
        }
        (Some(Node::Map(b)), Some(Node::Map(a))) if !(b.is_empty() || a.is_empty()) => {
            for (k, bv) in b.iter() {
                match a.get(k) {
                    Some(av) => differ(at, &Part::Key(k.clone()), bv, av, out),
                    None => {
                        at.0.push(Part::Key(k.clone()));
                        compare(at, Some(bv), None, out);
                        at.0.pop();
                    }
                }
            }
            for (k, av) in a.iter() {
                if b.get(k).is_none() {
                    at.0.push(Part::Key(k.clone()));
                    compare(at, None, Some(av), out);
                    at.0.pop();
                }
            }
        }
        (Some(Node::Seq(b)), Some(Node::Seq(a))) if !(b.is_empty() || a.is_empty()) => {
            let (bp, ap) = (element_parts(b), element_parts(a));
            if let Some(pairs) = moved(&bp, &ap, b, a) {
                compare_moved(at, b, a, &pairs, out);
                return;
            }
            // Elements of `a` paired with a renamed element of `b`.
            let mut paired = vec![false; a.len()];
            for (i, (part, bv)) in bp.iter().zip(b).enumerate() {
                if let Some(j) = ap.iter().position(|p| p == part) {
                    differ(at, part, bv, &a[j], out);
                    continue;
                }
                // Gone under its old name: renamed in place, or removed.
                let new_part = ap.get(i).filter(|p| {
                    matches!((part, p), (Part::Entry(..), Part::Entry(..))) && !bp.contains(p)
                });
                match new_part {
                    Some(new_part) if renamed(bv, &a[i]) => {
                        paired[i] = true;
                        let mut from = at.clone();
                        from.0.push(part.clone());
                        at.0.push(new_part.clone());
                        out.renames.push(Rename {
                            from,
                            to: at.clone(),
                        });
                        if bv != &a[i] {
                            compare(at, Some(bv), Some(&a[i]), out);
                        }
                        at.0.pop();
                    }
                    _ => {
                        at.0.push(part.clone());
                        compare(at, Some(bv), None, out);
                        at.0.pop();
                    }
                }
            }
            for ((part, av), paired) in ap.iter().zip(a).zip(paired) {
                if !paired && !bp.contains(part) {
                    at.0.push(part.clone());
                    compare(at, None, Some(av), out);
                    at.0.pop();
                }
            }
        }
        (Some(b), Some(a)) if is_leaf(b) && is_leaf(a) => {
            if b == a {
                // (Checked by the caller mostly; cheap for leaves.)
                return;
            }
            out.push(Change {
                path: at.clone(),
                before: Some(short_text(b)),
                after: Some(short_text(a)),
            });
        }
        // A leaf became a collection or the other way round, or one side is missing:
        // every leaf of the old value is removed and every leaf of the new one set.
        (b, a) => {
            if let Some(b) = b {
                collect(at, b, &mut |path, leaf| {
                    out.push(Change {
                        path: path.clone(),
                        before: Some(short_text(leaf)),
                        after: None,
                    });
                });
            }
            // (The two sides' leaves never share a path: both leaves is the arm above.)
            if let Some(a) = a {
                collect(at, a, &mut |path, leaf| {
                    out.push(Change {
                        path: path.clone(),
                        before: None,
                        after: Some(short_text(leaf)),
                    });
                });
            }
        }
    }
}

/// Compares `b` and `a`, the values at `part` below `at`, when they differ.
fn differ(at: &mut FieldPath, part: &Part, b: &Node, a: &Node, out: &mut Out) {
    if b != a {
        at.0.push(part.clone());
        compare(at, Some(b), Some(a), out);
        at.0.pop();
    }
}

/// For lists named by index (no distinct `name`s), where each element of `b` went in
/// `a`, when a merge key identifies the elements of both and one of them moved (a patch
/// that adds a port before the one already there): `None` when they are to be compared
/// by index.
fn moved(bp: &[Part], ap: &[Part], b: &[Node], a: &[Node]) -> Option<Vec<Option<usize>>> {
    let by_index = |parts: &[Part]| parts.iter().all(|p| matches!(p, Part::Index(_)));
    if !(by_index(bp) && by_index(ap)) {
        return None;
    }
    let key = MERGE_KEYS.iter().find(|key| {
        let values = |items: &[Node]| -> Option<Vec<String>> {
            let mut v: Vec<String> = items
                .iter()
                .map(|item| item.get(key).and_then(Node::scalar_string))
                .collect::<Option<_>>()?;
            v.sort_unstable();
            let n = v.len();
            v.dedup();
            (v.len() == n).then_some(v)
        };
        values(b).is_some() && values(a).is_some()
    })?;
    let value = |item: &Node| item.get(key).and_then(Node::scalar_string);
    let pairs: Vec<Option<usize>> = b
        .iter()
        .map(|bv| {
            let v = value(bv);
            a.iter().position(|av| value(av) == v)
        })
        .collect();
    pairs
        .iter()
        .enumerate()
        .any(|(i, j)| j.is_some_and(|j| j != i))
        .then_some(pairs)
}

/// Compares lists whose elements [`moved`] paired: a moved element is renamed from its
/// old index to its new one, and compared there.
fn compare_moved(
    at: &mut FieldPath,
    b: &[Node],
    a: &[Node],
    pairs: &[Option<usize>],
    out: &mut Out,
) {
    let mut paired = vec![false; a.len()];
    for (i, (bv, j)) in b.iter().zip(pairs).enumerate() {
        match *j {
            Some(j) => {
                paired[j] = true;
                if i != j {
                    let mut from = at.clone();
                    from.0.push(Part::Index(i));
                    let mut to = at.clone();
                    to.0.push(Part::Index(j));
                    out.renames.push(Rename { from, to });
                }
                differ(at, &Part::Index(j), bv, &a[j], out);
            }
            None => {
                at.0.push(Part::Index(i));
                compare(at, Some(bv), None, out);
                at.0.pop();
            }
        }
    }
    for (j, av) in a.iter().enumerate() {
        if !paired[j] {
            at.0.push(Part::Index(j));
            compare(at, None, Some(av), out);
            at.0.pop();
        }
    }
}

/// Calls `f` with every leaf of `node` and its path.
pub(super) fn collect(at: &mut FieldPath, node: &Node, f: &mut dyn FnMut(&FieldPath, &Node)) {
    match node {
        Node::Map(m) if !m.is_empty() => {
            for (k, v) in m.iter() {
                at.0.push(Part::Key(k.clone()));
                collect(at, v, f);
                at.0.pop();
            }
        }
        Node::Seq(items) if !items.is_empty() => {
            for (part, v) in element_parts(items).into_iter().zip(items) {
                at.0.push(part);
                collect(at, v, f);
                at.0.pop();
            }
        }
        leaf => f(at, leaf),
    }
}

pub(super) fn is_leaf(node: &Node) -> bool {
    match node {
        Node::Map(m) => m.is_empty(),
        Node::Seq(items) => items.is_empty(),
        _ => true,
    }
}

/// [`text`] as a record keeps it (a string's own, not copied when short).
pub(crate) fn short_text(node: &Node) -> Str {
    match node {
        Node::Str(s) => s.clone(),
        other => Str::from(text(other)),
    }
}

/// A leaf's value as `explain` prints it: a string as itself, other scalars as YAML writes
/// them, an empty mapping or list as `{}` or `[]`.
pub fn text(node: &Node) -> String {
    match node {
        Node::Null => "null".into(),
        Node::Bool(b) => b.to_string(),
        Node::Int(i) => i.to_string(),
        Node::Uint(u) => u.to_string(),
        Node::Float(f) => crate::yaml::emit::format_float_g(*f),
        // `String::from`: a `CompactString`'s `to_string()` runs through `Display`.
        Node::Str(s) => String::from(s.as_str()),
        Node::Seq(_) => "[]".into(),
        Node::Map(_) => "{}".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Node {
        crate::yaml::parse::parse_document(text, "t").expect("yaml")
    }

    fn show(changes: &[Change]) -> Vec<String> {
        changes
            .iter()
            .map(|c| {
                format!(
                    "{} {} -> {}",
                    c.path,
                    c.before.as_deref().unwrap_or("-"),
                    c.after.as_deref().unwrap_or("-")
                )
            })
            .collect()
    }

    #[test]
    fn finds_set_changed_and_removed_leaves() {
        let before = doc("a: 1\nb: {c: x, d: w}\nl: [1, 2]\n");
        let after = doc("a: 2\nb: {c: x}\nl: [1, 2, 3]\ne: {}\n");
        assert_eq!(
            show(&changes(&before, &after)),
            ["a 1 -> 2", "b.d w -> -", "l.2 - -> 3", "e - -> {}"]
        );
    }

    #[test]
    fn follows_named_elements_across_insertions() {
        let before = doc("c:\n- name: web\n  image: a\n");
        let after = doc("c:\n- name: side\n  image: s\n- name: web\n  image: b\n");
        assert_eq!(
            show(&changes(&before, &after)),
            [
                "c.[name=web].image a -> b",
                "c.[name=side].name - -> side",
                "c.[name=side].image - -> s"
            ]
        );
    }

    #[test]
    fn follows_an_element_renamed_in_place() {
        let before = doc("s:\n- kind: ServiceAccount\n  name: sa\n");
        let after = doc("s:\n- kind: ServiceAccount\n  name: prod-sa\n  namespace: ns\n");
        let (changes, renames) = changes_renaming(&before, &after);
        assert_eq!(
            show(&changes),
            [
                "s.[name=prod-sa].name sa -> prod-sa",
                "s.[name=prod-sa].namespace - -> ns"
            ]
        );
        assert_eq!(renames.len(), 1);
        assert_eq!(renames[0].from.to_string(), "s.[name=sa]");
        assert_eq!(renames[0].to.to_string(), "s.[name=prod-sa]");
        // Moved to another namespace as well: still the same element.
        let moved = doc("s:\n- kind: ServiceAccount\n  name: p-sa\n  namespace: other\n");
        let (_, renames) = changes_renaming(&after, &moved);
        assert_eq!(renames.len(), 1);
        // Another element in its place is a removal and an addition.
        let other = doc("s:\n- kind: User\n  name: alice\n");
        let (changes, renames) = changes_renaming(&before, &other);
        assert!(renames.is_empty());
        assert_eq!(changes.len(), 4);
    }

    #[test]
    fn follows_elements_a_merge_key_names_when_they_move() {
        // A patch adds a port before the one a Service had: that one moved, unchanged.
        let before = doc("ports:\n- port: 80\n  protocol: TCP\n");
        let after = doc("ports:\n- port: 443\n- port: 80\n  protocol: TCP\n");
        let (changes, renames) = changes_renaming(&before, &after);
        assert_eq!(show(&changes), ["ports.0.port - -> 443"]);
        assert_eq!(renames.len(), 1);
        assert_eq!(renames[0].from.to_string(), "ports.0");
        assert_eq!(renames[0].to.to_string(), "ports.1");
        // Without a key every element has, by position.
        let unkeyed = doc("ports:\n- port: 443\n- protocol: TCP\n");
        let (changes, renames) = changes_renaming(&before, &unkeyed);
        assert!(renames.is_empty());
        assert_eq!(changes[0].path.to_string(), "ports.0.port");
    }

    #[test]
    fn sync_makes_the_seen_copy_identical() {
        let mut seen = doc("a: 1\nb: {c: x, d: w}\nl: [1, 2]\nm: {p: 1, q: 2}\n");
        let now = doc("a: 2\nb: {c: x, d: v}\nl: [1, 2, 3]\nm: {q: 2, p: 1}\n");
        sync(&mut seen, &now);
        assert!(identical(&seen, &now));
        let keys: Vec<String> = match seen.get("m") {
            Some(Node::Map(m)) => m.keys().map(ToString::to_string).collect(),
            _ => Vec::new(),
        };
        assert_eq!(keys, ["q", "p"]);
    }

    #[test]
    fn a_collection_replaced_by_a_scalar_is_removal_and_set() {
        let before = doc("a: {b: 1}\n");
        let after = doc("a: 5\n");
        assert_eq!(show(&changes(&before, &after)), ["a.b 1 -> -", "a - -> 5"]);
        assert!(changes(&before, &before).is_empty());
    }

    #[test]
    fn comparing_along_written_paths_finds_what_comparing_all_finds() {
        let keys = |keys: &[&str]| keys.iter().map(|k| Str::from(*k)).collect::<KeyPath>();
        let before = "metadata:\n  name: a\n  labels: {x: '1'}\nspec:\n  selector: {matchLabels: {x: '1'}}\n  template:\n    metadata: {labels: {x: '1'}}\n    spec:\n      containers:\n      - {name: web, image: a}\n";
        // Each case: what the step left, and the paths it wrote along (everything it
        // changed is on them, as `Resource::node_mut_within` requires).
        let cases: &[(&str, Vec<KeyPath>)] = &[
            // A label changed and one added, in two mappings.
            (
                "metadata:\n  name: a\n  labels: {x: '2', y: n}\nspec:\n  selector: {matchLabels: {x: '2'}}\n  template:\n    metadata: {labels: {x: '1'}}\n    spec:\n      containers:\n      - {name: web, image: a}\n",
                vec![
                    keys(&["metadata", "labels"]),
                    keys(&["spec", "selector", "matchLabels"]),
                ],
            ),
            // A mapping made on the way (`annotations`), and a written field left as it was.
            (
                "metadata:\n  name: a\n  labels: {x: '1'}\nspec:\n  selector: {matchLabels: {x: '1'}}\n  template:\n    metadata: {labels: {x: '1'}, annotations: {a: b}}\n    spec:\n      containers:\n      - {name: web, image: a}\n",
                vec![
                    keys(&["spec", "template", "metadata", "annotations"]),
                    keys(&["metadata", "labels"]),
                ],
            ),
            // A path through a list: the list is compared whole.
            (
                "metadata:\n  name: a\n  labels: {x: '1'}\nspec:\n  selector: {matchLabels: {x: '1'}}\n  template:\n    metadata: {labels: {x: '1'}}\n    spec:\n      containers:\n      - {name: web, image: b}\n",
                vec![keys(&["spec", "template", "spec", "containers", "image"])],
            ),
            // The name, a scalar at the end of its path.
            (
                "metadata:\n  name: p-a\n  labels: {x: '1'}\nspec:\n  selector: {matchLabels: {x: '1'}}\n  template:\n    metadata: {labels: {x: '1'}}\n    spec:\n      containers:\n      - {name: web, image: a}\n",
                vec![keys(&["metadata", "name"])],
            ),
            // A key made at the top: everything is compared.
            (
                "metadata:\n  name: a\n  labels: {x: '1'}\n  namespace: n\nspec:\n  selector: {matchLabels: {x: '1'}}\n  template:\n    metadata: {labels: {x: '1'}}\n    spec:\n      containers:\n      - {name: web, image: a}\nstatus: {}\n",
                vec![keys(&["status"]), keys(&["metadata", "namespace"])],
            ),
        ];
        for (after, within) in cases {
            let after = doc(after);
            let mut all = doc(before);
            let mut along = doc(before);
            let expected = changes_syncing(&mut all, &after);
            let got = changes_syncing_within(&mut along, &after, within);
            assert!(!expected.0.is_empty());
            assert_eq!(show(&got.0), show(&expected.0));
            assert_eq!(got.1, expected.1);
            assert_eq!(got.2, expected.2);
            // The record's copy is brought up to date the same way.
            assert!(identical(&along, &all) && identical(&along, &after));
        }
    }
}
