//! One chart's settings as kustomize configures its HelmChartInflationGenerator: the
//! kustomization's `helmCharts` entry and `helmGlobals`, kustomize's defaults, the
//! `--helm-*` flags and (v5.8.0 and later) the namespace a chart inherits.
//!
//! Everything here is checked when the kustomization's generators are configured,
//! before any of them runs, as in kustomize; kbuild's own checks of the values that reach
//! helm are in checks.rs.
//!
//! helm's arguments are kustomize's, in kustomize's order, each value in one argument:
//! `--flag=value`, and the positionals (release name, chart) after `--` at the end, which
//! helm's flag parser (cobra, pflag) takes as positionals whatever they hold. kustomize
//! writes `--flag value` and the positionals first; helm reads both the same way.

use super::HelmOptions;
use crate::error::{Error, Result};
use crate::kustomization::helm::{HelmChart, HelmGlobals};
use crate::load::{Loader, join_clean};
use std::path::{Path, PathBuf};

/// How `valuesInline` combines with the values file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValuesMerge {
    /// Inline values win (the default).
    Override,
    /// The file's values win.
    Merge,
    /// Inline values only; the file is not read.
    Replace,
}

/// Where the values file comes from.
#[derive(Clone, Debug)]
pub enum ValuesSource {
    /// Read when the chart was configured (through the load restrictor, as kustomize
    /// reads it): `valuesFile`, or the `values.yaml` of a chart in the chart home.
    Read(PathBuf, Vec<u8>),
    /// The `values.yaml` of the chart once it is pulled (kbuild's cache is not under the
    /// restrictor: kustomize would have pulled the chart into the chart home).
    Pulled,
    /// Not needed: `valuesInline` with `valuesMerge: replace`.
    Unused,
}

/// A configured chart.
#[derive(Clone, Debug)]
pub struct ChartArgs {
    /// The entry, with the flags and inherited namespace applied.
    pub chart: HelmChart,
    /// The globals, as written.
    pub globals: HelmGlobals,
    /// The chart home: absolute, with `<name>-<version>` appended when the chart has a
    /// version and a repo (kustomize's `absChartHome`).
    pub chart_home: PathBuf,
    /// `additionalValuesFiles`, joined to the kustomization's directory.
    pub additional_values: Vec<PathBuf>,
    /// `valuesMerge`.
    pub values_merge: ValuesMerge,
    /// The values file, when it is needed and already at hand.
    pub values: ValuesSource,
}

impl ChartArgs {
    /// The values file's path and content.
    pub fn values_source(&self, chart_dir: &Path) -> Result<(PathBuf, Vec<u8>)> {
        match &self.values {
            ValuesSource::Read(path, bytes) => Ok((path.clone(), bytes.clone())),
            ValuesSource::Pulled | ValuesSource::Unused => {
                let path = chart_dir.join("values.yaml");
                let bytes = crate::load::read_file(&path)?;
                Ok((path, bytes))
            }
        }
    }

    /// Where kustomize looks for the chart: `<chart home>/<name>`.
    pub fn local_chart_dir(&self) -> PathBuf {
        self.chart_home.join(&self.chart.name)
    }

    /// `helm template`'s arguments, in kustomize's order (its `HelmChart.AsHelmArgs`),
    /// each value in one argument and the positionals after `--` (see the module comment).
    pub fn template_args(&self, chart_dir: &Path, values: &Path) -> Vec<String> {
        let c = &self.chart;
        let mut args = vec!["template".to_string()];
        let mut positional = Vec::new();
        if c.release_name.is_empty() {
            // kustomize's comment: this does not work as intended because of a helm bug
            // (helm#6019); kept for the same output.
            args.push("--generate-name".into());
        } else {
            positional.push(c.release_name.clone());
        }
        positional.push(chart_dir.display().to_string());
        let mut flag = |name: &str, value: &str| {
            if !value.is_empty() {
                args.push(format!("{name}={value}"));
            }
        };
        flag("--namespace", &c.namespace);
        flag("--name-template", &c.name_template);
        flag("--values", &values.display().to_string());
        for file in &self.additional_values {
            flag("--values", &file.display().to_string());
        }
        for v in &c.api_versions {
            flag("--api-versions", v);
        }
        flag("--kube-version", &c.kube_version);
        let switches = [
            (c.include_crds, "--include-crds"),
            (c.skip_tests, "--skip-tests"),
            (c.skip_hooks, "--no-hooks"),
            (c.debug, "--debug"),
            (c.devel == Some(true), "--devel"),
        ];
        args.extend(switches.iter().filter(|s| s.0).map(|s| s.1.to_string()));
        args.push("--".into());
        args.extend(positional);
        args
    }

