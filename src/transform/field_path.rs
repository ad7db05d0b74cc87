//! kustomize's dotted field paths (`spec.template.spec.containers.[name=app].image`),
//! as `replacements` use them, and the two walks kustomize does over them.
//!
//! A path is split on `.`; `\.` escapes a dot, and a bracketed part keeps its
//! dots: `[name=a.b]` stays a list-entry selector, `[a.b/c]` (no `=`) becomes
//! the plain map key `a.b/c`. Each part is then one of:
//! - a map key (`spec`);
//! - a list index (`0`);
//! - a list entry selector `[key=value]` (elements whose `key` field is
//!   `value`), or `[=value]` for a list of scalars;
//! - in targets only, `*` for every element of a list;
//! - in lookups only, `-` for the last element.
//!
//! The two walks differ the way kustomize's differ, on purpose:
//! - [`FieldPath::lookup`] (a replacement's source) returns one node: list
//!   entry selectors compare values exactly and pick the first match, blank
//!   and empty parts are skipped, `*` is refused.
//! - [`PathMatcher`] (a replacement's targets) visits every node the path
//!   reaches: a selector's value is an unanchored regular expression, `*`
//!   fans out, and missing parts can be created.

use crate::error::{Error, Result};
use crate::yaml::Node;
use regex::Regex;

/// A parsed field path.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldPath {
    text: String,
    parts: Vec<String>,
}

impl FieldPath {
    /// Splits `text` into parts (kustomize's "smarter path splitter").
    pub fn parse(text: &str) -> FieldPath {
        FieldPath {
            text: text.to_string(),
            parts: smart_split(text),
        }
    }

    /// The parts after splitting.
    #[cfg(test)]
    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    /// The node at this path, or `None` when a part is missing (or the walk
    /// reaches a null). Errors when a part cannot apply to the node it meets
    /// (a key on a list, an index on a mapping, `[key]` without `=`, `*`).
    pub fn lookup<'n>(&self, node: &'n Node) -> Result<Option<&'n Node>> {
        // kustomize's lookup trims the parts and drops empty ones.
        let parts: Vec<&str> = self
            .parts
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect();
        let mut cur = node;
        for (i, part) in parts.iter().enumerate() {
            let at = || parts[..i].join(".");
            let next = match lookup_part(part) {
                LookupPart::Index(idx) => elements(cur, &at, part)?.get(idx),
                LookupPart::Last => elements(cur, &at, part)?.last(),
                LookupPart::Entry(key, value) => elements(cur, &at, part)?
                    .iter()
                    .find(|e| entry_text(e, &key).is_some_and(|t| t == value)),
                LookupPart::Field(name) => match cur {
                    Node::Null => None,
                    Node::Map(m) => m.get(name),
                    other => return Err(wrong_kind(&at(), part, "a mapping", other)),
                },
                LookupPart::Bad(msg) => {
                    return Err(Error::invalid_config(format!(
                        "field path part '{part}': {msg}"
                    )));
                }
            };
            match next {
                Some(n) => cur = n,
                None => return Ok(None),
            }
        }
        Ok(Some(cur))
    }

    /// Compiles the path for visiting targets.
    pub fn matcher(&self) -> PathMatcher {
        // kustomize ignores one leading dot in a target path
        // (`.metadata.name`, as kubebuilder scaffolds write them); an empty
        // part anywhere else is `Seg::Empty`.
        let parts = match self.parts.split_first() {
            Some((first, rest)) if first.is_empty() => rest,
            _ => &self.parts[..],
        };
        PathMatcher {
            path: self.text.clone(),
            segs: parts.iter().map(|p| Seg::parse(p)).collect(),
        }
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Splits on unescaped dots, keeping bracketed parts whole. A bracketed part
/// holding `=` keeps its brackets (a list entry selector); one without `=`
/// that had to be rejoined loses them (a map key with dots). A part that is
/// bracketed without containing a dot keeps its brackets whatever it holds,
/// as in kustomize (so `[foo]` is a malformed selector, not the key `foo`).
fn smart_split(path: &str) -> Vec<String> {
    let raw = split_escaped(path, '.');
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let part = &raw[i];
        if part.starts_with('[') && !part.ends_with(']') {
            let mut joined = part.clone();
            while i + 1 < raw.len() {
                i += 1;
                joined.push('.');
                joined.push_str(&raw[i]);
                if raw[i].ends_with(']') {
                    break;
                }
            }
            if joined.contains('=') {
                out.push(joined);
            } else {
                out.push(joined.trim_matches(|c| c == '[' || c == ']').to_string());
            }
        } else {
            out.push(part.clone());
        }
        i += 1;
    }
    out
}

