//! Kustomization fields whose accepted values depend on the kustomize release
//! being reproduced. Decoding accepts the union; these checks refuse what the
//! chosen release refuses, after decoding.

use crate::error::{Error, Result};
use crate::kustomization::Kustomization;
use crate::kustomize_version::KustomizeVersion;

/// The keys of a patch's `options` since kustomize v5.8.0 (its `PatchArgs` type).
const PATCH_OPTIONS: [&str; 2] = ["allowNameChange", "allowKindChange"];

/// Refuses what `version` would refuse in a decoded kustomization.
pub fn check(k: &Kustomization, version: KustomizeVersion) -> Result<()> {
    if !version.replacement_source_value() {
        // `sourceValue` came with kustomize v5.7.0; before, the kustomization
        // decoder refused it as it refuses any unknown field.
        if let Some(i) = k.replacements.iter().position(|r| r.source_value.is_some()) {
            return Err(Error::invalid_config(format!(
                "field replacements[{i}].sourceValue: unknown field; kustomize {version} does \
                 not know it (sourceValue came with v5.7.0)"
            )));
        }
    }
    if !version.helm_devel()
        && let Some(i) = k.helm_charts.iter().position(|c| c.devel.is_some())
    {
        // The decoder refuses it as any unknown field.
        return Err(Error::invalid_config(format!(
            "field helmCharts[{i}].devel: unknown field; kustomize {version} does not know it \
             (devel came with v5.7.0)"
        )));
    }
    if version.patch_options_are_typed() {
        let entries = [
            ("patches", &k.patches),
            ("patchesJson6902", &k.patches_json6902),
        ];
        for (field, patches) in entries {
            for (i, p) in patches.iter().enumerate() {
                let unknown =
                    |k: &&String| !PATCH_OPTIONS.iter().any(|o| o.eq_ignore_ascii_case(k));
                if let Some(key) = p.options.keys().find(unknown) {
                    return Err(Error::invalid_config(format!(
                        "field {field}[{i}].options.{key}: unknown field; kustomize {version} accepts \
                         only allowNameChange and allowKindChange here (v5.5.0 ignored other keys)"
                    )));
                }
            }
        }
    }
    Ok(())
}