    /// `helm pull`'s arguments into `untar_dir`, in kustomize's order (its `pullCommand`),
    /// each value in one argument and the chart after `--`.
    pub fn pull_args(&self, untar_dir: &Path) -> Vec<String> {
        let c = &self.chart;
        let mut args: Vec<String> = vec![
            "pull".into(),
            "--untar".into(),
            format!("--untardir={}", untar_dir.display()),
        ];
        let chart = if c.repo.starts_with("oci://") {
            format!("{}/{}", c.repo.trim_end_matches('/'), c.name)
        } else {
            args.push(format!("--repo={}", c.repo));
            c.name.clone()
        };
        if !c.version.is_empty() {
            args.push(format!("--version={}", c.version));
        }
        if c.devel == Some(true) {
            args.push("--devel".into());
        }
        args.push("--".into());
        args.push(chart);
        args
    }
}

/// Configures `chart`: kustomize's checks and defaults, in its order.
///
/// The flags fill in what the chart leaves unset: kustomize sets them on the plugin and
/// then decodes the chart's config over them, so a chart's own `kubeVersion`,
/// `apiVersions` and `debug: true` win (its comment says the flags take precedence; the
/// code does the opposite, and kbuild follows the code).
pub fn configure(
    chart: &HelmChart,
    globals: &HelmGlobals,
    inherited_namespace: Option<&str>,
    ldr: &Loader,
    flags: &HelmOptions,
) -> Result<ChartArgs> {
    let mut c = chart.clone();
    if c.kube_version.is_empty() {
        c.kube_version = flags.kube_version.clone();
    }
    if c.api_versions.is_empty() {
        c.api_versions = flags.api_versions.clone();
    }
    c.debug |= flags.debug;
    if c.namespace.is_empty()
        && let Some(ns) = inherited_namespace
    {
        c.namespace = ns.to_string();
    }
    if c.name.is_empty() {
        return Err(Error::invalid_config(
            "helmCharts: chart name cannot be empty",
        ));
    }
    let refused = |p| Error::Helm(Box::new(super::HelmError::new(&c.name, p)));
    let inherited = chart.namespace.is_empty() && inherited_namespace.is_some();
    super::checks::check_chart(&c, inherited).map_err(refused)?;
    let home = if globals.chart_home.is_empty() {
        "charts"
    } else {
        &globals.chart_home
    };
    // An absolute chart home is used as written; a relative one is joined to the
    // kustomization's directory (never resolved against the current directory).
    let mut chart_home = join_clean(ldr.root(), home);
    if !c.version.is_empty() && !c.repo.is_empty() {
        chart_home.push(format!("{}-{}", c.name, c.version));
    }
    let mut additional_values = Vec::new();
    for file in &c.additional_values_files {
        // Read once now, as kustomize does, so that the load restrictor applies.
        ldr.read(file, "additionalValuesFile").map_err(|e| {
            e.context(format!(
                "helm chart '{}': could not load additionalValuesFile",
                c.name
            ))
        })?;
        let path = join_clean(ldr.root(), file);
        super::checks::check_values_path("additionalValuesFiles", &path).map_err(refused)?;
        additional_values.push(path);
    }
    let values_merge = match c.values_merge.as_str() {
        "" | "override" => ValuesMerge::Override,
        "merge" => ValuesMerge::Merge,
        "replace" => ValuesMerge::Replace,
        // kustomize's words.
        _ => {
            return Err(Error::invalid_config(format!(
                "helm chart '{}': valuesMerge must be one of [merge override replace]",
                c.name
            )));
        }
    };
    let inline = c
        .values_inline
        .as_ref()
        .is_some_and(|v| v.as_map().is_some_and(|m| !m.is_empty()));
    let local = chart_home.join(&c.name);
    let values = if inline && values_merge == ValuesMerge::Replace {
        ValuesSource::Unused
    } else if !c.values_file.is_empty() {
        let (path, bytes) = ldr.read(&c.values_file, "valuesFile")?;
        ValuesSource::Read(path, bytes)
    } else if local.is_dir() {
        let default = local.join("values.yaml").display().to_string();
        let (path, bytes) = ldr.read(&default, "values file")?;
        ValuesSource::Read(path, bytes)
    } else {
        ValuesSource::Pulled
    };
    Ok(ChartArgs {
        chart: c,
        globals: globals.clone(),
        chart_home,
        additional_values,
        values_merge,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Files, LoadRestrictor, MemFs};
    use std::sync::Arc;

    fn files() -> Files {
        let fs = MemFs::new()
            .file("/k/kustomization.yaml", "")
            .file("/k/extra.yaml", "a: 1\n")
            .file("/outside.yaml", "a: 1\n")
            .file("/k/charts/web/values.yaml", "a: 0\n");
        Files::new(Arc::new(fs), LoadRestrictor::RootOnly)
    }

    fn chart(text: &str) -> HelmChart {
        let node = crate::yaml::parse::parse_document(text, "t.yaml").unwrap();
        crate::yaml::de::from_node(&node).unwrap()
    }

    fn configure_with(c: &HelmChart, flags: &HelmOptions) -> Result<ChartArgs> {
        let files = files();
        let ldr = files.root(Path::new("/k")).unwrap();
        configure(c, &HelmGlobals::default(), None, &ldr, flags)
    }

    #[test]
    fn template_arguments_follow_kustomizes_order() {
        let c = chart(
            "name: web\nreleaseName: r\nnamespace: ns\nnameTemplate: t\nadditionalValuesFiles: [extra.yaml]\n\
             apiVersions: [a/v1, b/v1]\nkubeVersion: v1.30.0\nincludeCRDs: true\nskipTests: true\n\
             skipHooks: true\ndebug: true\ndevel: true\n",
        );
        let args = configure_with(&c, &HelmOptions::default()).unwrap();
        let argv = args.template_args(Path::new("/c/web"), Path::new("/t/v.yaml"));
        assert_eq!(
            argv.join(" "),
            "template --namespace=ns --name-template=t --values=/t/v.yaml --values=/k/extra.yaml \
             --api-versions=a/v1 --api-versions=b/v1 --kube-version=v1.30.0 --include-crds \
             --skip-tests --no-hooks --debug --devel -- r /c/web"
        );
        let bare = configure_with(&chart("name: web\n"), &HelmOptions::default()).unwrap();
        let argv = bare.template_args(Path::new("/c/web"), Path::new("/t/v.yaml"));
        assert_eq!(
            argv.join(" "),
            "template --generate-name --values=/t/v.yaml -- /c/web"
        );
    }

    #[test]
    fn pull_arguments_follow_kustomizes_order() {
        let c = chart("name: web\nrepo: https://r\nversion: 1.0.0\ndevel: true\n");
        let args = configure_with(&c, &HelmOptions::default()).unwrap();
        assert_eq!(
            args.pull_args(Path::new("/u")).join(" "),
            "pull --untar --untardir=/u --repo=https://r --version=1.0.0 --devel -- web"
        );
        let oci = chart("name: web\nrepo: oci://r/charts/\n");
        let args = configure_with(&oci, &HelmOptions::default()).unwrap();
        assert_eq!(
            args.pull_args(Path::new("/u")).join(" "),
            "pull --untar --untardir=/u -- oci://r/charts/web"
        );
    }

    #[test]
    fn values_helm_could_misread_are_refused_naming_the_field() {
        for (text, needle) in [
            (
                "name: web\nreleaseName: --post-renderer=/x\n",
                "releaseName \"--post-renderer=/x\" is refused",
            ),
            ("name: ../web\n", "name \"../web\" is refused"),
            (
                "name: web\nnamespace: Bad_NS\n",
                "namespace \"Bad_NS\" is refused",
            ),
        ] {
            let e = configure_with(&chart(text), &HelmOptions::default()).unwrap_err();
            assert!(e.to_string().contains(needle), "{e}");
            assert_eq!(e.kind(), crate::ErrorKind::Helm);
        }
        let files = files();
        let ldr = files.root(Path::new("/k")).unwrap();
        let e = configure(
            &chart("name: web\n"),
            &HelmGlobals::default(),
            Some("Bad"),
            &ldr,
            &HelmOptions::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("namespace (from the kustomization's namespace) \"Bad\""),
            "{e}"
        );
    }

    #[test]
    fn flags_fill_in_what_the_chart_leaves_unset() {
        let flags = HelmOptions {
            kube_version: "v1.29.0".into(),
            api_versions: vec!["x/v1".into()],
            debug: true,
            ..HelmOptions::default()
        };
        let own = configure_with(&chart("name: web\nkubeVersion: v1.33.0\n"), &flags).unwrap();
        assert_eq!(own.chart.kube_version, "v1.33.0");
        assert_eq!(own.chart.api_versions, ["x/v1"]);
        assert!(own.chart.debug);
    }

    #[test]
    fn chart_home_gets_name_and_version_only_with_a_repo() {
        let pulled = chart("name: web\nversion: 1.0.0\nrepo: https://r\n");
        let args = configure_with(&pulled, &HelmOptions::default()).unwrap();
        assert_eq!(args.local_chart_dir(), Path::new("/k/charts/web-1.0.0/web"));
        let local = chart("name: web\nversion: 1.0.0\n");
        let args = configure_with(&local, &HelmOptions::default()).unwrap();
        assert_eq!(args.local_chart_dir(), Path::new("/k/charts/web"));
    }

    #[test]
    fn configuration_errors() {
        let e = configure_with(&chart("name: ''\n"), &HelmOptions::default()).unwrap_err();
        assert!(e.to_string().contains("chart name cannot be empty"), "{e}");
        let e = configure_with(
            &chart("name: web\nvaluesMerge: deep\n"),
            &HelmOptions::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("valuesMerge must be one of"), "{e}");
        let e = configure_with(
            &chart("name: web\nadditionalValuesFiles: [../outside.yaml]\n"),
            &HelmOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Restricted, "{e}");
    }
}
