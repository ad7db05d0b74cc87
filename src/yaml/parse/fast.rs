//! A fast scanner for the YAML most manifests are written in, producing saphyr-parser's events.
//!
//! Kubernetes manifests are nearly always plain block YAML: indented mappings and `- `
//! sequences, one-line plain or quoted scalars, comments, `[]` and `{}`. saphyr-parser's
//! general scanner spent most of the time of a build that does little else than read and
//! print (a 9.5 MB stream: 200 ms of 290). This scanner reads that subset line by line and
//! gives the builder the same events saphyr-parser would; at the first construct outside it
//! (anchors, aliases, tags, block scalars, multi-line or escaped scalars, non-empty flow
//! collections, tabs, CR, non-ASCII text, directives, anything malformed) it gives up and
//! the piece is parsed again by saphyr-parser, which also produces every error message (an
//! event the builder refuses sends the piece to saphyr-parser too). The tests below check
//! that both event streams agree wherever this scanner finishes, on every YAML file of the
//! project's fixtures (and on any directory named in `KBUILD_FAST_CORPUS`).

use saphyr_parser::{Event, Marker, ScalarStyle, Span};
use std::borrow::Cow;

/// The scanner gave up (unsupported syntax), or the sink refused an event.
pub(super) struct GiveUp;

/// What the scanner's events go to. The builder takes scalars and collections through
/// their own methods (no [`Event`] is built for them, and the builder need not look at
/// the source to learn what the scanner knows: a collection's style, the absence of
/// anchors, tags and escapes); any `FnMut(Event, Span)` takes them all as saphyr-parser's
/// events (the tests compare those). `Err(())` refuses an event: the scanner gives up.
pub(super) trait Sink<'i> {
    /// StreamStart, DocumentStart, DocumentEnd, StreamEnd.
    fn event(&mut self, event: Event<'i>, span: Span) -> Result<(), ()>;
    /// An untagged scalar without anchor (a double-quoted one has no escapes).
    fn scalar(&mut self, text: Cow<'i, str>, style: ScalarStyle, span: Span) -> Result<(), ()> {
        self.event(Event::Scalar(text, style, 0, None), span)
    }
    /// The start of a collection without anchor or tag; `flow` for `[`/`{`.
    fn open(&mut self, map: bool, flow: bool, span: Span) -> Result<(), ()> {
        let _ = flow;
        let event = if map {
            Event::MappingStart(0, None)
        } else {
            Event::SequenceStart(0, None)
        };
        self.event(event, span)
    }
    /// The end of the innermost collection.
    fn close(&mut self, map: bool, span: Span) -> Result<(), ()> {
        self.event(
            if map {
                Event::MappingEnd
            } else {
                Event::SequenceEnd
            },
            span,
        )
    }
}

impl<'i, F: FnMut(Event<'i>, Span) -> Result<(), ()>> Sink<'i> for F {
    fn event(&mut self, event: Event<'i>, span: Span) -> Result<(), ()> {
        self(event, span)
    }
}

/// Nesting beyond this is left to saphyr-parser and the builder's own depth bound (the
/// scanner recurses once per level).
const MAX_NESTING: usize = 600;

/// Scans `text` (one document), sending its events through StreamEnd to `sink`.
pub(super) fn scan<'i, S: Sink<'i>>(text: &'i str, sink: &mut S) -> Result<(), GiveUp> {
    if !text.is_ascii() || memchr::memchr2(b'\t', b'\r', text.as_bytes()).is_some() {
        return Err(GiveUp);
    }
    let mut s = Scanner {
        text,
        sink,
        next_start: 0,
        next_no: 0,
        line: None,
        depth: 0,
    };
    s.emit(Event::StreamStart, 0, 0)?;
    s.advance();
    let mut explicit = false;
    if let Some(l) = s.line
        && l.indent == 0
        && s.rest(l, 0).starts_with("---")
    {
        // An explicit document start: only a comment may follow it on its line.
        if !only_comment(s.rest(l, 3)) {
            return Err(GiveUp);
        }
        explicit = true;
        s.advance();
        if s.line.is_none() {
            // `---` and nothing else: a null document (left to saphyr-parser).
            return Err(GiveUp);
        }
    }
    let Some(l) = s.line else {
        return s.emit(Event::StreamEnd, text.len(), 0);
    };
    s.emit(Event::DocumentStart(explicit), l.start + l.indent, l.indent)?;
    s.block_node(l)?;
    if s.line.is_some() {
        return Err(GiveUp);
    }
    s.emit(Event::DocumentEnd, text.len(), 0)?;
    s.emit(Event::StreamEnd, text.len(), 0)
}