/// Splits on `delim`, a backslash right before it escaping it.
pub(crate) fn split_escaped(path: &str, delim: char) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in path.split(delim) {
        match out.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push(delim);
                last.push_str(piece);
            }
            _ => out.push(piece.to_string()),
        }
    }
    out
}

/// A part as the source lookup reads it.
enum LookupPart<'p> {
    Index(usize),
    Last,
    Entry(String, String),
    Field(&'p str),
    Bad(String),
}

fn lookup_part(part: &str) -> LookupPart<'_> {
    if let Some(idx) = go_atoi(part) {
        return match usize::try_from(idx) {
            Ok(i) => LookupPart::Index(i),
            Err(_) => LookupPart::Bad(format!("array index {idx} cannot be negative")),
        };
    }
    if part == "-" {
        return LookupPart::Last;
    }
    if part == "*" {
        return LookupPart::Bad(
            "the wildcard '*' selects several values; a replacement source needs one".into(),
        );
    }
    if is_list_entry(part) {
        return match split_entry(part) {
            Some((k, v)) => LookupPart::Entry(k.to_string(), v.to_string()),
            None => LookupPart::Bad(NO_EQUALS.into()),
        };
    }
    LookupPart::Field(part)
}

const NO_EQUALS: &str = "a list entry selector must look like [fieldName=fieldValue] (or [=value] for a list of scalars)";

/// Go's `strconv.Atoi`: optional sign and decimal digits, within 64 bits.
pub(crate) fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn is_list_entry(part: &str) -> bool {
    part.starts_with('[') && part.ends_with(']') && part.len() >= 2
}

/// `[key=value]` into key and value (split at the first `=`).
fn split_entry(part: &str) -> Option<(&str, &str)> {
    part.strip_prefix('[')?.strip_suffix(']')?.split_once('=')
}

/// The elements of a list (a null reads as an empty list).
fn elements<'n>(node: &'n Node, at: &dyn Fn() -> String, part: &str) -> Result<&'n [Node]> {
    match node {
        Node::Seq(items) => Ok(items),
        Node::Null => Ok(&[]),
        other => Err(wrong_kind(&at(), part, "a list", other)),
    }
}

/// The text a list entry selector compares: the element's `key` field for a
/// mapping element, the element itself for `[=value]`. Only scalars have text.
fn entry_text(elem: &Node, key: &str) -> Option<String> {
    let n = if key.is_empty() {
        elem
    } else {
        elem.as_map()?.get(key)?
    };
    match n {
        Node::Seq(_) | Node::Map(_) => None,
        scalar => scalar.scalar_string(),
    }
}

fn wrong_kind(at: &str, part: &str, want: &str, found: &Node) -> Error {
    let at = if at.is_empty() {
        "the top of the object".to_string()
    } else {
        format!("'{at}'")
    };
    Error::invalid_config(format!(
        "cannot apply '{part}' at {at}: expected {want}, found a {}",
        found.type_name()
    ))
}

/// What to create at the end of a path that does not exist yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewLeaf {
    /// A scalar: visitors get a null node flagged as created, to fill in.
    Scalar,
    Map,
    Seq,
}

impl NewLeaf {
    /// The kind matching a value that will be put there.
    pub fn like(value: &Node) -> NewLeaf {
        match value {
            Node::Map(_) => NewLeaf::Map,
            Node::Seq(_) => NewLeaf::Seq,
            _ => NewLeaf::Scalar,
        }
    }

    fn empty(self) -> Node {
        match self {
            NewLeaf::Scalar => Node::Null,
            NewLeaf::Map => Node::map(),
            NewLeaf::Seq => Node::Seq(Vec::new()),
        }
    }
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
                    re: Regex::new(v).map_err(|e| regex_error(&e)),
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
}

/// The regex crate's message is several lines (the pattern, a caret, the
/// reason); keep the reason.
pub(crate) fn regex_error(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(&text);
    last.trim().trim_start_matches("error: ").to_string()
}

/// A compiled path for visiting (and creating) target fields.
#[derive(Debug)]
pub struct PathMatcher {
    path: String,
    segs: Vec<Seg>,
}

/// Called on each node a [`PathMatcher`] reaches, with whether the walk just
/// created it.
pub type Visit<'f> = &'f mut dyn FnMut(&mut Node, bool) -> Result<()>;

impl PathMatcher {
    /// Calls `f` on every node the path reaches in `node` and returns how
    /// many there were. With `create`, missing map keys, the list element
    /// one past the end (`containers.3` on three containers) and list entries
    /// (`[name=x]` appends `{name: x}`) are created on the way, the last part
    /// as `create` says; a null met on the way becomes the container needed.
    pub fn visit(&self, node: &mut Node, create: Option<NewLeaf>, f: Visit) -> Result<usize> {
        let mut walk = Walk {
            segs: &self.segs,
            create,
            count: 0,
        };
        walk.go(node, 0, false, f)?;
        Ok(walk.count)
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.path
    }
}

