//! Resource identity: group/version/kind plus namespace and name.

use compact_str::CompactString;
use std::fmt;

/// Group, version and kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    // Compact strings: ids are made for every resource by many steps, and
    // groups, versions, kinds, namespaces and most names fit inline (24 bytes).
    /// API group; empty for the core group (`apiVersion: v1`).
    pub group: CompactString,
    /// API version, e.g. `v1`.
    pub version: CompactString,
    /// Kind, e.g. `Deployment`.
    pub kind: CompactString,
}

/// `apps/v1` as (`apps`, `v1`), `v1` as (``, `v1`): the last `/` splits. A byte search
/// (memrchr): ids are read for every duplicate check, patch and selector.
pub(crate) fn split_api_version(api_version: &str) -> (&str, &str) {
    match memchr::memrchr(b'/', api_version.as_bytes()) {
        // `/` is ASCII: both sides are on character boundaries.
        Some(i) => (&api_version[..i], &api_version[i + 1..]),
        None => ("", api_version),
    }
}

impl Gvk {
    /// Splits an `apiVersion` ("apps/v1", "v1") into group and version.
    pub fn from_api_version(api_version: &str, kind: &str) -> Gvk {
        let (group, version) = split_api_version(api_version);
        Gvk {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        }
    }

    /// The `apiVersion` text: `group/version`, or the version alone for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// Whether a selector GVK (empty parts match anything) selects this one.
    pub fn selected_by(&self, sel_group: &str, sel_version: &str, sel_kind: &str) -> bool {
        (sel_group.is_empty() || sel_group == self.group)
            && (sel_version.is_empty() || sel_version == self.version)
            && (sel_kind.is_empty() || sel_kind == self.kind)
    }
}

/// A resource id: GVK, namespace and name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResId {
    /// Group, version and kind.
    pub gvk: Gvk,
    /// `metadata.namespace` as written; empty when the resource has none.
    pub namespace: CompactString,
    /// `metadata.name`.
    pub name: CompactString,
}

impl ResId {
    /// The namespace with "" read as "default", as kustomize compares ids.
    pub fn effective_namespace(&self) -> &str {
        if self.namespace.is_empty() {
            "default"
        } else {
            &self.namespace
        }
    }

    /// Equality as kustomize defines it: the empty namespace equals "default".
    pub fn equals(&self, other: &ResId) -> bool {
        self.gvk == other.gvk
            && self.name == other.name
            && self.effective_namespace() == other.effective_namespace()
    }
}

impl fmt::Display for ResId {
    /// Human form: `apps/v1 Deployment ns/name`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ", self.gvk.api_version(), self.gvk.kind)?;
        if !self.namespace.is_empty() {
            write!(f, "{}/", self.namespace)?;
        }
        write!(f, "{}", self.name)
    }
}
