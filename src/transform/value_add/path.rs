//! ValueAddTransformer field paths: `/`-separated parts, `[k=v]` list entries,
//! indexes and `-`, walked to the leaf and created where missing.

use super::*;

/// One part of a value-add field path, as kyaml's `PathGetter` reads it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Step {
    /// A map key.
    Field(String),
    /// A list position (Go's `strconv.Atoi`, so `+1` is 1).
    Index(usize),
    /// `-`: the last element.
    Last,
    /// `[key=value]` (first element whose `key` has that text), or `[=value]`
    /// (first element with that text); appended when missing.
    Entry { key: String, value: String },
    /// `[...]` without `=`.
    BadEntry,
    /// `*`.
    Wildcard,
    /// A negative number.
    Negative(i64),
}

impl Step {
    fn parse(part: &str) -> Step {
        if let Some(i) = go_atoi(part) {
            return usize::try_from(i).map_or(Step::Negative(i), Step::Index);
        }
        match part {
            "-" => return Step::Last,
            "*" => return Step::Wildcard,
            _ => {}
        }
        if part.starts_with('[') && part.ends_with(']') {
            let inner = part.strip_suffix(']').unwrap_or(part);
            let inner = inner.strip_prefix('[').unwrap_or(inner);
            return match inner.split_once('=') {
                Some((k, v)) => Step::Entry {
                    key: k.to_string(),
                    value: v.to_string(),
                },
                None => Step::BadEntry,
            };
        }
        Step::Field(part.to_string())
    }

    /// What a missing field followed by this step is created as: a list
    /// before a list step (`[..]`, a non-negative number), a mapping before
    /// anything else (`-`, `*` and negative numbers included).
    fn container(&self) -> Node {
        match self {
            Step::Entry { .. } | Step::BadEntry | Step::Index(_) => Node::Seq(Vec::new()),
            _ => Node::map(),
        }
    }
}

/// Called on the node a walk reaches: the node, the text of a node the walk
/// created there, and the keys and positions that lead to it.
type SetLeaf<'s> = &'s mut dyn FnMut(&mut Node, Option<&str>, &[PathStep]) -> Result<()>;

/// A value-add `fieldPath`: split on `/` (a backslash before a slash keeps it
/// in the key), each part trimmed, empty parts dropped.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldPath {
    pub(super) steps: Vec<Step>,
}

impl FieldPath {
    pub(crate) fn parse(text: &str) -> FieldPath {
        let steps = split_escaped(text, '/')
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .map(Step::parse)
            .collect();
        FieldPath { steps }
    }

    /// Walks `node` creating what is missing, as kyaml's `LookupCreate` does,
    /// and calls `set` on the node at the end; returns whether it got there.
    /// The walk stops, reaching nothing, at a null (it never looks into one)
    /// and at a list position past the end (positions are never created).
    /// Errors come only from the parts the walk gets to.
    pub(super) fn walk(&self, node: &mut Node, set: SetLeaf) -> Result<bool> {
        self.step(node, 0, None, &mut Vec::new(), set)
    }

    fn step(
        &self,
        node: &mut Node,
        i: usize,
        created: Option<&str>,
        trail: &mut Vec<PathStep>,
        set: SetLeaf,
    ) -> Result<bool> {
        let Some(step) = self.steps.get(i) else {
            set(node, created, trail)?;
            return Ok(true);
        };
        match step {
            Step::Field(name) => {
                let m = match node {
                    Node::Null => return Ok(false),
                    Node::Map(m) => m,
                    other => return Err(wrong_kind(name, "a mapping", other)),
                };
                let mut made = None;
                if !m.contains_key(name.as_str()) {
                    let new = match self.steps.get(i + 1) {
                        Some(next) => next.container(),
                        None => {
                            made = Some("");
                            Node::Null
                        }
                    };
                    m.insert(name.clone(), new);
                }
                let Some(child) = m.get_mut(name.as_str()) else {
                    return Ok(false);
                };
                trail.push(PathStep::Key(name.clone()));
                let r = self.step(child, i + 1, made, trail, set);
                trail.pop();
                r
            }
            Step::Index(idx) => match node {
                Node::Null => Ok(false),
                Node::Seq(items) => match items.get_mut(*idx) {
                    Some(item) => {
                        trail.push(PathStep::Index(*idx));
                        let r = self.step(item, i + 1, None, trail, set);
                        trail.pop();
                        r
                    }
                    None => Ok(false),
                },
                other => Err(wrong_kind(&idx.to_string(), "a list", other)),
            },
            Step::Last => match node {
                Node::Seq(items) if !items.is_empty() => {
                    let last = items.len() - 1;
                    trail.push(PathStep::Index(last));
                    let r = self.step(&mut items[last], i + 1, None, trail, set);
                    trail.pop();
                    r
                }
                Node::Null | Node::Seq(_) => Err(Error::invalid_config(
                    "'-' (the last element) of an empty or null list: kustomize v5.5.0 crashes here (index out of range)",
                )),
                other => Err(wrong_kind("-", "a list", other)),
            },
            Step::Entry { key, value } => {
                let made = key.is_empty().then_some(value.as_str());
                match node {
                    // kyaml appends the new element to the null's (unprinted)
                    // content: the walk goes on, but nothing shows.
                    Node::Null => {
                        let mut scratch = new_element(key, value);
                        self.step(&mut scratch, i + 1, made, &mut Vec::new(), set)
                    }
                    Node::Seq(items) => {
                        let found = items.iter().position(|e| {
                            if key.is_empty() {
                                raw_text(e) == value.as_str()
                            } else {
                                matches!(e, Node::Map(m)
                                    if m.get(key.as_str()).is_some_and(|v| raw_text(v) == value.as_str()))
                            }
                        });
                        let (at, made) = match found {
                            Some(at) => (at, None),
                            None => {
                                items.push(new_element(key, value));
                                (items.len() - 1, made)
                            }
                        };
                        trail.push(PathStep::Index(at));
                        let r = self.step(&mut items[at], i + 1, made, trail, set);
                        trail.pop();
                        r
                    }
                    other => Err(wrong_kind(&format!("[{key}={value}]"), "a list", other)),
                }
            }
            Step::BadEntry => Err(Error::invalid_config(
                "list path element must contain fieldName=fieldValue for element to match",
            )),
            Step::Wildcard => Err(Error::invalid_config(
                "wildcard is not supported in PathGetter",
            )),
            Step::Negative(i) => Err(Error::invalid_config(format!(
                "array index {i} cannot be negative"
            ))),
        }
    }
}

/// The element `[key=value]` appends: `{key: value}`, or the bare value for
/// `[=value]`, the text read as a plain scalar (`[port=80]` makes a number).
fn new_element(key: &str, value: &str) -> Node {
    let v = crate::yaml::parse::resolve_resource_scalar(value, None)
        .unwrap_or_else(|_| Node::text(value));
    if key.is_empty() {
        v
    } else {
        Node::Map([(key.to_string(), v)].into_iter().collect())
    }
}

fn wrong_kind(part: &str, want: &str, found: &Node) -> Error {
    Error::invalid_config(format!(
        "cannot apply '{part}': expected {want}, found a {}",
        found.type_name()
    ))
}
