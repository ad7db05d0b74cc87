//! Reading YAML text into [`Styled`] nodes, the way go-yaml v3's `yaml.Unmarshal`
//! into a `yaml.Node` reads it: the first document only (later ones are not even
//! scanned), tags as written or resolved from plain text, quoting and block
//! styles, flow collections, keys in order and repeated keys kept.

use saphyr_parser::{Event, Parser, ScalarStyle as Saphyr, ScanError, Span, Tag};

use super::position::{Ctx, Source, Stop};
use super::stream::{TAB_AFTER_COLON, check_characters, untab_after_colon};
use super::{MAX_DEPTH, plain_tag};
use crate::error::Error;
use crate::yaml::styled::{Kind, Parsed, ScalarStyle, Style, Styled};

/// Parses `text` (named `source` in errors). Anchors and aliases are refused
/// (kbuild does not keep them); comments are reported in [`Parsed::has_comments`].
pub(super) fn parse(text: &str, source: &str) -> Result<Parsed, Error> {
    check_characters(text, source)?;
    let ctx = Ctx {
        source,
        line_offset: 0,
        patch: false,
    };
    // saphyr-parser refuses a tab between `:` and a value, which go-yaml
    // accepts: retry with the tab made a space, as the resource reader does.
    let mut patched: Option<String> = None;
    for _ in 0..64 {
        let current = patched.as_deref().unwrap_or(text);
        match build(current, ctx) {
            Ok(parsed) => return Ok(parsed),
            Err(Stop::Error(e)) => return Err(e),
            Err(Stop::TabAfterColon { index, error }) => {
                let mut s = patched.take().unwrap_or_else(|| text.to_string());
                if !untab_after_colon(&mut s, index) {
                    return Err(error);
                }
                patched = Some(s);
            }
        }
    }
    Err(Error::Unsupported {
        what: format!("{source}: too many tabs after ':' to read"),
        hint: None,
    })
}

/// An open collection: the node so far and, in a mapping, a key waiting for
/// its value.
struct Frame {
    node: Styled,
    key: Option<Styled>,
}

struct Builder<'c> {
    ctx: Ctx<'c>,
    stack: Vec<Frame>,
    root: Option<Styled>,
    /// Character ranges of the scalars' text, where a `#` is not a comment.
    scalars: Vec<(usize, usize)>,
}

fn build(text: &str, ctx: Ctx<'_>) -> Result<Parsed, Stop> {
    let mut b = Builder {
        ctx,
        stack: Vec::new(),
        root: None,
        scalars: Vec::new(),
    };
    let mut source = Source::new(text);
    let mut parser = Parser::new_from_str(text);
    let mut end = None;
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| scan_error(ctx, &e))?;
        match event {
            Event::DocumentEnd => {
                end = Some(span.end.index());
                break;
            }
            Event::StreamEnd => break,
            Event::Scalar(value, style, anchor, tag) => {
                refuse_anchor(anchor)?;
                b.scalar(&mut source, value.into_owned(), style, tag.as_deref(), span)?;
            }
            Event::SequenceStart(anchor, tag) => {
                refuse_anchor(anchor)?;
                let flow = source.starts_flow(span);
                b.open(false, flow, tag.as_deref(), span)?;
            }
            Event::MappingStart(anchor, tag) => {
                refuse_anchor(anchor)?;
                let flow = source.starts_flow(span);
                b.open(true, flow, tag.as_deref(), span)?;
            }
            Event::SequenceEnd | Event::MappingEnd => b.close(),
            Event::Alias(_) => {
                return Err(unsupported(
                    "an alias (`*name`) in YAML text a replacement writes into",
                ));
            }
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => {}
        }
    }
    let has_comments = has_comments(text, end, &b.scalars);
    Ok(Parsed {
        root: b.root,
        has_comments,
    })
}

fn scan_error(ctx: Ctx<'_>, e: &ScanError) -> Stop {
    let at = *e.marker();
    match ctx.error(at, e.info()) {
        Stop::Error(error) if e.info() == TAB_AFTER_COLON => Stop::TabAfterColon {
            index: at.index(),
            error,
        },
        stop => stop,
    }
}

fn unsupported(what: &str) -> Stop {
    Stop::Error(Error::Unsupported {
        what: format!("kbuild does not keep anchors and aliases: {what}"),
        hint: Some("write the text without anchors and aliases".into()),
    })
}

/// go-yaml's short form of a tag: `!!x` for the core tags, as written
/// otherwise; the non-specific `!` is no tag.
fn short_tag(tag: Option<&Tag>) -> Option<String> {
    let t = tag?;
    let full = format!("{}{}", t.handle, t.suffix);
    if full == "!" {
        return None;
    }
    Some(match full.strip_prefix(crate::yaml::styled::CORE) {
        Some(core) => format!("!!{core}"),
        None => full,
    })
}

fn refuse_anchor(anchor: usize) -> Result<(), Stop> {
    if anchor != 0 {
        return Err(unsupported(
            "an anchor (`&name`) in YAML text a replacement writes into",
        ));
    }
    Ok(())
}

