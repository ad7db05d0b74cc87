//! kustomize's bookkeeping annotations: while it builds, kustomize keeps a resource's
//! history (previous kinds, names and namespaces, name prefixes and suffixes, a pending
//! name hash) as `internal.config.kubernetes.io/...` annotations on the resource itself.
//! kbuild keeps that history in [`Resource`] fields; where kustomize's annotations are
//! visible (a plugin's input, a JSON 6902 patch over `metadata.annotations`), these are
//! the entries it would have.

use crate::resource::Resource;
use crate::resource::id::ResId;

/// The prefix of every internal annotation.
pub(crate) const INTERNAL: &str = "internal.config.kubernetes.io/";
pub(crate) const PREFIXES: &str = "internal.config.kubernetes.io/prefixes";
pub(crate) const SUFFIXES: &str = "internal.config.kubernetes.io/suffixes";
pub(crate) const PREVIOUS_KINDS: &str = "internal.config.kubernetes.io/previousKinds";
pub(crate) const PREVIOUS_NAMES: &str = "internal.config.kubernetes.io/previousNames";
pub(crate) const PREVIOUS_NAMESPACES: &str = "internal.config.kubernetes.io/previousNamespaces";
pub(crate) const NEEDS_HASH_SUFFIX: &str = "internal.config.kubernetes.io/needsHashSuffix";
pub(crate) const HELM_GENERATED: &str = "internal.config.kubernetes.io/helm-generated";

/// The internal annotations kustomize would hold for `r`, each with its text (lists
/// comma-separated, oldest first), in kustomize's sorted key order.
pub(crate) fn of(r: &Resource) -> Vec<(&'static str, String)> {
    let mut add: Vec<(&'static str, String)> = Vec::new();
    if !r.name_prefixes.is_empty() {
        add.push((PREFIXES, r.name_prefixes.join(",")));
    }
    if !r.name_suffixes.is_empty() {
        add.push((SUFFIXES, r.name_suffixes.join(",")));
    }
    if !r.prev_ids.is_empty() {
        let csv = |f: fn(&ResId) -> String| r.prev_ids.iter().map(f).collect::<Vec<_>>().join(",");
        add.push((PREVIOUS_KINDS, csv(|id| id.gvk.kind.to_string())));
        add.push((PREVIOUS_NAMES, csv(|id| id.name.to_string())));
        // kustomize's EffectiveNamespace (the built-in scope table).
        add.push((
            PREVIOUS_NAMESPACES,
            csv(|id| {
                let g = &id.gvk;
                if crate::openapi::is_namespaced(&g.group, &g.version, &g.kind) {
                    id.effective_namespace().to_string()
                } else {
                    "_non_namespaceable_".to_string()
                }
            }),
        ));
    }
    if r.needs_hash {
        add.push((NEEDS_HASH_SUFFIX, "enabled".to_string()));
    }
    if r.helm_generated {
        add.push((HELM_GENERATED, "true".to_string()));
    }
    add.sort_by_key(|(k, _)| *k);
    add
}
