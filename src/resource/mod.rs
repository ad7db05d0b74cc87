//! A resource: one Kubernetes object plus what kustomize remembers about it.

pub mod budget;
pub(crate) mod build_annotations;
pub mod deferred;
pub mod go_regex;
pub mod id;
pub mod parse;
pub mod pattern;
pub mod regex_cache;
pub mod replaced;
pub mod resmap;
pub mod selector;
pub mod shared;

use crate::error::{Error, Result};
use crate::resource::id::{Gvk, ResId};
use crate::yaml::{Map, Node};
use std::borrow::Cow;

/// One object of the resource map.
#[derive(Clone, Debug)]
pub struct Resource {
    /// The object itself: read through [`Resource::node`], changed through
    /// [`Resource::node_mut`], which marks the resource touched.
    node: Node,
    /// What of the object may have changed since the build's provenance recording last
    /// looked at it (see [`Resource::node_mut`]).
    touched: Touched,
    /// Ids the resource had before renames and namespace changes, oldest
    /// first (kustomize's "previous ids"); the first is the original id.
    pub prev_ids: Vec<ResId>,
    /// Generated with a name hash still to append (at the end of the build).
    pub needs_hash: bool,
    /// Where the resource came from, for `buildMetadata: [originAnnotations]`.
    // Boxed: most builds record no origin, and a resource's size is multiplied by the
    // resources a build holds (an inline `Origin` was a third of the struct).
    pub origin: Option<Box<Origin>>,
    /// Transformers that ran over it, for `buildMetadata: [transformerAnnotations]`.
    pub transformations: Vec<Configured>,
    /// Non-empty `namePrefix`es applied to the resource, innermost first
    /// (kustomize's `prefixes` build annotation); name references prefer a
    /// target that went through the same prefixes as the referrer.
    pub name_prefixes: Vec<String>,
    /// Non-empty `nameSuffix`es applied, innermost first.
    pub name_suffixes: Vec<String>,
    /// Names of the vars whose `objref` this resource matched (kustomize's
    /// "refVarNames"): a var reads its value from the resource it was bound to.
    pub ref_var_names: Vec<String>,
    /// Where the resource's file wrote a value as nothing (`key:`); a
    /// strategic-merge patch drops those fields (see [`crate::yaml::parse::EmptyNulls`]).
    pub empty_nulls: crate::yaml::parse::EmptyNulls,
    /// Fields that hold one label or annotation value in kustomize's tree, so that a
    /// write into one changes them all (see [`shared`]).
    pub shared: shared::Shared,
    /// Made by `helm template` (kustomize v5.8's `internal.config.kubernetes.io/helm-generated`
    /// annotation): from v5.8.0 the namespace transformer leaves it alone.
    pub helm_generated: bool,
    /// Lists strategic-merge patches replaced whole, for kbuild's warning about lists a CRD
    /// declares keys for (see `replaced`).
    pub replaced_lists: replaced::ReplacedLists,
    /// Where each field came from, when the build records it (`kbuild explain`, `build
    /// --provenance`; see [`crate::provenance`]). Boxed: off by default.
    pub provenance: Option<Box<crate::provenance::Provenance>>,
    /// Never recorded: a build recording the provenance of some resources only
    /// (`BuildOptions::provenance_only`) did not admit it when it first appeared.
    pub(crate) unrecorded: bool,
    /// Holds values kustomize keeps untagged (`yaml::map::Style::Untagged`), to be typed
    /// before a JSON patch and when printed; false for nearly every resource, which
    /// spares those the walk.
    pub untagged: bool,
    /// The replacement entries that wrote texts checked only when the resource is printed
    /// (see [`deferred`]).
    pub writers: deferred::Writers,
    /// A JSON 6902 patch went through it: kustomize's node was read back from JSON, whose
    /// keys go-yaml's encoder quotes where plain text would read as another type (which
    /// shows where a replacement copies a mapping of it into YAML text).
    pub keys_from_json: bool,
}

/// What of a resource's object may have changed since provenance recording last looked
/// at it (see [`Resource::node_mut`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Touched {
    /// Nothing: the object is as the record last saw it.
    #[default]
    No,
    /// Only along these paths (see [`Resource::node_mut_within`]).
    Within(Vec<crate::provenance::diff::KeyPath>),
    /// Anything.
    Whole,
}

