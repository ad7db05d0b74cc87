//! Running the helm program: `helm version`, `helm pull`, `helm template`, with the
//! environment kustomize gives it, and reading `helm template`'s output.

use super::HelmProblem;
use crate::kustomize_version::KustomizeVersion;
use crate::resource::Resource;
use std::path::Path;
use std::process::Command;

/// Runs `command args…` with kustomize's helm environment (`HELM_CONFIG_HOME` and, under
/// it, `HELM_CACHE_HOME=<it>/.cache` and `HELM_DATA_HOME=<it>/.data`) and returns its
/// stdout. No shell is involved.
pub(super) fn run(
    command: &str,
    args: &[String],
    config_home: &Path,
) -> Result<Vec<u8>, HelmProblem> {
    let home = config_home.display().to_string();
    let out = Command::new(command)
        .args(args)
        .env("HELM_CONFIG_HOME", &home)
        .env("HELM_CACHE_HOME", format!("{home}/.cache"))
        .env("HELM_DATA_HOME", format!("{home}/.data"))
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| HelmProblem::NotFound {
            command: command.to_string(),
            msg: e.to_string(),
        })?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    Err(HelmProblem::Failed {
        command_line: std::iter::once(command)
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        status: out.status.to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// Checks `helm version`: kustomize runs helm 3 (and, since v5.8.0, helm 4), reading the
/// first version-like string of `helm version --short` (`-c --short` before v5.8.0).
pub(super) fn check_version(
    command: &str,
    config_home: &Path,
    version: KustomizeVersion,
) -> Result<(), HelmProblem> {
    let args: Vec<String> = version
        .helm_version_args()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let stdout = run(command, &args, config_home)?;
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

/// `helm template`'s output as resources. helm may print messages before the first
/// document; as kustomize does, what comes before the first `---` is dropped when the
/// whole does not parse.
pub(super) fn parse_output(stdout: &[u8]) -> Result<Vec<Resource>, HelmProblem> {
    let source = Path::new("helm template output");
    let first = crate::resource::parse::parse_resources(stdout.to_vec(), source);
    let err = match first {
        Ok(resources) => return Ok(resources),
        Err(e) => e,
    };
    let text = String::from_utf8_lossy(stdout);
    let start = if text.starts_with("---\n") {
        None
    } else {
        text.find("\n---\n").map(|i| i + 1)
    };
    if let Some(start) = start
        && let Ok(resources) =
            crate::resource::parse::parse_resources(text[start..].as_bytes().to_vec(), source)
    {
        return Ok(resources);
    }
    Err(HelmProblem::NotYaml {
        msg: err.to_string(),
    })
}
