//! Running the helm program: `helm version`, `helm pull`, `helm template`, with the
//! environment kustomize gives it and kbuild's limits, and reading `helm template`'s output.
//!
//! helm runs as a plugin does (plugin/process.rs): no shell, in a process group of its
//! own killed when `--plugin-timeout` passes, its output read in chunks up to about what
//! the build's output budget has left, so a chart (or a helm) printing without end fails
//! the build quickly instead of filling memory.
//!
//! Its environment is kustomize's — `HELM_CONFIG_HOME=<home>`, `HELM_CACHE_HOME=<home>/.cache`,
//! `HELM_DATA_HOME=<home>/.data` — where `<home>` is always a directory in kbuild's own
//! scratch directory: kustomize takes `helmGlobals.configHome` from the kustomization, so a
//! tree could make helm load plugins (a downloader plugin runs for a `repo` with its URL
//! scheme), a repositories file or a registry config (whose credential helpers are
//! programs) of its own; kbuild ignores it (with a warning). kbuild also sets what helm
//! would otherwise take from the user's environment or derive from those homes:
//! `HELM_PLUGINS` (in the scratch home: no plugins), `HELM_NO_PLUGINS=1`,
//! `HELM_CONTENT_CACHE`, and `HELM_REGISTRY_CONFIG`, `HELM_REPOSITORY_CONFIG` and
//! `HELM_REPOSITORY_CACHE` unless kbuild's own environment sets them (that is how the
//! person running kbuild hands helm registry credentials).

use super::HelmProblem;
use crate::kustomize_version::KustomizeVersion;
use crate::plugin::process;
use crate::resource::Resource;
use std::path::Path;
use std::time::Duration;

/// How one helm run is bounded.
pub(super) struct Limits<'a> {
    /// helm's config home (see the module comment).
    pub home: &'a Path,
    /// Where its process group is registered while it runs.
    pub cleanup: &'a crate::output::Cleanup,
    /// `--plugin-timeout`.
    pub timeout: Duration,
    /// The timeout as written, for messages.
    pub timeout_text: &'a str,
    /// What is left of the build's output budget.
    pub remaining: u64,
}

/// The variables kbuild sets for helm (see the module comment).
pub(super) fn environment(home: &Path) -> Vec<(String, String)> {
    let home = home.display().to_string();
    let from_user = |name: &str, default: String| {
        std::env::var(name)
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or(default)
    };
    vec![
        // kustomize's three, as it writes them.
        ("HELM_CONFIG_HOME".into(), home.clone()),
        ("HELM_CACHE_HOME".into(), format!("{home}/.cache")),
        ("HELM_DATA_HOME".into(), format!("{home}/.data")),
        // kbuild's.
        ("HELM_PLUGINS".into(), format!("{home}/.data/plugins")),
        ("HELM_NO_PLUGINS".into(), "1".into()),
        (
            "HELM_CONTENT_CACHE".into(),
            format!("{home}/.cache/content"),
        ),
        (
            "HELM_REGISTRY_CONFIG".into(),
            from_user(
                "HELM_REGISTRY_CONFIG",
                format!("{home}/registry/config.json"),
            ),
        ),
        (
            "HELM_REPOSITORY_CONFIG".into(),
            from_user(
                "HELM_REPOSITORY_CONFIG",
                format!("{home}/repositories.yaml"),
            ),
        ),
        (
            "HELM_REPOSITORY_CACHE".into(),
            from_user("HELM_REPOSITORY_CACHE", format!("{home}/.cache/repository")),
        ),
    ]
}

/// Runs `command args…` (see the module comment) and returns its stdout.
pub(super) fn run(
    command: &str,
    args: &[String],
    limits: &Limits<'_>,
) -> Result<Vec<u8>, HelmProblem> {
    let command_line = || {
        std::iter::once(command)
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let env = environment(limits.home);
    let finished = process::run(&process::Job {
        program: Path::new(command),
        args,
        dir: None,
        env: &env,
        stdin: &[],
        cleanup: limits.cleanup,
        timeout: limits.timeout,
        timeout_text: limits.timeout_text,
        max_output: process::output_cap(limits.remaining, 0),
    })
    .map_err(|p| match p {
        crate::error::PluginProblem::Spawn { msg, .. } => HelmProblem::NotFound {
            command: command.to_string(),
            msg,
        },
        crate::error::PluginProblem::TimedOut { limit }
        | crate::error::PluginProblem::OutputHeld { limit } => HelmProblem::TimedOut {
            command_line: command_line(),
            limit,
        },
        crate::error::PluginProblem::TooMuchOutput { limit } => HelmProblem::TooMuchOutput {
            command_line: command_line(),
            limit,
        },
        other => HelmProblem::Failed {
            command_line: command_line(),
            status: "not run to its end".into(),
            stderr: crate::error::PluginError::new("helm", other).to_string(),
        },
    })?;
    if finished.status.success() {
        return Ok(finished.stdout);
    }
    Err(HelmProblem::Failed {
        command_line: command_line(),
        status: finished.status.to_string(),
        stderr: String::from_utf8_lossy(&finished.stderr).into_owned(),
    })
}

/// Checks `helm version`: kustomize runs helm 3 (and, since v5.8.0, helm 4), reading the
/// first version-like string of `helm version --short` (`-c --short` before v5.8.0).
pub(super) fn check_version(
    command: &str,
    limits: &Limits<'_>,
    version: KustomizeVersion,
) -> Result<(), HelmProblem> {
    let args: Vec<String> = version
        .helm_version_args()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let stdout = run(command, &args, limits)?;
    let text = String::from_utf8_lossy(&stdout);
    let accepted = version.helm_majors();
    let found = regex::Regex::new(r"v?\d+(\.\d+)+")
        .ok()
        .and_then(|r| r.find(&text).map(|m| m.as_str().to_string()));
    let major = found.as_deref().map(|v| {
        v.trim_start_matches('v')
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string()
    });
    match major {
        Some(m) if accepted.contains(&m.as_str()) => Ok(()),
        _ => Err(HelmProblem::BadVersion {
            output: text.into_owned(),
            accepted: version.helm_majors_text(),
        }),
    }
}

/// `helm template`'s output as resources, read as a resource file. kustomize (v5.5.0 and
/// v5.8.1) retries a failed read with kyaml's reader "to remove the contents before first
/// `---`", but that reader drops nothing: text helm prints before the first document (a
/// line of notes, `key: value`) is a document without metadata and fails the build there
/// (`missing Resource metadata`); comments and blank lines are no document and pass. kbuild
/// fails the same way (it dropped the text before).
pub(super) fn parse_output(stdout: &[u8]) -> Result<Vec<Resource>, HelmProblem> {
    let source = Path::new("helm template output");
    crate::resource::parse::parse_resources(stdout.to_vec(), source)
        .map_err(|e| HelmProblem::NotYaml { msg: e.to_string() })
}
