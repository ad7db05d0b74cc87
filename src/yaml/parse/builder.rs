//! Event handling: the [`Builder`] that builds saphyr-parser's events (or the fast
//! scanner's, through [`FastSink`]) into the node tree with an explicit stack of open
//! collections, resolving scalars as they arrive.

use crate::yaml::{Map, Node};
use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Span, Tag};
use std::borrow::Cow;

use super::anchors::{AliasBudget, Anchor, Size};
use super::keys::COMPLEX_KEY;
use super::merge_keys::merge_in_place;
use super::position::{Ctx, Source, Stop};
use super::resolve::{Kind, Resolved, Schema, TagRef};
use super::stream::TAB_AFTER_COLON;
use super::{EmptyNulls, MAX_DEPTH, PathStep, fast, folded, resolve};

/// go-yaml (libyaml) accepts an empty mapping key only after `?`; `: value` with nothing
/// before the colon is "did not find expected key" (block) or "did not find expected node
/// content" (flow), which saphyr-parser reads as an empty key. A shell heredoc without a
/// quoted delimiter writes exactly that for a `$patch: delete` line.
/// YAML 1.2 limits an implicit key (one without `?`) to 1,024 characters (quotes
/// included); go-yaml, so kustomize, and saphyr-parser refuse a longer one ("mapping
/// values are not allowed in this context"). The fast scanner leaves such keys to
/// saphyr-parser.
const MAX_IMPLICIT_KEY: usize = 1024;

const EMPTY_KEY: &str = "mapping entry without a key (`: value`), which kustomize's YAML parser \
    rejects; write `\"\": value` for an empty key (if a shell heredoc dropped a `$name` key \
    such as `$patch`, quote its delimiter: <<'EOF')";

/// An open collection.
pub(super) struct Frame {
    anchor: usize,
    start: Marker,
    /// Written `[...]` or `{...}`.
    flow: bool,
    /// Everything inside so far.
    size: Size,
    pub(super) body: Body,
}

pub(super) enum Body {
    Seq(Vec<Node>),
    Map(MapFrame),
}

pub(super) struct MapFrame {
    pub(super) map: Map,
    pub(super) next: Slot,
    /// Where this mapping's key lines start in [`Builder::key_lines`].
    pub(super) lines_from: usize,
    /// The value of the `<<` key of a resource mapping, merged when the mapping ends.
    pub(super) merge: Option<(Node, Marker, bool)>,
    pub(super) has_merge_key: bool,
    /// Whether a key spelled `<<` (merge or quoted) was seen.
    pub(super) seen_merge_text: bool,
    /// Bit `len % 64` is set for the length of every key in `map`: a key whose bit is
    /// clear cannot be there, and most keys of a mapping differ in length, so the
    /// duplicate check rarely searches.
    pub(super) key_lens: u64,
}

/// What the next node completed in a mapping is.
pub(super) enum Slot {
    Key,
    Value(usize),
    Merge,
    /// A value that kustomize drops (the first quoted `"<<"` key's).
    Discard,
}

pub(super) struct Builder<'i, 's> {
    pub(super) ctx: Ctx<'s>,
    pub(super) schema: Schema,
    pub(super) stack: Vec<Frame>,
    root: Option<Node>,
    pub(super) anchors: Vec<Anchor<'i>>,
    pub(super) budget: AliasBudget,
    /// Line of each own key of the open resource mappings, innermost last (for
    /// duplicate-key messages); one stack shared by all frames.
    pub(super) key_lines: Vec<usize>,
    empty_nulls: EmptyNulls,
}

