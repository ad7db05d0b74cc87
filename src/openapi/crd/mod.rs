//! CRD-aware merge keys: what CustomResourceDefinitions say about their lists, written as
//! the OpenAPI document kustomize reads from `openapi: path:`.
//!
//! kustomize merges a strategic-merge patch's list element by element only when its schema
//! gives the list `x-kubernetes-patch-strategy: merge`, and it has a schema only for the
//! built-in kinds. A CRD declares how its lists merge differently: `x-kubernetes-list-type:
//! map` with `x-kubernetes-list-map-keys`, which kustomize does not read. Measured with
//! `kubectl kustomize` v5.5.0 and v5.8.1 (a list keyed by `name` and `protocol`, a patch
//! changing one element and adding one):
//! - `list-type: map` and `list-map-keys` alone: the list is replaced;
//! - `patch-strategy: merge` and `patch-merge-key: name`: elements merge by `name` alone,
//!   so the two `dns` ports (UDP and TCP) collapse into one and items are lost;
//! - `patch-strategy: merge` and `list-map-keys: [name, protocol]`, with or without a
//!   `patch-merge-key`: elements merge by both keys, nothing is lost (kyaml's
//!   `PatchStrategyAndKeyList` prefers the list-map keys to the merge key).
//!
//! So every `list-type: map` list gets `x-kubernetes-patch-strategy: merge` and keeps its
//! list-map keys; a single key is also written as `x-kubernetes-patch-merge-key`, several
//! keys never are (a tool reading only the merge key would collapse them). `set` and
//! `atomic` lists, and lists without a list type, are left as kustomize treats them:
//! replaced.
//!
//! - [`CrdSet`] (this file): the CRDs found (files, directories, a build's output), each
//!   group and kind once, with its served versions' schemas;
//! - `schema.rs`: one version's schema cut down to the lists that merge by key, checked;
//! - `merge_key.rs`: `--merge-key GROUP/KIND:FIELD.PATH=KEY[,KEY]`, keys for lists no CRD
//!   describes;
//! - `document.rs`: the document: those definitions, the built-in ones (`export.rs`),
//!   sorted;
//! - `lookup.rs`: the list-map keys a CRD gives one list (for the default mode's warning).

mod document;
pub(crate) mod files;
mod lookup;
mod merge_key;
mod schema;

pub use document::{Document, document};
pub use files::{is_crd, read_crd_files};
pub use lookup::list_map_keys;
pub use merge_key::{MergeKey, MergeKeyOptions, Segment};

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};
use crate::yaml::Node;

/// One CustomResourceDefinition: its group and kind, and the schema of each served version.
#[derive(Clone, Debug)]
pub struct Crd {
    /// `metadata.name` (`prometheusrules.monitoring.coreos.com`).
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// Where it was found, for messages (a file, or a build).
    pub source: String,
    /// Served versions with their `openAPIV3Schema`, in the CRD's order.
    pub versions: Vec<(String, Node)>,
    /// The whole document: the same CRD found twice (a file and the build reading it) is
    /// one CRD.
    node: Node,
}

/// The CRDs found so far, one per group and kind, and the apiVersions of the other
/// resources seen (the versions a `--merge-key` for a kind without a CRD applies to).
#[derive(Clone, Debug, Default)]
pub struct CrdSet {
    crds: BTreeMap<(String, String), Crd>,
    seen: BTreeSet<(String, String, String)>,
}

