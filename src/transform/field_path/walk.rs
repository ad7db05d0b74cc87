//! The target walk: kustomize's `PathMatcher`, visiting every node a path
//! reaches (and creating what is missing), over a resource ([`Node`]) or over
//! YAML text parsed from one ([`Styled`]), as the [`Tree`] trait lets it.
//!
//! Two kyaml behaviours shape it beyond the path syntax:
//! - A null is a scalar to kyaml: it finds no field or element in it, and what
//!   it creates there (with `create`) is appended to the null scalar, where
//!   nothing ever reads it. So a walk through a null visits a throwaway
//!   container and leaves the null as it was (every kustomize version).
//! - Since v5.8.0 ([`Options::into_text`]), a scalar field followed by more of
//!   the path is parsed as YAML text and the rest of the path walked in the
//!   parsed copy, which is then dropped: what is visited there only counts
//!   (and may fail), it changes nothing. (The replacement first tries to write
//!   into such text for real, see `replacements::structured`; this is what its
//!   fallback does.) An empty text is no document at all, which every path
//!   part fails on; a parse error fails the walk.

use super::{NO_EQUALS, entry_text as node_entry_text, is_list_entry, regex_error, split_entry};
use crate::error::{Error, Result};
use crate::transform::field_path::go_atoi;
use crate::yaml::Node;
use crate::yaml::parse::PathStep;
use crate::yaml::styled::{Kind, Styled};
use regex::Regex;
use std::borrow::Cow;

/// What to create at the end of a path that does not exist yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NewLeaf {
    /// A scalar: visitors get an empty scalar flagged as created, to fill in.
    Scalar,
    Map,
    Seq,
}

impl NewLeaf {
    /// The kind matching a value that will be put there.
    pub(crate) fn like(value: &Node) -> NewLeaf {
        match value {
            Node::Map(_) => NewLeaf::Map,
            Node::Seq(_) => NewLeaf::Seq,
            _ => NewLeaf::Scalar,
        }
    }
}

/// What the walk needs of a tree.
pub(crate) trait Tree: Sized {
    /// A null scalar (see the module documentation).
    fn is_null(&self) -> bool;
    /// A mapping or sequence.
    fn is_collection(&self) -> bool;
    /// A mapping.
    fn is_map(&self) -> bool;
    /// For errors: "a mapping", "a number", …
    fn type_name(&self) -> &'static str;
    /// A new node for a missing part.
    fn empty(leaf: NewLeaf) -> Self;
    /// A mapping's value for `key`.
    fn get_mut(&mut self, key: &str) -> Option<&mut Self>;
    /// Adds `key` to a mapping and returns its value (`None` on anything else).
    fn insert(&mut self, key: &str, value: Self) -> Option<&mut Self>;
    /// A sequence's items.
    fn items_mut(&mut self) -> Option<&mut Vec<Self>>;
    /// The text a list entry selector `[key=…]` matches in an element (the
    /// element itself for `[=…]`).
    fn entry_text(&self, key: &str) -> Option<String>;
    /// The element `[key=value]` creates (the bare value for `[=value]`).
    fn new_entry(key: &str, value: &str) -> Self;
    /// A scalar's text, parsed as YAML when the path goes on into it.
    fn text(&self) -> Cow<'_, str>;
}

