//! Finding where a field is written: the line and column of a path (as
//! [`super::de::DeError`] gives it) in the text of a YAML document, so that an
//! error about a field can point at it.
//!
//! [`Node`](super::Node) keeps no positions, so the text is parsed again here into a small
//! tree that keeps each node's start: by the build's fast scanner where it reads the text
//! (plain block YAML), else by saphyr-parser. An error report parses one file; a provenance
//! report (`build --provenance`, `explain`) parses every file a build's values come from.

use super::parse::PathStep;
use saphyr_parser::{Event, Parser, ScalarStyle};
use std::collections::HashMap;

/// How many merge keys deep a key is looked for (guards against cycles).
const MAX_MERGE_DEPTH: usize = 64;

/// The 1-based line and column, in `text`'s first YAML document, of the field at
/// `path`: the key, when the last step is a key; the item, when it is an index; the
/// document's top node for an empty path.
///
/// Keys match exactly first, then ignoring case (as [`super::de`] matches struct
/// fields). Aliases are followed, and keys brought in by a merge key (`<<`) are found
/// where the anchored mapping writes them; when a key appears twice, the one that wins
/// (the last) is the one found. When the last step is missing (a field that has to be
/// there but is not), the position is its parent's. `None` when the text does not
/// parse or the path leads elsewhere.
pub fn locate(text: &str, path: &[PathStep]) -> Option<(usize, usize)> {
    Located::parse(text, 0)?.key(path)
}

/// One document of a YAML text, parsed once to answer where many of its fields are
/// written (`kbuild explain` asks for every field of a resource).
pub struct Located {
    tree: Tree,
}

impl Located {
    /// The document at `index` (0-based, counting every document of the stream) of
    /// `text`; `None` when the text does not parse or has fewer documents.
    pub fn parse(text: &str, index: usize) -> Option<Located> {
        Some(Located {
            tree: Tree::parse(text, index)?,
        })
    }

    /// Every document of `text`, parsed in one pass (`None` for one that does not parse).
    pub fn parse_all(text: &str) -> Vec<Option<Located>> {
        Tree::parse_all(text, usize::MAX)
            .into_iter()
            .map(|t| t.map(|tree| Located { tree }))
            .collect()
    }

    /// What [`locate`] answers, in this document.
    pub fn key(&self, path: &[PathStep]) -> Option<(usize, usize)> {
        self.walk(path).map(|(key, _)| key)
    }

    /// Where the value at `path` starts (the scalar, or the collection's first item or
    /// its opening bracket); `None` when the path leads nowhere (no parent's position
    /// stands in for a missing field here).
    pub fn value(&self, path: &[PathStep]) -> Option<(usize, usize)> {
        let (_, node) = self.walk(path)?;
        let node = self.tree.resolve(node?)?;
        Some(self.tree.pos(node))
    }

