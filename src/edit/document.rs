//! A YAML document edited in place: every change is a splice of the text, so the
//! comments, blank lines, key order, quoting and indentation of everything the change
//! does not touch stay byte for byte. kustomize's own `edit` re-marshals the whole file
//! (keeping only comments that sit above top-level fields); kbuild changes only the lines
//! it must.
//!
//! The document is parsed twice per change, both cheap for a kustomization: once into
//! kbuild's value ([`Node`], what the commands read) and once into a tree of byte spans
//! (where each key, value and list item is written). A change finds its place in the
//! span tree, renders the new text in the style around it (`edit::render`) and
//! splices it in; the next change parses again.

use super::render::{Layout, render_after_key, render_item, render_key, render_scalar};
use crate::error::{Error, Result};
use crate::yaml::Node;
use saphyr_parser::{Event, Parser, ScalarStyle};

/// One step of a path into the document.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A mapping key.
    Key(String),
    /// A sequence index.
    Index(usize),
}

impl Step {
    /// A key step.
    pub fn key(k: &str) -> Step {
        Step::Key(k.to_string())
    }
}

/// Where a value is written: `[start, end)` in bytes, content only (no trailing
/// comment or line break).
#[derive(Clone, Debug)]
struct Tree {
    start: usize,
    end: usize,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    /// A scalar; `empty` when written as nothing (`key:` with no value).
    Scalar {
        block: bool,
        empty: bool,
    },
    /// An alias (`*name`): a leaf kbuild does not edit in place.
    Alias,
    Seq {
        flow: bool,
        items: Vec<Tree>,
    },
    Map {
        flow: bool,
        entries: Vec<(Tree, Tree)>,
    },
}

/// The key or list dash a value is written after.
struct Owner {
    /// The key's (or dash's) column.
    col: usize,
    /// `key: value` rather than `- value`.
    after_key: bool,
    /// Right after the key's colon (or the dash).
    indicator_end: usize,
}

/// A kustomization (or any YAML document) open for editing.
#[derive(Clone, Debug)]
pub struct Document {
    text: String,
    source: String,
    value: Node,
    tree: Option<Tree>,
    /// For a piece of a document edited on its own (`batch.rs`): the whole document's
    /// layout and line breaks, which the piece alone may not show.
    context: Option<(Layout, bool)>,
}

impl Document {
    /// Parses `text`; `source` names it in errors.
    pub fn parse(text: String, source: &str) -> Result<Document> {
        let mut doc = Document {
            text,
            source: source.to_string(),
            value: Node::Null,
            tree: None,
            context: None,
        };
        doc.reparse()?;
        Ok(doc)
    }

    /// The text as it stands.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The document's value as it stands.
    pub fn value(&self) -> &Node {
        &self.value
    }

    /// The value at `path`, if there is one.
    pub fn get(&self, path: &[Step]) -> Option<&Node> {
        let mut node = &self.value;
        for step in path {
            node = match step {
                Step::Key(k) => node.as_map()?.get(k.as_str())?,
                Step::Index(i) => node.as_seq()?.get(*i)?,
            };
        }
        Some(node)
    }

    fn reparse(&mut self) -> Result<()> {
        #[cfg(test)]
        batch_tests::PARSED.with(|c| c.set(c.get() + self.text.len() as u64));
        self.value = crate::yaml::parse::parse_document(&self.text, &self.source)?;
        self.tree = span_tree(&self.text).map_err(|msg| Error::Yaml {
            source_name: self.source.clone(),
            line: 0,
            col: 0,
            msg,
        })?;
        Ok(())
    }

    /// Sets the value at `path`, creating the mappings on the way. An existing scalar is
    /// rewritten in place (its trailing comment stays); an existing collection is
    /// replaced whole.
    pub fn set(&mut self, path: &[Step], value: &Node) -> Result<()> {
        let before = self.text.clone();
        self.set_unchecked(path, value)?;
        // The splice must mean what was asked; if it does not, the file's shape is one the
        // editor does not handle: keep the file as it was and say so.
        if self.get(path) != Some(value) {
            self.text = before;
            self.reparse()?;
            return Err(Error::Edit(format!(
                "{}: kbuild could not edit this file in place; please report it with the file",
                self.source
            )));
        }
        Ok(())
    }