struct Walk<'s> {
    segs: &'s [Seg],
    create: Option<NewLeaf>,
    count: usize,
}

impl Walk<'_> {
    fn at(&self, depth: usize) -> String {
        self.segs[..depth]
            .iter()
            .map(seg_text)
            .collect::<Vec<_>>()
            .join(".")
    }

    fn part(&self, depth: usize) -> String {
        seg_text(&self.segs[depth])
    }

    /// The node a missing part is created as.
    fn new_node(&self, depth: usize) -> Option<Node> {
        let leaf = self.create?;
        Some(Seg::container(self.segs.get(depth + 1), leaf).empty())
    }

    fn go(&mut self, node: &mut Node, depth: usize, created: bool, f: Visit) -> Result<()> {
        let Some(seg) = self.segs.get(depth) else {
            self.count += 1;
            return f(node, created);
        };
        match seg {
            Seg::Field(name) => self.field(node, depth, name, f),
            Seg::Empty => match node {
                Node::Map(_) => Err(Error::invalid_config(format!(
                    "field path has an empty part after '{}' (a doubled or trailing dot?)",
                    self.at(depth)
                ))),
                _ => Ok(()),
            },
            Seg::Index(idx) => self.index(node, depth, *idx, f),
            Seg::Entry { key, value, re } => {
                let re = re.as_ref().map_err(|e| {
                    Error::invalid_config(format!(
                        "'{}': {value:?} is not a valid regular expression: {e}",
                        self.part(depth)
                    ))
                })?;
                self.entries(node, depth, (key, value, re), f)
            }
            Seg::BadEntry => Err(Error::invalid_config(format!(
                "field path part '{}': {NO_EQUALS}",
                self.part(depth)
            ))),
            Seg::Wildcard => {
                let Some(items) = self.list(node, depth, false)? else {
                    return Ok(());
                };
                for item in items {
                    self.go(item, depth + 1, false, f)?;
                }
                Ok(())
            }
        }
    }

    /// The list `node` is; a null is an empty list (made a real one when
    /// `make` is set and the walk creates).
    fn list<'n>(
        &self,
        node: &'n mut Node,
        depth: usize,
        make: bool,
    ) -> Result<Option<&'n mut Vec<Node>>> {
        if node.is_null() {
            if !(make && self.create.is_some()) {
                return Ok(None);
            }
            *node = Node::Seq(Vec::new());
        }
        match node {
            Node::Seq(items) => Ok(Some(items)),
            other => Err(wrong_kind(
                &self.at(depth),
                &self.part(depth),
                "a list",
                other,
            )),
        }
    }

    fn field(&mut self, node: &mut Node, depth: usize, name: &str, f: Visit) -> Result<()> {
        if node.is_null() {
            if self.create.is_none() {
                return Ok(());
            }
            *node = Node::map();
        }
        let Node::Map(m) = node else {
            return Err(wrong_kind(&self.at(depth), name, "a mapping", node));
        };
        let mut created = false;
        if !m.contains_key(name) {
            let Some(new) = self.new_node(depth) else {
                return Ok(());
            };
            m.insert(name.to_string(), new);
            created = true;
        }
        match m.get_mut(name) {
            Some(child) => self.go(child, depth + 1, created, f),
            None => Ok(()),
        }
    }

    fn index(&mut self, node: &mut Node, depth: usize, idx: usize, f: Visit) -> Result<()> {
        let new = self.new_node(depth);
        let at = self.at(depth);
        let items = match self.list(node, depth, idx == 0)? {
            Some(items) => items,
            None => {
                return Err(Error::invalid_config(format!(
                    "'{at}' has no element {idx} (it is null)"
                )));
            }
        };
        let mut created = false;
        if let (true, Some(new)) = (items.len() == idx, new) {
            items.push(new);
            created = true;
        }
        let len = items.len();
        match items.get_mut(idx) {
            Some(item) => self.go(item, depth + 1, created, f),
            None => Err(Error::invalid_config(format!(
                "'{at}' has {len} element{}, so there is no index {idx}{}",
                if len == 1 { "" } else { "s" },
                if self.create.is_some() {
                    format!(" (creating can only append, at index {len})")
                } else {
                    String::new()
                }
            ))),
        }
    }

    fn entries(
        &mut self,
        node: &mut Node,
        depth: usize,
        sel: (&str, &str, &Regex),
        f: Visit,
    ) -> Result<()> {
        let (key, value, re) = sel;
        let Some(items) = self.list(node, depth, true)? else {
            return Ok(());
        };
        let hits = |items: &[Node]| -> Vec<usize> {
            items
                .iter()
                .enumerate()
                .filter(|(_, e)| entry_text(e, key).is_some_and(|t| re.is_match(t.trim())))
                .map(|(i, _)| i)
                .collect()
        };
        let mut found = hits(items);
        let mut created = false;
        if found.is_empty() && self.create.is_some() {
            // kustomize appends `{key: value}` (or the bare value) with the
            // text read as a plain scalar, so `[port=80]` makes a number.
            let v = crate::yaml::parse::resolve_resource_scalar(value, None)
                .unwrap_or_else(|_| Node::text(value.to_string()));
            let elem = if key.is_empty() {
                v
            } else {
                Node::Map([(key.to_string(), v)].into_iter().collect())
            };
            items.push(elem);
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
                self.go(item, depth + 1, created, f)?;
            }
        }
        Ok(())
    }
}