    /// The text of the scalar at `path`, when there is one.
    pub fn scalar(&self, path: &[PathStep]) -> Option<&str> {
        let (_, node) = self.walk(path)?;
        match &self.tree.nodes[self.tree.resolve(node?)?].kind {
            Kind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// Every scalar value (not key) at or below `path`, with where it starts, in document
    /// order: where a value a kustomization entry or a JSON patch writes may be written.
    /// Aliases are not followed (each node is visited once).
    pub fn values_under(&self, path: &[PathStep]) -> Vec<(&str, (usize, usize))> {
        let mut out = Vec::new();
        let Some((_, Some(top))) = self.walk(path) else {
            return out;
        };
        let mut stack = vec![top];
        while let Some(n) = stack.pop() {
            match &self.tree.nodes[n].kind {
                Kind::Scalar { text, .. } => out.push((text.as_str(), self.tree.pos(n))),
                Kind::Seq(items) => stack.extend(items.iter().rev()),
                // Values only: the odd children.
                Kind::Map(kv) => stack.extend(kv.iter().skip(1).step_by(2).rev()),
                Kind::Alias(_) => {}
            }
        }
        out
    }

    /// Where the value at `path` starts, as [`Located::value`] answers, for a path that
    /// may name a list element by the scalar value of one of its keys
    /// ([`Seek::Named`]: the first element whose key holds that text). Walked once from
    /// the top, with no path built: a report asks this for every field of a resource.
    /// `None` when a step is missing (or an element before the named one is an alias to
    /// nothing).
    pub fn seek_value<'a>(
        &self,
        path: impl IntoIterator<Item = Seek<'a>>,
    ) -> Option<(usize, usize)> {
        let tree = &self.tree;
        let mut at = tree.root?;
        for step in path {
            let node = tree.resolve(at)?;
            at = match step {
                Seek::Key(key) => tree.entry(node, key)?.1,
                Seek::Index(index) => match &tree.nodes[node].kind {
                    Kind::Seq(items) => *items.get(index)?,
                    _ => return None,
                },
                Seek::Named(key, value) => {
                    let Kind::Seq(items) = &tree.nodes[node].kind else {
                        return None;
                    };
                    let mut found = None;
                    for &item in items {
                        let item_node = tree.resolve(item)?;
                        let named = tree
                            .entry(item_node, key)
                            .and_then(|(_, v)| tree.resolve(v))
                            .is_some_and(|v| {
                                matches!(&tree.nodes[v].kind, Kind::Scalar { text, .. } if text == value)
                            });
                        if named {
                            found = Some(item);
                            break;
                        }
                    }
                    found?
                }
            };
        }
        Some(tree.pos(tree.resolve(at)?))
    }

    /// The position [`Located::key`] gives, and the node at the end of `path` when every
    /// step is there.
    fn walk(&self, path: &[PathStep]) -> Option<((usize, usize), Option<usize>)> {
        let tree = &self.tree;
        let mut at = tree.root?;
        let mut pos = tree.pos(at);
        for (i, step) in path.iter().enumerate() {
            let last = i + 1 == path.len();
            let node = tree.resolve(at)?;
            let found = match step {
                PathStep::Key(key) => tree.entry(node, key).map(|(k, v)| (tree.pos(k), v)),
                PathStep::Index(index) => match &tree.nodes[node].kind {
                    Kind::Seq(items) => items.get(*index).map(|&item| (tree.pos(item), item)),
                    _ => None,
                },
            };
            match found {
                Some((p, next)) => {
                    pos = p;
                    at = next;
                }
                // A missing last step: point at its parent.
                None if last => return Some((pos, None)),
                None => return None,
            }
        }
        Some((pos, Some(at)))
    }
}

/// One step of a path for [`Located::seek_value`].
#[derive(Clone, Copy, Debug)]
pub enum Seek<'a> {
    /// A mapping key (matched as [`Located::key`] matches keys).
    Key(&'a str),
    /// A list item by position.
    Index(usize),
    /// The first list item whose key (first) holds the scalar text (second).
    Named(&'a str, &'a str),
}

/// The nodes of one document, each with where it starts.
#[derive(Debug, PartialEq)]
struct Tree {
    nodes: Vec<Item>,
    /// Anchor id to the anchored node.
    anchors: HashMap<usize, usize>,
    root: Option<usize>,
}

// Small, as a report holds one for every node of every file it looks into (the
// provenance document of a large build, every source file): a scalar's text inline
// when short (most are), lines and columns in 32 bits.
#[derive(Debug, PartialEq)]
struct Item {
    kind: Kind,
    /// 1-based line and column (saturated at `u32::MAX`).
    line: u32,
    col: u32,
}

#[derive(Debug, PartialEq)]
enum Kind {
    /// A scalar's value; `merge` when it is a merge key (`<<`, plain or `!!merge`).
    Scalar {
        text: crate::yaml::node::Str,
        merge: bool,
    },
    Seq(Vec<usize>),
    /// Keys and values, alternating.
    Map(Vec<usize>),
    /// An alias, by anchor id.
    Alias(usize),
}

impl Tree {
    /// The document at `index` of `text`; `None` when it does not parse, or has fewer.
    fn parse(text: &str, index: usize) -> Option<Tree> {
        Tree::parse_all(text, index)
            .into_iter()
            .nth(index)
            .flatten()
    }

