//! Writes nodes as YAML exactly as `kustomize build` prints them.
//!
//! kustomize prints each resource by marshaling it to JSON and converting the JSON to YAML with
//! go-yaml v2 (`sigs.k8s.io/yaml.JSONToYAML`). So the output is go-yaml v2's emitter (libyaml's,
//! ported to Go) with its defaults: indent 2, block sequences not indented under their key, lines
//! folded after column 80, keys sorted in v2's natural order, and each string in the first style
//! among plain, single-quoted and double-quoted that can carry it; strings with a newline are
//! literal blocks when possible. `Emitter` keeps the same state as libyaml (column, indent,
//! "last write was whitespace", "at indentation") and follows its state machine call for call,
//! because the corner cases (`- - a`, `? long key`, `|2-`, folded quoted scalars) fall out of it.

mod key_order;
mod number;
mod resolve;

use std::borrow::Cow;

use super::{Map, Node};

pub use number::format_float;

/// libyaml's `best_width`: plain and quoted scalars fold at a space after this column.
const BEST_WIDTH: usize = 80;
/// libyaml's `best_indent`.
const BEST_INDENT: isize = 2;
/// A mapping key longer than this (in bytes) is written as a complex key (`? key`).
const MAX_SIMPLE_KEY_LEN: usize = 128;

/// Appends one document (without the `---` separator) to `out`; it ends with a newline.
// Kept out of line so that profiles show the emitter's cost under one name.
#[inline(never)]
pub fn emit_document(node: &Node, out: &mut String) {
    let mut emitter = Emitter {
        out,
        column: 0,
        indent: -1,
        whitespace: true,
        indention: true,
    };
    emitter.node(node, Context::ROOT);
    // DOCUMENT-END: go to a fresh line.
    emitter.write_indent();
}

/// The whole multi-document output of `kustomize build`: documents separated by `---` lines
/// (nothing at all for no documents).
pub fn emit_stream(docs: &[Node]) -> String {
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        emit_document(doc, &mut out);
    }
    out
}

/// The stream for borrowed documents. Large streams are written in parallel,
/// one string per document, then joined: the bytes are the same whatever the
/// thread count.
pub fn emit_stream_refs(docs: &[&Node]) -> String {
    use rayon::prelude::*;
    if docs.len() < 64 {
        let mut out = String::new();
        for (i, doc) in docs.iter().enumerate() {
            if i > 0 {
                out.push_str("---\n");
            }
            emit_document(doc, &mut out);
        }
        return out;
    }
    let parts: Vec<String> = docs
        .par_iter()
        .map(|d| {
            let mut s = String::with_capacity(1024);
            emit_document(d, &mut s);
            s
        })
        .collect();
    let total = parts.iter().map(|p| p.len() + 4).sum();
    let mut out = String::with_capacity(total);
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(p);
    }
    out
}

/// Where a node sits, as libyaml's `emit_node` flags record it.
#[derive(Clone, Copy)]
struct Context {
    /// A key or value of a mapping (a sequence there is not indented).
    mapping: bool,
    /// A mapping key written in the implicit `key: value` form (never folded nor multi-line).
    simple_key: bool,
}

impl Context {
    const ROOT: Context = Context {
        mapping: false,
        simple_key: false,
    };
    const SEQUENCE_ITEM: Context = Context::ROOT;
    const MAPPING_VALUE: Context = Context {
        mapping: true,
        simple_key: false,
    };
    const SIMPLE_KEY: Context = Context {
        mapping: true,
        simple_key: true,
    };
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// A string ready to write: its text after the JSON round trip and its chosen style.
struct Scalar<'s> {
    text: Cow<'s, str>,
    style: Style,
    multiline: bool,
    /// The text is ASCII: its width in columns is its length.
    ascii: bool,
}

