//! Field specs: which fields of which kinds a transformer touches, and the
//! walk that finds them in an object.
//!
//! Paths are `/`-separated field names (`\/` escapes a slash inside a name,
//! as in annotation keys); a name ending in `[]` is a list. When the walk meets
//! a list, it descends into every element with the same remaining path, as
//! kustomize does.

use crate::error::{Error, Result};
use crate::kustomization::FieldSpec;
use crate::provenance::diff::KeyPath;
use crate::resource::id::Gvk;
use crate::resource::shared::StepRef;
use crate::yaml::Node;
use std::borrow::Cow;

/// A built-in field spec: group, version, kind, path, create.
pub(crate) type BuiltinSpec = (&'static str, &'static str, &'static str, &'static str, bool);

/// Turns a built-in table into field specs.
pub(crate) fn from_table(table: &[BuiltinSpec]) -> Vec<FieldSpec> {
    table
        .iter()
        .map(|(g, v, k, p, c)| FieldSpec {
            group: (*g).to_string(),
            version: (*v).to_string(),
            kind: (*k).to_string(),
            path: (*p).to_string(),
            create: *c,
        })
        .collect()
}

impl FieldSpec {
    /// Whether this spec applies to resources of `gvk`.
    pub fn selects(&self, gvk: &Gvk) -> bool {
        gvk.selected_by(&self.group, &self.version, &self.kind)
    }

    /// The path split into field names, unescaping `\/`.
    pub fn segments(&self) -> Vec<Cow<'_, str>> {
        let mut out = Vec::new();
        split_path_into(&self.path, &mut out);
        out
    }
}

/// Splits a field-spec path on unescaped `/`.
#[cfg(test)]
pub(crate) fn split_path(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    split_path_into(path, &mut out);
    out.into_iter().map(Cow::into_owned).collect()
}

/// Splits a field-spec path on unescaped `/` into `out` (cleared first), dropping empty
/// names. Names borrow from `path`; only one holding an escaped slash is copied. Transformers
/// split the same few paths for every resource, so this allocates nothing in the usual case
/// when `out` is reused.
pub(crate) fn split_path_into<'p>(path: &'p str, out: &mut Vec<Cow<'p, str>>) {
    out.clear();
    if !path.contains('\\') {
        out.extend(path.split('/').filter(|s| !s.is_empty()).map(Cow::Borrowed));
        return;
    }
    let mut cur = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'/') => {
                cur.push('/');
                chars.next();
            }
            '/' => {
                if !cur.is_empty() {
                    out.push(Cow::Owned(std::mem::take(&mut cur)));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(Cow::Owned(cur));
    }
}

/// What to create when the last path element is missing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CreateKind {
    /// Never create (for scalar setters that only change existing values,
    /// unless the spec asks for creation with a scalar).
    Scalar,
    Map,
}

/// Calls `f` on every node `path` reaches in `node`. With `create`, missing
/// fields (and null ones) on the way are created: mappings in the middle, and
/// at the end a mapping (`CreateKind::Map`) or a null the setter fills.
pub(crate) fn walk<S: AsRef<str>>(
    node: &mut Node,
    path: &[S],
    create: bool,
    last: CreateKind,
    f: &mut dyn FnMut(&mut Node) -> Result<()>,
) -> Result<()> {
    check_length(path.len(), || {
        path.iter()
            .map(|s| s.as_ref())
            .collect::<Vec<_>>()
            .join("/")
    })?;
    walk_traced(node, path, create, last, None, &mut |n, _| f(n))
}

