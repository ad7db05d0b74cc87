//! Positions and errors: the text being parsed (character positions to byte offsets, and
//! what an event's source shows), where errors point, and why building stops.

use crate::error::Error;
use saphyr_parser::{Marker, Span};

pub(super) fn yaml_error(source: &str, line: usize, col: usize, msg: impl Into<String>) -> Error {
    Error::Yaml {
        source_name: source.to_string(),
        line,
        col,
        msg: msg.into(),
    }
}

/// The text being parsed, for looking at the source of an event. saphyr-parser reports
/// positions in characters; they arrive (nearly) in increasing order, so a cursor that
/// moves from the last position converts them to byte offsets in linear time overall.
pub(super) struct Source<'a> {
    text: &'a str,
    ascii: bool,
    /// Whether the text holds `\/` at all (rare), before checking quoted scalars for it.
    slash_escapes: bool,
    chars: usize,
    bytes: usize,
}

impl<'a> Source<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Source {
            text,
            ascii: text.is_ascii(),
            slash_escapes: text.contains("\\/"),
            chars: 0,
            bytes: 0,
        }
    }

    fn byte(&mut self, at: Marker) -> usize {
        let index = at.index();
        if self.ascii {
            return index.min(self.text.len());
        }
        self.bytes = if index < self.chars {
            let before = &self.text[..self.bytes];
            before
                .char_indices()
                .rev()
                .nth(self.chars - index - 1)
                .map_or(0, |(i, _)| i)
        } else {
            let rest = &self.text[self.bytes..];
            let step = rest.char_indices().nth(index - self.chars);
            self.bytes + step.map_or(rest.len(), |(i, _)| i)
        };
        self.chars = index;
        self.bytes
    }

    /// Whether the text's last line holds content but no line break, and the scalar
    /// spanning `span` reaches it (ends at or after that content).
    pub(super) fn ends_unterminated_at(&mut self, span: Span) -> bool {
        let content = self.text.trim_end_matches([' ', '\t']);
        if content.is_empty() || content.ends_with(['\n', '\r']) {
            return false;
        }
        self.byte(span.end) >= content.len()
    }

    /// Whether a collection starts with `[` or `{` (its event's span ends after it).
    pub(super) fn starts_flow(&mut self, span: Span) -> bool {
        let end = self.byte(span.end);
        self.text
            .get(..end)
            .is_some_and(|before| before.ends_with(['[', '{']))
    }

    /// Whether the scalar at `span` follows the explicit-key indicator `?`, with only
    /// spaces, line breaks and comments between: an empty key written `? ` (then `: v`) is
    /// legal, while an implicit one (`: v` alone) is an error in go-yaml. saphyr-parser emits
    /// an empty scalar at the `:` for both, so the source tells them apart.
    pub(super) fn follows_explicit_key(&mut self, span: Span) -> bool {
        let mut end = self.byte(span.start);
        loop {
            let line_start = self.text[..end].rfind('\n').map_or(0, |i| i + 1);
            let before = without_comment(&self.text[line_start..end]).trim_end();
            if let Some(rest) = before.strip_suffix('?') {
                // The indicator stands alone: at the line's start, after indentation, `- `
                // or a flow indicator (`a?` is the end of a plain scalar).
                return rest.is_empty() || rest.ends_with([' ', '\t', '-', '{', '[', ',']);
            }
            if !before.is_empty() || line_start == 0 {
                return false;
            }
            end = line_start - 1;
        }
    }

    /// Whether a double-quoted scalar's source holds the escape `\/`.
    pub(super) fn has_slash_escape(&mut self, span: Span) -> bool {
        if !self.slash_escapes {
            return false;
        }
        let (start, end) = (self.byte(span.start), self.byte(span.end));
        let mut raw = self.text.get(start..end).unwrap_or_default().bytes();
        while let Some(c) = raw.next() {
            if c == b'\\' && raw.next() == Some(b'/') {
                return true;
            }
        }
        false
    }
}

/// A line's text before its comment (a `#` at the start or after a space or tab, outside
/// quoted scalars, which start with a quote at the start of a token).
fn without_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let token_start = |i: usize| i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'[' | b'{' | b',');
    let mut quote = None;
    let mut escaped = false;
    for (i, &c) in b.iter().enumerate() {
        match (quote, c) {
            (None, b'#') if i == 0 || matches!(b[i - 1], b' ' | b'\t') => return &line[..i],
            (None, b'"' | b'\'') if token_start(i) => quote = Some(c),
            (Some(b'"'), b'\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(q), _) if c == q && !escaped => quote = None,
            _ => {}
        }
        escaped = false;
    }
    line
}

/// Where errors point: the file and the lines before the current piece.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'s> {
    pub(super) source: &'s str,
    pub(super) line_offset: usize,
    /// Parsing patches: null annotation values stay null.
    pub(super) patch: bool,
}

impl Ctx<'_> {
    pub(super) fn line(&self, at: Marker) -> usize {
        self.line_offset + at.line()
    }

    pub(super) fn error(&self, at: Marker, msg: impl Into<String>) -> Stop {
        Stop::Error(yaml_error(self.source, self.line(at), at.col() + 1, msg))
    }
}

/// Why building stopped.
pub(super) enum Stop {
    Error(Error),
    /// saphyr-parser's complaint about `key:\tvalue`; `index` is the value's char index.
    TabAfterColon {
        index: usize,
        error: Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_key_indicator_is_found_before_an_empty_key() {
        let at_colon = |text: &str, want: bool| {
            let colon = text.rfind(": x").expect("a ': x'");
            let chars = text[..colon].chars().count();
            let span = Span::new(Marker::new(chars, 1, 0), Marker::new(chars, 1, 0));
            assert_eq!(
                Source::new(text).follows_explicit_key(span),
                want,
                "{text:?}"
            );
        };
        at_colon("? \n: x\n", true);
        at_colon("?\n: x\n", true);
        at_colon("? : x\n", true);
        at_colon("{? : x}\n", true);
        at_colon("a:\n  ? # why\n\n  # more\n  : x\n", true);
        at_colon("- ? : x\n", true);
        at_colon(": x\n", false);
        at_colon("a: b\n: x\n", false);
        at_colon("a: what?\n: x\n", false);
        at_colon("{a: b, : x}\n", false);
        at_colon("a: '#?'\n: x\n", false);
        at_colon("a: b # ?\n: x\n", false);
        at_colon("a: it's # ?\n: x\n", false);
        at_colon("a: \"q\\\" #\" # ?\n: x\n", false);
        at_colon("a: 'it''s' # ?\n: x\n", false);
    }

    #[test]
    fn source_positions_convert_both_ways() {
        let text = "a\u{e9}b\u{1f600}c";
        let mut source = Source::new(text);
        let at = |i| Marker::new(i, 1, i);
        for (chars, bytes) in [(4, 8), (1, 1), (5, 9), (0, 0), (2, 3), (3, 4), (9, 9)] {
            assert_eq!(source.byte(at(chars)), bytes, "{chars}");
        }
    }
}