/// A transformer or generator (builtin or a plugin) and the file that configured it.
#[derive(Clone, Debug, PartialEq)]
pub struct Configured {
    /// Absolute path of the kustomization (or generator/transformer config) file.
    pub configured_in: std::path::PathBuf,
    /// The config's `apiVersion`: `builtin` for kustomize's own, the plugin's otherwise.
    pub api_version: Cow<'static, str>,
    /// The config's kind, e.g. `PrefixTransformer`.
    pub kind: Cow<'static, str>,
    /// `metadata.name` of a config file, when it has one.
    pub name: Option<String>,
    /// `metadata.namespace` of a config file, when it has one.
    pub namespace: Option<String>,
}

/// Where a resource came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Read from this file (absolute path).
    File(std::path::PathBuf),
    /// Made by a generator.
    Generated(Configured),
    /// Fetched from an http(s) URL: the `resources` entry as written and the directory
    /// of the kustomization naming it (kustomize's origin joins the two).
    Url {
        /// The directory of the kustomization naming the URL (a real path).
        dir: std::path::PathBuf,
        /// The entry as written.
        entry: String,
    },
}

/// Reads a scalar of the object as a string (names may be written as numbers).
fn scalar_at(node: &Node, path: &[&str]) -> String {
    node.get_path(path)
        .and_then(Node::scalar_string)
        .unwrap_or_default()
}

/// A scalar of the object as text, borrowed when it is a string (ids are
/// computed often: this saves most of their allocations).
fn scalar_cow<'a>(node: &'a Node, path: &[&str]) -> Cow<'a, str> {
    text_of(node.get_path(path))
}

/// A resource's current id as borrowed text: group, version, kind, effective
/// namespace ("" reads as "default", as kustomize compares ids) and name.
pub type IdKey<'a> = [Cow<'a, str>; 5];

/// The fields an id is made of, found in one pass over the object's keys and
/// one over its metadata's (ids are read very often: by every duplicate check,
/// patch and selector).
#[derive(Default)]
struct IdFields<'a> {
    api_version: Option<&'a Node>,
    kind: Option<&'a Node>,
    namespace: Option<&'a Node>,
    name: Option<&'a Node>,
}

impl<'a> IdFields<'a> {
    fn of(node: &'a Node) -> IdFields<'a> {
        let mut f = IdFields::default();
        let Some(m) = node.as_map() else { return f };
        let mut meta = None;
        for (k, v) in m.iter() {
            match k.as_str() {
                "apiVersion" => f.api_version = Some(v),
                "kind" => f.kind = Some(v),
                "metadata" => meta = Some(v),
                _ => {}
            }
        }
        if let Some(meta) = meta.and_then(Node::as_map) {
            for (k, v) in meta.iter() {
                match k.as_str() {
                    "name" => f.name = Some(v),
                    "namespace" => f.namespace = Some(v),
                    _ => {}
                }
            }
        }
        f
    }
}

/// A field's text: borrowed when it is a string, "" when it is missing.
fn text_of(node: Option<&Node>) -> Cow<'_, str> {
    match node {
        Some(Node::Str(s)) => Cow::Borrowed(s),
        Some(n) => Cow::Owned(n.scalar_string().unwrap_or_default()),
        None => Cow::Borrowed(""),
    }
}

impl Resource {
    /// Notes that the step running now wrote the fields `paths` finds in the resource as
    /// the step left it, whatever their value (see provenance/writes.rs);
    /// `paths` runs only when the resource records its provenance.
    pub(crate) fn note_written(
        &mut self,
        paths: impl FnOnce(&Node) -> Vec<crate::provenance::FieldPath>,
    ) {
        if self.provenance.is_none() {
            return;
        }
        let written = paths(self.node());
        if let Some(p) = self.provenance.as_deref_mut() {
            p.written.extend(written);
        }
    }

    /// The object.
    pub fn node(&self) -> &Node {
        &self.node
    }

    /// The object, to change: marks the resource touched, so that a build recording
    /// provenance compares it after the step at hand (and only the resources a step
    /// touched). Every change to a resource's object goes through here: a new step
    /// cannot forget to say what it touched.
    pub fn node_mut(&mut self) -> &mut Node {
        self.touched = Touched::Whole;
        &mut self.node
    }

