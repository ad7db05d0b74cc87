//! Which style a string is written in: go-yaml v2's choice of the style to ask for, the
//! JSON round trip's change to the text (NEL folding), libyaml's scalar analysis and style
//! selection (the analysis itself is in `analysis`), and a one-pass fast path for plain ASCII.

use std::borrow::Cow;

use super::analysis::{Analysis, Tabs};
use super::emitter::Context;
use super::resolve;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// A string ready to write: its text after the JSON round trip and its chosen style.
pub(super) struct Scalar<'s> {
    pub(super) text: Cow<'s, str>,
    pub(super) style: Style,
    pub(super) multiline: bool,
    /// The text is ASCII: its width in columns is its length.
    pub(super) ascii: bool,
}

impl<'s> Scalar<'s> {
    /// go-yaml v2's `stringv` (which style to ask for) and libyaml's analysis and style
    /// selection (which style the text allows).
    pub(super) fn new(s: &'s str, ctx: Context) -> Scalar<'s> {
        Scalar::with_classes(s, classes(s.as_bytes()), ctx)
    }

    /// [`Scalar::new`] when the union of the classes of `s`'s bytes is known.
    pub(super) fn with_classes(s: &'s str, seen: u8, ctx: Context) -> Scalar<'s> {
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
    pub(super) fn analyzed(s: &'s str, ctx: Context) -> Scalar<'s> {
        let text = json_round_trip(s);
        let wanted = if text.as_bytes().contains(&b'\n') {
            Style::Literal
        } else if resolve::needs_quotes(&text) {
            Style::DoubleQuoted
        } else {
            Style::Plain
        };
        let a = Analysis::of(&text, Tabs::Unprintable);
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
pub(super) const DIGIT: u8 = 8;
/// Control characters (line breaks and tabs included), DEL and every non-ASCII byte: text
/// holding one takes the full analysis (NEL folding, escapes, literal blocks).
pub(super) const SLOW: u8 = 16;

pub(super) static CLASS: [u8; 256] = {
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
pub(super) fn classes(b: &[u8]) -> u8 {
    b.iter().fold(0, |seen, &c| seen | CLASS[c as usize])
}

/// The style of a non-empty string of printable ASCII (spaces allowed, no tab nor line
/// break), given `seen`, the union of its bytes' classes; `None` for any other string, which
/// [`Analysis`] handles. Such a string is never multi-line and its JSON round trip leaves it
/// as it is, so only three of [`Analysis`]'s facts matter: blank edges and indicators rule
/// out plain, and nothing rules out single quotes.
#[inline]
pub(super) fn quick_style(s: &str, seen: u8) -> Option<Style> {
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
