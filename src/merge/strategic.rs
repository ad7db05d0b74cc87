//! Strategic merge patches as Kubernetes computes and applies them (apimachinery's
//! `strategicpatch`, the library behind `kubectl apply` and the API server's PATCH), as
//! opposed to [`super::smp`], which follows kustomize's kyaml walker.
//!
//! - [`create_two_way_patch`]: the patch that turns `original` into `modified`.
//! - [`create_three_way_patch`]: what `kubectl apply` sends: changes from the live object
//!   (`current`) to the new configuration (`modified`) without deletions, plus the deletions
//!   from the last applied configuration (`original`) to `modified`.
//! - [`three_way_conflicts`]: whether such a patch overrides changes made to the live object.
//! - [`apply_patch`]: applies a patch.
//!
//! The rules that differ from kyaml (from apimachinery's tests, see the shared corpus):
//! lists with a `merge` strategy merge by their merge key, lists of scalars with it are
//! merged as sets; `$setElementOrder/<list>` fixes the order of the patched list, and
//! elements only the live object has are slotted in by their live position;
//! `$deleteFromPrimitiveList/<list>` removes scalars; `$retainKeys` (fields with a
//! `retainKeys` strategy: volume sources, deployment strategy) clears every field it does
//! not list; `$patch: delete` on a mapping leaves `{}`; `$patch: merge` in a list is an error.
//!
//! Layout: this file holds the entry points, the schema interface ([`PatchSchema`]) and
//! the options; `diff` computes patches, `merge` applies them to mappings, `list` merges
//! lists, `directives` handles `$retainKeys` and `$setElementOrder`, `order` places list
//! elements, `conflict` detects conflicts, `value` compares and prints values as Go does.

mod conflict;
mod diff;
mod directives;
mod list;
mod merge;
mod order;
#[cfg(test)]
mod quadratic;
mod value;

use crate::error::Error;
use crate::openapi::TypeRef;
use crate::yaml::{Map, Node};

use conflict::maps_have_conflicts;
use diff::diff_maps;
use merge::merge_map;

/// The `$patch` key.
pub const DIRECTIVE: &str = "$patch";
/// The key listing the fields a `retainKeys` object keeps.
pub const RETAIN_KEYS: &str = "$retainKeys";
/// Prefix of the key holding the scalars to remove from a merging list of scalars.
pub const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
/// Prefix of the key giving the order of a merging list.
pub const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// A field's `x-kubernetes-patch-strategy` (or Go `patchStrategy` tag), read as flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Strategy {
    /// `merge`: a list merges element by element (objects by merge key, scalars as a set).
    pub merge: bool,
    /// `replace`: the patch replaces the field whole.
    pub replace: bool,
    /// `retainKeys`: fields missing from the patch's `$retainKeys` list are cleared.
    pub retain_keys: bool,
}

/// The patch metadata a strategic merge needs, at one position of a schema.
pub trait PatchSchema: Copy {
    /// The schema of a field of this object. `Ok(None)`: nothing is known below (no
    /// metadata); `Err`: the schema knows this object and it has no such field.
    fn field(&self, name: &str) -> Result<Option<Self>, Error>;
    /// The schema of this list's elements.
    fn items(&self) -> Option<Self>;
    /// This field's patch strategy.
    fn strategy(&self) -> Strategy;
    /// This list's merge key.
    fn merge_key(&self) -> Option<&str>;
}

impl PatchSchema for TypeRef<'_> {
    fn field(&self, name: &str) -> Result<Option<Self>, Error> {
        Ok(TypeRef::field(self, name))
    }

    fn items(&self) -> Option<Self> {
        TypeRef::items(self)
    }

    fn strategy(&self) -> Strategy {
        let s = self.patch_strategy();
        Strategy {
            merge: s.merges(),
            replace: s.replaces(),
            retain_keys: s.retains_keys(),
        }
    }

    fn merge_key(&self) -> Option<&str> {
        TypeRef::merge_key(self)
    }
}

/// The metadata of one field: its schema, strategy and merge key.
struct Meta<S> {
    schema: Option<S>,
    strategy: Strategy,
    merge_key: String,
}