    /// Changes the object with `f`, which says whether it changed anything: only then is
    /// the resource marked touched (see [`Resource::node_mut`]). For a step that visits
    /// every resource and changes few (an `images` entry), so that a build recording
    /// provenance compares only those. `f` must answer true whenever it changed the object.
    pub(crate) fn node_mut_if(
        &mut self,
        f: impl FnOnce(&mut Node) -> Result<bool>,
    ) -> Result<bool> {
        let changed = f(&mut self.node)?;
        if changed {
            self.touched = Touched::Whole;
        }
        Ok(changed)
    }

    /// Changes the object with `f`, which writes only along the paths of mapping keys it
    /// adds to the list it is given, when it is given one: within what each path leads to,
    /// or within the first value on it that is not a mapping, making what is missing on
    /// the way. A build recording provenance then compares only those parts of the object
    /// after the step (see `provenance::diff::changes_syncing_within`); otherwise (`None`)
    /// the resource is marked touched as by [`Resource::node_mut`]. For the steps that walk
    /// field specs over every resource (labels, annotations, namespace, name prefix and
    /// suffix, name references): comparing whole objects after each of them was most of
    /// what recording cost.
    pub(crate) fn node_mut_within<T>(
        &mut self,
        f: impl FnOnce(&mut Node, Option<&mut Vec<crate::provenance::diff::KeyPath>>) -> T,
    ) -> T {
        if self.provenance.is_none() || matches!(self.touched, Touched::Whole) {
            self.touched = Touched::Whole;
            return f(&mut self.node, None);
        }
        let mut within = match std::mem::take(&mut self.touched) {
            Touched::Within(paths) => paths,
            _ => Vec::new(),
        };
        let out = f(&mut self.node, Some(&mut within));
        if !within.is_empty() {
            self.touched = Touched::Within(within);
        }
        out
    }

    /// The object, to change, with the fields written as nothing that it keeps (see
    /// [`Resource::node_mut`]).
    pub fn node_mut_with_empty_nulls(&mut self) -> (&mut Node, &crate::yaml::parse::EmptyNulls) {
        self.touched = Touched::Whole;
        (&mut self.node, &self.empty_nulls)
    }

    /// The object, to change, with the record of the fields it shares (see
    /// [`Resource::node_mut`]).
    pub fn node_mut_with_shared(&mut self) -> (&mut Node, &mut shared::Shared) {
        self.touched = Touched::Whole;
        (&mut self.node, &mut self.shared)
    }

    /// Replaces the object (see [`Resource::node_mut`]).
    pub fn set_node(&mut self, node: Node) {
        self.touched = Touched::Whole;
        self.node = node;
    }

    /// The object, the resource consumed.
    pub fn into_node(self) -> Node {
        self.node
    }

    /// What of the object may have changed since the last call (see
    /// [`Resource::node_mut`]), clearing the mark; with the object and its provenance
    /// record, for the build to record what changed.
    pub(crate) fn take_touched(
        &mut self,
    ) -> (
        Touched,
        &Node,
        &mut Option<Box<crate::provenance::Provenance>>,
    ) {
        (
            std::mem::take(&mut self.touched),
            &self.node,
            &mut self.provenance,
        )
    }

