//! The emitter: libyaml's state (column, indent, whitespace, indentation), the walk over
//! nodes (block sequences and mappings, keys in go-yaml v2's order, `? key` for long keys)
//! and the primitives that write indicators, indentation and line breaks.

use std::borrow::Cow;

use crate::yaml::{Map, Node};

use super::style::{Scalar, Style, classes, json_round_trip, quick_style};
use super::{BEST_INDENT, MAX_SIMPLE_KEY_LEN, format_float, key_order};

/// Where a node sits, as libyaml's `emit_node` flags record it.
#[derive(Clone, Copy)]
pub(super) struct Context {
    /// A key or value of a mapping (a sequence there is not indented).
    mapping: bool,
    /// A mapping key written in the implicit `key: value` form (never folded nor multi-line).
    pub(super) simple_key: bool,
}

impl Context {
    pub(super) const ROOT: Context = Context {
        mapping: false,
        simple_key: false,
    };
    const SEQUENCE_ITEM: Context = Context::ROOT;
    pub(super) const MAPPING_VALUE: Context = Context {
        mapping: true,
        simple_key: false,
    };
    pub(super) const SIMPLE_KEY: Context = Context {
        mapping: true,
        simple_key: true,
    };
}

/// A line break and the indentation of the lines that follow it.
const NEWLINE_SPACES: &str = "\n                                                                ";

/// go-yaml v2's emitter state, written straight into the output.
pub(super) struct Emitter<'o> {
    pub(super) out: &'o mut String,
    /// Characters (not bytes) written on the current line.
    pub(super) column: usize,
    /// Current block indentation; -1 before the root node.
    pub(super) indent: isize,
    /// The last thing written was whitespace (no separating space needed).
    pub(super) whitespace: bool,
    /// Only indentation has been written on the current line so far.
    pub(super) indention: bool,
}