    fn set_unchecked(&mut self, path: &[Step], value: &Node) -> Result<()> {
        if path.is_empty() {
            self.text = render_root(value);
            return self.reparse();
        }
        // The first step that is missing (or null); the rest of the path is created there.
        let missing = (0..path.len()).find(|&d| self.get(&path[..=d]).is_none_or(Node::is_null));
        let Some(d) = missing else {
            return self.replace(path, value);
        };
        let mut nested = value.clone();
        for step in path[d + 1..].iter().rev() {
            nested = wrap(step, nested)?;
        }
        match (&path[d], self.get(&path[..=d])) {
            (Step::Key(k), None) => self.insert_entry(&path[..d], k, &nested),
            (_, Some(_)) => self.replace(&path[..=d], &nested),
            (Step::Index(_), None) => Err(Error::Edit("edit: no such list item".into())),
        }
    }

    /// Appends `item` to the sequence at `path`, creating it when missing or null.
    pub fn append(&mut self, path: &[Step], item: &Node) -> Result<()> {
        match self.get(path) {
            None | Some(Node::Null) => self.set(path, &Node::Seq(vec![item.clone()])),
            Some(Node::Seq(items)) => {
                let len = items.len();
                self.insert_item(path, len, item)
            }
            Some(other) => Err(self.not_a(path, "list", other)),
        }
    }

    /// Inserts `item` before index `at` of the sequence at `path` (which exists).
    pub fn insert_item(&mut self, path: &[Step], at: usize, item: &Node) -> Result<()> {
        let layout = self.layout();
        let tree = self.tree_at(path).cloned();
        match tree {
            Some(Tree {
                kind: Kind::Seq { flow: false, items },
                ..
            }) if !items.is_empty() => {
                let first = &items[0];
                let dash = self.dash_before(first);
                let dash_col = self.column(dash);
                let text = format!(
                    "{}- {}\n",
                    " ".repeat(dash_col),
                    render_item(item, dash_col, &layout)
                );
                let pos = match items.get(at) {
                    // Comment lines right above the item describe it: insert above them.
                    Some(next) => self.above_comments(self.item_first_line(next)),
                    None => self.after_line(items[items.len() - 1].end),
                };
                self.splice(pos, pos, &text)
            }
            Some(Tree {
                kind: Kind::Seq { flow: true, items },
                ..
            }) if !items.is_empty() && flow_plain(item).is_some() => {
                // `[a, b]` stays on its line: `, c` after the item it follows (or
                // `c, ` before the one it precedes).
                let text = flow_plain(item).unwrap_or_default();
                match items.get(at) {
                    Some(next) => self.splice(next.start, next.start, &format!("{text}, ")),
                    None => {
                        let end = items[items.len() - 1].end;
                        self.splice(end, end, &format!(", {text}"))
                    }
                }
            }
            _ => {
                let mut seq = self
                    .get(path)
                    .and_then(Node::as_seq)
                    .cloned()
                    .unwrap_or_default();
                seq.insert(at.min(seq.len()), item.clone());
                self.replace(path, &Node::Seq(seq))
            }
        }
    }

    /// Removes the value at `path`: a mapping entry (key and value) or a list item,
    /// with the lines they take. Comments on lines of their own stay.
    pub fn remove(&mut self, path: &[Step]) -> Result<()> {
        let Some((last, parent)) = path.split_last() else {
            self.text.clear();
            return self.reparse();
        };
        let Some(parent_tree) = self.tree_at(parent).cloned() else {
            return Ok(());
        };
        match (&parent_tree.kind, last) {
            (
                Kind::Map {
                    flow: false,
                    entries,
                },
                Step::Key(k),
            ) => {
                let Some(i) = self.entry_index(entries, k) else {
                    return Ok(());
                };
                let (key, value) = &entries[i];
                let mut start = self.line_start(key.start);
                let mut end = self.after_line(value.end.max(key.end));
                if self.text[self.line_start(key.start)..key.start]
                    .trim()
                    .is_empty()
                {
                    // An entry set off by blank lines leaves one blank line, not two
                    // (nor one at the end of the file).
                    let blank_before = start > 0 && self.is_blank_line(self.line_start(start - 1));
                    if blank_before && end < self.text.len() && self.is_blank_line(end) {
                        end = self.after_line(end);
                    } else if blank_before && end == self.text.len() {
                        start = self.line_start(start - 1);
                    }
                    self.splice(start, end, "")
                } else {
                    // The entry shares its first line with a list dash (`- name: x`):
                    // the next entry moves up onto the dash's line.
                    self.remove_first_entry_of_item(parent, entries, i)
                }
            }
            (Kind::Seq { flow: false, items }, Step::Index(i)) => {
                let Some(item) = items.get(*i) else {
                    return Ok(());
                };
                let start = self.item_first_line(item);
                let end = self.after_line(item.end);
                self.splice(start, end, "")
            }
            _ => {
                let mut value = self.get(parent).cloned().unwrap_or_default();
                match (&mut value, last) {
                    (Node::Map(m), Step::Key(k)) => {
                        m.shift_remove(k.as_str());
                    }
                    (Node::Seq(s), Step::Index(i)) if *i < s.len() => {
                        s.remove(*i);
                    }
                    _ => return Ok(()),
                }
                self.replace(parent, &value)
            }
        }
    }