/// A walk's callback that also gets the path from the root to the node it is
/// called on (list positions included), borrowed from the field specs (`'s`).
pub(crate) type TracedFn<'s, 'f> = dyn FnMut(&mut Node, &[StepRef<'s>]) -> Result<()> + 'f;

/// [`walk`], keeping the path to each node in `trail` when one is given (the callback
/// sees an empty path otherwise).
fn walk_traced<'p, S: AsRef<str>>(
    node: &mut Node,
    path: &'p [S],
    create: bool,
    last: CreateKind,
    mut trail: Option<&mut Vec<StepRef<'p>>>,
    f: &mut TracedFn<'p, '_>,
) -> Result<()> {
    let Some((first, rest)) = path.split_first() else {
        return f(node, trail.as_deref().map_or(&[], |t| t.as_slice()));
    };
    match node {
        Node::Seq(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                if let Some(t) = trail.as_deref_mut() {
                    t.push(StepRef::Index(i));
                }
                let r = walk_traced(item, path, create, last, trail.as_deref_mut(), f);
                if let Some(t) = trail.as_deref_mut() {
                    t.pop();
                }
                r?;
            }
            Ok(())
        }
        Node::Map(m) => {
            let first = first.as_ref();
            let (name, is_seq) = match first.strip_suffix("[]") {
                Some(n) => (n, true),
                None => (first, false),
            };
            let creating = create && !is_seq;
            if !m.contains_key(name) {
                if !creating {
                    return Ok(());
                }
                m.insert(name.to_string(), Node::Null);
            }
            let Some(child) = m.get_mut(name) else {
                return Ok(());
            };
            if child.is_null() {
                if creating && (!rest.is_empty() || last == CreateKind::Map) {
                    *child = Node::map();
                } else if is_seq {
                    *child = Node::Seq(Vec::new());
                } else if !rest.is_empty() {
                    return Ok(());
                }
            }
            if let Some(t) = trail.as_deref_mut() {
                t.push(StepRef::Key(name));
            }
            let r = walk_traced(child, rest, create, last, trail.as_deref_mut(), f);
            if let Some(t) = trail {
                t.pop();
            }
            r.map_err(|mut e| {
                if let Some(m) = e.message_mut().filter(|m| !m.starts_with("fieldName")) {
                    *m = format!("fieldName: {name}: {m}");
                }
                e
            })
        }
        Node::Null => Ok(()),
        other => Err(Error::invalid_config(format!(
            "expected sequence or mapping node, found {}",
            other.type_name()
        ))),
    }
}

/// What a walk of the field path `segments` can change in an object: what the path's
/// keys lead to, down to its first list spelt as one (`name[]`), which the walk may make
/// from a null. Everything the walk makes on the way (`create`), and every node it
/// hands its callback, is on that path, or in a list the path goes through (which a
/// comparison along the path compares whole, as it is not a mapping). An empty path is
/// the whole object.
pub(crate) fn scope_of<S: AsRef<str>>(segments: &[S]) -> KeyPath {
    let mut keys = Vec::with_capacity(segments.len());
    for segment in segments {
        let segment = segment.as_ref();
        if let Some(name) = segment.strip_suffix("[]") {
            keys.push(name.into());
            break;
        }
        keys.push(segment.into());
    }
    keys.into()
}

/// The specs with `create` turned off: for transformers that only rewrite values that
/// are there (images, vars), whatever a configuration says.
pub(crate) fn without_create(specs: &[FieldSpec]) -> Vec<FieldSpec> {
    specs
        .iter()
        .map(|fs| FieldSpec {
            create: false,
            ..fs.clone()
        })
        .collect()
}

/// Applies `f` at every field spec of `specs` that selects `gvk`.
pub(crate) fn apply_specs(
    node: &mut Node,
    gvk: &Gvk,
    specs: &[FieldSpec],
    last: CreateKind,
    f: &mut dyn FnMut(&mut Node) -> Result<()>,
) -> Result<()> {
    SplitSpecs::new(specs).apply(node, gvk, last, f)
}

/// Field specs with their paths split on first use, for a transformer that
/// walks the same specs over every resource of a map: each path is split once
/// per transformer run instead of once per resource.
pub(crate) struct SplitSpecs<'a> {
    specs: Vec<(&'a FieldSpec, std::sync::OnceLock<Vec<Cow<'a, str>>>)>,
    /// Each spec's [`scope_of`], made on first use.
    scopes: Vec<std::sync::OnceLock<KeyPath>>,
}

impl<'a> SplitSpecs<'a> {
    pub(crate) fn new(specs: &'a [FieldSpec]) -> SplitSpecs<'a> {
        SplitSpecs {
            specs: specs
                .iter()
                .map(|fs| (fs, std::sync::OnceLock::new()))
                .collect(),
            scopes: specs.iter().map(|_| std::sync::OnceLock::new()).collect(),
        }
    }

    /// Applies `f` at every spec that selects `gvk`.
    pub(crate) fn apply(
        &self,
        node: &mut Node,
        gvk: &Gvk,
        last: CreateKind,
        f: &mut dyn FnMut(&mut Node) -> Result<()>,
    ) -> Result<()> {
        self.walk_specs(node, gvk, last, None, &mut |n, _| f(n))
    }

    /// [`SplitSpecs::apply`], giving `f` the path to each node it is called on too;
    /// `trail` is working space (empty on return), reused across resources.
    pub(crate) fn apply_traced<'s>(
        &'s self,
        node: &mut Node,
        gvk: &Gvk,
        last: CreateKind,
        trail: &mut Vec<StepRef<'s>>,
        f: &mut TracedFn<'s, '_>,
    ) -> Result<()> {
        trail.clear();
        self.walk_specs(node, gvk, last, Some(trail), f)
    }

