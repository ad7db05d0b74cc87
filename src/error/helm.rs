//! What can go wrong while inflating a helm chart (see the `helm` module).

use std::fmt;
use std::path::PathBuf;

/// A chart that could not be inflated: which one, and why.
#[derive(Clone, Debug)]
pub struct HelmError {
    /// The chart's name.
    pub chart: String,
    /// What went wrong.
    pub problem: HelmProblem,
}

/// Why a chart could not be inflated.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum HelmProblem {
    /// The helm program could not be started.
    NotFound {
        /// The command tried.
        command: String,
        /// What the operating system said.
        msg: String,
    },
    /// helm ran and failed.
    Failed {
        /// The command line (program and arguments).
        command_line: String,
        /// How it ended ("exit status: 1").
        status: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// `helm version` names a version kustomize does not run.
    BadVersion {
        /// What it printed.
        output: String,
        /// The accepted major versions, for the message.
        accepted: &'static str,
    },
    /// The chart is not in the chart home and there is no `repo` to pull it from.
    NoChart {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The chart is not in the chart home or the cache, and `--offline` forbids a pull.
    Offline {
        /// The repository it would come from.
        repo: String,
        /// The version asked for ("" for the newest).
        version: String,
    },
    /// `helm template` printed something that is not Kubernetes YAML.
    NotYaml {
        /// Why it does not parse.
        msg: String,
    },
    /// A values file that does not parse.
    BadValues {
        /// The file.
        path: PathBuf,
        /// Why.
        msg: String,
    },
    /// kbuild could not prepare helm's files (temporary or cache directories).
    Files(String),
    /// A value of the chart's entry that kbuild does not hand to helm (kbuild's check,
    /// see helm/checks.rs).
    Refused {
        /// The field ("releaseName", "additionalValuesFiles", …).
        field: String,
        /// Its value.
        value: String,
        /// Why.
        why: &'static str,
    },
    /// helm ran longer than `--plugin-timeout` and was killed with its process group.
    TimedOut {
        /// The helm command line.
        command_line: String,
        /// The limit, as given.
        limit: String,
    },
    /// helm printed more than kbuild reads (a bound derived from the output budget) and
    /// was killed with its process group.
    TooMuchOutput {
        /// The helm command line.
        command_line: String,
        /// The bound, in bytes.
        limit: u64,
    },
}

impl HelmError {
    /// The error for the chart named `chart`.
    pub fn new(chart: &str, problem: HelmProblem) -> HelmError {
        HelmError {
            chart: chart.to_string(),
            problem,
        }
    }

    /// What the user can do about it, when kbuild knows.
    pub fn hint(&self) -> Option<&'static str> {
        match self.problem {
            HelmProblem::NotFound { .. } => {
                Some("install helm, or name the program with --helm-command")
            }
            HelmProblem::NoChart { .. } => Some(
                "put the chart there (helmGlobals.chartHome, default 'charts'), or set the chart's 'repo' to pull it",
            ),
            HelmProblem::Offline { .. } => {
                Some("build once without --offline to fill the chart cache (--helm-cache-dir)")
            }
            HelmProblem::Refused { .. } => Some(
                "kbuild hands helm only values it cannot misread: fix the value in the helmCharts entry",
            ),
            HelmProblem::TimedOut { .. } => {
                Some("raise the limit with --plugin-timeout (e.g. --plugin-timeout 15m)")
            }
            HelmProblem::TooMuchOutput { .. } => Some(
                "if output this large is expected, raise --max-output-bytes (BuildOptions::max_output_bytes)",
            ),
            _ => None,
        }
    }
}

impl fmt::Display for HelmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let chart = &self.chart;
        match &self.problem {
            HelmProblem::NotFound { command, msg } => write!(
                f,
                "helm chart '{chart}': cannot run the helm command '{command}' (--helm-command): {msg}"
            ),
            HelmProblem::Failed {
                command_line,
                status,
                stderr,
            } => {
                write!(
                    f,
                    "helm chart '{chart}': '{command_line}' failed ({status})"
                )?;
                let stderr = stderr.trim_end();
                if !stderr.is_empty() {
                    write!(f, ":\n{stderr}")?;
                }
                Ok(())
            }
            HelmProblem::BadVersion { output, accepted } => write!(
                f,
                "helm chart '{chart}': kustomize runs helm {accepted}, but 'helm version' says {:?}",
                output.trim()
            ),
            HelmProblem::NoChart { path } => write!(
                f,
                "helm chart '{chart}': no chart found at '{}' and no repo specified for pull",
                path.display()
            ),
            HelmProblem::Offline { repo, version } => {
                let version = if version.is_empty() {
                    "no version"
                } else {
                    version
                };
                write!(
                    f,
                    "helm chart '{chart}' ({version}) from '{repo}' is not in the chart cache, and --offline forbids pulling it"
                )
            }
            HelmProblem::NotYaml { msg } => write!(
                f,
                "helm chart '{chart}': helm template printed something that is not Kubernetes YAML: {msg}"
            ),
            HelmProblem::BadValues { path, msg } => write!(
                f,
                "helm chart '{chart}': values file '{}' does not parse: {msg}",
                path.display()
            ),
            HelmProblem::Files(msg) => write!(f, "helm chart '{chart}': {msg}"),
            HelmProblem::Refused { field, value, why } => write!(
                f,
                "helm chart '{chart}': {field} {value:?} is refused: {why}"
            ),
            HelmProblem::TimedOut {
                command_line,
                limit,
            } => write!(
                f,
                "helm chart '{chart}': '{command_line}' still running after {limit} (--plugin-timeout); killed it and its process group"
            ),
            HelmProblem::TooMuchOutput {
                command_line,
                limit,
            } => write!(
                f,
                "helm chart '{chart}': '{command_line}' printed more than {limit} bytes, more than the output budget leaves room for; killed it and its process group"
            ),
        }
    }
}