/// A line with content (not blank, not only a comment).
#[derive(Clone, Copy)]
struct Line {
    /// Byte offset of the line's first character.
    start: usize,
    /// Byte offset of its line break (or the end of the text).
    end: usize,
    /// 1-based line number.
    no: usize,
    /// Leading spaces.
    indent: usize,
}

struct Scanner<'s, 'i, S> {
    text: &'i str,
    sink: &'s mut S,
    /// Where the line after the current one starts, and its number less one.
    next_start: usize,
    next_no: usize,
    /// The current content line; `None` at the end of the text.
    line: Option<Line>,
    depth: usize,
}

/// A key as written, and where its value starts on the line.
struct Key<'i> {
    text: Cow<'i, str>,
    style: ScalarStyle,
    col: usize,
    /// The colon's column: saphyr-parser places an empty value there.
    colon_col: usize,
    value_col: usize,
}

impl<'i, S: Sink<'i>> Scanner<'_, 'i, S> {
    fn emit(&mut self, event: Event<'i>, at: usize, col: usize) -> Result<(), GiveUp> {
        let mark = self.mark(at, col);
        self.sink
            .event(event, Span::new(mark, mark))
            .map_err(|()| GiveUp)
    }

    /// A position on the current line (or after the last one).
    fn mark(&self, at: usize, col: usize) -> Marker {
        let line = self.line.map_or(self.next_no.max(1), |l| l.no);
        Marker::new(at, line, col)
    }

    /// A block collection starts at `col` of line `l`.
    fn open(&mut self, map: bool, l: Line, col: usize) -> Result<(), GiveUp> {
        let mark = self.mark(l.start + col, col);
        self.sink
            .open(map, false, Span::new(mark, mark))
            .map_err(|()| GiveUp)
    }

    fn scalar(
        &mut self,
        text: Cow<'i, str>,
        style: ScalarStyle,
        l: Line,
        col: usize,
    ) -> Result<(), GiveUp> {
        let mark = Marker::new(l.start + col, l.no, col);
        self.sink
            .scalar(text, style, Span::new(mark, mark))
            .map_err(|()| GiveUp)
    }

    /// Moves to the next content line, skipping blank and comment-only lines.
    fn advance(&mut self) {
        let bytes = self.text.as_bytes();
        while self.next_start < bytes.len() {
            let start = self.next_start;
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            self.next_start = end + 1;
            self.next_no += 1;
            let indent = bytes[start..end].iter().take_while(|&&b| b == b' ').count();
            if start + indent == end || bytes[start + indent] == b'#' {
                continue;
            }
            self.line = Some(Line {
                start,
                end,
                no: self.next_no,
                indent,
            });
            return;
        }
        self.line = None;
    }

