//! Merging associative lists (lists whose elements pair up by merge keys, or lists of
//! scalars merged as sets) exactly as kyaml's walker does for kustomize.
//!
//! kyaml's algorithm, which kbuild follows step by step because its quirks show in
//! `kubectl kustomize` output:
//!
//! 1. Collect the key values of every element, patch first when new elements are prepended
//!    (kustomize's setting), destination first when appended; drop repeats. An element
//!    without a key has the empty value. With several keys (Service and container ports:
//!    `port`/`containerPort` and `protocol`), two value lists that agree where both are set
//!    are unified ("mergeValues"), so a port without protocol pairs with one that has it.
//! 2. For each value, find the first destination and the first patch element that match it
//!    exactly and merge them. A result of nothing (`$patch: delete`, or no element matched)
//!    deletes every destination element the value matches, where an empty value matches any
//!    element that has the key at all; so a patch element without a merge key wipes the named
//!    destination elements. Other results are collected, in order.
//! 3. Combine the collected elements with what is left of the destination, setting each
//!    destination element by its keys: prepending keeps the collected order and puts the
//!    destination's own node back in place of its merge result (so a `$patch: replace` on a
//!    list element has no effect, and of two destination elements with the same key the last
//!    one wins); appending keeps the destination order and appends new elements. An element
//!    without a key wipes the list around it. Setting an element also drops null and empty
//!    elements.
//!
//! The general version (`general`) follows these steps on an arena, where an element that
//! is both in the destination and in the collected results is one node, as in kyaml. A fast
//! version (`fast`) handles the usual lists (one key, every element a mapping with a
//! distinct, non-empty key; or scalars) in linear time with hash indexes; both give the same
//! results (tested). [`merge`], here, picks the version; `element` holds what both use:
//! kyaml's element matching and its `ElementSetter`.

mod element;
pub(super) use element::key_value;
mod fast;
mod general;

use crate::error::Error;
use crate::openapi::TypeRef;
use crate::yaml::Node;

use super::smp::Walker;

pub(super) use element::{ElementSetter, scalar_text};
use fast::{
    KeyIndex, Keyed, all_scalars, distinct_strings, key_texts, merge_keyed, merge_scalars,
    untouched_is_identity,
};
use general::General;

/// The patch side of a list merge.
pub(super) enum PatchList<'p> {
    /// The patch has no such list: the destination is walked on its own.
    Missing,
    /// A patch list distinct from the destination.
    Separate(&'p mut Vec<Node>),
    /// The destination *is* the patch (kyaml merges a patch list with itself when the
    /// destination had none, or the patch replaces it).
    SameAsDest,
}

#[cfg(test)]
thread_local! {
    /// Makes every list take the general algorithm (tests compare it with the fast paths).
    pub(super) static FORCE_GENERAL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How many lists took the general algorithm, which is quadratic in the list length.
    pub(super) static GENERAL_RUNS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Merges `patch` into the associative list `dest` by `keys` (`[""]` for a list of scalars).
pub(super) fn merge<'s>(
    walker: &mut Walker<'_, 's>,
    dest: &mut Vec<Node>,
    patch: PatchList<'_>,
    keys: &[&str],
    schema: Option<TypeRef<'s>>,
) -> Result<(), Error> {
    let primitive = keys == [""];
    if let PatchList::Missing = patch {
        if primitive && distinct_strings(dest) {
            // Nothing to merge and nothing to collapse: the list stays as it is.
            return Ok(());
        }
        if let Some(first_key) = untouched_is_identity(dest, keys) {
            #[cfg(test)]
            let general = FORCE_GENERAL.with(|f| f.get());
            #[cfg(not(test))]
            let general = false;
            if !general {
                // Every element pairs with itself alone and keeps its place (both of
                // kyaml's list walks come to that here); only the elements are walked.
                for element in dest.iter_mut().filter(|e| super::smp::needs_walk(e)) {
                    let value = element.get(first_key).map(scalar_text).unwrap_or_default();
                    walker.push_element(first_key, &value);
                    let result = walker.untouched(element, schema);
                    walker.pop();
                    result?;
                }
                return Ok(());
            }
        }
    }
    let patch_nodes = match &patch {
        PatchList::Separate(p) => Some(p.as_slice()),
        _ => None,
    };
    #[cfg(test)]
    let general = FORCE_GENERAL.with(|f| f.get());
    #[cfg(not(test))]
    let general = false;
    if primitive {
        if !general && all_scalars(dest) && patch_nodes.is_none_or(all_scalars) {
            return merge_scalars(walker, dest, patch, schema);
        }
    } else if !general && !keys.is_empty() && keys.iter().all(|k| !k.is_empty()) {
        // kyaml merges by the keys some element sets ("valid keys"; a Service's ports
        // without `protocol` merge by `port`).
        let lists = || dest.iter().chain(patch_nodes.unwrap_or(&[]));
        let valid: Vec<&str> = keys
            .iter()
            .copied()
            .filter(|k| lists().any(|e| !element::key_value(e, k).is_empty()))
            .collect();
        let keys = valid.as_slice();
        let key_texts = |list| key_texts(list, keys);
        if !keys.is_empty()
            && let Some(dest_keys) = key_texts(dest)
            && let Some(patch_keys) = patch_nodes.map_or(Some(Vec::new()), key_texts)
        {
            let keyed = Keyed {
                keys,
                dest: &dest_keys,
                patch: &patch_keys,
                dest_index: KeyIndex::new(&dest_keys),
                patch_index: KeyIndex::new(&patch_keys),
            };
            return merge_keyed(walker, dest, patch, keyed, schema);
        }
    }
    #[cfg(test)]
    GENERAL_RUNS.with(|c| c.set(c.get() + 1));
    General::new(walker, dest, patch, keys, schema).run()
}
