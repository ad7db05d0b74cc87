//! Output order: kustomize's legacy order (the default) or `fifo`.

use crate::kustomization::SortOptions;
use crate::resmap::ResMap;
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
pub const LEGACY_ORDER_LAST: &[&str] = &["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"];

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
    let mut keyed: Vec<_> = std::mem::take(&mut resmap.resources)
        .into_iter()
        .map(|r| {
            let id = r.id();
            let rk = rank.get(id.gvk.kind.as_str()).copied().unwrap_or(0);
            ((rk, id.gvk.sort_string(), id.sort_string()), r)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    resmap.resources = keyed.into_iter().map(|(_, r)| r).collect();
}

/// Applies `sortOptions` (None: the legacy default).
pub fn apply(resmap: &mut ResMap, options: Option<&SortOptions>) {
    match options {
        Some(o) if o.order == "fifo" => {}
        Some(o) => {
            let (first, last): (Vec<&str>, Vec<&str>) = match &o.legacy_sort_options {
                Some(l) => (
                    l.order_first.iter().map(String::as_str).collect(),
                    l.order_last.iter().map(String::as_str).collect(),
                ),
                None => (LEGACY_ORDER_FIRST.to_vec(), LEGACY_ORDER_LAST.to_vec()),
            };
            legacy(resmap, &first, &last);
        }
        None => legacy(resmap, LEGACY_ORDER_FIRST, LEGACY_ORDER_LAST),
    }
}