    /// Removing the entry written on a list item's dash line: the item is rewritten
    /// whole from its value (rare: only `edit` of lists of mappings gets here, and only
    /// when a field of an item is removed).
    fn remove_first_entry_of_item(
        &mut self,
        parent: &[Step],
        entries: &[(Tree, Tree)],
        i: usize,
    ) -> Result<()> {
        let mut value = self.get(parent).cloned().unwrap_or_default();
        if let (Node::Map(m), Some((key, _))) = (&mut value, entries.get(i)) {
            let k = self.text[key.start..key.end].to_string();
            let k = crate::yaml::parse::parse_document(&k, &self.source)?
                .as_str()
                .map(str::to_string)
                .unwrap_or(k);
            m.shift_remove(k.as_str());
        }
        self.replace(parent, &value)
    }

    /// Replaces the value at `path` (which exists).
    fn replace(&mut self, path: &[Step], value: &Node) -> Result<()> {
        let layout = self.layout();
        let Some(tree) = self.tree_at(path).cloned() else {
            return Err(Error::Edit("edit: nothing to replace".into()));
        };
        let owner = self.owner(path);
        let scalar_new =
            !matches!(value, Node::Map(_) | Node::Seq(_)) || is_empty_collection(value);
        if let (Kind::Scalar { empty: false, .. } | Kind::Alias, true) = (&tree.kind, scalar_new) {
            let text = render_scalar(value, owner.col);
            let start = self.value_start(&tree);
            return self.splice(start, tree.end, &text);
        }
        // Everything from right after `key:` (or `-`) to the end of the value is
        // written again; a comment after the value stays after the new one.
        let text = match owner.after_key {
            true => render_after_key(value, owner.col, &layout),
            false => format!(" {}", render_item(value, owner.col, &layout)),
        };
        let end = match tree.kind {
            Kind::Scalar { empty: true, .. } => owner.indicator_end,
            _ => self.past_colon(tree.end),
        };
        self.splice(owner.indicator_end, end, &text)
    }

    /// Inserts `key: value` into the mapping at `path` right after the entry `after`
    /// (its value's last line), or at the end when there is no such entry.
    pub fn insert_entry_after(
        &mut self,
        path: &[Step],
        key: &str,
        value: &Node,
        after: &str,
    ) -> Result<()> {
        let Some((k, v)) = self.block_entry(path, after) else {
            return self.insert_entry(path, key, value);
        };
        let pos = self.after_line(v.end.max(k.end));
        let text = self.entry_text(key, value, self.column(k.start));
        self.splice(pos, pos, &text)
    }

    /// Inserts `key: value` into the mapping at `path` right before the entry `before`
    /// (and the comment lines directly above it), or at the end when there is no such
    /// entry.
    pub fn insert_entry_before(
        &mut self,
        path: &[Step],
        key: &str,
        value: &Node,
        before: &str,
    ) -> Result<()> {
        let Some((k, _)) = self.block_entry(path, before) else {
            return self.insert_entry(path, key, value);
        };
        let entry_line = self.line_start(k.start);
        // Comment lines right above the entry describe it: the new entry goes above
        // them; but comments that open the file are its header, which stays on top.
        let pos = match self.above_comments(entry_line) {
            0 => entry_line,
            pos => pos,
        };
        let text = self.entry_text(key, value, self.column(k.start));
        self.splice(pos, pos, &text)
    }

