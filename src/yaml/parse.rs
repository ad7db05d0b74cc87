//! Parses YAML text into [`Node`]s the way kustomize reads it.
//!
//! Events from saphyr-parser are built straight into the node tree with an explicit
//! stack (no recursion), resolving scalars as they arrive. Two readers are reproduced:
//!
//! - [`parse_stream`] reads resources and patches like kustomize's `kio.ByteReader`:
//!   the text is split at lines starting with `---`, each piece is decoded by go-yaml v3
//!   (its first document only), aliases are expanded and merge keys applied as kyaml's
//!   `DeAnchor` does, and the result is what the conversion to JSON keeps: timestamps
//!   become RFC 3339 strings, duplicate keys, non-string keys below the top level and
//!   `.inf`/`.nan` are errors. kustomize also writes each resource back to YAML and reads
//!   it again; the two values that changes are reproduced (folded scalars, see `folded`,
//!   and empty plain scalars in flow collections or as keys, which become `""`).
//! - [`parse_document`] reads a kustomization file like sigs.k8s.io/yaml does: go-yaml v2
//!   (YAML 1.1 booleans such as `yes` and `on`), duplicate keys allowed (the last wins),
//!   merge keys applied in place, non-string keys converted to strings.
//!
//! Integers above `i64::MAX` that fit `u64` become [`Node::Uint`] (Go's `uint64`, printed
//! exactly by kustomize); larger ones become the nearest `f64`, as in Go.
//!
//! Hostile input is bounded: nesting deeper than [`MAX_DEPTH`] and alias expansion beyond
//! [`MAX_ALIAS_NODES`] nodes or [`MAX_ALIAS_BYTES`] bytes per document are errors; the
//! number of documents is not limited.

mod fast;
mod folded;
mod resolve;
mod timestamp;

use super::map::Key;
use super::{Map, Node};
use crate::error::Error;
use rayon::prelude::*;
use resolve::{Kind, Resolved, Schema, TagRef};
use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Span, Tag};
use std::borrow::Cow;

/// Deepest nesting of mappings and sequences accepted, counting aliased content where it
/// is expanded. Real manifests stay far below; the bound keeps every recursive consumer
/// of [`Node`] (emitter, merges, `Drop`) within a small stack.
pub const MAX_DEPTH: usize = 512;

/// Most nodes one document may gain from expanding aliases (a "billion laughs" guard).
pub const MAX_ALIAS_NODES: usize = 1_000_000;

/// Most bytes of scalar text one document may gain from expanding aliases.
pub const MAX_ALIAS_BYTES: usize = 64 << 20;

/// Parses a multi-document YAML stream of resources. `source` names the file in errors.
///
/// Follows kustomize's reader: documents that are empty, `null`, `{}` or `[]` are
/// skipped; a line starting with `---` followed by anything but a comment is an error
/// ("invalid document separator"); after a `...` marker, the rest of that piece (up to
/// the next `---` line) is ignored, as go-yaml never reads it.
pub fn parse_stream(text: &str, source: &str) -> Result<Vec<Node>, Error> {
    Ok(parse_stream_as(text, source, false)?
        .into_iter()
        .map(|(n, _)| n)
        .collect())
}

/// The paths (from the document root, through block collections) of the mapping values
/// a document writes as nothing at all (`key:`, `key: !!null`). kustomize prints them as
/// `null` like any null, but its strategic merge drops them from the resource it
/// patches, while an explicit `null` or `~` stays.
pub type EmptyNulls = Vec<Vec<PathStep>>;

/// One step of an [`EmptyNulls`] path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    Key(String),
    Index(usize),
}

/// Parses a resource stream like [`parse_stream`], with each document's [`EmptyNulls`].
pub fn parse_resource_stream(text: &str, source: &str) -> Result<Vec<(Node, EmptyNulls)>, Error> {
    parse_stream_as(text, source, false)
}

/// Parses a stream of strategic-merge patches: as [`parse_stream`], except that a null
/// annotation value stays null (kustomize deletes that annotation) instead of becoming
/// the string "null".
pub fn parse_patch_stream(text: &str, source: &str) -> Result<Vec<Node>, Error> {
    Ok(parse_stream_as(text, source, true)?
        .into_iter()
        .map(|(n, _)| n)
        .collect())
}

fn parse_stream_as(
    text: &str,
    source: &str,
    patch: bool,
) -> Result<Vec<(Node, EmptyNulls)>, Error> {
    check_characters(text, source)?;
    let pieces = split_documents(text, source)?;
    let parse = |p: &Piece| parse_piece(p.text, p.line_offset, Schema::Resource, source, patch);
    let mut docs = Vec::with_capacity(pieces.len());
    if text.len() < PARALLEL_MIN_BYTES || pieces.len() < 2 {
        for piece in &pieces {
            docs.extend(parse(piece)?.filter(|(n, _)| !is_empty_document(n)));
        }
    } else {
        // Documents are independent: parse them on all cores, report the first error.
        let parsed: Vec<_> = pieces.par_iter().map(parse).collect();
        for node in parsed {
            docs.extend(node?.filter(|(n, _)| !is_empty_document(n)));
        }
    }
    Ok(docs)
}

/// Streams at least this long are parsed one document per task.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Parses a kustomization file (one document; an empty file is [`Node::Null`]). Like
/// sigs.k8s.io/yaml, only the first document is read and later ones are ignored.
pub fn parse_document(text: &str, source: &str) -> Result<Node, Error> {
    check_characters(text, source)?;
    Ok(parse_piece(text, 0, Schema::Kustomization, source, false)?.map_or(Node::Null, |(n, _)| n))
}