fn seg_text(seg: &Seg) -> String {
    match seg {
        Seg::Index(i) => i.to_string(),
        Seg::Entry { key, value, .. } => format!("[{key}={value}]"),
        Seg::BadEntry => "[...]".to_string(),
        Seg::Wildcard => "*".to_string(),
        Seg::Empty => String::new(),
        Seg::Field(f) => f.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> Vec<String> {
        FieldPath::parse(s).parts().to_vec()
    }

    fn yaml(s: &str) -> Node {
        crate::yaml::parse::parse_stream(s, "test")
            .expect("yaml")
            .remove(0)
    }

    #[test]
    fn splits_like_kustomize() {
        assert_eq!(parts("spec.replicas"), ["spec", "replicas"]);
        assert_eq!(
            parts("spec.data.[name=first].key"),
            ["spec", "data", "[name=first]", "key"]
        );
        assert_eq!(
            parts("spec.data.[.name=.first].key"),
            ["spec", "data", "[.name=.first]", "key"]
        );
        assert_eq!(
            parts("spec.data.[name=f.i.r.s.t.].key"),
            ["spec", "data", "[name=f.i.r.s.t.]", "key"]
        );
        assert_eq!(parts(r"spec\.replicas"), ["spec.replicas"]);
        assert_eq!(
            parts("spec.data.[name=f.i.[r.s.t..key"),
            ["spec", "data", "[name=f.i.[r.s.t..key"]
        );
        assert_eq!(
            parts("metadata.annotations.[a.b.c/d.e.f-g.]"),
            ["metadata", "annotations", "a.b.c/d.e.f-g."]
        );
        assert_eq!(
            parts("metadata.annotations.[foo]"),
            ["metadata", "annotations", "[foo]"]
        );
        assert_eq!(parts(""), [""]);
    }

    #[test]
    fn lookup_reads_one_node() {
        let n = yaml(
            "spec:\n  c:\n  - name: a\n    image: x\n  - name: ab\n    image: y\n  args: [p, q]\n",
        );
        let get = |p: &str| FieldPath::parse(p).lookup(&n).map(|o| o.cloned());
        assert_eq!(
            get("spec.c.[name=ab].image").ok().flatten(),
            Some(Node::Str("y".into()))
        );
        // Exact comparison in lookups: "a" does not select "ab".
        assert_eq!(
            get("spec.c.[name=a].image").ok().flatten(),
            Some(Node::Str("x".into()))
        );
        assert_eq!(get("spec.c.[name=b].image").ok().flatten(), None);
        assert_eq!(
            get("spec.c.1.image").ok().flatten(),
            Some(Node::Str("y".into()))
        );
        assert_eq!(
            get("spec.c.-.name").ok().flatten(),
            Some(Node::Str("ab".into()))
        );
        assert_eq!(
            get("spec.args.[=q]").ok().flatten(),
            Some(Node::Str("q".into()))
        );
        assert_eq!(
            get(" spec..c.0.name").ok().flatten(),
            Some(Node::Str("a".into()))
        );
        assert_eq!(get("spec.c.9.name").ok().flatten(), None);
        assert_eq!(get("spec.missing.x").ok().flatten(), None);
        assert!(get("spec.c.image").is_err());
        assert!(get("spec.c.*.image").is_err());
        assert!(get("spec.c.-1.image").is_err());
        assert!(get("spec.c.[name].image").is_err());
    }

    fn visit(n: &mut Node, p: &str, create: Option<NewLeaf>) -> Result<Vec<bool>> {
        let mut seen = Vec::new();
        FieldPath::parse(p)
            .matcher()
            .visit(n, create, &mut |node, created| {
                seen.push(created);
                *node = Node::Str("NEW".into());
                Ok(())
            })?;
        Ok(seen)
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
}
