//! Merging associative lists (lists whose elements pair up by merge keys, or lists of
//! scalars merged as sets) exactly as kyaml's walker does for kustomize.
//!
//! kyaml's algorithm, which kbuild follows step by step because its quirks show in
//! `kubectl kustomize` output:
//!
//! 1. Collect the key values of every element, patch first when new elements are prepended
//!    (kustomize's setting), destination first when appended; drop repeats. An element
//!    without a key has the empty value. With several keys (Service and container ports:
//!    `port`/`containerPort` and `protocol`), two value lists that agree where both are set
//!    are unified ("mergeValues"), so a port without protocol pairs with one that has it.
//! 2. For each value, find the first destination and the first patch element that match it
//!    exactly and merge them. A result of nothing (`$patch: delete`, or no element matched)
//!    deletes every destination element the value matches, where an empty value matches any
//!    element that has the key at all; so a patch element without a merge key wipes the named
//!    destination elements. Other results are collected, in order.
//! 3. Combine the collected elements with what is left of the destination, setting each
//!    destination element by its keys: prepending keeps the collected order and puts the
//!    destination's own node back in place of its merge result (so a `$patch: replace` on a
//!    list element has no effect, and of two destination elements with the same key the last
//!    one wins); appending keeps the destination order and appends new elements. An element
//!    without a key wipes the list around it. Setting an element also drops null and empty
//!    elements.
//!
//! The general version below follows these steps on an arena, where an element that is both
//! in the destination and in the collected results is one node, as in kyaml. A fast version
//! handles the usual lists (one key, every element a mapping with a distinct, non-empty key;
//! or scalars) in linear time with hash indexes; both give the same results (tested).

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;

use crate::error::Error;
use crate::openapi::TypeRef;
use crate::yaml::Node;
use crate::yaml::map::Key;

use super::smp::{ListIncrease, Outcome, Walker};

/// The patch side of a list merge.
pub(super) enum PatchList<'p> {
    /// The patch has no such list: the destination is walked on its own.
    Missing,
    /// A patch list distinct from the destination.
    Separate(&'p mut Vec<Node>),
    /// The destination *is* the patch (kyaml merges a patch list with itself when the
    /// destination had none, or the patch replaces it).
    SameAsDest,
}

/// The text of a scalar as kyaml compares it (a YAML node's `Value`): mappings and
/// sequences have none.
pub(super) fn scalar_text(node: &Node) -> Cow<'_, str> {
    match node {
        Node::Str(s) => Cow::Borrowed(s),
        Node::Int(i) => Cow::Owned(i.to_string()),
        Node::Uint(u) => Cow::Owned(u.to_string()),
        Node::Float(f) => Cow::Owned(crate::yaml::emit::format_float(*f)),
        Node::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Node::Null => Cow::Borrowed("null"),
        Node::Seq(_) | Node::Map(_) => Cow::Borrowed(""),
    }
}

/// A key's value in an element, as kyaml lists them: empty for a missing, null or empty
/// field, and for elements that are not mappings.
fn key_value<'n>(element: &'n Node, key: &str) -> Cow<'n, str> {
    match element.get(key) {
        None | Some(Node::Null) => Cow::Borrowed(""),
        Some(Node::Map(m)) if m.is_empty() => Cow::Borrowed(""),
        Some(Node::Seq(s)) if s.is_empty() => Cow::Borrowed(""),
        Some(v) => scalar_text(v),
    }
}

fn is_null_or_empty_map(node: &Node) -> bool {
    match node {
        Node::Null => true,
        Node::Map(m) => m.is_empty(),
        _ => false,
    }
}

fn wrong_kind(expected: &str, node: &Node) -> Error {
    Error::msg(format!(
        "wrong node kind: expected {expected} but got {}",
        node.type_name()
    ))
}

/// kyaml's field matcher: does `element` have field `name` (with text `value`, unless
/// `value` is empty)? With an empty name it compares a scalar element itself.
fn field_matches(element: &Node, name: &str, value: &str) -> Result<bool, Error> {
    match element {
        Node::Null => Ok(false),
        Node::Map(m) if !name.is_empty() => Ok(m
            .get(name)
            .is_some_and(|v| value.is_empty() || scalar_text(v) == value)),
        Node::Map(_) | Node::Seq(_) if name.is_empty() => Err(wrong_kind("scalar", element)),
        _ if name.is_empty() => Ok(scalar_text(element) == value),
        _ => Err(wrong_kind("mapping", element)),
    }
}