/// Reads one scalar's text the way go-yaml v3 reads it in a resource: untagged
/// (`tag` `None`) as a plain scalar, or under a core tag (`"int"`, `"null"`, …).
/// The error is go-yaml's message when the text does not fit the tag
/// (``cannot decode !!str `abc` as a !!int``). Replacements need this: kustomize
/// keeps a target's tag and swaps only its text.
pub(crate) fn resolve_resource_scalar(text: &str, tag: Option<&str>) -> Result<Node, String> {
    let tag = tag.map_or(TagRef::None, TagRef::Core);
    resolve::resolve(Cow::Borrowed(text), true, tag, Schema::Resource).map(|r| r.node)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`: how sigs.k8s.io/yaml turns a number into
/// the text of a string field (a plugin config's `value: 1.5`, a kustomization's float key).
pub(crate) fn format_float_32(f: f64) -> String {
    resolve::format_float_key(f)
}

/// kustomize's resource factory drops these documents without a word.
fn is_empty_document(node: &Node) -> bool {
    match node {
        Node::Null => true,
        Node::Map(m) => m.is_empty(),
        Node::Seq(s) => s.is_empty(),
        _ => false,
    }
}

fn yaml_error(source: &str, line: usize, col: usize, msg: impl Into<String>) -> Error {
    Error::Yaml {
        source_name: source.to_string(),
        line,
        col,
        msg: msg.into(),
    }
}

/// go-yaml's reader rejects characters outside YAML's printable set before parsing;
/// saphyr-parser accepts them, so check first.
fn check_characters(text: &str, source: &str) -> Result<(), Error> {
    let b = text.as_bytes();
    // Nearly every file is printable ASCII with line breaks and tabs: one branch-free pass
    // (the compiler vectorises it) answers for those.
    let printable = b.iter().fold(true, |ok, &c| {
        ok & ((0x20..0x7f).contains(&c) | (c == b'\n') | (c == b'\t') | (c == b'\r'))
    });
    if printable {
        return Ok(());
    }
    let bad = (0..b.len()).find(|&i| match b[i] {
        b'\t' | b'\n' | b'\r' => false,
        0..=0x1f | 0x7f => true,
        // C1 controls U+0080..U+009F except NEL, and the non-characters U+FFFE, U+FFFF.
        0xc2 => matches!(b.get(i + 1), Some(&c) if (0x80..=0x9f).contains(&c) && c != 0x85),
        0xef => b.get(i + 1) == Some(&0xbf) && matches!(b.get(i + 2), Some(0xbe | 0xbf)),
        _ => false,
    });
    let Some(at) = bad else { return Ok(()) };
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    let c = text[at..].chars().next().unwrap_or_default();
    Err(yaml_error(
        source,
        line,
        col,
        format!(
            "control characters are not allowed (U+{:04X}); escape it in a double-quoted string",
            u32::from(c)
        ),
    ))
}

/// One document's text and the number of lines before it.
struct Piece<'a> {
    text: &'a str,
    line_offset: usize,
}

/// Splits the stream the way kustomize's `splitDocuments` does: at every match of the
/// regular expression `\n---.*\n`, searched left to right without overlap. The text
/// after `---` on a separator line must be empty or a comment.
fn split_documents<'a>(text: &'a str, source: &str) -> Result<Vec<Piece<'a>>, Error> {
    let mut pieces = Vec::new();
    let (mut start, mut start_lines) = (0, 0);
    let (mut search, mut search_lines) = (0, 0);
    // memchr's searches: the text is scanned a few bytes per instruction.
    let separator = memchr::memmem::Finder::new("\n---");
    let bytes = text.as_bytes();
    while let Some(rel) = separator.find(&bytes[search..]) {
        let newline = search + rel;
        let Some(eol_rel) = memchr::memchr(b'\n', &bytes[newline + 1..]) else {
            break;
        };
        let eol = newline + 1 + eol_rel;
        let separator_line =
            search_lines + memchr::memchr_iter(b'\n', &bytes[search..newline]).count() + 2;
        let rest = text[newline + 4..eol].trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            let msg = format!(
                "invalid document separator: {}",
                text[newline + 1..eol].trim()
            );
            return Err(yaml_error(source, separator_line, 1, msg));
        }
        pieces.push(Piece {
            text: &text[start..=newline],
            line_offset: start_lines,
        });
        (start, start_lines) = (eol + 1, separator_line);
        (search, search_lines) = (start, start_lines);
    }
    pieces.push(Piece {
        text: &text[start..],
        line_offset: start_lines,
    });
    Ok(pieces)
}

/// saphyr-parser rejects a tab between `:` and a value that starts with a letter or `-`
/// (`key:\tvalue`), which go-yaml accepts. Such a tab is separation whitespace, so it is
/// replaced by a space (same column) and the piece parsed again, a bounded number of times.
const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";
const TAB_FIX_WORK: usize = 64 << 20;

fn parse_piece(
    text: &str,
    line_offset: usize,
    schema: Schema,
    source: &str,
    patch: bool,
) -> Result<Option<(Node, EmptyNulls)>, Error> {
    let ctx = Ctx {
        source,
        line_offset,
        patch,
    };
    if let Some(done) = Builder::new(ctx, schema).run_fast(text) {
        return Ok(done);
    }
    let max_fixes = (TAB_FIX_WORK / text.len().max(1)).max(16);
    let mut patched: Option<String> = None;
    let mut fixes = 0;
    loop {
        let current = patched.as_deref().unwrap_or(text);
        match Builder::new(ctx, schema).run(current) {
            Ok(node) => return Ok(node),
            Err(Stop::Error(e)) => return Err(e),
            Err(Stop::TabAfterColon { index, error }) => {
                fixes += 1;
                let mut s = patched.take().unwrap_or_else(|| text.to_string());
                if fixes > max_fixes || !untab_after_colon(&mut s, index) {
                    return Err(error);
                }
                patched = Some(s);
            }
        }
    }
}

/// Replaces the tabs between a `:` and the character at `char_index` by spaces.
fn untab_after_colon(s: &mut String, char_index: usize) -> bool {
    let Some(end) = s
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()))
        .nth(char_index)
    else {
        return false;
    };
    let b = s.as_bytes();
    let mut start = end;
    while start > 0 && matches!(b[start - 1], b' ' | b'\t') {
        start -= 1;
    }
    if start == 0 || b[start - 1] != b':' || !b[start..end].contains(&b'\t') {
        return false;
    }
    s.replace_range(start..end, &" ".repeat(end - start));
    true
}

/// The text being parsed, for looking at the source of an event. saphyr-parser reports
/// positions in characters; they arrive (nearly) in increasing order, so a cursor that
/// moves from the last position converts them to byte offsets in linear time overall.
struct Source<'a> {
    text: &'a str,
    ascii: bool,
    /// Whether the text holds `\/` at all (rare), before checking quoted scalars for it.
    slash_escapes: bool,
    chars: usize,
    bytes: usize,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Self {
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
    fn ends_unterminated_at(&mut self, span: Span) -> bool {
        let content = self.text.trim_end_matches([' ', '\t']);
        if content.is_empty() || content.ends_with(['\n', '\r']) {
            return false;
        }
        self.byte(span.end) >= content.len()
    }

    /// Whether a collection starts with `[` or `{` (its event's span ends after it).
    fn starts_flow(&mut self, span: Span) -> bool {
        let end = self.byte(span.end);
        self.text
            .get(..end)
            .is_some_and(|before| before.ends_with(['[', '{']))
    }

    /// Whether a double-quoted scalar's source holds the escape `\/`.
    fn has_slash_escape(&mut self, span: Span) -> bool {
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

/// Where errors point: the file and the lines before the current piece.
#[derive(Clone, Copy)]
struct Ctx<'s> {
    source: &'s str,
    line_offset: usize,
    /// Parsing patches: null annotation values stay null.
    patch: bool,
}

impl Ctx<'_> {
    fn line(&self, at: Marker) -> usize {
        self.line_offset + at.line()
    }

    fn error(&self, at: Marker, msg: impl Into<String>) -> Stop {
        Stop::Error(yaml_error(self.source, self.line(at), at.col() + 1, msg))
    }
}

/// Why building stopped.
enum Stop {
    Error(Error),
    /// saphyr-parser's complaint about `key:\tvalue`; `index` is the value's char index.
    TabAfterColon {
        index: usize,
        error: Error,
    },
}

/// How much a node holds, to bound alias expansion and nesting.
#[derive(Clone, Copy, Default)]
struct Size {
    nodes: usize,
    bytes: usize,
    /// Levels of nested collections (0 for a scalar).
    height: usize,
}

impl Size {
    fn scalar(bytes: usize) -> Size {
        Size {
            nodes: 1,
            bytes,
            height: 0,
        }
    }

    fn add(&mut self, child: Size) {
        self.nodes += child.nodes;
        self.bytes += child.bytes;
        self.height = self.height.max(child.height);
    }
}

/// What an anchor refers to. Scalars are kept as text so that an alias used as a map key
/// converts exactly like the original.
enum Anchor<'i> {
    Unset,
    /// The anchored collection is still open: an alias to it would be infinite.
    Open,
    Scalar {
        text: Cow<'i, str>,
        style: ScalarStyle,
        tag: Option<Cow<'i, Tag>>,
    },
    Node {
        node: Node,
        size: Size,
    },
}

/// An open collection.
struct Frame {
    anchor: usize,
    start: Marker,
    /// Written `[...]` or `{...}`.
    flow: bool,
    /// Everything inside so far.
    size: Size,
    body: Body,
}

enum Body {
    Seq(Vec<Node>),
    Map(MapFrame),
}

struct MapFrame {
    map: Map,
    next: Slot,
    /// Where this mapping's key lines start in [`Builder::key_lines`].
    lines_from: usize,
    /// The value of the `<<` key of a resource mapping, merged when the mapping ends.
    merge: Option<(Node, Marker, bool)>,
    has_merge_key: bool,
    /// Whether a key spelled `<<` (merge or quoted) was seen.
    seen_merge_text: bool,
    /// Bit `len % 64` is set for the length of every key in `map`: a key whose bit is
    /// clear cannot be there, and most keys of a mapping differ in length, so the
    /// duplicate check rarely searches.
    key_lens: u64,
}

/// What the next node completed in a mapping is.
enum Slot {
    Key,
    Value(usize),
    Merge,
    /// A value that kustomize drops (the first quoted `"<<"` key's).
    Discard,
}

const MERGE_WANTS_MAP: &str = "map merge requires map or sequence of maps as the value";

struct Builder<'i, 's> {
    ctx: Ctx<'s>,
    schema: Schema,
    stack: Vec<Frame>,
    root: Option<Node>,
    anchors: Vec<Anchor<'i>>,
    budget: AliasBudget,
    /// Line of each own key of the open resource mappings, innermost last (for
    /// duplicate-key messages); one stack shared by all frames.
    key_lines: Vec<usize>,
    empty_nulls: EmptyNulls,
}

impl<'i, 's> Builder<'i, 's> {
    fn new(ctx: Ctx<'s>, schema: Schema) -> Self {
        Builder {
            ctx,
            schema,
            // Sized for typical manifests, so that neither grows while building.
            stack: Vec::with_capacity(16),
            root: None,
            anchors: Vec::new(),
            budget: AliasBudget::default(),
            key_lines: Vec::with_capacity(64),
            empty_nulls: Vec::new(),
        }
    }

    /// Builds the first document of `text`; `None` when the text holds no document.
    fn run(mut self, text: &'i str) -> Result<Option<(Node, EmptyNulls)>, Stop> {
        let mut source = Source::new(text);
        let mut parser = Parser::new_from_str(text);
        while let Some(next) = parser.next_event() {
            let (event, span) = next.map_err(|e| self.scan_error(&e))?;
            if let Some(done) = self.event(event, span, &mut source)? {
                return Ok(done);
            }
        }
        Ok(None)
    }

    /// Builds the first document of `text` from [`fast`]'s scan; `None` when the text
    /// is outside what that scanner reads, or building stopped (the caller then parses
    /// with saphyr-parser, which gives the authoritative result or error).
    fn run_fast(self, text: &'i str) -> Option<Option<(Node, EmptyNulls)>> {
        let mut sink = FastSink {
            builder: self,
            done: None,
        };
        fast::scan(text, &mut sink).ok()?;
        Some(sink.done.unwrap_or(None))
    }

    /// Takes one event; `Some` when the document is complete (`Some(None)`: the stream
    /// held no document).
    fn event(
        &mut self,
        event: Event<'i>,
        span: Span,
        source: &mut Source<'i>,
    ) -> Result<Option<Option<(Node, EmptyNulls)>>, Stop> {
        match event {
            Event::DocumentEnd => {
                let root = self.root.take().unwrap_or_default();
                return Ok(Some(Some((root, std::mem::take(&mut self.empty_nulls)))));
            }
            Event::StreamEnd => return Ok(Some(None)),
            Event::Scalar(text, style, anchor, tag) => {
                if style == ScalarStyle::DoubleQuoted && source.has_slash_escape(span) {
                    // YAML 1.2 added `\/`; go-yaml's YAML 1.1 scanner rejects it.
                    let msg = "found unknown escape character `\\/` (write `/`)";
                    return Err(self.ctx.error(span.start, msg));
                }
                if anchor != 0 {
                    let (text, tag) = (text.clone(), tag.clone());
                    self.set_anchor(anchor, Anchor::Scalar { text, style, tag });
                }
                let text = if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
                    && text.ends_with('\n')
                    && source.ends_unterminated_at(span)
                {
                    // A block scalar's last line is at the end of the text with no line
                    // break: go-yaml (and so kustomize) keeps no final newline
                    // (`v: |\n  a` is "a"); saphyr-parser adds one.
                    let mut owned = text.into_owned();
                    owned.pop();
                    Cow::Owned(owned)
                } else {
                    text
                };
                self.scalar(text, style, tag.as_deref(), span.start)?;
            }
            Event::SequenceStart(anchor, _) => {
                let flow = source.starts_flow(span);
                self.open(Body::Seq(Vec::new()), anchor, span, flow)?;
            }
            Event::MappingStart(anchor, _) => {
                let map = self.map_frame(0);
                let flow = source.starts_flow(span);
                self.open(Body::Map(map), anchor, span, flow)?;
            }
            Event::SequenceEnd | Event::MappingEnd => self.close()?,
            Event::Alias(id) => self.alias(id, span)?,
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => {}
        }
        Ok(None)
    }

    /// A new mapping's frame; `capacity` entries are allocated up front.
    fn map_frame(&self, capacity: usize) -> MapFrame {
        MapFrame {
            map: Map::with_capacity(capacity),
            next: Slot::Key,
            lines_from: self.key_lines.len(),
            merge: None,
            has_merge_key: false,
            seen_merge_text: false,
            key_lens: 0,
        }
    }

    fn scan_error(&self, e: &ScanError) -> Stop {
        let at = *e.marker();
        match self.ctx.error(at, e.info()) {
            Stop::Error(error) if e.info() == TAB_AFTER_COLON => Stop::TabAfterColon {
                index: at.index(),
                error,
            },
            stop => stop,
        }
    }

    fn set_anchor(&mut self, id: usize, anchor: Anchor<'i>) {
        if self.anchors.len() <= id {
            self.anchors.resize_with(id + 1, || Anchor::Unset);
        }
        self.anchors[id] = anchor;
    }

    fn expects_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                body: Body::Map(MapFrame {
                    next: Slot::Key,
                    ..
                }),
                ..
            })
        )
    }

    /// Whether the next completed node is the value of a resource's annotation
    /// (`metadata.annotations.<key>` of the document's top mapping).
    ///
    /// kustomize reads annotations as a string map and writes them back, so every value
    /// comes out as a string holding the scalar's text as written (`port: 8080` -> "8080",
    /// `f: 1.50` -> "1.50", `n: ~` -> "~") and a sequence or mapping as "" (checked with
    /// `kubectl kustomize`).
    fn at_annotation_value(&self) -> bool {
        fn value_key(frame: &Frame) -> Option<&str> {
            match &frame.body {
                Body::Map(MapFrame {
                    map,
                    next: Slot::Value(i),
                    ..
                }) => map.get_index(*i).map(|(k, _)| k.as_str()),
                _ => None,
            }
        }
        self.schema == Schema::Resource
            && self.stack.len() == 3
            && value_key(&self.stack[0]) == Some("metadata")
            && value_key(&self.stack[1]) == Some("annotations")
            && value_key(&self.stack[2]).is_some()
    }

    fn scalar(
        &mut self,
        text: Cow<'i, str>,
        style: ScalarStyle,
        tag: Option<&Tag>,
        at: Marker,
    ) -> Result<(), Stop> {
        let plain = style == ScalarStyle::Plain;
        let tag = tag.map_or(TagRef::None, |t| TagRef::new(&t.handle, &t.suffix));
        if self.expects_key() {
            return self.key(text, plain, tag, at);
        }
        let size = Size::scalar(text.len());
        if self.schema == Schema::Resource
            && plain
            && tag == TagRef::None
            && text.is_empty()
            && self.stack.last().is_some_and(|f| f.flow)
        {
            // go-yaml writes an empty value in a flow collection as '' when kustomize
            // writes the resource back, so it reads "" again (kubectl: `{a: }` -> a: "").
            return self.attach(Node::text(""), size, at, false);
        }
        if self.at_annotation_value() && !matches!(style, ScalarStyle::Folded) {
            // In a patch, a null annotation (`a: null`, `a: ~`, `a:`) deletes it.
            let null = self.ctx.patch
                && resolve::resolve(text.clone(), plain, tag, self.schema)
                    .is_ok_and(|r| matches!(r.node, Node::Null));
            let node = if null { Node::Null } else { Node::text(text) };
            return self.attach(node, size, at, false);
        }
        let empty = text.is_empty();
        let Resolved { mut node, kind } =
            resolve::resolve(text, plain, tag, self.schema).map_err(|m| self.ctx.error(at, m))?;
        if empty && node.is_null() && self.schema == Schema::Resource {
            self.note_empty_null();
        }
        match &node {
            Node::Float(f) if !f.is_finite() => {
                let go = if f.is_nan() {
                    "NaN"
                } else if *f > 0.0 {
                    "+Inf"
                } else {
                    "-Inf"
                };
                let msg = format!(
                    "kustomize cannot convert {go} to JSON (json: unsupported value: {go}); \
                     quote the value to keep it a string"
                );
                return Err(self.ctx.error(at, msg));
            }
            Node::Str(s)
                if style == ScalarStyle::Folded
                    && self.schema == Schema::Resource
                    && matches!(kind, Kind::Str | Kind::Custom) =>
            {
                if let Some(value) = folded::round_trip(s) {
                    node = Node::text(value);
                }
            }
            _ => {}
        }
        self.attach(node, size, at, false)
    }

    /// Records the path of an empty null about to be attached as a mapping value
    /// (open collections all block ones, no merge key on the way).
    fn note_empty_null(&mut self) {
        let mut path = Vec::with_capacity(self.stack.len());
        for frame in &self.stack {
            if frame.flow {
                return;
            }
            match &frame.body {
                Body::Map(MapFrame {
                    map,
                    next: Slot::Value(i),
                    ..
                }) => match map.get_index(*i) {
                    Some((k, _)) => path.push(PathStep::Key(String::from(k.as_str()))),
                    None => return,
                },
                Body::Seq(items) => path.push(PathStep::Index(items.len())),
                Body::Map(_) => return,
            }
        }
        if matches!(path.last(), Some(PathStep::Key(_))) {
            self.empty_nulls.push(path);
        }
    }

    fn key(
        &mut self,
        text: Cow<'i, str>,
        plain: bool,
        tag: TagRef,
        at: Marker,
    ) -> Result<(), Stop> {
        let schema = self.schema;
        let spelled_merge = text == "<<";
        let is_merge =
            spelled_merge && ((plain && tag == TagRef::None) || tag == TagRef::Core("merge"));
        // Resources: kyaml's DeAnchor takes the merge key out of every mapping and deletes
        // the first key spelled `<<` however it is quoted. Kustomization files: go-yaml v2
        // merges wherever a merge key stands, and a quoted "<<" is an ordinary key.
        let key = if is_merge || (spelled_merge && schema == Schema::Resource) {
            None
        } else {
            Some(self.key_string(text, plain, tag, self.stack.len() == 1, at)?)
        };
        let (ctx, key_lines) = (self.ctx, &mut self.key_lines);
        let Some(Frame {
            body: Body::Map(frame),
            ..
        }) = self.stack.last_mut()
        else {
            return Ok(());
        };
        let slot = match key {
            Some(key) => Slot::Value(insert_key(frame, key_lines, key, ctx, at, schema)?),
            None if is_merge => {
                if schema == Schema::Resource && frame.has_merge_key {
                    return Err(ctx.error(at, "duplicate merge key"));
                }
                frame.has_merge_key = true;
                Slot::Merge
            }
            None if frame.seen_merge_text => {
                Slot::Value(insert_key(frame, key_lines, "<<".into(), ctx, at, schema)?)
            }
            None => Slot::Discard,
        };
        frame.seen_merge_text |= spelled_merge;
        frame.next = slot;
        Ok(())
    }

    /// The string a map key becomes.
    ///
    /// Resources: go-yaml v3 decodes a nested mapping with a non-string key into
    /// `map[interface{}]interface{}`, which encoding/json rejects, so such keys are errors;
    /// the top-level mapping is decoded into `map[string]interface{}`, which takes every
    /// scalar key's text as written (`012: a` stays "012").
    /// Kustomization files: sigs.k8s.io/yaml formats go-yaml v2's key values
    /// (`012` -> "10", `yes` -> "true", `1e6` -> "1e+06").
    fn key_string(
        &self,
        text: Cow<'i, str>,
        plain: bool,
        tag: TagRef,
        root: bool,
        at: Marker,
    ) -> Result<Key, Stop> {
        let obviously_string = if plain {
            resolve::plain_is_string(&text, self.schema)
        } else {
            true
        };
        if tag == TagRef::None && obviously_string {
            return Ok(Key::from(&*text));
        }
        if self.schema == Schema::Resource && plain && tag == TagRef::None && text.is_empty() {
            // An empty key is written back as '' (go-yaml quotes empty simple keys), so
            // kustomize reads "" (kubectl printed `"": v` for `? ` + `: v`).
            return Ok(Key::default());
        }
        let r = resolve::resolve(Cow::Borrowed(&text), plain, tag, self.schema)
            .map_err(|m| self.ctx.error(at, m))?;
        let key = match (self.schema, r.kind, r.node) {
            (_, Kind::Null, _) => {
                return Err(self
                    .ctx
                    .error(at, "a null map key cannot be converted to JSON"));
            }
            (Schema::Resource, Kind::Str | Kind::Binary, Node::Str(s)) if root => s,
            (Schema::Resource, _, _) if root => Key::from(&*text),
            (Schema::Resource, Kind::Str, Node::Str(s)) => s,
            (Schema::Resource, _, _) => {
                let msg = format!(
                    "map key {text} is not a string, and kustomize cannot convert this \
                     mapping to JSON; quote the key"
                );
                return Err(self.ctx.error(at, msg));
            }
            (Schema::Kustomization, Kind::Uint, _) => {
                let msg = format!("unsupported map key of type uint64: {text}; quote the key");
                return Err(self.ctx.error(at, msg));
            }
            (Schema::Kustomization, _, Node::Str(s)) => s,
            (Schema::Kustomization, _, Node::Int(i)) => Key::from(i.to_string()),
            (Schema::Kustomization, _, Node::Float(f)) => Key::from(resolve::format_float_key(f)),
            (Schema::Kustomization, _, Node::Bool(b)) => Key::from(b.to_string()),
            (Schema::Kustomization, _, _) => Key::from(&*text),
        };
        Ok(key)
    }

    fn open(&mut self, body: Body, anchor: usize, span: Span, flow: bool) -> Result<(), Stop> {
        if self.expects_key() {
            return Err(self.ctx.error(span.start, COMPLEX_KEY));
        }
        if self.stack.len() >= MAX_DEPTH {
            let msg = format!("YAML nested deeper than {MAX_DEPTH} levels");
            return Err(self.ctx.error(span.start, msg));
        }
        if anchor != 0 {
            self.set_anchor(anchor, Anchor::Open);
        }
        self.stack.push(Frame {
            anchor,
            start: span.start,
            flow,
            size: Size::default(),
            body,
        });
        Ok(())
    }

    fn close(&mut self) -> Result<(), Stop> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let node = match frame.body {
            Body::Seq(items) => Node::Seq(items),
            Body::Map(m) => {
                self.key_lines.truncate(m.lines_from);
                Node::Map(self.finish_map(m)?)
            }
        };
        let size = Size {
            nodes: frame.size.nodes + 1,
            bytes: frame.size.bytes,
            height: frame.size.height + 1,
        };
        if frame.anchor != 0 {
            let node = node.clone();
            self.set_anchor(frame.anchor, Anchor::Node { node, size });
        }
        self.attach(node, size, frame.start, false)
    }

    /// Applies a resource mapping's merge key like kyaml's `DeAnchor`: the mapping's own
    /// keys win, then the merged mappings in the order listed.
    fn finish_map(&self, m: MapFrame) -> Result<Map, Stop> {
        let mut map = m.map;
        if let Some((value, at, from_alias)) = m.merge {
            let sources = merge_sources(value, from_alias).map_err(|e| self.ctx.error(at, e))?;
            for source in sources {
                for (k, v) in source {
                    map.entry(k).or_insert(v);
                }
            }
        }
        Ok(map)
    }

    /// Adds a completed node to the open collection, or makes it the document.
    fn attach(&mut self, node: Node, size: Size, at: Marker, from_alias: bool) -> Result<(), Stop> {
        let node = match node {
            Node::Seq(_) | Node::Map(_) if self.at_annotation_value() => Node::text(""),
            node => node,
        };
        let (ctx, schema) = (self.ctx, self.schema);
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        top.size.add(size);
        let map = match &mut top.body {
            Body::Seq(items) => {
                items.push(node);
                return Ok(());
            }
            Body::Map(map) => map,
        };
        match std::mem::replace(&mut map.next, Slot::Key) {
            Slot::Value(index) => {
                if let Some((_, value)) = map.map.get_index_mut(index) {
                    *value = node;
                }
            }
            Slot::Merge if schema == Schema::Resource => map.merge = Some((node, at, from_alias)),
            Slot::Merge => {
                merge_in_place(&mut map.map, node).map_err(|e| ctx.error(at, e))?;
                // Merged keys are not in `key_lens`: search for every later key.
                map.key_lens = u64::MAX;
            }
            // A collection is never a key here: `open` and `alias` reject those.
            Slot::Discard | Slot::Key => {}
        }
        Ok(())
    }

    fn alias(&mut self, id: usize, span: Span) -> Result<(), Stop> {
        let at = span.start;
        match self.anchors.get(id) {
            Some(Anchor::Scalar { text, style, tag }) => {
                let (text, style, tag) = (text.clone(), *style, tag.clone());
                self.budget.charge(Size::scalar(text.len()), self.ctx, at)?;
                self.scalar(text, style, tag.as_deref(), at)
            }
            Some(Anchor::Node { node, size }) => {
                let size = *size;
                if self.expects_key() {
                    return Err(self.ctx.error(at, COMPLEX_KEY));
                }
                if self.stack.len() + size.height > MAX_DEPTH {
                    let msg =
                        format!("YAML nested deeper than {MAX_DEPTH} levels (through an alias)");
                    return Err(self.ctx.error(at, msg));
                }
                self.budget.charge(size, self.ctx, at)?;
                let node = node.clone();
                self.attach(node, size, at, true)
            }
            Some(Anchor::Open) => Err(self.ctx.error(
                at,
                "alias refers to a node that contains it (an infinitely recursive anchor)",
            )),
            Some(Anchor::Unset) | None => Err(self.ctx.error(at, "unknown anchor")),
        }
    }
}

/// Takes [`fast`]'s scan straight into a [`Builder`]: scalars and collections skip the
/// general event path (the scanner has no anchors, tags, escapes or unterminated block
/// scalars, and says which collections are flow ones). Any error of the builder makes the
/// scanner give up, and saphyr-parser's run reports it.
struct FastSink<'i, 's> {
    builder: Builder<'i, 's>,
    /// The document, once complete (`Some(None)`: the text held none).
    done: Option<Option<(Node, EmptyNulls)>>,
}

impl<'i> fast::Sink<'i> for FastSink<'i, '_> {
    fn event(&mut self, event: Event<'i>, _: Span) -> Result<(), ()> {
        if self.done.is_none() {
            match event {
                Event::DocumentEnd => {
                    let root = self.builder.root.take().unwrap_or_default();
                    let nulls = std::mem::take(&mut self.builder.empty_nulls);
                    self.done = Some(Some((root, nulls)));
                }
                Event::StreamEnd => self.done = Some(None),
                _ => {}
            }
        }
        Ok(())
    }

    fn scalar(&mut self, text: Cow<'i, str>, style: ScalarStyle, span: Span) -> Result<(), ()> {
        self.builder
            .scalar(text, style, None, span.start)
            .map_err(drop)
    }

    fn open(&mut self, map: bool, flow: bool, span: Span) -> Result<(), ()> {
        let body = if map {
            // Most block mappings of a manifest hold up to 8 keys: one allocation (the
            // default growth, 4 then 8, reallocates for every mapping of 5 or more keys).
            Body::Map(self.builder.map_frame(if flow { 0 } else { 8 }))
        } else {
            Body::Seq(Vec::new())
        };
        self.builder.open(body, 0, span, flow).map_err(drop)
    }

    fn close(&mut self, _: bool, _: Span) -> Result<(), ()> {
        self.builder.close().map_err(drop)
    }
}

/// Nodes and bytes a document has gained from expanding aliases.
#[derive(Default)]
struct AliasBudget {
    nodes: usize,
    bytes: usize,
}

impl AliasBudget {
    /// Counts an expansion, before it is made, against the per-document bounds.
    fn charge(&mut self, size: Size, ctx: Ctx<'_>, at: Marker) -> Result<(), Stop> {
        self.nodes += size.nodes;
        self.bytes += size.bytes;
        if self.nodes > MAX_ALIAS_NODES || self.bytes > MAX_ALIAS_BYTES {
            let msg = format!(
                "document expands aliases to more than {MAX_ALIAS_NODES} nodes or {} MiB \
                 (possible alias bomb)",
                MAX_ALIAS_BYTES >> 20
            );
            return Err(ctx.error(at, msg));
        }
        Ok(())
    }
}

const COMPLEX_KEY: &str = "a mapping or sequence cannot be a map key";

/// Adds an own key of a mapping with a null placeholder value; returns its index.
/// Resources reject a repeated key as go-yaml v3 does; kustomization files keep the
/// first position and let the later value win, as go-yaml v2 does.
fn insert_key(
    frame: &mut MapFrame,
    key_lines: &mut Vec<usize>,
    key: Key,
    ctx: Ctx<'_>,
    at: Marker,
    schema: Schema,
) -> Result<usize, Stop> {
    let len_bit = 1u64 << (key.len() % 64);
    if frame.key_lens & len_bit == 0 {
        frame.key_lens |= len_bit;
        let index = frame.map.push_absent(key, Node::Null);
        if schema == Schema::Resource {
            key_lines.push(ctx.line(at));
        }
        return Ok(index);
    }
    let (index, old) = frame.map.insert_full(key, Node::Null);
    if schema == Schema::Kustomization {
        return Ok(index);
    }
    if old.is_some() {
        let key = frame.map.get_index(index).map_or("", |(k, _)| k.as_str());
        let first = key_lines
            .get(frame.lines_from + index)
            .copied()
            .unwrap_or_default();
        let msg = format!("mapping key {key:?} already defined at line {first}");
        return Err(ctx.error(at, msg));
    }
    key_lines.push(ctx.line(at));
    Ok(index)
}

/// The mappings a merge key's value names, in priority order, with kyaml's messages.
fn merge_sources(value: Node, from_alias: bool) -> Result<Vec<Map>, &'static str> {
    match value {
        Node::Map(m) => Ok(vec![m]),
        _ if from_alias => Err("invalid map merge: received alias for a non-map value"),
        Node::Seq(items) => items
            .into_iter()
            .map(|item| match item {
                Node::Map(m) => Ok(m),
                Node::Seq(_) => Err("invalid map merge: received a nested sequence"),
                _ => Err(MERGE_WANTS_MAP),
            })
            .collect(),
        _ => Err(MERGE_WANTS_MAP),
    }
}

/// go-yaml v2's merge: the merged keys overwrite the keys before `<<` and are overwritten
/// by the keys after it; in a list of mappings, earlier ones win.
fn merge_in_place(map: &mut Map, value: Node) -> Result<(), &'static str> {
    let sources = match value {
        Node::Map(m) => vec![m],
        Node::Seq(items) => items
            .into_iter()
            .map(|item| match item {
                Node::Map(m) => Ok(m),
                _ => Err(MERGE_WANTS_MAP),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(MERGE_WANTS_MAP),
    };
    for source in sources.into_iter().rev() {
        map.extend(source);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A node from JSON, for readable expectations (integers stay integers).
    fn j(v: Value) -> Node {
        match v {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(b),
            Value::Number(n) => n
                .as_i64()
                .map_or_else(|| Node::Float(n.as_f64().unwrap_or_default()), Node::Int),
            Value::String(s) => Node::text(s),
            Value::Array(a) => Node::Seq(a.into_iter().map(j).collect()),
            Value::Object(o) => Node::Map(o.into_iter().map(|(k, v)| (k, j(v))).collect()),
        }
    }

    fn stream(text: &str) -> Vec<Node> {
        parse_stream(text, "r.yaml").unwrap_or_else(|e| panic!("{e}"))
    }

    /// The `spec` of a one-document stream.
    fn spec(body: &str) -> Node {
        let docs = stream(&format!("kind: Values\nspec:\n{body}"));
        docs[0].get("spec").cloned().unwrap_or_default()
    }

    fn kustomization(text: &str) -> Node {
        parse_document(text, "kustomization.yaml").unwrap_or_else(|e| panic!("{e}"))
    }

    /// (line, column, message) of the error for a stream.
    fn stream_err(text: &str) -> (usize, usize, String) {
        position(parse_stream(text, "r.yaml").expect_err("should fail"))
    }

    fn document_err(text: &str) -> (usize, usize, String) {
        position(parse_document(text, "k.yaml").expect_err("should fail"))
    }

    fn position(e: Error) -> (usize, usize, String) {
        match e {
            Error::Yaml { line, col, msg, .. } => (line, col, msg),
            other => panic!("not a YAML error: {other}"),
        }
    }

    // Expectations come from `kubectl kustomize` (kustomize v5.5.0): a resource holding the
    // input was built and the printed output (or error) noted in the comment.

    #[test]
    fn plain_scalars_resolve_like_go_yaml_v3() {
        // kubectl printed: "yes", "on", "y", true, null, 10 (012), 15, 31, 5, 1000,
        // "2024-01-01T00:00:00Z", "12:30", 1e (string), 1 (1.0).
        let got = spec(
            "  a: yes\n  b: on\n  c: y\n  d: True\n  e: ~\n  f: 012\n  g: 0o17\n  h: 0x1F\n  \
             i: 0b101\n  k: 1_000\n  l: 2024-01-01\n  m: 12:30\n  n: 1e\n  o: 1.0\n  p:\n",
        );
        let want = json!({"a": "yes", "b": "on", "c": "y", "d": true, "e": null, "f": 10,
            "g": 15, "h": 31, "i": 5, "k": 1000, "l": "2024-01-01T00:00:00Z", "m": "12:30",
            "n": "1e", "o": 1.0, "p": null});
        assert_eq!(got, j(want));
    }

    #[test]
    fn quoted_block_and_tagged_scalars() {
        // kubectl: "2" stays a string, `!!str 123` -> "123", `!!int "42"` -> 42,
        // `!!binary aGVsbG8=` -> hello, `!foo 12` -> "12", `! 12` -> 12.
        let got = spec(
            "  a: \"2\"\n  b: '012'\n  c: |\n    12\n  d: !!str 123\n  e: !!int \"42\"\n  \
             f: !!binary aGVsbG8=\n  g: !foo 12\n  h: ! 12\n  i: !foo {x: 1}\n",
        );
        let want = json!({"a": "2", "b": "012", "c": "12\n", "d": "123", "e": 42,
            "f": "hello", "g": "12", "h": 12, "i": {"x": 1}});
        assert_eq!(got, j(want));
    }

    #[test]
    fn double_quoted_escapes() {
        // kubectl accepted every YAML 1.2 escape but `\/` ("found unknown escape character").
        assert_eq!(
            spec("  e: \"\\0\\a\\e\\ \\N\\_\\L\\x41\\u00e9\\U0001F600\\\t\"\n"),
            j(json!({"e": "\u{0}\u{7}\u{1b} \u{85}\u{a0}\u{2028}A\u{e9}\u{1f600}\t"}))
        );
        let (line, col, msg) = stream_err("a: 1\nb: \"x\\/y\"\n");
        assert_eq!((line, col), (2, 4));
        assert!(msg.contains("unknown escape"), "{msg}");
        // A backslash escaped before a slash, or `\/` outside double quotes, is fine.
        assert_eq!(
            spec("  a: \"x\\\\/y\"\n  b: 'x\\/y'\n  c: x\\/y\n"),
            j(json!({"a": "x\\/y", "b": "x\\/y", "c": "x\\/y"}))
        );
        assert_eq!(
            spec("  \u{e9}: \"\u{e9}\\\\/\"\n"),
            j(json!({"\u{e9}": "\u{e9}\\/"}))
        );
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

    #[test]
    fn empty_values_in_flow_collections_and_empty_keys() {
        // kubectl: `{a: 1, b, c: }` -> b: "", c: ""; `[a: ]` -> [{a: ""}];
        // `[&x , *x]`... -> ["", ""]; `? ` + `: v` -> "": v; block `e:` and `- ` stay null.
        assert_eq!(
            spec(
                "  f: {a: 1, b, c: }\n  g: [a: ]\n  h: [a, &x , *x]\n  i:\n    ?\n    : v\n  e:\n  s:\n  -\n"
            ),
            j(
                json!({"f": {"a": 1, "b": "", "c": ""}, "g": [{"a": ""}], "h": ["a", "", ""],
                "i": {"": "v"}, "e": null, "s": [null]})
            )
        );
        // Only resources take that round trip.
        assert_eq!(kustomization("f: {c: }\n"), j(json!({"f": {"c": null}})));
        assert!(document_err("f:\n  ?\n  : v\n").2.contains("null map key"));
    }

    #[test]
    fn tag_mismatch_is_an_error_at_the_scalar() {
        // kubectl: "cannot decode !!float `1.5` as a !!int" (without a position).
        let e = stream_err("kind: Values\nspec:\n  a: !!int 1.5\n");
        assert_eq!(e, (3, 6, "cannot decode !!float `1.5` as a !!int".into()));
        let e = stream_err("a: !!binary aGVsbG8\n");
        assert_eq!(e.2, "!!binary value contains invalid base64 data");
    }

    #[test]
    fn infinity_and_nan_cannot_become_json() {
        // kubectl: "json: unsupported value: +Inf" for .inf, also in a kustomization.
        let (line, col, msg) = stream_err("kind: Values\nspec:\n  a: .inf\n");
        assert_eq!((line, col), (3, 6));
        assert!(msg.contains("json: unsupported value: +Inf"), "{msg}");
        assert!(stream_err("a: -.inf\n").2.contains("-Inf"));
        assert!(stream_err("a: .nan\n").2.contains("NaN"));
        assert!(
            document_err("commonAnnotations: {a: .inf}\n")
                .2
                .contains("+Inf")
        );
        // As text they are fine: kubectl printed `inf` and `NaN` as strings.
        assert_eq!(
            spec("  a: inf\n  b: NaN\n"),
            j(json!({"a": "inf", "b": "NaN"}))
        );
    }

    #[test]
    fn documents_of_a_stream() {
        // kubectl skipped empty documents, comments-only documents, `null`, `{}` and `[]`.
        let docs = stream(
            "---\na: 1\n---\n---\n# only a comment\n---\nnull\n---\n{}\n---\n[]\n--- # c\nb: 2\n",
        );
        assert_eq!(docs, vec![j(json!({"a": 1})), j(json!({"b": 2}))]);
        assert_eq!(stream(""), Vec::<Node>::new());
        assert_eq!(stream("# nothing\n"), Vec::<Node>::new());
        // A scalar or list document is kept; kustomize then reports missing metadata.
        assert_eq!(stream("a: 1\n---\nhello\n")[1], j(json!("hello")));
        assert_eq!(stream("- a\n")[0], j(json!(["a"])));
        // Many documents, no limit.
        assert_eq!(stream(&"x: 1\n---\n".repeat(20_000)).len(), 20_000);
    }

    #[test]
    fn document_separator_with_content_is_an_error() {
        // kubectl: "invalid document separator: --- ~", "... ----", "... ---foo".
        assert_eq!(
            stream_err("a: 1\n--- ~\n"),
            (2, 1, "invalid document separator: --- ~".into())
        );
        assert_eq!(
            stream_err("a: 1\n----\n").2,
            "invalid document separator: ----"
        );
        assert_eq!(
            stream_err("a: 1\n---foo\n").2,
            "invalid document separator: ---foo"
        );
        // On the first line it is an ordinary document start (kubectl accepted it).
        assert_eq!(stream("--- {a: 1}\n"), vec![j(json!({"a": 1}))]);
        assert_eq!(stream("a: 1\n---\t\nb: 2\n").len(), 2);
    }

    #[test]
    fn text_after_document_end_marker_is_ignored_until_the_next_separator() {
        // kubectl printed only the first resource for `...` followed by another one.
        assert_eq!(stream("a: 1\n...\nb: 2\n"), vec![j(json!({"a": 1}))]);
        assert_eq!(stream("a: 1\n...\nb: [\n---\nc: 3\n").len(), 2);
    }

    #[test]
    fn errors_point_into_the_right_document() {
        let (line, col, _) = stream_err("a: 1\n---\nb: 2\n---\nc:\n\td: 1\n");
        assert_eq!((line, col), (6, 2));
    }

    #[test]
    fn byte_order_mark_and_crlf() {
        // kubectl accepted a BOM at the start of the file.
        assert_eq!(stream("\u{feff}a: 1\n"), vec![j(json!({"a": 1}))]);
        assert_eq!(
            stream("a: |\r\n  x\r\n  y\r\nb: 1\r\n---\r\nc: 2\r\n"),
            vec![j(json!({"a": "x\ny\n", "b": 1})), j(json!({"c": 2}))]
        );
    }

    #[test]
    fn tabs() {
        // kubectl: "found character that cannot start any token" for tab indentation.
        let (line, col, msg) = stream_err("spec:\n\ta: 1\n");
        assert_eq!((line, col), (2, 2));
        assert!(msg.contains("tab"), "{msg}");
        // A tab after `:` separates like a space (kubectl printed a: b, c: -1, d: e).
        assert_eq!(
            stream("a:\tb\nc:\t-1\ns:\n- e:\tf\n- {d:\te}\n")[0],
            j(json!({"a": "b", "c": -1, "s": [{"e": "f"}, {"d": "e"}]}))
        );
        assert_eq!(
            kustomization("namePrefix:\tx-\n"),
            j(json!({"namePrefix": "x-"}))
        );
        // Tabs inside values are kept.
        assert_eq!(
            spec("  a: \"x:\\ty\"\n  b: |\n    k:\tv\n"),
            j(json!({"a": "x:\ty", "b": "k:\tv\n"}))
        );
    }

    #[test]
    fn control_characters_are_rejected() {
        // kubectl: "control characters are not allowed", raw or quoted.
        let (line, col, msg) = stream_err("a: 1\nb: x\u{1}y\n");
        assert_eq!((line, col), (2, 5));
        assert!(
            msg.starts_with("control characters are not allowed (U+0001)"),
            "{msg}"
        );
        assert_eq!(stream_err("a: \"\u{7f}\"\n").0, 1);
        assert_eq!(stream_err("a: \u{9f}\n").1, 4);
        // Escaped they are fine.
        assert_eq!(stream("a: \"\\x01\"\n")[0], j(json!({"a": "\u{1}"})));
    }

    #[test]
    fn top_level_keys_keep_their_text() {
        // kubectl printed "012": a, "true": a, "1.50": a, "2024-01-01": a, hello: a.
        let got =
            stream("012: a\ntrue: b\n1.50: c\n2024-01-01: d\n!!binary aGVsbG8=: e\n.inf: f\n");
        let want = json!({"012": "a", "true": "b", "1.50": "c", "2024-01-01": "d",
            "hello": "e", ".inf": "f"});
        assert_eq!(got[0], j(want));
    }

    #[test]
    fn nested_keys_must_be_strings() {
        // kubectl: "json: unsupported type: map[interface {}]interface {}" for `1: a`,
        // `true: b` and a timestamp key in a nested mapping.
        for key in [
            "1",
            "true",
            "1.5",
            "2024-01-01",
            "!!binary aGVsbG8=",
            "!foo x",
        ] {
            let (line, col, msg) = stream_err(&format!("spec:\n  {key}: a\n"));
            assert_eq!((line, col), (2, 3), "{key}");
            assert!(msg.contains("is not a string"), "{key}: {msg}");
        }
        // Strings that look like other types in YAML 1.1 are fine.
        assert_eq!(
            spec("  yes: 1\n  \"1\": 2\n  !!str 3: 3\n"),
            j(json!({"yes": 1, "1": 2, "3": 3}))
        );
    }

    #[test]
    fn null_and_complex_keys_are_errors() {
        assert!(stream_err("spec:\n  ~: a\n").2.contains("null map key"));
        assert!(stream_err("~: a\n").2.contains("null map key"));
        // kubectl: "invalid map key: []interface {}{\"a\"}" / "cannot unmarshal !!seq into string".
        assert_eq!(
            stream_err("spec:\n  ? [a]\n  : b\n"),
            (2, 5, COMPLEX_KEY.to_string())
        );
        assert_eq!(stream_err("x: &x {a: 1}\ny:\n  *x : 1\n").0, 3);
        assert!(
            document_err("a: {? {b: 1} : c}\n")
                .2
                .contains("cannot be a map key")
        );
        assert!(document_err("a: {~: c}\n").2.contains("null map key"));
    }

    #[test]
    fn duplicate_keys() {
        // kubectl: `line 9: mapping key "c" already defined at line 8`; `1` and `"1"` clash.
        assert_eq!(
            stream_err("spec:\n  a: 1\n  b:\n    c: 2\n    c: 3\n"),
            (5, 5, "mapping key \"c\" already defined at line 4".into())
        );
        assert_eq!(
            stream_err("1: 1\n\"1\": 2\n").2,
            "mapping key \"1\" already defined at line 1"
        );
        assert_eq!(
            stream_err("{a: 1, a: 2}").2,
            "mapping key \"a\" already defined at line 1"
        );
        // The same key in different mappings is fine.
        assert_eq!(stream("a: {x: 1}\nb: {x: 2}\n").len(), 1);
    }

    #[test]
    fn aliases_are_expanded() {
        // kubectl printed the copies; a scalar alias resolves like the original (`012` is
        // 10 as a value, and keeps its text as a top-level key).
        let got =
            stream("a: &x {k: [1, 2]}\nb: *x\nc: &s 012\nd: *s\n*s : v\ne: &k key\nf: {*k : v}\n");
        let want = json!({"a": {"k": [1, 2]}, "b": {"k": [1, 2]}, "c": 10, "d": 10,
            "012": "v", "e": "key", "f": {"key": "v"}});
        assert_eq!(got[0], j(want));
        assert!(stream_err("a: *nope\n").2.contains("unknown anchor"));
        // kubectl overflows its stack on this one.
        assert!(stream_err("a: &a\n  b: *a\n").2.contains("recursive"));
    }

    #[test]
    fn merge_keys_in_resources() {
        // kubectl: own keys win; in a list the first mapping wins; nested merges apply.
        assert_eq!(
            spec("  base: &b {x: 1, y: 1}\n  m:\n    <<: *b\n    y: 2\n"),
            j(json!({"base": {"x": 1, "y": 1}, "m": {"x": 1, "y": 2}}))
        );
        assert_eq!(
            spec("  <<: [{a: 1, c: 1}, {a: 2, b: 2}]\n  c: 3\n"),
            j(json!({"a": 1, "b": 2, "c": 3}))
        );
        assert_eq!(
            spec("  x: &x {a: 1, <<: {b: 2}}\n  y:\n    <<: *x\n    c: 3\n"),
            j(json!({"x": {"a": 1, "b": 2}, "y": {"a": 1, "b": 2, "c": 3}}))
        );
        assert_eq!(
            spec("  <<: {a: null, b: 1}\n  c: 2\n"),
            j(json!({"a": null, "b": 1, "c": 2}))
        );
    }

    #[test]
    fn merge_key_errors_in_resources() {
        // kyaml's messages, as kubectl printed them.
        let cases = [
            ("  <<: 5\n", MERGE_WANTS_MAP),
            ("  <<:\n  b: 1\n", MERGE_WANTS_MAP),
            ("  <<: [1]\n", MERGE_WANTS_MAP),
            (
                "  <<: [[{a: 1}]]\n",
                "invalid map merge: received a nested sequence",
            ),
            (
                "  x: &x [1]\n  y:\n    <<: *x\n",
                "invalid map merge: received alias for a non-map value",
            ),
            ("  <<: {a: 1}\n  <<: {b: 1}\n", "duplicate merge key"),
        ];
        for (body, msg) in cases {
            let (_, _, got) = stream_err(&format!("kind: Values\nspec:\n{body}"));
            assert_eq!(got, msg, "{body}");
        }
    }

    #[test]
    fn quoted_merge_text_keys_in_resources() {
        // kyaml deletes the first key spelled `<<` of every mapping, quoted or not
        // (kubectl printed `b: 2` for `"<<": {a: 1}` + `b: 2`, and `<<: 2` + `x: 3` for
        // `'<<': 1` + `"<<": 2` + `x: 3`).
        assert_eq!(spec("  \"<<\": {a: 1}\n  b: 2\n"), j(json!({"b": 2})));
        assert_eq!(
            spec("  '<<': 1\n  \"<<\": 2\n  x: 3\n"),
            j(json!({"<<": 2, "x": 3}))
        );
        assert_eq!(
            spec("  <<: {a: 1}\n  '<<': 2\n"),
            j(json!({"<<": 2, "a": 1}))
        );
        assert_eq!(spec("  '<<': 2\n  <<: {a: 1}\n"), j(json!({"a": 1})));
        // As a value `<<` is an ordinary string.
        assert_eq!(spec("  a: <<\n"), j(json!({"a": "<<"})));
    }

    #[test]
    fn folded_scalars_take_go_yaml_round_trip() {
        // kubectl printed "a\n\n b\n" for a folded `a` + more-indented ` b`.
        assert_eq!(
            spec("  f: >\n    a\n     b\n"),
            j(json!({"f": "a\n\n b\n"}))
        );
        assert_eq!(spec("  f: >\n    a\n    b\n"), j(json!({"f": "a b\n"})));
        // Through an alias too.
        assert_eq!(
            spec("  f: &f >\n    a\n     b\n  g: *f\n"),
            j(json!({"f": "a\n\n b\n", "g": "a\n\n b\n"}))
        );
        // Kustomization files are read once, as written.
        assert_eq!(
            kustomization("namePrefix: >\n  a\n   b\n"),
            j(json!({"namePrefix": "a\n b\n"}))
        );
    }

    #[test]
    fn nesting_is_bounded() {
        let nested = |depth: usize| {
            let mut s = String::new();
            for i in 0..depth {
                s.push_str(&"  ".repeat(i));
                s.push_str("k:\n");
            }
            s + &"  ".repeat(depth) + "x\n"
        };
        // `depth` nested mappings.
        assert_eq!(stream(&nested(MAX_DEPTH)).len(), 1);
        let (line, _, msg) = stream_err(&nested(MAX_DEPTH + 1));
        assert_eq!(line, MAX_DEPTH + 1);
        assert_eq!(msg, format!("YAML nested deeper than {MAX_DEPTH} levels"));
        // 1000 levels of block sequences, and flow collections nested 300 deep.
        let seqs: String = (0..1000)
            .map(|i| format!("{}-\n", "  ".repeat(i)))
            .collect();
        assert!(stream_err(&seqs).2.contains("nested deeper"));
        let flow = format!("a: {}{}\n", "[".repeat(300), "]".repeat(300));
        assert!(parse_stream(&flow, "r.yaml").is_err());
        // Aliases count at the depth where they expand.
        let mut chain = String::from("a0: &a0 [x]\n");
        for i in 1..=MAX_DEPTH {
            chain.push_str(&format!("a{i}: &a{i} [*a{}]\n", i - 1));
        }
        assert!(stream_err(&chain).2.contains("through an alias"));
    }

    #[test]
    fn alias_expansion_is_bounded() {
        // The "billion laughs": 10^9 strings from a few hundred bytes.
        let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let start = std::time::Instant::now();
        let (_, _, msg) = stream_err(&text);
        assert!(msg.contains("alias bomb"), "{msg}");
        assert!(start.elapsed().as_secs() < 20);
        // Long strings count by bytes.
        let big = "x".repeat(1 << 20);
        let mut text = format!("a: &a {big}\nb: [");
        text.push_str(&vec!["*a"; 70].join(", "));
        text.push_str("]\n");
        assert!(stream_err(&text).2.contains("alias bomb"));
        // The budget is per document.
        let doc = format!(
            "a: &a {}\nb: [{}]\n",
            "x".repeat(1 << 10),
            vec!["*a"; 1000].join(",")
        );
        assert_eq!(stream(&[doc.as_str(); 100].join("---\n")).len(), 100);
    }

    #[test]
    fn invalid_input_is_an_error_not_a_panic() {
        for text in [
            "a: [1, 2\n",
            "a: \"x\n",
            "a: 1\n b: 2\n",
            "a: b: c\n",
            "- a\nb: c\n",
            "!<x> [\n",
            "%TAG !e! x\n--- !f!y 1\n",
            "{[}\n",
            "? - :\n",
        ] {
            assert!(parse_stream(text, "r.yaml").is_err(), "{text:?}");
            assert!(parse_document(text, "k.yaml").is_err(), "{text:?}");
        }
    }

    #[test]
    fn kustomization_files_read_like_sigs_k8s_io_yaml() {
        // kubectl rejected `commonAnnotations: {a: yes}` ("cannot unmarshal bool into ...
        // string") and `namePrefix: 012` ("cannot unmarshal number"); kept `2024-01-01`.
        assert_eq!(
            kustomization("a: yes\nb: Off\nc: 012\nd: 2024-01-01\ne: y\nf: ~\n"),
            j(json!({"a": true, "b": false, "c": 10, "d": "2024-01-01", "e": true, "f": null}))
        );
        // The later key wins (kubectl used `a: "2"`); merges apply where `<<` stands.
        assert_eq!(kustomization("a: '1'\na: '2'\n"), j(json!({"a": "2"})));
        assert_eq!(
            kustomization("a: '0'\n<<: {a: '1', b: '1'}\nb: '2'\n"),
            j(json!({"a": "1", "b": "2"}))
        );
        assert_eq!(
            kustomization("<<: [{a: '1', c: '1'}, {a: '2', b: '2'}]\n"),
            j(json!({"a": "1", "b": "2", "c": "1"}))
        );
        // A quoted "<<" is an ordinary key here.
        assert_eq!(kustomization("'<<': a\n"), j(json!({"<<": "a"})));
        assert_eq!(document_err("<<: 5\n").2, MERGE_WANTS_MAP);
    }

    #[test]
    fn kustomization_keys_become_strings_like_sigs_k8s_io_yaml() {
        // kubectl showed the keys 10, 31, 1000, 1.5, 1e+06, true for these.
        assert_eq!(
            kustomization(
                "m: {012: a, 0x1F: b, 1e3: c, 1.5: d, 1000000.0: e, yes: f, 2024-01-01: g}\n"
            ),
            j(
                json!({"m": {"10": "a", "31": "b", "1000": "c", "1.5": "d", "1e+06": "e",
                "true": "f", "2024-01-01": "g"}})
            )
        );
        // kubectl: "unsupported map key of type: uint64" / "of type: %!s(<nil>)".
        assert!(
            document_err("m: {12345678901234567890: a}\n")
                .2
                .contains("uint64")
        );
        assert!(document_err("m: {~: a}\n").2.contains("null map key"));
    }

    #[test]
    fn kustomization_documents() {
        assert_eq!(kustomization(""), Node::Null);
        assert_eq!(kustomization("# just a comment\n"), Node::Null);
        assert_eq!(
            kustomization("\u{feff}namePrefix: x-\n"),
            j(json!({"namePrefix": "x-"}))
        );
        // kubectl ignored a second document (its namePrefix was not applied).
        assert_eq!(kustomization("a: 1\n---\nb: 2\n"), j(json!({"a": 1})));
        assert_eq!(kustomization("a: 1\n---\nb: [\n"), j(json!({"a": 1})));
        // No document splitting: a `---` line with content is YAML's business.
        assert_eq!(kustomization("--- {a: 1}\n"), j(json!({"a": 1})));
    }

    #[test]
    fn large_streams_parse_in_parallel_in_order() {
        let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\ndata:\n  k: v\n";
        let text: String = (0..30_000)
            .map(|i| doc.replace("NAME", &format!("cm{i}")))
            .collect::<Vec<_>>()
            .join("---\n");
        assert!(text.len() > PARALLEL_MIN_BYTES);
        let docs = stream(&text);
        assert_eq!(docs.len(), 30_000);
        assert_eq!(docs[12_345].get_str(&["metadata", "name"]), Some("cm12345"));
        // The first error in document order is reported.
        let broken =
            text.replacen("name: cm20000", "name: [", 1)
                .replacen("name: cm29000", "name: {", 1);
        let (line, _, _) = stream_err(&broken);
        assert!((20_000 * 7 + 1..=20_000 * 7 + 7).contains(&line), "{line}");
    }

    #[test]
    fn block_scalar_on_an_unterminated_last_line_has_no_final_newline() {
        assert_eq!(
            spec("  a: |\n    x\n  b: |\n    y"),
            j(json!({"a": "x\n", "b": "y"}))
        );
        assert_eq!(spec("  b: >\n    y\n    z  "), j(json!({"b": "y z  "})));
        assert_eq!(spec("  b: |\n    y\n"), j(json!({"b": "y\n"})));
        // A later unterminated line that is not part of the scalar.
        assert_eq!(
            spec("  a: |\n    x\n  b: 1"),
            j(json!({"a": "x\n", "b": 1}))
        );
    }

    #[test]
    fn patches_keep_null_annotations() {
        let text = "metadata:\n  annotations:\n    a: null\n    b: ~\n    c:\n    d: 1\n";
        let res = stream(text);
        assert_eq!(
            res[0].get_path(&["metadata", "annotations"]).cloned(),
            Some(j(json!({"a": "null", "b": "~", "c": "", "d": "1"})))
        );
        let patch = parse_patch_stream(text, "p.yaml").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            patch[0].get_path(&["metadata", "annotations"]).cloned(),
            Some(j(json!({"a": null, "b": null, "c": null, "d": "1"})))
        );
    }

    #[test]
    fn empty_nulls_are_recorded_through_block_collections() {
        let text = "kind: X\nspec:\n  a:\n  b: null\n  c: !!null\n  l:\n  - n: x\n    v:\n  - \n  f: {g: }\n";
        let docs = parse_resource_stream(text, "r.yaml").unwrap_or_else(|e| panic!("{e}"));
        let key = |k: &str| PathStep::Key(k.to_string());
        assert_eq!(
            docs[0].1,
            vec![
                vec![key("spec"), key("a")],
                vec![key("spec"), key("c")],
                vec![key("spec"), key("l"), PathStep::Index(0), key("v")],
            ]
        );
    }
}