    /// The entry `key` of the block mapping at `path` (key and value spans).
    fn block_entry(&self, path: &[Step], key: &str) -> Option<(Tree, Tree)> {
        match self.tree_at(path) {
            Some(Tree {
                kind:
                    Kind::Map {
                        flow: false,
                        entries,
                    },
                ..
            }) => self
                .entry_index(entries, key)
                .and_then(|i| entries.get(i).cloned()),
            _ => None,
        }
    }

    /// The line `key: value` for a key at column `col`, in the file's layout.
    fn entry_text(&self, key: &str, value: &Node, col: usize) -> String {
        entry_text(key, value, col, &self.layout())
    }

    /// Renames the key `from` of the mapping at `path` to `to`, in place: the value,
    /// its comments and the comments around the entry stay as written (how `edit fix`
    /// turns a deprecated field into its successor without rewriting it). Nothing
    /// happens when there is no such key.
    pub fn rename_key(&mut self, path: &[Step], from: &str, to: &str) -> Result<()> {
        let span = match self.tree_at(path) {
            Some(Tree {
                kind: Kind::Map { entries, .. },
                ..
            }) => self
                .entry_index(entries, from)
                .map(|i| (entries[i].0.start, entries[i].0.end)),
            _ => None,
        };
        match span {
            Some((start, end)) => self.splice(start, end, &render_key(to)),
            None => Ok(()),
        }
    }

