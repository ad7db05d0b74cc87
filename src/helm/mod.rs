//! Helm chart inflation: kustomize's HelmChartInflationGenerator, run through the `helm`
//! program.
//!
//! The pipeline of one chart, in kustomize's order (its
//! `api/internal/builtins/HelmChartInflationGenerator.go`):
//! - [`args`]: the chart's settings from the kustomization, with kustomize's defaults and
//!   the `--helm-*` flags, checked before any generator runs;
//! - `helm version`, once per build (kustomize asks once per chart; the answer is the
//!   same) — see command.rs;
//! - the chart directory: `<chartHome>/<name>` as the user vendored it, or else a pull
//!   into kbuild's chart cache (never into the source tree) — see cache.rs;
//! - the values file, merged with `valuesInline` — see values.rs;
//! - `helm template`, whose output becomes the chart's resources.
//!
//! Identical inflations (same chart directory, values and flags) in one build run helm
//! once; the charts of one kustomization are inflated in parallel.
//!
//! Beyond kustomize (see checks.rs and command.rs): every value from the kustomization
//! reaches helm as one argument that cannot be an option, checked first; helm gets its own
//! config, cache, data, plugin and repository directories in kbuild's scratch directory,
//! never the kustomization's `configHome`; it runs under `--plugin-timeout` with its
//! process group, and may print only about what the output budget has left; its scratch
//! directory (the values file, helm's homes) is removed on every exit path (also by the
//! binary's signal handler).

pub mod args;
mod cache;
mod checks;
mod command;
mod values;

pub use crate::error::{HelmError, HelmProblem};

use crate::error::{Error, Result};
use crate::kustomize_version::KustomizeVersion;
use crate::resource::Resource;
use crate::resource::budget::Budget;
use args::ChartArgs;
use foldhash::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The `--helm-*` flags, `--helm-cache-dir` and `--offline`.
#[derive(Clone, Debug)]
pub struct HelmOptions {
    /// The helm program (`--helm-command`; a bare name is looked up on PATH).
    pub command: String,
    /// `--helm-kube-version`: the Kubernetes version of charts that set none.
    pub kube_version: String,
    /// `--helm-api-versions`: the API versions of charts that set none.
    pub api_versions: Vec<String>,
    /// `--helm-debug`: `--debug` for every chart.
    pub debug: bool,
    /// Where pulled charts are kept (`--helm-cache-dir`); `None`: the user's cache
    /// directory (see [`default_cache_dir`]).
    pub cache_dir: Option<PathBuf>,
    /// Fail instead of pulling a chart that is not in the chart home or the cache.
    pub offline: bool,
    /// How long one helm run may take (`--plugin-timeout`; kbuild's).
    pub timeout: std::time::Duration,
    /// The timeout as written, for messages.
    pub timeout_text: String,
    /// Where helm runs register their process groups and scratch directories (for a
    /// signal handler; see [`crate::output::Cleanup`]).
    pub cleanup: crate::output::Cleanup,
    /// Show a spinner on stderr while a chart is pulled (see [`crate::progress`]).
    pub progress: bool,
}

impl Default for HelmOptions {
    fn default() -> Self {
        HelmOptions {
            command: "helm".into(),
            kube_version: String::new(),
            api_versions: Vec::new(),
            debug: false,
            cache_dir: None,
            offline: false,
            timeout: crate::plugin::DEFAULT_TIMEOUT,
            timeout_text: "10m".into(),
            cleanup: crate::output::Cleanup::default(),
            progress: false,
        }
    }
}

pub use cache::default_cache_dir;

/// A result kept for every chart that asks for the same thing.
type Shared<T> = Arc<OnceLock<Result<T>>>;

/// One build's helm state: the options, and what has been run so far.
#[derive(Default)]
pub struct Session {
    options: HelmOptions,
    /// `helm version`'s verdict.
    version_checked: OnceLock<Result<()>>,
    /// Charts pulled in this build, by cache key.
    pulls: Mutex<HashMap<String, Shared<PathBuf>>>,
    /// `helm template` outputs, by what determines them.
    templates: Mutex<HashMap<String, Shared<Vec<u8>>>>,
    /// Temporary directories holding charts pulled without an exact version; removed
    /// when the build ends.
    scratch: Mutex<Vec<crate::output::temp::Registered<tempfile::TempDir>>>,
}

impl Session {
    /// A session running helm as `options` say.
    pub fn new(options: HelmOptions) -> Session {
        Session {
            options,
            ..Session::default()
        }
    }

    /// The options.
    pub fn options(&self) -> &HelmOptions {
        &self.options
    }

    /// The charts' resources, in chart order, each chart's in helm's output order. helm
    /// may print about what is left of `budget` (see command.rs); the caller charges the
    /// resources.
    pub fn inflate_all(
        &self,
        charts: &[ChartArgs],
        version: KustomizeVersion,
        budget: &Budget,
    ) -> Result<Vec<Vec<Resource>>> {
        use rayon::prelude::*;
        if charts.len() < 2 {
            return charts
                .iter()
                .map(|c| self.inflate(c, version, budget))
                .collect();
        }
        let results: Vec<Result<Vec<Resource>>> = charts
            .par_iter()
            .map(|c| self.inflate(c, version, budget))
            .collect();
        // The first failure in chart order, as a sequential run would report it.
        results.into_iter().collect()
    }

