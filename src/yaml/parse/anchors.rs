//! Anchors and aliases: what an anchor refers to, expanding aliases, and the bounds on
//! that expansion (node, byte and nesting budgets).

use crate::yaml::Node;
use saphyr_parser::{Marker, ScalarStyle, Span, Tag};
use std::borrow::Cow;

use super::builder::Builder;
use super::keys::COMPLEX_KEY;
use super::position::{Ctx, Stop};
use super::{MAX_ALIAS_BYTES, MAX_ALIAS_NODES, MAX_DEPTH};

/// How much a node holds, to bound alias expansion and nesting.
#[derive(Clone, Copy, Default)]
pub(super) struct Size {
    pub(super) nodes: usize,
    pub(super) bytes: usize,
    /// Levels of nested collections (0 for a scalar).
    pub(super) height: usize,
}

impl Size {
    pub(super) fn scalar(bytes: usize) -> Size {
        Size {
            nodes: 1,
            bytes,
            height: 0,
        }
    }

    pub(super) fn add(&mut self, child: Size) {
        self.nodes += child.nodes;
        self.bytes += child.bytes;
        self.height = self.height.max(child.height);
    }
}

/// What an anchor refers to. Scalars are kept as text so that an alias used as a map key
/// converts exactly like the original.
pub(super) enum Anchor<'i> {
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

impl<'i, 's> Builder<'i, 's> {
    pub(super) fn set_anchor(&mut self, id: usize, anchor: Anchor<'i>) {
        if self.anchors.len() <= id {
            self.anchors.resize_with(id + 1, || Anchor::Unset);
        }
        self.anchors[id] = anchor;
    }

    pub(super) fn alias(&mut self, id: usize, span: Span) -> Result<(), Stop> {
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

/// Nodes and bytes a document has gained from expanding aliases.
#[derive(Default)]
pub(super) struct AliasBudget {
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
