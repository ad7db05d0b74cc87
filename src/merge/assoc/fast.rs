//! The fast paths: the checks that tell which lists take them (distinct, non-empty keys;
//! scalars; a destination the patch does not reach), and the linear-time merges of keyed
//! lists and of lists of scalars, with hash indexes.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;

use crate::error::Error;
use crate::merge::smp::{ListIncrease, Outcome, Walker};
use crate::openapi::TypeRef;
use crate::yaml::Node;
use crate::yaml::map::Key;

use super::PatchList;
use super::element::scalar_text;

/// Whether a list holds only strings, all different.
pub(super) fn distinct_strings(list: &[Node]) -> bool {
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
pub(super) fn untouched_is_identity<'k>(list: &[Node], keys: &[&'k str]) -> Option<&'k str> {
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
/// [`key_value`](super::element::key_value) reads as non-empty).
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

pub(super) fn all_scalars(list: &[Node]) -> bool {
    list.iter().all(|n| {
        matches!(
            n,
            Node::Str(_) | Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_)
        )
    })
}

/// The text of a merge key value, when it names an element: a non-empty scalar.
fn key_text(value: &Node) -> Option<Key> {
    let text = match value {
        Node::Map(_) | Node::Seq(_) | Node::Null => return None,
        Node::Str(s) => s.clone(),
        v => Key::from(scalar_text(v).as_ref()),
    };
    (!text.is_empty()).then_some(text)
}

/// The key of each element of a list whose elements are all mappings with every one of
/// `keys` a non-empty scalar (`None` for any other list): its text for one key; for
/// several, the texts joined so that two joins are equal only when every text is (each
/// prefixed by its length).
pub(super) fn key_texts(list: &[Node], keys: &[&str]) -> Option<Vec<Key>> {
    let mut texts: Vec<Key> = Vec::with_capacity(list.len());
    for element in list {
        if let [key] = keys {
            texts.push(key_text(element.get(key)?)?);
            continue;
        }
        let mut joined = String::new();
        for key in keys {
            let text = key_text(element.get(key)?)?;
            joined.push_str(&text.len().to_string());
            joined.push(':');
            joined.push_str(&text);
        }
        texts.push(Key::from(joined));
    }
    Some(texts)
}

/// Finds the elements of a key text: by scanning when there are few, else hashed.
pub(super) struct KeyIndex<'k> {
    keys: &'k [Key],
    hashed: Option<HashMap<&'k str, Vec<usize>>>,
}