impl CrdSet {
    /// Takes one document: a CRD is read and checked (a served version without a schema is
    /// an error), a `List` is taken item by item, anything else is noted by group, version
    /// and kind. `source` names where it came from in errors.
    pub fn add(&mut self, doc: &Node, source: &str) -> Result<()> {
        let text = |path: &[&str]| doc.get_str(path).unwrap_or_default().to_string();
        let (api_version, kind) = (text(&["apiVersion"]), text(&["kind"]));
        if kind == "List"
            && let Some(items) = doc.get("items").and_then(Node::as_seq)
        {
            for item in items {
                self.add(item, source)?;
            }
            return Ok(());
        }
        let (group, version) = super::split_api_version(&api_version);
        if group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition" {
            return self.add_crd(read_crd(doc, version, source)?);
        }
        if !kind.is_empty() {
            self.seen
                .insert((group.to_string(), version.to_string(), kind));
        }
        Ok(())
    }

    fn add_crd(&mut self, crd: Crd) -> Result<()> {
        let key = (crd.group.clone(), crd.kind.clone());
        match self.crds.get(&key) {
            None => {
                self.crds.insert(key, crd);
                Ok(())
            }
            Some(first) if first.node == crd.node => Ok(()),
            Some(first) => Err(Error::invalid_resource(format!(
                "two CustomResourceDefinitions for {}/{}: {} ({}) and {} ({}) differ; \
                 kbuild needs one schema per kind: pass only one of them",
                crd.group, crd.kind, first.name, first.source, crd.name, crd.source
            ))),
        }
    }

    /// The CRD of a group and kind.
    pub fn get(&self, group: &str, kind: &str) -> Option<&Crd> {
        self.crds.get(&(group.to_string(), kind.to_string()))
    }

    /// Every CRD, by group and kind.
    pub fn iter(&self) -> impl Iterator<Item = &Crd> {
        self.crds.values()
    }

    /// The versions a kind has: its CRD's served versions, else those of the resources
    /// seen, sorted.
    pub fn versions(&self, group: &str, kind: &str) -> Vec<String> {
        if let Some(crd) = self.get(group, kind) {
            return crd.versions.iter().map(|(v, _)| v.clone()).collect();
        }
        self.seen
            .iter()
            .filter(|(g, _, k)| g == group && k == kind)
            .map(|(_, v, _)| v.clone())
            .collect()
    }
}

/// Reads a CRD of `apiextensions.k8s.io/<version>` (v1, or v1beta1 with its top-level
/// `spec.validation`).
fn read_crd(doc: &Node, api_version: &str, source: &str) -> Result<Crd> {
    let name = doc.get_str(&["metadata", "name"]).unwrap_or_default();
    let missing = |field: &str| {
        Error::invalid_resource(format!(
            "{source}: CustomResourceDefinition '{name}' has no {field}"
        ))
    };
    let group = doc
        .get_str(&["spec", "group"])
        .filter(|g| !g.is_empty())
        .ok_or_else(|| missing("spec.group"))?;
    let kind = doc
        .get_str(&["spec", "names", "kind"])
        .filter(|k| !k.is_empty())
        .ok_or_else(|| missing("spec.names.kind"))?;
    let shared = doc.get_path(&["spec", "validation", "openAPIV3Schema"]);
    let mut versions = Vec::new();
    let listed = doc.get_path(&["spec", "versions"]).and_then(Node::as_seq);
    for (i, v) in listed.into_iter().flatten().enumerate() {
        let version = v.get_str(&["name"]).unwrap_or_default();
        // `served: false` versions are never sent to the API server: no resource of
        // them reaches kustomize.
        if v.get("served")
            .is_some_and(|s| matches!(s, Node::Bool(false)))
        {
            continue;
        }
        let schema = v
            .get_path(&["schema", "openAPIV3Schema"])
            .or(shared)
            .filter(|s| s.as_map().is_some())
            .ok_or_else(|| no_schema(source, name, version, i, api_version))?;
        versions.push((version.to_string(), schema.clone()));
    }
    // apiextensions v1beta1's single `spec.version`.
    if listed.is_none()
        && let Some(version) = doc.get_str(&["spec", "version"])
    {
        let schema = shared
            .filter(|s| s.as_map().is_some())
            .ok_or_else(|| no_schema(source, name, version, 0, api_version))?;
        versions.push((version.to_string(), schema.clone()));
    }
    if versions.is_empty() {
        return Err(missing("served version (spec.versions)"));
    }
    Ok(Crd {
        name: name.to_string(),
        group: group.to_string(),
        kind: kind.to_string(),
        source: source.to_string(),
        versions,
        node: doc.clone(),
    })
}

fn no_schema(source: &str, name: &str, version: &str, index: usize, api_version: &str) -> Error {
    let field = if api_version == "v1" {
        format!("spec.versions[{index}].schema.openAPIV3Schema")
    } else {
        format!("spec.versions[{index}].schema.openAPIV3Schema or spec.validation.openAPIV3Schema")
    };
    Error::invalid_resource(format!(
        "{source}: CustomResourceDefinition '{name}', version {version}, has no schema ({field}); \
         kbuild reads the lists' merge keys from it: add the schema, or leave this CRD out"
    ))
}

#[cfg(test)]
mod tests;