    /// How a helm run with config home `home` is bounded now.
    fn limits<'a>(&'a self, home: &'a std::path::Path, budget: &Budget) -> command::Limits<'a> {
        command::Limits {
            home,
            cleanup: &self.options.cleanup,
            timeout: self.options.timeout,
            timeout_text: &self.options.timeout_text,
            remaining: budget.remaining(),
        }
    }

    /// One chart's resources.
    fn inflate(
        &self,
        chart: &ChartArgs,
        version: KustomizeVersion,
        budget: &Budget,
    ) -> Result<Vec<Resource>> {
        let fail = |problem| failure(chart, problem);
        // kustomize's temporary directory: the values file, and helm's config home (always:
        // see command.rs for why `helmGlobals.configHome` is not used). Removed when
        // dropped, on every path out of here, and by the signal handler.
        let scratch = crate::output::temp::Registered::dir(
            &self.options.cleanup,
            tempfile::Builder::new().prefix("kbuild-helm-"),
            None,
        )
        .map_err(|e| fail(HelmProblem::Files(format!("temporary directory: {e}"))))?;
        let config_home = scratch.path().join("helm");
        self.check_version(chart, &self.limits(&config_home, budget), version)?;
        let chart_dir = self.chart_dir(chart, &self.limits(&config_home, budget))?;
        let values = values::values_file(chart, &chart_dir)?;
        let values_path = scratch
            .path()
            .join(format!("{}-kustomize-values.yaml", chart.chart.name));
        std::fs::write(&values_path, &values).map_err(|e| Error::Io {
            path: values_path.clone(),
            source: e,
        })?;
        let argv = chart.template_args(&chart_dir, &values_path);
        let limits = self.limits(&config_home, budget);
        let run = || command::run(&self.options.command, &argv, &limits).map_err(fail);
        let stdout = if chart.chart.release_name.is_empty() && chart.chart.name_template.is_empty()
        {
            // `--generate-name`: helm makes up a new release name each time, so two such
            // inflations are not the same.
            run()?
        } else {
            let key = template_key(&chart_dir, &values, &argv, &values_path);
            self.once(&self.templates, key, run)?
        };
        let mut resources = command::parse_output(&stdout).map_err(fail)?;
        for r in &mut resources {
            r.helm_generated = true;
        }
        Ok(resources)
    }

    /// `helm version`: a helm kustomize accepts (major version 3; 4 too since v5.8.0).
    /// Asked once per build: kustomize asks once per chart, and the answer is the same.
    fn check_version(
        &self,
        chart: &ChartArgs,
        limits: &command::Limits<'_>,
        version: KustomizeVersion,
    ) -> Result<()> {
        let result = self.version_checked.get_or_init(|| {
            command::check_version(&self.options.command, limits, version)
                .map_err(|p| failure(chart, p))
        });
        match result {
            Ok(()) => Ok(()),
            Err(e) => Err(e.duplicate()),
        }
    }

    /// The chart's directory: in the chart home when it is there (used as found, as
    /// kustomize does), else pulled into the cache.
    fn chart_dir(&self, chart: &ChartArgs, limits: &command::Limits<'_>) -> Result<PathBuf> {
        let local = chart.local_chart_dir();
        if local.is_dir() {
            return Ok(local);
        }
        if chart.chart.repo.is_empty() {
            return Err(failure(chart, HelmProblem::NoChart { path: local }));
        }
        let key = cache::key(chart);
        self.once(&self.pulls, key, || cache::pull(self, chart, limits))
    }

    /// Runs `make` once for `key` in `table`; every caller gets its result.
    fn once<T: Clone>(
        &self,
        table: &Mutex<HashMap<String, Shared<T>>>,
        key: String,
        make: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let slot = table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_default()
            .clone();
        match slot.get_or_init(make) {
            Ok(v) => Ok(v.clone()),
            Err(e) => Err(e.duplicate()),
        }
    }
}

/// The error for `chart`.
fn failure(chart: &ChartArgs, problem: HelmProblem) -> Error {
    Error::Helm(Box::new(HelmError::new(&chart.chart.name, problem)))
}

/// What a `helm template` run's output depends on: the program, the chart directory, the
/// values (by content: each run writes them to its own temporary file) and the other
/// arguments (helm's config home is always a fresh temporary one).
fn template_key(
    chart_dir: &std::path::Path,
    values: &[u8],
    argv: &[String],
    values_path: &std::path::Path,
) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    // The values file's argument names this run's own temporary file.
    let values_arg = format!("--values={}", values_path.display());
    for part in argv.iter().filter(|a| **a != values_arg) {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.update(chart_dir.display().to_string().as_bytes());
    h.update([0]);
    h.update(values);
    hex(&h.finalize())
}

/// Lower-case hexadecimal digits of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