impl Tree for Node {
    fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }

    fn is_collection(&self) -> bool {
        matches!(self, Node::Map(_) | Node::Seq(_))
    }

    fn is_map(&self) -> bool {
        matches!(self, Node::Map(_))
    }

    fn type_name(&self) -> &'static str {
        Node::type_name(self)
    }

    fn empty(leaf: NewLeaf) -> Node {
        match leaf {
            NewLeaf::Scalar => Node::Null,
            NewLeaf::Map => Node::map(),
            NewLeaf::Seq => Node::Seq(Vec::new()),
        }
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match self {
            Node::Map(m) => m.get_mut(key),
            _ => None,
        }
    }

    fn insert(&mut self, key: &str, value: Node) -> Option<&mut Node> {
        let Node::Map(m) = self else { return None };
        m.insert(key.to_string(), value);
        m.get_mut(key)
    }

    fn items_mut(&mut self) -> Option<&mut Vec<Node>> {
        match self {
            Node::Seq(items) => Some(items),
            _ => None,
        }
    }

    fn entry_text(&self, key: &str) -> Option<String> {
        node_entry_text(self, key)
    }

    fn new_entry(key: &str, value: &str) -> Node {
        // kustomize appends `{key: value}` (or the bare value) with the text
        // read as a plain scalar, so `[port=80]` makes a number.
        let v = crate::yaml::parse::resolve_resource_scalar(value, None)
            .unwrap_or_else(|_| Node::text(value.to_string()));
        if key.is_empty() {
            v
        } else {
            Node::Map([(key.to_string(), v)].into_iter().collect())
        }
    }

    fn text(&self) -> Cow<'_, str> {
        match self {
            Node::Str(s) => Cow::Borrowed(s.as_str()),
            Node::Null => Cow::Borrowed("null"),
            other => Cow::Owned(other.scalar_string().unwrap_or_default()),
        }
    }
}

impl Tree for Styled {
    fn is_null(&self) -> bool {
        Styled::is_null(self)
    }

    fn is_collection(&self) -> bool {
        !matches!(self.kind, Kind::Scalar(_))
    }

    fn is_map(&self) -> bool {
        matches!(self.kind, Kind::Map(_))
    }

