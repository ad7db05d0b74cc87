//! Helm charts and external plugins: what kustomize must be told before it runs them, and
//! what kbuild says when a kustomization needs one.
//!
//! kustomize inflates `helmCharts` (and builtin `HelmChartInflationGenerator` configs) only
//! with `--enable-helm` or `--enable-alpha-plugins`, and loads external plugins (exec, Go
//! and KRM function configs under `generators:`, `transformers:` and `validators:`) only
//! with `--enable-alpha-plugins`; without the flag, either is an error naming it. kbuild
//! inflates `helmCharts` and builtin `HelmChartInflationGenerator` configs (see
//! build/helm.rs) and runs exec plugins and KRM functions (see the `plugin` module), Go
//! plugins excepted. A kustomization that needs none builds the same whatever the flags say.

use crate::error::{Error, Result};
use crate::kustomization::Kustomization;
use crate::yaml::Node;

/// Which plugins kustomize would run (its `--enable-helm` and `--enable-alpha-plugins`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plugins {
    /// Inflate helm charts (`--enable-helm`).
    pub enable_helm: bool,
    /// Load external plugins (`--enable-alpha-plugins`); implies `enable_helm`, as in
    /// kustomize.
    pub enable_alpha_plugins: bool,
}

impl Plugins {
    fn helm(self) -> bool {
        self.enable_helm || self.enable_alpha_plugins
    }
}

/// The error for a helm chart named `chart` (from `field`) without `--enable-helm`.
fn helm_not_enabled(chart: &str, field: &str) -> Error {
    // kustomize's words ("must specify --enable-helm").
    Error::Unsupported {
        what: format!("helm chart '{chart}' ({field}): must specify --enable-helm"),
        hint: Some(
            "kustomize and kbuild inflate helm charts only with --enable-helm (or --enable-alpha-plugins)"
                .into(),
        ),
    }
}

/// Fails when the kustomization lists a helm chart (`helmCharts`, or the deprecated
/// `helmChartInflationGenerator`) and helm is not enabled. An empty list is no chart:
/// kustomize then runs no generator, and `helmGlobals` alone does nothing.
pub(super) fn check_helm_charts(k: &Kustomization, plugins: Plugins) -> Result<()> {
    if plugins.helm() {
        return Ok(());
    }
    if let Some(chart) = k.helm_charts.first() {
        return Err(helm_not_enabled(&chart.name, "helmCharts"));
    }
    if let Some(chart) = k.helm_chart_inflation_generator.first() {
        return Err(helm_not_enabled(
            &chart.chart_name,
            "helmChartInflationGenerator",
        ));
    }
    Ok(())
}

/// Whether a config is builtin: its `apiVersion` is exactly `builtin` (kustomize: empty
/// group, version `builtin`); without an `apiVersion` it is an external plugin, as in
/// kustomize.
pub(super) fn is_builtin(config: &Node) -> bool {
    config.get_str(&["apiVersion"]) == Some("builtin")
}

/// Fails when a `generators:`, `transformers:` or `validators:` config may not run: an
/// external plugin without `--enable-alpha-plugins`, or the builtin helm chart generator
/// without `--enable-helm`.
pub(super) fn check_config(config: &Node, plugins: Plugins) -> Result<()> {
    let api = config.get_str(&["apiVersion"]).unwrap_or_default();
    let kind = config.get_str(&["kind"]).unwrap_or_default();
    if api == "builtin" {
        if kind == "HelmChartInflationGenerator" {
            let name = config.get_str(&["name"]).unwrap_or_default();
            if !plugins.helm() {
                return Err(helm_not_enabled(name, "HelmChartInflationGenerator config"));
            }
        }
        return Ok(());
    }
    if !plugins.enable_alpha_plugins {
        // kustomize's words.
        return Err(Error::Unsupported {
            what: format!("external plugins disabled; unable to load external plugin '{kind}'"),
            hint: Some(
                "external (exec or KRM function) plugins run only with --enable-alpha-plugins \
                 (and exec functions also need --enable-exec); enable them only for \
                 kustomizations you trust, or limit them with --allow-plugin"
                    .into(),
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_document;

    const HELM_ONLY: Plugins = Plugins {
        enable_helm: true,
        enable_alpha_plugins: false,
    };
    const ALL: Plugins = Plugins {
        enable_helm: false,
        enable_alpha_plugins: true,
    };

    fn config(text: &str) -> Node {
        parse_document(text, "t.yaml").unwrap()
    }

    #[test]
    fn builtin_configs_pass_whatever_the_flags() {
        let c = config("apiVersion: builtin\nkind: LabelTransformer\n");
        for p in [Plugins::default(), HELM_ONLY, ALL] {
            assert!(check_config(&c, p).is_ok());
        }
    }

    #[test]
    fn external_configs_need_alpha_plugins() {
        for text in [
            "apiVersion: example.com/v1\nkind: SetLabel\n",
            // No apiVersion is no builtin (kustomize: empty group, version "").
            "kind: LabelTransformer\n",
        ] {
            let c = config(text);
            for p in [Plugins::default(), HELM_ONLY] {
                let e = check_config(&c, p).unwrap_err().to_string();
                assert!(
                    e.starts_with("external plugins disabled; unable to load external plugin '"),
                    "{e}"
                );
            }
            assert!(check_config(&c, ALL).is_ok());
        }
    }

    #[test]
    fn helm_needs_enable_helm_or_alpha_plugins() {
        let c = config("apiVersion: builtin\nkind: HelmChartInflationGenerator\nname: web\n");
        let e = check_config(&c, Plugins::default())
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("must specify --enable-helm"), "{e}");
        for p in [HELM_ONLY, ALL] {
            assert!(check_config(&c, p).is_ok());
        }
    }
}