fn lookup<S: PatchSchema>(schema: Option<S>, key: &str, slice: bool) -> Result<Meta<S>, Error> {
    let Some(s) = schema else {
        return Ok(Meta {
            schema: None,
            strategy: Strategy::default(),
            merge_key: String::new(),
        });
    };
    let Some(f) = s.field(key)? else {
        return Ok(Meta {
            schema: None,
            strategy: Strategy::default(),
            merge_key: String::new(),
        });
    };
    Ok(Meta {
        schema: if slice { f.items() } else { Some(f) },
        strategy: f.strategy(),
        merge_key: f.merge_key().unwrap_or("").to_string(),
    })
}

#[derive(Clone, Copy, Default)]
struct DiffOptions {
    ignore_changes_and_additions: bool,
    ignore_deletions: bool,
    set_element_order: bool,
    build_retain_keys: bool,
}

#[derive(Clone, Copy, Default)]
struct MergeOptions {
    merge_parallel_list: bool,
    ignore_unmatched_nulls: bool,
}

fn as_object(node: &Node, what: &str) -> Result<Map, Error> {
    match node {
        Node::Null => Ok(Map::new()),
        Node::Map(m) => Ok(m.clone()),
        other => Err(Error::invalid_patch(format!(
            "strategic merge patch: the {what} is a {}, not an object",
            other.type_name()
        ))),
    }
}

/// The patch that turns `original` into `modified` (apimachinery's
/// `CreateTwoWayMergePatch`).
pub fn create_two_way_patch<S: PatchSchema>(
    original: &Node,
    modified: &Node,
    schema: Option<S>,
) -> Result<Node, Error> {
    let options = DiffOptions {
        set_element_order: true,
        ..DiffOptions::default()
    };
    let o = as_object(original, "original object")?;
    let m = as_object(modified, "modified object")?;
    Ok(Node::Map(diff_maps(&o, &m, schema, options)?))
}

/// The patch `kubectl apply` sends (apimachinery's `CreateThreeWayMergePatch` with
/// `overwrite`): `original` is the last applied configuration, `modified` the new one,
/// `current` the live object.
pub fn create_three_way_patch<S: PatchSchema>(
    original: &Node,
    modified: &Node,
    current: &Node,
    schema: Option<S>,
) -> Result<Node, Error> {
    let o = as_object(original, "last applied configuration")?;
    let m = as_object(modified, "configuration")?;
    let c = as_object(current, "live object")?;
    let delta = diff_maps(
        &c,
        &m,
        schema,
        DiffOptions {
            ignore_deletions: true,
            set_element_order: true,
            ..DiffOptions::default()
        },
    )?;
    let deletions = diff_maps(
        &o,
        &m,
        schema,
        DiffOptions {
            ignore_changes_and_additions: true,
            set_element_order: true,
            ..DiffOptions::default()
        },
    )?;
    Ok(Node::Map(merge_map(
        deletions,
        delta,
        schema,
        MergeOptions::default(),
    )?))
}

/// Whether a three-way `patch` changes fields that were changed on the live object since
/// `original` was applied (what `kubectl apply --overwrite=false` refuses).
pub fn three_way_conflicts<S: PatchSchema>(
    original: &Node,
    current: &Node,
    patch: &Node,
    schema: Option<S>,
) -> Result<bool, Error> {
    let o = as_object(original, "last applied configuration")?;
    let c = as_object(current, "live object")?;
    let changed = diff_maps(&o, &c, schema, DiffOptions::default())?;
    let p = as_object(patch, "patch")?;
    maps_have_conflicts(&p, &changed, schema)
}

/// Applies a strategic merge patch (apimachinery's `StrategicMergePatch`).
pub fn apply_patch<S: PatchSchema>(
    original: &Node,
    patch: &Node,
    schema: Option<S>,
) -> Result<Node, Error> {
    let o = as_object(original, "object")?;
    let p = as_object(patch, "patch")?;
    let options = MergeOptions {
        merge_parallel_list: true,
        ignore_unmatched_nulls: true,
    };
    Ok(Node::Map(merge_map(o, p, schema, options)?))
}

#[cfg(test)]
#[path = "strategic_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "strategic_index_tests.rs"]
mod index_tests;