    fn type_name(&self) -> &'static str {
        match &self.kind {
            Kind::Map(_) => "mapping",
            Kind::Seq(_) => "list",
            Kind::Scalar(_) => match self.tag.as_str() {
                "!!int" | "!!float" => "number",
                "!!bool" => "boolean",
                "!!null" => "null",
                _ => "string",
            },
        }
    }

    fn empty(leaf: NewLeaf) -> Styled {
        match leaf {
            NewLeaf::Scalar => Styled::untagged(""),
            NewLeaf::Map => Styled::empty_collection(true),
            NewLeaf::Seq => Styled::empty_collection(false),
        }
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Styled> {
        // kyaml compares a key's text and takes the first match.
        match &mut self.kind {
            Kind::Map(pairs) => pairs
                .iter_mut()
                .find(|(k, _)| k.text() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    fn insert(&mut self, key: &str, value: Styled) -> Option<&mut Styled> {
        let Kind::Map(pairs) = &mut self.kind else {
            return None;
        };
        pairs.push((Styled::untagged(key), value));
        pairs.last_mut().map(|(_, v)| v)
    }

    fn items_mut(&mut self) -> Option<&mut Vec<Styled>> {
        match &mut self.kind {
            Kind::Seq(items) => Some(items),
            _ => None,
        }
    }

    fn entry_text(&self, key: &str) -> Option<String> {
        // kyaml matches the selector against the field written as YAML (so a
        // quoted value keeps its quotes).
        if key.is_empty() {
            return Some(self.to_text());
        }
        let Kind::Map(pairs) = &self.kind else {
            return None;
        };
        pairs
            .iter()
            .find(|(k, _)| k.text() == Some(key))
            .map(|(_, v)| v.to_text())
    }

    fn new_entry(key: &str, value: &str) -> Styled {
        if key.is_empty() {
            return Styled::untagged(value);
        }
        let mut entry = Styled::empty_collection(true);
        entry.insert(key, Styled::untagged(value));
        entry
    }

    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(Styled::text(self).unwrap_or(""))
    }
}

/// How a walk goes.
#[derive(Clone, Copy, Default)]
pub(crate) struct Options<'a> {
    /// Create missing parts, the last one as this.
    pub create: Option<NewLeaf>,
    /// Walk on into YAML text held in a scalar (kustomize v5.8.0, see the
    /// module documentation).
    pub into_text: bool,
    /// Where the resource holds a null written as nothing (`key:`), which is
    /// an empty text to parse rather than `null`.
    pub empty_nulls: &'a [Vec<PathStep>],
    /// Give the visitor the path to each node it is called on (an empty path
    /// otherwise).
    pub trail: bool,
}

/// A part as target matching reads it.
#[derive(Debug)]
enum Seg {
    Index(usize),
    /// `[key=regex]`; `key` empty for a list of scalars. The regex is
    /// compiled up front but its error reported only when the walk gets there.
    Entry {
        key: String,
        value: String,
        re: std::result::Result<Regex, String>,
    },
    /// `[...]` without `=`.
    BadEntry,
    Wildcard,
    /// An empty part (`a..b`, `a.`): kustomize fails on a mapping (it
    /// stops there and wants a scalar) and matches nothing on anything else.
    Empty,
    Field(String),
}

impl Seg {
    fn parse(part: &str) -> Seg {
        if let Some(i) = go_atoi(part).and_then(|i| usize::try_from(i).ok()) {
            return Seg::Index(i);
        }
        if is_list_entry(part) {
            return match split_entry(part) {
                Some((k, v)) => Seg::Entry {
                    key: k.to_string(),
                    value: v.to_string(),
                    re: crate::resource::regex_cache::compile(v).map_err(|e| regex_error(&e)),
                },
                None => Seg::BadEntry,
            };
        }
        if part == "*" {
            return Seg::Wildcard;
        }
        if part.is_empty() {
            return Seg::Empty;
        }
        Seg::Field(part.to_string())
    }

    /// What to create for a missing node followed by this part.
    fn container(next: Option<&Seg>, leaf: NewLeaf) -> NewLeaf {
        match next {
            None => leaf,
            Some(Seg::Index(_) | Seg::Entry { .. } | Seg::BadEntry) => NewLeaf::Seq,
            Some(_) => NewLeaf::Map,
        }
    }

    fn text(&self) -> String {
        match self {
            Seg::Index(i) => i.to_string(),
            Seg::Entry { key, value, .. } => format!("[{key}={value}]"),
            Seg::BadEntry => "[...]".to_string(),
            Seg::Wildcard => "*".to_string(),
            Seg::Empty => String::new(),
            Seg::Field(f) => f.clone(),
        }
    }
}

/// A compiled path for visiting (and creating) target fields.
#[derive(Debug)]
pub(crate) struct PathMatcher {
    segs: Vec<Seg>,
}

/// Called on each node a [`PathMatcher`] reaches, with whether the walk just
/// created it and, with [`Options::trail`], the path to it from the root.
pub(super) type Visit<'f, T> = &'f mut dyn FnMut(&mut T, bool, &[PathStep]) -> Result<()>;

/// Called on each node the walk reaches in a parsed copy (see the module
/// documentation), with whether it is a mapping or list: kustomize's
/// `setFieldValue` still runs there, and may fail.
pub(super) type VisitCopy<'f> = &'f mut dyn FnMut(bool) -> Result<()>;

impl PathMatcher {
    /// Compiles path parts.
    pub(super) fn new(parts: &[String]) -> PathMatcher {
        PathMatcher {
            segs: parts.iter().map(|p| Seg::parse(p)).collect(),
        }
    }

    /// Calls `f` on every node the path reaches in `node` (and `copy` on those
    /// it reaches in parsed copies) and returns how many there were. With
    /// `create`, missing map keys, the list element one past the end
    /// (`containers.3` on three containers) and list entries (`[name=x]`
    /// appends `{name: x}`) are created on the way, the last part as `create`
    /// says.
    pub(crate) fn visit<T: Tree>(
        &self,
        node: &mut T,
        opts: Options<'_>,
        f: Visit<'_, T>,
        copy: VisitCopy<'_>,
    ) -> Result<usize> {
        let mut walk = Walk {
            segs: &self.segs,
            opts,
            count: 0,
            trail: Vec::new(),
            copy,
        };
        walk.go(node, 0, false, &mut Sink::Real(f))?;
        Ok(walk.count)
    }
}

/// Where the nodes a walk reaches go: the caller's visitor, or (in a parsed
/// copy) the walk's `copy` visitor.
enum Sink<'f, T> {
    Real(Visit<'f, T>),
    Copy,
}

struct Walk<'s, 'c> {
    segs: &'s [Seg],
    opts: Options<'s>,
    count: usize,
    /// The keys and indexes walked so far (kept only to find empty nulls, or
    /// for the visitor when it asks).
    trail: Vec<PathStep>,
    copy: VisitCopy<'c>,
}

impl Walk<'_, '_> {
    fn at(&self, depth: usize) -> String {
        self.segs[..depth]
            .iter()
            .map(Seg::text)
            .collect::<Vec<_>>()
            .join(".")
    }

    fn part(&self, depth: usize) -> String {
        self.segs[depth].text()
    }

    /// The node a missing part is created as.
    fn new_node<T: Tree>(&self, depth: usize) -> Option<T> {
        let leaf = self.opts.create?;
        Some(T::empty(Seg::container(self.segs.get(depth + 1), leaf)))
    }

    fn step<T: Tree>(
        &mut self,
        step: impl FnOnce() -> PathStep,
        node: &mut T,
        depth: usize,
        created: bool,
        sink: &mut Sink<'_, T>,
    ) -> Result<()> {
        let track = self.opts.trail || !self.opts.empty_nulls.is_empty();
        if track {
            self.trail.push(step());
        }
        let r = self.go(node, depth, created, sink);
        if track {
            self.trail.pop();
        }
        r
    }

    fn go<T: Tree>(
        &mut self,
        node: &mut T,
        depth: usize,
        created: bool,
        sink: &mut Sink<'_, T>,
    ) -> Result<()> {
        let Some(seg) = self.segs.get(depth) else {
            self.count += 1;
            return match sink {
                Sink::Real(f) => f(node, created, &self.trail),
                Sink::Copy => (self.copy)(node.is_collection()),
            };
        };
        if node.is_null() {
            return self.through_null::<T>(depth, sink);
        }
        match seg {
            Seg::Field(name) => self.field(node, depth, name, sink),
            Seg::Empty => match node.is_map() {
                true => Err(Error::invalid_config(format!(
                    "field path has an empty part after '{}' (a doubled or trailing dot?)",
                    self.at(depth)
                ))),
                false => Ok(()),
            },
            Seg::Index(idx) => self.index(node, depth, *idx, sink),
            Seg::Entry { key, value, re } => {
                let re = re.as_ref().map_err(|e| {
                    Error::invalid_config(format!(
                        "'{}': {value:?} is not a valid regular expression: {e}",
                        self.part(depth)
                    ))
                })?;
                self.entries(node, depth, (key, value, re), sink)
            }
            Seg::BadEntry => Err(Error::invalid_config(format!(
                "field path part '{}': {NO_EQUALS}",
                self.part(depth)
            ))),
            Seg::Wildcard => {
                let items = self.list(node, depth)?;
                for (i, item) in items.iter_mut().enumerate() {
                    self.step(|| PathStep::Index(i), item, depth + 1, false, sink)?;
                }
                Ok(())
            }
        }
    }

    /// A part applied to a null: nothing there to find, and what `create`
    /// makes goes into a throwaway container (kyaml appends it to the null
    /// scalar, where nothing reads it).
    fn through_null<T: Tree>(&mut self, depth: usize, sink: &mut Sink<'_, T>) -> Result<()> {
        let creating = self.opts.create.is_some();
        let mut scratch = match &self.segs[depth] {
            Seg::Field(_) if creating => T::empty(NewLeaf::Map),
            Seg::Index(0) | Seg::Entry { .. } if creating => T::empty(NewLeaf::Seq),
            Seg::Index(idx) => {
                return Err(Error::invalid_config(format!(
                    "'{}' has no element {idx} (it is null)",
                    self.at(depth)
                )));
            }
            _ => return Ok(()),
        };
        self.go(&mut scratch, depth, false, sink)
    }

    fn list<'n, T: Tree>(&self, node: &'n mut T, depth: usize) -> Result<&'n mut Vec<T>> {
        let name = node.type_name();
        node.items_mut()
            .ok_or_else(|| wrong_kind(&self.at(depth), &self.part(depth), "a list", name))
    }

    fn field<T: Tree>(
        &mut self,
        node: &mut T,
        depth: usize,
        name: &str,
        sink: &mut Sink<'_, T>,
    ) -> Result<()> {
        if !node.is_map() {
            return Err(wrong_kind(
                &self.at(depth),
                name,
                "a mapping",
                node.type_name(),
            ));
        }
        let more = depth + 1 < self.segs.len();
        if let Some(child) = node.get_mut(name) {
            if self.opts.into_text && more && !child.is_collection() {
                let text = if child.is_null() && self.written_as_nothing(name) {
                    Cow::Borrowed("")
                } else {
                    child.text()
                };
                return self.walk_copy_of_text(&text, depth + 1);
            }
            return self.step(
                || PathStep::Key(name.to_string()),
                child,
                depth + 1,
                false,
                sink,
            );
        }
        let Some(new) = self.new_node::<T>(depth) else {
            return Ok(());
        };
        match node.insert(name, new) {
            Some(child) => self.step(
                || PathStep::Key(name.to_string()),
                child,
                depth + 1,
                true,
                sink,
            ),
            None => Ok(()),
        }
    }

    /// Whether the field `name` under the current trail is a null written as
    /// nothing in the resource.
    fn written_as_nothing(&self, name: &str) -> bool {
        self.opts.empty_nulls.iter().any(|p| {
            p.len() == self.trail.len() + 1
                && p[..self.trail.len()] == self.trail[..]
                && p.last() == Some(&PathStep::Key(name.to_string()))
        })
    }

    /// The rest of the path, from `depth`, in the YAML text `text`, parsed
    /// into a copy that is dropped afterwards.
    fn walk_copy_of_text(&mut self, text: &str, depth: usize) -> Result<()> {
        let at = self.at(depth);
        let parsed = crate::yaml::parse::parse_styled(text, &format!("the text at '{at}'"))?;
        let Some(mut copy) = parsed.root else {
            return Err(Error::invalid_config(format!(
                "cannot apply '{}' at '{at}': the text there is empty (no YAML document)",
                self.part(depth)
            )));
        };
        let track = std::mem::take(&mut self.trail);
        let r = self.go(&mut copy, depth, false, &mut Sink::Copy);
        self.trail = track;
        r
    }

    fn index<T: Tree>(
        &mut self,
        node: &mut T,
        depth: usize,
        idx: usize,
        sink: &mut Sink<'_, T>,
    ) -> Result<()> {
        let new = self.new_node::<T>(depth);
        let at = self.at(depth);
        let creating = self.opts.create.is_some();
        let items = self.list(node, depth)?;
        let mut created = false;
        if let (true, Some(new)) = (items.len() == idx, new) {
            items.push(new);
            created = true;
        }
        let len = items.len();
        match items.get_mut(idx) {
            Some(item) => self.step(|| PathStep::Index(idx), item, depth + 1, created, sink),
            None => Err(Error::invalid_config(format!(
                "'{at}' has {len} element{}, so there is no index {idx}{}",
                if len == 1 { "" } else { "s" },
                if creating {
                    format!(" (creating can only append, at index {len})")
                } else {
                    String::new()
                }
            ))),
        }
    }

    fn entries<T: Tree>(
        &mut self,
        node: &mut T,
        depth: usize,
        sel: (&str, &str, &Regex),
        sink: &mut Sink<'_, T>,
    ) -> Result<()> {
        let (key, value, re) = sel;
        let creating = self.opts.create.is_some();
        let items = self.list(node, depth)?;
        let hits = |items: &[T]| -> Vec<usize> {
            items
                .iter()
                .enumerate()
                .filter(|(_, e)| e.entry_text(key).is_some_and(|t| re.is_match(t.trim())))
                .map(|(i, _)| i)
                .collect()
        };
        let mut found = hits(items);
        let mut created = false;
        if found.is_empty() && creating {
            items.push(T::new_entry(key, value));
            found = hits(items);
            if found.is_empty() {
                // kustomize loops forever here; say why instead.
                return Err(Error::invalid_config(format!(
                    "'{}': created the list entry {key}={value}, but it does not match its own regular expression",
                    self.part(depth)
                )));
            }
            created = key.is_empty();
        }
        for i in found {
            if let Some(item) = items.get_mut(i) {
                self.step(|| PathStep::Index(i), item, depth + 1, created, sink)?;
            }
        }
        Ok(())
    }
}

