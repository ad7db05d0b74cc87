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
//!
//! Layout: this file holds the entry points; `emitter` has the state and the walk over nodes,
//! `style` chooses each string's style from `analysis`, `scalar` writes scalars in it (with
//! `escape`; `analysis` and `escape` also serve go-yaml v3's emitter, `styled::emit`); `key_order` sorts
//! mapping keys, `number` formats floats and `resolve` tells which strings need quotes.

pub(super) mod analysis;
mod emitter;
pub(super) mod escape;
mod key_order;
mod number;
mod resolve;
mod scalar;
mod style;

use super::Node;

pub use number::{format_float, format_float_g};
pub(crate) use resolve::is_base60_float;
pub use style::json_round_trip;

use emitter::{Context, Emitter};

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
    emit_run(docs, true)
}

/// The stream for borrowed documents (the concatenation of [`emit_stream_parts`]).
pub fn emit_stream_refs(docs: &[&Node]) -> String {
    let mut parts = emit_stream_parts(docs);
    if parts.len() == 1 {
        return parts.swap_remove(0);
    }
    parts.concat()
}

/// The stream for borrowed documents in pieces, in order: the stream is their
/// concatenation, the same bytes whatever the thread count. Large streams are written in
/// parallel, a run of documents per piece. (A string per document cost a kilobyte or more
/// per document, most of a large stream's peak memory; one string for the whole stream
/// costs a copy of it, and the page faults of a second buffer its size, when the pieces
/// can be written out one after another.)
pub fn emit_stream_parts(docs: &[&Node]) -> Vec<String> {
    use rayon::prelude::*;
    /// Documents per parallel piece: enough to keep the pieces' overhead small.
    const RUN: usize = 32;
    /// Below this many documents, on this thread: the pool would start its threads for
    /// little (builds with more resources than this have started it already).
    const PARALLEL: usize = 64;
    if docs.len() <= PARALLEL {
        return vec![emit_run(docs.iter().copied(), true)];
    }
    docs.par_chunks(RUN)
        .enumerate()
        .map(|(i, run)| emit_run(run.iter().copied(), i == 0))
        .collect()
}

/// `docs` as part of a stream: each document after a `---` line, except the stream's first.
fn emit_run<'a>(docs: impl IntoIterator<Item = &'a Node>, first: bool) -> String {
    let mut out = String::new();
    for (i, doc) in docs.into_iter().enumerate() {
        if i > 0 || !first {
            out.push_str("---\n");
        }
        emit_document(doc, &mut out);
    }
    out
}

#[cfg(test)]
mod tests;
