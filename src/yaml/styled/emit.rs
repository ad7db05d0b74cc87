//! go-yaml v3's encoder as kyaml configures it (`yaml.NewEncoder` with indent 2
//! and `CompactSeqIndent`), writing a [`Styled`] node back to YAML text.
//!
//! This is libyaml's emitter as go-yaml v3 (v3.0.3, which kustomize v5.8.1
//! uses) changed it, followed state for state: indentation is "regular" (a
//! nested block is indented 2 more than its parent's indentation rounded to 2,
//! so text indented by 4 comes back indented by 2), a block sequence under a
//! mapping key is not indented, lines are never folded (v3 sets no width), and
//! non-ASCII text is written as is, except what libyaml deems unprintable
//! (characters outside the BMP included), which goes in double quotes with
//! escapes. Each scalar keeps its style where the text allows it; a multi-line
//! plain one becomes a literal block. The quirks come along: a folded scalar
//! gets an extra line break after its first line (libyaml's `k := 0` slip in
//! `write_folded_scalar`), and a document that is a plain scalar is followed
//! by `...`.
//!
//! The emitter takes no events: the recursion over the node plays the state
//! machine's part, and `in_block_seq` stands for "the state stacked by the
//! parent is BLOCK-SEQUENCE-ITEM", the one thing v3's indentation rule asks of
//! that stack.

use super::{Kind, ScalarStyle, Styled};
use crate::yaml::emit::analysis::{Analysis, Tabs, is_break, is_printable};
use crate::yaml::emit::escape::write_escape;

/// kyaml's indent.
const BEST_INDENT: isize = 2;
/// A key longer than this (anchor, tag and text, in bytes) is written `? key`.
const MAX_SIMPLE_KEY_LEN: usize = 128;

/// The text go-yaml v3 writes for the document holding `root` (kyaml's
/// `yaml.String`), ending with a line break.
pub fn to_string(root: &Styled) -> String {
    let mut e = Emitter {
        out: String::new(),
        column: 0,
        indent: -1,
        indents: Vec::new(),
        flow_level: 0,
        whitespace: true,
        indention: true,
        open_ended: false,
        ctx: Ctx::default(),
    };
    e.node(root, Ctx::ROOT, false);
    // DOCUMENT-END (implicit), then STREAM-END.
    e.write_indent();
    if e.open_ended {
        e.write_indicator("...", true, false, false);
        e.write_indent();
    }
    e.out
}

/// The context flags `yaml_emitter_emit_node` sets for a node.
#[derive(Clone, Copy, Default)]
struct Ctx {
    root: bool,
    mapping: bool,
    simple_key: bool,
}

impl Ctx {
    const ITEM: Ctx = Ctx {
        root: false,
        mapping: false,
        simple_key: false,
    };
    const ROOT: Ctx = Ctx {
        root: true,
        ..Ctx::ITEM
    };
    const VALUE: Ctx = Ctx {
        mapping: true,
        ..Ctx::ITEM
    };
    const SIMPLE_KEY: Ctx = Ctx {
        simple_key: true,
        ..Ctx::VALUE
    };
}

fn is_blank(c: Option<char>) -> bool {
    matches!(c, Some(' ' | '\t'))
}

/// `is_blankz`: blank, a break, or the end.
fn is_blankz(c: Option<char>) -> bool {
    match c {
        None | Some('\0') => true,
        Some(c) => c == ' ' || c == '\t' || is_break(c),
    }
}

/// Whether go-yaml v3 writes the `!!str` string `s`, as a block mapping's value, plain: the
/// encoder's and the emitter's choices of `Emitter::scalar` for that one case, without
/// building a document (the scalar-style model asks this of every string of every
/// JSON-patched resource).
pub fn str_is_plain_block_value(s: &str) -> bool {
    !s.is_empty()
        && !s.contains('\n')
        && crate::yaml::parse::plain_tag(s) == "!!str"
        && analyze(s).block_plain_allowed
}

/// libyaml's scalar analysis as go-yaml v3 computes it (tabs keep plain and single quotes
/// out, but not block scalars).
fn analyze(value: &str) -> Analysis {
    Analysis::of(value, Tabs::AllowedInBlocks)
}

/// A tag split by go-yaml's default tag directives (`!` and `!!`): the handle
/// to write, and the suffix (written `!<suffix>` without a handle).
struct TagParts {
    handle: &'static str,
    suffix: String,
}

impl TagParts {
    fn of(short: &str) -> Option<TagParts> {
        if short.is_empty() {
            return None;
        }
        // The encoder's `longTag` expands `!!x` to the core prefix; the
        // emitter's directives turn it back into `!!`. (No tag starts with
        // both `!` and the core prefix, so the order of the tests is free.)
        let (handle, suffix) = if let Some(core) = short
            .strip_prefix("!!")
            .or_else(|| short.strip_prefix(super::CORE))
        {
            ("!!", core)
        } else if let Some(local) = short.strip_prefix('!') {
            ("!", local)
        } else {
            ("", short)
        };
        Some(TagParts {
            handle,
            suffix: suffix.to_string(),
        })
    }

