//! What one step of a build changed in one resource, field by field: the leaves (scalars,
//! and empty mappings and lists) whose value differs between the resource before the step
//! and after it.
//!
//! Provenance is recorded this way, by comparing, rather than by each transformer saying
//! what it wrote: every step of the pipeline (the built-in transformers, patches of every
//! kind, replacements, plugins, helm) is covered the same way, a new transformer cannot be
//! forgotten, and a step that writes a value equal to the old one records nothing, as
//! `explain` should say.

use super::path::{FieldPath, Part, element_parts};
use crate::yaml::Node;

/// One leaf that a step changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The field.
    pub path: FieldPath,
    /// Its value before the step, as text (`None`: it did not exist).
    pub before: Option<String>,
    /// Its value after the step (`None`: the step removed it).
    pub after: Option<String>,
}

/// Every leaf whose value differs between `before` and `after`, in document order.
pub fn changes(before: &Node, after: &Node) -> Vec<Change> {
    let mut out = Vec::new();
    let mut at = FieldPath::default();
    compare(&mut at, Some(before), Some(after), &mut out);
    out
}

/// Every leaf of `node` as set from nothing: what a source or a generator writes.
pub fn created(node: &Node) -> Vec<Change> {
    let mut out = Vec::new();
    collect(&mut FieldPath::default(), node, &mut |path, text| {
        out.push(Change {
            path: path.clone(),
            before: None,
            after: Some(text),
        });
    });
    out
}

/// Every leaf of `node`, with its path and text, in document order.
pub fn leaves(node: &Node) -> Vec<(FieldPath, String)> {
    let mut out = Vec::new();
    collect(&mut FieldPath::default(), node, &mut |path, text| {
        out.push((path.clone(), text));
    });
    out
}

// The path is one stack, pushed and popped on the way down, and copied only for a leaf
// that changed: a step changes few fields of a resource, and most of the comparison is
// of equal subtrees, which `==` settles without building a path (recording a build
// compares every resource after every step).
fn compare(at: &mut FieldPath, before: Option<&Node>, after: Option<&Node>, out: &mut Vec<Change>) {
    if let (Some(b), Some(a)) = (before, after)
        && b == a
    {
        return;
    }
    match (before, after) {
        (Some(Node::Map(b)), Some(Node::Map(a))) if !(b.is_empty() || a.is_empty()) => {
            for (k, bv) in b.iter() {
                at.0.push(Part::Key(k.to_string()));
                compare(at, Some(bv), a.get(k), out);
                at.0.pop();
            }
            for (k, av) in a.iter() {
                if b.get(k).is_none() {
                    at.0.push(Part::Key(k.to_string()));
                    compare(at, None, Some(av), out);
                    at.0.pop();
                }
            }
        }
        (Some(Node::Seq(b)), Some(Node::Seq(a))) if !(b.is_empty() || a.is_empty()) => {
            let (bp, ap) = (element_parts(b), element_parts(a));
            for (part, bv) in bp.iter().zip(b) {
                let av = ap.iter().position(|p| p == part).map(|i| &a[i]);
                at.0.push(part.clone());
                compare(at, Some(bv), av, out);
                at.0.pop();
            }
            for (part, av) in ap.iter().zip(a) {
                if !bp.contains(part) {
                    at.0.push(part.clone());
                    compare(at, None, Some(av), out);
                    at.0.pop();
                }
            }
        }
        (Some(b), Some(a)) if is_leaf(b) && is_leaf(a) => {
            // Unequal (see above).
            out.push(Change {
                path: at.clone(),
                before: Some(text(b)),
                after: Some(text(a)),
            });
        }
        // A leaf became a collection or the other way round, or one side is missing:
        // every leaf of the old value is removed and every leaf of the new one set.
        (b, a) => {
            if let Some(b) = b {
                collect(at, b, &mut |path, text| {
                    out.push(Change {
                        path: path.clone(),
                        before: Some(text),
                        after: None,
                    });
                });
            }
            // (The two sides' leaves never share a path: both leaves is the arm above.)
            if let Some(a) = a {
                collect(at, a, &mut |path, text| {
                    out.push(Change {
                        path: path.clone(),
                        before: None,
                        after: Some(text),
                    });
                });
            }
        }
    }
}

fn collect(at: &mut FieldPath, node: &Node, f: &mut dyn FnMut(&FieldPath, String)) {
    match node {
        Node::Map(m) if !m.is_empty() => {
            for (k, v) in m.iter() {
                at.0.push(Part::Key(k.to_string()));
                collect(at, v, f);
                at.0.pop();
            }
        }
        Node::Seq(items) if !items.is_empty() => {
            for (part, v) in element_parts(items).into_iter().zip(items) {
                at.0.push(part);
                collect(at, v, f);
                at.0.pop();
            }
        }
        leaf => f(at, text(leaf)),
    }
}

fn is_leaf(node: &Node) -> bool {
    match node {
        Node::Map(m) => m.is_empty(),
        Node::Seq(items) => items.is_empty(),
        _ => true,
    }
}

/// A leaf's value as `explain` prints it: a string as itself, other scalars as YAML writes
/// them, an empty mapping or list as `{}` or `[]`.
pub fn text(node: &Node) -> String {
    match node {
        Node::Null => "null".into(),
        Node::Bool(b) => b.to_string(),
        Node::Int(i) => i.to_string(),
        Node::Uint(u) => u.to_string(),
        Node::Float(f) => crate::yaml::emit::format_float_g(*f),
        Node::Str(s) => s.to_string(),
        Node::Seq(_) => "[]".into(),
        Node::Map(_) => "{}".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Node {
        crate::yaml::parse::parse_document(text, "t").expect("yaml")
    }

    fn show(changes: &[Change]) -> Vec<String> {
        changes
            .iter()
            .map(|c| {
                format!(
                    "{} {} -> {}",
                    c.path,
                    c.before.as_deref().unwrap_or("-"),
                    c.after.as_deref().unwrap_or("-")
                )
            })
            .collect()
    }

    #[test]
    fn finds_set_changed_and_removed_leaves() {
        let before = doc("a: 1\nb: {c: x, d: w}\nl: [1, 2]\n");
        let after = doc("a: 2\nb: {c: x}\nl: [1, 2, 3]\ne: {}\n");
        assert_eq!(
            show(&changes(&before, &after)),
            ["a 1 -> 2", "b.d w -> -", "l.2 - -> 3", "e - -> {}"]
        );
    }

    #[test]
    fn follows_named_elements_across_insertions() {
        let before = doc("c:\n- name: web\n  image: a\n");
        let after = doc("c:\n- name: side\n  image: s\n- name: web\n  image: b\n");
        assert_eq!(
            show(&changes(&before, &after)),
            [
                "c.[name=web].image a -> b",
                "c.[name=side].name - -> side",
                "c.[name=side].image - -> s"
            ]
        );
    }

    #[test]
    fn a_collection_replaced_by_a_scalar_is_removal_and_set() {
        let before = doc("a: {b: 1}\n");
        let after = doc("a: 5\n");
        assert_eq!(show(&changes(&before, &after)), ["a.b 1 -> -", "a - -> 5"]);
        assert!(changes(&before, &before).is_empty());
    }
}
