//! The ordered mapping of a [`Node`]: a vector of entries, with a hash index only for large maps.
//!
//! Kubernetes objects are made of small mappings (`metadata` has a handful of keys, a container
//! a dozen), and a build holds hundreds of thousands of them. A general hash map costs a hash
//! table allocation and a hash per lookup for each of them; here a lookup in a small map
//! compares the key against each entry (the lengths differ for most, so it is a few
//! instructions each), and an entry costs 64 bytes instead of 112. Large maps (a ConfigMap
//! with thousands of keys, hostile input) get a hash index so lookups stay O(1).
//!
//! The interface follows `indexmap::IndexMap`'s names (`shift_remove`, `get_index`, ...), which
//! the rest of kbuild was written against; equality ignores order, as `IndexMap`'s does.

use super::Node;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// Maps longer than this get a hash index.
const INDEX_FROM: usize = 16;

/// A map key: short keys (nearly all of them) are stored inline, without an allocation.
pub type Key = super::node::Str;

/// A key, its value, the value's style, and how the key was quoted (see
/// [`Map::key_quote_at`]; one byte, in what would be padding).
type Entry_ = (Key, Node, Style, Option<Quote>);

/// How the value of an entry was written, as far as kustomize's later steps can tell.
///
/// kustomize holds a resource as go-yaml v3 nodes, and a strategic merge patch gives the
/// patch's scalar the *style* of the scalar it replaces (kyaml `merge2`'s `SetStyle`) while
/// keeping the patch's tag. Printing goes through YAML text and JSON, so a number, boolean
/// or null from the patch that takes a quoted style comes out as the string of its text:
/// `minAvailable: "50%"` patched with `minAvailable: 2` prints `"2"`. The style of every
/// other scalar is invisible in the output, so it is the one thing kept (see
/// `docs/src/internals/scalars.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// Plain, or unknown (a value kbuild made): printed as its type says.
    #[default]
    Plain,
    /// Written double- or single-quoted, literal (`|`) or folded (`>`): which one shows
    /// only where kustomize copies the node into YAML text (a v5.8 replacement).
    Quoted(Quote),
    /// Written plain, and held by kbuild as its text although kustomize's node has the
    /// type the text reads as (annotation values: `007`, `~`). A JSON 6902 patch sees the
    /// type (see `merge::scalar_style`).
    PlainText,
    /// A node kustomize made without a tag (a field `create: true` made): kbuild holds
    /// the text as a string, and it takes the type its text reads as only when the
    /// resource is printed or JSON-patched; until then later writes only swap its text
    /// (see `merge::scalar_style::resolve_untagged`).
    Untagged,
    /// An annotation value a replacement's `create: true` made: untagged in kustomize as
    /// [`Style::Untagged`] is, but read as its text like [`Style::PlainText`] (annotations
    /// are a string map), except where kustomize's strategic merge walks it: its
    /// `FieldSetter` double-quotes an untagged YAML 1.1 non-string (`012`, `on`), which a
    /// later JSON 6902 patch then sees as a string.
    UntaggedText,
    /// A number, boolean or null field a replacement wrote a text into that does not read
    /// as that type (`abc` into `x: 1.5`): kustomize swaps the text of the node and keeps
    /// its tag, and reads the two together only when the resource is printed or
    /// JSON-patched (`!!float 0o14` is 12, `!!float abc` an error). kbuild holds the text
    /// as a string until then (see `merge::scalar_style::resolve_untagged`).
    Kept(KeptTag),
}

/// How a [`Style::Quoted`] scalar is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quote {
    /// `"..."` (also what kyaml's `FieldSetter` and go-yaml's encoder give a string that
    /// would read as another type).
    Double,
    /// `'...'`
    Single,
    /// `|`
    Literal,
    /// `>`
    Folded,
}

impl Quote {
    /// What go-yaml v3's encoder writes a string needing quotes as: literal when it
    /// holds a line break, else double-quoted.
    pub fn for_text(text: &str) -> Quote {
        if text.contains('\n') {
            Quote::Literal
        } else {
            Quote::Double
        }
    }
}

