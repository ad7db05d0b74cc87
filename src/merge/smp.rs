//! Strategic merge patches as kustomize applies them (`patchesStrategicMerge`, and `patches`
//! whose patch is not a JSON patch): kyaml's `merge2` walker with the OpenAPI schema, new
//! list elements prepended.
//!
//! The rules, with kustomize's quirks (checked with `kubectl kustomize`, v5.5.0):
//! - A scalar from the patch replaces the destination's; `null` removes the field. A field
//!   the patch does not mention is kept, and a `null` already in the destination stays.
//! - Mappings merge field by field. `$patch: delete` removes the mapping, `$patch: replace`
//!   puts the patch's mapping in its place, `$patch: merge` is the default. An unknown value
//!   is an error, except on a mapping the destination does not have: there kyaml ignores the
//!   directive and the `$patch` key stays in the output.
//! - Lists merge element by element when the schema gives them a `merge` strategy (see
//!   `assoc`); all other lists, including lists of kinds kustomize has no schema for
//!   (custom resources), are replaced by the patch's list as written, so directives inside
//!   them stay as data.
//! - `$retainKeys`, `$setElementOrder/<field>` and `$deleteFromPrimitiveList/<field>` are
//!   apimachinery directives that kyaml does not know: kustomize leaves them in the output as
//!   ordinary fields, and so does kbuild.
//! - A mapping or list the patch adds is first merged with itself, which applies the
//!   directives and `null`s inside it.
//! - The destination is walked in full, even where the patch says nothing, so kyaml's list
//!   normalisation (dropping null and empty elements, collapsing elements with the same key)
//!   happens on every associative list of a patched resource.
//! - Where a destination and a patch value are of different kinds (a mapping and a scalar),
//!   the merge fails.
//!
//! Known gaps, both because kbuild's node keeps no YAML syntax:
//! - kyaml removes a destination field written with an empty value (`key:`) when the
//!   resource is patched, but keeps `key: null` and `key: ~`; kbuild keeps all three (and
//!   treats a null *list element* as kyaml treats a tagged null: dropped);
//! - kyaml reads a YAML comment holding a JSON object as the schema of the field it annotates
//!   (`containers: # {"x-kubernetes-patch-strategy": "merge", ...}`); comments are gone by the
//!   time kbuild merges.

use crate::error::Error;
use crate::openapi::{Schemas, TypeRef};
use crate::yaml::map::{Key, Style};
use crate::yaml::{Map, Node};

use super::assoc::{self, PatchList};
use super::directive::{Directive, take_directive};
use super::scalar_style::restyled;

/// Where elements of an associative list that only the patch has go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListIncrease {
    /// Before the destination's elements, in patch order: what kustomize's patches do.
    #[default]
    Prepend,
    /// After the destination's elements (kyaml's default, used by its own tests).
    Append,
}

/// How to merge.
#[derive(Clone, Copy, Debug)]
pub struct MergeOptions<'s> {
    /// Schemas for looking up a resource's schema from its `apiVersion` and `kind`, at the top
    /// and at any nested object where the schema in use says nothing.
    pub schemas: &'s Schemas,
    /// Where new elements of associative lists go.
    pub list_increase: ListIncrease,
    /// Without a schema, treat a list whose elements all have a `name` as merging by `name`
    /// (kyaml's option; kustomize leaves it off).
    pub infer_associative_lists: bool,
}

impl MergeOptions<'static> {
    /// What kustomize's patch transformers use: built-in schema, new elements prepended, no
    /// inferred merge keys.
    pub fn kustomize() -> MergeOptions<'static> {
        MergeOptions {
            schemas: Schemas::builtin(),
            list_increase: ListIncrease::Prepend,
            infer_associative_lists: false,
        }
    }
}

impl Default for MergeOptions<'static> {
    fn default() -> Self {
        MergeOptions::kustomize()
    }
}