    /// The documents of `text` up to `last` (0-based), in one pass over the stream: `None`
    /// for a document that does not parse (and every one after it, as the parser stops).
    fn parse_all(text: &str, last: usize) -> Vec<Option<Tree>> {
        Tree::parse_fast(text, last).unwrap_or_else(|| Tree::parse_saphyr(text, last))
    }

    /// [`Tree::parse_all`] with the build's fast scanner, document by document, when it
    /// reads every document of `text` (`None` otherwise): a provenance report reads every
    /// source file again for positions, and saphyr-parser took most of that time. Each
    /// piece the stream splits into at `---` lines must be one document, as saphyr-parser
    /// reads it: but the first, which may hold only comments (and no document); an empty
    /// piece after a `---` is a null document to saphyr-parser, left to it.
    fn parse_fast(text: &str, last: usize) -> Option<Vec<Option<Tree>>> {
        let mut growing = Growing::new(last);
        for (i, piece) in crate::yaml::parse::split_stream(text)?.iter().enumerate() {
            if i > 0 && piece.text.starts_with("---") {
                // `---` twice: a null document between, to saphyr-parser.
                return None;
            }
            let before = growing.docs.len();
            let read = crate::yaml::parse::scan_fast(piece.text, &mut |event, span| {
                growing.event(event, span, piece.line_offset);
            });
            if growing.done {
                // Enough documents (the scanner's events after that were dropped).
                return Some(growing.docs);
            }
            let documents = growing.docs.len() - before;
            if !read || documents > 1 || (documents == 0 && i > 0) {
                return None;
            }
        }
        Some(growing.docs)
    }

    /// [`Tree::parse_all`] with saphyr-parser, which reads any YAML.
    fn parse_saphyr(text: &str, last: usize) -> Vec<Option<Tree>> {
        let mut growing = Growing::new(last);
        let mut parser = Parser::new_from_str(text);
        while let Some(next) = parser.next_event() {
            let Ok((event, span)) = next else {
                growing.fail();
                break;
            };
            if matches!(event, Event::StreamEnd) {
                break;
            }
            growing.event(event, span, 0);
            if growing.done {
                break;
            }
        }
        growing.docs
    }

    fn empty() -> Tree {
        Tree {
            nodes: Vec::new(),
            anchors: HashMap::new(),
            root: None,
        }
    }

    fn pos(&self, node: usize) -> (usize, usize) {
        let item = &self.nodes[node];
        (item.line as usize, item.col as usize)
    }

    /// The node an alias stands for (any other node is itself).
    fn resolve(&self, node: usize) -> Option<usize> {
        match self.nodes[node].kind {
            Kind::Alias(id) => self.anchors.get(&id).copied(),
            _ => Some(node),
        }
    }