impl<'i, 's> Builder<'i, 's> {
    pub(super) fn new(ctx: Ctx<'s>, schema: Schema) -> Self {
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
    pub(super) fn run(mut self, text: &'i str) -> Result<Option<(Node, EmptyNulls)>, Stop> {
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
    pub(super) fn run_fast(self, text: &'i str) -> Option<Option<(Node, EmptyNulls)>> {
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
                if style == ScalarStyle::Plain
                    && text.is_empty()
                    && anchor == 0
                    && tag.is_none()
                    && self.expects_key()
                    && !source.follows_explicit_key(span)
                {
                    return Err(self.ctx.error(span.start, EMPTY_KEY));
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

    pub(super) fn expects_key(&self) -> bool {
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
        if self.schema != Schema::Resource {
            return false;
        }
        // The annotations of an item of a `kind: List` document (`items[i].metadata...`),
        // which kustomize reads as resources of their own.
        let at = match self.stack.len() {
            3 => 0,
            5 if value_key(&self.stack[0]) == Some("items")
                && matches!(self.stack[1].body, Body::Seq(_)) =>
            {
                2
            }
            _ => return false,
        };
        value_key(&self.stack[at]) == Some("metadata")
            && value_key(&self.stack[at + 1]) == Some("annotations")
            && value_key(&self.stack[at + 2]).is_some()
    }

    pub(super) fn scalar(
        &mut self,
        text: Cow<'i, str>,
        style: ScalarStyle,
        tag: Option<&Tag>,
        at: Marker,
    ) -> Result<(), Stop> {
        let plain = style == ScalarStyle::Plain;
        let tag = tag.map_or(TagRef::None, |t| TagRef::new(&t.handle, &t.suffix));
        if self.expects_key() {
            self.key(text, plain, tag, at)?;
            // How a key was quoted shows only where kustomize copies its mapping into
            // YAML text (a v5.8 replacement).
            if !plain
                && self.schema == Schema::Resource
                && let Some((map, i)) = self.pending_value()
            {
                map.set_key_quote_at(i, quote_of(style));
            }
            return Ok(());
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
            let text_empty = text.is_empty();
            // In a patch, a null annotation (`a: null`, `a: ~`, `a:`) deletes it.
            let null = self.ctx.patch
                && resolve::resolve(text.clone(), plain, tag, self.schema)
                    .is_ok_and(|r| matches!(r.node, Node::Null));
            let node = if null { Node::Null } else { Node::text(text) };
            if !null
                && plain
                && tag == TagRef::None
                && text_empty
                && self.schema == Schema::Resource
            {
                // Written as nothing: it prints as "", but a strategic merge drops
                // it as it drops every field written as nothing.
                self.note_empty_null();
            }
            self.mark_style(if plain {
                crate::yaml::map::Style::PlainText
            } else {
                crate::yaml::map::Style::Quoted(quote_of(style))
            });
            return self.attach(node, size, at, false);
        }
        let empty = text.is_empty();
        // A plain number or boolean in a resource keeps the text it was written as when
        // kbuild would spell the value otherwise (`1.50`, `0x1F`, `False`; see
        // `Map::typed_text`); only texts that can start one are kept aside, before they
        // are resolved.
        // (`!!int 0x10` too: kyaml keeps the tag and the text, and a var converts the text.)
        let typed_text = (plain
            && matches!(tag, TagRef::None | TagRef::Core("int" | "float"))
            && self.schema == Schema::Resource
            && text.as_bytes().first().is_some_and(|b| {
                b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'T' | b'F')
            }))
        .then(|| text.clone());
        let Resolved { mut node, kind } =
            resolve::resolve(text, plain, tag, self.schema).map_err(|m| self.ctx.error(at, m))?;
        if let Some(text) = typed_text
            && match &node {
                Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_) => {
                    !spelled_as_printed(&node, &text)
                }
                // A timestamp is held as the RFC 3339 text JSON gives it.
                Node::Str(s) => kind == Kind::Timestamp && *s != *text,
                _ => false,
            }
        {
            self.mark_typed_text(&text);
        }
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
            // Not for annotations: kustomize rewrites a resource's annotations from a
            // plain map when it adds its internal ones on load, so their values lose the
            // folded style before any write-and-read could change them.
            Node::Str(s)
                if style == ScalarStyle::Folded
                    && self.schema == Schema::Resource
                    && matches!(kind, Kind::Str | Kind::Custom)
                    && !self.at_annotation_value() =>
            {
                if let Some(value) = folded::round_trip(s) {
                    node = Node::text(value);
                }
            }
            _ => {}
        }
        if !plain {
            self.mark_style(crate::yaml::map::Style::Quoted(quote_of(style)));
        }
        self.attach(node, size, at, false)
    }

    /// The mapping whose value is about to be attached, and that value's position.
    fn pending_value(&mut self) -> Option<(&mut crate::yaml::map::Map, usize)> {
        match self.stack.last_mut() {
            Some(Frame {
                body:
                    Body::Map(MapFrame {
                        map,
                        next: Slot::Value(i),
                        ..
                    }),
                ..
            }) => Some((map, *i)),
            _ => None,
        }
    }

    /// Notes how the mapping value about to be attached was written (see
    /// [`crate::yaml::map::Style`]).
    fn mark_style(&mut self, style: crate::yaml::map::Style) {
        if let Some((map, i)) = self.pending_value() {
            map.set_style_at(i, style);
        }
    }

    /// Keeps the text of the number about to be attached as a mapping value.
    fn mark_typed_text(&mut self, text: &str) {
        if let Some((map, i)) = self.pending_value()
            && let Some((key, _)) = map.get_index(i)
        {
            let key = key.clone();
            map.set_typed_text(&key, text);
        }
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

    /// Adds a completed node to the open collection, or makes it the document.
    pub(super) fn attach(
        &mut self,
        node: Node,
        size: Size,
        at: Marker,
        from_alias: bool,
    ) -> Result<(), Stop> {
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
        // The scanner's spans are empty; its text is ASCII and its quoted scalars have
        // no escapes, so the text's length (with the quotes) is the key's.
        let quotes = if style == ScalarStyle::Plain { 0 } else { 2 };
        if text.len() + quotes > MAX_IMPLICIT_KEY && self.builder.expects_key() {
            // saphyr-parser's run reports it (see MAX_IMPLICIT_KEY).
            return Err(());
        }
        if text.is_empty() && style == ScalarStyle::Plain && self.builder.expects_key() {
            // Whether this empty key is legal depends on a `?` before it: saphyr-parser's
            // run checks that (see EMPTY_KEY).
            return Err(());
        }
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

/// Whether kbuild prints the typed scalar `node` as `text`, the way it was written; decimal
/// integers (nearly every number in a manifest: ports, replicas) are told without
/// formatting the value.
fn spelled_as_printed(node: &Node, text: &str) -> bool {
    if let Node::Int(_) | Node::Uint(_) = node {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'))
            && text != "-0"
        {
            return true;
        }
    }
    node.scalar_string().as_deref() == Some(text)
}

/// How a quoted or block scalar was written.
fn quote_of(style: ScalarStyle) -> crate::yaml::map::Quote {
    use crate::yaml::map::Quote;
    match style {
        ScalarStyle::SingleQuoted => Quote::Single,
        ScalarStyle::Literal => Quote::Literal,
        ScalarStyle::Folded => Quote::Folded,
        _ => Quote::Double,
    }
}
