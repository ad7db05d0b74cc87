//! The output budget of a build: how many bytes the build may produce, in total.
//!
//! A few kustomization fields multiply what they are given: `commonAnnotations`
//! and `labels` write their values into every resource, a replacement copies its
//! source into every target, a targeted patch (and a JSON patch's `copy`) is copied into
//! what it patches, vars expand `$(NAME)` as often as it is written, and generators turn
//! files into resources. A small input can so ask for gigabytes (a 1 MB annotation on
//! 3,000 resources is 3 GB), and a build that tries runs out of memory. Each such field
//! charges the bytes it creates here before or as it creates them, and the build stops
//! with an error naming the field once the total passes the limit
//! (`BuildOptions::max_output_bytes`, `--max-output-bytes`). What the output is otherwise
//! made of is charged too — resource files as they are read, helm charts' output, what
//! plugins add — so the limit bounds the whole output. A charge is one atomic addition per
//! transformer run, generated resource, file, patch target or expanded reference, not per
//! byte.

use crate::error::{Error, Result};
use crate::yaml::Node;
use std::sync::atomic::{AtomicU64, Ordering};

/// The default limit: 256 MiB. Real trees copy kilobytes this way (a few labels on
/// thousands of resources, generated ConfigMaps of a few files); a build failing at
/// the limit has used about twice the limit in memory.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 256 << 20;

/// See the module comment.
#[derive(Debug)]
pub struct Budget {
    limit: u64,
    used: AtomicU64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(DEFAULT_MAX_OUTPUT_BYTES)
    }
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit,
            used: AtomicU64::new(0),
        }
    }

    /// Charges `bytes` created by `field` (as a kustomization names it): an error once
    /// the total passes the limit.
    pub fn charge(&self, bytes: u64, field: &str) -> Result<()> {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) <= self.limit {
            return Ok(());
        }
        Err(over(self.limit, field))
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// What is left of the limit, in bytes (to bound what a plugin or helm may print
    /// before its output is parsed and charged).
    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used.load(Ordering::Relaxed))
    }
}

/// About how many bytes `node` prints as: its keys and scalar text, plus two spaces of
/// indentation per level for each entry (a deep value copied into a deep place prints
/// quadratically more than its text: a chain of replacements each copying the last
/// one's target 400 levels deeper once printed 1.6 GB from a 40 KB input). Walks with a
/// stack of its own: a node may be as deep as the parser and replacements allow.
pub fn node_bytes(node: &Node) -> u64 {
    let mut total = 0u64;
    let mut pending = vec![(node, 0u64)];
    while let Some((n, depth)) = pending.pop() {
        let indent = 2 * depth;
        total += match n {
            Node::Str(s) => s.len() as u64,
            Node::Seq(items) => {
                pending.extend(items.iter().map(|i| (i, depth + 1)));
                items.len() as u64 * (indent + 2) + 2
            }
            Node::Map(m) => {
                let mut keys = 0;
                for (k, v) in m.iter() {
                    keys += k.len() as u64 + 2 + indent;
                    pending.push((v, depth + 1));
                }
                keys
            }
            Node::Null | Node::Bool(_) | Node::Int(_) | Node::Uint(_) | Node::Float(_) => 8,
        };
    }
    total
}

/// How deeply `node`'s mappings and lists nest (0 for a scalar), without recursion.
pub fn node_depth(node: &Node) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(node, 0usize)];
    while let Some((n, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        match n {
            Node::Seq(items) => pending.extend(items.iter().map(|i| (i, depth + 1))),
            Node::Map(m) => pending.extend(m.iter().map(|(_, v)| (v, depth + 1))),
            _ => {}
        }
    }
    deepest
}

/// How deep a value a build may make (replacements can copy a deep value into a deep
/// place, again and again): the parser's limit for input (512) twice over, so any one
/// replacement of parsed values fits. The emitter, copies and comparisons of nodes recurse
/// over depth, so it is bounded; kustomize has no limit.
pub const MAX_BUILT_DEPTH: usize = 1024;

/// The error for a value nested past [`MAX_BUILT_DEPTH`] by `field`.
pub fn too_deep(depth: usize, field: &str) -> Error {
    Error::limit(
        format!(
            "{field} would nest a value {depth} levels deep, past kbuild's limit of {MAX_BUILT_DEPTH}"
        ),
        "a replacement that copies a field into a place below itself, or a chain of such replacements, deepens the value each time; copy a leaf field instead",
    )
}

/// The error for a build past `limit` bytes because of `field`.
pub fn over(limit: u64, field: &str) -> Error {
    Error::limit(
        format!(
            "the build would produce more than {limit} bytes: {field} takes the output past its budget"
        ),
        "if output this large is expected, raise --max-output-bytes (BuildOptions::max_output_bytes); otherwise look for a large value copied into many resources",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_add_up_to_the_limit() {
        let b = Budget::new(10);
        assert!(b.charge(6, "vars").is_ok());
        assert!(b.charge(4, "vars").is_ok());
        let e = b.charge(1, "commonAnnotations").unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Limit);
        assert!(e.to_string().contains("commonAnnotations"), "{e}");
        assert!(Budget::new(u64::MAX).charge(u64::MAX, "x").is_ok());
    }

    #[test]
    fn bytes_and_depth_count_nesting() {
        let flat = crate::yaml::parse::parse_document("a: x\nb: z\n", "t").unwrap();
        assert_eq!(node_bytes(&flat), 3 + 1 + 3 + 1);
        assert_eq!(node_depth(&flat), 1);
        let deep = crate::yaml::parse::parse_document("a:\n  b:\n    c: x\n", "t").unwrap();
        // a (3), b at depth 1 (3 + 2), c at depth 2 (3 + 4), x.
        assert_eq!(node_bytes(&deep), 3 + 5 + 7 + 1);
        assert_eq!(node_depth(&deep), 3);
        assert_eq!(node_depth(&Node::text("x")), 0);
    }
}