    /// The line's text from column `col`.
    fn rest(&self, l: Line, col: usize) -> &'i str {
        self.text.get(l.start + col..l.end).unwrap_or("")
    }

    fn enter(&mut self) -> Result<(), GiveUp> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(GiveUp);
        }
        Ok(())
    }

    /// A node that starts a line of its own (at the line's indentation).
    fn block_node(&mut self, l: Line) -> Result<(), GiveUp> {
        if is_seq_item(self.rest(l, l.indent)) {
            self.seq(l, l.indent)
        } else {
            self.map(l, l.indent, None)
        }
    }

    /// The node after a `- ` at column `col` of the current line, in a sequence at `ind`.
    fn inline_node(&mut self, l: Line, col: usize, ind: usize) -> Result<(), GiveUp> {
        let rest = self.rest(l, col);
        if is_seq_item(rest) {
            return self.seq(l, col);
        }
        if let Some(key) = self.key(l, col)? {
            return self.map(l, col, Some(key));
        }
        self.value(l, col, ind)?;
        self.advance();
        Ok(())
    }

    /// A block sequence whose items sit at column `ind`; the first is on line `l`.
    fn seq(&mut self, l: Line, ind: usize) -> Result<(), GiveUp> {
        self.seq_at(l, ind, ind)
    }

    /// A sequence indented like the key it is the value of (`key:` then `- item` at the
    /// key's column): saphyr-parser starts it where the token after the first `-` is (the
    /// item, or the end of a comment or of the line), not at the `-`.
    fn indentless_seq(&mut self, l: Line, ind: usize) -> Result<(), GiveUp> {
        let spaces = self.rest(l, ind + 1).bytes().take_while(|&b| b == b' ');
        let item = ind + 1 + spaces.count();
        let start = if self.rest(l, item).starts_with('#') {
            l.end - l.start
        } else {
            item
        };
        self.seq_at(l, ind, start)
    }

    /// A block sequence whose `-` sit at column `ind`, starting (its event's position) at
    /// column `start` of line `l`.
    fn seq_at(&mut self, l: Line, ind: usize, start: usize) -> Result<(), GiveUp> {
        self.enter()?;
        self.open(false, l, start)?;
        let mut l = l;
        let mut col = ind;
        loop {
            // `-` then a space or the end of the line.
            let item = col
                + 1
                + self
                    .rest(l, col + 1)
                    .bytes()
                    .take_while(|&b| b == b' ')
                    .count();
            let after = self.rest(l, item);
            if after.is_empty() || after.starts_with('#') {
                self.advance();
                match self.line {
                    Some(next) if next.indent > ind => self.block_node(next)?,
                    // saphyr-parser places the empty item at the end of its line.
                    _ => {
                        let end = l.end - l.start;
                        self.scalar(Cow::Borrowed(""), ScalarStyle::Plain, l, end)?;
                    }
                }
            } else {
                self.inline_node(l, item, ind)?;
            }
            match self.line {
                Some(next) if next.indent == ind && is_seq_item(self.rest(next, ind)) => {
                    l = next;
                    col = ind;
                }
                Some(next) if next.indent > ind => return Err(GiveUp),
                _ => break,
            }
        }
        self.leave(false)
    }

    /// A block mapping whose keys sit at column `ind`; the first is on line `l` (and is
    /// `first` when the caller has read it already).
    fn map(&mut self, l: Line, ind: usize, first: Option<Key<'i>>) -> Result<(), GiveUp> {
        self.enter()?;
        self.open(true, l, ind)?;
        let mut l = l;
        let mut first = first;
        loop {
            let key = match first.take() {
                Some(key) => key,
                None => self.key(l, ind)?.ok_or(GiveUp)?,
            };
            self.scalar(key.text, key.style, l, key.col)?;
            let after = self.rest(l, key.value_col);
            if after.is_empty() || after.starts_with('#') {
                self.advance();
                match self.line {
                    Some(next) if next.indent > ind => self.block_node(next)?,
                    Some(next) if next.indent == ind && is_seq_item(self.rest(next, ind)) => {
                        // A sequence indented like its key.
                        self.indentless_seq(next, ind)?
                    }
                    _ => self.scalar(Cow::Borrowed(""), ScalarStyle::Plain, l, key.colon_col)?,
                }
            } else {
                self.value(l, key.value_col, ind)?;
                self.advance();
            }
            match self.line {
                Some(next) if next.indent == ind => {
                    if is_seq_item(self.rest(next, ind)) {
                        return Err(GiveUp);
                    }
                    l = next;
                }
                Some(next) if next.indent > ind => return Err(GiveUp),
                _ => break,
            }
        }
        self.leave(true)
    }

    /// Closes the innermost collection, at the next content line (or the end of the text).
    fn leave(&mut self, map: bool) -> Result<(), GiveUp> {
        self.depth -= 1;
        let (at, col) = self
            .line
            .map_or((self.text.len(), 0), |l| (l.start + l.indent, l.indent));
        let mark = self.mark(at, col);
        self.sink
            .close(map, Span::new(mark, mark))
            .map_err(|()| GiveUp)
    }

    /// The key at column `col` of line `l`, or `None` when the text there is not a key.
    fn key(&self, l: Line, col: usize) -> Result<Option<Key<'i>>, GiveUp> {
        let rest = self.rest(l, col);
        let (text, style, len) = match rest.as_bytes().first() {
            Some(b'"') => {
                let Some((text, len)) = double_quoted(rest) else {
                    return Ok(None);
                };
                (text, ScalarStyle::DoubleQuoted, len)
            }
            Some(b'\'') => {
                let Some((text, len)) = single_quoted(rest) else {
                    return Ok(None);
                };
                (text, ScalarStyle::SingleQuoted, len)
            }
            Some(&c) if is_indicator(c) => return Ok(None),
            Some(_) => {
                let Some(colon) = plain_key_end(rest) else {
                    return Ok(None);
                };
                let text = trim_spaces_end(&rest[..colon]);
                (Cow::Borrowed(text), ScalarStyle::Plain, colon)
            }
            None => return Ok(None),
        };
        let after = &rest[len..];
        let spaces = after.bytes().take_while(|&b| b == b' ').count();
        let after = &after[spaces..];
        if style != ScalarStyle::Plain && !after.starts_with(':') {
            return Ok(None);
        }
        // After the colon: a space or the end of the line.
        let tail = &after[1..];
        if !(tail.is_empty() || tail.starts_with(' ')) {
            return Ok(None);
        }
        let colon_col = col + len + spaces;
        let value_col = colon_col + 1;
        let value_col = value_col
            + self
                .rest(l, value_col)
                .bytes()
                .take_while(|&b| b == b' ')
                .count();
        Ok(Some(Key {
            text,
            style,
            col,
            colon_col,
            value_col,
        }))
    }

    /// A scalar (or `[]`/`{}`) that fills the rest of the line from column `col`, or a
    /// literal block scalar starting there, in a collection at indentation `ind`.
    fn value(&mut self, l: Line, col: usize, ind: usize) -> Result<(), GiveUp> {
        let rest = self.rest(l, col);
        let Some(&first) = rest.as_bytes().first() else {
            return Err(GiveUp);
        };
        let (text, style, len) = match first {
            b'"' => {
                let (text, len) = double_quoted(rest).ok_or(GiveUp)?;
                (text, ScalarStyle::DoubleQuoted, len)
            }
            b'\'' => {
                let (text, len) = single_quoted(rest).ok_or(GiveUp)?;
                (text, ScalarStyle::SingleQuoted, len)
            }
            b'[' => return self.flow_seq(l, col),
            b'{' => return self.empty_flow(l, col, first),
            b'|' => return self.literal(l, col, ind),
            b'-' if rest.len() > 1 && rest.as_bytes()[1] != b' ' => plain_value(rest)?,
            c if is_indicator(c) => return Err(GiveUp),
            _ => plain_value(rest)?,
        };
        if !only_comment(&rest[len..]) {
            return Err(GiveUp);
        }
        self.scalar(text, style, l, col)
    }

    /// A literal block scalar (`|`, `|-`, `|+`) whose header is at column `col` of line `l`,
    /// in a collection at indentation `ind`. Its content lines are read here; the scanner
    /// then continues after them. Left to saphyr-parser: indentation indicators, an empty
    /// scalar, leading blank lines longer than the content's indentation (an error), and
    /// content reaching an unterminated last line (the builder trims that one specially).
    fn literal(&mut self, l: Line, col: usize, ind: usize) -> Result<(), GiveUp> {
        let header = self.rest(l, col);
        let (chomp, after) = match header.as_bytes().get(1) {
            Some(b'-') => (Chomp::Strip, &header[2..]),
            Some(b'+') => (Chomp::Keep, &header[2..]),
            _ => (Chomp::Clip, &header[1..]),
        };
        if !only_comment(after) {
            return Err(GiveUp);
        }
        let bytes = self.text.as_bytes();
        let mut out = String::new();
        let (mut pos, mut no) = (self.next_start, self.next_no);
        let mut indent = None;
        let mut start = Marker::new(l.start + col, l.no, col);
        let (mut pending, mut longest_blank) = (0usize, 0usize);
        while pos < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
            let line = &self.text[pos..end];
            let spaces = line.bytes().take_while(|&b| b == b' ').count();
            let blank = spaces == line.len();
            let n = match indent {
                None if blank => {
                    longest_blank = longest_blank.max(spaces);
                    pending += 1;
                    (pos, no) = (end + 1, no + 1);
                    continue;
                }
                None => {
                    if spaces <= ind || longest_blank > spaces {
                        return Err(GiveUp);
                    }
                    indent = Some(spaces);
                    // saphyr-parser's scalar starts at its first content line.
                    start = Marker::new(pos + spaces, no + 1, spaces);
                    spaces
                }
                Some(n) => n,
            };
            if blank && spaces <= n {
                pending += 1;
            } else if spaces < n {
                break;
            } else {
                if end == bytes.len() {
                    return Err(GiveUp);
                }
                out.extend(std::iter::repeat_n('\n', pending));
                pending = 0;
                out.push_str(&line[n..]);
                out.push('\n');
            }
            (pos, no) = (end + 1, no + 1);
        }
        if indent.is_none() {
            return Err(GiveUp);
        }
        match chomp {
            Chomp::Strip => {
                out.pop();
            }
            Chomp::Clip => {}
            Chomp::Keep => out.extend(std::iter::repeat_n('\n', pending)),
        }
        (self.next_start, self.next_no) = (pos.min(bytes.len()), no);
        self.sink
            .scalar(
                Cow::Owned(out),
                ScalarStyle::Literal,
                Span::new(start, start),
            )
            .map_err(|()| GiveUp)
    }

    /// A one-line flow sequence of scalars (`["v1", "v1beta1"]`, `[get, list]`), then the end
    /// of the line or a comment. Nested collections, empty entries, a trailing comma, escapes
    /// and anything mapping-like are left to saphyr-parser.
    fn flow_seq(&mut self, l: Line, col: usize) -> Result<(), GiveUp> {
        let rest = self.rest(l, col);
        let b = rest.as_bytes();
        let skip = |mut i: usize| {
            while b.get(i) == Some(&b' ') {
                i += 1;
            }
            i
        };
        let mut i = skip(1);
        if b.get(i) == Some(&b']') {
            return self.empty_flow(l, col, b'[');
        }
        // saphyr-parser's start event spans from the bracket to the first entry.
        let start = Marker::new(l.start + col, l.no, col);
        let first = Marker::new(l.start + col + i, l.no, col + i);
        self.sink
            .open(false, true, Span::new(start, first))
            .map_err(|()| GiveUp)?;
        loop {
            let item = &rest[i..];
            let (text, style, len) = match b.get(i) {
                Some(b'"') => {
                    let (t, n) = double_quoted(item).ok_or(GiveUp)?;
                    (t, ScalarStyle::DoubleQuoted, n)
                }
                Some(b'\'') => {
                    let (t, n) = single_quoted(item).ok_or(GiveUp)?;
                    (t, ScalarStyle::SingleQuoted, n)
                }
                Some(&c) if !is_indicator(c) => {
                    let n = flow_plain_len(item).ok_or(GiveUp)?;
                    (
                        Cow::Borrowed(trim_spaces_end(&item[..n])),
                        ScalarStyle::Plain,
                        n,
                    )
                }
                _ => return Err(GiveUp),
            };
            self.scalar(text, style, l, col + i)?;
            i = skip(i + len);
            match b.get(i) {
                Some(b',') => {
                    i = skip(i + 1);
                    if matches!(b.get(i), Some(b']' | b',') | None) {
                        return Err(GiveUp);
                    }
                }
                Some(b']') => break,
                _ => return Err(GiveUp),
            }
        }
        if !only_comment(&rest[i + 1..]) {
            return Err(GiveUp);
        }
        let end = self.mark(l.start + col + i, col + i);
        self.sink
            .close(false, Span::new(end, end))
            .map_err(|()| GiveUp)
    }

    /// `[]` or `{}` (spaces allowed inside), then the end of the line or a comment.
    fn empty_flow(&mut self, l: Line, col: usize, open: u8) -> Result<(), GiveUp> {
        let rest = self.rest(l, col);
        let inner = rest[1..].bytes().take_while(|&b| b == b' ').count();
        let close = if open == b'[' { b']' } else { b'}' };
        if rest.as_bytes().get(1 + inner) != Some(&close) || !only_comment(&rest[2 + inner..]) {
            return Err(GiveUp);
        }
        // saphyr-parser's start event spans from the bracket to the next token.
        let start = Marker::new(l.start + col, l.no, col);
        let end = Marker::new(l.start + col + 1 + inner, l.no, col + 1 + inner);
        let map = open == b'{';
        self.sink
            .open(map, true, Span::new(start, end))
            .map_err(|()| GiveUp)?;
        let close = self.mark(l.start + col + 1 + inner, col + 1 + inner);
        self.sink
            .close(map, Span::new(close, close))
            .map_err(|()| GiveUp)
    }
}

