//! Many edits of one list or mapping at once, each giving exactly the text the same edits
//! one by one give, in time linear in the file.
//!
//! One edit re-parses the whole document (that is how the next edit finds its place), so
//! `n` edits one by one cost `n` parses: `edit remove resource` of 11,000 of 20,000
//! entries took more than a minute. Here the edits of one collection are placed in the
//! text as it stands, spliced in one pass and parsed once. That gives the sequential
//! result because each edit only touches the lines of its own item or entry (and, when a
//! mapping entry goes, the blank line around it, which is simulated on a list of lines),
//! and additions at the end of a collection follow one another in order. Edits inside list
//! items (`set image` changing an entry's fields) run on each item's lines as a document
//! of their own, put back at once. Where a shape breaks that (a flow collection, an entry
//! on a list item's dash line, a collection to create), the edits go one by one until
//! the shape allows the rest at once.

use std::collections::HashMap;

use super::{Document, Kind, Step, Tree, entry_text, flow_plain, is_empty_collection, unquote};
use crate::edit::render::{render_after_key, render_item, render_scalar};
use crate::error::{Error, Result};
use crate::yaml::Node;

#[cfg(test)]
thread_local! {
    /// Makes the batch edits go one by one (the tests compare both ways).
    pub(super) static ONE_BY_ONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn one_by_one() -> bool {
    #[cfg(test)]
    return ONE_BY_ONE.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

fn child(path: &[Step], step: Step) -> Vec<Step> {
    let mut p = path.to_vec();
    p.push(step);
    p
}

/// An edit of one list item, given the document and the item's path in it: the item's
/// own piece of text as a document of its own, or the whole document.
pub type ItemEdit<'a> = Box<dyn Fn(&mut Document, &[Step]) -> Result<()> + 'a>;

/// A replacement of the text `[start, end)`.
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

impl Splice {
    fn new(start: usize, end: usize, text: String) -> Splice {
        Splice { start, end, text }
    }
}

impl Document {
    /// Whether the value at `path` is written as a block sequence.
    pub fn is_block_seq(&self, path: &[Step]) -> bool {
        matches!(
            self.tree_at(path),
            Some(Tree {
                kind: Kind::Seq { flow: false, .. },
                ..
            })
        )
    }

    /// Removes the items at `indexes` (distinct) of the sequence at `path`: what
    /// [`Document::remove`] of each, from the last to the first, gives.
    pub fn remove_items(&mut self, path: &[Step], indexes: &[usize]) -> Result<()> {
        let mut pending = indexes.to_vec();
        pending.sort_unstable();
        pending.dedup();
        while let Some(&last) = pending.last() {
            if let (false, Some(Kind::Seq { flow: false, items })) =
                (one_by_one(), self.tree_at(path).map(|t| &t.kind))
            {
                // Each item takes its own lines, from its dash's to its last.
                let splices = pending
                    .iter()
                    .filter_map(|&i| items.get(i))
                    .map(|item| Splice {
                        start: self.item_first_line(item),
                        end: self.after_line(item.end),
                        text: String::new(),
                    })
                    .collect();
                return self.splice_all(splices);
            }
            self.remove(&child(path, Step::Index(last)))?;
            pending.pop();
        }
        Ok(())
    }

    /// Appends `items` to the sequence at `path`: what [`Document::append`] of each, in
    /// order, gives.
    pub fn append_items(&mut self, path: &[Step], items: &[Node]) -> Result<()> {
        let mut rest = items;
        while let Some((first, others)) = rest.split_first() {
            if !one_by_one()
                && let Some(splice) = self.append_splice(path, rest)
            {
                return self.splice_all(vec![splice]);
            }
            self.append(path, first)?;
            rest = others;
        }
        Ok(())
    }

    /// Whether item `i` of the sequence at `path` may see lines added right after it when
    /// it is edited: when [`Document::insert_items_before`] puts items for index `i + 1`
    /// right after its last line, and a blank line inside it can make removing its last
    /// entry look at the line after it (see [`Document::remove`]).
    pub fn item_sees_next_line(&self, path: &[Step], i: usize) -> bool {
        let Some(Kind::Seq { items, .. }) = self.tree_at(path).map(|t| &t.kind) else {
            return false;
        };
        let Some(item) = items.get(i) else {
            return false;
        };
        let end = self.after_line(item.end);
        let pos = match items.get(i + 1) {
            Some(next) => self.above_comments(self.item_first_line(next)),
            None => end,
        };
        let mut line = self.item_first_line(item);
        let mut blank = false;
        while line < end {
            blank |= self.is_blank_line(line);
            line = self.after_line(line).max(line + 1);
        }
        pos == end && blank
    }

    /// Inserts each group of `items` before the item at its index (of the sequence as it
    /// is; the length for the end), above the comment lines right above that item: what
    /// [`Document::insert_item`] of each new item, before the first item that is to
    /// follow it, gives (as `edit set image` inserts into a sorted list).
    pub fn insert_items_before(
        &mut self,
        path: &[Step],
        groups: &[(usize, Vec<Node>)],
    ) -> Result<()> {
        let Some(Kind::Seq {
            flow: false,
            items: now,
        }) = self.tree_at(path).map(|t| &t.kind)
        else {
            return Err(Error::Edit("edit: not a block list".into()));
        };
        let (Some(first), Some(last)) = (now.first(), now.last()) else {
            return Err(Error::Edit("edit: not a block list".into()));
        };
        if one_by_one() {
            // One by one, each where `insert_item` puts it: before the item that follows.
            let mut shift = 0;
            for (at, group) in groups {
                for (j, item) in group.iter().enumerate() {
                    self.insert_item(path, at + shift + j, item)?;
                }
                shift += group.len();
            }
            return Ok(());
        }
        let layout = self.layout();
        let dash_col = self.column(self.dash_before(first));
        let splices = groups
            .iter()
            .map(|(at, group)| {
                let pos = match now.get(*at) {
                    Some(next) => self.above_comments(self.item_first_line(next)),
                    None => self.after_line(last.end),
                };
                let mut text = String::new();
                for item in group {
                    text.push_str(&" ".repeat(dash_col));
                    text.push_str("- ");
                    text.push_str(&render_item(item, dash_col, &layout));
                    text.push('\n');
                }
                Splice {
                    start: pos,
                    end: pos,
                    text,
                }
            })
            .collect();
        self.splice_all(splices)
    }

    /// Runs edits of items of the sequence at `path` (`(index, edit)`, each edit confined
    /// to its item): what running them one by one on the document gives. Each item's
    /// lines are edited as a document of their own (with the whole document's layout and
    /// line breaks, and the blankness of the line after them, which removing an entry
    /// looks at), then put back all at once. An item whose lines do not read alone as
    /// the same item (an alias to an anchor elsewhere, a flow collection running on) is
    /// edited in the whole document afterwards, and so is one whose edit fails (so that
    /// the error is the one the whole document gives).
    pub fn edit_items(&mut self, path: &[Step], edits: Vec<(usize, ItemEdit<'_>)>) -> Result<()> {
        let items: Vec<Tree> = match self.tree_at(path) {
            Some(Tree {
                kind: Kind::Seq { flow: false, items },
                ..
            }) if !one_by_one() => items.clone(),
            _ => {
                for (i, edit) in edits {
                    edit(self, &child(path, Step::Index(i)))?;
                }
                return Ok(());
            }
        };
        let context = (self.layout(), self.crlf());
        let mut splices = Vec::new();
        let mut later = Vec::new();
        for (i, edit) in edits {
            let Some(item) = items.get(i) else {
                later.push((i, edit));
                continue;
            };
            let start = self.item_first_line(item);
            let mut end = self.after_line(item.end);
            // The line after the item: kept when blank, stood in for by a comment else.
            let mut stand_in = "";
            if end < self.text.len() {
                match self.is_blank_line(end) {
                    true => end = self.after_line(end),
                    false => stand_in = "#\n",
                }
            }
            let mut piece = Document {
                text: format!("{}{stand_in}", &self.text[start..end]),
                source: self.source.clone(),
                value: Node::Null,
                tree: None,
                context: Some(context),
            };
            let here = [Step::Index(0)];
            let same = piece.reparse().is_ok()
                && piece.get(&here).is_some()
                && piece.get(&here) == self.get(&child(path, Step::Index(i)));
            if !same {
                later.push((i, edit));
                continue;
            }
            if edit(&mut piece, &here).is_err() {
                // The error as the whole document gives it (with its line numbers).
                later.push((i, edit));
                continue;
            }
            let Some(text) = piece.text.strip_suffix(stand_in) else {
                // An edit confined to its item never reaches the line after it.
                return Err(Error::Edit(format!(
                    "{}: kbuild could not edit this file in place; please report it with the file",
                    self.source
                )));
            };
            splices.push(Splice::new(start, end, text.to_string()));
        }
        // The pieces' text is final: their own edits wrote its line breaks.
        self.splice_all_as(splices, false)?;
        for (i, edit) in later {
            edit(self, &child(path, Step::Index(i)))?;
        }
        Ok(())
    }

    /// The text that appends `items` to a non-empty block sequence (one line group per
    /// item after the last), or to a non-empty flow sequence when each stays on its line.
    fn append_splice(&self, path: &[Step], items: &[Node]) -> Option<Splice> {
        let Kind::Seq { flow, items: now } = &self.tree_at(path)?.kind else {
            return None;
        };
        let last = now.last()?;
        if *flow {
            let mut text = String::new();
            for item in items {
                text.push_str(", ");
                text.push_str(&flow_plain(item)?);
            }
            return Some(Splice {
                start: last.end,
                end: last.end,
                text,
            });
        }
        let layout = self.layout();
        let dash_col = self.column(self.dash_before(&now[0]));
        let mut text = String::new();
        for item in items {
            text.push_str(&" ".repeat(dash_col));
            text.push_str("- ");
            text.push_str(&render_item(item, dash_col, &layout));
            text.push('\n');
        }
        let pos = self.after_line(last.end);
        Some(Splice {
            start: pos,
            end: pos,
            text,
        })
    }

    /// Sets items of the sequence at `path` (`(index, value)`, indexes ascending and
    /// distinct): what [`Document::set`] of each, in order, gives.
    pub fn set_items(&mut self, path: &[Step], values: &[(usize, Node)]) -> Result<()> {
        if let (
            false,
            Some(Tree {
                kind: Kind::Seq { flow: false, items },
                ..
            }),
        ) = (one_by_one(), self.tree_at(path))
            && values.iter().all(|(i, _)| *i < items.len())
        {
            let layout = self.layout();
            let splices = values
                .iter()
                .map(|(i, value)| {
                    let item = &items[*i];
                    let dash = self.dash_before(item);
                    let col = self.column(dash);
                    self.replacement(
                        item,
                        col,
                        (dash + 1).min(self.text.len()),
                        false,
                        value,
                        &layout,
                    )
                })
                .collect();
            let paths: Vec<(Vec<Step>, &Node)> = values
                .iter()
                .map(|(i, v)| (child(path, Step::Index(*i)), v))
                .collect();
            return self.splice_all_checked(splices, &paths);
        }
        for (i, value) in values {
            self.set(&child(path, Step::Index(*i)), value)?;
        }
        Ok(())
    }

    /// What [`Document::replace`] writes for `value` in place of `tree`, the value of a
    /// key or list dash at `col` whose indicator ends at `indicator_end`.
    fn replacement(
        &self,
        tree: &Tree,
        col: usize,
        indicator_end: usize,
        after_key: bool,
        value: &Node,
        layout: &super::Layout,
    ) -> Splice {
        let scalar_new =
            !matches!(value, Node::Map(_) | Node::Seq(_)) || is_empty_collection(value);
        if let (Kind::Scalar { empty: false, .. } | Kind::Alias, true) = (&tree.kind, scalar_new) {
            return Splice {
                start: self.value_start(tree),
                end: tree.end,
                text: render_scalar(value, col),
            };
        }
        let text = match after_key {
            true => render_after_key(value, col, layout),
            false => format!(" {}", render_item(value, col, layout)),
        };
        let end = match tree.kind {
            Kind::Scalar { empty: true, .. } => indicator_end,
            _ => self.past_colon(tree.end),
        };
        Splice {
            start: indicator_end,
            end,
            text,
        }
    }

    /// Sets keys of the mapping at `path` to values (keys distinct): what
    /// [`Document::set`] of each, in order, gives — existing values replaced in place,
    /// new entries after the last.
    pub fn set_entries(&mut self, path: &[Step], pairs: &[(&str, Node)]) -> Result<()> {
        let mut rest = pairs;
        while let Some(((key, value), others)) = rest.split_first() {
            if !one_by_one()
                && let Some(splices) = self.set_entries_splices(path, rest)
            {
                let paths: Vec<(Vec<Step>, &Node)> = rest
                    .iter()
                    .map(|(k, v)| (child(path, Step::key(k)), v))
                    .collect();
                return self.splice_all_checked(splices, &paths);
            }
            self.set(&child(path, Step::key(key)), value)?;
            rest = others;
        }
        Ok(())
    }

    fn set_entries_splices(&self, path: &[Step], pairs: &[(&str, Node)]) -> Option<Vec<Splice>> {
        let Kind::Map {
            flow: false,
            entries,
        } = &self.tree_at(path)?.kind
        else {
            return None;
        };
        let (first, last) = (entries.first()?, entries.last()?);
        // The mapping must be a value in the document (`set` would create it otherwise).
        if !matches!(self.get(path), Some(Node::Map(_))) {
            return None;
        }
        let index = self.entry_lookup(entries);
        let layout = self.layout();
        let col = self.column(first.0.start);
        let mut splices = Vec::new();
        let mut added = String::new();
        for (key, value) in pairs {
            match index.get(*key) {
                Some(&i) => {
                    let (k, v) = &entries[i];
                    let colon = self.text[k.end..]
                        .find(':')
                        .map_or(k.end, |j| k.end + j + 1);
                    splices.push(self.replacement(
                        v,
                        self.column(k.start),
                        colon,
                        true,
                        value,
                        &layout,
                    ));
                }
                None => added.push_str(&entry_text(key, value, col, &layout)),
            }
        }
        if !added.is_empty() {
            let pos = self.after_line(last.1.end.max(last.0.end));
            splices.push(Splice {
                start: pos,
                end: pos,
                text: added,
            });
        }
        Some(splices)
    }

    /// The first entry of each key, by the key as written and as read.
    fn entry_lookup(&self, entries: &[(Tree, Tree)]) -> HashMap<String, usize> {
        let mut index = HashMap::with_capacity(entries.len());
        for (i, (key, _)) in entries.iter().enumerate() {
            let raw = &self.text[key.start..key.end];
            index.entry(raw.to_string()).or_insert(i);
            if let Some(read) = unquote(raw) {
                index.entry(read).or_insert(i);
            }
        }
        index
    }

    /// Removes the entries `keys` of the mapping at `path`: what [`Document::remove`] of
    /// each, in order, gives (a key that is not there is skipped).
    pub fn remove_entries(&mut self, path: &[Step], keys: &[&str]) -> Result<()> {
        let mut rest = keys;
        while !rest.is_empty() {
            let done = match one_by_one() {
                true => 0,
                false => self.remove_entries_at_once(path, rest)?,
            };
            rest = &rest[done..];
            if let Some((key, others)) = rest.split_first() {
                self.remove(&child(path, Step::key(key)))?;
                rest = others;
            }
        }
        Ok(())
    }

    /// Removes the leading keys of `keys` whose entries start their lines (stopping at one
    /// written on a list item's dash line, which [`Document::remove`] rewrites); returns
    /// how many were handled. Each entry takes its lines, and when blank lines set it off,
    /// one of them too, as `remove` decides on the text left by the removals before it.
    fn remove_entries_at_once(&mut self, path: &[Step], keys: &[&str]) -> Result<usize> {
        let Some(Tree {
            kind: Kind::Map {
                flow: false,
                entries,
            },
            ..
        }) = self.tree_at(path)
        else {
            return Ok(0);
        };
        let index = self.entry_lookup(entries);
        let mut lines = Lines::new(&self.text);
        let mut removed = vec![false; entries.len()];
        let mut done = 0;
        for key in keys {
            let Some(&i) = index.get(*key) else {
                done += 1;
                continue;
            };
            if removed[i] {
                done += 1;
                continue;
            }
            let (k, v) = &entries[i];
            if !self.text[self.line_start(k.start)..k.start]
                .trim()
                .is_empty()
            {
                break;
            }
            removed[i] = true;
            done += 1;
            let first = lines.of(k.start);
            let last = lines.of(v.end.max(k.end));
            let before = lines.prev_alive(first);
            let after = lines.next_alive(last);
            lines.kill(first, last);
            let blank_before = before.is_some_and(|b| lines.blank(b));
            match (blank_before, after) {
                (true, Some(a)) if lines.blank(a) => lines.kill(a, a),
                (true, None) => {
                    if let Some(b) = before {
                        lines.kill(b, b);
                    }
                }
                _ => {}
            }
        }
        if removed.iter().any(|r| *r) {
            let splices = lines.dead_ranges();
            self.splice_all(splices)?;
        }
        Ok(done)
    }

    /// [`Document::splice_all`], then each path must hold its value (what
    /// [`Document::set`] checks); if one does not, the document stays as it was.
    fn splice_all_checked(
        &mut self,
        splices: Vec<Splice>,
        paths: &[(Vec<Step>, &Node)],
    ) -> Result<()> {
        let before = self.text.clone();
        self.splice_all(splices)?;
        if paths.iter().any(|(p, v)| self.get(p) != Some(*v)) {
            self.text = before;
            self.reparse()?;
            return Err(Error::Edit(format!(
                "{}: kbuild could not edit this file in place; please report it with the file",
                self.source
            )));
        }
        Ok(())
    }

    /// Applies replacements of disjoint ranges (in any order) in one pass, as
    /// [`Document::splice`] applies one: line breaks in the file's style, a line break
    /// added before text inserted at the end of a file that lacks one.
    fn splice_all(&mut self, splices: Vec<Splice>) -> Result<()> {
        self.splice_all_as(splices, true)
    }

    /// [`Document::splice_all`]; `convert`: whether new line breaks take the file's style.
    fn splice_all_as(&mut self, mut splices: Vec<Splice>, convert: bool) -> Result<()> {
        if splices.is_empty() {
            return Ok(());
        }
        splices.sort_by_key(|s| (s.start, s.end));
        let crlf = convert && self.crlf();
        let len = self.text.len();
        let mut text =
            String::with_capacity(len + splices.iter().map(|s| s.text.len()).sum::<usize>());
        let mut at = 0;
        for s in &splices {
            if s.start < at || s.end < s.start || s.end > len {
                return Err(Error::Edit(format!(
                    "{}: kbuild could not edit this file in place (overlapping edits); please report it with the file",
                    self.source
                )));
            }
            text.push_str(&self.text[at..s.start]);
            let with = match crlf && s.text.contains('\n') {
                true => s.text.replace("\r\n", "\n").replace('\n', "\r\n"),
                false => s.text.clone(),
            };
            if s.start == len
                && !text.is_empty()
                && !text.ends_with('\n')
                && with.ends_with('\n')
                && !with.starts_with(['\n', ':'])
            {
                text.push('\n');
            }
            text.push_str(&with);
            at = s.end;
        }
        text.push_str(&self.text[at..]);
        let previous = std::mem::replace(&mut self.text, text);
        if let Err(e) = self.reparse() {
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

/// The lines of a text, as a list lines can be taken out of: what removing whole lines
/// one after another leaves, with each line's neighbours at hand.
struct Lines<'t> {
    text: &'t str,
    /// Where each line starts; a line runs to the next one's start (its line break
    /// included).
    starts: Vec<usize>,
    prev: Vec<Option<usize>>,
    next: Vec<Option<usize>>,
    alive: Vec<bool>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Lines<'t> {
        let mut starts = vec![0];
        starts.extend(
            text.match_indices('\n')
                .map(|(i, _)| i + 1)
                .filter(|&i| i < text.len()),
        );
        let n = starts.len();
        Lines {
            text,
            starts,
            prev: (0..n).map(|i| i.checked_sub(1)).collect(),
            next: (0..n).map(|i| Some(i + 1).filter(|&j| j < n)).collect(),
            alive: vec![true; n],
        }
    }

    /// The line holding byte `pos`.
    fn of(&self, pos: usize) -> usize {
        self.starts.partition_point(|&s| s <= pos).saturating_sub(1)
    }

    fn end(&self, line: usize) -> usize {
        self.starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// Whether the line holds only whitespace.
    fn blank(&self, line: usize) -> bool {
        self.text[self.starts[line]..self.end(line)]
            .trim()
            .is_empty()
    }

    fn prev_alive(&self, line: usize) -> Option<usize> {
        self.prev[line]
    }

    fn next_alive(&self, line: usize) -> Option<usize> {
        self.next[line]
    }

    /// Takes lines `first..=last` (all alive, adjacent in what is left) out.
    fn kill(&mut self, first: usize, last: usize) {
        let (before, after) = (self.prev[first], self.next[last]);
        let mut line = Some(first);
        while let Some(l) = line {
            self.alive[l] = false;
            line = if l == last { None } else { self.next[l] };
        }
        if let Some(b) = before {
            self.next[b] = after;
        }
        if let Some(a) = after {
            self.prev[a] = before;
        }
    }

    /// The byte ranges of the lines taken out, merged, as removals.
    fn dead_ranges(&self) -> Vec<Splice> {
        let mut out: Vec<Splice> = Vec::new();
        for (line, alive) in self.alive.iter().enumerate() {
            if *alive {
                continue;
            }
            let (start, end) = (self.starts[line], self.end(line));
            match out.last_mut() {
                Some(last) if last.end == start => last.end = end,
                _ => out.push(Splice {
                    start,
                    end,
                    text: String::new(),
                }),
            }
        }
        out
    }
}