/// kyaml's `ElementSetter`: replaces every element that matches all key/value pairs with
/// `element` (deletes them when there is none), appends `element` when nothing matched, and
/// drops null and empty-mapping elements on the way. A value list shorter than the key list
/// checks only its length's worth of keys; an empty one matches nothing and keeps nothing.
pub(super) struct ElementSetter<'a> {
    pub(super) keys: &'a [&'a str],
    pub(super) values: &'a [&'a str],
}

impl ElementSetter<'_> {
    fn is_mapping_setter(&self) -> bool {
        self.keys.first().is_some_and(|k| !k.is_empty())
            && self.values.first().is_some_and(|v| !v.is_empty())
    }

    fn matches(&self, element: &Node) -> Result<bool, Error> {
        let mut found = false;
        for j in 0..self.keys.len() {
            if let Some(value) = self.values.get(j) {
                found = field_matches(element, self.keys[j], value)?;
            }
            if !found {
                return Ok(false);
            }
        }
        Ok(found)
    }

    /// Sets (or with `None`, deletes) an element of a list of handles; `nodes` resolves them.
    fn set<T: Clone>(
        &self,
        list: &mut Vec<T>,
        element: Option<T>,
        nodes: &impl Resolve<T>,
    ) -> Result<(), Error> {
        let mut kept = Vec::with_capacity(list.len() + 1);
        let mut found_any = false;
        for e in list.drain(..) {
            let n = nodes.node(&e);
            if is_null_or_empty_map(n) {
                continue;
            }
            if !matches!(n, Node::Map(_)) && self.is_mapping_setter() {
                kept.push(e);
                continue;
            }
            if !self.matches(n)? {
                if !self.values.is_empty() {
                    kept.push(e);
                }
                continue;
            }
            found_any = true;
            if let Some(element) = &element {
                kept.push(element.clone());
            }
        }
        *list = kept;
        if let Some(element) = element.filter(|e| !found_any && !nodes.node(e).is_null()) {
            list.push(element);
        }
        Ok(())
    }

    /// Deletes the matching elements of a list of nodes.
    pub(super) fn delete(&self, list: &mut Vec<Node>) -> Result<(), Error> {
        self.set(list, None, &Direct)
    }
}

/// How the element setter gets from a list entry to its node.
trait Resolve<T> {
    fn node<'x>(&'x self, entry: &'x T) -> &'x Node;
}

/// Entries are the nodes.
struct Direct;

impl Resolve<Node> for Direct {
    fn node<'x>(&'x self, entry: &'x Node) -> &'x Node {
        entry
    }
}

/// Entries are indexes into an arena.
struct InArena<'n>(&'n [Node]);

impl Resolve<usize> for InArena<'_> {
    fn node<'x>(&'x self, entry: &'x usize) -> &'x Node {
        &self.0[*entry]
    }
}

/// Parses a key value the way YAML reads an untagged plain scalar, for the key kyaml sets
/// on a merged element that lacks it.
fn plain_scalar(text: &str) -> Node {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Node::Null,
        "true" | "True" | "TRUE" => return Node::Bool(true),
        "false" | "False" | "FALSE" => return Node::Bool(false),
        _ => {}
    }
    if let Ok(i) = text.parse::<i64>() {
        return Node::Int(i);
    }
    let numeric = text
        .bytes()
        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
    match text.parse::<f64>() {
        Ok(f) if numeric && text.bytes().any(|b| b.is_ascii_digit()) => Node::Float(f),
        _ => Node::text(text.to_string()),
    }
}

