//! kustomize's builtin `ValueAddTransformer` (a `transformers:` entry with
//! `apiVersion: builtin`): writes one string value into a field of the selected
//! resources, creating the field when it is missing, or inserts it into a
//! path-like string already there (`filePathPosition`).
//!
//! Behaviour checked against `kubectl kustomize` (kustomize v5.5.0; v5.8.1 renders
//! the same bytes):
//! - `value` is trimmed; when it is empty it defaults to the base name of the
//!   directory of the kustomization listing the transformer.
//! - `targets[]` entries have `selector` (absent: every resource), `fieldPath`
//!   (required: there is no default) and `filePathPosition` (0: replace the
//!   value). `targetFilePath` names a file whose `targets:` are appended.
//! - A `fieldPath` of exactly `metadata/namespace` takes kustomize's namespace
//!   route ([`set_namespace`]), which changes resource ids; any other path is
//!   walked by [`FieldPath`] and set by [`set_leaf`].

use crate::error::{Error, Result};
use crate::kustomization::Selector;
use crate::openapi;
use crate::resource::Resource;
use crate::resource::resmap::{ResMap, id_text};
use crate::resource::selector::Matcher;
use crate::transform::field_path::{go_atoi, split_escaped};
use crate::yaml::Node;
use crate::yaml::parse::PathStep;
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// The one `fieldPath` kustomize hands to its namespace filter instead of the
/// generic walk (compared as written: `/metadata/namespace` takes the walk).
pub const NAMESPACE_PATH: &str = "metadata/namespace";

/// The builtin kind, for messages.
const KIND: &str = "ValueAddTransformer";

/// A `ValueAddTransformer` config as written. Unknown fields are ignored, as
/// kustomize's lenient decoding does.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    #[serde(default)]
    pub value: ConfigText,
    #[serde(default)]
    pub targets: Vec<Target>,
    /// A file (relative to the kustomization) whose `targets:` are appended.
    #[serde(default)]
    pub target_file_path: ConfigText,
}

/// Where to put the value.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// Absent: every resource. Same matching as a patch `target`.
    #[serde(default)]
    pub selector: Option<Selector>,
    /// `/`-separated path; `\/` escapes a slash inside a key.
    #[serde(default)]
    pub field_path: ConfigText,
    /// 0: replace the field's value; n > 0: insert the value as the n-th
    /// element of the path-like string already there.
    #[serde(default)]
    pub file_path_position: Position,
}

/// The targets file named by `targetFilePath`.
#[derive(Debug, Default, Deserialize)]
struct TargetsFile {
    #[serde(default)]
    targets: Vec<Target>,
}

/// A config field Go decodes into a string through sigs.k8s.io/yaml: a number
/// or boolean there becomes its text (`value: 123` is "123", `1.50` is "1.5",
/// floats printed as float32, `1e20` is "1e+20"), null is "", a list or a
/// mapping is an error. Checked with kubectl for `value`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigText(pub String);