/// Applies a strategic merge patch to `target` as kustomize does. `schema` is the target's
/// schema; with `None` it is looked up from `apiVersion` and `kind` in the built-in table.
/// A patch that deletes the whole document (`$patch: delete` at the top) leaves
/// [`Node::Null`] in `target`.
pub fn apply(target: &mut Node, patch: &Node, schema: Option<TypeRef<'_>>) -> Result<(), Error> {
    apply_with(target, patch, schema, &MergeOptions::kustomize())
}

/// [`apply`] with explicit options.
pub fn apply_with<'s>(
    target: &mut Node,
    patch: &Node,
    schema: Option<TypeRef<'s>>,
    options: &MergeOptions<'s>,
) -> Result<(), Error> {
    // kyaml edits the patch as it goes (directives are removed once read); work on a copy.
    apply_owned(target, patch.clone(), schema, options)
}

/// [`apply_with`] for a patch the caller no longer needs (it is edited as the merge goes).
pub fn apply_owned<'s>(
    target: &mut Node,
    mut work: Node,
    schema: Option<TypeRef<'s>>,
    options: &MergeOptions<'s>,
) -> Result<(), Error> {
    let mut walker = Walker {
        options,
        path: Vec::new(),
    };
    match walker.walk(Some(target), Some(&mut work), schema)? {
        Outcome::Keep => {}
        Outcome::Clear => *target = Node::Null,
        Outcome::UsePatch => *target = work,
        Outcome::Set(node) => *target = node,
    }
    Ok(())
}

/// One step of the walk's position: a field, or a list element by merge key and value.
enum PathPart {
    Field(Key),
    Element(Key, Key),
}

/// What a walk leaves in the destination's place.
pub(super) enum Outcome {
    /// The destination node, merged in place.
    Keep,
    /// Nothing: the field or element is removed.
    Clear,
    /// The patch's node (already merged with itself where kyaml does so).
    UsePatch,
    /// A new node.
    Set(Node),
}

/// The kind of node kyaml dispatches on: the first non-null source's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Empty,
    Map,
    Seq,
    Scalar,
}

fn kind(node: &Node) -> Kind {
    match node {
        Node::Null => Kind::Empty,
        Node::Map(_) => Kind::Map,
        Node::Seq(_) => Kind::Seq,
        _ => Kind::Scalar,
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Empty => "null",
        Kind::Map => "mapping",
        Kind::Seq => "sequence",
        Kind::Scalar => "scalar",
    }
}

/// The recursive merge, one node pair at a time.
pub(super) struct Walker<'o, 's> {
    options: &'o MergeOptions<'s>,
    /// Where the walk is, for error messages.
    path: Vec<PathPart>,
}

impl<'o, 's> Walker<'o, 's> {
    pub(super) fn list_increase(&self) -> ListIncrease {
        self.options.list_increase
    }

    pub(super) fn push_element(&mut self, key: &str, value: &str) {
        // Written out only for an error message: this runs for every list element walked.
        self.path
            .push(PathPart::Element(Key::new(key), Key::new(value)));
    }

    pub(super) fn pop(&mut self) {
        self.path.pop();
    }

    fn push_field(&mut self, key: &Key) {
        self.path.push(PathPart::Field(key.clone()));
    }

    fn error(&self, msg: impl std::fmt::Display) -> Error {
        let mut at = String::new();
        for part in &self.path {
            match part {
                PathPart::Field(key) => {
                    if !at.is_empty() && !key.starts_with('[') {
                        at.push('.');
                    }
                    at.push_str(key);
                }
                PathPart::Element(key, value) if key.is_empty() => {
                    at.push_str(&format!("[{value}]"));
                }
                PathPart::Element(key, value) => at.push_str(&format!("[{key}={value}]")),
            }
        }
        if at.is_empty() {
            Error::invalid_patch(format!("strategic merge patch: {msg}"))
        } else {
            Error::invalid_patch(format!("strategic merge patch at {at}: {msg}"))
        }
    }