#[cfg(test)]
thread_local! {
    /// Makes every list take the general algorithm (tests compare it with the fast paths).
    pub(super) static FORCE_GENERAL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Merges `patch` into the associative list `dest` by `keys` (`[""]` for a list of scalars).
pub(super) fn merge<'s>(
    walker: &mut Walker<'_, 's>,
    dest: &mut Vec<Node>,
    patch: PatchList<'_>,
    keys: &[&str],
    schema: Option<TypeRef<'s>>,
) -> Result<(), Error> {
    let primitive = keys == [""];
    if let PatchList::Missing = patch {
        if primitive && distinct_strings(dest) {
            // Nothing to merge and nothing to collapse: the list stays as it is.
            return Ok(());
        }
        if let Some(first_key) = untouched_is_identity(dest, keys) {
            #[cfg(test)]
            let general = FORCE_GENERAL.with(|f| f.get());
            #[cfg(not(test))]
            let general = false;
            if !general {
                // Every element pairs with itself alone and keeps its place (both of
                // kyaml's list walks come to that here); only the elements are walked.
                for element in dest.iter_mut().filter(|e| super::smp::needs_walk(e)) {
                    let value = element.get(first_key).map(scalar_text).unwrap_or_default();
                    walker.push_element(first_key, &value);
                    let result = walker.untouched(element, schema);
                    walker.pop();
                    result?;
                }
                return Ok(());
            }
        }
    }
    let patch_nodes = match &patch {
        PatchList::Separate(p) => Some(p.as_slice()),
        _ => None,
    };
    #[cfg(test)]
    let general = FORCE_GENERAL.with(|f| f.get());
    #[cfg(not(test))]
    let general = false;
    if primitive {
        if !general && all_scalars(dest) && patch_nodes.is_none_or(all_scalars) {
            return merge_scalars(walker, dest, patch, schema);
        }
    } else if keys.len() == 1 && !general {
        let key_texts = |list| key_texts(list, keys[0]);
        if let Some(dest_keys) = key_texts(dest)
            && let Some(patch_keys) = patch_nodes.map_or(Some(Vec::new()), key_texts)
            && let Some(dest_index) = KeyIndex::new(&dest_keys)
            && let Some(patch_index) = KeyIndex::new(&patch_keys)
        {
            let keyed = Keyed {
                key: keys[0],
                dest: &dest_keys,
                patch: &patch_keys,
                dest_index,
                patch_index,
            };
            return merge_keyed(walker, dest, patch, keyed, schema);
        }
    }
    General::new(walker, dest, patch, keys, schema).run()
}

/// Whether a list holds only strings, all different.
fn distinct_strings(list: &[Node]) -> bool {
    let mut texts = Vec::with_capacity(list.len());
    for node in list {
        let Node::Str(s) = node else { return false };
        texts.push(s.as_str());
    }
    all_distinct(&mut texts)
}

/// Whether no two entries are equal (sorts them).
fn all_distinct<T: Ord>(items: &mut [T]) -> bool {
    items.sort_unstable();
    items.windows(2).all(|w| w[0] != w[1])
}

/// For a destination list the patch does not reach: whether kyaml's list merge leaves it as
/// it is (apart from walking each element), and if so the merge key it names elements by
/// in error paths. That holds when the keys that have a value somewhere (kyaml's "valid
/// keys") have a non-empty scalar value in every element, every element is a mapping, and
/// no two elements have the same values: then each value pairs with exactly its own
/// element, no values unify, and nothing is deleted, collapsed or moved.
fn untouched_is_identity<'k>(list: &[Node], keys: &[&'k str]) -> Option<&'k str> {
    if keys.is_empty() || keys.iter().any(|k| k.is_empty()) {
        return None;
    }
    // Each element's values of the keys, row by row, looked up once.
    let width = keys.len();
    let mut values: Vec<Option<&Node>> = Vec::with_capacity(list.len() * width);
    for node in list {
        let m = node.as_map()?;
        values.extend(keys.iter().map(|k| m.get(k).filter(|v| is_key_scalar(v))));
    }
    let valid: Vec<usize> = (0..width)
        .filter(|&i| values.iter().skip(i).step_by(width).any(Option::is_some))
        .collect();
    let first = keys[*valid.first()?];
    let row = |j: usize| &values[j * width..(j + 1) * width];
    let rows = list.len();
    if !values
        .chunks(width)
        .all(|row| valid.iter().all(|&i| row[i].is_some()))
    {
        return None;
    }
    let same = |a: &[Option<&Node>], b: &[Option<&Node>]| {
        valid.iter().all(|&i| match (a[i], b[i]) {
            (Some(x), Some(y)) => same_text(x, y),
            _ => false,
        })
    };
    let distinct = if rows <= 16 {
        (1..rows).all(|j| (0..j).all(|i| !same(row(i), row(j))))
    } else {
        let mut tuples: Vec<Vec<Cow<'_, str>>> = values
            .chunks(width)
            .map(|row| {
                valid
                    .iter()
                    .map(|&i| row[i].map(scalar_text).unwrap_or_default())
                    .collect()
            })
            .collect();
        all_distinct(&mut tuples)
    };
    distinct.then_some(first)
}

/// A merge key value that names an element: a scalar with a non-empty text (what
/// [`key_value`] reads as non-empty).
fn is_key_scalar(value: &Node) -> bool {
    match value {
        Node::Str(s) => !s.is_empty(),
        Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_) => true,
        Node::Null | Node::Map(_) | Node::Seq(_) => false,
    }
}