impl<'de> Deserialize<'de> for ConfigText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ConfigText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ConfigText, E> {
                Ok(ConfigText(s.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<ConfigText, E> {
                Ok(ConfigText(i.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<ConfigText, E> {
                Ok(ConfigText(u.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<ConfigText, E> {
                if !f.is_finite() {
                    // kustomize cannot turn the config into JSON at all.
                    return Err(E::custom(format!("json: unsupported value: {f}")));
                }
                Ok(ConfigText(crate::yaml::parse::format_float_32(f)))
            }
            fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<ConfigText, E> {
                Ok(ConfigText(b.to_string()))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<ConfigText, E> {
                Ok(ConfigText::default())
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<ConfigText, E> {
                Ok(ConfigText::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// `filePathPosition`, a Go `int` read from JSON: a whole number (a float
/// with no fraction too, as the config passes through JSON), null is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Position(pub i64);

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Position;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer")
            }
            fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Position, E> {
                Ok(Position(i))
            }
            fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Position, E> {
                i64::try_from(u)
                    .map(Position)
                    .map_err(|_| E::custom(format!("{u} does not fit an integer")))
            }
            fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Position, E> {
                if f.fract() == 0.0 && f.abs() < 9.2e18 {
                    Ok(Position(f as i64))
                } else {
                    Err(E::custom(format!("expected an integer, found number {f}")))
                }
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Position, E> {
                Ok(Position(0))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Position, E> {
                Ok(Position(0))
            }
        }
        d.deserialize_any(V)
    }
}

/// A config ready to run (kustomize's `Config` step done).
#[derive(Clone, Debug)]
pub struct ValueAdd {
    /// Trimmed, never empty.
    pub value: String,
    pub targets: Vec<Target>,
}

impl Config {
    /// kustomize's `Config` step: trims `value` and defaults it to the base
    /// name of `root` (the kustomization's directory, as Go's `filepath.Base`
    /// gives it: `/` for the root directory); appends the `targets:` of
    /// `targetFilePath` (read with `read`, relative to the kustomization);
    /// then refuses no targets, an empty `fieldPath` and a negative
    /// `filePathPosition`, in that order. Selectors are not checked here
    /// (kustomize's check is a stub); a bad one fails when the transformer runs.
    pub fn resolve(
        self,
        root: &Path,
        read: &mut dyn FnMut(&str) -> Result<String>,
    ) -> Result<ValueAdd> {
        let mut value = self.value.0.trim().to_string();
        if value.is_empty() {
            value = root
                .file_name()
                .map_or_else(|| "/".to_string(), |n| n.to_string_lossy().into_owned());
        }
        let mut targets = self.targets;
        let file = self.target_file_path.0;
        if !file.is_empty() {
            let ctx = |e: Error| e.context(format!("{KIND}: reading targetFilePath '{file}'"));
            let text = read(&file).map_err(ctx)?;
            // Read like kustomize's sigs.k8s.io/yaml.Unmarshal (go-yaml v2).
            let node = crate::yaml::parse::parse_document(&text, &file).map_err(ctx)?;
            let extra: TargetsFile = crate::yaml::de::from_node_lenient(&node)
                .map_err(|e| ctx(Error::msg(e.to_string())))?;
            targets.extend(extra.targets);
        }
        let bad = |why: String| Err(Error::msg(format!("invalid {KIND} config: {why}")));
        if targets.is_empty() {
            return bad("must specify at least one target".into());
        }
        for t in &targets {
            if t.field_path.0.is_empty() {
                return bad("fieldPath cannot be empty".into());
            }
            if t.file_path_position.0 < 0 {
                return bad(format!(
                    "value of FilePathPosition ({}) cannot be negative",
                    t.file_path_position.0
                ));
            }
        }
        Ok(ValueAdd { value, targets })
    }
}

/// Runs the transformer: each target in turn picks its resources (seeing what
/// earlier targets changed) and sets the value in each of them.
///
/// kustomize does not store a previous id when the namespace route changes an
/// id, and never checks ids here; two resources left with one id make it fail
/// later, when the resources are merged into the including kustomization or
/// printed (a crash at the top). That is refused here, at once (so a later
/// transformer of the same kustomization that would tell the two apart again
/// comes too late: kustomize would accept that).
pub fn apply(rm: &mut ResMap, va: &ValueAdd) -> Result<()> {
    // Only for the message about an id conflict.
    let before: Vec<_> = rm.iter().map(Resource::id).collect();
    for t in &va.targets {
        let picked: Vec<usize> = match &t.selector {
            None => (0..rm.len()).collect(),
            Some(s) => {
                let m = Matcher::new(s).map_err(|e| e.context(format!("{KIND} selector")))?;
                rm.iter()
                    .enumerate()
                    .filter(|(_, r)| m.selects(r))
                    .map(|(i, _)| i)
                    .collect()
            }
        };
        let field_path = &t.field_path.0;
        if field_path == NAMESPACE_PATH {
            for i in picked {
                let res = &mut rm.resources[i];
                set_namespace(res, &va.value)
                    .map_err(|e| e.context(format!("{KIND}: namespace of {}", res.id())))?;
            }
            continue;
        }
        let path = FieldPath::parse(field_path);
        let pos = usize::try_from(t.file_path_position.0).unwrap_or(0);
        for i in picked {
            let res = &mut rm.resources[i];
            let id = res.id();
            add_value(res, &path, &va.value, pos)
                .map_err(|e| e.context(format!("{KIND}: fieldPath '{field_path}' in {id}")))?;
        }
    }
    if let Some((a, b)) = rm.find_conflict() {
        return Err(Error::msg(format!(
            "{KIND}: {} and {} now have the same id {}: kustomize fails on this (may not add resource with an already registered id)",
            before[a],
            before[b],
            id_text(&rm.resources[a].id())
        )));
    }
    Ok(())
}

/// kustomize's namespace filter with no field specs: `metadata.namespace` of
/// namespaced kinds (not a Namespace's own name, which only the namespace
/// transformer's default field specs rename), and the `namespace` of every
/// `subjects` entry whose `name` is `default`, of any subject kind, in any
/// resource whose kind is RoleBinding or ClusterRoleBinding (any group). The
/// value is always a string. No previous id is recorded, so name references
/// see the new namespace as the original one.
pub fn set_namespace(res: &mut Resource, ns: &str) -> Result<()> {
    let gvk = res.gvk();
    if openapi::is_namespaced(&gvk.group, &gvk.version, &gvk.kind)
        && let Some(meta) = res.node.ensure_map(&["metadata"])
    {
        meta.insert("namespace".to_string(), Node::text(ns));
    }
    if gvk.kind != "RoleBinding" && gvk.kind != "ClusterRoleBinding" {
        return Ok(());
    }
    let subjects = match res.node.get_mut("subjects") {
        None | Some(Node::Null) => return Ok(()),
        Some(Node::Seq(items)) => items,
        Some(other) => {
            return Err(Error::msg(format!(
                "subjects must be a list, found a {}",
                other.type_name()
            )));
        }
    };
    for s in subjects {
        let m = match s {
            Node::Null => continue,
            Node::Map(m) => m,
            other => {
                return Err(Error::msg(format!(
                    "a subjects entry must be a mapping, found a {}",
                    other.type_name()
                )));
            }
        };
        let named_default = match m.get("name") {
            None | Some(Node::Null) => false,
            Some(n @ (Node::Map(_) | Node::Seq(_))) => {
                return Err(Error::msg(format!(
                    "a subject's name must be a scalar, found a {}",
                    n.type_name()
                )));
            }
            Some(n) => raw_text(n) == "default",
        };
        if named_default {
            m.insert("namespace".to_string(), Node::text(ns));
        }
    }
    Ok(())
}

/// Sets the value at `path` in one resource (kustomize's valueadd filter).
/// With `pos > 0` and a path that stops early (a null or a missing list
/// element on the way), kustomize v5.5.0 crashes on a nil pointer; that is an
/// error here. With `pos == 0` nothing is set, but containers created on the
/// way stay (`spec/list/0/x` leaves `list: []`).
fn add_value(res: &mut Resource, path: &FieldPath, value: &str, pos: usize) -> Result<()> {
    let Resource {
        node, empty_nulls, ..
    } = res;
    let mut set = |leaf: &mut Node, created: Option<&str>, trail: &[PathStep]| {
        // A field written as nothing (`key:`) has the text "", not "null".
        let empty = created.is_none() && leaf.is_null() && empty_nulls.iter().any(|p| p == trail);
        set_leaf(leaf, created.or(empty.then_some("")), value, pos)
    };
    let reached = path.walk(node, &mut set)?;
    if !reached && pos > 0 {
        return Err(Error::msg(format!(
            "the path stops at a null or a missing list element, so there is no value for filePathPosition {pos} to insert into (kustomize v5.5.0 crashes here: nil pointer dereference)"
        )));
    }
    Ok(())
}

/// Sets one scalar leaf. `created` is the text of a node the walk just made
/// (`""` for a new field, the value for a new `[=value]` element), or of a
/// field written as nothing.
///
/// kustomize swaps in an untagged scalar with the old node's style, and its
/// JSON round trip then resolves it: under a quoted or block style the result
/// is a string; plain (a new field, a null, a number, a plain string) it is
/// read as YAML (`123` a number, `true` a boolean, `null` a null,
/// `2024-01-01` a timestamp string). kbuild keeps no styles: a string leaf
/// counts as quoted only when it could not have been written plain (empty,
/// reads as a non-string, or has characters plain text cannot hold), so a
/// number-like value put into a field written `"abc"` prints unquoted where
/// kustomize keeps it a string.
///
/// With `pos > 0` the old value's text is kustomize's `yaml.Node.Value`, the
/// text as written; kbuild has the parsed value, so a null reads "null" (not
/// `~`), numbers and booleans their canonical text (`31`, not `0x1F`).
pub fn set_leaf(leaf: &mut Node, created: Option<&str>, value: &str, pos: usize) -> Result<()> {
    if let Node::Map(_) | Node::Seq(_) = leaf {
        return Err(Error::msg(format!(
            "expected a scalar at the end of the path, found a {}",
            leaf.type_name()
        )));
    }
    let text = if pos > 0 {
        let old = created.map_or_else(|| raw_text(leaf), Cow::Borrowed);
        insert_path_part(&old, pos - 1, value)
    } else {
        value.to_string()
    };
    let quoted = created.is_none() && matches!(leaf, Node::Str(s) if !could_be_plain(s));
    *leaf = if quoted {
        Node::text(text)
    } else {
        crate::yaml::parse::resolve_resource_scalar(&text, None).map_err(|e| {
            Error::msg(format!(
                "the new value {text:?} reads as a YAML value kustomize cannot print: {e}"
            ))
        })?
    };
    Ok(())
}

/// Whether a string could have been written as a plain YAML scalar (one line,
/// no surrounding blanks, no indicator that starts or breaks plain text, and
/// reading back as the same string).
fn could_be_plain(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace)
        || s.ends_with(':')
        || s.contains(['\n', '\r', '\t'])
        || s.contains(": ")
        || s.contains(" #")
    {
        return false;
    }
    if "[]{},#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if matches!(first, '-' | '?' | ':') && (s.len() == 1 || s[1..].starts_with(' ')) {
        return false;
    }
    matches!(crate::yaml::parse::resolve_resource_scalar(s, None), Ok(Node::Str(r)) if r == s)
}

/// A scalar's text as kustomize compares and edits it (`yaml.Node.Value`):
/// a mapping or list has none.
fn raw_text(n: &Node) -> Cow<'_, str> {
    match n {
        Node::Str(s) => Cow::Borrowed(s.as_str()),
        Node::Null => Cow::Borrowed("null"),
        Node::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Node::Int(i) => Cow::Owned(i.to_string()),
        Node::Uint(u) => Cow::Owned(u.to_string()),
        Node::Float(f) => Cow::Owned(crate::yaml::emit::format_float(*f)),
        Node::Map(_) | Node::Seq(_) => Cow::Borrowed(""),
    }
}

/// One part of a value-add field path, as kyaml's `PathGetter` reads it.
#[derive(Clone, Debug, PartialEq)]
enum Step {
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
pub struct FieldPath {
    steps: Vec<Step>,
}

impl FieldPath {
    pub fn parse(text: &str) -> FieldPath {
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
    fn walk(&self, node: &mut Node, set: SetLeaf) -> Result<bool> {
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
                Node::Null | Node::Seq(_) => Err(Error::msg(
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
            Step::BadEntry => Err(Error::msg(
                "list path element must contain fieldName=fieldValue for element to match",
            )),
            Step::Wildcard => Err(Error::msg("wildcard is not supported in PathGetter")),
            Step::Negative(i) => Err(Error::msg(format!("array index {i} cannot be negative"))),
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
    Error::msg(format!(
        "cannot apply '{part}': expected {want}, found a {}",
        found.type_name()
    ))
}

/// Go's `filepath.Clean` on `/`-separated text.
fn go_clean(path: &str) -> String {
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            _ => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Go's `filepath.Join`: the non-empty elements joined and cleaned, "" when
/// there are none.
fn go_join(parts: &[&str]) -> String {
    match parts.iter().position(|p| !p.is_empty()) {
        Some(first) => go_clean(&parts[first..].join("/")),
        None => String::new(),
    }
}

/// kustomize's `filesys.PathSplit`: `a/b` is `[a, b]`, `/a` is `["", a]`,
/// `/` is `[""]`, `a/` is `[a, ""]`, "" is `[]`.
fn path_split(path: &str) -> Vec<&str> {
    if path.is_empty() {
        return Vec::new();
    }
    let (dir, file) = match path.rfind('/') {
        Some(i) => (&path[..=i], &path[i + 1..]),
        None => ("", path),
    };
    if dir == "/" {
        return if file.is_empty() {
            vec![""]
        } else {
            vec!["", file]
        };
    }
    let dir = dir.strip_suffix('/').unwrap_or(dir);
    if dir.is_empty() {
        return vec![file];
    }
    let mut out = path_split(dir);
    out.push(file);
    out
}

/// kustomize's `filesys.PathJoin`: a leading "" makes the path absolute; the
/// rest goes through `filepath.Join` (so it is cleaned: `a/./b` is `a/b`).
fn path_join(parts: &[&str]) -> String {
    match parts.split_first() {
        None => String::new(),
        Some((&"", rest)) => format!("/{}", go_join(rest)),
        Some(_) => go_join(parts),
    }
}

/// kustomize's `filesys.InsertPathPart`: `part` becomes element `pos` (0-based)
/// of `path`, a position past the end appends; an absolute path stays
/// absolute (its leading `/` is not an element). `a/nice/warm/pie` with
/// `PEACH` at 3 is `a/nice/warm/PEACH/pie`; "" becomes `PEACH`.
pub fn insert_path_part(path: &str, pos: usize, part: &str) -> String {
    if part.is_empty() {
        return path.to_string();
    }
    let parts = path_split(path);
    let mut pos = pos.min(parts.len());
    if parts.first() == Some(&"") && pos < parts.len() {
        pos += 1;
    }
    let mut out: Vec<&str> = Vec::with_capacity(parts.len() + 1);
    out.extend_from_slice(&parts[..pos]);
    out.push(part);
    out.extend_from_slice(&parts[pos..]);
    path_join(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_resource_stream;

    fn resources(text: &str) -> ResMap {
        let mut rm = ResMap::new();
        let mut all = Vec::new();
        for (node, nulls) in parse_resource_stream(text, "test").expect("yaml") {
            let mut r = Resource::new(node).expect("resource");
            r.empty_nulls = nulls;
            all.push(r);
        }
        rm.append_all(all).expect("distinct ids");
        rm
    }

    fn config(text: &str) -> Result<ValueAdd> {
        let node = crate::yaml::parse::parse_document(text, "config").expect("yaml");
        let c: Config = crate::yaml::de::from_node_lenient(&node).expect("decodes");
        c.resolve(Path::new("/work/overlays/prod"), &mut |p| {
            Err(Error::msg(format!("no file {p}")))
        })
    }

    fn run(res: &str, cfg: &str) -> Result<Vec<Node>> {
        let mut rm = resources(res);
        apply(&mut rm, &config(cfg)?)?;
        Ok(rm.resources.into_iter().map(|r| r.node).collect())
    }

    fn get<'n>(n: &'n Node, path: &[&str]) -> Option<&'n Node> {
        n.get_path(path)
    }

    const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  path: a/nice/warm/pie\n  abs: /raw\n  quoted: \"abc\"\n  empty: \"\"\n  blank:\n  nul: null\n  num: 5\n  list: [p, q, \"80\"]\n  map: {}\n";

    /// Examples of kustomize's doc comment and of its tests, plus kubectl runs.
    #[test]
    fn insert_path_part_like_kustomize() {
        let cases = [
            ("", 0, "PEACH"),
            ("", 5, "PEACH"),
            ("/", 0, "/PEACH"),
            ("/", 3, "/PEACH"),
            ("pie", 0, "PEACH/pie"),
            ("/pie", 0, "/PEACH/pie"),
            ("raw", 1, "raw/PEACH"),
            ("/raw", 1, "/raw/PEACH"),
            ("/raw", 9999, "/raw/PEACH"),
            ("a/nice/warm/pie", 3, "a/nice/warm/PEACH/pie"),
            ("/a/nice/warm/pie", 3, "/a/nice/warm/PEACH/pie"),
            ("a/nice/warm/pie", 99, "a/nice/warm/pie/PEACH"),
            ("/var/lib/data", 0, "/PEACH/var/lib/data"),
            ("/data/x", 98, "/data/x/PEACH"),
            // filepath.Join cleans the result.
            ("a/./b//c/", 1, "a/PEACH/b/c"),
            ("a/../b", 0, "PEACH/b"),
            ("x/", 9, "x/PEACH"),
            ("null", 0, "PEACH/null"),
        ];
        for (path, pos, want) in cases {
            assert_eq!(
                insert_path_part(path, pos, "PEACH"),
                want,
                "{path} at {pos}"
            );
        }
        assert_eq!(insert_path_part("a/b", 1, ""), "a/b");
    }

    #[test]
    fn path_split_like_kustomize() {
        assert_eq!(path_split("a/b"), ["a", "b"]);
        assert_eq!(path_split("/a"), ["", "a"]);
        assert_eq!(path_split("/"), [""]);
        assert_eq!(path_split("a/"), ["a", ""]);
        assert_eq!(path_split("a//b"), ["a", "", "b"]);
        assert!(path_split("").is_empty());
    }

    #[test]
    fn parses_paths_like_kyaml() {
        let p = FieldPath::parse(r" spec / a\/b //[name=x]/0/-/*/[k]/-2/[=v] ");
        assert_eq!(
            p.steps,
            [
                Step::Field("spec".into()),
                Step::Field("a/b".into()),
                Step::Entry {
                    key: "name".into(),
                    value: "x".into()
                },
                Step::Index(0),
                Step::Last,
                Step::Wildcard,
                Step::BadEntry,
                Step::Negative(-2),
                Step::Entry {
                    key: String::new(),
                    value: "v".into()
                },
            ]
        );
    }

    #[test]
    fn config_defaults_and_errors() {
        let va = config("targets: [{fieldPath: a}]").expect("ok");
        assert_eq!(va.value, "prod");
        assert_eq!(
            config("value: '  x '\ntargets: [{fieldPath: a}]")
                .map(|v| v.value)
                .ok(),
            Some("x".into())
        );
        assert_eq!(
            config("value: 1.50\ntargets: [{fieldPath: a}]")
                .map(|v| v.value)
                .ok(),
            Some("1.5".into())
        );
        assert_eq!(
            config("value: 123\ntargets: [{fieldPath: a}]")
                .map(|v| v.value)
                .ok(),
            Some("123".into())
        );
        let err = |t: &str| config(t).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err("value: x").ends_with("config: must specify at least one target"));
        assert!(
            err("targets: [{selector: {kind: A}}]").ends_with("config: fieldPath cannot be empty")
        );
        assert!(
            err("targets: [{fieldPath: a, filePathPosition: -1}]")
                .ends_with("config: value of FilePathPosition (-1) cannot be negative")
        );
        let root = config("targets: [{fieldPath: a}]");
        assert!(root.is_ok());
        let c: Config = crate::yaml::de::from_node_lenient(
            &crate::yaml::parse::parse_document("targets: [{fieldPath: a}]", "c").expect("yaml"),
        )
        .expect("decodes");
        let va = c
            .resolve(Path::new("/"), &mut |_| Ok(String::new()))
            .expect("ok");
        assert_eq!(va.value, "/");
    }

    #[test]
    fn target_file_targets_are_appended() {
        let node = crate::yaml::parse::parse_document(
            "value: v\ntargets: [{fieldPath: a}]\ntargetFilePath: t.yaml",
            "c",
        )
        .expect("yaml");
        let c: Config = crate::yaml::de::from_node_lenient(&node).expect("decodes");
        let va = c
            .resolve(Path::new("/x"), &mut |p| {
                assert_eq!(p, "t.yaml");
                Ok("targets:\n- fieldPath: b\n  filePathPosition: 2\n".into())
            })
            .expect("ok");
        let paths: Vec<&str> = va.targets.iter().map(|t| t.field_path.0.as_str()).collect();
        assert_eq!(paths, ["a", "b"]);
        assert_eq!(va.targets[1].file_path_position, Position(2));
    }

    #[test]
    fn sets_creates_and_inserts() {
        let out = run(
            CM,
            "value: PEACH\ntargets:\n- fieldPath: data/path\n  filePathPosition: 4\n- fieldPath: data/abs\n  filePathPosition: 1\n- fieldPath: metadata/labels/app\n- fieldPath: data/blank\n  filePathPosition: 2\n- fieldPath: data/nul\n  filePathPosition: 1\n- fieldPath: data/num\n  filePathPosition: 2\n",
        )
        .expect("runs");
        let n = &out[0];
        let s = |p: &[&str]| get(n, p).cloned();
        assert_eq!(
            s(&["data", "path"]),
            Some(Node::text("a/nice/warm/PEACH/pie"))
        );
        assert_eq!(s(&["data", "abs"]), Some(Node::text("/PEACH/raw")));
        assert_eq!(s(&["metadata", "labels", "app"]), Some(Node::text("PEACH")));
        // `blank:` has the text "", an explicit null "null".
        assert_eq!(s(&["data", "blank"]), Some(Node::text("PEACH")));
        assert_eq!(s(&["data", "nul"]), Some(Node::text("PEACH/null")));
        assert_eq!(s(&["data", "num"]), Some(Node::text("5/PEACH")));
    }

    #[test]
    fn new_values_resolve_unless_the_old_one_was_quoted() {
        let out = run(
            CM,
            "value: '123'\ntargets:\n- fieldPath: data/path\n- fieldPath: data/quoted\n- fieldPath: data/empty\n- fieldPath: data/new\n- fieldPath: data/list/[=80]\n",
        )
        .expect("runs");
        let n = &out[0];
        // `a/nice/warm/pie` and `abc` could both be plain: kbuild takes them
        // as plain (kustomize would keep `"abc"` a string).
        assert_eq!(get(n, &["data", "path"]), Some(&Node::Int(123)));
        assert_eq!(get(n, &["data", "quoted"]), Some(&Node::Int(123)));
        assert_eq!(get(n, &["data", "empty"]), Some(&Node::text("123")));
        assert_eq!(get(n, &["data", "new"]), Some(&Node::Int(123)));
        assert_eq!(
            get(n, &["data", "list"]),
            Some(&Node::Seq(vec![
                Node::text("p"),
                Node::text("q"),
                Node::text("123")
            ]))
        );
    }

    #[test]
    fn list_steps() {
        let out = run(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  ports:\n  - {port: 80, name: a}\n  - {port: 81, name: b}\n  args: [p, q]\n",
            "value: V\ntargets:\n- fieldPath: data/ports/[port=81]/name\n- fieldPath: data/ports/[port=82]/name\n- fieldPath: data/args/-\n- fieldPath: data/args/+0\n- fieldPath: data/args/7\n- fieldPath: data/new/0/x\n- fieldPath: data/made/[=80]\n",
        )
        .expect("runs");
        let want = crate::yaml::parse::parse_resource_stream(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  ports:\n  - {port: 80, name: a}\n  - {port: 81, name: V}\n  - {port: 82, name: V}\n  args: [V, V]\n  new: []\n  made: [V]\n",
            "want",
        )
        .expect("yaml");
        assert_eq!(out[0], want[0].0);
    }

    #[test]
    fn nulls_stop_the_walk() {
        let out = run(
            CM,
            "value: V\ntargets:\n- fieldPath: data/nul/x\n- fieldPath: data/nul/[name=a]/b\n",
        )
        .expect("runs");
        assert_eq!(get(&out[0], &["data", "nul"]), Some(&Node::Null));
        let err = run(
            CM,
            "value: V\ntargets:\n- fieldPath: data/nul/x\n  filePathPosition: 1\n",
        )
        .expect_err("nil leaf with a position");
        assert!(err.to_string().contains("nil pointer"), "{err}");
        // The walk goes on through the unseen element, and fails on it.
        let err = run(CM, "value: V\ntargets:\n- fieldPath: data/nul/[name=a]/0\n")
            .expect_err("index on a mapping");
        assert!(err.to_string().contains("expected a list"), "{err}");
    }

    #[test]
    fn walk_errors() {
        let err = |path: &str| {
            run(CM, &format!("value: V\ntargets:\n- fieldPath: '{path}'\n"))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(err("data/map").contains("expected a scalar"));
        assert!(err("data/list").contains("expected a scalar"));
        assert!(err("/").contains("found a mapping"));
        assert!(err("data/path/x").contains("expected a mapping"));
        assert!(err("data/*").contains("wildcard"));
        assert!(err("data/list/-1").contains("cannot be negative"));
        assert!(err("data/list/[x]").contains("fieldName=fieldValue"));
        assert!(err("data/map/-").contains("expected a list"));
        assert!(err("data/list/[=q]/-").contains("expected a list"));
        let empty = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  l: []\n";
        assert!(
            run(empty, "value: V\ntargets:\n- fieldPath: data/l/-\n")
                .err()
                .is_some_and(|e| e.to_string().contains("index out of range"))
        );
    }

    const NS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: old\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\nsubjects:\n- {kind: ServiceAccount, name: default}\n- {kind: User, name: default}\n- {kind: ServiceAccount, name: other}\n";

    #[test]
    fn namespace_route() {
        let mut rm = resources(NS);
        apply(
            &mut rm,
            &config("value: '5'\ntargets: [{fieldPath: metadata/namespace}]").expect("cfg"),
        )
        .expect("runs");
        let ns = |i: usize| get(&rm.resources[i].node, &["metadata", "namespace"]).cloned();
        // Always a string; the Namespace is neither moved nor renamed.
        assert_eq!(ns(0), Some(Node::text("5")));
        assert_eq!(ns(1), None);
        assert_eq!(
            get(&rm.resources[1].node, &["metadata", "name"]),
            Some(&Node::text("ns1"))
        );
        assert_eq!(ns(2), Some(Node::text("5")));
        let subjects = get(&rm.resources[2].node, &["subjects"])
            .and_then(Node::as_seq)
            .expect("list");
        let sns: Vec<Option<&str>> = subjects.iter().map(|s| s.get_str(&["namespace"])).collect();
        assert_eq!(sns, [Some("5"), Some("5"), None]);
        // No previous id: the new namespace is the original one.
        assert!(rm.resources[0].prev_ids.is_empty());
        assert_eq!(rm.resources[0].orig_id().namespace, "5");
    }

    #[test]
    fn leading_slash_takes_the_generic_walk() {
        let out = run(NS, "value: V\ntargets: [{fieldPath: /metadata/namespace}]").expect("runs");
        // Even the cluster-scoped Namespace gets one.
        assert_eq!(
            get(&out[1], &["metadata", "namespace"]),
            Some(&Node::text("V"))
        );
    }

    #[test]
    fn selectors_and_id_conflicts() {
        let two = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: a\n  labels: {tier: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: b\n";
        let out = run(
            two,
            "value: V\ntargets:\n- selector: {labelSelector: tier=x}\n  fieldPath: data/k\n- selector: {namespace: b}\n  fieldPath: data/j\n",
        )
        .expect("runs");
        assert_eq!(get(&out[0], &["data", "k"]), Some(&Node::text("V")));
        assert_eq!(get(&out[0], &["data", "j"]), None);
        assert_eq!(get(&out[1], &["data", "j"]), Some(&Node::text("V")));
        let err =
            run(two, "value: V\ntargets: [{fieldPath: metadata/namespace}]").expect_err("conflict");
        assert!(
            err.to_string().contains("ConfigMap.v1.[noGrp]/cm.V"),
            "{err}"
        );
        assert!(
            run(
                two,
                "value: V\ntargets: [{fieldPath: x, selector: {name: '('}}]"
            )
            .is_err()
        );
    }

    #[test]
    fn plain_text_guess() {
        for s in ["abc", "a/b", "-x", "a:b", "x-y.z"] {
            assert!(could_be_plain(s), "{s}");
        }
        for s in [
            "", " a", "a ", "123", "true", "null", "a: b", "a #c", "[x", "*x", "-", "- x", "a\nb",
            "'q'",
        ] {
            assert!(!could_be_plain(s), "{s:?}");
        }
    }
}
