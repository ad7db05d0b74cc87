//! Writing scalars in their chosen style, as libyaml does: plain (folded past the width),
//! single or double quotes (folding, escapes), literal blocks (indentation hint, chomping).

use super::BEST_WIDTH;
use super::analysis::{is_break, is_printable};
use super::emitter::{Context, Emitter, char_count};
use super::escape::write_escape;
use super::style::{Scalar, Style};

impl Emitter<'_> {
    pub(super) fn scalar(&mut self, scalar: &Scalar<'_>, ctx: Context) {
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

    pub(super) fn write_plain(&mut self, s: &str, allow_breaks: bool, ascii: bool) {
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
    pub(super) fn verbatim_quoted(&self, s: &str, quote: u8, allow_breaks: bool) -> bool {
        (!allow_breaks || self.column + 1 + s.len() <= BEST_WIDTH)
            && !s
                .bytes()
                .any(|c| c == quote || c == b'\\' || c < b' ' || c == 0x7f)
    }

    /// A quoted scalar that [`Emitter::verbatim_quoted`] accepted.
    pub(super) fn write_verbatim_quoted(&mut self, s: &str, quote: &str) {
        self.write_indicator(quote, true, false, false);
        self.out.push_str(s);
        self.column += s.len();
        self.write_indicator(quote, false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    #[inline(never)]
    pub(super) fn write_single_quoted(&mut self, s: &str, allow_breaks: bool) {
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
    pub(super) fn write_double_quoted(&mut self, s: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        // libyaml's `is_bom` looks at the start of the string whatever the position, so a
        // leading BOM makes every character escaped.
        let escape_all = s.starts_with('\u{FEFF}');
        let mut spaces = false;
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if escape_all || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                write_escape(c, |e| self.put(e));
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
}