fn wrong_kind(at: &str, part: &str, want: &str, found: &str) -> Error {
    super::wrong_kind_named(at, part, want, found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::field_path::FieldPath;

    use crate::yaml::parse::first_doc as yaml;

    fn walk(n: &mut Node, p: &str, opts: Options<'_>) -> Result<Vec<bool>> {
        let mut seen = Vec::new();
        let mut copies = 0;
        FieldPath::parse(p).matcher().visit(
            n,
            opts,
            &mut |node: &mut Node, created, _: &[PathStep]| {
                seen.push(created);
                *node = Node::Str("NEW".into());
                Ok(())
            },
            &mut |_| {
                copies += 1;
                Ok(())
            },
        )?;
        // Visits in parsed copies count, flagged as not created.
        seen.extend(std::iter::repeat_n(false, copies));
        Ok(seen)
    }

    fn visit(n: &mut Node, p: &str, create: Option<NewLeaf>) -> Result<Vec<bool>> {
        walk(
            n,
            p,
            Options {
                create,
                ..Options::default()
            },
        )
    }

    #[test]
    fn matcher_uses_unanchored_regexes_and_wildcards() {
        let mut n = yaml(
            "c:\n- name: nginx\n  image: a\n- name: nginx-sidecar\n  image: b\n- name: other\n",
        );
        assert_eq!(
            visit(&mut n, "c.[name=nginx].image", None).ok(),
            Some(vec![false, false])
        );
        assert_eq!(
            visit(&mut n, "c.*.image", None).ok(),
            Some(vec![false, false])
        );
        assert_eq!(
            visit(&mut n, "c.*.image", Some(NewLeaf::Scalar)).ok(),
            Some(vec![false, false, true])
        );
        assert_eq!(
            visit(&mut n, "c.[name=(].image", None)
                .err()
                .map(|e| e.to_string().contains("regular expression")),
            Some(true)
        );
        assert!(visit(&mut n, "c.image", None).is_err());
        assert!(visit(&mut n, "*", None).is_err());
    }

    #[test]
    fn matcher_creates_what_is_missing() {
        let mut n = yaml("spec: {}\n");
        assert_eq!(
            visit(&mut n, "spec.list.[name=x].v", Some(NewLeaf::Scalar)).ok(),
            Some(vec![true])
        );
        assert_eq!(
            visit(&mut n, "spec.other.0.v", Some(NewLeaf::Scalar)).ok(),
            Some(vec![true])
        );
        assert_eq!(
            visit(&mut n, "spec.nums.[=80]", Some(NewLeaf::Scalar)).ok(),
            Some(vec![true])
        );
        let want = yaml("spec:\n  list: [{name: x, v: NEW}]\n  other: [{v: NEW}]\n  nums: [NEW]\n");
        assert_eq!(n, want);
        // Without create nothing is visited; an index past the end is an error.
        assert_eq!(visit(&mut n, "spec.missing.v", None).ok(), Some(vec![]));
        assert!(visit(&mut n, "spec.other.5.v", None).is_err());
        assert!(visit(&mut n, "spec.other.5.v", Some(NewLeaf::Scalar)).is_err());
        assert!(visit(&mut n, "spec.list.[name].v", Some(NewLeaf::Scalar)).is_err());
    }

    #[test]
    fn what_is_created_in_a_null_is_thrown_away() {
        // kubectl kustomize (v5.5.0 and v5.8.1) leaves these nulls as they are.
        let mut n = yaml("spec:\n  a: null\n  list:\n  - null\n");
        let before = n.clone();
        assert_eq!(
            visit(&mut n, "spec.a.b", Some(NewLeaf::Scalar)).ok(),
            Some(vec![true])
        );
        assert_eq!(
            visit(&mut n, "spec.list.0.x", Some(NewLeaf::Scalar)).ok(),
            Some(vec![true])
        );
        assert_eq!(n, before);
        assert_eq!(visit(&mut n, "spec.a.b", None).ok(), Some(vec![]));
        assert!(visit(&mut n, "spec.a.3", Some(NewLeaf::Scalar)).is_err());
    }

    #[test]
    fn matcher_skips_a_leading_dot_and_refuses_empty_parts_on_mappings() {
        let mut n = yaml("data:\n  a: x\n  c: y\n");
        assert_eq!(visit(&mut n, ".data.a", None).ok(), Some(vec![false]));
        assert_eq!(
            visit(&mut n, ".data.new", Some(NewLeaf::Scalar)).ok(),
            Some(vec![true])
        );
        // An empty part on a mapping is an error; on a scalar it matches nothing.
        assert!(visit(&mut n, "data..a", None).is_err());
        assert!(visit(&mut n, "..", None).is_err());
        assert_eq!(visit(&mut n, "data.c.", None).ok(), Some(vec![]));
        assert_eq!(visit(&mut n, ".zz.data", None).ok(), Some(vec![]));
    }

    #[test]
    fn into_text_walks_a_parsed_copy() {
        let text = |create| Options {
            create,
            into_text: true,
            ..Options::default()
        };
        let mut n = yaml("data:\n  cfg: '{\"a\": {\"b\": 1}}'\n  plain: hello\n  bad: '[x'\n");
        let before = n.clone();
        assert_eq!(
            walk(&mut n, "data.cfg.a.b", text(None)).ok(),
            Some(vec![false])
        );
        assert_eq!(walk(&mut n, "data.cfg.a.c", text(None)).ok(), Some(vec![]));
        assert_eq!(
            walk(&mut n, "data.cfg.a.c", text(Some(NewLeaf::Scalar))).ok(),
            Some(vec![false])
        );
        assert_eq!(n, before);
        assert!(walk(&mut n, "data.plain.x", text(None)).is_err());
        assert!(walk(&mut n, "data.bad.x", text(None)).is_err());
        // Before v5.8.0 the path simply fails on the string.
        assert!(visit(&mut n, "data.cfg.a.b", None).is_err());
        // A null written as nothing is an empty text: every part fails on it.
        let mut e = yaml("data:\n  empty:\n  word: null\n");
        let empty = vec![vec![
            PathStep::Key("data".into()),
            PathStep::Key("empty".into()),
        ]];
        let opts = Options {
            create: Some(NewLeaf::Scalar),
            into_text: true,
            empty_nulls: &empty,
            trail: false,
        };
        assert!(walk(&mut e, "data.empty.x", opts).is_err());
        assert_eq!(walk(&mut e, "data.word.x", opts).ok(), Some(vec![false]));
    }
}