/// What a block scalar does with its final line breaks.
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// `- ` or a lone `-`: a block sequence item.
fn is_seq_item(rest: &str) -> bool {
    let b = rest.as_bytes();
    b.first() == Some(&b'-') && (b.len() == 1 || b[1] == b' ')
}

/// Characters that cannot start a plain scalar here (or start syntax left to saphyr-parser).
fn is_indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// Where a plain key ends: the first `:` followed by a space or the line end. `None` when
/// there is none, or a comment (` #`) comes first.
fn plain_key_end(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    let mut i = 0;
    loop {
        i = find2(b, i, b':', b'#');
        match b.get(i)? {
            b':' if i + 1 == b.len() || b[i + 1] == b' ' => return Some(i),
            b'#' if i > 0 && b[i - 1] == b' ' => return None,
            _ => i += 1,
        }
    }
}

/// The position of the first `x` or `y` in `b` from `from` on (`b.len()` if none),
/// looking at eight bytes at a time: most keys and values are a word or two long, too
/// short for a vectorised search to pay for its setup, and a byte loop costs several
/// instructions a byte.
fn find2(b: &[u8], from: usize, x: u8, y: u8) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // High bit of each zero byte of `w` (exact up to the first one, which is all we read).
    let zeros = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
    let (xs, ys) = (ONES * u64::from(x), ONES * u64::from(y));
    let mut i = from;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = chunk.try_into().map_or(0, u64::from_le_bytes);
        let hit = zeros(w ^ xs) | zeros(w ^ ys);
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == x || c == y {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// A plain scalar filling the rest of the line: up to a comment, trailing spaces trimmed.
/// A `: ` inside (or a final `:`) is an error saphyr-parser reports, so it is left to it.
fn plain_value(rest: &str) -> Result<(Cow<'_, str>, ScalarStyle, usize), GiveUp> {
    let b = rest.as_bytes();
    let mut end = b.len();
    let mut i = 0;
    loop {
        i = find2(b, i, b':', b'#');
        match b.get(i) {
            None => break,
            Some(b':') if i + 1 == b.len() || b[i + 1] == b' ' => return Err(GiveUp),
            Some(b'#') if i > 0 && b[i - 1] == b' ' => {
                end = i;
                break;
            }
            _ => i += 1,
        }
    }
    let text = trim_spaces_end(&rest[..end]);
    Ok((Cow::Borrowed(text), ScalarStyle::Plain, text.len()))
}

/// The length of a plain scalar inside a flow sequence: up to `,` or `]`. `None` for text
/// this scanner leaves to saphyr-parser (other flow indicators, `: `, a comment, the line end).
fn flow_plain_len(item: &str) -> Option<usize> {
    let b = item.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b',' | b']' => return Some(i),
            b'[' | b'{' | b'}' | b'"' | b'\'' => return None,
            b':' if matches!(b.get(i + 1), None | Some(b' ' | b',' | b']')) => return None,
            b'#' if i > 0 && b[i - 1] == b' ' => return None,
            _ => {}
        }
    }
    None
}