impl Emitter<'_> {
    pub(super) fn node(&mut self, node: &Node, ctx: Context) {
        match node {
            Node::Map(map) if map.is_empty() => self.empty_flow("{", "}"),
            Node::Map(map) => self.block_mapping(map),
            Node::Seq(items) if items.is_empty() => self.empty_flow("[", "]"),
            Node::Seq(items) => self.block_sequence(items, ctx),
            Node::Str(s) => {
                let seen = classes(s.as_bytes());
                if quick_style(s, seen) == Some(Style::Plain) {
                    // The common case, without building a `Scalar`.
                    let saved = self.indent;
                    self.increase_indent(true, false);
                    self.write_plain(s, !ctx.simple_key, true);
                    self.indent = saved;
                } else {
                    let scalar = Scalar::with_classes(s, seen, ctx);
                    self.scalar(&scalar, ctx);
                }
            }
            Node::Null => self.plain_token("null"),
            Node::Bool(b) => self.plain_token(if *b { "true" } else { "false" }),
            Node::Int(i) => self.plain_token(itoa(*i, &mut [0; 20])),
            Node::Uint(u) => self.plain_token(&u.to_string()),
            Node::Float(f) => self.plain_token(&format_float(*f)),
        }
    }

    /// An empty collection, which libyaml always writes in flow style.
    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn block_sequence(&mut self, items: &[Node], ctx: Context) {
        let saved = self.indent;
        // A sequence that is a mapping value starts on the key's line's indentation.
        self.increase_indent(false, ctx.mapping && !self.indention);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.node(item, Context::SEQUENCE_ITEM);
        }
        self.indent = saved;
    }

    fn block_mapping(&mut self, map: &Map) {
        let saved = self.indent;
        self.increase_indent(false, false);
        let n = map.len();
        if n == 1 {
            // One key: nothing to order.
            if let Some((key, value)) = map.get_index(0) {
                self.entry(&json_round_trip(key), None, value);
            }
            self.indent = saved;
            return;
        }
        if n <= key_order::SMALL {
            // Nearly every mapping: ordered on the stack, without allocating.
            let mut keys = [""; key_order::SMALL];
            for (slot, (key, _)) in keys.iter_mut().zip(map) {
                *slot = key.as_str();
            }
            let mut order = [0u8; key_order::SMALL];
            let mut key_classes = [0u8; key_order::SMALL];
            if key_order::small_order(&keys[..n], &mut order, &mut key_classes) {
                for &i in &order[..n] {
                    let i = usize::from(i);
                    if let Some((_, value)) = map.get_index(i) {
                        self.entry(keys[i], Some(key_classes[i]), value);
                    }
                }
                self.indent = saved;
                return;
            }
        }
        let mut entries: Vec<(&str, &Node)> = Vec::with_capacity(n);
        let mut owned_keys: Vec<(String, &Node)> = Vec::new();
        for (key, value) in map {
            match json_round_trip(key) {
                Cow::Borrowed(k) => entries.push((k, value)),
                Cow::Owned(k) => owned_keys.push((k, value)),
            }
        }
        entries.extend(owned_keys.iter().map(|(k, v)| (k.as_str(), *v)));
        key_order::sort_keys(&mut entries);
        for (key, value) in entries {
            self.entry(key, None, value);
        }
        self.indent = saved;
    }

    /// One `key: value` entry of a block mapping (`? key` and `: value` for a long or
    /// multi-line key).
    /// `key_classes`: the union of the key's bytes' classes when known.
    fn entry(&mut self, key: &str, key_classes: Option<u8>, value: &Node) {
        self.write_indent();
        let seen = key_classes.unwrap_or_else(|| classes(key.as_bytes()));
        if key.len() <= MAX_SIMPLE_KEY_LEN && quick_style(key, seen) == Some(Style::Plain) {
            // The common case: a plain key right after the indentation (so no separating
            // space), never folded.
            self.out.push_str(key);
            self.out.push(':');
            self.column += key.len() + 1;
            self.whitespace = false;
            self.indention = false;
            self.node(value, Context::MAPPING_VALUE);
            return;
        }
        let simple = Scalar::with_classes(key, seen, Context::SIMPLE_KEY);
        if !simple.multiline && simple.text.len() <= MAX_SIMPLE_KEY_LEN {
            self.scalar(&simple, Context::SIMPLE_KEY);
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indicator("?", true, false, true);
            self.scalar(
                &Scalar::new(key, Context::MAPPING_VALUE),
                Context::MAPPING_VALUE,
            );
            self.write_indent();
            self.write_indicator(":", true, false, true);
        }
        self.node(value, Context::MAPPING_VALUE);
    }

    /// A number, boolean or null: always plain, never folded.
    fn plain_token(&mut self, token: &str) {
        if !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(token);
        self.column += token.len();
        self.whitespace = false;
        self.indention = false;
    }

    pub(super) fn increase_indent(&mut self, flow: bool, indentless: bool) {
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    pub(super) fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            // A line break and the indentation in one copy when it is short.
            if let Some(line_start) = NEWLINE_SPACES.get(..=indent) {
                self.out.push_str(line_start);
                self.column = indent;
            } else {
                self.put_break();
            }
        }
        if self.column < indent {
            self.write_spaces(indent - self.column);
        }
        self.whitespace = true;
        self.indention = true;
    }

    pub(super) fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(indicator);
        self.column += indicator.len();
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    /// Copies a line break from a scalar: `\n` ends the output line; the other breaks are
    /// written as they are but count as a new line, as in libyaml.
    pub(super) fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
        self.indention = true;
    }

    /// `n` spaces on the current line.
    fn write_spaces(&mut self, n: usize) {
        const SPACES: &str = NEWLINE_SPACES.split_at(1).1;
        let mut left = n;
        while left > 0 {
            let k = left.min(SPACES.len());
            self.out.push_str(&SPACES[..k]);
            left -= k;
        }
        self.column += n;
    }

    pub(super) fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    /// Writes text holding no line break.
    pub(super) fn write_str(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += char_count(s);
    }

    pub(super) fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }
}

/// Formats an integer into `buf` without allocating.
fn itoa(i: i64, buf: &mut [u8; 20]) -> &str {
    let mut n = i.unsigned_abs();
    let mut pos = buf.len();
    loop {
        pos -= 1;
        buf[pos] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if i < 0 {
        pos -= 1;
        buf[pos] = b'-';
    }
    std::str::from_utf8(&buf[pos..]).unwrap_or("0")
}

pub(super) fn char_count(s: &str) -> usize {
    s.bytes().filter(|&b| (b & 0xC0) != 0x80).count()
}