    /// Adds to `within` the paths a walk of the specs selecting `gvk` writes along (see
    /// `Resource::node_mut_within`): one for each spec, as [`scope_of`] makes it.
    pub(crate) fn scope(&self, gvk: &Gvk, within: &mut Vec<KeyPath>) {
        for ((fs, segments), scope) in self.specs.iter().zip(&self.scopes) {
            if fs.selects(gvk) {
                let scope = scope.get_or_init(|| scope_of(segments.get_or_init(|| fs.segments())));
                within.push(KeyPath::clone(scope));
            }
        }
    }

    fn walk_specs<'s>(
        &'s self,
        node: &mut Node,
        gvk: &Gvk,
        last: CreateKind,
        mut trail: Option<&mut Vec<StepRef<'s>>>,
        f: &mut TracedFn<'s, '_>,
    ) -> Result<()> {
        for (fs, segments) in self.specs.iter().filter(|(fs, _)| fs.selects(gvk)) {
            let segments = segments.get_or_init(|| fs.segments());
            check_length(segments.len(), || fs.path.clone())?;
            walk_traced(node, segments, fs.create, last, trail.as_deref_mut(), f)
                .map_err(|e| e.context(format!("considering field '{}'", fs.path)))?;
        }
        Ok(())
    }
}

/// The most segments a field path (a replacement's `fieldPath`/`fieldPaths`, a field
/// spec's `path`) may have: as deep as the YAML parser lets a document nest. Each segment
/// is a level of the walk and, with `create: true`, of the resource built, which every
/// later step walks again; real paths have a handful of segments.
pub(crate) const MAX_SEGMENTS: usize = 512;

/// Refuses a path of `count` segments past [`MAX_SEGMENTS`]; `text` names it.
pub(crate) fn check_segments(count: usize, text: &str) -> Result<()> {
    if count <= MAX_SEGMENTS {
        return Ok(());
    }
    let shown: String = text.chars().take(60).collect();
    Err(Error::limit(
        format!(
            "field path '{shown}…' has {count} segments, more than the {MAX_SEGMENTS} kbuild accepts"
        ),
        "a field path names a field a few levels down; shorten it",
    ))
}

/// [`check_segments`] with the text made only when needed.
fn check_length(count: usize, text: impl FnOnce() -> String) -> Result<()> {
    if count <= MAX_SEGMENTS {
        return Ok(());
    }
    check_segments(count, &text())
}

/// Adds specs from `extra` to `base`, skipping exact duplicates (kustomize
/// merges field-spec lists this way).
pub(crate) fn merge_specs(base: &mut Vec<FieldSpec>, extra: &[FieldSpec]) {
    for fs in extra {
        let dup = base.iter().any(|b| {
            b.group == fs.group && b.version == fs.version && b.kind == fs.kind && b.path == fs.path
        });
        if !dup {
            base.push(fs.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walks_scope_ends_at_its_first_list_spelt_as_one() {
        let keys = |t: KeyPath| t.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let scope = |path: &str| keys(scope_of(&split_path(path)));
        assert_eq!(scope("metadata/labels"), ["metadata", "labels"]);
        assert_eq!(
            scope("spec/volumeClaimTemplates[]/metadata/labels"),
            ["spec", "volumeClaimTemplates"]
        );
        // A list the walk goes through unnamed is compared whole where it is met.
        assert_eq!(
            scope("spec/template/spec/containers/image"),
            ["spec", "template", "spec", "containers", "image"]
        );
        assert!(scope("").is_empty());
    }

    #[test]
    fn splits_without_empty_names() {
        assert_eq!(split_path("/spec//template/"), vec!["spec", "template"]);
        assert_eq!(split_path(""), Vec::<String>::new());
        assert_eq!(split_path("a\\/b//c\\/"), vec!["a/b", "c/"]);
        assert_eq!(split_path("a\\b/c"), vec!["a\\b", "c"]);
    }

    #[test]
    fn splits_escaped_slashes() {
        assert_eq!(
            split_path("metadata/annotations/a.io\\/b"),
            vec!["metadata", "annotations", "a.io/b"]
        );
    }
}