/// A one-line double-quoted scalar without escapes: its text and the length with quotes.
fn double_quoted(rest: &str) -> Option<(Cow<'_, str>, usize)> {
    let inner = &rest[1..];
    let close = find2(inner.as_bytes(), 0, b'"', b'\\');
    if inner.as_bytes().get(close) != Some(&b'"') {
        return None;
    }
    Some((Cow::Borrowed(&inner[..close]), close + 2))
}

/// A one-line single-quoted scalar (`''` is a quote): its text and the length with quotes.
fn single_quoted(rest: &str) -> Option<(Cow<'_, str>, usize)> {
    let b = rest.as_bytes();
    let mut i = 1;
    let mut owned: Option<String> = None;
    let mut from = 1;
    while i < b.len() {
        if b[i] == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                owned
                    .get_or_insert_with(String::new)
                    .push_str(&rest[from..=i]);
                i += 2;
                from = i;
                continue;
            }
            let text = match owned {
                Some(mut s) => {
                    s.push_str(&rest[from..i]);
                    Cow::Owned(s)
                }
                None => Cow::Borrowed(&rest[1..i]),
            };
            return Some((text, i + 1));
        }
        i += 1;
    }
    None
}

/// `s` without its trailing spaces (a byte loop: `trim_end_matches` decodes characters).
fn trim_spaces_end(s: &str) -> &str {
    let b = s.as_bytes();
    let mut end = b.len();
    while end > 0 && b[end - 1] == b' ' {
        end -= 1;
    }
    s.get(..end).unwrap_or(s)
}