    /// The schema of a node kyaml finds from its own `apiVersion` and `kind` when the schema
    /// in use says nothing about it.
    fn schema_of(&self, node: Option<&Node>) -> Option<TypeRef<'s>> {
        self.schema_of_map(node?.as_map()?)
    }

    fn schema_of_map(&self, map: &Map) -> Option<TypeRef<'s>> {
        let api_version = map
            .get("apiVersion")
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())?;
        let kind = map
            .get("kind")
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())?;
        self.options.schemas.lookup_api_version(api_version, kind)
    }

    /// Merges `patch` into `dest` (either may be missing) and says what to leave in `dest`'s
    /// place.
    pub(super) fn walk(
        &mut self,
        dest: Option<&mut Node>,
        patch: Option<&mut Node>,
        schema: Option<TypeRef<'s>>,
    ) -> Result<Outcome, Error> {
        if patch.is_none() {
            // Where the patch says nothing the destination stays, normalised (and a field
            // neither side has is dropped, as kyaml's walk of two missing nodes says).
            return match dest {
                Some(dest) => {
                    self.untouched(dest, schema)?;
                    Ok(Outcome::Keep)
                }
                None => Ok(Outcome::Clear),
            };
        }
        let dest_kind = dest.as_deref().map_or(Kind::Empty, kind);
        let patch_kind = patch.as_deref().map_or(Kind::Empty, kind);
        let kind = if dest_kind != Kind::Empty {
            dest_kind
        } else {
            patch_kind
        };
        if patch_kind != Kind::Empty && patch_kind != kind {
            return Err(self.error(format_args!(
                "wrong node kind: the resource has a {} where the patch has a {}",
                kind_name(kind),
                kind_name(patch_kind)
            )));
        }
        let schema = schema
            .or_else(|| self.schema_of(dest.as_deref()))
            .or_else(|| self.schema_of(patch.as_deref()));
        match kind {
            Kind::Empty | Kind::Map => self.walk_map(dest, patch, schema),
            Kind::Seq => self.walk_seq(dest, patch, schema),
            Kind::Scalar => Ok(if patch.is_some() {
                Outcome::UsePatch
            } else {
                Outcome::Keep
            }),
        }
    }

    fn walk_map(
        &mut self,
        dest: Option<&mut Node>,
        patch: Option<&mut Node>,
        schema: Option<TypeRef<'s>>,
    ) -> Result<Outcome, Error> {
        let dest = match dest {
            Some(Node::Map(d)) => d,
            // The destination has no mapping here: the patch's is added.
            dest => return self.add_map(dest.is_some(), patch, schema),
        };
        let Some(patch) = patch else {
            self.merge_fields(dest, None, schema)?;
            return Ok(Outcome::Keep);
        };
        if patch.is_null() {
            return Ok(Outcome::Clear);
        }
        match take_directive(patch).map_err(|e| self.error(e))? {
            Directive::Delete => Ok(Outcome::Clear),
            Directive::Replace => {
                self.normalize_fields(patch, schema)?;
                Ok(Outcome::UsePatch)
            }
            Directive::Merge => {
                self.merge_fields(dest, patch.as_map_mut(), schema)?;
                Ok(Outcome::Keep)
            }
        }
    }

    /// A mapping (or null) from the patch where the destination has none, or a null.
    fn add_map(
        &mut self,
        dest_is_null: bool,
        patch: Option<&mut Node>,
        schema: Option<TypeRef<'s>>,
    ) -> Result<Outcome, Error> {
        let Some(patch) = patch else {
            // A `null` the patch does not touch stays.
            return Ok(if dest_is_null {
                Outcome::Keep
            } else {
                Outcome::Clear
            });
        };
        // kyaml ignores an unknown directive here, and the `$patch` key stays.
        if matches!(patch, Node::Map(_)) && matches!(take_directive(patch), Ok(Directive::Delete)) {
            return Ok(Outcome::Clear);
        }
        self.normalize_fields(patch, schema)?;
        Ok(if patch.is_null() {
            Outcome::Clear
        } else {
            Outcome::UsePatch
        })
    }

    /// Merges the fields of two mappings; the destination keeps its field order and gains the
    /// patch's new fields at the end, sorted (kyaml visits fields in sorted order).
    ///
    /// kyaml visits the union of the keys in sorted order. Fields are independent of each
    /// other, so only two things show that order: where new fields go (sorted, at the end)
    /// and which error comes out first. Fields the patch does not mention are walked first,
    /// in the destination's order and without sorting; only when one fails are the fields
    /// that sort before it walked too, in order, to find the error kyaml reports.
    fn merge_fields(
        &mut self,
        dest: &mut Map,
        patch: Option<&mut Map>,
        schema: Option<TypeRef<'s>>,
    ) -> Result<(), Error> {
        let Some(patch) = patch else {
            return self.untouched_fields(dest, schema);
        };
        for i in 0..dest.len() {
            let Some((key, value)) = dest.get_index_mut(i) else {
                break;
            };
            if !needs_walk(value) || patch.contains_key(key) {
                continue;
            }
            self.push_field(key);
            let result = self.untouched(value, schema.and_then(|s| s.field(key)));
            self.path.pop();
            if let Err(err) = result {
                return Err(self.first_error(dest, Some(patch), schema, i, err));
            }
        }
        // The patch's fields in sorted order (the walks below change values, not keys).
        let mut order: Vec<usize> = (0..patch.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            let key = |i| patch.get_index(i).map(|(k, _)| k);
            key(a).cmp(&key(b))
        });
        for i in order {
            let Some((key, patch_value)) = patch.get_index_mut(i) else {
                continue;
            };
            let child = schema.and_then(|s| s.field(key));
            self.push_field(key);
            let at = dest.get_index_of(key);
            let dest_value = at.and_then(|d| dest.get_index_mut(d)).map(|(_, v)| v);
            let outcome = self.walk(dest_value, Some(patch_value), child);
            self.path.pop();
            let replacement = match outcome? {
                Outcome::Keep => continue,
                Outcome::Clear => None,
                Outcome::UsePatch => patch
                    .get_index(i)
                    .map(|(_, v)| v)
                    .filter(|v| !v.is_null())
                    .cloned(),
                Outcome::Set(node) => Some(node),
            };
            let dest_style = at.map_or(Style::Plain, |d| dest.style_at(d));
            // The patch's node comes with the text it was written as (kyaml moves the
            // node): a number keeps its spelling, and over a quoted value becomes it.
            let patch_text = patch
                .get_index(i)
                .and_then(|(k, _)| patch.typed_text(k))
                .map(Key::from);
            let patch_quoted_typed = patch
                .get_index(i)
                .and_then(|(k, _)| patch.quoted_typed_text(k))
                .map(Key::from);
            match (replacement, at.and_then(|d| dest.get_index_mut(d))) {
                (Some(node), Some((key, slot))) => {
                    let key = key.clone();
                    let number = matches!(
                        node,
                        Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_)
                    );
                    let quoted = dest_style.is_quoted();
                    *slot = match &patch_text {
                        Some(text) if number && quoted => Node::text(text.as_str()),
                        _ => restyled(node, dest_style),
                    };
                    // The text kept beside the value: kyaml keeps the patch's tag over a
                    // quoted value, so a var reads the number or boolean turned into its
                    // text (here, or by `spell_typed_over_quoted`); else the patch's text.
                    let kept = match &*slot {
                        Node::Str(text) if number && quoted => Some(Key::from(&**text)),
                        _ if quoted => patch_quoted_typed.or(patch_text),
                        _ => patch_text,
                    };
                    dest.forget_typed_text(&key);
                    if let Some(text) = kept {
                        dest.set_typed_text(&key, &text);
                    }
                    // The patch's node keeps its tag: an untagged destination is typed
                    // from here on, and an annotation kept as its plain text (which a JSON
                    // patch would read as a number) holds the patch's string.
                    if matches!(dest_style, Style::Untagged | Style::Kept(_))
                        || (dest_style == Style::PlainText && patch.style_at(i) != Style::PlainText)
                    {
                        dest.set_style_at(at.unwrap_or_default(), Style::Plain);
                    }
                }
                (Some(node), None) => {
                    if let Some((key, _)) = patch.get_index(i) {
                        // A new field is the patch's node, with the patch's style (and
                        // its key node, quotes included).
                        let style = patch.style_at(i);
                        let key_quote = patch.key_quote_at(i);
                        let key = key.clone();
                        let (d, _) = dest.insert_full(key.clone(), node);
                        dest.set_style_at(d, style);
                        if let Some(q) = key_quote {
                            dest.set_key_quote_at(d, q);
                        }
                        if let Some(text) = patch_text {
                            dest.set_typed_text(&key, &text);
                        }
                    }
                }
                (None, Some(_)) => {
                    if let Some((key, _)) = patch.get_index(i) {
                        dest.shift_remove(key);
                    }
                }
                (None, None) => {}
            }
        }
        Ok(())
    }

    /// kyaml's walk of a destination node the patch does not reach (`walk(dest, None)`):
    /// scalars and nulls stay as they are, mappings are walked field by field and
    /// associative lists are normalised (see `assoc`). Nothing is ever removed here.
    pub(super) fn untouched(
        &mut self,
        dest: &mut Node,
        schema: Option<TypeRef<'s>>,
    ) -> Result<(), Error> {
        match dest {
            Node::Map(map) => {
                // Only fields holding a mapping or a list have anything to do; the schema
                // of a mapping without one (looked up from its own apiVersion and kind) is
                // not needed for the others.
                if !map.values().any(is_collection) {
                    return Ok(());
                }
                let schema = schema.or_else(|| self.schema_of_map(map));
                self.untouched_fields(map, schema)
            }
            Node::Seq(list) => {
                if !self.is_associative_list(schema, list) {
                    return Ok(());
                }
                self.merge_list(list, PatchList::Missing, schema)
            }
            _ => Ok(()),
        }
    }

    /// The fields of a mapping the patch does not reach, `schema` being the mapping's
    /// (already resolved). See [`Walker::merge_fields`] on the order.
    fn untouched_fields(
        &mut self,
        map: &mut Map,
        schema: Option<TypeRef<'s>>,
    ) -> Result<(), Error> {
        for i in 0..map.len() {
            let Some((key, value)) = map.get_index_mut(i) else {
                break;
            };
            if !needs_walk(value) {
                continue;
            }
            self.push_field(key);
            let result = self.untouched(value, schema.and_then(|s| s.field(key)));
            self.path.pop();
            if let Err(err) = result {
                return Err(self.first_error(map, None, schema, i, err));
            }
        }
        Ok(())
    }

    /// The error kyaml's sorted walk of the fields of `dest` (and `patch`) reports, given
    /// that the walk in the destination's order of the fields the patch does not mention
    /// failed at position `failed` with `err`, all those before it having passed: the fields
    /// that sort before the failed one and have not been walked yet are walked in order, and
    /// the first error among them wins.
    fn first_error(
        &mut self,
        dest: &mut Map,
        mut patch: Option<&mut Map>,
        schema: Option<TypeRef<'s>>,
        failed: usize,
        err: Error,
    ) -> Error {
        let Some((failed_key, _)) = dest.get_index(failed) else {
            return err;
        };
        let failed_key = failed_key.clone();
        let in_patch = |patch: &Option<&mut Map>, key: &str| {
            patch.as_deref().is_some_and(|p| p.contains_key(key))
        };
        let mut before: Vec<Key> = dest
            .keys()
            .enumerate()
            .filter(|&(i, k)| *k < failed_key && (i > failed || in_patch(&patch, k)))
            .map(|(_, k)| k.clone())
            .collect();
        if let Some(p) = patch.as_deref() {
            before.extend(
                p.keys()
                    .filter(|k| **k < failed_key && !dest.contains_key(k))
                    .cloned(),
            );
        }
        before.sort_unstable();
        for key in before {
            let child = schema.and_then(|s| s.field(&key));
            self.push_field(&key);
            let patch_value = patch.as_deref_mut().and_then(|p| p.get_mut(&key));
            let result = self.walk(dest.get_mut(&key), patch_value, child);
            self.path.pop();
            if let Err(first) = result {
                return first;
            }
        }
        err
    }

    /// Merges a patch mapping with itself: directives and nulls below it take effect.
    fn normalize_fields(
        &mut self,
        node: &mut Node,
        schema: Option<TypeRef<'s>>,
    ) -> Result<(), Error> {
        let Node::Map(map) = node else { return Ok(()) };
        let mut keys: Vec<Key> = map.keys().cloned().collect();
        keys.sort_unstable();
        for key in keys {
            let child = schema.and_then(|s| s.field(&key));
            let Some(value) = map.get_mut(&key) else {
                continue;
            };
            self.push_field(&key);
            let outcome = self.normalize(value, child);
            self.path.pop();
            if let Outcome::Clear = outcome? {
                map.shift_remove(&key);
            }
        }
        Ok(())
    }

    /// Merges a node with itself (kyaml walking the same node as destination and patch):
    /// `Clear` when it disappears, else `Keep`.
    pub(super) fn normalize(
        &mut self,
        node: &mut Node,
        schema: Option<TypeRef<'s>>,
    ) -> Result<Outcome, Error> {
        let schema = schema.or_else(|| self.schema_of(Some(node)));
        match node {
            Node::Null => Ok(Outcome::Clear),
            Node::Map(_) => {
                if take_directive(node).map_err(|e| self.error(e))? == Directive::Delete {
                    return Ok(Outcome::Clear);
                }
                self.normalize_fields(node, schema)?;
                Ok(Outcome::Keep)
            }
            Node::Seq(_) => {
                if !self.is_associative(schema, [Some(&*node), None]) {
                    return Ok(Outcome::Keep);
                }
                if take_directive(node).map_err(|e| self.error(e))? == Directive::Delete {
                    return Ok(Outcome::Clear);
                }
                if let Node::Seq(list) = node {
                    self.merge_list(list, PatchList::SameAsDest, schema)?;
                }
                Ok(Outcome::Keep)
            }
            _ => Ok(Outcome::Keep),
        }
    }

    fn walk_seq(
        &mut self,
        dest: Option<&mut Node>,
        patch: Option<&mut Node>,
        schema: Option<TypeRef<'s>>,
    ) -> Result<Outcome, Error> {
        if !self.is_associative(schema, [dest.as_deref(), patch.as_deref()]) {
            // Replaced by the patch's list as written, or kept.
            return Ok(if patch.is_some() {
                Outcome::UsePatch
            } else {
                Outcome::Keep
            });
        }
        let dest = match dest {
            Some(Node::Seq(d)) => d,
            // No list in the destination: the patch's list, merged with itself.
            _ => {
                let Some(Node::Seq(patch)) = patch else {
                    return Ok(Outcome::Clear);
                };
                let mut list = patch.clone();
                self.merge_list(&mut list, PatchList::SameAsDest, schema)?;
                return Ok(Outcome::Set(Node::Seq(list)));
            }
        };
        let patch = match patch {
            None => {
                self.merge_list(dest, PatchList::Missing, schema)?;
                return Ok(Outcome::Keep);
            }
            Some(p) if p.is_null() => return Ok(Outcome::Clear),
            Some(p) => p,
        };
        match take_directive(patch).map_err(|e| self.error(e))? {
            Directive::Delete => Ok(Outcome::Clear),
            Directive::Replace => {
                let mut list = patch.as_seq().cloned().unwrap_or_default();
                self.merge_list(&mut list, PatchList::SameAsDest, schema)?;
                Ok(Outcome::Set(Node::Seq(list)))
            }
            Directive::Merge => {
                let Node::Seq(patch) = patch else {
                    return Err(self.error("wrong node kind: expected a sequence in the patch"));
                };
                self.merge_list(dest, PatchList::Separate(patch), schema)?;
                Ok(Outcome::Keep)
            }
        }
    }

    /// Whether kyaml merges a list element by element: its schema's strategy includes
    /// `merge`; without a schema, only when inferring and some list has `name`s throughout.
    fn is_associative(&self, schema: Option<TypeRef<'s>>, lists: [Option<&Node>; 2]) -> bool {
        match schema {
            Some(s) => s.patch_strategy().merges(),
            None => {
                self.options.infer_associative_lists
                    && lists
                        .iter()
                        .flatten()
                        .any(|l| l.as_seq().is_some_and(|items| all_named(items)))
            }
        }
    }

    /// Merges an associative list by the keys its schema gives (inferring `name`).
    fn merge_list(
        &mut self,
        dest: &mut Vec<Node>,
        patch: PatchList<'_>,
        schema: Option<TypeRef<'s>>,
    ) -> Result<(), Error> {
        let mut keys: Vec<&str> = schema.map(|s| s.merge_keys()).unwrap_or_default();
        if keys.is_empty() && schema.is_none_or(|s| s.patch_strategy().is_empty()) {
            let patch_items = match &patch {
                PatchList::Separate(p) => Some(p.as_slice()),
                _ => None,
            };
            keys.push(self.inferred_key(dest, patch_items)?);
        }
        if keys.is_empty() {
            keys.push("");
        }
        let items = schema.and_then(|s| s.items());
        assoc::merge(self, dest, patch, &keys, items)
    }

    /// [`Walker::is_associative`] for a destination list the patch does not reach.
    fn is_associative_list(&self, schema: Option<TypeRef<'s>>, list: &[Node]) -> bool {
        match schema {
            Some(s) => s.patch_strategy().merges(),
            None => self.options.infer_associative_lists && all_named(list),
        }
    }

    /// kyaml's inferred merge key: `name`, when every non-empty list has it on all elements.
    fn inferred_key(&self, dest: &[Node], patch: Option<&[Node]>) -> Result<&'static str, Error> {
        let mut key = "";
        for list in [Some(dest), patch]
            .into_iter()
            .flatten()
            .filter(|l| !l.is_empty())
        {
            let found = if all_named(list) { "name" } else { "" };
            if !key.is_empty() && key != found {
                return Err(self.error(format_args!("conflicting merge keys [{key},{found}]")));
            }
            key = found;
        }
        if key.is_empty() {
            return Err(self.error("no merge key found"));
        }
        Ok(key)
    }
}

/// A mapping or a list: the only nodes a walk without a patch can change.
fn is_collection(node: &Node) -> bool {
    matches!(node, Node::Map(_) | Node::Seq(_))
}

/// Whether a walk without a patch may change `node` (or fail): a list, or a mapping with a
/// list or mapping in it. Scalars, nulls and mappings of scalars stay as they are whatever
/// their schema, so they are passed over without looking the schema up.
pub(super) fn needs_walk(node: &Node) -> bool {
    match node {
        Node::Map(m) => m.values().any(is_collection),
        Node::Seq(_) => true,
        _ => false,
    }
}

/// Whether every element is a mapping with a `name` field (true for an empty list).
pub(super) fn all_named(items: &[Node]) -> bool {
    items
        .iter()
        .all(|e| e.as_map().is_some_and(|m| m.contains_key("name")))
}

#[cfg(test)]
#[path = "smp_tests.rs"]
mod tests;
