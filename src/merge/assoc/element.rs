//! kyaml's view of list elements: the texts of scalars and merge keys, its field matcher,
//! and `ElementSetter`, which replaces or deletes the elements that match key values.

use std::borrow::Cow;

use crate::error::Error;
use crate::yaml::Node;

/// The text of a scalar as kyaml compares it (a YAML node's `Value`): mappings and
/// sequences have none.
pub(in crate::merge) fn scalar_text(node: &Node) -> Cow<'_, str> {
    match node {
        Node::Str(s) => Cow::Borrowed(s),
        Node::Int(i) => Cow::Owned(i.to_string()),
        Node::Uint(u) => Cow::Owned(u.to_string()),
        Node::Float(f) => Cow::Owned(crate::yaml::emit::format_float(*f)),
        Node::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Node::Null => Cow::Borrowed("null"),
        Node::Seq(_) | Node::Map(_) => Cow::Borrowed(""),
    }
}

/// A key's value in an element, as kyaml lists them: empty for a missing, null or empty
/// field, and for elements that are not mappings.
pub(in crate::merge) fn key_value<'n>(element: &'n Node, key: &str) -> Cow<'n, str> {
    match element.get(key) {
        None | Some(Node::Null) => Cow::Borrowed(""),
        Some(Node::Map(m)) if m.is_empty() => Cow::Borrowed(""),
        Some(Node::Seq(s)) if s.is_empty() => Cow::Borrowed(""),
        Some(v) => scalar_text(v),
    }
}

pub(super) fn is_null_or_empty_map(node: &Node) -> bool {
    match node {
        Node::Null => true,
        Node::Map(m) => m.is_empty(),
        _ => false,
    }
}

pub(super) fn wrong_kind(expected: &str, node: &Node) -> Error {
    Error::invalid_patch(format!(
        "wrong node kind: expected {expected} but got {}",
        node.type_name()
    ))
}

/// kyaml's field matcher: does `element` have field `name` (with text `value`, unless
/// `value` is empty)? With an empty name it compares a scalar element itself.
fn field_matches(element: &Node, name: &str, value: &str) -> Result<bool, Error> {
    match element {
        Node::Null => Ok(false),
        Node::Map(m) if !name.is_empty() => Ok(m
            .get(name)
            .is_some_and(|v| value.is_empty() || scalar_text(v) == value)),
        Node::Map(_) | Node::Seq(_) if name.is_empty() => Err(wrong_kind("scalar", element)),
        _ if name.is_empty() => Ok(scalar_text(element) == value),
        _ => Err(wrong_kind("mapping", element)),
    }
}

/// kyaml's `ElementSetter`: replaces every element that matches all key/value pairs with
/// `element` (deletes them when there is none), appends `element` when nothing matched, and
/// drops null and empty-mapping elements on the way. A value list shorter than the key list
/// checks only its length's worth of keys; an empty one matches nothing and keeps nothing.
pub(in crate::merge) struct ElementSetter<'a> {
    pub(in crate::merge) keys: &'a [&'a str],
    pub(in crate::merge) values: &'a [&'a str],
}

impl ElementSetter<'_> {
    fn is_mapping_setter(&self) -> bool {
        self.keys.first().is_some_and(|k| !k.is_empty())
            && self.values.first().is_some_and(|v| !v.is_empty())
    }

    fn matches(&self, element: &Node) -> Result<bool, Error> {
        let mut found = false;
        for j in 0..self.keys.len() {
            if let Some(value) = self.values.get(j) {
                found = field_matches(element, self.keys[j], value)?;
            }
            if !found {
                return Ok(false);
            }
        }
        Ok(found)
    }

    /// Sets (or with `None`, deletes) an element of a list of handles; `nodes` resolves them.
    pub(super) fn set<T: Clone>(
        &self,
        list: &mut Vec<T>,
        element: Option<T>,
        nodes: &impl Resolve<T>,
    ) -> Result<(), Error> {
        let mut kept = Vec::with_capacity(list.len() + 1);
        let mut found_any = false;
        for e in list.drain(..) {
            let n = nodes.node(&e);
            if is_null_or_empty_map(n) {
                continue;
            }
            if !matches!(n, Node::Map(_)) && self.is_mapping_setter() {
                kept.push(e);
                continue;
            }
            if !self.matches(n)? {
                if !self.values.is_empty() {
                    kept.push(e);
                }
                continue;
            }
            found_any = true;
            if let Some(element) = &element {
                kept.push(element.clone());
            }
        }
        *list = kept;
        if let Some(element) = element.filter(|e| !found_any && !nodes.node(e).is_null()) {
            list.push(element);
        }
        Ok(())
    }

    /// Deletes the matching elements of a list of nodes.
    pub(in crate::merge) fn delete(&self, list: &mut Vec<Node>) -> Result<(), Error> {
        self.set(list, None, &Direct)
    }
}

/// How the element setter gets from a list entry to its node.
pub(super) trait Resolve<T> {
    fn node<'x>(&'x self, entry: &'x T) -> &'x Node;
}

/// Entries are the nodes.
struct Direct;

impl Resolve<Node> for Direct {
    fn node<'x>(&'x self, entry: &'x Node) -> &'x Node {
        entry
    }
}

/// Entries are indexes into an arena.
pub(super) struct InArena<'n>(pub(super) &'n [Node]);

impl Resolve<usize> for InArena<'_> {
    fn node<'x>(&'x self, entry: &'x usize) -> &'x Node {
        &self.0[*entry]
    }
}

/// Parses a key value the way YAML reads an untagged plain scalar, for the key kyaml sets
/// on a merged element that lacks it.
pub(super) fn plain_scalar(text: &str) -> Node {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Node::Null,
        "true" | "True" | "TRUE" => return Node::Bool(true),
        "false" | "False" | "FALSE" => return Node::Bool(false),
        _ => {}
    }
    if let Ok(i) = text.parse::<i64>() {
        return Node::Int(i);
    }
    let numeric = text
        .bytes()
        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
    match text.parse::<f64>() {
        Ok(f) if numeric && text.bytes().any(|b| b.is_ascii_digit()) => Node::Float(f),
        _ => Node::text(text.to_string()),
    }
}