impl Style {
    /// Whether the value was written quoted or as a block scalar.
    pub fn is_quoted(self) -> bool {
        matches!(self, Style::Quoted(_))
    }
}

/// The tag of a [`Style::Kept`] scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptTag {
    /// `!!null`
    Null,
    /// `!!bool`
    Bool,
    /// `!!int`
    Int,
    /// `!!float`
    Float,
}

impl KeptTag {
    /// The tag named as kbuild's resolver names it (`resolve_resource_scalar`).
    pub fn name(self) -> &'static str {
        match self {
            KeptTag::Null => "null",
            KeptTag::Bool => "bool",
            KeptTag::Int => "int",
            KeptTag::Float => "float",
        }
    }

    /// The tag of that name; `None` for a string's (a string takes any text).
    pub fn of(name: &str) -> Option<KeptTag> {
        match name {
            "null" => Some(KeptTag::Null),
            "bool" => Some(KeptTag::Bool),
            "int" => Some(KeptTag::Int),
            "float" => Some(KeptTag::Float),
            _ => None,
        }
    }
}

/// An insertion-ordered map from string keys to nodes.
#[derive(Clone, Default)]
pub struct Map {
    entries: Vec<Entry_>,
    /// The hash index (large maps) and the texts of numbers; boxed and absent for nearly
    /// every map, so a mapping costs no more than a vector and a pointer.
    extra: Option<Box<Extra>>,
}

/// What few maps need.
#[derive(Clone, Default)]
struct Extra {
    /// Positions in `entries`, hashed by key; present only above [`INDEX_FROM`] entries.
    index: Option<HashTable<usize>>,
    /// The text a number or boolean value was written as, where kbuild would spell its
    /// value otherwise (`1.50`, `0x1F`, `+12`, `1.0e+3`, `False`), by key. kustomize's node keeps the
    /// text, and the operations that read a scalar as text (a `behavior: merge`
    /// generator's string maps, a ConfigMap's name hash, a replacement's source value)
    /// copy it; printing and JSON patches see only the number. See [`Map::typed_text`].
    texts: Vec<(Key, super::node::Str)>,
}

fn hash(key: &str) -> u64 {
    // A fixed seed: the index only serves lookups, its order is never observed.
    foldhash::fast::FixedState::with_seed(0x6b62_7569_6c64).hash_one(key)
}

impl Map {
    /// An empty map.
    pub fn new() -> Map {
        Map::default()
    }