    /// The text of a scalar key (through an alias).
    fn key_text(&self, key: usize) -> Option<&str> {
        match &self.nodes[self.resolve(key)?].kind {
            Kind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The key and value nodes of `key` in the mapping `map`: an exact match,
    /// else one ignoring case.
    fn entry(&self, map: usize, key: &str) -> Option<(usize, usize)> {
        self.find(map, &|k| k == key, 0)
            .or_else(|| self.find(map, &|k| k.eq_ignore_ascii_case(key), 0))
    }

    /// The entry of `map` whose key satisfies `matches` and wins: the mapping is read
    /// as kbuild's parser applies merge keys (in place, each merged mapping where the
    /// `<<` stands, the first of a list taking precedence, and later keys overriding
    /// earlier ones), so the last match in that order is the one that counts.
    fn find(
        &self,
        map: usize,
        matches: &dyn Fn(&str) -> bool,
        depth: usize,
    ) -> Option<(usize, usize)> {
        if depth > MAX_MERGE_DEPTH {
            return None;
        }
        let Kind::Map(children) = &self.nodes[map].kind else {
            return None;
        };
        for pair in children.chunks_exact(2).rev() {
            let (key, value) = (pair[0], pair[1]);
            let is_merge = matches!(self.nodes[key].kind, Kind::Scalar { merge: true, .. });
            if is_merge {
                let Some(value) = self.resolve(value) else {
                    continue;
                };
                let found = match &self.nodes[value].kind {
                    Kind::Map(_) => self.find(value, matches, depth + 1),
                    Kind::Seq(sources) => sources
                        .iter()
                        .find_map(|&source| self.find(self.resolve(source)?, matches, depth + 1)),
                    _ => None,
                };
                if found.is_some() {
                    return found;
                }
            } else if self.key_text(key).is_some_and(matches) {
                return Some((key, value));
            }
        }
        None
    }
}

/// The documents read so far from a stream's events (see [`Tree::parse_all`]).
struct Growing {
    docs: Vec<Option<Tree>>,
    tree: Tree,
    /// The collections open around the current event.
    open: Vec<usize>,
    /// The last document wanted (0-based).
    last: usize,
    /// No more events are wanted: the last document wanted is read, or one did not parse
    /// (a `None` in `docs` ends them).
    done: bool,
}

impl Growing {
    fn new(last: usize) -> Growing {
        Growing {
            docs: Vec::new(),
            tree: Tree::empty(),
            open: Vec::new(),
            last,
            done: false,
        }
    }

    fn fail(&mut self) {
        self.docs.push(None);
        self.done = true;
    }

    /// Takes one event, at `span` (its lines `line_offset` lines into the text).
    fn event(&mut self, event: Event<'_>, span: saphyr_parser::Span, line_offset: usize) {
        if self.done {
            return;
        }
        let (kind, anchor) = match event {
            Event::Scalar(value, style, anchor, tag) => {
                let merge = value == "<<"
                    && match &tag {
                        None => style == ScalarStyle::Plain,
                        Some(t) => t.is_yaml_core_schema() && t.suffix == "merge",
                    };
                let text = crate::yaml::node::Str::from(value.as_ref());
                (Kind::Scalar { text, merge }, anchor)
            }
            Event::SequenceStart(anchor, _) => (Kind::Seq(Vec::new()), anchor),
            Event::MappingStart(anchor, _) => (Kind::Map(Vec::new()), anchor),
            Event::Alias(id) => (Kind::Alias(id), 0),
            Event::SequenceEnd | Event::MappingEnd => {
                if self.open.pop().is_none() {
                    self.fail();
                }
                return;
            }
            Event::DocumentEnd => {
                // Anchors do not reach later documents: each starts afresh.
                let tree = std::mem::replace(&mut self.tree, Tree::empty());
                self.docs.push(Some(tree));
                self.open.clear();
                self.done = self.docs.len() > self.last;
                return;
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart(_) | Event::Nothing => {
                return;
            }
        };
        let tree = &mut self.tree;
        let index = tree.nodes.len();
        let starts_collection = matches!(kind, Kind::Seq(_) | Kind::Map(_));
        tree.nodes.push(Item {
            kind,
            line: u32::try_from(span.start.line() + line_offset).unwrap_or(u32::MAX),
            col: u32::try_from(span.start.col() + 1).unwrap_or(u32::MAX),
        });
        if anchor != 0 {
            tree.anchors.insert(anchor, index);
        }
        let placed = match self.open.last() {
            Some(&parent) => match &mut tree.nodes[parent].kind {
                Kind::Seq(children) | Kind::Map(children) => {
                    children.push(index);
                    true
                }
                _ => false,
            },
            None if tree.root.is_none() => {
                tree.root = Some(index);
                true
            }
            None => false,
        };
        if !placed {
            self.fail();
            return;
        }
        if starts_collection {
            self.open.push(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(steps: &[&str]) -> Vec<PathStep> {
        steps
            .iter()
            .map(|s| match s.parse() {
                Ok(i) => PathStep::Index(i),
                Err(_) => PathStep::Key(s.to_string()),
            })
            .collect()
    }

    fn at(text: &str, steps: &[&str]) -> Option<(usize, usize)> {
        locate(text, &path(steps))
    }

    const BLOCK: &str = "\
resources:
- a.yaml
- b.yaml
patches:
  - path: p.yaml
    target:
      kind: Deployment
      name: web
";

    #[test]
    fn block_keys_and_items() {
        assert_eq!(at(BLOCK, &["resources"]), Some((1, 1)));
        assert_eq!(at(BLOCK, &["resources", "1"]), Some((3, 3)));
        assert_eq!(at(BLOCK, &["patches"]), Some((4, 1)));
        assert_eq!(at(BLOCK, &["patches", "0"]), Some((5, 5)));
        assert_eq!(at(BLOCK, &["patches", "0", "target"]), Some((6, 5)));
        assert_eq!(at(BLOCK, &["patches", "0", "target", "name"]), Some((8, 7)));
        assert_eq!(at(BLOCK, &[]), Some((1, 1)));
    }

    #[test]
    fn flow_collections() {
        let text = "resources: [a.yaml, b.yaml]\npatches: [{target: {kindd: X}}, {path: p}]\n";
        assert_eq!(at(text, &["resources", "1"]), Some((1, 21)));
        assert_eq!(
            at(text, &["patches", "0", "target", "kindd"]),
            Some((2, 21))
        );
        assert_eq!(at(text, &["patches", "1", "path"]), Some((2, 34)));
    }

    #[test]
    fn nested_lists() {
        let text = "a:\n- - x\n  - y\n- [p, [q, r]]\n";
        assert_eq!(at(text, &["a", "0", "1"]), Some((3, 5)));
        assert_eq!(at(text, &["a", "1", "1", "0"]), Some((4, 8)));
    }

    #[test]
    fn keys_match_exactly_first_then_ignoring_case() {
        let text = "namePrefix: a\nnameprefix: b\nKIND: Foo\n";
        assert_eq!(at(text, &["nameprefix"]), Some((2, 1)));
        assert_eq!(at(text, &["namePrefix"]), Some((1, 1)));
        assert_eq!(at(text, &["kind"]), Some((3, 1)));
    }

    #[test]
    fn missing_last_key_points_at_its_parent() {
        assert_eq!(
            at(BLOCK, &["patches", "0", "target", "group"]),
            Some((6, 5))
        );
        assert_eq!(at(BLOCK, &["patches", "5"]), Some((4, 1)));
        assert_eq!(at(BLOCK, &["nope"]), Some((1, 1)));
        // Only the last step may be missing.
        assert_eq!(at(BLOCK, &["nope", "kind"]), None);
        assert_eq!(at(BLOCK, &["resources", "0", "kind"]), Some((2, 3)));
        assert_eq!(at(BLOCK, &["resources", "x", "y"]), None);
    }

    #[test]
    fn quoted_keys_and_keys_with_dots() {
        let text = "labels:\n  \"app.kubernetes.io/name\": x\n  'a b': y\n";
        assert_eq!(
            at(text, &["labels", "app.kubernetes.io/name"]),
            Some((2, 3))
        );
        assert_eq!(at(text, &["labels", "a b"]), Some((3, 3)));
    }

    #[test]
    fn duplicate_keys_find_the_last() {
        assert_eq!(at("a: 1\nb: 2\na: 3\n", &["a"]), Some((3, 1)));
    }

    #[test]
    fn aliases_lead_to_their_anchor() {
        let text = "x: &t\n  kind: X\n  name: n\npatches:\n- target: *t\n";
        assert_eq!(at(text, &["patches", "0", "target"]), Some((5, 3)));
        assert_eq!(at(text, &["patches", "0", "target", "name"]), Some((3, 3)));
        let items = "a: &l [p, q]\nb: *l\n";
        assert_eq!(at(items, &["b", "1"]), Some((1, 11)));
    }

    #[test]
    fn merge_keys() {
        let text = "\
base: &b {kind: X, name: n}
more: &m {name: m, group: g}
target:
  kind: Y
  <<: [*b, *m]
  group: h
";
        // Merged in place: `kind` from *b overrides the one before the `<<`.
        assert_eq!(at(text, &["target", "kind"]), Some((1, 11)));
        // The first source of the list wins.
        assert_eq!(at(text, &["target", "name"]), Some((1, 20)));
        // A key after the `<<` overrides it.
        assert_eq!(at(text, &["target", "group"]), Some((6, 3)));
        // A quoted "<<" is an ordinary key: nothing is merged.
        let quoted = "a:\n  \"<<\": {k: v}\n";
        assert_eq!(at(quoted, &["a", "<<"]), Some((2, 3)));
        assert_eq!(at(quoted, &["a", "k"]), Some((1, 1)));
    }

    #[test]
    fn first_document_only() {
        let text = "---\na: 1\n---\nb: 2\n";
        assert_eq!(at(text, &["a"]), Some((2, 1)));
        // `b` is in the second document: missing from the first, so its parent.
        assert_eq!(at(text, &["b"]), Some((2, 1)));
    }

    #[test]
    fn later_documents_and_values() {
        let text = "---\na: 1\n---\nb:\n  c: [x, y]\n  d: z\n";
        let doc = Located::parse(text, 1).expect("second document");
        assert_eq!(doc.key(&path(&["b", "d"])), Some((6, 3)));
        assert_eq!(doc.value(&path(&["b", "d"])), Some((6, 6)));
        assert_eq!(doc.value(&path(&["b", "c", "1"])), Some((5, 10)));
        assert_eq!(doc.value(&path(&["b", "e"])), None);
        assert_eq!(doc.scalar(&path(&["b", "d"])), Some("z"));
        assert_eq!(doc.scalar(&path(&["b"])), None);
        assert!(Located::parse(text, 2).is_none_or(|d| d.value(&[]).is_none()));
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(at("é: {ü: 1, x: 2}\n", &["é", "x"]), Some((1, 11)));
    }

    #[test]
    fn what_does_not_parse_has_no_position() {
        assert_eq!(at("a: [\n", &["a"]), None);
        assert_eq!(at("", &["a"]), None);
        assert_eq!(at("a: 1\n", &[]), Some((1, 1)));
    }

    /// Wherever the fast scanner reads a file of the project's fixtures and examples (and of
    /// the directories in `KBUILD_FAST_CORPUS`, `:`-separated, when set), the trees (every
    /// node's kind, text, line and column, each document) are saphyr-parser's.
    #[test]
    fn fast_trees_match_saphyr_on_fixture_files() {
        use crate::yaml::parse::test_files::{extra_corpus, for_each_yaml_file};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (mut files, mut fast) = (0, 0);
        let mut dirs = vec![root.join("tests"), root.join("examples")];
        dirs.extend(extra_corpus());
        for_each_yaml_file(dirs, |p, text| {
            files += 1;
            if let Some(trees) = Tree::parse_fast(text, usize::MAX) {
                fast += 1;
                let slow = Tree::parse_saphyr(text, usize::MAX);
                for (f, s) in trees.iter().flatten().zip(slow.iter().flatten()) {
                    for (a, b) in f.nodes.iter().zip(&s.nodes) {
                        assert_eq!(a, b, "{}: nodes differ", p.display());
                    }
                }
                assert_eq!(trees, slow, "{}: trees differ", p.display());
            }
        });
        eprintln!("{fast} of {files} files read fast");
        assert!(
            files > 100 && fast * 2 > files,
            "{fast} of {files} files read fast"
        );
    }

    #[test]
    fn fast_trees_match_saphyr_on_stream_shapes() {
        for text in [
            "a: 1\n---\nb: 2\n",
            "---\na: 1\n---\nb:\n- x\n- y: z\n",
            "# head\n---\na: 1\n",
            "a: 1\n---\n# only a comment\n---\nb: 2\n",
            "a: 1\n---\n",
            "a: 1\n--- # c\nb: 2\n",
            "a: 1\n...\n---\nb: 2\n",
            "a: &x 1\n---\nb: *x\n",
            "a: 1\n---\n---\nb: 2\n",
            "",
        ] {
            let slow = Tree::parse_saphyr(text, usize::MAX);
            if let Some(fast) = Tree::parse_fast(text, usize::MAX) {
                assert_eq!(fast, slow, "{text:?}");
            }
            assert_eq!(Tree::parse_all(text, usize::MAX), slow, "{text:?}");
            // Stopping after the first document.
            let first = Tree::parse_all(text, 0);
            assert!(
                first.len() <= 1 && first.first() == slow.first(),
                "{text:?}"
            );
        }
    }
}
