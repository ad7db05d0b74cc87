//! The name of one field of a resource, as `kbuild explain` prints and reads it: kustomize's
//! dotted field-path syntax (`spec.template.spec.containers.[name=web].image`), so that a
//! path printed by explain can be pasted into a replacement's `fieldPaths`, and one taken
//! from a replacement can be asked about.
//!
//! A list element is named by its `name` when the list's elements are mappings with
//! distinct string names (containers, volumes, env, ports of most kinds), so that the name
//! of a field does not change when a patch inserts an element before it; by its index
//! otherwise.

use crate::yaml::Node;
use crate::yaml::node::Str;
use std::fmt;

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// A mapping key (short keys, as most are, are stored inline: a record holds a path
    /// for every leaf of a resource).
    Key(Str),
    /// A list element by position.
    Index(usize),
    /// A list element by the value of one of its fields (`[name=web]`): the field and
    /// the value. Boxed, as it is the rare part: the others then take 32 bytes, not 56.
    Entry(Box<(Str, Str)>),
}

impl Part {
    /// The list element whose `key` holds `value` (`[key=value]`).
    pub fn entry(key: &str, value: &str) -> Part {
        Part::Entry(Box::new((key.into(), value.into())))
    }
}

/// A path from a resource's top to one of its fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldPath(pub Vec<Part>);

impl FieldPath {
    /// `self` with `part` added at the end.
    pub fn child(&self, part: Part) -> FieldPath {
        let mut parts = Vec::with_capacity(self.0.len() + 1);
        parts.extend_from_slice(&self.0);
        parts.push(part);
        FieldPath(parts)
    }

    /// Whether the path names a field at or below `other` (`other` is a prefix).
    pub fn starts_with(&self, other: &FieldPath) -> bool {
        self.0.starts_with(&other.0)
    }

    /// The node the path leads to in `node`.
    pub fn lookup<'n>(&self, node: &'n Node) -> Option<&'n Node> {
        self.0.iter().try_fold(node, |at, part| step(at, part))
    }
}

impl FieldPath {
    /// The same field with list elements named as provenance names them (by a distinct
    /// `name`, else by index; see `element_parts`), read against `node`: `ports.[port=80]`
    /// becomes `ports.0`. `None` when `node` does not have the field.
    pub fn canonical(&self, node: &Node) -> Option<FieldPath> {
        let mut out = Vec::with_capacity(self.0.len());
        let mut at = node;
        for part in &self.0 {
            let next = step(at, part)?;
            out.push(match (at, part) {
                (Node::Seq(items), _) => {
                    let i = items.iter().position(|item| std::ptr::eq(item, next))?;
                    element_parts(items).swap_remove(i)
                }
                _ => part.clone(),
            });
            at = next;
        }
        Some(FieldPath(out))
    }
}

/// The child of `node` that `part` names.
pub(super) fn step<'n>(node: &'n Node, part: &Part) -> Option<&'n Node> {
    match (node, part) {
        (Node::Map(m), Part::Key(k)) => m.get(k),
        (Node::Seq(items), Part::Index(i)) => items.get(*i),
        (Node::Seq(items), Part::Entry(e)) => items
            .iter()
            .find(|item| item.get(&e.0).and_then(Node::as_str) == Some(e.1.as_str())),
        _ => None,
    }
}

/// The fields that identify an element of a list that strategic merge merges by a key
/// other than `name` (a Service's `port`, a container's `containerPort`, a volume
/// mount's `mountPath`, ...).
pub(super) const MERGE_KEYS: [&str; 7] = [
    "port",
    "containerPort",
    "mountPath",
    "devicePath",
    "ip",
    "topologyKey",
    "type",
];

/// How the elements of `items` are named: by the field `name` when every element is a
/// mapping with a distinct string `name`, else by index.
pub(super) fn element_parts(items: &[Node]) -> Vec<Part> {
    let names: Option<Vec<&str>> = items
        .iter()
        .map(|item| item.get("name").and_then(Node::as_str))
        .collect();
    if let Some(names) = names {
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() == names.len() {
            return names.into_iter().map(|n| Part::entry("name", n)).collect();
        }
    }
    (0..items.len()).map(Part::Index).collect()
}

impl FieldPath {
    /// Writes the path as [`Display`](fmt::Display) does, piece by piece (without the
    /// formatting machinery: the provenance document writes a path for every leaf).
    pub fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        for (i, part) in self.0.iter().enumerate() {
            if i > 0 {
                out.write_str(".")?;
            }
            match part {
                // A key holding the delimiter is written in brackets, as kustomize reads it.
                Part::Key(k) if k.contains('.') || k.starts_with('[') => {
                    out.write_str("[")?;
                    out.write_str(k)?;
                    out.write_str("]")?;
                }
                Part::Key(k) => out.write_str(k)?,
                Part::Index(i) => out.write_str(itoa::Buffer::new().format(*i))?,
                Part::Entry(e) => {
                    out.write_str("[")?;
                    out.write_str(&e.0)?;
                    out.write_str("=")?;
                    out.write_str(&e.1)?;
                    out.write_str("]")?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(parts: &[&str]) -> FieldPath {
        FieldPath(parts.iter().map(|p| Part::Key((*p).into())).collect())
    }

    #[test]
    fn prints_kustomize_field_paths() {
        let mut p = keys(&["spec", "containers"]);
        p = p.child(Part::entry("name", "web"));
        p = p.child(Part::Key("image".into()));
        assert_eq!(p.to_string(), "spec.containers.[name=web].image");
        let a = keys(&["metadata", "annotations", "config.kubernetes.io/origin"]);
        assert_eq!(
            a.to_string(),
            "metadata.annotations.[config.kubernetes.io/origin]"
        );
    }

    #[test]
    fn names_elements_by_name_only_when_names_are_distinct() {
        let doc = crate::yaml::parse::parse_document("- name: a\n- name: b\n", "t").expect("yaml");
        let Node::Seq(items) = &doc else { panic!() };
        assert_eq!(element_parts(items)[1], Part::entry("name", "b"));
        let doc = crate::yaml::parse::parse_document("- name: a\n- name: a\n", "t").expect("yaml");
        let Node::Seq(items) = &doc else { panic!() };
        assert_eq!(element_parts(items)[1], Part::Index(1));
    }
}