    #[inline]
    /// An empty map with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Map {
        Map {
            entries: Vec::with_capacity(capacity),
            extra: None,
        }
    }

    /// Gives back the room of a mapping that ended well short of the entries allocated
    /// for it up front (the parser allocates 8; most mappings hold fewer): a build holds
    /// hundreds of thousands of small mappings, and the unused room was most of the
    /// memory of a stream of many small objects.
    #[inline]
    pub fn shrink_if_sparse(&mut self) {
        if self.entries.len() * 2 <= self.entries.capacity() {
            self.entries.shrink_to_fit();
        }
    }

    /// The number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Position of `key`.
    #[inline]
    pub fn get_index_of(&self, key: &str) -> Option<usize> {
        match self.extra.as_deref().and_then(|e| e.index.as_ref()) {
            Some(index) => self.find_indexed(index, key),
            None => find_small(&self.entries, key.as_bytes()),
        }
    }

    /// [`Map::get_index_of`] through the hash index (kept out of line: the small-map
    /// search is inlined into callers).
    #[inline(never)]
    fn find_indexed(&self, index: &HashTable<usize>, key: &str) -> Option<usize> {
        index
            .find(hash(key), |&i| self.entries[i].0.as_str() == key)
            .copied()
    }

    /// The value of `key`.
    #[inline]
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.get_index_of(key).map(|i| &self.entries[i].1)
    }

    /// The value of `key`, to change in place.
    #[inline]
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.get_index_of(key).map(|i| &mut self.entries[i].1)
    }

    /// The stored key and the value of `key`.
    #[inline]
    pub fn get_key_value(&self, key: &str) -> Option<(&Key, &Node)> {
        self.get_index_of(key).map(|i| pair(&self.entries[i]))
    }

    /// Whether `key` is present.
    #[inline]
    pub fn contains_key(&self, key: &str) -> bool {
        self.get_index_of(key).is_some()
    }

    /// The entry at position `i`.
    #[inline]
    pub fn get_index(&self, i: usize) -> Option<(&Key, &Node)> {
        self.entries.get(i).map(pair)
    }

    /// The entry at position `i`, its value to change in place.
    #[inline]
    pub fn get_index_mut(&mut self, i: usize) -> Option<(&Key, &mut Node)> {
        self.entries.get_mut(i).map(pair_mut)
    }

    /// Sets `key` to `value`: a new key goes last, an existing one keeps its place and the old
    /// value is returned.
    pub fn insert(&mut self, key: impl Into<Key>, value: Node) -> Option<Node> {
        self.insert_full(key, value).1
    }

    /// [`Map::insert`], also returning the entry's position.
    pub fn insert_full(&mut self, key: impl Into<Key>, value: Node) -> (usize, Option<Node>) {
        let key = key.into();
        if let Some(i) = self.get_index_of(&key) {
            // A new node replaces the old one, with its own (plain) style and no text.
            self.entries[i].2 = Style::Plain;
            self.forget_typed_text(&key);
            return (i, Some(std::mem::replace(&mut self.entries[i].1, value)));
        }
        (self.push_new(key, value), None)
    }

    /// Appends `key`, which the caller knows is absent (a duplicate would make lookups
    /// find only the first); returns its position. Saves [`Map::insert`]'s search where the
    /// caller has already ruled the key out.
    pub fn push_absent(&mut self, key: impl Into<Key>, value: Node) -> usize {
        let key = key.into();
        debug_assert!(self.get_index_of(&key).is_none(), "{key:?} already present");
        self.push_new(key, value)
    }

    /// Appends an entry whose key is known to be absent.
    fn push_new(&mut self, key: Key, value: Node) -> usize {
        let i = self.entries.len();
        match self.extra.as_deref_mut().and_then(|e| e.index.as_mut()) {
            Some(index) => {
                let entries = &self.entries;
                index.insert_unique(hash(&key), i, |&j| hash(&entries[j].0));
            }
            None if i >= INDEX_FROM => {
                self.entries.push((key, value, Style::Plain, None));
                self.reindex();
                return i;
            }
            None => {}
        }
        self.entries.push((key, value, Style::Plain, None));
        i
    }

    /// Removes `key`, keeping the order of the others.
    pub fn shift_remove(&mut self, key: &str) -> Option<Node> {
        let i = self.get_index_of(key)?;
        let (_, v, _, _) = self.entries.remove(i);
        self.forget_typed_text(key);
        self.reindex();
        Some(v)
    }

    /// Keeps the entries for which `keep` says yes, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Key, &mut Node) -> bool) {
        self.entries.retain_mut(|(k, v, _, _)| keep(k, v));
        if let Some(extra) = self.extra.as_deref_mut()
            && !extra.texts.is_empty()
        {
            let entries = &self.entries;
            extra
                .texts
                .retain(|(k, _)| entries.iter().any(|(e, _, _, _)| e == k));
        }
        self.reindex();
    }

    /// Sorts the entries by key.
    pub fn sort_keys(&mut self) {
        if self.entries.is_sorted_by(|a, b| a.0 <= b.0) {
            return;
        }
        self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        self.reindex();
    }

    /// Rebuilds (or drops) the hash index after entries moved.
    fn reindex(&mut self) {
        if self.entries.len() <= INDEX_FROM {
            if let Some(extra) = self.extra.as_deref_mut() {
                extra.index = None;
                if extra.texts.is_empty() {
                    self.extra = None;
                }
            }
            return;
        }
        let extra = self.extra.get_or_insert_with(Box::default);
        let index = extra
            .index
            .get_or_insert_with(|| HashTable::with_capacity(self.entries.len()));
        index.clear();
        let entries = &self.entries;
        for (i, (k, _, _, _)) in entries.iter().enumerate() {
            index.insert_unique(hash(k), i, |&j| hash(&entries[j].0));
        }
    }

    /// The text the number or boolean at `key` was written as, where it is not the value's usual
    /// spelling (kustomize copies that text where it reads the scalar as a string). `None`
    /// when no text is kept, or the value is no longer the number the text reads as (a
    /// later write replaced it).
    pub fn typed_text(&self, key: &str) -> Option<&str> {
        let text = self.kept_text(key)?;
        let value = self.get(key)?;
        // (A string has a text kept only as a timestamp's: `2024-01-01`, held as
        // `2024-01-01T00:00:00Z`.)
        if !matches!(
            value,
            Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_) | Node::Str(_)
        ) {
            return None;
        }
        match crate::yaml::parse::resolve_resource_scalar(text, None) {
            Ok(typed) if typed == *value => Some(text),
            // An integer a JSON 6902 patch read back as a float64, which go-yaml spells
            // with an exponent (`1.234567e+06`; see `scalar_style::after_json_round_trip`).
            Ok(Node::Float(f)) if text.contains('e') && same_number(value, f) => Some(text),
            _ => None,
        }
    }

    /// The value at `key` as kustomize reads a scalar into a string: the text of a number or boolean
    /// where one is kept, else the value's usual spelling; `None` for collections.
    pub fn scalar_text(&self, key: &str) -> Option<String> {
        match self.typed_text(key) {
            Some(text) => Some(text.to_owned()),
            None => self.get(key)?.scalar_string(),
        }
    }

    /// The text of a number or boolean kyaml holds with its tag but in a quoted style (a
    /// strategic merge wrote it over a quoted value): kbuild holds the string, as it
    /// prints, and keeps the text beside it, for what reads the tag (`vars`).
    pub fn quoted_typed_text(&self, key: &str) -> Option<&str> {
        let text = self.kept_text(key)?;
        match self.get(key)? {
            Node::Str(s) if **s == *text => Some(text),
            _ => None,
        }
    }

    /// The text kept for `key`, whatever the value is now.
    fn kept_text(&self, key: &str) -> Option<&str> {
        let (_, text) = self
            .extra
            .as_deref()?
            .texts
            .iter()
            .find(|(k, _)| k == key)?;
        Some(text)
    }

    /// Keeps `text` as the spelling of the number at `key` (see [`Map::typed_text`]).
    pub fn set_typed_text(&mut self, key: &str, text: &str) {
        let extra = self.extra.get_or_insert_with(Box::default);
        match extra.texts.iter_mut().find(|(k, _)| k == key) {
            Some((_, t)) => *t = text.into(),
            None => extra.texts.push((key.into(), text.into())),
        }
    }

    /// Forgets the text kept for the number at `key`.
    pub fn forget_typed_text(&mut self, key: &str) {
        if let Some(extra) = self.extra.as_deref_mut() {
            extra.texts.retain(|(k, _)| k != key);
        }
    }

    /// How the key at position `i` was written, when quoted (kbuild holds keys as their
    /// text): seen only where kustomize copies the mapping into YAML text.
    pub fn key_quote_at(&self, i: usize) -> Option<Quote> {
        self.entries.get(i).and_then(|e| e.3)
    }

    /// Notes that the key at position `i` is written with `quote`.
    pub fn set_key_quote_at(&mut self, i: usize, quote: Quote) {
        if let Some(e) = self.entries.get_mut(i) {
            e.3 = Some(quote);
        }
    }

    /// Forgets every number's or boolean's text in this map (not in nested ones).
    pub fn forget_typed_texts(&mut self) {
        if let Some(extra) = self.extra.as_deref_mut() {
            extra.texts.clear();
        }
    }

    /// The entry for `key`, to read or fill in.
    pub fn entry(&mut self, key: impl Into<Key>) -> Entry<'_> {
        let key = key.into();
        match self.get_index_of(&key) {
            Some(i) => Entry::Occupied(&mut self.entries[i].1),
            None => Entry::Vacant(self, key),
        }
    }

    /// The style of the value at position `i` (plain when there is none).
    #[inline]
    pub fn style_at(&self, i: usize) -> Style {
        self.entries.get(i).map_or(Style::Plain, |e| e.2)
    }

    /// Sets the style of the value at position `i` (nothing when there is none).
    #[inline]
    pub fn set_style_at(&mut self, i: usize, style: Style) {
        if let Some(e) = self.entries.get_mut(i) {
            e.2 = style;
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> Iter<'_> {
        self.entries.iter().map(pair)
    }

    /// The entries in order, values to change in place.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        self.entries.iter_mut().map(pair_mut)
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, _, _, _)| k)
    }

    /// The values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Node> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(_, v, _, _)| v)
    }

    /// The values in order, to change in place.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Node> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v, _, _)| v)
    }
}

