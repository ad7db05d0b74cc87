//! A kustomization's helm charts at the generator stage: configured with the other
//! generators (so a bad chart fails before any ConfigMap is generated), inflated after
//! `configMapGenerator` and `secretGenerator` and before `generators:` configs, in
//! kustomize's order; and builtin `HelmChartInflationGenerator` configs under `generators:`.

use super::{Accumulator, Builder};
use crate::error::Result;
use crate::helm::args::{self, ChartArgs};
use crate::kustomization::Kustomization;
use crate::kustomization::helm::charts_and_globals;
use crate::load::Loader;
use crate::resource::{Configured, Origin};
use std::path::Path;

impl Builder<'_> {
    /// The kustomization's charts, configured (see helm/args.rs); an error without
    /// `--enable-helm` (see build/plugins.rs).
    pub(super) fn configure_helm_charts(
        &mut self,
        ldr: &Loader,
        file: &Path,
        k: &Kustomization,
    ) -> Result<Vec<ChartArgs>> {
        super::plugins::check_helm_charts(k, self.ctx.plugins)?;
        let (charts, globals) = charts_and_globals(
            &k.helm_charts,
            k.helm_globals.as_ref(),
            &k.helm_chart_inflation_generator,
        );
        if !charts.is_empty() {
            self.warn_config_home(&globals, file);
        }
        let namespace = self.inh.helm_namespace.as_deref();
        let flags = self.ctx.helm.options();
        charts
            .iter()
            .map(|c| args::configure(c, &globals, namespace, ldr, flags))
            .collect()
    }

    /// A builtin `HelmChartInflationGenerator` config from `generators:`: kustomize's
    /// `HelmGlobals` and `HelmChart` fields side by side, unknown fields ignored, as it
    /// reads builtin configs. Such a chart inherits no namespace (kustomize passes the
    /// kustomization's namespace to `helmCharts` entries only).
    pub(super) fn run_helm_config(
        &mut self,
        ldr: &Loader,
        config: &crate::yaml::Node,
        source: &Path,
        acc: &mut Accumulator,
    ) -> Result<()> {
        use crate::kustomization::helm::{HelmChart, HelmGlobals};
        use crate::kustomization::plugin_config::decode;
        const KIND: &str = "HelmChartInflationGenerator";
        let chart: HelmChart = decode(config, KIND)?;
        let globals: HelmGlobals = decode(config, KIND)?;
        self.warn_config_home(&globals, source);
        let flags = self.ctx.helm.options();
        let args = args::configure(&chart, &globals, None, ldr, flags)?;
        let meta = crate::kustomization::plugin_config::identity(config)?.1;
        let origin = self.inh.meta.unwrap_or_default().any().then(|| Configured {
            configured_in: source.to_path_buf(),
            api_version: "builtin".into(),
            kind: KIND.into(),
            name: Some(meta.name).filter(|n| !n.is_empty()),
            namespace: Some(meta.namespace).filter(|n| !n.is_empty()),
        });
        self.absorb_charts(&[args], origin, acc)
    }

    /// Inflates `charts` and adds their resources, chart by chart, as generated resources
    /// (an id already there is an error, as for a generator without `behavior`).
    pub(super) fn run_helm_charts(
        &self,
        charts: &[ChartArgs],
        file: &Path,
        acc: &mut Accumulator,
    ) -> Result<()> {
        if charts.is_empty() {
            return Ok(());
        }
        let origin = self.inh.meta.unwrap_or_default().any().then(|| Configured {
            configured_in: file.to_path_buf(),
            api_version: "builtin".into(),
            kind: "HelmChartInflationGenerator".into(),
            name: None,
            namespace: None,
        });
        self.absorb_charts(charts, origin, acc)
    }

    /// kustomize hands `helmGlobals.configHome` to helm as its config home; kbuild does not
    /// (see helm/command.rs), and says so.
    fn warn_config_home(&mut self, globals: &crate::kustomization::helm::HelmGlobals, file: &Path) {
        if !globals.config_home.is_empty() {
            self.out.warnings.push(format!(
                "helmGlobals.configHome {:?} in {} is ignored: kbuild gives helm a private config home, so that a kustomization cannot choose helm's plugins, repositories or registry credentials (set HELM_REGISTRY_CONFIG or HELM_REPOSITORY_CONFIG in kbuild's environment to give helm credentials)",
                globals.config_home,
                file.display()
            ));
        }
    }

    /// Inflates `charts` and adds their resources (with `origin`, for `buildMetadata`).
    fn absorb_charts(
        &self,
        charts: &[ChartArgs],
        origin: Option<Configured>,
        acc: &mut Accumulator,
    ) -> Result<()> {
        use crate::generate::Behavior;
        let mut index = acc.resmap.any_id_index();
        for resources in self
            .ctx
            .helm
            .inflate_all(charts, self.ctx.version, self.ctx.budget)?
        {
            for mut res in resources {
                self.ctx.budget.charge(
                    crate::resource::budget::node_bytes(res.node()),
                    "helmCharts",
                )?;
                res.origin = origin.clone().map(|c| Box::new(Origin::Generated(c)));
                crate::generate::behavior::absorb(
                    &mut acc.resmap,
                    Some(&mut index),
                    res,
                    Behavior::Unspecified,
                )?;
            }
        }
        Ok(())
    }
}
