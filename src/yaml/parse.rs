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
//!
//! Layout: this file holds the public entry points; `stream` splits and checks streams and
//! parses one piece, `builder` turns events into nodes, `keys` converts and inserts map
//! keys, `anchors` expands aliases within bounds, `merge_keys` applies `<<`, `position`
//! maps positions and builds errors. `resolve`, `timestamp` and `folded` resolve scalars;
//! `fast` is a scanner for the common subset of YAML.

mod anchors;
mod builder;
mod fast;
mod folded;
mod keys;
mod merge_keys;
mod position;
mod resolve;
mod stream;
mod styled;
mod timestamp;

use super::Node;
use crate::error::Error;
use rayon::prelude::*;
use resolve::Schema;
use std::borrow::Cow;
use stream::{check_characters, parse_piece, split_documents};

/// Deepest nesting of mappings and sequences accepted, counting aliased content where it
/// is expanded. Real manifests stay far below; the bound keeps every recursive consumer
/// of [`Node`] (emitter, merges, `Drop`) within a small stack.
pub const MAX_DEPTH: usize = 512;

/// Most nodes one document may gain from expanding aliases (a "billion laughs" guard).
pub const MAX_ALIAS_NODES: usize = 1_000_000;

/// Most bytes of scalar text one document may gain from expanding aliases.
pub const MAX_ALIAS_BYTES: usize = 64 << 20;

pub(crate) use stream::Piece;

/// `text` split into its documents the way the build splits a stream (kustomize's
/// `splitDocuments`); `None` for a separator line the build refuses.
pub(crate) fn split_stream(text: &str) -> Option<Vec<Piece<'_>>> {
    split_documents(text, "").ok()
}

/// Gives `f` saphyr-parser's events for `text` (one document, a [`Piece`]'s) with
/// their positions (lines counted from the piece's first), read by the build's fast
/// scanner: `false` when the scanner gives up on the text (`f` may have seen some of its
/// events), as it does on anything but the plain block YAML most manifests are.
pub(crate) fn scan_fast<'i>(
    text: &'i str,
    f: &mut impl FnMut(saphyr_parser::Event<'i>, saphyr_parser::Span),
) -> bool {
    fast::scan(text, &mut |event, span| {
        f(event, span);
        Ok(())
    })
    .is_ok()
}

/// The first document of `text` (tests only: panics on bad YAML).
#[cfg(test)]
pub(crate) fn first_doc(text: &str) -> Node {
    parse_stream(text, "test").expect("yaml").remove(0)
}

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
    /// A mapping key.
    Key(String),
    /// A position in a sequence (0-based).
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

/// kyaml's `IsValueNonString`: whether go-yaml v2 (YAML 1.1) reads `text`, as a whole
/// document, as something other than a string (`True`, `on`, `1e3`, `0x1F`, `~`; not a
/// timestamp, which v2 gives as a string). Empty and multi-line texts count as strings,
/// as there. Texts that read as a mapping, a list or nothing at all are approximated by
/// their first characters.
pub(crate) fn is_yaml11_non_string(text: &str) -> bool {
    let bytes = text.as_bytes();
    // This runs for every plain string a strategic merge walks: byte searches (memchr)
    // rather than substring searchers.
    if bytes.is_empty() || memchr::memchr(b'\n', bytes).is_some() {
        return false;
    }
    if text.starts_with('#') || text.starts_with("- ") || text == "-" {
        return true;
    }
    let colon_space =
        memchr::memchr_iter(b':', bytes).any(|i| matches!(bytes.get(i + 1), None | Some(b' ')));
    if colon_space {
        return true;
    }
    // Only these first bytes lead go-yaml v2's resolver anywhere but a string.
    if !matches!(
        text.as_bytes()[0],
        b'y' | b'Y'
            | b'n'
            | b'N'
            | b't'
            | b'T'
            | b'f'
            | b'F'
            | b'o'
            | b'O'
            | b'~'
            | b'.'
            | b'+'
            | b'-'
            | b'0'..=b'9' | b' '
    ) {
        return false;
    }
    resolve::resolve(
        Cow::Borrowed(text.trim()),
        true,
        TagRef::None,
        Schema::Kustomization,
    )
    .is_ok_and(|r| !matches!(r.node, Node::Str(_)))
}

pub(crate) use resolve::TagRef;

/// Resolves a scalar of a resource-like text (go-yaml v3, then JSON): `plain` is false
/// for quoted and block scalars; the error is go-yaml's for a tag the text does not fit.
pub(crate) fn resolve_resource(text: &str, plain: bool, tag: TagRef<'_>) -> Result<Node, String> {
    resolve::resolve(Cow::Borrowed(text), plain, tag, Schema::Resource).map(|r| r.node)
}

/// go-yaml v3's `resolve("", text)`: the short tag plain text resolves to (`!!str`,
/// `!!int`, `!!float`, `!!bool`, `!!null` or `!!timestamp`). (The parser gives a plain
/// `<<` the tag `!!merge` itself; `resolve` reads it as a string.)
pub(crate) fn plain_tag(text: &str) -> &'static str {
    match resolve::plain_kind(text) {
        resolve::Kind::Null => "!!null",
        resolve::Kind::Bool => "!!bool",
        resolve::Kind::Int | resolve::Kind::Uint => "!!int",
        resolve::Kind::Float => "!!float",
        resolve::Kind::Timestamp => "!!timestamp",
        resolve::Kind::Str | resolve::Kind::Binary | resolve::Kind::Custom => "!!str",
    }
}

/// The documents of a strategic-merge patch stream as go-yaml v3 nodes (each scalar's
/// text, tag and style), one per document [`parse_patch_stream`] gives as a non-empty
/// mapping, in order. Read again only where the text a number was written as matters.
pub(crate) fn parse_styled_patch_docs(
    text: &str,
    source: &str,
) -> Result<Vec<crate::yaml::styled::Styled>, Error> {
    check_characters(text, source)?;
    let mut docs = Vec::new();
    for piece in split_documents(text, source)? {
        if let Some(root) = styled::parse(piece.text, source)?.root
            && matches!(&root.kind, crate::yaml::styled::Kind::Map(pairs) if !pairs.is_empty())
        {
            docs.push(root);
        }
    }
    Ok(docs)
}

/// Parses YAML (or JSON) text held in a string the way go-yaml v3 reads it into a
/// `yaml.Node` (see [`crate::yaml::styled`]); `source` names it in errors.
pub fn parse_styled(text: &str, source: &str) -> Result<crate::yaml::styled::Parsed, Error> {
    styled::parse(text, source)
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

#[cfg(test)]
mod tests;

/// The YAML files the parser's tests read: the project's fixtures and examples, and the
/// directories named in `KBUILD_FAST_CORPUS`.
#[cfg(test)]
pub(crate) mod test_files {
    /// The directories in `KBUILD_FAST_CORPUS` (`:`-separated), when it is set.
    pub(crate) fn extra_corpus() -> Vec<std::path::PathBuf> {
        std::env::var("KBUILD_FAST_CORPUS")
            .map(|v| {
                v.split(':')
                    .filter(|d| !d.is_empty())
                    .map(std::path::PathBuf::from)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Calls `each` with the path and text of every YAML file under `dirs`.
    pub(crate) fn for_each_yaml_file(
        dirs: Vec<std::path::PathBuf>,
        mut each: impl FnMut(&std::path::Path, &str),
    ) {
        for dir in dirs {
            for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
                let p = entry.path();
                if !p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                    continue;
                }
                if let Ok(text) = std::fs::read_to_string(p) {
                    each(p, &text);
                }
            }
        }
    }
}
