//! Helm charts and external plugins: what kustomize must be told before it runs them, and
//! what kbuild says when a kustomization needs one.
//!
//! kustomize inflates `helmCharts` (and builtin `HelmChartInflationGenerator` configs) only
//! with `--enable-helm` or `--enable-alpha-plugins`, and loads external plugins (exec, Go
//! and KRM function configs under `generators:`, `transformers:` and `validators:`) only
//! with `--enable-alpha-plugins`; without the flag, either is an error naming it. kbuild
//! runs neither yet, so a kustomization that needs one always fails: without the flag with
//! kustomize's reason, with it saying what kbuild lacks. A kustomization that needs none
//! builds the same whatever the flags say.

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

/// What to do instead of inflating a chart.
const RENDER_CHART: &str =
    "render the chart with `helm template` and list the output under 'resources'";

/// The error for a helm chart named `chart` (from `field`).
fn helm_chart(chart: &str, field: &str, plugins: Plugins) -> Error {
    if plugins.helm() {
        return Error::Unsupported {
            what: format!(
                "helm chart '{chart}' ({field}): helm chart inflation is not built into kbuild yet"
            ),
            hint: Some(RENDER_CHART.into()),
        };
    }
    // kustomize's words ("must specify --enable-helm"); the hint keeps the user from
    // expecting the flag to be enough.
    Error::Unsupported {
        what: format!("helm chart '{chart}' ({field}): must specify --enable-helm"),
        hint: Some(format!(
            "kbuild does not inflate helm charts yet, with the flag or without: {RENDER_CHART}"
        )),
    }
}

/// The first entry of a chart list, if it has any (`helmCharts: []` and a null list are
/// none: kustomize then runs no generator, and `helmGlobals` alone does nothing).
fn first_chart(list: Option<&Node>) -> Option<&Node> {
    match list? {
        Node::Seq(charts) => charts.first(),
        other if other.is_null() => None,
        other => Some(other),
    }
}

/// Fails when the kustomization lists a helm chart (`helmCharts`, or the deprecated
/// `helmChartInflationGenerator`), with the error the flags call for.
pub(super) fn check_helm_charts(k: &Kustomization, plugins: Plugins) -> Result<()> {
    let lists = [
        (&k.helm_charts, "helmCharts", "name"),
        (
            &k.helm_chart_inflation_generator,
            "helmChartInflationGenerator",
            "chartName",
        ),
    ];
    for (list, field, name_key) in lists {
        if let Some(chart) = first_chart(list.as_ref()) {
            let name = chart.get_str(&[name_key]).unwrap_or_default();
            return Err(helm_chart(name, field, plugins));
        }
    }
    Ok(())
}

/// Fails when a `generators:`, `transformers:` or `validators:` config is one kbuild cannot
/// run: an external plugin, or the builtin helm chart generator.
///
/// A config is builtin when its `apiVersion` is exactly `builtin` (kustomize: empty group,
/// version `builtin`); without an `apiVersion` it is an external plugin, as in kustomize.
pub(super) fn check_config(config: &Node, plugins: Plugins) -> Result<()> {
    let api = config.get_str(&["apiVersion"]).unwrap_or_default();
    let kind = config.get_str(&["kind"]).unwrap_or_default();
    if api == "builtin" {
        if kind == "HelmChartInflationGenerator" {
            let name = config.get_str(&["name"]).unwrap_or_default();
            return Err(helm_chart(
                name,
                "HelmChartInflationGenerator config",
                plugins,
            ));
        }
        return Ok(());
    }
    if !plugins.enable_alpha_plugins {
        // kustomize's words.
        return Err(Error::Unsupported {
            what: format!("external plugins disabled; unable to load external plugin '{kind}'"),
            hint: Some(
                "kustomize loads external (exec, Go or KRM function) plugins only with \
                 --enable-alpha-plugins; kbuild does not run them yet, with the flag or without"
                    .into(),
            ),
        });
    }
    Err(Error::Unsupported {
        what: format!(
            "external plugin '{kind}' ({api}): kbuild does not run exec, Go or KRM function plugins yet"
        ),
        hint: Some("run the plugin on kbuild's output instead".into()),
    })
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
    fn external_configs_need_alpha_plugins_and_then_are_not_run() {
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
            let e = check_config(&c, ALL).unwrap_err().to_string();
            assert!(e.contains("kbuild does not run exec, Go or KRM function plugins yet"));
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
            let e = check_config(&c, p).unwrap_err().to_string();
            assert!(
                e.contains("'web'") && e.contains("not built into kbuild yet"),
                "{e}"
            );
        }
    }
}
