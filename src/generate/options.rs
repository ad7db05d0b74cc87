//! Combining a kustomization's `generatorOptions` with a generator's own
//! `options`.

use crate::kustomization::{GeneratorOptions, StringMap};

/// The options in force for one generator.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct EffectiveOptions {
    pub labels: StringMap,
    pub annotations: StringMap,
    pub disable_name_suffix_hash: bool,
    pub immutable: bool,
}

/// Merges global options into a generator's local ones as kustomize does:
/// a local label or annotation beats a global one with the same key, and a
/// boolean is true when either side sets it (kustomize's booleans cannot
/// tell "false" from "unset", so a local `false` cannot undo a global `true`).
pub(super) fn effective(
    local: Option<&GeneratorOptions>,
    global: Option<&GeneratorOptions>,
) -> EffectiveOptions {
    let mut out = EffectiveOptions::default();
    for opts in [local, global].into_iter().flatten() {
        for (k, v) in &opts.labels {
            out.labels.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in &opts.annotations {
            out.annotations
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        out.disable_name_suffix_hash |= opts.disable_name_suffix_hash.unwrap_or(false);
        out.immutable |= opts.immutable.unwrap_or(false);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> StringMap {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// kubectl kustomize: global `labels: {g: global, both: global}`,
    /// `disableNameSuffixHash: true`; local `labels: {both: local, l: local}`,
    /// `disableNameSuffixHash: false`, `immutable: true` gave labels
    /// `both: local, g: global, l: local`, no hash, `immutable: true`.
    #[test]
    fn local_labels_win_and_global_true_wins() {
        let global = GeneratorOptions {
            labels: map(&[("g", "global"), ("both", "global")]),
            annotations: map(&[("ga", "global")]),
            disable_name_suffix_hash: Some(true),
            immutable: None,
        };
        let local = GeneratorOptions {
            labels: map(&[("both", "local"), ("l", "local")]),
            annotations: StringMap::new(),
            disable_name_suffix_hash: Some(false),
            immutable: Some(true),
        };
        let eff = effective(Some(&local), Some(&global));
        assert_eq!(
            eff.labels,
            map(&[("both", "local"), ("l", "local"), ("g", "global")])
        );
        assert_eq!(eff.annotations, map(&[("ga", "global")]));
        assert!(eff.disable_name_suffix_hash);
        assert!(eff.immutable);
    }

    /// kubectl kustomize: global `immutable: true, disableNameSuffixHash:
    /// false`, local `immutable: false, disableNameSuffixHash: true` gave an
    /// immutable ConfigMap without a hash.
    #[test]
    fn local_true_is_kept_and_global_true_is_added() {
        let global = GeneratorOptions {
            immutable: Some(true),
            disable_name_suffix_hash: Some(false),
            ..Default::default()
        };
        let local = GeneratorOptions {
            immutable: Some(false),
            disable_name_suffix_hash: Some(true),
            ..Default::default()
        };
        let eff = effective(Some(&local), Some(&global));
        assert!(eff.immutable && eff.disable_name_suffix_hash);
        assert_eq!(effective(None, None), EffectiveOptions::default());
    }
}