/// The position of `key` among `entries`, compared one by one.
///
/// Small-map lookups compare the key against every entry, and a library `memcmp` call per
/// candidate dominated them (a build looks up `metadata`, `name`, `kind`... hundreds of
/// thousands of times). Here each entry of the key's length is compared as two words
/// taken from its start and end (see [`words`]), which decides keys of up to 16 bytes;
/// up to 24 bytes one more word does, and only longer keys compare their middle as a
/// slice, after the ends agreed. Inlined into callers, the search costs no call either.
#[inline]
fn find_small(entries: &[Entry_], key: &[u8]) -> Option<usize> {
    let n = key.len();
    let want = words(key);
    entries.iter().position(|(k, _, _, _)| {
        let k = k.as_bytes();
        k.len() == n && words(k) == want && (n <= 16 || middle_eq(k, key))
    })
}

/// Two words that hold all of a key of up to 16 bytes (and its ends if longer): the
/// first and last 8 bytes (overlapping below 16), 4 bytes, or the first, middle and
/// last byte; keys of the same length compare equal on them only if equal up to 16 bytes.
#[inline(always)]
fn words(b: &[u8]) -> (u64, u64) {
    let n = b.len();
    if n >= 8 {
        (word8(b, 0), word8(b, n - 8))
    } else if n >= 4 {
        (u64::from(word4(b, 0)), u64::from(word4(b, n - 4)))
    } else {
        let byte = |i: usize| b.get(i).map_or(0, |&c| u64::from(c));
        (
            byte(0) | byte(n / 2) << 8 | byte(n.wrapping_sub(1)) << 16,
            0,
        )
    }
}