    /// Inserts `key: value` at the end of the mapping at `path`.
    pub fn insert_entry(&mut self, path: &[Step], key: &str, value: &Node) -> Result<()> {
        let tree = self.tree_at(path).cloned();
        match tree {
            Some(Tree {
                kind:
                    Kind::Map {
                        flow: false,
                        entries,
                    },
                ..
            }) if !entries.is_empty() => {
                let text = self.entry_text(key, value, self.column(entries[0].0.start));
                let last = &entries[entries.len() - 1];
                let pos = self.after_line(last.1.end.max(last.0.end));
                self.splice(pos, pos, &text)
            }
            _ if path.is_empty() && self.value.is_null() => {
                // An empty file (or only comments): the entry goes at the end.
                let mut text = std::mem::take(&mut self.text);
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&self.entry_text(key, value, 0));
                self.text = text;
                self.reparse()
            }
            _ => {
                let mut map = match self.get(path) {
                    Some(Node::Map(m)) => m.clone(),
                    Some(Node::Null) | None => Default::default(),
                    Some(other) => return Err(self.not_a(path, "mapping", other)),
                };
                map.insert(key, value.clone());
                self.replace(path, &Node::Map(map))
            }
        }
    }

    fn not_a(&self, path: &[Step], what: &str, found: &Node) -> Error {
        let name: Vec<String> = path
            .iter()
            .map(|s| match s {
                Step::Key(k) => k.clone(),
                Step::Index(i) => i.to_string(),
            })
            .collect();
        Error::Edit(format!(
            "{}: {} is a {}, not a {what}; fix the file and run the command again",
            self.source,
            name.join("."),
            found.type_name()
        ))
    }

    // --- the span tree -------------------------------------------------------------

    fn tree_at(&self, path: &[Step]) -> Option<&Tree> {
        let mut tree = self.tree.as_ref()?;
        for step in path {
            tree = match (&tree.kind, step) {
                (Kind::Map { entries, .. }, Step::Key(k)) => {
                    &entries[self.entry_index(entries, k)?].1
                }
                (Kind::Seq { items, .. }, Step::Index(i)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(tree)
    }

    /// The entry whose key reads `k` (keys are compared by their value, so `"a"` and
    /// `a` are the same key).
    fn entry_index(&self, entries: &[(Tree, Tree)], k: &str) -> Option<usize> {
        entries.iter().position(|(key, _)| {
            let raw = &self.text[key.start..key.end];
            raw == k || unquote(raw).as_deref() == Some(k)
        })
    }

    /// The key (or dash) that owns the value at `path`.
    fn owner(&self, path: &[Step]) -> Owner {
        let root = Owner {
            col: 0,
            after_key: false,
            indicator_end: 0,
        };
        let Some((last, parent)) = path.split_last() else {
            return root;
        };
        let Some(parent_tree) = self.tree_at(parent) else {
            return root;
        };
        match (&parent_tree.kind, last) {
            (Kind::Map { entries, .. }, Step::Key(k)) => {
                let Some((key, _)) = self.entry_index(entries, k).and_then(|i| entries.get(i))
                else {
                    return root;
                };
                let colon = self.text[key.end..]
                    .find(':')
                    .map_or(key.end, |i| key.end + i + 1);
                Owner {
                    col: self.column(key.start),
                    after_key: true,
                    indicator_end: colon,
                }
            }
            (Kind::Seq { items, .. }, Step::Index(i)) => {
                let Some(item) = items.get(*i) else {
                    return root;
                };
                let dash = self.dash_before(item);
                Owner {
                    col: self.column(dash),
                    after_key: false,
                    indicator_end: (dash + 1).min(self.text.len()),
                }
            }
            _ => root,
        }
    }

    /// A collection whose last value is written as nothing (`key:`) ends where that
    /// empty value is reported, before the key's colon: move past the colon.
    fn past_colon(&self, end: usize) -> usize {
        let rest = &self.text[end..];
        let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        match rest[spaces..].starts_with(':') {
            true => end + spaces + 1,
            false => end,
        }
    }

    /// Where a value's text begins: for a block scalar, its `|`/`>` header.
    fn value_start(&self, tree: &Tree) -> usize {
        if let Kind::Scalar { block: true, .. } = tree.kind {
            let before = &self.text[..tree.start];
            if let Some(i) = before.rfind(['|', '>']) {
                return i;
            }
        }
        tree.start
    }

    /// The dash of the list item `item` (looked for before a block scalar's `|`/`>`
    /// header, whose `|-` would read as a dash).
    fn dash_before(&self, item: &Tree) -> usize {
        let start = self.value_start(item);
        let before = &self.text[..start];
        match before
            .trim_end_matches([' ', '\t', '\n', '\r'])
            .strip_suffix('-')
        {
            Some(rest) => rest.len(),
            None => start,
        }
    }

    /// The start of the first line of a list item (its dash's line).
    fn item_first_line(&self, item: &Tree) -> usize {
        self.line_start(self.dash_before(item))
    }

    /// The start of the run of comment lines directly above the line starting at `pos`.
    fn above_comments(&self, mut pos: usize) -> usize {
        while pos > 0 {
            let prev = self.line_start(pos - 1);
            if self.text[prev..pos].trim_start().starts_with('#') {
                pos = prev;
            } else {
                break;
            }
        }
        pos
    }

    /// Whether the line starting at `pos` holds only whitespace.
    fn is_blank_line(&self, pos: usize) -> bool {
        self.text[pos..self.line_end(pos)].trim().is_empty()
    }

    fn column(&self, pos: usize) -> usize {
        self.text[self.line_start(pos)..pos].chars().count()
    }

    fn line_start(&self, pos: usize) -> usize {
        self.text[..pos].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The end of the line holding `pos` (before its line break).
    fn line_end(&self, pos: usize) -> usize {
        self.text[pos..]
            .find('\n')
            .map_or(self.text.len(), |i| pos + i)
    }

    /// The start of the line after the one holding `pos` (the text's end when none).
    fn after_line(&self, pos: usize) -> usize {
        let end = self.line_end(pos);
        (end + 1).min(self.text.len()).max(end)
    }

    /// How the file writes nested values: indentation step and whether lists are
    /// indented under their key, read from the first nested collection written.
    fn layout(&self) -> Layout {
        if let Some((layout, _)) = self.context {
            return layout;
        }
        let mut layout = Layout::default();
        if let Some(tree) = &self.tree {
            self.read_layout(tree, &mut layout, &mut (false, false));
        }
        layout
    }

    fn read_layout(&self, tree: &Tree, layout: &mut Layout, seen: &mut (bool, bool)) {
        let Kind::Map {
            flow: false,
            entries,
        } = &tree.kind
        else {
            if let Kind::Seq { flow: false, items } = &tree.kind {
                for item in items {
                    self.read_layout(item, layout, seen);
                }
            }
            return;
        };
        for (key, value) in entries {
            let key_col = self.column(key.start);
            match &value.kind {
                Kind::Map {
                    flow: false,
                    entries: inner,
                } if !seen.0 && !inner.is_empty() => {
                    let step = self.column(inner[0].0.start).saturating_sub(key_col);
                    if step > 0 {
                        layout.step = step;
                        seen.0 = true;
                    }
                }
                Kind::Seq { flow: false, items } if !seen.1 && !items.is_empty() => {
                    let dash_col = self.column(self.dash_before(&items[0]));
                    layout.seq_offset = dash_col.saturating_sub(key_col);
                    seen.1 = true;
                }
                _ => {}
            }
            self.read_layout(value, layout, seen);
        }
    }

    /// Whether the file writes CRLF line breaks (new lines get them too).
    fn crlf(&self) -> bool {
        match self.context {
            Some((_, crlf)) => crlf,
            None => self.text.contains("\r\n"),
        }
    }

    fn splice(&mut self, start: usize, end: usize, with: &str) -> Result<()> {
        // A file written with CRLF line breaks gets CRLF in the new lines too.
        let crlf;
        let with = if self.crlf() && with.contains('\n') {
            crlf = with.replace("\r\n", "\n").replace('\n', "\r\n");
            crlf.as_str()
        } else {
            with
        };
        let mut text = String::with_capacity(self.text.len() + with.len());
        text.push_str(&self.text[..start]);
        // Inserting lines at the very end of a file without a final line break (indented
        // ones too: an item of a list indented under its key, an entry of a nested mapping).
        if start == self.text.len()
            && !text.is_empty()
            && !text.ends_with('\n')
            && with.ends_with('\n')
            && !with.starts_with(['\n', ':'])
        {
            text.push('\n');
        }
        text.push_str(with);
        text.push_str(&self.text[end..]);
        let previous = std::mem::replace(&mut self.text, text);
        if let Err(e) = self.reparse() {
            // A splice that breaks the document is kbuild's bug, not the user's: say so
            // and keep the file as it was.
            self.text = previous;
            self.reparse()?;
            return Err(Error::Edit(format!(
                "{}: kbuild could not edit this file in place ({}); please report it with the file",
                self.source,
                e.report()
            )));
        }
        Ok(())
    }
}

/// A scalar as it can be written inside a flow collection: its block rendering, when
/// that holds nothing a flow context reads differently (`,`, brackets, braces) and is
/// one line.
fn flow_plain(item: &Node) -> Option<String> {
    if matches!(item, Node::Map(_) | Node::Seq(_)) {
        return None;
    }
    let text = render_scalar(item, 0);
    let flow_safe = !text.contains(['\n', ',', '[', ']', '{', '}']);
    flow_safe.then_some(text)
}

/// The line `key: value` for a key at column `col`, in `layout`.
fn entry_text(key: &str, value: &Node, col: usize, layout: &Layout) -> String {
    format!(
        "{}{}:{}\n",
        " ".repeat(col),
        render_key(key),
        render_after_key(value, col, layout)
    )
}

fn is_empty_collection(node: &Node) -> bool {
    match node {
        Node::Map(m) => m.is_empty(),
        Node::Seq(s) => s.is_empty(),
        _ => false,
    }
}

fn wrap(step: &Step, inner: Node) -> Result<Node> {
    match step {
        Step::Key(k) => Ok(wrap_key(k, inner)),
        Step::Index(_) => Err(Error::Edit("edit: no such list item".into())),
    }
}

fn wrap_key(k: &str, inner: Node) -> Node {
    let mut map = crate::yaml::Map::new();
    map.insert(k, inner);
    Node::Map(map)
}

fn render_root(value: &Node) -> String {
    let mut out = String::new();
    crate::yaml::emit::emit_document(value, &mut out);
    out
}

/// The value of a quoted key as written (`"a"` → `a`).
fn unquote(raw: &str) -> Option<String> {
    if raw.starts_with(['"', '\'']) {
        crate::yaml::parse::parse_document(raw, "key")
            .ok()
            .and_then(|n| n.as_str().map(str::to_string))
    } else {
        None
    }
}

/// Where the quoted scalar opening at `start` ends (after its closing quote).
fn quoted_end(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let quote = *bytes.get(start)?;
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Right after the bracket or brace that closes the flow collection opening at
/// `start` (the parser's end event may lie past a comment that follows it). Quoted
/// strings and comments inside are skipped.
fn flow_end(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    // The byte before `i`: a quote opens a quoted scalar only where a scalar can
    // begin (`[don't]` is a plain one), and `#` is a comment only after a space.
    let mut prev = b' ';
    while i < bytes.len() {
        let scalar_start = prev.is_ascii_whitespace() || b"[{,:".contains(&prev);
        match bytes[i] {
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' if scalar_start => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if scalar_start => {
                i += 1;
                // `''` inside single quotes is an escaped quote.
                while i < bytes.len() {
                    if bytes[i] == b'\'' && bytes.get(i + 1) != Some(&b'\'') {
                        break;
                    }
                    i += if bytes[i] == b'\'' { 2 } else { 1 };
                }
            }
            b'#' if prev.is_ascii_whitespace() => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
        prev = bytes.get(i).copied().unwrap_or(b' ');
        i += 1;
    }
    None
}

/// The byte spans of the first document of `text` (`None` for no document).
fn span_tree(text: &str) -> std::result::Result<Option<Tree>, String> {
    // saphyr-parser reports positions in characters.
    let bytes: Option<Vec<usize>> = (!text.is_ascii()).then(|| {
        text.char_indices()
            .map(|(i, _)| i)
            .chain([text.len()])
            .collect()
    });
    let at = |index: usize| match &bytes {
        Some(b) => b.get(index).copied().unwrap_or(text.len()),
        None => index.min(text.len()),
    };
    enum Open {
        Seq(usize, bool, Vec<Tree>),
        Map(usize, bool, Vec<Tree>),
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let parser = Parser::new_from_str(text);
    let push = |stack: &mut Vec<Open>, root: &mut Option<Tree>, tree: Tree| match stack.last_mut() {
        Some(Open::Seq(_, _, items) | Open::Map(_, _, items)) => items.push(tree),
        None => {
            if root.is_none() {
                *root = Some(tree);
            }
        }
    };
    let mut documents = 0;
    for event in parser {
        let (event, span) = event.map_err(|e| e.to_string())?;
        let (start, end) = (at(span.start.index()), at(span.end.index()));
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    break;
                }
            }
            Event::Scalar(value, style, ..) => {
                let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
                let empty = value.is_empty() && style == ScalarStyle::Plain && start == end;
                let end = match style {
                    _ if block => start + text[start..end].trim_end().len(),
                    // saphyr-parser's span of a quoted scalar can run on over a comment
                    // after it: the closing quote ends it.
                    ScalarStyle::DoubleQuoted | ScalarStyle::SingleQuoted => {
                        quoted_end(text, start).unwrap_or(end)
                    }
                    _ => end,
                };
                push(
                    &mut stack,
                    &mut root,
                    Tree {
                        start,
                        end,
                        kind: Kind::Scalar { block, empty },
                    },
                );
            }
            Event::Alias(_) => push(
                &mut stack,
                &mut root,
                Tree {
                    start,
                    end,
                    kind: Kind::Alias,
                },
            ),
            Event::SequenceStart(..) => {
                let flow = text[start..].starts_with('[');
                stack.push(Open::Seq(start, flow, Vec::new()));
            }
            Event::MappingStart(..) => {
                let flow = text[start..].starts_with('{');
                stack.push(Open::Map(start, flow, Vec::new()));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(open) = stack.pop() else { continue };
                let tree = match open {
                    Open::Seq(s, flow, items) => Tree {
                        start: s,
                        end: if flow {
                            flow_end(text, s).unwrap_or(end)
                        } else {
                            items.last().map_or(s, |t| t.end)
                        },
                        kind: Kind::Seq { flow, items },
                    },
                    Open::Map(s, flow, children) => {
                        let end_pos = if flow {
                            flow_end(text, s).unwrap_or(end)
                        } else {
                            children.last().map_or(s, |t| t.end)
                        };
                        let mut entries = Vec::new();
                        let mut it = children.into_iter();
                        while let (Some(k), Some(v)) = (it.next(), it.next()) {
                            entries.push((k, v));
                        }
                        Tree {
                            start: s,
                            end: end_pos,
                            kind: Kind::Map { flow, entries },
                        }
                    }
                };
                push(&mut stack, &mut root, tree);
            }
            Event::StreamEnd => break,
            _ => {}
        }
    }
    Ok(root)
}

#[path = "batch.rs"]
mod batch;
pub use batch::ItemEdit;

#[cfg(test)]
#[path = "document_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "batch_tests.rs"]
pub(crate) mod batch_tests;