/// Whether two scalars have the same text as kyaml compares them.
fn same_text(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Str(x), Node::Str(y)) => x == y,
        (Node::Int(x), Node::Int(y)) => x == y,
        _ => scalar_text(a) == scalar_text(b),
    }
}

fn all_scalars(list: &[Node]) -> bool {
    list.iter().all(|n| {
        matches!(
            n,
            Node::Str(_) | Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_)
        )
    })
}

/// The key texts of a list whose elements are all mappings with a non-empty scalar key;
/// `None` for any other list.
fn key_texts(list: &[Node], key: &str) -> Option<Vec<Key>> {
    let mut texts: Vec<Key> = Vec::with_capacity(list.len());
    for element in list {
        let value = element.get(key)?;
        let text = match value {
            Node::Map(_) | Node::Seq(_) | Node::Null => return None,
            Node::Str(s) => s.clone(),
            v => Key::from(scalar_text(v).as_ref()),
        };
        if text.is_empty() {
            return None;
        }
        texts.push(text);
    }
    Some(texts)
}

/// Finds a key text among distinct ones: by scanning when there are few, else hashed.
struct KeyIndex<'k> {
    keys: &'k [Key],
    hashed: Option<HashMap<&'k str, usize>>,
}

impl<'k> KeyIndex<'k> {
    /// `None` when two keys are equal.
    fn new(keys: &'k [Key]) -> Option<KeyIndex<'k>> {
        if keys.len() <= 16 {
            let distinct = (1..keys.len()).all(|j| !keys[..j].contains(&keys[j]));
            return distinct.then_some(KeyIndex { keys, hashed: None });
        }
        let mut map = HashMap::with_capacity(keys.len());
        for (i, k) in keys.iter().enumerate() {
            if map.insert(k.as_str(), i).is_some() {
                return None;
            }
        }
        Some(KeyIndex {
            keys,
            hashed: Some(map),
        })
    }

    fn get(&self, value: &str) -> Option<usize> {
        match &self.hashed {
            Some(map) => map.get(value).copied(),
            None => self.keys.iter().position(|k| k == value),
        }
    }
}

/// Where a merged element comes from.
#[derive(Clone)]
enum Source {
    Dest(usize),
    Patch(usize),
    New(Node),
}

/// The values to visit, in kyaml's order: patch first when prepending.
fn visit_order<'v>(
    increase: ListIncrease,
    dest: &[Cow<'v, str>],
    patch: &[Cow<'v, str>],
) -> Vec<Cow<'v, str>> {
    let (first, second) = match increase {
        ListIncrease::Prepend => (patch, dest),
        ListIncrease::Append => (dest, patch),
    };
    let mut seen: HashSet<&str> = HashSet::with_capacity(first.len() + second.len());
    let mut order = Vec::with_capacity(first.len() + second.len());
    for v in first.iter().chain(second) {
        if seen.insert(v) {
            order.push(v.clone());
        }
    }
    order
}

fn borrowed(texts: &[String]) -> Vec<Cow<'_, str>> {
    texts.iter().map(|t| Cow::Borrowed(t.as_str())).collect()
}

/// Walks one destination/patch element pair: `Some` source of the result, `None` to delete.
fn walk_pair<'s>(
    walker: &mut Walker<'_, 's>,
    dest: &mut [Node],
    patch: &mut PatchList<'_>,
    d: Option<usize>,
    p: Option<usize>,
    schema: Option<TypeRef<'s>>,
) -> Result<Option<Source>, Error> {
    if let PatchList::SameAsDest = patch {
        // The element is merged with itself.
        let Some(i) = d else { return Ok(None) };
        return Ok(match walker.normalize(&mut dest[i], schema)? {
            Outcome::Clear => None,
            _ => Some(Source::Dest(i)),
        });
    }
    let patch_node = match (patch, p) {
        (PatchList::Separate(list), Some(j)) => Some(&mut list[j]),
        _ => None,
    };
    let outcome = walker.walk(d.map(|i| &mut dest[i]), patch_node, schema)?;
    Ok(match outcome {
        Outcome::Clear => None,
        Outcome::Keep => d.map(Source::Dest),
        Outcome::UsePatch => p.map(Source::Patch),
        Outcome::Set(n) => Some(Source::New(n)),
    })
}

