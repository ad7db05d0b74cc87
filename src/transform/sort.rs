//! Output order: kustomize's legacy order (the default) or `fifo`.

use crate::error::{Error, Result};
use crate::kustomization::SortOptions;
use crate::resmap::ResMap;
use crate::resource::Resource;
use std::collections::HashMap;

/// Kinds printed first, in this order, by the legacy sort.
pub const LEGACY_ORDER_FIRST: &[&str] = &[
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];

/// Kinds printed last by the legacy sort.
pub const LEGACY_ORDER_LAST: &[&str] = &[
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// Sorts in legacy order: by kind rank (listed-first kinds, then others, then
/// listed-last kinds), then by kustomize's GVK string, then by its id string.
/// The sort is stable, as kustomize's is.
pub fn legacy(resmap: &mut ResMap, first: &[&str], last: &[&str]) {
    let mut rank: HashMap<&str, i64> = HashMap::new();
    let n = first.len() as i64;
    for (i, k) in first.iter().enumerate() {
        rank.entry(k).or_insert(i as i64 - n);
    }
    for (i, k) in last.iter().enumerate() {
        rank.entry(k).or_insert(i as i64 + 1);
    }
    let keys: Vec<_> = resmap
        .iter()
        .map(|r| {
            let id = r.id();
            let rk = rank.get(id.gvk.kind.as_str()).copied().unwrap_or(0);
            (rk, id.gvk.sort_string(), id.sort_string())
        })
        .collect();
    // Sorted by position, then the resources moved once (a resource is large).
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let mut slots: Vec<Option<Resource>> = std::mem::take(&mut resmap.resources)
        .into_iter()
        .map(Some)
        .collect();
    resmap.resources = order.iter().filter_map(|&i| slots[i].take()).collect();
}

/// Applies the top-level `sortOptions` (None: the legacy default).
pub fn apply(resmap: &mut ResMap, options: Option<&SortOptions>) -> Result<()> {
    let Some(o) = options else {
        legacy(resmap, LEGACY_ORDER_FIRST, LEGACY_ORDER_LAST);
        return Ok(());
    };
    match (o.order.as_str(), &o.legacy_sort_options) {
        ("fifo", None) => Ok(()),
        ("fifo", Some(_)) => Err(Error::msg(
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
        (other, _) => Err(Error::msg(format!(
            "the field 'sortOptions.order' must be one of [fifo, legacy], found {other:?}"
        ))),
    }
}