/// Whether keys of the same length above 16 bytes, whose first and last 8 bytes agree,
/// agree in between.
#[inline]
fn middle_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n <= 24 {
        word8(a, 8) == word8(b, 8)
    } else {
        a.get(8..n - 8) == b.get(8..n - 8)
    }
}

/// The 8 bytes of `b` from `at` (which the caller keeps within `b`) as one word.
#[inline(always)]
fn word8(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// The 4 bytes of `b` from `at` (which the caller keeps within `b`) as one word.
#[inline(always)]
fn word4(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

fn pair(e: &Entry_) -> (&Key, &Node) {
    (&e.0, &e.1)
}

fn pair_mut(e: &mut Entry_) -> (&Key, &mut Node) {
    (&e.0, &mut e.1)
}

/// Iterator over `(&key, &value)` in order.
pub type Iter<'a> = std::iter::Map<std::slice::Iter<'a, Entry_>, fn(&Entry_) -> (&Key, &Node)>;
/// Iterator over `(&key, &mut value)` in order.
pub type IterMut<'a> =
    std::iter::Map<std::slice::IterMut<'a, Entry_>, fn(&mut Entry_) -> (&Key, &mut Node)>;

/// A key's place in a map: filled or not.
pub enum Entry<'a> {
    /// The key is present: its value.
    Occupied(&'a mut Node),
    /// The key is absent: the map, and the key to insert.
    Vacant(&'a mut Map, Key),
}

impl<'a> Entry<'a> {
    /// The value, after inserting `value` if the key was absent.
    pub fn or_insert(self, value: Node) -> &'a mut Node {
        self.or_insert_with(|| value)
    }

    /// The value, after inserting `make()` if the key was absent.
    pub fn or_insert_with(self, make: impl FnOnce() -> Node) -> &'a mut Node {
        match self {
            Entry::Occupied(v) => v,
            Entry::Vacant(map, key) => {
                let i = map.push_new(key, make());
                &mut map.entries[i].1
            }
        }
    }
}

impl std::ops::Index<&str> for Map {
    type Output = Node;
    /// The value of a key the caller knows is present (panics otherwise, as `IndexMap` does).
    fn index(&self, key: &str) -> &Node {
        match self.get(key) {
            Some(v) => v,
            None => panic!("key {key:?} not in map"),
        }
    }
}

impl PartialEq for Map {
    /// Same keys with equal values, in any order.
    fn eq(&self, other: &Map) -> bool {
        if self.len() != other.len() {
            return false;
        }
        // Mostly the keys are in the same order (a resource compared with its own copy,
        // as provenance recording does after every step): pairwise, without a lookup, as
        // long as the keys agree.
        for ((k, v), (l, w)) in self.iter().zip(other.iter()) {
            if k != l {
                return self
                    .iter()
                    .all(|(k, v)| other.get(k).is_some_and(|w| w == v));
            }
            if v != w {
                return false;
            }
        }
        true
    }
}

impl std::fmt::Debug for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Into<Key>> FromIterator<(K, Node)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Node)>>(iter: I) -> Map {
        let mut m = Map::new();
        m.extend(iter);
        m
    }
}