impl<'k> KeyIndex<'k> {
    pub(super) fn new(keys: &'k [Key]) -> KeyIndex<'k> {
        if keys.len() <= 16 {
            return KeyIndex { keys, hashed: None };
        }
        let mut map: HashMap<&str, Vec<usize>> = HashMap::with_capacity(keys.len());
        for (i, k) in keys.iter().enumerate() {
            map.entry(k.as_str()).or_default().push(i);
        }
        KeyIndex {
            keys,
            hashed: Some(map),
        }
    }

    /// The positions of the elements with this key, in list order.
    fn all(&self, value: &str) -> Vec<usize> {
        match &self.hashed {
            Some(map) => map.get(value).cloned().unwrap_or_default(),
            None => (0..self.keys.len())
                .filter(|&i| self.keys[i] == value)
                .collect(),
        }
    }

    /// The first element with this key.
    fn get(&self, value: &str) -> Option<usize> {
        match &self.hashed {
            Some(map) => map.get(value).and_then(|p| p.first().copied()),
            None => self.keys.iter().position(|k| k == value),
        }
    }

    /// The last element with this key.
    fn last(&self, value: &str) -> Option<usize> {
        match &self.hashed {
            Some(map) => map.get(value).and_then(|p| p.last().copied()),
            None => self.keys.iter().rposition(|k| k == value),
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

/// The key texts of both lists of a keyed merge, and their indexes.
pub(super) struct Keyed<'k> {
    /// The merge keys (one, or several: container and Service ports).
    pub(super) keys: &'k [&'k str],
    pub(super) dest: &'k [Key],
    pub(super) patch: &'k [Key],
    pub(super) dest_index: KeyIndex<'k>,
    pub(super) patch_index: KeyIndex<'k>,
}

/// The fast path for lists of mappings whose merge keys (those some element sets) are set
/// (non-empty scalars) in every element; values may repeat. What kyaml's algorithm ([`super::general`]) does
/// there: each key value, in visiting order, merges the first destination and the first
/// patch element that have it; a deletion removes every destination element with it.
/// Then, with one key, each result takes the place of the destination elements with its
/// key (appending), or the last such destination element takes the place of the result
/// (prepending); with several keys, kyaml's `appendListNode` first removes what matches and
/// then appends, so appending leaves the results in visiting order, and prepending the
/// results without a destination element, then the last destination element of each key.
pub(super) fn merge_keyed<'s>(
    walker: &mut Walker<'_, 's>,
    dest: &mut Vec<Node>,
    mut patch: PatchList<'_>,
    keyed: Keyed<'_>,
    schema: Option<TypeRef<'s>>,
) -> Result<(), Error> {
    let Keyed {
        keys,
        dest: dest_keys,
        patch: patch_keys,
        dest_index,
        patch_index,
    } = keyed;
    let increase = walker.list_increase();
    let (first, second) = match increase {
        ListIncrease::Prepend => (patch_keys, dest_keys),
        ListIncrease::Append => (dest_keys, patch_keys),
    };
    let mut seen: HashSet<&str> = HashSet::with_capacity(first.len() + second.len());
    let order: Vec<&str> = first
        .iter()
        .chain(second)
        .map(Key::as_str)
        .filter(|k| seen.insert(k))
        .collect();

    let mut alive = vec![true; dest.len()];
    let mut merged: Vec<(&str, Source)> = Vec::with_capacity(order.len());
    for &value in &order {
        let d = dest_index.get(value);
        let p = patch_index.get(value);
        // Error paths name the element by its first key (the value itself, for one).
        let first_key = match keys.len() {
            1 => None,
            _ => d
                .map(|i| &dest[i])
                .or_else(|| match (&patch, p) {
                    (PatchList::Separate(list), Some(j)) => list.get(j),
                    _ => None,
                })
                .and_then(|e| e.get(keys[0]))
                .map(|v| scalar_text(v).into_owned()),
        };
        walker.push_element(keys[0], first_key.as_deref().unwrap_or(value));
        let result = walk_pair(walker, dest, &mut patch, d, p, schema);
        walker.pop();
        match result? {
            Some(source) => merged.push((value, source)),
            // Deleting by key removes every destination element with that key.
            None => {
                for i in dest_index.all(value) {
                    alive[i] = false;
                }
            }
        }
    }
    // Whether a destination element with this key is left.
    let in_dest = |k: &str| dest_index.last(k).is_some_and(|i| alive[i]);

    let sources: Vec<Source> = match (increase, keys.len() > 1) {
        // The collected order; the last destination element of a key replaces its result.
        (ListIncrease::Prepend, false) => merged
            .into_iter()
            .map(|(k, source)| match dest_index.last(k) {
                Some(i) if alive[i] => Source::Dest(i),
                _ => source,
            })
            .collect(),
        // The results without a destination element, then the last destination element
        // of each key, in the destination's order.
        (ListIncrease::Prepend, true) => {
            let mut out: Vec<Source> = merged
                .into_iter()
                .filter(|(k, _)| !in_dest(k))
                .map(|(_, s)| s)
                .collect();
            out.extend(
                (0..dest.len())
                    .filter(|&i| alive[i] && dest_index.last(&dest_keys[i]) == Some(i))
                    .map(Source::Dest),
            );
            out
        }
        // The destination order with each element replaced by its key's result, new
        // ones after.
        (ListIncrease::Append, false) => {
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
                    .filter(|(k, _)| !in_dest(k))
                    .map(|(_, s)| s),
            );
            out
        }
        // The results, in visiting order.
        (ListIncrease::Append, true) => merged.into_iter().map(|(_, s)| s).collect(),
    };
    *dest = materialize(sources, dest, &patch);
    Ok(())
}

/// The fast path for lists of scalars (no nulls), merged as ordered sets by their text.
pub(super) fn merge_scalars<'s>(
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