    /// The current id as a key for duplicate checks, mostly without copying.
    pub fn id_key(&self) -> IdKey<'_> {
        let f = IdFields::of(&self.node);
        let (group, version) = match text_of(f.api_version) {
            Cow::Borrowed(api) => {
                let (g, v) = id::split_api_version(api);
                (Cow::Borrowed(g), Cow::Borrowed(v))
            }
            Cow::Owned(api) => {
                let (g, v) = id::split_api_version(&api);
                (Cow::Owned(g.to_string()), Cow::Owned(v.to_string()))
            }
        };
        let namespace = match text_of(f.namespace) {
            ns if ns.is_empty() => Cow::Borrowed("default"),
            ns => ns,
        };
        [group, version, text_of(f.kind), namespace, text_of(f.name)]
    }

    /// Whether the current id equals `id` as kustomize compares ids ("" namespace is
    /// "default"), read without copying it.
    pub fn has_id(&self, id: &ResId) -> bool {
        let [group, version, kind, namespace, name] = self.id_key();
        kind == id.gvk.kind
            && name == id.name
            && group == id.gvk.group
            && version == id.gvk.version
            && namespace == id.effective_namespace()
    }

    /// Wraps an object, checking that it has the fields every resource needs.
    pub fn new(node: Node) -> Result<Resource> {
        let Node::Map(m) = &node else {
            return Err(Error::invalid_resource(format!(
                "a resource must be a mapping, found a {}",
                node.type_name()
            )));
        };
        match m.get("kind") {
            Some(k) if k.scalar_string().is_some_and(|s| !s.is_empty()) => {}
            _ => {
                return Err(Error::invalid_resource(format!(
                    "missing kind in object {}",
                    brief(&node)
                )));
            }
        }
        if scalar_at(&node, &["metadata", "name"]).is_empty() {
            return Err(Error::invalid_resource(format!(
                "missing metadata.name in object {}",
                brief(&node)
            )));
        }
        Ok(Resource {
            node,
            prev_ids: Vec::new(),
            needs_hash: false,
            origin: None,
            transformations: Vec::new(),
            name_prefixes: Vec::new(),
            name_suffixes: Vec::new(),
            ref_var_names: Vec::new(),
            empty_nulls: Vec::new(),
            shared: shared::Shared::default(),
            helm_generated: false,
            replaced_lists: replaced::ReplacedLists::default(),
            provenance: None,
            unrecorded: false,
            untagged: false,
            writers: deferred::Writers::default(),
            keys_from_json: false,
            touched: Touched::Whole,
        })
    }

    /// Removes the fields recorded in `empty_nulls` that still hold a null, as
    /// kustomize's strategic merge does with fields written as nothing, even
    /// outside the part of the resource the patch touches. Its merge walks every
    /// mapping, but only the lists `schema` (the resource's type) makes
    /// associative (`containers` by `name`); other lists are kept whole.
    pub fn drop_empty_nulls(&mut self, schema: Option<crate::openapi::TypeRef<'_>>) {
        let paths = std::mem::take(&mut self.empty_nulls);
        drop_empty_nulls(self.node_mut(), paths, schema);
    }

    /// `kind` as text; empty when missing.
    pub fn kind(&self) -> String {
        scalar_at(&self.node, &["kind"])
    }

    /// `metadata.name` as text; empty when missing.
    pub fn name(&self) -> String {
        scalar_at(&self.node, &["metadata", "name"])
    }

    /// `metadata.name` when it is a plain string (the usual case), borrowed; `None` for
    /// any other node (a number, missing), whose text [`Resource::name`] gives.
    pub fn name_text(&self) -> Option<&str> {
        match self.node.get_path(&["metadata", "name"]) {
            Some(Node::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// `metadata.namespace` as text; empty when missing.
    pub fn namespace(&self) -> String {
        scalar_at(&self.node, &["metadata", "namespace"])
    }

    /// Group, version and kind, from `apiVersion` and `kind`.
    pub fn gvk(&self) -> Gvk {
        Gvk::from_api_version(
            &scalar_cow(&self.node, &["apiVersion"]),
            &scalar_cow(&self.node, &["kind"]),
        )
    }

    /// The current id.
    pub fn id(&self) -> ResId {
        let f = IdFields::of(&self.node);
        ResId {
            gvk: Gvk::from_api_version(&text_of(f.api_version), &text_of(f.kind)),
            namespace: text_of(f.namespace).as_ref().into(),
            name: text_of(f.name).as_ref().into(),
        }
    }

    /// The id the resource had when it was loaded or generated.
    pub fn orig_id(&self) -> ResId {
        self.prev_ids.first().cloned().unwrap_or_else(|| self.id())
    }

    /// Remembers the current id before a rename or namespace change.
    pub fn store_prev_id(&mut self) {
        let id = self.id();
        if self.prev_ids.last() != Some(&id) {
            self.prev_ids.push(id);
        }
    }

    fn metadata_mut(&mut self) -> &mut Map {
        // Resource::new checks for a mapping, but a patch may replace the
        // object or its metadata with something else: start afresh then.
        let node = self.node_mut();
        if !matches!(node.get("metadata"), Some(Node::Map(_))) {
            if !matches!(node, Node::Map(_)) {
                *node = Node::map();
            }
            if let Node::Map(m) = node {
                m.insert("metadata".to_string(), Node::map());
            }
        }
        match node.get_mut("metadata") {
            Some(Node::Map(m)) => m,
            _ => unreachable!("metadata was just made a mapping"),
        }
    }

    /// Sets `metadata.name` (making `metadata` a mapping first if it is not one).
    pub fn set_name(&mut self, name: &str) {
        self.metadata_mut()
            .insert("name".to_string(), Node::text(name.to_string()));
    }

    /// Sets `metadata.namespace` (making `metadata` a mapping first if it is not one).
    pub fn set_namespace(&mut self, ns: &str) {
        self.metadata_mut()
            .insert("namespace".to_string(), Node::text(ns.to_string()));
    }

    /// One annotation's value as text.
    pub fn annotation(&self, key: &str) -> Option<String> {
        self.node
            .get_path(&["metadata", "annotations", key])
            .and_then(Node::scalar_string)
    }

    /// Sets or (with `None`) removes an annotation; an emptied map is removed.
    pub fn set_annotation(&mut self, key: &str, value: Option<&str>) {
        let meta = self.metadata_mut();
        match value {
            Some(v) => {
                let ann = meta
                    .entry("annotations".to_string())
                    .or_insert_with(Node::map);
                if !matches!(ann, Node::Map(_)) {
                    *ann = Node::map();
                }
                if let Node::Map(a) = ann {
                    a.insert(key.to_string(), Node::text(v.to_string()));
                }
            }
            None => {
                if let Some(Node::Map(a)) = meta.get_mut("annotations") {
                    a.shift_remove(key);
                    if a.is_empty() {
                        meta.shift_remove("annotations");
                    }
                }
            }
        }
    }
}

/// A one-line description of an object for error messages.
pub fn brief(node: &Node) -> String {
    let s = |p: &[&str]| {
        node.get_path(p)
            .and_then(Node::scalar_string)
            .unwrap_or_default()
    };
    format!(
        "{{apiVersion: {:?}, kind: {:?}, name: {:?}}}",
        s(&["apiVersion"]),
        s(&["kind"]),
        s(&["metadata", "name"])
    )
}

/// Removes from `node` the fields at `paths` (fields written as nothing, `key:`) that
/// still hold a null, as kyaml's merge does with a destination it walks (see
/// [`Resource::drop_empty_nulls`]); lists are walked only where `schema` makes them
/// associative.
pub fn drop_empty_nulls(
    node: &mut Node,
    paths: crate::yaml::parse::EmptyNulls,
    schema: Option<crate::openapi::TypeRef<'_>>,
) {
    use crate::yaml::parse::PathStep;
    for path in paths {
        let Some((PathStep::Key(last), parents)) = path.split_last() else {
            continue;
        };
        let mut cur = Some(&mut *node);
        let mut ty = schema;
        for step in parents {
            cur = match step {
                PathStep::Key(k) => {
                    ty = ty.and_then(|t| t.field(k));
                    cur.and_then(|n| n.get_mut(k))
                }
                PathStep::Index(i) => {
                    if ty.is_none_or(|t| t.merge_keys().is_empty()) {
                        cur = None;
                        break;
                    }
                    ty = ty.and_then(|t| t.items());
                    cur.and_then(|n| match n {
                        Node::Seq(items) => items.get_mut(*i),
                        _ => None,
                    })
                }
            };
        }
        // An annotation written as nothing reads as "" (annotations are text).
        let annotation = matches!(parents, [PathStep::Key(a), PathStep::Key(b)]
            if a == "metadata" && b == "annotations");
        let dropped = |n: &Node| n.is_null() || (annotation && n.as_str() == Some(""));
        if let Some(m) = cur.and_then(Node::as_map_mut)
            && m.get(last.as_str()).is_some_and(dropped)
        {
            m.shift_remove(last.as_str());
        }
    }
}

#[cfg(test)]
mod id_key_tests {
    use super::*;

    /// `id_key` must agree with `id()` (namespace "" read as "default").
    #[test]
    fn id_key_matches_id() {
        for text in [
            "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: prod}}",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: 123}}",
            "{apiVersion: x.io/v2, kind: Foo, metadata: {name: a, namespace: ''}}",
        ] {
            let node = crate::yaml::parse::parse_document(text, "t").unwrap();
            let r = Resource::new(node).unwrap();
            let id = r.id();
            let want = [
                id.gvk.group.as_str(),
                id.gvk.version.as_str(),
                id.gvk.kind.as_str(),
                id.effective_namespace(),
                id.name.as_str(),
            ];
            let got = r.id_key();
            assert_eq!(got.iter().map(|c| c.as_ref()).collect::<Vec<_>>(), want);
        }
    }
}