    fn len(&self) -> usize {
        self.handle.len() + self.suffix.len()
    }
}

struct Emitter {
    out: String,
    /// Characters written on the current line.
    column: usize,
    indent: isize,
    indents: Vec<isize>,
    flow_level: usize,
    whitespace: bool,
    indention: bool,
    open_ended: bool,
    /// The flags of the node being written.
    ctx: Ctx,
}

impl Emitter {
    fn node(&mut self, n: &Styled, ctx: Ctx, in_block_seq: bool) {
        self.ctx = ctx;
        match &n.kind {
            Kind::Scalar(value) => self.scalar(n, value, in_block_seq),
            Kind::Seq(items) => {
                self.collection_tag(n);
                if self.flow_level > 0 || n.style.flow || items.is_empty() {
                    self.flow_sequence(items, in_block_seq);
                } else {
                    self.block_sequence(items, in_block_seq);
                }
            }
            Kind::Map(pairs) => {
                self.collection_tag(n);
                if self.flow_level > 0 || n.style.flow || pairs.is_empty() {
                    self.flow_mapping(pairs, in_block_seq);
                } else {
                    self.block_mapping(pairs, in_block_seq);
                }
            }
        }
    }

    fn collection_tag(&mut self, n: &Styled) {
        let (tag, _) = n.written_tag();
        if let Some(parts) = TagParts::of(tag) {
            self.write_tag(&parts);
        }
    }

    /// `yaml_emitter_increase_indent_compact`.
    fn increase_indent(&mut self, flow: bool, compact_seq: bool, in_block_seq: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if in_block_seq {
            // The first indent inside a sequence item skips the "- ".
            self.indent += 2;
        } else {
            self.indent = BEST_INDENT * ((self.indent + BEST_INDENT) / BEST_INDENT);
            if compact_seq {
                self.indent -= 2;
            }
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn block_sequence(&mut self, items: &[Styled], in_block_seq: bool) {
        let compact = self.ctx.mapping && (self.column == 0 || !self.indention);
        self.increase_indent(false, compact, in_block_seq);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.node(item, Ctx::ITEM, true);
        }
        self.pop_indent();
    }

    fn block_mapping(&mut self, pairs: &[(Styled, Styled)], in_block_seq: bool) {
        self.increase_indent(false, false, in_block_seq);
        for (k, v) in pairs {
            self.write_indent();
            if self.is_simple_key(k) {
                self.node(k, Ctx::SIMPLE_KEY, false);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.node(k, Ctx::VALUE, false);
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.node(v, Ctx::VALUE, false);
        }
        self.pop_indent();
    }

    /// A flow collection's opening indicator and the indentation and level of
    /// its items.
    fn flow_start(&mut self, open: &str, in_block_seq: bool) {
        self.write_indicator(open, true, true, false);
        self.increase_indent(true, false, in_block_seq);
        self.flow_level += 1;
    }

    /// What libyaml writes before each item of a flow collection: a `,` after
    /// the first, and the indentation at the start of a line.
    fn flow_item_start(&mut self, first: bool) {
        if !first {
            self.write_indicator(",", false, false, false);
        }
        if self.column == 0 {
            self.write_indent();
        }
    }

    /// Leaves a flow collection's items (its closing indicator is the
    /// caller's: libyaml breaks the line before `]` only).
    fn flow_end(&mut self) {
        self.flow_level -= 1;
        self.pop_indent();
    }

    fn flow_sequence(&mut self, items: &[Styled], in_block_seq: bool) {
        self.flow_start("[", in_block_seq);
        for (i, item) in items.iter().enumerate() {
            self.flow_item_start(i == 0);
            self.node(item, Ctx::ITEM, false);
        }
        self.flow_end();
        if self.column == 0 {
            self.write_indent();
        }
        self.write_indicator("]", false, false, false);
    }

    fn flow_mapping(&mut self, pairs: &[(Styled, Styled)], in_block_seq: bool) {
        self.flow_start("{", in_block_seq);
        for (i, (k, v)) in pairs.iter().enumerate() {
            self.flow_item_start(i == 0);
            if self.is_simple_key(k) {
                self.node(k, Ctx::SIMPLE_KEY, false);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, false);
                self.node(k, Ctx::VALUE, false);
                self.write_indicator(":", true, false, false);
            }
            self.node(v, Ctx::VALUE, false);
        }
        self.flow_end();
        self.write_indicator("}", false, false, false);
    }

    /// `yaml_emitter_check_simple_key`: a short single-line scalar, or an empty
    /// collection.
    fn is_simple_key(&self, k: &Styled) -> bool {
        let (tag, _) = k.written_tag();
        let tag_len = TagParts::of(tag).map_or(0, |t| t.len());
        let len = match &k.kind {
            Kind::Scalar(value) => {
                if analyze(value).multiline {
                    return false;
                }
                tag_len + value.len()
            }
            Kind::Seq(items) if items.is_empty() => tag_len,
            Kind::Map(pairs) if pairs.is_empty() => tag_len,
            _ => return false,
        };
        len <= MAX_SIMPLE_KEY_LEN
    }

    fn scalar(&mut self, n: &Styled, value: &str, in_block_seq: bool) {
        let (tag, force_quote) = n.written_tag();
        let tag = TagParts::of(tag);
        // The style the encoder asks for (encode.go), then the one the emitter
        // can give (`yaml_emitter_select_scalar_style`).
        let mut style = match n.style.scalar {
            ScalarStyle::Plain if value.contains('\n') => ScalarStyle::Literal,
            ScalarStyle::Plain if force_quote => ScalarStyle::DoubleQuoted,
            s => s,
        };
        let a = analyze(value);
        if self.ctx.simple_key && a.multiline {
            style = ScalarStyle::DoubleQuoted;
        }
        if style == ScalarStyle::Plain {
            let plain_allowed = if self.flow_level > 0 {
                a.flow_plain_allowed
            } else {
                a.block_plain_allowed
            };
            if !plain_allowed || (value.is_empty() && (self.flow_level > 0 || self.ctx.simple_key))
            {
                style = ScalarStyle::SingleQuoted;
            }
        }
        if style == ScalarStyle::SingleQuoted && !a.single_quoted_allowed {
            style = ScalarStyle::DoubleQuoted;
        }
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
            && (!a.block_allowed || self.flow_level > 0 || self.ctx.simple_key)
        {
            style = ScalarStyle::DoubleQuoted;
        }
        if let Some(parts) = &tag {
            self.write_tag(parts);
        }
        self.increase_indent(true, false, in_block_seq);
        let allow_breaks = !self.ctx.simple_key;
        match style {
            ScalarStyle::Plain => self.write_plain(value),
            ScalarStyle::SingleQuoted => self.write_single_quoted(value, allow_breaks),
            ScalarStyle::DoubleQuoted => self.write_double_quoted(value),
            ScalarStyle::Literal => self.write_literal(value),
            ScalarStyle::Folded => self.write_folded(value),
        }
        self.pop_indent();
    }

    // ---- libyaml's writers ----

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
        self.indention = true;
    }