/// Builds the merged list. Destination nodes are moved (copied when one stands for several
/// positions); patch nodes are copied, so the patch stays intact for other resources.
fn materialize(sources: Vec<Source>, dest: &mut [Node], patch: &PatchList<'_>) -> Vec<Node> {
    let mut uses = vec![0usize; dest.len()];
    for source in &sources {
        if let Source::Dest(i) = source {
            uses[*i] += 1;
        }
    }
    let mut out = Vec::with_capacity(sources.len());
    for source in sources {
        out.push(match source {
            Source::Dest(i) => {
                uses[i] -= 1;
                if uses[i] == 0 {
                    std::mem::take(&mut dest[i])
                } else {
                    dest[i].clone()
                }
            }
            Source::Patch(j) => match patch {
                PatchList::Separate(list) => list[j].clone(),
                _ => Node::Null,
            },
            Source::New(n) => n,
        });
    }
    out
}

/// The key texts of both lists of a keyed merge, distinct within each list, and their
/// indexes.
struct Keyed<'k> {
    key: &'k str,
    dest: &'k [Key],
    patch: &'k [Key],
    dest_index: KeyIndex<'k>,
    patch_index: KeyIndex<'k>,
}

/// The fast path for lists of mappings with one key, distinct and set in every element.
fn merge_keyed<'s>(
    walker: &mut Walker<'_, 's>,
    dest: &mut Vec<Node>,
    mut patch: PatchList<'_>,
    keyed: Keyed<'_>,
    schema: Option<TypeRef<'s>>,
) -> Result<(), Error> {
    let Keyed {
        key,
        dest: dest_keys,
        patch: patch_keys,
        dest_index,
        patch_index,
    } = keyed;
    // The values to visit, in kyaml's order: patch first when prepending. Keys are distinct
    // within each list, so only the other list's repeats are skipped.
    let mut order: Vec<&str> = Vec::with_capacity(dest_keys.len() + patch_keys.len());
    match walker.list_increase() {
        ListIncrease::Prepend => {
            order.extend(patch_keys.iter().map(Key::as_str));
            order.extend(
                dest_keys
                    .iter()
                    .map(Key::as_str)
                    .filter(|k| patch_index.get(k).is_none()),
            );
        }
        ListIncrease::Append => {
            order.extend(dest_keys.iter().map(Key::as_str));
            order.extend(
                patch_keys
                    .iter()
                    .map(Key::as_str)
                    .filter(|k| dest_index.get(k).is_none()),
            );
        }
    }

    let mut alive = vec![true; dest.len()];
    let mut merged: Vec<(&str, Source)> = Vec::with_capacity(order.len());
    for &value in &order {
        let d = dest_index.get(value);
        let p = patch_index.get(value);
        walker.push_element(key, value);
        let result = walk_pair(walker, dest, &mut patch, d, p, schema);
        walker.pop();
        match result? {
            Some(source) => merged.push((value, source)),
            // Deleting by key removes the destination element of that key.
            None => {
                if let Some(i) = d {
                    alive[i] = false;
                }
            }
        }
    }

    let sources: Vec<Source> = match walker.list_increase() {
        // The collected order; a destination element replaces the result of its key.
        ListIncrease::Prepend => merged
            .into_iter()
            .map(|(k, source)| match dest_index.get(k) {
                Some(i) if alive[i] => Source::Dest(i),
                _ => source,
            })
            .collect(),
        // The destination order with each element replaced by its result, new ones after.
        ListIncrease::Append => {
            let by_key: HashMap<&str, Source> = merged.iter().cloned().collect();
            let mut out: Vec<Source> = (0..dest.len())
                .filter(|&i| alive[i])
                .map(|i| {
                    by_key
                        .get(dest_keys[i].as_str())
                        .cloned()
                        .unwrap_or(Source::Dest(i))
                })
                .collect();
            out.extend(
                merged
                    .into_iter()
                    .filter(|(k, _)| !dest_index.get(k).is_some_and(|i| alive[i]))
                    .map(|(_, s)| s),
            );
            out
        }
    };
    *dest = materialize(sources, dest, &patch);
    Ok(())
}