impl<K: Into<Key>> Extend<(K, Node)> for Map {
    fn extend<I: IntoIterator<Item = (K, Node)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a Key, &'a Node);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a Key, &'a mut Node);
    type IntoIter = IterMut<'a>;
    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

impl IntoIterator for Map {
    type Item = (Key, Node);
    type IntoIter = std::iter::Map<std::vec::IntoIter<Entry_>, fn(Entry_) -> (Key, Node)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter().map(|(k, v, _, _)| (k, v))
    }
}

/// Whether the integer `value` is the float `f`.
fn same_number(value: &Node, f: f64) -> bool {
    match value {
        Node::Int(i) => *i as f64 == f,
        Node::Uint(u) => *u as f64 == f,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(n: usize) -> Map {
        (0..n)
            .map(|i| (format!("k{i}"), Node::Int(i as i64)))
            .collect()
    }

    #[test]
    fn lookups_small_and_indexed() {
        for n in [0, 3, INDEX_FROM, INDEX_FROM + 1, 200] {
            let m = big(n);
            assert_eq!(m.len(), n);
            assert_eq!(
                m.extra.as_ref().is_some_and(|e| e.index.is_some()),
                n > INDEX_FROM
            );
            for i in 0..n {
                assert_eq!(m.get(&format!("k{i}")), Some(&Node::Int(i as i64)));
                assert_eq!(m.get_index_of(&format!("k{i}")), Some(i));
            }
            assert_eq!(m.get("missing"), None);
        }
    }

    /// A number's text is told only while the value is still the number it reads as,
    /// and a new value, a removal or a kept-out entry forgets it.
    #[test]
    fn typed_texts_follow_their_values() {
        let mut m = big(20);
        m.insert("f", Node::Float(1.5));
        m.set_typed_text("f", "1.50");
        assert_eq!(m.typed_text("f"), Some("1.50"));
        assert_eq!(m.scalar_text("f").as_deref(), Some("1.50"));
        assert_eq!(m.scalar_text("k3").as_deref(), Some("3"));
        // Moves keep it (keyed by name, not position), the index too.
        m.shift_remove("k0");
        m.sort_keys();
        assert_eq!(m.typed_text("f"), Some("1.50"));
        // A value changed in place no longer reads as the text.
        if let Some(v) = m.get_mut("f") {
            *v = Node::Float(2.0);
        }
        assert_eq!(m.typed_text("f"), None);
        // A new value forgets the text, even one equal to the old.
        m.set_typed_text("f", "2.0");
        assert_eq!(m.typed_text("f"), Some("2.0"));
        m.insert("f", Node::Float(2.0));
        assert_eq!(m.typed_text("f"), None);
        m.set_typed_text("f", "2.0");
        m.shift_remove("f");
        m.insert("f", Node::Float(2.0));
        assert_eq!(m.typed_text("f"), None);
        // Strings have no number text.
        m.insert("s", Node::text("0x1F"));
        m.set_typed_text("s", "0x1F");
        assert_eq!(m.typed_text("s"), None);
        // Small maps keep texts without an index.
        let mut small = Map::new();
        small.insert("h", Node::Int(31));
        small.set_typed_text("h", "0x1F");
        small.retain(|_, _| true);
        assert_eq!(small.typed_text("h"), Some("0x1F"));
        small.retain(|_, _| false);
        small.insert("h", Node::Int(31));
        assert_eq!(small.typed_text("h"), None);
    }

    #[test]
    fn removals_and_moves_keep_the_index_right() {
        let mut m = big(40);
        assert_eq!(m.shift_remove("k0"), Some(Node::Int(0)));
        assert_eq!(m.get_index_of("k1"), Some(0));
        m.insert("k5", Node::Null);
        assert_eq!(m.get("k5"), Some(&Node::Null));
        m.retain(|k, _| k.len() == 2);
        assert_eq!(m.len(), 9);
        assert!(m.extra.as_ref().is_none_or(|e| e.index.is_none()));
        m.sort_keys();
        assert_eq!(m.get_index(0).map(|(k, _)| k.as_str()), Some("k1"));
        assert_eq!(m.get("k9"), Some(&Node::Int(9)));
    }

    #[test]
    fn insert_keeps_place_and_entry_fills_in() {
        let mut m = big(3);
        assert_eq!(m.insert("k1", Node::Bool(true)), Some(Node::Int(1)));
        assert_eq!(m.get_index_of("k1"), Some(1));
        *m.entry("new").or_insert(Node::Null) = Node::Int(7);
        assert_eq!(m.get_index(3), Some((&Key::from("new"), &Node::Int(7))));
        assert_eq!(m.entry("k0").or_insert(Node::Null), &Node::Int(0));
    }

    #[test]
    fn lookups_compare_every_byte_of_every_length() {
        // Keys of each length up to 40 that differ from each other in one byte only, at
        // each position: a lookup must find exactly its own.
        for n in 0..40usize {
            let base: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            let mut keys = vec![String::from_utf8(base.clone()).unwrap_or_default()];
            for at in 0..n {
                let mut k = base.clone();
                k[at] = b'Z';
                keys.push(String::from_utf8(k).unwrap_or_default());
            }
            let m: Map = keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), Node::Int(i as i64)))
                .collect();
            assert_eq!(m.len(), keys.len(), "length {n}");
            for (i, k) in keys.iter().enumerate() {
                assert_eq!(m.get_index_of(k), Some(i), "{k:?}");
            }
            let mut other = base.clone();
            other.push(b'!');
            assert_eq!(
                m.get_index_of(std::str::from_utf8(&other).unwrap_or("!")),
                None
            );
            if n > 0 {
                assert_eq!(
                    m.get_index_of(std::str::from_utf8(&base[1..]).unwrap_or("!")),
                    None
                );
            }
        }
    }

    #[test]
    fn push_absent_appends() {
        let mut m = big(3);
        assert_eq!(m.push_absent("z", Node::Null), 3);
        assert_eq!(m.get_index_of("z"), Some(3));
    }

    #[test]
    fn equality_ignores_order() {
        let a = big(20);
        let mut b: Map = (0..20)
            .rev()
            .map(|i| (format!("k{i}"), Node::Int(i as i64)))
            .collect();
        assert_eq!(a, b);
        b.insert("k0", Node::Null);
        assert_ne!(a, b);
    }
}