    /// `write_break`: `\n` ends the line; another break is copied and also
    /// counts as a new line.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
            self.indention = true;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
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
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    fn write_tag(&mut self, t: &TagParts) {
        if t.handle.is_empty() {
            self.write_indicator("!<", true, false, false);
            self.write_tag_content(&t.suffix);
            self.write_indicator(">", false, false, false);
            return;
        }
        if !self.whitespace {
            self.put(' ');
        }
        for c in t.handle.chars() {
            self.put(c);
        }
        self.whitespace = false;
        self.indention = false;
        self.write_tag_content(&t.suffix);
    }

    /// A tag's characters, `%XX`-escaping the bytes URIs would.
    fn write_tag_content(&mut self, s: &str) {
        for c in s.chars() {
            if c.is_ascii_alphanumeric() || c == '-' || ";/?:@&=+$,_.~*'()[]".contains(c) {
                self.put(c);
            } else {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    self.put('%');
                    for nibble in [b >> 4, b & 0x0f] {
                        self.put(
                            char::from_digit(u32::from(nibble), 16)
                                .map_or('0', |d| d.to_ascii_uppercase()),
                        );
                    }
                }
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_plain(&mut self, value: &str) {
        if !value.is_empty() && !self.whitespace {
            self.put(' ');
        }
        // Plain scalars reaching here are single-line: breaks make them
        // literal blocks or quoted ones.
        for c in value.chars() {
            self.put(c);
        }
        if !value.is_empty() {
            self.whitespace = false;
        }
        self.indention = false;
        if self.ctx.root {
            self.open_ended = true;
        }
    }

    fn write_single_quoted(&mut self, value: &str, _allow_breaks: bool) {
        // With no width, libyaml never breaks a line at a space.
        self.write_indicator("'", true, false, false);
        let mut breaks = false;
        for c in value.chars() {
            if is_break(c) {
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
                if c != ' ' {
                    self.indention = false;
                }
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &str) {
        self.write_indicator("\"", true, false, false);
        for c in value.chars() {
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                write_escape(c, |e| self.put(e));
            } else {
                self.put(c);
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// `yaml_emitter_write_block_scalar_hints`: an indentation indicator when
    /// the text starts with a space or break, and the chomping indicator.
    fn block_hints(&mut self, value: &str) {
        let first = value.chars().next();
        if first.is_some_and(|c| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false);
        }
        self.open_ended = false;
        let mut rev = value.chars().rev();
        let chomp = match (rev.next(), rev.next()) {
            (None, _) => Some("-"),
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(prev)) if is_break(prev) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            // libyaml marks the document open-ended for `+`, but writing the
            // indicator clears the mark again.
            self.write_indicator(chomp, false, false, false);
        }
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        self.block_hints(value);
        self.put_break();
        self.whitespace = true;
        let mut breaks = true;
        for c in value.chars() {
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
    }

    fn write_folded(&mut self, value: &str) {
        self.write_indicator(">", true, false, false);
        self.block_hints(value);
        self.put_break();
        self.whitespace = true;
        let chars: Vec<char> = value.chars().collect();
        let mut breaks = true;
        let mut leading_spaces = true;
        for &c in &chars {
            if is_break(c) {
                if !breaks && !leading_spaces && c == '\n' {
                    // libyaml scans for the next non-break from the start of the
                    // text, not from here: so a text that does not start with a
                    // break gets a line break here every time.
                    let k = chars.iter().take_while(|&&c| is_break(c)).count();
                    if !is_blankz(chars.get(k).copied()) {
                        self.put_break();
                    }
                }
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    leading_spaces = is_blank(Some(c));
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> String {
        let parsed = crate::yaml::parse::parse_styled(text, "test").expect("parses");
        to_string(&parsed.root.expect("a document"))
    }

    #[test]
    fn block_yaml_comes_back_with_regular_indentation() {
        // Each case checked against kustomize v5.8.1 (kubectl v1.37).
        assert_eq!(
            round_trip("a:\n    b:\n        c: 1\n    l:\n        - x\n        - y\n"),
            "a:\n  b:\n    c: 1\n  l:\n  - x\n  - y\n"
        );
        assert_eq!(
            round_trip("list:\n- a: 1\n  b: 2\n- - x\n  - y\n- []\n- {}\n"),
            "list:\n- a: 1\n  b: 2\n- - x\n  - y\n- []\n- {}\n"
        );
        assert_eq!(
            round_trip("a:\n  - b:\n      - c: 1\n        d: 2\n"),
            "a:\n- b:\n  - c: 1\n    d: 2\n"
        );
        assert_eq!(round_trip("- a\n- b\n"), "- a\n- b\n");
    }

    #[test]
    fn styles_are_kept_where_the_text_allows() {
        assert_eq!(
            round_trip("a: {x: 1, y: [1, 2]}\nb: [p, q]\n"),
            "a: {x: 1, y: [1, 2]}\nb: [p, q]\n"
        );
        assert_eq!(
            round_trip("x: 'old'\ny: \"it's\"\nf: 'a\tb'\n"),
            "x: 'old'\ny: \"it's\"\nf: \"a\\tb\"\n"
        );
        assert_eq!(
            round_trip("a: |\n  line1\n  line2\nb: >\n  folded\n  text\nx: 1\n"),
            "a: |\n  line1\n  line2\nb: >\n  folded text\n\nx: 1\n"
        );
        assert_eq!(
            round_trip("a: caf\u{e9}\nb: \"\\u2028\"\nc: \"\\x01\"\nd: \"\\U0001F600\"\n"),
            "a: caf\u{e9}\nb: \"\\L\"\nc: \"\\x01\"\nd: \"\\U0001F600\"\n"
        );
        assert_eq!(
            round_trip("x: !!str 1\ny: !custom foo\nz: 1\n"),
            "x: !!str 1\ny: !custom foo\nz: 1\n"
        );
    }

    #[test]
    fn long_keys_become_complex_keys() {
        let key = "k".repeat(130);
        assert_eq!(
            round_trip(&format!("{key}: 1\nx: 2\n")),
            format!("? {key}\n: 1\nx: 2\n")
        );
    }

    #[test]
    fn changed_scalars_keep_their_tag_or_get_quoted() {
        let mut s = Styled::core_scalar("str", "true");
        assert_eq!(to_string(&s), "\"true\"\n");
        s.kind = Kind::Scalar(String::new());
        assert_eq!(to_string(&s), "\"\"\n");
        let i = Styled::core_scalar("int", "abc");
        assert_eq!(to_string(&i), "!!int abc\n...\n");
        assert_eq!(to_string(&Styled::untagged("a: b")), "'a: b'\n");
        assert_eq!(to_string(&Styled::untagged("l1\nl2\n")), "|\n  l1\n  l2\n");
    }
}