impl<'s> Scalar<'s> {
    /// go-yaml v2's `stringv` (which style to ask for) and libyaml's analysis and style
    /// selection (which style the text allows).
    fn new(s: &'s str, ctx: Context) -> Scalar<'s> {
        Scalar::with_classes(s, classes(s.as_bytes()), ctx)
    }

    /// [`Scalar::new`] when the union of the classes of `s`'s bytes is known.
    fn with_classes(s: &'s str, seen: u8, ctx: Context) -> Scalar<'s> {
        if let Some(style) = quick_style(s, seen) {
            return Scalar {
                text: Cow::Borrowed(s),
                style,
                multiline: false,
                ascii: true,
            };
        }
        Scalar::analyzed(s, ctx)
    }

    /// [`Scalar::new`] for any string: the JSON round trip and libyaml's full analysis.
    #[inline(never)]
    fn analyzed(s: &'s str, ctx: Context) -> Scalar<'s> {
        let text = json_round_trip(s);
        let wanted = if text.as_bytes().contains(&b'\n') {
            Style::Literal
        } else if resolve::needs_quotes(&text) {
            Style::DoubleQuoted
        } else {
            Style::Plain
        };
        let a = Analysis::of(&text);
        let mut style = wanted;
        if ctx.simple_key && a.multiline {
            style = Style::DoubleQuoted;
        }
        if style == Style::Plain && !a.block_plain_allowed {
            style = Style::SingleQuoted;
        }
        if style == Style::SingleQuoted && !a.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal && (!a.block_allowed || ctx.simple_key) {
            style = Style::DoubleQuoted;
        }
        let ascii = text.is_ascii();
        Scalar {
            text,
            style,
            multiline: a.multiline,
            ascii,
        }
    }
}

/// Byte classes (bit flags) for the one-pass scans of [`quick_style`] and of mapping keys.
/// Printable ASCII other than these has no flag.
const SPACE: u8 = 1;
const COLON: u8 = 2;
const HASH: u8 = 4;
const DIGIT: u8 = 8;
/// Control characters (line breaks and tabs included), DEL and every non-ASCII byte: text
/// holding one takes the full analysis (NEL folding, escapes, literal blocks).
const SLOW: u8 = 16;

static CLASS: [u8; 256] = {
    let mut t = [SLOW; 256];
    let mut c = b'!';
    while c <= b'~' {
        t[c as usize] = if c.is_ascii_digit() { DIGIT } else { 0 };
        c += 1;
    }
    t[b' ' as usize] = SPACE;
    t[b':' as usize] = COLON;
    t[b'#' as usize] = HASH;
    t
};

/// The union of the classes of `b`'s bytes.
fn classes(b: &[u8]) -> u8 {
    b.iter().fold(0, |seen, &c| seen | CLASS[c as usize])
}

/// The style of a non-empty string of printable ASCII (spaces allowed, no tab nor line
/// break), given `seen`, the union of its bytes' classes; `None` for any other string, which
/// [`Analysis`] handles. Such a string is never multi-line and its JSON round trip leaves it
/// as it is, so only three of [`Analysis`]'s facts matter: blank edges and indicators rule
/// out plain, and nothing rules out single quotes.
#[inline]
fn quick_style(s: &str, seen: u8) -> Option<Style> {
    let b = s.as_bytes();
    let (&first, &last) = (b.first()?, b.last()?);
    if seen & SLOW != 0 {
        return None;
    }
    let quote = resolve::needs_quotes(s);
    if quote {
        return Some(Style::DoubleQuoted);
    }
    let mut plain_impossible = first == b' '
        || last == b' '
        || match first {
            b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'%' | b'@' | b'`' => true,
            b'?' | b':' => matches!(b.get(1), None | Some(b' ')),
            b'-' => matches!(b.get(1), None | Some(b' ')) || b.starts_with(b"---"),
            b'.' => b.starts_with(b"..."),
            _ => false,
        };
    // After the first byte: `: ` (or a final `:`) and ` #` are indicators.
    if !plain_impossible && seen & COLON != 0 {
        plain_impossible =
            (1..b.len()).any(|i| b[i] == b':' && matches!(b.get(i + 1), None | Some(b' ')));
    }
    if !plain_impossible && seen & HASH != 0 {
        plain_impossible = (1..b.len()).any(|i| b[i] == b'#' && b[i - 1] == b' ');
    }
    Some(if plain_impossible {
        Style::SingleQuoted
    } else {
        Style::Plain
    })
}

/// What go-yaml v2 changes in a string when it reads kustomize's JSON back: Go's JSON encoder
/// leaves NEL (U+0085) unescaped, and v2's scanner takes it for a line break inside the quoted
/// JSON string, so it folds: spaces around it vanish, one NEL becomes a space, and n > 1 NELs
/// in a row become n-1 newlines. (Other line breaks and tabs reach v2 escaped.)
///
/// Public for checks of the emitter (the fuzz targets): a string or key holding NEL prints
/// as this, not as itself.
pub fn json_round_trip(s: &str) -> Cow<'_, str> {
    // NEL is not ASCII, and nearly every scalar is: `is_ascii` (word at a time, no setup)
    // answers first. On kubernetes scalars (10 bytes on average) it beats a byte search for
    // NEL's lead byte C2, std's or the memchr crate's, whose per-call setup dominates.
    if s.is_ascii() || !s.contains('\u{85}') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('\u{85}') {
        let before = &rest[..pos];
        out.push_str(before.trim_end_matches(' '));
        let run_len = rest[pos..]
            .find(|c| c != ' ' && c != '\u{85}')
            .unwrap_or(rest.len() - pos);
        let nels = rest[pos..pos + run_len].matches('\u{85}').count();
        if nels == 1 {
            out.push(' ');
        } else {
            (1..nels).for_each(|_| out.push('\n'));
        }
        rest = &rest[pos + run_len..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// libyaml's `yaml_emitter_analyze_scalar`, reduced to block context (kbuild never writes a
/// scalar inside a flow collection: only empty `{}` and `[]` are flow).
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

impl Analysis {
    fn of(s: &str) -> Analysis {
        if s.is_empty() {
            return Analysis {
                multiline: false,
                block_plain_allowed: true,
                single_quoted_allowed: true,
                block_allowed: false,
            };
        }
        let b = s.as_bytes();
        let followed_by_whitespace = |next: usize| matches!(b.get(next), None | Some(b' ' | b'\t'));
        let mut block_indicators = match b[0] {
            b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'%' | b'@' | b'`' => true,
            b'?' | b':' | b'-' => followed_by_whitespace(1),
            _ => false,
        };
        block_indicators |= s.starts_with("---") || s.starts_with("...");
        let (mut line_breaks, mut special_characters) = (false, false);
        let (mut leading_space, mut leading_break) = (false, false);
        let (mut trailing_space, mut trailing_break) = (false, false);
        let (mut break_space, mut space_break) = (false, false);
        let (mut previous_space, mut previous_break) = (false, false);
        let mut preceded_by_whitespace = true;
        let mut i = 0;
        while i < b.len() {
            if CLASS[usize::from(b[i])] & !DIGIT == 0 {
                // The common case: a run of printable ASCII characters with nothing to note.
                i += 1;
                while i < b.len() && CLASS[usize::from(b[i])] & !DIGIT == 0 {
                    i += 1;
                }
                (previous_space, previous_break, preceded_by_whitespace) = (false, false, false);
                continue;
            }
            let Some(c) = s[i..].chars().next() else {
                break;
            };
            let next = i + c.len_utf8();
            let last = next == b.len();
            if i > 0 {
                match c {
                    ':' if followed_by_whitespace(next) => block_indicators = true,
                    '#' if preceded_by_whitespace => block_indicators = true,
                    _ => {}
                }
            }
            if !is_printable(c) {
                special_characters = true;
            }
            if c == ' ' {
                leading_space |= i == 0;
                trailing_space |= last;
                break_space |= previous_break;
                (previous_space, previous_break) = (true, false);
            } else if is_break(c) {
                line_breaks = true;
                leading_break |= i == 0;
                trailing_break |= last;
                space_break |= previous_space;
                (previous_space, previous_break) = (false, true);
            } else {
                (previous_space, previous_break) = (false, false);
            }
            preceded_by_whitespace = matches!(c, ' ' | '\t' | '\0') || is_break(c);
            i = next;
        }
        let edge_blank = leading_space || leading_break || trailing_space || trailing_break;
        Analysis {
            multiline: line_breaks,
            block_plain_allowed: !(edge_blank
                || break_space
                || space_break
                || special_characters
                || line_breaks
                || block_indicators),
            single_quoted_allowed: !(break_space || space_break || special_characters),
            block_allowed: !(trailing_space || space_break || special_characters),
        }
    }
}

/// libyaml's `is_printable`: what may appear unescaped (4-byte UTF-8 never may).
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

/// libyaml's `is_break`: the YAML 1.1 line breaks.
fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// A line break and the indentation of the lines that follow it.
const NEWLINE_SPACES: &str = "\n                                                                ";

/// go-yaml v2's emitter state, written straight into the output.
struct Emitter<'o> {
    out: &'o mut String,
    /// Characters (not bytes) written on the current line.
    column: usize,
    /// Current block indentation; -1 before the root node.
    indent: isize,
    /// The last thing written was whitespace (no separating space needed).
    whitespace: bool,
    /// Only indentation has been written on the current line so far.
    indention: bool,
}

impl Emitter<'_> {
    fn node(&mut self, node: &Node, ctx: Context) {
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

    fn scalar(&mut self, scalar: &Scalar<'_>, ctx: Context) {
        let saved = self.indent;
        self.increase_indent(true, false);
        let allow_breaks = !ctx.simple_key;
        let text = scalar.text.as_ref();
        match scalar.style {
            Style::Plain => self.write_plain(text, allow_breaks, scalar.ascii),
            Style::SingleQuoted
                if scalar.ascii && self.verbatim_quoted(text, b'\'', allow_breaks) =>
            {
                self.write_verbatim_quoted(text, "'");
            }
            Style::SingleQuoted => self.write_single_quoted(text, allow_breaks),
            Style::DoubleQuoted
                if scalar.ascii && self.verbatim_quoted(text, b'"', allow_breaks) =>
            {
                self.write_verbatim_quoted(text, "\"");
            }
            Style::DoubleQuoted => self.write_double_quoted(text, allow_breaks),
            Style::Literal => self.write_literal(text),
        }
        self.indent = saved;
    }

    fn write_plain(&mut self, s: &str, allow_breaks: bool, ascii: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        if !allow_breaks || self.column + s.len() <= BEST_WIDTH {
            self.out.push_str(s);
            self.column += if ascii { s.len() } else { char_count(s) };
        } else {
            self.write_plain_folded(s);
        }
        self.whitespace = false;
        self.indention = false;
    }

    /// A plain scalar that reaches past the width.
    #[inline(never)]
    fn write_plain_folded(&mut self, s: &str) {
        // Fold at a single space once past the width: the line break reads back as
        // that space.
        let mut spaces = false;
        let mut rest = s;
        while let Some(pos) = rest.bytes().position(|b| b == b' ') {
            if pos > 0 {
                self.write_str(&rest[..pos]);
                spaces = false;
            }
            let next_is_space = rest.as_bytes().get(pos + 1) == Some(&b' ');
            if !spaces && self.column > BEST_WIDTH && !next_is_space {
                self.write_indent();
            } else {
                self.put(' ');
            }
            spaces = true;
            rest = &rest[pos + 1..];
        }
        self.write_str(rest);
    }

    /// Whether the ASCII text `s`, quoted with `quote`, is written as it is: no character
    /// needs escaping or doubling (a backslash is left to the general writers in both
    /// styles) and no space can fold (the quoted text ends before the folding column).
    fn verbatim_quoted(&self, s: &str, quote: u8, allow_breaks: bool) -> bool {
        (!allow_breaks || self.column + 1 + s.len() <= BEST_WIDTH)
            && !s
                .bytes()
                .any(|c| c == quote || c == b'\\' || c < b' ' || c == 0x7f)
    }

    /// A quoted scalar that [`Emitter::verbatim_quoted`] accepted.
    fn write_verbatim_quoted(&mut self, s: &str, quote: &str) {
        self.write_indicator(quote, true, false, false);
        self.out.push_str(s);
        self.column += s.len();
        self.write_indicator(quote, false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    #[inline(never)]
    fn write_single_quoted(&mut self, s: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let (mut spaces, mut breaks) = (false, false);
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == ' ' {
                let next = chars.peek().map(|&(_, n)| n);
                let inner = i > 0 && next.is_some();
                if allow_breaks && !spaces && self.column > BEST_WIDTH && inner && next != Some(' ')
                {
                    self.write_indent();
                } else {
                    self.put(' ');
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    #[inline(never)]
    fn write_double_quoted(&mut self, s: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        // libyaml's `is_bom` looks at the start of the string whatever the position, so a
        // leading BOM makes every character escaped.
        let escape_all = s.starts_with('\u{FEFF}');
        let mut spaces = false;
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if escape_all || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                self.write_escape(c);
                spaces = false;
            } else if c == ' ' {
                let next = chars.peek().map(|&(_, n)| n);
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i > 0 && next.is_some() {
                    self.write_indent();
                    if next == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(' ');
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_escape(&mut self, c: char) {
        self.put('\\');
        let short = match c {
            '\0' => Some('0'),
            '\u{7}' => Some('a'),
            '\u{8}' => Some('b'),
            '\t' => Some('t'),
            '\n' => Some('n'),
            '\u{b}' => Some('v'),
            '\u{c}' => Some('f'),
            '\r' => Some('r'),
            '\u{1b}' => Some('e'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            '\u{85}' => Some('N'),
            '\u{A0}' => Some('_'),
            '\u{2028}' => Some('L'),
            '\u{2029}' => Some('P'),
            _ => None,
        };
        if let Some(s) = short {
            self.put(s);
            return;
        }
        let v = u32::from(c);
        let (letter, digits) = match v {
            0..=0xFF => ('x', 2),
            0x100..=0xFFFF => ('u', 4),
            _ => ('U', 8),
        };
        self.put(letter);
        for k in (0..digits).rev() {
            let digit = (v >> (4 * k)) & 0xF;
            self.put(char::from_digit(digit, 16).map_or('0', |d| d.to_ascii_uppercase()));
        }
    }

    #[inline(never)]
    fn write_literal(&mut self, s: &str) {
        self.write_indicator("|", true, false, false);
        let mut chars = s.chars();
        if chars.next().is_some_and(|c| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false); // best_indent as indentation hint
        }
        let mut tail = s.chars().rev();
        let chomp = match (tail.next(), tail.next()) {
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(before)) if is_break(before) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        // Only `\r` and non-ASCII characters can be the other line breaks.
        let other_breaks = s.bytes().any(|c| c == b'\r' || c >= 0x80);
        let mut lines = s.split('\n').peekable();
        while let Some(line) = lines.next() {
            if other_breaks && line.contains(['\r', '\u{85}', '\u{2028}', '\u{2029}']) {
                for c in line.chars() {
                    if is_break(c) {
                        self.write_break(c);
                        breaks = true;
                    } else {
                        if breaks {
                            self.write_indent();
                        }
                        self.put(c);
                        self.indention = false;
                        breaks = false;
                    }
                }
            } else if !line.is_empty() {
                if breaks {
                    self.write_indent();
                }
                self.write_str(line);
                self.indention = false;
                breaks = false;
            }
            if lines.peek().is_some() {
                self.write_break('\n');
                breaks = true;
            }
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn write_indent(&mut self) {
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

    fn write_indicator(
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
    fn write_break(&mut self, c: char) {
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

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    /// Writes text holding no line break.
    fn write_str(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += char_count(s);
    }

    fn put_break(&mut self) {
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

fn char_count(s: &str) -> usize {
    s.bytes().filter(|&b| (b & 0xC0) != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node from JSON text: strings, numbers (`i64` when they fit), and so on.
    fn node(json: &str) -> Node {
        fn convert(v: &serde_json::Value) -> Node {
            match v {
                serde_json::Value::Null => Node::Null,
                serde_json::Value::Bool(b) => Node::Bool(*b),
                serde_json::Value::Number(n) => match n.as_i64() {
                    Some(i) => Node::Int(i),
                    None => Node::Float(n.as_f64().unwrap_or(f64::NAN)),
                },
                serde_json::Value::String(s) => Node::text(s.clone()),
                serde_json::Value::Array(items) => Node::Seq(items.iter().map(convert).collect()),
                serde_json::Value::Object(fields) => Node::Map(
                    fields
                        .iter()
                        .map(|(k, v)| (k.clone(), convert(v)))
                        .collect(),
                ),
            }
        }
        let value: serde_json::Value = serde_json::from_str(json).expect("test JSON");
        convert(&value)
    }

    fn emit(node: &Node) -> String {
        let mut out = String::new();
        emit_document(node, &mut out);
        out
    }

    #[test]
    fn matches_kustomize_output() {
        let mut failures = Vec::new();
        for (json, want) in CASES {
            let got = emit(&node(json));
            if got != *want {
                failures.push(format!("{json}\n--- want\n{want}--- got\n{got}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Every string up to `max_len` characters over `alphabet`.
    fn strings(alphabet: &[char], max_len: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..max_len {
            let next: Vec<String> = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            all.extend(next.iter().cloned());
            last = next;
        }
        all
    }

    const ALPHABET: [char; 17] = [
        'a', 'y', 'e', '0', '1', ' ', ':', '#', '-', '.', '?', '\'', '"', '!', '_', '+', '\\',
    ];

    #[test]
    fn quick_style_agrees_with_the_full_analysis() {
        for s in strings(&ALPHABET, 4) {
            let quick = quick_style(&s, classes(s.as_bytes()));
            assert_eq!(quick.is_some(), !s.is_empty(), "{s:?}");
            for ctx in [Context::SIMPLE_KEY, Context::MAPPING_VALUE, Context::ROOT] {
                let full = Scalar::analyzed(&s, ctx);
                if let Some(style) = quick {
                    assert_eq!(style, full.style, "{s:?}");
                    assert!(!full.multiline && full.ascii && full.text == s, "{s:?}");
                }
            }
        }
        for s in ["a\tb", "a\nb", "caf\u{e9}", "x\u{85}", "\u{7f}", "\r"] {
            assert_eq!(quick_style(s, classes(s.as_bytes())), None, "{s:?}");
        }
    }

    #[test]
    fn verbatim_quoted_writes_what_the_general_writers_write() {
        let mut texts = strings(&ALPHABET, 3);
        texts.push("word ".repeat(20));
        texts.push(" x".repeat(45));
        for s in texts.iter().filter(|s| s.is_ascii()) {
            for column in [0, 1, 40, 76, 77, 78, 79, 80, 81, 90] {
                for whitespace in [false, true] {
                    for allow_breaks in [false, true] {
                        for quote in [b'\'', b'"'] {
                            let run = |verbatim: bool| {
                                let mut out = String::new();
                                let mut e = Emitter {
                                    out: &mut out,
                                    column,
                                    indent: 2,
                                    whitespace,
                                    indention: false,
                                };
                                let accepted = e.verbatim_quoted(s, quote, allow_breaks);
                                match (verbatim, quote) {
                                    (true, b'\'') => e.write_verbatim_quoted(s, "'"),
                                    (true, _) => e.write_verbatim_quoted(s, "\""),
                                    (false, b'\'') => e.write_single_quoted(s, allow_breaks),
                                    (false, _) => e.write_double_quoted(s, allow_breaks),
                                }
                                let state = (e.column, e.whitespace, e.indention);
                                (accepted, out, state)
                            };
                            let (accepted, fast, fast_state) = run(true);
                            if accepted {
                                let (_, slow, slow_state) = run(false);
                                assert_eq!((fast, fast_state), (slow, slow_state), "{s:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn deep_nesting_indents_past_the_spaces_table() {
        let depth = 50;
        let mut doc = Node::Int(1);
        let mut want = String::new();
        for level in 0..depth {
            let mut m = Map::new();
            m.insert("a", doc);
            doc = Node::Map(m);
            want.push_str(&"  ".repeat(level));
            want.push_str(if level + 1 == depth { "a: 1\n" } else { "a:\n" });
        }
        let mut seq = Node::Seq(vec![doc]);
        for _ in 0..3 {
            seq = Node::Seq(vec![seq]);
        }
        let mut out = String::new();
        emit_document(&seq, &mut out);
        let want = want
            .replacen("a:", "- - - - a:", 1)
            .replace("\n  ", "\n          ");
        assert_eq!(out, want);
    }

    #[test]
    fn json_round_trip_folds_nel_only() {
        assert!(matches!(json_round_trip("plain ascii"), Cow::Borrowed(_)));
        // Non-ASCII text with C2 lead bytes but no NEL stays as it is.
        assert!(matches!(
            json_round_trip("\u{a0}caf\u{e9}"),
            Cow::Borrowed(_)
        ));
        assert_eq!(json_round_trip("a \u{85} b"), "a b");
        assert_eq!(json_round_trip("a\u{85}\u{85}\u{85}b"), "a\n\nb");
        assert_eq!(json_round_trip("\u{e9}\u{85}x"), "\u{e9} x");
    }

    #[test]
    fn stream_separates_documents() {
        assert_eq!(emit_stream(&[]), "");
        let a = node(r#"{"kind": "A", "x": "a\n\n"}"#);
        let b = node(r#"{"kind": "B", "y": {}}"#);
        assert_eq!(
            emit_stream(std::slice::from_ref(&a)),
            "kind: A\nx: |+\n  a\n\n"
        );
        assert_eq!(
            emit_stream(&[a, b]),
            "kind: A\nx: |+\n  a\n\n---\nkind: B\n\"y\": {}\n"
        );
    }

    #[test]
    fn document_appends_to_existing_output() {
        let mut out = String::from("# head\n");
        emit_document(&node(r#"{"a": [1]}"#), &mut out);
        assert_eq!(out, "# head\na:\n- 1\n");
    }

    #[test]
    fn root_scalars_and_collections() {
        assert_eq!(emit(&node("{}")), "{}\n");
        assert_eq!(emit(&node("[]")), "[]\n");
        assert_eq!(emit(&node(r#"["a", ["b"]]"#)), "- a\n- - b\n");
        assert_eq!(emit(&Node::Str("yes".into())), "\"yes\"\n");
        assert_eq!(emit(&Node::Null), "null\n");
    }

    #[test]
    fn floats_in_documents() {
        let doc = Node::Map(
            [
                ("a", 718476926396777.0 + 0.25),
                ("b", 1e-7),
                ("c", -0.0),
                ("d", f64::NAN),
            ]
            .into_iter()
            .map(|(k, f)| (k.to_owned(), Node::Float(f)))
            .collect(),
        );
        assert_eq!(
            emit(&doc),
            "a: 7.184769263967772e+14\nb: 1e-07\nc: 0\nd: .nan\n"
        );
    }

    // Generated from `kubectl kustomize` (kustomize v5.5.0) output: each case is one field
    // of a resource, as JSON, and the lines kustomize printed for it.
    const CASES: &[(&str, &str)] = &[
        // Words and numbers a YAML 1.1 reader would retype are double-quoted.
        (r##"{"g00_00": "yes"}"##, "g00_00: \"yes\"\n"),
        (r##"{"g00_01": "no"}"##, "g00_01: \"no\"\n"),
        (r##"{"g00_02": "on"}"##, "g00_02: \"on\"\n"),
        (r##"{"g00_03": "off"}"##, "g00_03: \"off\"\n"),
        (r##"{"g00_04": "y"}"##, "g00_04: \"y\"\n"),
        (r##"{"g00_05": "n"}"##, "g00_05: \"n\"\n"),
        (r##"{"g00_06": "Y"}"##, "g00_06: \"Y\"\n"),
        (r##"{"g00_07": "NO"}"##, "g00_07: \"NO\"\n"),
        (r##"{"g00_08": "True"}"##, "g00_08: \"True\"\n"),
        (r##"{"g00_09": "FALSE"}"##, "g00_09: \"FALSE\"\n"),
        (r##"{"g00_10": "null"}"##, "g00_10: \"null\"\n"),
        (r##"{"g00_11": "Null"}"##, "g00_11: \"Null\"\n"),
        (r##"{"g00_12": "~"}"##, "g00_12: \"~\"\n"),
        (r##"{"g00_13": ""}"##, "g00_13: \"\"\n"),
        (r##"{"g00_14": "0"}"##, "g00_14: \"0\"\n"),
        (r##"{"g00_15": "012"}"##, "g00_15: \"012\"\n"),
        (r##"{"g00_16": "0o17"}"##, "g00_16: \"0o17\"\n"),
        (r##"{"g00_17": "0x1F"}"##, "g00_17: \"0x1F\"\n"),
        (r##"{"g00_18": "0b101"}"##, "g00_18: \"0b101\"\n"),
        (r##"{"g00_19": "1_000"}"##, "g00_19: \"1_000\"\n"),
        (r##"{"g00_20": "+1"}"##, "g00_20: \"+1\"\n"),
        (r##"{"g00_21": "-1"}"##, "g00_21: \"-1\"\n"),
        (r##"{"g00_22": "1.0"}"##, "g00_22: \"1.0\"\n"),
        (r##"{"g00_23": ".5"}"##, "g00_23: \".5\"\n"),
        (r##"{"g00_24": "1."}"##, "g00_24: \"1.\"\n"),
        (r##"{"g00_25": "1e3"}"##, "g00_25: \"1e3\"\n"),
        (r##"{"g00_26": "1E3"}"##, "g00_26: \"1E3\"\n"),
        (r##"{"g00_27": "-0.0"}"##, "g00_27: \"-0.0\"\n"),
        (r##"{"g00_28": ".inf"}"##, "g00_28: \".inf\"\n"),
        (r##"{"g00_29": "-.Inf"}"##, "g00_29: \"-.Inf\"\n"),
        (r##"{"g00_30": ".NaN"}"##, "g00_30: \".NaN\"\n"),
        (r##"{"g00_31": "08"}"##, "g00_31: \"08\"\n"),
        (r##"{"g00_32": "0755"}"##, "g00_32: \"0755\"\n"),
        (r##"{"g00_33": "1e-06"}"##, "g00_33: \"1e-06\"\n"),
        (
            r##"{"g00_34": "12345678901234567890"}"##,
            "g00_34: \"12345678901234567890\"\n",
        ),
        (
            r##"{"g00_35": "18446744073709551616"}"##,
            "g00_35: \"18446744073709551616\"\n",
        ),
        (r##"{"g00_36": "1:20"}"##, "g00_36: \"1:20\"\n"),
        (r##"{"g00_37": "190:20:30"}"##, "g00_37: \"190:20:30\"\n"),
        (r##"{"g00_38": "-1:30"}"##, "g00_38: \"-1:30\"\n"),
        (r##"{"g00_39": "2024-01-01"}"##, "g00_39: \"2024-01-01\"\n"),
        (r##"{"g00_40": "2024-1-1"}"##, "g00_40: \"2024-1-1\"\n"),
        (
            r##"{"g00_41": "2024-01-01 10:00:00"}"##,
            "g00_41: \"2024-01-01 10:00:00\"\n",
        ),
        (
            r##"{"g00_42": "2024-01-01T10:00:00Z"}"##,
            "g00_42: \"2024-01-01T10:00:00Z\"\n",
        ),
        (
            r##"{"g00_43": "2024-01-01t10:00:00.5+05:30"}"##,
            "g00_43: \"2024-01-01t10:00:00.5+05:30\"\n",
        ),
        // Look-alikes that stay plain.
        (r##"{"g01_00": "1e"}"##, "g01_00: 1e\n"),
        (r##"{"g01_01": "NaN"}"##, "g01_01: NaN\n"),
        (r##"{"g01_02": "inf"}"##, "g01_02: inf\n"),
        (r##"{"g01_03": "yES"}"##, "g01_03: yES\n"),
        (r##"{"g01_04": "<<"}"##, "g01_04: <<\n"),
        (r##"{"g01_05": "="}"##, "g01_05: =\n"),
        (r##"{"g01_06": "v1.0"}"##, "g01_06: v1.0\n"),
        (r##"{"g01_07": "1.5.3"}"##, "g01_07: 1.5.3\n"),
        (r##"{"g01_08": "0x"}"##, "g01_08: 0x\n"),
        (r##"{"g01_09": "1e400"}"##, "g01_09: 1e400\n"),
        (
            r##"{"g01_10": "0xFFFFFFFFFFFFFFFFF"}"##,
            "g01_10: 0xFFFFFFFFFFFFFFFFF\n",
        ),
        (r##"{"g01_11": "1:60"}"##, "g01_11: 1:60\n"),
        (r##"{"g01_12": "::1"}"##, "g01_12: ::1\n"),
        (r##"{"g01_13": "10.0.0.1:80"}"##, "g01_13: 10.0.0.1:80\n"),
        (r##"{"g01_14": "2024-02-30"}"##, "g01_14: 2024-02-30\n"),
        (r##"{"g01_15": "2023-02-29"}"##, "g01_15: 2023-02-29\n"),
        (r##"{"g01_16": "2024-13-01"}"##, "g01_16: 2024-13-01\n"),
        (
            r##"{"g01_17": "2024-01-01T10:00:00"}"##,
            "g01_17: 2024-01-01T10:00:00\n",
        ),
        (
            r##"{"g01_18": "2024-01-01T24:00:00Z"}"##,
            "g01_18: 2024-01-01T24:00:00Z\n",
        ),
        (
            r##"{"g01_19": "2024-01-01 10:00:00Z"}"##,
            "g01_19: 2024-01-01 10:00:00Z\n",
        ),
        (r##"{"g01_20": "50%"}"##, "g01_20: 50%\n"),
        (r##"{"g01_21": "100m"}"##, "g01_21: 100m\n"),
        (r##"{"g01_22": "x#y"}"##, "g01_22: x#y\n"),
        (r##"{"g01_23": "x:y"}"##, "g01_23: x:y\n"),
        (r##"{"g01_24": "-x"}"##, "g01_24: -x\n"),
        (r##"{"g01_25": "?x"}"##, "g01_25: ?x\n"),
        (r##"{"g01_26": ":x"}"##, "g01_26: :x\n"),
        (r##"{"g01_27": "a'b"}"##, "g01_27: a'b\n"),
        (r##"{"g01_28": "a\"b"}"##, "g01_28: a\"b\n"),
        (r##"{"g01_29": "a\\b"}"##, "g01_29: a\\b\n"),
        (r##"{"g01_30": "$(VAR)"}"##, "g01_30: $(VAR)\n"),
        (
            r##"{"g01_31": "http://example.com/a?b=c#d"}"##,
            "g01_31: http://example.com/a?b=c#d\n",
        ),
        // Single-quoted when plain is impossible.
        (r##"{"g02_00": "-"}"##, "g02_00: '-'\n"),
        (r##"{"g02_01": "--"}"##, "g02_01: --\n"),
        (r##"{"g02_02": "---"}"##, "g02_02: '---'\n"),
        (r##"{"g02_03": "..."}"##, "g02_03: '...'\n"),
        (r##"{"g02_04": "- x"}"##, "g02_04: '- x'\n"),
        (r##"{"g02_05": "? x"}"##, "g02_05: '? x'\n"),
        (r##"{"g02_06": ": x"}"##, "g02_06: ': x'\n"),
        (r##"{"g02_07": "x:"}"##, "g02_07: 'x:'\n"),
        (r##"{"g02_08": "x: y"}"##, "g02_08: 'x: y'\n"),
        (r##"{"g02_09": "x #y"}"##, "g02_09: 'x #y'\n"),
        (r##"{"g02_10": "#x"}"##, "g02_10: '#x'\n"),
        (r##"{"g02_11": "!x"}"##, "g02_11: '!x'\n"),
        (r##"{"g02_12": "&x"}"##, "g02_12: '&x'\n"),
        (r##"{"g02_13": "*x"}"##, "g02_13: '*x'\n"),
        (r##"{"g02_14": "%x"}"##, "g02_14: '%x'\n"),
        (r##"{"g02_15": "@x"}"##, "g02_15: '@x'\n"),
        (r##"{"g02_16": "`x"}"##, "g02_16: '`x'\n"),
        (r##"{"g02_17": "|x"}"##, "g02_17: '|x'\n"),
        (r##"{"g02_18": ">x"}"##, "g02_18: '>x'\n"),
        (r##"{"g02_19": "[x]"}"##, "g02_19: '[x]'\n"),
        (r##"{"g02_20": "{x}"}"##, "g02_20: '{x}'\n"),
        (r##"{"g02_21": ",x"}"##, "g02_21: ',x'\n"),
        (r##"{"g02_22": "'x"}"##, "g02_22: '''x'\n"),
        (r##"{"g02_23": "\"x"}"##, "g02_23: '\"x'\n"),
        (r##"{"g02_24": " lead"}"##, "g02_24: ' lead'\n"),
        (r##"{"g02_25": "trail "}"##, "g02_25: 'trail '\n"),
        (r##"{"g02_26": " both "}"##, "g02_26: ' both '\n"),
        (r##"{"g02_27": "  "}"##, "g02_27: '  '\n"),
        (r##"{"g02_28": "{{ tmpl }}"}"##, "g02_28: '{{ tmpl }}'\n"),
        (r##"{"g02_29": "ls\u2028x"}"##, "g02_29: 'ls\u{2028}  x'\n"),
        (r##"{"g02_30": "a\u2029b"}"##, "g02_30: 'a\u{2029}  b'\n"),
        // Double-quoted with escapes.
        (r##"{"g03_00": "tab\there"}"##, "g03_00: \"tab\\there\"\n"),
        (r##"{"g03_01": "\t"}"##, "g03_01: \"\\t\"\n"),
        (r##"{"g03_02": "bell\u0007"}"##, "g03_02: \"bell\\a\"\n"),
        (r##"{"g03_03": "nul\u0000x"}"##, "g03_03: \"nul\\0x\"\n"),
        (r##"{"g03_04": "esc\u001b[0m"}"##, "g03_04: \"esc\\e[0m\"\n"),
        (r##"{"g03_05": "\u000b\f"}"##, "g03_05: \"\\v\\f\"\n"),
        (r##"{"g03_06": "\r"}"##, "g03_06: \"\\r\"\n"),
        (r##"{"g03_07": "a\r\nb"}"##, "g03_07: \"a\\r\\nb\"\n"),
        (r##"{"g03_08": "sp  \nx"}"##, "g03_08: \"sp  \\nx\"\n"),
        (r##"{"g03_09": "a \nb"}"##, "g03_09: \"a \\nb\"\n"),
        (r##"{"g03_10": "a\n "}"##, "g03_10: \"a\\n \"\n"),
        (
            r##"{"g03_11": "\ud83d\ude00"}"##,
            "g03_11: \"\\U0001F600\"\n",
        ),
        (
            r##"{"g03_12": "x \ud83d\ude00 y"}"##,
            "g03_12: \"x \\U0001F600 y\"\n",
        ),
        (
            r##"{"g03_13": "\ufeffbom"}"##,
            "g03_13: \"\\uFEFF\\x62\\x6F\\x6D\"\n",
        ),
        (r##"{"g03_14": "a\ufeffb"}"##, "g03_14: \"a\\uFEFFb\"\n"),
        (r##"{"g03_15": "\ufeff"}"##, "g03_15: \"\\uFEFF\"\n"),
        (r##"{"g03_16": "\ufffd ok"}"##, "g03_16: � ok\n"),
        (
            r##"{"g03_17": "\udbff\udfff"}"##,
            "g03_17: \"\\U0010FFFF\"\n",
        ),
        (
            r##"{"g03_18": "caf\u00e9 \u4e2d\u6587 \u00a0nbsp"}"##,
            "g03_18: café 中文  nbsp\n",
        ),
        // Multi-line strings are literal blocks.
        (
            r##"{"g04_00": "line1\nline2"}"##,
            "g04_00: |-\n  line1\n  line2\n",
        ),
        (
            r##"{"g04_01": "line1\nline2\n"}"##,
            "g04_01: |\n  line1\n  line2\n",
        ),
        (r##"{"g04_02": "trail\n\n"}"##, "g04_02: |+\n  trail\n\n"),
        (r##"{"g04_03": "\nlead"}"##, "g04_03: |2-\n\n  lead\n"),
        (r##"{"g04_04": " lead\nx"}"##, "g04_04: |2-\n   lead\n  x\n"),
        (r##"{"g04_05": "\n"}"##, "g04_05: |2+\n\n"),
        (r##"{"g04_06": "\n\n"}"##, "g04_06: |2+\n\n\n"),
        (r##"{"g04_07": "a\n b"}"##, "g04_07: |-\n  a\n   b\n"),
        (r##"{"g04_08": "a\n\n\nb"}"##, "g04_08: |-\n  a\n\n\n  b\n"),
        (r##"{"g04_09": "  two\n"}"##, "g04_09: |2\n    two\n"),
        (r##"{"g04_10": "x\ttab\ny"}"##, "g04_10: \"x\\ttab\\ny\"\n"),
        (
            r##"{"g04_11": "caf\u00e9\n\u4e2d\u6587\n"}"##,
            "g04_11: |\n  café\n  中文\n",
        ),
        // Long scalars fold after column 80.
        (
            r##"{"g05_00": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"##,
            "g05_00: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
        ),
        (
            r##"{"g05_01": "word word word word word word word word word word word word word word word word word word word word "}"##,
            "g05_01: 'word word word word word word word word word word word word word word word\n  word word word word word '\n",
        ),
        (
            r##"{"g05_02": "word word word word word word word word word word word word word word word word word word word word"}"##,
            "g05_02: word word word word word word word word word word word word word word word\n  word word word word word\n",
        ),
        (
            r##"{"g05_03": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa and more"}"##,
            "g05_03: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n  and more\n",
        ),
        (
            r##"{"g05_04": " word word word word word word word word word word word word word word word word word word word word "}"##,
            "g05_04: ' word word word word word word word word word word word word word word word\n  word word word word word '\n",
        ),
        (
            r##"{"g05_05": "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq   rrrrr s"}"##,
            "g05_05: qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq   rrrrr\n  s\n",
        ),
        (
            r##"{"g05_06": "\tword word word word word word word word word word word word word word word word word word word word "}"##,
            "g05_06: \"\\tword word word word word word word word word word word word word word word\n  word word word word word \"\n",
        ),
        (
            r##"{"g05_07": "\tword word word word word word word word word word word word word word   w  w  w  w  w  w  w  w  w  w"}"##,
            "g05_07: \"\\tword word word word word word word word word word word word word word   w\n  \\ w  w  w  w  w  w  w  w  w\"\n",
        ),
        (
            r##"{"g05_08": "line line line line line line line line line line line line line line line line line line line line line line line line line line line line line line \nmore more more more more more more more more more more more more more more more more more more more more more more more more more more more more more "}"##,
            "g05_08: \"line line line line line line line line line line line line line line line\n  line line line line line line line line line line line line line line line \\nmore\n  more more more more more more more more more more more more more more more more\n  more more more more more more more more more more more more more \"\n",
        ),
        (
            r##"{"g05_09": "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"}"##,
            "g05_09: kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n  kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n",
        ),
        (
            r##"{"g05_10": "x \u2028b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b "}"##,
            "g05_10: \"x \\Lb b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b\n  b b b b b b b b b b \"\n",
        ),
        // Line breaks that go-yaml v2 folds on the way back from JSON (NEL).
        (r##"{"g06_00": "nel\u0085x"}"##, "g06_00: nel x\n"),
        (r##"{"g06_01": "a \u0085 b"}"##, "g06_01: a b\n"),
        (
            r##"{"g06_02": "a\u0085\u0085b"}"##,
            "g06_02: |-\n  a\n  b\n",
        ),
        (
            r##"{"g06_03": "a\u0085\u0085\u0085b"}"##,
            "g06_03: |-\n  a\n\n  b\n",
        ),
        (r##"{"g06_04": "\u0085"}"##, "g06_04: ' '\n"),
        (r##"{"g06_05": "x\u0085"}"##, "g06_05: 'x '\n"),
        // Keys: quoting, complex keys and order.
        (
            r##"{"g07_00": {"": 1, "yes": 2, "1": 3, " a": 4, "a: b": 5, "#x": 6, "x\ny": 7, "\u00fc": 8, "\ud83d\ude00": 9, "null": 10}}"##,
            "g07_00:\n  \"\": 1\n  ' a': 4\n  '#x': 6\n  \"\\U0001F600\": 9\n  \"1\": 3\n  'a: b': 5\n  \"null\": 10\n  ? |-\n    x\n    y\n  : 7\n  \"yes\": 2\n  ü: 8\n",
        ),
        (
            r##"{"g07_01": {"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk": 1, "lllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll": 2, "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm": 3, "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\nsecond": [1, 2], "oooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo": {"p": 1}, "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq": [], "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr": "a\nb"}}"##,
            "g07_01:\n  kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: 1\n  ? lllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll\n  : 2\n  ? mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n    mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n  : 3\n  ? |-\n    nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\n    second\n  : - 1\n    - 2\n  ? oooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo\n  : p: 1\n  ? qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq\n  : []\n  ? rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr\n  : |-\n    a\n    b\n",
        ),
        (
            r##"{"g07_02": {"b": 0, "a": 0, "a10": 0, "a2": 0, "a1": 0, "_x": 0, "1": 0, "10": 0, "9": 0, "A": 0, "B2": 0, "Z": 0, "a-b": 0, "a.b": 0, "a_b": 0, "\u00fc": 0, "Ab": 0, "aB": 0, "-k": 0, ".k": 0}}"##,
            "g07_02:\n  -k: 0\n  .k: 0\n  _x: 0\n  \"1\": 0\n  \"9\": 0\n  \"10\": 0\n  A: 0\n  Ab: 0\n  B2: 0\n  Z: 0\n  a: 0\n  a-b: 0\n  a.b: 0\n  a_b: 0\n  a1: 0\n  a2: 0\n  a10: 0\n  aB: 0\n  b: 0\n  ü: 0\n",
        ),
        (
            r##"{"g07_03": {"a100": 0, "a20": 0, "a3": 0, "a003": 0, "a03": 0, "a105": 0, "a12": 0, "a1": 0, "a-": 0, "a0": 0, "a": 0, " ": 0, "x1y": 0, "x10y": 0}}"##,
            "g07_03:\n  ' ': 0\n  a: 0\n  a-: 0\n  a0: 0\n  a1: 0\n  a3: 0\n  a03: 0\n  a003: 0\n  a12: 0\n  a20: 0\n  a100: 0\n  a105: 0\n  x10y: 0\n  x1y: 0\n",
        ),
        (
            r##"{"g07_04": {"z\u0663": 0, "z3": 0, "z\u00e9": 0, "ze": 0, "z\u4e2d": 0, "z-": 0, "zZ": 0}}"##,
            "g07_04:\n  z-: 0\n  z3: 0\n  z٣: 0\n  zZ: 0\n  ze: 0\n  zé: 0\n  z中: 0\n",
        ),
        // Collections.
        (
            r##"{"g08_00": [["a", "b"], [], {}, null, [["x"]], [[]]]}"##,
            "g08_00:\n- - a\n  - b\n- []\n- {}\n- null\n- - - x\n- - []\n",
        ),
        (
            r##"{"g08_01": [{"a": 1, "b": 2}, {"c": {"d": [1, {"e": null}]}}, {"z": [], "y": {}}]}"##,
            "g08_01:\n- a: 1\n  b: 2\n- c:\n    d:\n    - 1\n    - e: null\n- \"y\": {}\n  z: []\n",
        ),
        (
            r##"{"g08_02": {"a": [1, 2, {"b": [3]}], "c": [[1]], "d": {}, "e": []}}"##,
            "g08_02:\n  a:\n  - 1\n  - 2\n  - b:\n    - 3\n  c:\n  - - 1\n  d: {}\n  e: []\n",
        ),
        (
            r##"{"g08_03": [{"a": [1, [2, {"b": "x\ny"}]]}, "s\nt\n", [{}]]}"##,
            "g08_03:\n- a:\n  - 1\n  - - 2\n    - b: |-\n        x\n        y\n- |\n  s\n  t\n- - {}\n",
        ),
        (r##"{"g08_04": {}}"##, "g08_04: {}\n"),
        (r##"{"g08_05": []}"##, "g08_05: []\n"),
        // Scalars of other types.
        (r##"{"g09_00": true}"##, "g09_00: true\n"),
        (r##"{"g09_01": false}"##, "g09_01: false\n"),
        (r##"{"g09_02": null}"##, "g09_02: null\n"),
        (r##"{"g09_03": 0}"##, "g09_03: 0\n"),
        (r##"{"g09_04": -1}"##, "g09_04: -1\n"),
        (
            r##"{"g09_05": 9223372036854775807}"##,
            "g09_05: 9223372036854775807\n",
        ),
        (
            r##"{"g09_06": -9223372036854775808}"##,
            "g09_06: -9223372036854775808\n",
        ),
        (r##"{"g09_07": 0.5}"##, "g09_07: 0.5\n"),
        (r##"{"g09_08": 1.0}"##, "g09_08: 1\n"),
        (r##"{"g09_09": -0.0}"##, "g09_09: 0\n"),
        (r##"{"g09_10": 1e+21}"##, "g09_10: 1e+21\n"),
        (r##"{"g09_11": 1e+20}"##, "g09_11: 1e+20\n"),
        (r##"{"g09_12": 1e-07}"##, "g09_12: 1e-07\n"),
        (r##"{"g09_13": 15000000000.0}"##, "g09_13: 15000000000\n"),
        (r##"{"g09_14": 1234567.5}"##, "g09_14: 1.2345675e+06\n"),
        (r##"{"g09_15": 123456.5}"##, "g09_15: 123456.5\n"),
        (r##"{"g09_16": 0.0001}"##, "g09_16: 0.0001\n"),
        (
            r##"{"g09_17": 3.141592653589793}"##,
            "g09_17: 3.141592653589793\n",
        ),
    ];
}
