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
pub(crate) const NAMESPACE_PATH: &str = "metadata/namespace";

/// The builtin kind, for messages.
const KIND: &str = "ValueAddTransformer";

/// A `ValueAddTransformer` config as written. Unknown fields are ignored, as
/// kustomize's lenient decoding does.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Config {
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
pub(crate) struct Target {
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
/// mapping is an error. A `transformers:` config arrives converted already
/// (`kustomization::config_text`, which also does kustomize's JSON round trip:
/// `1e7` is "10000000" there); the `targetFilePath` file is read by
/// sigs.k8s.io/yaml directly, so this conversion is the one it gets (`1.5e7` is
/// "1.5e+07", `yes` is "true"). Checked with kubectl.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ConfigText(pub String);

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
pub(crate) struct Position(pub i64);

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
pub(crate) struct ValueAdd {
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
    pub(crate) fn resolve(
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
                .map_err(|e| ctx(Error::invalid_config(e.to_string())))?;
            targets.extend(extra.targets);
        }
        let bad = |why: String| {
            Err(Error::invalid_config(format!(
                "invalid {KIND} config: {why}"
            )))
        };
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
pub(crate) fn apply(rm: &mut ResMap, va: &ValueAdd) -> Result<()> {
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
        let id = id_text(&rm.resources[a].id());
        return Err(Error::duplicate_id(
            id.clone(),
            format!(
                "{KIND}: {} and {} now have the same id {id}: kustomize fails on this (may not add resource with an already registered id)",
                before[a], before[b],
            ),
        ));
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
pub(crate) fn set_namespace(res: &mut Resource, ns: &str) -> Result<()> {
    let gvk = res.gvk();
    if openapi::is_namespaced(&gvk.group, &gvk.version, &gvk.kind)
        && let Some(meta) = res.node_mut().ensure_map(&["metadata"])
    {
        meta.insert("namespace".to_string(), Node::text(ns));
    }
    if gvk.kind != "RoleBinding" && gvk.kind != "ClusterRoleBinding" {
        return Ok(());
    }
    let subjects = match res.node_mut().get_mut("subjects") {
        None | Some(Node::Null) => return Ok(()),
        Some(Node::Seq(items)) => items,
        Some(other) => {
            return Err(Error::invalid_resource(format!(
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
                return Err(Error::invalid_resource(format!(
                    "a subjects entry must be a mapping, found a {}",
                    other.type_name()
                )));
            }
        };
        let named_default = match m.get("name") {
            None | Some(Node::Null) => false,
            Some(n @ (Node::Map(_) | Node::Seq(_))) => {
                return Err(Error::invalid_resource(format!(
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
    let (node, empty_nulls) = res.node_mut_with_empty_nulls();
    let mut set = |leaf: &mut Node, created: Option<&str>, trail: &[PathStep]| {
        // A field written as nothing (`key:`) has the text "", not "null".
        let empty = created.is_none() && leaf.is_null() && empty_nulls.iter().any(|p| p == trail);
        set_leaf(leaf, created.or(empty.then_some("")), value, pos)
    };
    let reached = path.walk(node, &mut set)?;
    if !reached && pos > 0 {
        return Err(Error::invalid_config(format!(
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
pub(crate) fn set_leaf(
    leaf: &mut Node,
    created: Option<&str>,
    value: &str,
    pos: usize,
) -> Result<()> {
    if let Node::Map(_) | Node::Seq(_) = leaf {
        return Err(Error::invalid_config(format!(
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
            Error::invalid_config(format!(
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

mod file_path;
mod path;

pub(crate) use file_path::insert_path_part;
pub(crate) use path::FieldPath;

#[cfg(test)]
mod tests;