/// The fast path for lists of scalars (no nulls), merged as ordered sets by their text.
fn merge_scalars<'s>(
    walker: &mut Walker<'_, 's>,
    dest: &mut Vec<Node>,
    mut patch: PatchList<'_>,
    schema: Option<TypeRef<'s>>,
) -> Result<(), Error> {
    let texts = |list: &[Node]| {
        list.iter()
            .map(|n| scalar_text(n).into_owned())
            .collect::<Vec<_>>()
    };
    let dest_texts = texts(dest);
    let patch_texts = match &patch {
        PatchList::Separate(p) => texts(p),
        _ => Vec::new(),
    };
    let first_index = |texts: &[String]| {
        let mut index: HashMap<String, usize> = HashMap::with_capacity(texts.len());
        for (i, t) in texts.iter().enumerate() {
            index.entry(t.clone()).or_insert(i);
        }
        index
    };
    let dest_first = first_index(&dest_texts);
    let patch_first = first_index(&patch_texts);
    let order: Vec<String> = visit_order(
        walker.list_increase(),
        &borrowed(&dest_texts),
        &borrowed(&patch_texts),
    )
    .into_iter()
    .map(Cow::into_owned)
    .collect();

    // Scalars never merge to nothing: the patch's wins, else the destination's.
    let mut merged: Vec<Source> = Vec::with_capacity(order.len());
    for value in &order {
        let d = dest_first.get(value).copied();
        let p = patch_first.get(value).copied();
        let source = walk_pair(walker, dest, &mut patch, d, p, schema)?;
        merged.push(
            source
                .or(d.map(Source::Dest))
                .unwrap_or(Source::New(Node::Null)),
        );
    }
    let sources: Vec<Source> = match walker.list_increase() {
        ListIncrease::Prepend => {
            // The last destination element with a text replaces that text's result.
            let mut last: HashMap<&str, usize> = HashMap::with_capacity(dest_texts.len());
            for (i, t) in dest_texts.iter().enumerate() {
                last.insert(t.as_str(), i);
            }
            merged
                .into_iter()
                .zip(&order)
                .map(|(source, text)| last.get(text.as_str()).map_or(source, |&i| Source::Dest(i)))
                .collect()
        }
        ListIncrease::Append => {
            // Every destination element is replaced by the result of its text.
            let by_text: HashMap<&str, &Source> =
                order.iter().map(String::as_str).zip(&merged).collect();
            let mut out: Vec<Source> = dest_texts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    by_text
                        .get(t.as_str())
                        .map_or(Source::Dest(i), |s| (*s).clone())
                })
                .collect();
            out.extend(
                order
                    .iter()
                    .zip(&merged)
                    .filter(|(t, _)| !dest_first.contains_key(*t))
                    .map(|(_, s)| s.clone()),
            );
            out
        }
    };
    *dest = materialize(sources, dest, &patch);
    Ok(())
}

/// kyaml's algorithm in full, for every other list. Elements live in an arena so that one
/// node can be both a destination element and a collected result.
struct General<'w, 'a, 's, 'p> {
    walker: &'w mut Walker<'a, 's>,
    arena: Vec<Node>,
    dest: Vec<usize>,
    /// The patch elements, `None` when there are none or the patch is the destination.
    patch: Option<Vec<usize>>,
    same: bool,
    patch_out: Option<&'p mut Vec<Node>>,
    out: &'w mut Vec<Node>,
    keys: Vec<String>,
    schema: Option<TypeRef<'s>>,
}

impl<'w, 'a, 's, 'p> General<'w, 'a, 's, 'p> {
    fn new(
        walker: &'w mut Walker<'a, 's>,
        dest: &'w mut Vec<Node>,
        patch: PatchList<'p>,
        keys: &[&str],
        schema: Option<TypeRef<'s>>,
    ) -> Self {
        let mut arena = std::mem::take(dest);
        let dest_ids: Vec<usize> = (0..arena.len()).collect();
        let (patch_ids, same, patch_out) = match patch {
            PatchList::Missing => (None, false, None),
            PatchList::SameAsDest => (None, true, None),
            PatchList::Separate(list) => {
                let start = arena.len();
                arena.append(list);
                (Some((start..arena.len()).collect()), false, Some(list))
            }
        };
        General {
            walker,
            arena,
            dest: dest_ids,
            patch: patch_ids,
            same,
            patch_out,
            out: dest,
            keys: keys.iter().map(|k| k.to_string()).collect(),
            schema,
        }
    }

    fn primitive(&self) -> bool {
        self.keys.len() == 1 && self.keys[0].is_empty()
    }

    /// The lists to read elements from, in visiting order.
    fn sources(&self) -> Vec<&[usize]> {
        let patch: Option<&[usize]> = if self.same {
            Some(&self.dest)
        } else {
            self.patch.as_deref()
        };
        let mut sources = vec![self.dest.as_slice()];
        if let Some(p) = patch {
            match self.walker.list_increase() {
                ListIncrease::Prepend => sources.insert(0, p),
                ListIncrease::Append => sources.push(p),
            }
        }
        sources
    }

