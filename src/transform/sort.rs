//! Output order: kustomize's legacy order (the default) or `fifo`, as the top
//! kustomization's `sortOptions` says or, without it, kustomize's deprecated `--reorder` flag.

use crate::config::legacy_order::{LEGACY_ORDER_FIRST, LEGACY_ORDER_LAST};
use crate::error::{Error, Result};
use crate::kustomization::SortOptions;
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use std::collections::HashMap;

/// Sorts in legacy order: by kind rank (listed-first kinds, then others, then
/// listed-last kinds), then by kustomize's GVK string, then by its id string.
/// The sort is stable, as kustomize's is.
pub(crate) fn legacy(resmap: &mut ResMap, first: &[&str], last: &[&str]) {
    let mut rank: HashMap<&str, i64> = HashMap::new();
    let n = first.len() as i64;
    for (i, k) in first.iter().enumerate() {
        rank.entry(k).or_insert(i as i64 - n);
    }
    for (i, k) in last.iter().enumerate() {
        rank.entry(k).or_insert(i as i64 + 1);
    }
    // Each key is a few strings made from the resource's id: on the thread pool for a
    // large map, as the other per-resource steps at the end of a build.
    let keys: Vec<(i64, String, String)> = resmap.map_each(|r| sort_key(r, &rank));
    // Sorted by position, then the resources moved once (a resource is large).
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&keys[a], &keys[b]);
        x.0.cmp(&y.0)
            .then_with(|| gvk_order(&x.1, &y.1))
            .then_with(|| x.2.cmp(&y.2))
    });
    permute(&mut resmap.resources, &order);
}

/// Reorders `items` so that position `i` holds what was at `order[i]`, in place: the
/// resources are moved by swaps, without a second vector of them (on a stream of many
/// small objects a copy of the resource vector was a fifth of the build's peak memory).
fn permute<T>(items: &mut [T], order: &[usize]) {
    // dest[j]: where the item now at j belongs.
    let mut dest = vec![0usize; order.len()];
    for (i, &from) in order.iter().enumerate() {
        dest[from] = i;
    }
    for i in 0..items.len() {
        while dest[i] != i {
            let j = dest[i];
            items.swap(i, j);
            dest.swap(i, j);
        }
    }
}

/// Compares GVK strings. kustomize's one exception: between two Namespace kinds of which
/// one is in the core group, the order is reversed, so the core Namespace comes before
/// other groups' Namespace kinds ("~G" would otherwise sort after every group name).
fn gvk_order(x: &str, y: &str) -> std::cmp::Ordering {
    let namespace = |s: &str| s.ends_with("_Namespace");
    let core = |s: &str| s.starts_with("~G_");
    if x != y && namespace(x) && namespace(y) && (core(x) || core(y)) {
        y.cmp(x)
    } else {
        x.cmp(y)
    }
}

/// `s`, or `default` when `s` is empty.
fn or<'a>(s: &'a str, default: &'static str) -> &'a str {
    if s.is_empty() { default } else { s }
}

/// A resource's legacy sort key: its kind's rank, kustomize's GVK string
/// (`group_version_kind`, `~G`/`~V`/`~K` for empty parts) and what its id
/// string (`<gvk string>|namespace|name`, `~X` for no namespace) adds to the
/// GVK string. Two ids' strings compare as these tails do when their GVK
/// strings are equal, and are not compared otherwise.
fn sort_key(r: &Resource, rank: &HashMap<&str, i64>) -> (i64, String, String) {
    let [group, version, kind, _, name] = r.id_key();
    let rk = rank.get(kind.as_ref()).copied().unwrap_or(0);
    let mut gvk = String::with_capacity(group.len() + version.len() + kind.len() + 2);
    gvk.push_str(or(&group, "~G"));
    gvk.push('_');
    gvk.push_str(or(&version, "~V"));
    gvk.push('_');
    gvk.push_str(or(&kind, "~K"));
    // The namespace as written ("" is not "default" here).
    let ns = r.namespace();
    let mut tail = String::with_capacity(ns.len() + name.len() + 4);
    tail.push('|');
    tail.push_str(or(&ns, "~X"));
    tail.push('|');
    tail.push_str(&name);
    (rk, gvk, tail)
}

/// kustomize's deprecated `--reorder` option: what to do with the output order when the
/// top kustomization has no `sortOptions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reorder {
    /// Not given: the legacy order.
    #[default]
    Unspecified,
    /// `legacy`: the legacy order, as when not given.
    Legacy,
    /// `none`: the order resources were accumulated in (like `sortOptions: {order: fifo}`).
    None,
}

/// What kustomize logs when both `sortOptions` and `--reorder` say how to sort (its text; the
/// kustomization wins).
pub(crate) const BOTH_SET_WARNING: &str = "Sorting order is set both in 'kustomization.yaml' ('sortOptions') \
    and in a CLI flag ('--reorder'). Using the kustomization file over the CLI flag.";

/// Sorts the output as the top kustomization's `sortOptions` says, or, without it, as
/// `reorder` says (kustomize's `applySortOrder`). A `reorder` given beside `sortOptions`
/// changes nothing but adds [`BOTH_SET_WARNING`] to `warnings`.
pub(crate) fn apply(
    resmap: &mut ResMap,
    options: Option<&SortOptions>,
    reorder: Reorder,
    warnings: &mut Vec<String>,
) -> Result<()> {
    match options {
        Some(o) => {
            if reorder != Reorder::Unspecified {
                warnings.push(BOTH_SET_WARNING.to_string());
            }
            apply_sort_options(resmap, o)
        }
        None if reorder == Reorder::None => Ok(()),
        None => {
            legacy(resmap, LEGACY_ORDER_FIRST, LEGACY_ORDER_LAST);
            Ok(())
        }
    }
}

/// Applies the top-level `sortOptions`.
fn apply_sort_options(resmap: &mut ResMap, o: &SortOptions) -> Result<()> {
    match (o.order.as_str(), &o.legacy_sort_options) {
        ("fifo", None) => Ok(()),
        ("fifo", Some(_)) => Err(Error::invalid_config(
            "the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'",
        )),
        ("legacy", None) => {
            legacy(resmap, LEGACY_ORDER_FIRST, LEGACY_ORDER_LAST);
            Ok(())
        }
        ("legacy", Some(l)) => {
            let first: Vec<&str> = l.order_first.iter().map(String::as_str).collect();
            let last: Vec<&str> = l.order_last.iter().map(String::as_str).collect();
            legacy(resmap, &first, &last);
            Ok(())
        }
        (other, _) => Err(Error::invalid_config(format!(
            "the field 'sortOptions.order' must be one of [fifo, legacy], found {other:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn permute_moves_each_item_to_its_place() {
        let mut items = vec!['a', 'b', 'c', 'd', 'e'];
        super::permute(&mut items, &[3, 0, 4, 1, 2]);
        assert_eq!(items, ['d', 'a', 'e', 'b', 'c']);
        let mut none: Vec<u8> = vec![];
        super::permute(&mut none, &[]);
    }
}