impl Builder<'_> {
    fn scalar(
        &mut self,
        source: &mut Source<'_>,
        mut value: String,
        style: Saphyr,
        tag: Option<&Tag>,
        span: Span,
    ) -> Result<(), Stop> {
        if style == Saphyr::DoubleQuoted && source.has_slash_escape(span) {
            // YAML 1.2 added `\/`; go-yaml's YAML 1.1 scanner rejects it.
            return Err(self.ctx.error(
                span.start,
                "found unknown escape character `\\/` (write `/`)",
            ));
        }
        let block = matches!(style, Saphyr::Literal | Saphyr::Folded);
        if block && value.ends_with('\n') && source.ends_unterminated_at(span) {
            // go-yaml keeps no final line break when the block's last line ends
            // the text without one; saphyr-parser adds one.
            value.pop();
        }
        // A block scalar's span is its content (a comment after `|` is outside).
        self.scalars.push((span.start.index(), span.end.index()));
        let scalar = match style {
            Saphyr::Plain => ScalarStyle::Plain,
            Saphyr::SingleQuoted => ScalarStyle::SingleQuoted,
            Saphyr::DoubleQuoted => ScalarStyle::DoubleQuoted,
            Saphyr::Literal => ScalarStyle::Literal,
            Saphyr::Folded => ScalarStyle::Folded,
        };
        let written = short_tag(tag);
        let tag = match &written {
            Some(t) => t.clone(),
            // go-yaml's parser tags a plain `<<` as a merge key, wherever it is.
            None if scalar == ScalarStyle::Plain && value == "<<" => "!!merge".to_string(),
            None if scalar == ScalarStyle::Plain => plain_tag(&value).to_string(),
            None => "!!str".to_string(),
        };
        self.attach(Styled {
            tag,
            style: Style {
                tagged: written.is_some(),
                scalar,
                flow: false,
            },
            kind: Kind::Scalar(value),
        });
        Ok(())
    }

    fn open(&mut self, map: bool, flow: bool, tag: Option<&Tag>, span: Span) -> Result<(), Stop> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.ctx.error(
                span.start,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        let written = short_tag(tag);
        let mut node = Styled::empty_collection(map);
        node.tag = written
            .clone()
            .unwrap_or_else(|| if map { "!!map" } else { "!!seq" }.to_string());
        node.style = Style {
            tagged: written.is_some(),
            scalar: ScalarStyle::Plain,
            flow,
        };
        self.stack.push(Frame { node, key: None });
        Ok(())
    }

    fn close(&mut self) {
        if let Some(frame) = self.stack.pop() {
            self.attach(frame.node);
        }
    }

    fn attach(&mut self, node: Styled) {
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(node);
            return;
        };
        match &mut top.node.kind {
            Kind::Seq(items) => items.push(node),
            Kind::Map(pairs) => match top.key.take() {
                Some(key) => pairs.push((key, node)),
                None => top.key = Some(node),
            },
            Kind::Scalar(_) => {}
        }
    }
}

/// Whether the text of the first document (up to the character `end`) holds a
/// `#` that starts a comment: at the start of a line or after a blank, outside
/// every scalar's text.
fn has_comments(text: &str, end: Option<usize>, scalars: &[(usize, usize)]) -> bool {
    let mut ranges = scalars.to_vec();
    ranges.sort_unstable();
    let mut next = 0;
    let mut previous = '\n';
    for (i, c) in text.chars().enumerate() {
        if end.is_some_and(|e| i >= e) {
            break;
        }
        if c == '#' && matches!(previous, '\n' | '\r' | ' ' | '\t') {
            while next < ranges.len() && ranges[next].1 <= i {
                next += 1;
            }
            let inside = ranges[next..]
                .iter()
                .take_while(|(s, _)| *s <= i)
                .any(|(s, e)| *s <= i && i < *e);
            if !inside {
                return true;
            }
        }
        previous = c;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> Parsed {
        parse(text, "test").expect("parses")
    }

    #[test]
    fn keeps_styles_tags_and_order() {
        let p = parse_ok("b: 'x'\na: [1, \"2\"]\nc: !!str 3\nd: |\n  l\n");
        let Some(Styled {
            kind: Kind::Map(pairs),
            ..
        }) = p.root
        else {
            panic!("a mapping");
        };
        let keys: Vec<_> = pairs.iter().filter_map(|(k, _)| k.text()).collect();
        assert_eq!(keys, ["b", "a", "c", "d"]);
        assert_eq!(pairs[0].1.style.scalar, ScalarStyle::SingleQuoted);
        assert_eq!(pairs[0].1.tag, "!!str");
        assert!(pairs[1].1.style.flow);
        let Kind::Seq(items) = &pairs[1].1.kind else {
            panic!("a sequence");
        };
        assert_eq!(items[0].tag, "!!int");
        assert_eq!(items[1].tag, "!!str");
        assert!(pairs[2].1.style.tagged);
        assert_eq!(pairs[3].1.text(), Some("l\n"));
        assert!(!p.has_comments);
    }

    #[test]
    fn first_document_only_and_empty_texts() {
        assert_eq!(parse_ok("").root, None);
        assert_eq!(parse_ok("# only a comment\n").root, None);
        let p = parse_ok("a: 1\n---\nb: [\n");
        assert!(p.root.is_some());
        assert!(parse("a: [\n", "test").is_err());
        assert!(parse("{\"a\": \"\\ud83d\"}", "test").is_err());
    }

    #[test]
    fn finds_comments_outside_scalars() {
        assert!(parse_ok("a: 1 # note\n").has_comments);
        assert!(parse_ok("# head\na: 1\n").has_comments);
        assert!(parse_ok("a: | # header\n  x\n").has_comments);
        assert!(parse_ok("a: [1, # in flow\n  2]\n").has_comments);
        assert!(!parse_ok("a: 'x # y'\nb: \"#\"\nc: x#y\nd: |\n  # text\n").has_comments);
        assert!(!parse_ok("a: 1\n---\n# later document\n").has_comments);
    }

    #[test]
    fn refuses_anchors_and_aliases() {
        assert!(parse("a: &x 1\nb: *x\n", "test").is_err());
    }
}