    fn values(&self) -> Vec<Vec<String>> {
        let mut seen = HashSet::new();
        let mut values = Vec::new();
        for source in self.sources() {
            for &id in source {
                let node = &self.arena[id];
                let value: Vec<String> = if self.primitive() {
                    vec![scalar_text(node).into_owned()]
                } else {
                    self.keys
                        .iter()
                        .map(|k| key_value(node, k).into_owned())
                        .collect()
                };
                if seen.insert(value.clone()) {
                    values.push(value);
                }
            }
        }
        values
    }

    fn run(mut self) -> Result<(), Error> {
        let mut values = self.values();
        if self.keys.len() > 1 {
            unify_values(&mut values);
        }
        let (valid_keys, positions) = valid_keys(&values, &self.keys);
        let mut items: Vec<usize> = Vec::new();
        for value in &values {
            let valid_values: Vec<&str> = positions.iter().map(|&i| value[i].as_str()).collect();
            self.merge_value(&valid_keys, &valid_values, &mut items)?;
        }
        let result = if values.is_empty() {
            std::mem::take(&mut self.dest)
        } else {
            let keys: Vec<&str> = valid_keys.iter().map(String::as_str).collect();
            match self.walker.list_increase() {
                ListIncrease::Prepend => {
                    let dest = self.dest.clone();
                    self.append_list(&mut items, &dest, &keys)?;
                    items
                }
                ListIncrease::Append => {
                    let mut dest = std::mem::take(&mut self.dest);
                    self.append_list(&mut dest, &items, &keys)?;
                    dest
                }
            }
        };
        self.finish(result);
        Ok(())
    }

    fn merge_value(
        &mut self,
        keys: &[String],
        values: &[&str],
        items: &mut Vec<usize>,
    ) -> Result<(), Error> {
        // Elements are looked up by the keys that have a value (all of them when none has).
        let (lookup_keys, lookup_values): (Vec<&str>, Vec<&str>) = {
            let set: Vec<(&str, &str)> = keys
                .iter()
                .zip(values)
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k.as_str(), *v))
                .collect();
            if set.is_empty() {
                (keys.iter().map(String::as_str).collect(), values.to_vec())
            } else {
                set.into_iter().unzip()
            }
        };
        let d = self.find(&self.dest, &lookup_keys, &lookup_values);
        let p = if self.same {
            d
        } else {
            self.patch
                .as_ref()
                .and_then(|list| self.find(list, &lookup_keys, &lookup_values))
        };
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        self.walker.push_element(
            keys.first().copied().unwrap_or(""),
            values.first().copied().unwrap_or(""),
        );
        let val = self.walk(d, p);
        self.walker.pop();
        let setter = ElementSetter {
            keys: &keys,
            values,
        };
        let Some(val) = val?.filter(|&id| !is_null_or_empty_map(&self.arena[id])) else {
            return setter.set(&mut self.dest, None, &InArena(&self.arena));
        };
        for (key, value) in keys.iter().zip(values) {
            self.ensure_key(val, key, value)?;
        }
        setter.set(items, Some(val), &InArena(&self.arena))
    }

    /// kyaml sets a merge key the merged element lacks.
    fn ensure_key(&mut self, id: usize, key: &str, value: &str) -> Result<(), Error> {
        if value.is_empty() {
            return Ok(());
        }
        match &mut self.arena[id] {
            Node::Map(m) => {
                if !m.contains_key(key) {
                    m.insert(key.to_string(), plain_scalar(value));
                }
                Ok(())
            }
            _ if key.is_empty() => Ok(()),
            other => Err(wrong_kind("mapping", other)),
        }
    }

    /// kyaml's element matcher: the first mapping whose fields have exactly these texts (for
    /// scalar lists, the first element with this text).
    fn find(&self, list: &[usize], keys: &[&str], values: &[&str]) -> Option<usize> {
        list.iter().copied().find(|&id| {
            let node = &self.arena[id];
            if keys.first().is_none_or(|k| k.is_empty()) {
                return values.first().is_some_and(|v| scalar_text(node) == *v);
            }
            let Node::Map(m) = node else { return false };
            keys.iter()
                .zip(values)
                .all(|(k, v)| m.get(k).is_some_and(|f| scalar_text(f) == *v))
        })
    }

    fn walk(&mut self, d: Option<usize>, p: Option<usize>) -> Result<Option<usize>, Error> {
        if self.same || d.is_some() && d == p {
            let Some(id) = d else { return Ok(None) };
            return Ok(
                match self.walker.normalize(&mut self.arena[id], self.schema)? {
                    Outcome::Clear => None,
                    _ => Some(id),
                },
            );
        }
        let mut patch_node = p.map(|id| std::mem::take(&mut self.arena[id]));
        let result = match d {
            Some(id) => {
                self.walker
                    .walk(Some(&mut self.arena[id]), patch_node.as_mut(), self.schema)
            }
            None => self.walker.walk(None, patch_node.as_mut(), self.schema),
        };
        if let (Some(id), Some(node)) = (p, patch_node) {
            self.arena[id] = node;
        }
        Ok(match result? {
            Outcome::Clear => None,
            Outcome::Keep => d,
            Outcome::UsePatch => p,
            Outcome::Set(node) => {
                self.arena.push(node);
                Some(self.arena.len() - 1)
            }
        })
    }

    /// kyaml's `appendListNode`: sets each element of `src` in `dst` by its keys.
    fn append_list(&self, dst: &mut Vec<usize>, src: &[usize], keys: &[&str]) -> Result<(), Error> {
        let resolve = InArena(&self.arena);
        for &id in src {
            let node = &self.arena[id];
            if keys.first().is_none_or(|k| k.is_empty()) {
                let text = scalar_text(node);
                let values = [text.as_ref()];
                ElementSetter {
                    keys: &[""],
                    values: &values,
                }
                .set(dst, Some(id), &resolve)?;
                continue;
            }
            let mut values: Vec<Cow<str>> = Vec::with_capacity(keys.len());
            for key in keys {
                match node {
                    Node::Null => dst.push(id),
                    Node::Map(m) => match m.get(key) {
                        Some(v) => values.push(scalar_text(v)),
                        // kyaml appends an element that lacks a key as it is.
                        None => dst.push(id),
                    },
                    other => return Err(wrong_kind("mapping", other)),
                }
            }
            let values: Vec<&str> = values.iter().map(|v| v.as_ref()).collect();
            let setter = ElementSetter {
                keys,
                values: &values,
            };
            if keys.len() > 1 {
                setter.set(dst, None, &resolve)?;
            }
            setter.set(dst, Some(id), &resolve)?;
        }
        Ok(())
    }

    /// Writes the result, and puts the patch elements back where they came from.
    fn finish(mut self, result: Vec<usize>) {
        let mut uses = vec![0usize; self.arena.len()];
        for &id in &result {
            uses[id] += 1;
        }
        if let (Some(out), Some(ids)) = (self.patch_out.take(), &self.patch) {
            out.extend(ids.iter().map(|&id| {
                if uses[id] > 0 {
                    self.arena[id].clone()
                } else {
                    std::mem::take(&mut self.arena[id])
                }
            }));
        }
        let mut nodes = Vec::with_capacity(result.len());
        for id in result {
            uses[id] -= 1;
            nodes.push(if uses[id] == 0 {
                std::mem::take(&mut self.arena[id])
            } else {
                self.arena[id].clone()
            });
        }
        *self.out = nodes;
    }
}

