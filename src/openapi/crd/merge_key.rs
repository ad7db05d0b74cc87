//! `--merge-key GROUP/KIND:FIELD.PATH=KEY[,KEY]`: merge keys for a list that no CRD
//! describes (a CRD without `list-type: map` on it, a field kept by
//! `x-kubernetes-preserve-unknown-fields`, a kind whose CRD is not in the build).
//!
//! `FIELD.PATH` names the list from the resource's top, fields separated by dots; a field
//! that is itself a list whose elements the path goes into is written `name[]`
//! (`spec.groups[].rules=alert` is the `rules` list of each `groups` element). The keys are
//! the fields of the list's elements that tell them apart; several keys merge elements by
//! all of them, as `x-kubernetes-list-map-keys` does.

use crate::error::{Error, Result};

/// One step of a `--merge-key` path: a field, and whether the path goes on into the
/// elements of the list it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The field name.
    pub name: String,
    /// `name[]`: the field is a list, and the path continues in its elements.
    pub list: bool,
}

/// A parsed `--merge-key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeKey {
    /// The API group (`monitoring.coreos.com`).
    pub group: String,
    /// The kind (`PrometheusRule`).
    pub kind: String,
    /// The path to the list, from the resource's top.
    pub path: Vec<Segment>,
    /// The fields that tell the list's elements apart.
    pub keys: Vec<String>,
    /// The flag's value as given, for messages.
    pub text: String,
}

/// What a build adds to kustomize's merge keys (kbuild's flags; nothing by default).
#[derive(Clone, Debug, Default)]
pub struct MergeKeyOptions {
    /// `--crd-merge-keys`: the lists of the CRDs in the build merge by their keys.
    pub from_crds: bool,
    /// `--merge-key`: declared keys.
    pub declared: Vec<MergeKey>,
    /// `--crds`: files and directories whose CRDs count as if they were in the build,
    /// for `from_crds` and for the warning about lists a patch replaces whole.
    pub crd_files: Vec<std::path::PathBuf>,
}

impl MergeKeyOptions {
    /// Whether the build uses a schema of kbuild's making.
    pub fn is_active(&self) -> bool {
        self.from_crds || !self.declared.is_empty()
    }
}

/// The grammar, for error messages.
const SYNTAX: &str = "expected GROUP/KIND:FIELD.PATH=KEY[,KEY], \
                      e.g. monitoring.coreos.com/PrometheusRule:spec.groups=name";

impl MergeKey {
    /// Parses the flag's value.
    pub fn parse(text: &str) -> Result<MergeKey> {
        let bad =
            |why: &str| Error::invalid_config(format!("--merge-key {text:?}: {why}; {SYNTAX}"));
        let (target, keys) = text
            .split_once('=')
            .ok_or_else(|| bad("no '=' before the keys"))?;
        let (group_kind, path) = target
            .split_once(':')
            .ok_or_else(|| bad("no ':' between GROUP/KIND and the field path"))?;
        let (group, kind) = group_kind
            .rsplit_once('/')
            .ok_or_else(|| bad("no '/' between the group and the kind"))?;
        if group.is_empty() || group.contains(char::is_whitespace) {
            return Err(bad(
                "the group is empty; custom resources have one (the CRD's spec.group)",
            ));
        }
        if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(bad("the kind must be a name such as PrometheusRule"));
        }
        if is_builtin_kind(group, kind) {
            return Err(bad(&format!(
                "{group}/{kind} is a built-in kind: kustomize's built-in schema decides how its lists merge"
            )));
        }
        let mut segments = Vec::new();
        for (i, part) in path.split('.').enumerate() {
            let (name, list) = match part.strip_suffix("[]") {
                Some(name) => (name, true),
                None => (part, false),
            };
            if !plain_field(name) {
                return Err(bad(&format!(
                    "field {} of the path ({part:?}) is not a field name",
                    i + 1
                )));
            }
            segments.push(Segment {
                name: name.to_string(),
                list,
            });
        }
        if segments.last().is_some_and(|s| s.list) {
            return Err(bad(
                "the path ends in '[]': it names the list itself, without '[]' at its end",
            ));
        }
        let keys: Vec<String> = keys.split(',').map(str::to_string).collect();
        if let Some(k) = keys.iter().find(|k| !plain_field(k)) {
            return Err(bad(&format!("key {k:?} is not a field name")));
        }
        if let Some((i, k)) = keys
            .iter()
            .enumerate()
            .find(|(i, k)| keys[..*i].contains(k))
        {
            return Err(bad(&format!("key {k:?} is given twice (key {})", i + 1)));
        }
        Ok(MergeKey {
            group: group.to_string(),
            kind: kind.to_string(),
            path: segments,
            keys,
            text: text.to_string(),
        })
    }

    /// The path as written (`spec.groups[].rules`).
    pub fn path_text(&self) -> String {
        path_text(&self.path)
    }
}

/// A path of segments as `--merge-key` writes it.
pub(super) fn path_text(path: &[Segment]) -> String {
    let parts: Vec<String> = path
        .iter()
        .map(|s| {
            if s.list {
                format!("{}[]", s.name)
            } else {
                s.name.clone()
            }
        })
        .collect();
    parts.join(".")
}

/// A field name: not empty, none of the characters the grammar uses.
fn plain_field(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '.' | ',' | '=' | ':' | '[' | ']' | '/'))
}

/// Whether kustomize's built-in schema has a kind of this group and name (any version).
fn is_builtin_kind(group: &str, kind: &str) -> bool {
    super::super::builtin::KINDS
        .iter()
        .any(|k| k.group == group && k.kind == kind)
}