/// Nothing but spaces and perhaps a comment (which needs a space before its `#`).
fn only_comment(tail: &str) -> bool {
    let t = tail.trim_start_matches(' ');
    t.is_empty() || (t.starts_with('#') && t.len() < tail.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use saphyr_parser::Parser;

    /// The events (without positions) of saphyr-parser and of the fast scanner; `None`
    /// for the fast side when it gives up.
    fn both(text: &str) -> (Vec<String>, Option<Vec<String>>) {
        let mut slow = Vec::new();
        let mut parser = Parser::new_from_str(text);
        while let Some(Ok((e, _))) = parser.next_event() {
            slow.push(format!("{e:?}"));
        }
        let mut fast = Vec::new();
        let ok = scan(text, &mut |e: Event<'_>, _: Span| {
            fast.push(format!("{e:?}"));
            Ok(())
        })
        .is_ok();
        (slow, ok.then_some(fast))
    }

    fn check(text: &str) -> bool {
        let (slow, fast) = both(text);
        match fast {
            Some(fast) => {
                assert_eq!(fast, slow, "events differ for {text:?}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn reads_plain_block_yaml_like_saphyr() {
        let cases = [
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x  # c\n  labels: {}\n  empty:\ndata:\n  a: \"q\"\n  b: 'r''s'\n",
            "# head\n---\nlist:\n- a\n- b: 1\n  c: 2\n-\n  - x\n- []\ntop: [ ]\nlast:\n",
            "a:\n  - x\n  -   y: 1\n      z: 2\n  - - deep\n    - deeper\nb: c#d\ne: 'x' # c\n",
            "k: -1\nurl: http://x:80/y\nt: a, b]\nempty: ''\n\"q k\": 1\n'q2': 2\n",
            "spec:\n  containers:\n  - name: a\n    args:\n    - --x=1\n    env:\n    -\n      name: N\n",
            "",
            "# only a comment\n",
            "a: 1\n\n\n   # indented comment\nb: 2",
            "a: |\n  line1\n\n    indented\n  # not comment\n\n\nb: |-\n  x\n  y\n\nc: |+\n  k\n\n\nd:\n- |\n  item\n- x\n",
            "a: |\n  x\n     \n  y\n \n   \nb: |+\n  x\n     \n\nc: |-\n    deep\n   \n",
            "- |\n a\n b\n- x: |  # c\n   q\n  y: 2\n",
            "rules:\n- apiGroups: [\"\", apps]\n  verbs: [ get,list , 'watch' ]  # c\n  r: [\"*\"]\n",
            "patch: |-\n  - op: add\n    path: /x\n    value: 1\n",
        ];
        for c in cases {
            assert!(check(c), "fast scanner gave up on {c:?}");
        }
    }

    #[test]
    fn find2_finds_the_first_of_two_bytes() {
        for text in [
            "",
            "a",
            "abc:def",
            "abcdefgh:",
            "abcdefghijklmnop#q:",
            "::",
            "x#",
        ] {
            for from in 0..=text.len() {
                let want = text[from..]
                    .find([':', '#'])
                    .map_or(text.len(), |i| i + from);
                assert_eq!(
                    find2(text.as_bytes(), from, b':', b'#'),
                    want,
                    "{text:?} {from}"
                );
            }
        }
        // Bytes next to the ones sought (where the word trick borrows), at every position.
        let near = [0x39u8, 0x3a, 0x3b, 0x22, 0x23, 0x24, 0x00, 0x01, 0xff, b'a'];
        for len in 0..20 {
            for seed in 0..200usize {
                let b: Vec<u8> = (0..len)
                    .map(|i| near[(seed * 7 + i * (seed % 5 + 1)) % near.len()])
                    .collect();
                let want = b.iter().position(|&c| c == b':' || c == b'#');
                assert_eq!(find2(&b, 0, b':', b'#'), want.unwrap_or(len), "{b:?}");
            }
        }
    }

    #[test]
    fn gives_up_outside_its_subset() {
        let cases = [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: |2\n  text\n",
            "a: |\n  unterminated",
            "a: |\nb: 1\n",
            "a: |\n     \n  x\n",
            "a: >\n  text\n",
            "a: [1, [2]]\n",
            "a: [1, ]\n",
            "a: [1,, 2]\n",
            "a: [x: 1]\n",
            "a: [1, 2\n",
            "a: {b: 1}\n",
            "a: \"x\\ny\"\n",
            "a: multi\n  line\n",
            "a:\tb\n",
            "a: b\r\n",
            "a: caf\u{e9}\n",
            "%YAML 1.1\n---\na: 1\n",
            "? complex\n: v\n",
            "a: b: c\n",
            "a:\n  b: 1\n c: 2\n",
            "---\n",
            "a: 'unclosed\n  more'\n",
            "plain scalar document\n",
            "a: 1\n...\n",
        ];
        for c in cases {
            assert!(!check(c), "fast scanner should give up on {c:?}");
        }
    }

    use crate::yaml::parse::test_files::{extra_corpus, for_each_yaml_file};

    /// Calls `each` with every document (split at `---` lines) of every YAML file under `dirs`.
    fn for_each_document(
        dirs: Vec<std::path::PathBuf>,
        mut each: impl FnMut(&std::path::Path, &str),
    ) {
        for_each_yaml_file(dirs, |p, text| {
            for doc in text.split("\n---\n") {
                each(p, doc);
            }
        });
    }

    /// Every YAML file of the project's fixtures and examples (and of the directories in
    /// `KBUILD_FAST_CORPUS`, `:`-separated, when set): where the fast scanner finishes, its
    /// events are saphyr-parser's.
    #[test]
    fn fast_events_match_saphyr_on_fixture_files() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("tests"), root.join("examples")];
        dirs.extend(extra_corpus());
        let (mut read, mut fast) = (0, 0);
        for_each_document(dirs, |_, doc| {
            read += 1;
            if check(doc) {
                fast += 1;
            }
        });
        eprintln!("{fast} of {read} documents scanned fast");
        assert!(
            read > 100 && fast * 2 > read,
            "{fast} of {read} documents scanned fast"
        );
    }

    /// Lists, for the documents of `KBUILD_FAST_CORPUS` the scanner gives up on, the lines
    /// where it stopped (`cargo test giveup -- --ignored --nocapture`): what to teach it next.
    #[test]
    #[ignore]
    fn giveup_report() {
        for_each_document(extra_corpus(), |p, doc| {
            let mut last = 0;
            let gave_up = scan(doc, &mut |_: Event<'_>, sp: Span| {
                last = sp.start.line();
                Ok(())
            })
            .is_err();
            if gave_up {
                let at: Vec<&str> = doc
                    .lines()
                    .skip(last.saturating_sub(1))
                    .take(3)
                    .map(str::trim)
                    .collect();
                println!("GIVEUP {} :: {}", p.display(), at.join(" ⏎ "));
            }
        });
    }
}