/// kyaml's `mergeValues`: value lists that agree wherever both are set, and share at least
/// one value, become one (the union), so a port without a protocol pairs with the same port
/// with one. Done in place in kyaml's order, which matters when several lists unify.
fn unify_values(values: &mut [Vec<String>]) {
    for i in 0..values.len() {
        let first = values[i].clone();
        for j in 0..values.len() {
            if let Some(unified) = unify(&first, &values[j]) {
                values[i] = unified.clone();
                values[j] = unified;
            }
        }
    }
}

fn unify(a: &[String], b: &[String]) -> Option<Vec<String>> {
    if a.len() != b.len() {
        return None;
    }
    let mut common = false;
    let mut out = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        if x == y {
            common = true;
            out.push(x.clone());
        } else if !x.is_empty() && !y.is_empty() {
            return None;
        } else {
            out.push(if x.is_empty() { y.clone() } else { x.clone() });
        }
    }
    common.then_some(out)
}

/// The keys that have a value somewhere in the list (all keys when none has), with their
/// positions: kyaml's `validateKeys`, which looks at every value list at once.
fn valid_keys(values: &[Vec<String>], keys: &[String]) -> (Vec<String>, Vec<usize>) {
    let positions: Vec<usize> = (0..keys.len())
        .filter(|&i| values.iter().any(|v| !v[i].is_empty()))
        .collect();
    let positions = if positions.is_empty() {
        (0..keys.len()).collect()
    } else {
        positions
    };
    (
        positions.iter().map(|&i| keys[i].clone()).collect(),
        positions,
    )
}
