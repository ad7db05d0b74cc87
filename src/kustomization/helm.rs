//! The helm fields of a kustomization: `helmGlobals`, `helmCharts` and the deprecated
//! `helmChartInflationGenerator`, as kustomize's `api/types/helmchartargs.go` types them.
//! What the fields mean to a build (defaults, paths, flags) is in helm/args.rs.

use crate::yaml::Node;
use serde::Deserialize;

/// `helmGlobals`: settings shared by every chart of the kustomization.
#[derive(Debug, Default, Deserialize, Clone, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmGlobals {
    /// The directory holding one subdirectory per chart, relative to the kustomization
    /// (or absolute); default `charts`.
    #[serde(default)]
    pub chart_home: String,
    /// `HELM_CONFIG_HOME` for helm (also `HELM_CACHE_HOME=<it>/.cache` and
    /// `HELM_DATA_HOME=<it>/.data`); default: a temporary directory.
    #[serde(default)]
    pub config_home: String,
}

/// An entry of `helmCharts`: one `helm template` run.
#[derive(Debug, Default, Deserialize, Clone, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmChart {
    /// The chart's name (its directory under the chart home).
    #[serde(default)]
    pub name: String,
    /// The chart version to pull (`helm pull --version`).
    #[serde(default)]
    pub version: String,
    /// The repository to pull the chart from (`--repo`), or an `oci://` reference.
    #[serde(default)]
    pub repo: String,
    /// The release name (`helm template RELEASE`); without it, `--generate-name`.
    #[serde(default)]
    pub release_name: String,
    /// The release namespace (`--namespace`, `.Release.Namespace`).
    #[serde(default)]
    pub namespace: String,
    /// Values files given after `valuesFile` (`-f`), relative to the kustomization.
    #[serde(default)]
    pub additional_values_files: Vec<String>,
    /// The values file to use instead of the chart's own `values.yaml`.
    #[serde(default)]
    pub values_file: String,
    /// Values written in the kustomization, combined with the values file per
    /// `valuesMerge`.
    #[serde(default)]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")
    )]
    pub values_inline: Option<Node>,
    /// How `valuesInline` combines with the values file: `override` (the default: inline
    /// values win), `merge` (the file's values win) or `replace` (inline values only).
    #[serde(default)]
    pub values_merge: String,
    /// Render the chart's CRDs too (`--include-crds`).
    #[serde(default, rename = "includeCRDs")]
    pub include_crds: bool,
    /// Leave hooks out (`--no-hooks`).
    #[serde(default)]
    pub skip_hooks: bool,
    /// API versions for `Capabilities.APIVersions` (`--api-versions`).
    #[serde(default)]
    pub api_versions: Vec<String>,
    /// The Kubernetes version for `Capabilities.KubeVersion` (`--kube-version`).
    #[serde(default)]
    pub kube_version: String,
    /// The release name template (`--name-template`).
    #[serde(default)]
    pub name_template: String,
    /// Leave tests out (`--skip-tests`).
    #[serde(default)]
    pub skip_tests: bool,
    /// Debug output from helm (`--debug`).
    #[serde(default)]
    pub debug: bool,
    /// Allow development versions (`--devel`; kustomize v5.7.0 and later).
    #[serde(default)]
    pub devel: Option<bool>,
}

/// An entry of the deprecated `helmChartInflationGenerator`, which kustomize converts to
/// `helmCharts` and `helmGlobals`.
#[derive(Debug, Default, Deserialize, Clone, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmChartArgs {
    /// `name` of the chart.
    #[serde(default)]
    pub chart_name: String,
    /// `version` of the chart.
    #[serde(default)]
    pub chart_version: String,
    /// `repo` of the chart.
    #[serde(default, rename = "chartRepoUrl")]
    pub chart_repo_url: String,
    /// `helmGlobals.chartHome` (the last non-empty one wins).
    #[serde(default)]
    pub chart_home: String,
    /// Ignored, as in kustomize.
    #[serde(default)]
    pub chart_repo_name: String,
    /// Ignored, as in kustomize.
    #[serde(default)]
    pub helm_bin: String,
    /// `helmGlobals.configHome` (the last non-empty one wins).
    #[serde(default)]
    pub helm_home: String,
    /// `valuesFile`.
    #[serde(default)]
    pub values: String,
    /// `valuesInline`.
    #[serde(default)]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")
    )]
    pub values_local: Option<Node>,
    /// `valuesMerge`.
    #[serde(default)]
    pub values_merge: String,
    /// `releaseName`.
    #[serde(default)]
    pub release_name: String,
    /// Ignored, as in kustomize (which does not convert it).
    #[serde(default)]
    pub release_namespace: String,
    /// Ignored, as in kustomize (which does not convert it).
    #[serde(default)]
    pub extra_args: Vec<String>,
}

impl HelmChartArgs {
    /// The `helmCharts` entry kustomize converts it to (only these fields carry over).
    pub fn to_chart(&self) -> HelmChart {
        HelmChart {
            name: self.chart_name.clone(),
            version: self.chart_version.clone(),
            repo: self.chart_repo_url.clone(),
            values_file: self.values.clone(),
            values_inline: self.values_local.clone(),
            values_merge: self.values_merge.clone(),
            release_name: self.release_name.clone(),
            ..HelmChart::default()
        }
    }
}

/// The charts and globals a kustomization inflates: `helmCharts` followed by the
/// converted `helmChartInflationGenerator` entries; their `chartHome`/`helmHome` (the last
/// non-empty of each) become the globals only when `helmGlobals` is absent, as
/// kustomize's `FixKustomization` does.
pub fn charts_and_globals(
    charts: &[HelmChart],
    globals: Option<&HelmGlobals>,
    deprecated: &[HelmChartArgs],
) -> (Vec<HelmChart>, HelmGlobals) {
    let mut all = charts.to_vec();
    all.extend(deprecated.iter().map(HelmChartArgs::to_chart));
    let globals = match globals {
        Some(g) => g.clone(),
        None => {
            let last = |f: fn(&HelmChartArgs) -> &str| {
                deprecated
                    .iter()
                    .map(f)
                    .rfind(|s| !s.is_empty())
                    .unwrap_or_default()
                    .to_string()
            };
            HelmGlobals {
                chart_home: last(|a| &a.chart_home),
                config_home: last(|a| &a.helm_home),
            }
        }
    };
    (all, globals)
}
