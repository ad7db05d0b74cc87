//! kustomize's legacy exec plugin protocol (`api/internal/plugins/execplugin`).
//!
//! The program gets, as its first argument, a temporary file holding the config (as
//! kustomize prints it: keys sorted), then the arguments of the config's `argsOneLiner`
//! (split like a shell line) and `argsFromFile` (one a line); the environment adds
//! `KUSTOMIZE_PLUGIN_CONFIG_STRING` (the config again, left out when longer than
//! kustomize's limit) and `KUSTOMIZE_PLUGIN_CONFIG_ROOT` (the kustomization's directory,
//! which is also the working directory). A transformer reads the resources on stdin; both
//! print resources on stdout. Unlike kustomize, which leaves the temporary file behind when
//! the plugin fails, kbuild removes it whatever happens.

use super::process::{self, Job};
use crate::error::PluginProblem;
use crate::yaml::Node;
use std::path::Path;

/// kustomize's limit on `KEY=value` for the two variables (Linux's limit on one
/// environment string).
const MAX_ENV_STRING: usize = 131_071;

/// The arguments a config asks for: `argsOneLiner`, then `argsFromFile`'s lines.
/// `read` reads a file of the kustomization (through its loader); `version` picks the
/// `argsOneLiner` splitter (see shlex.rs).
pub(super) fn args(
    config: &Node,
    version: crate::kustomize_version::KustomizeVersion,
    read: &mut dyn FnMut(&str) -> crate::error::Result<Vec<u8>>,
) -> Result<Vec<String>, PluginProblem> {
    let field = |name: &str| -> Result<String, PluginProblem> {
        match config.get(name) {
            None | Some(Node::Null) => Ok(String::new()),
            Some(Node::Seq(_) | Node::Map(_)) => {
                Err(PluginProblem::BadConfig(format!("{name} must be a string")))
            }
            Some(v) => Ok(v.scalar_string().unwrap_or_default()),
        }
    };
    let mut args = Vec::new();
    let one_liner = field("argsOneLiner")?;
    if !one_liner.is_empty() {
        args = if version.args_one_liner_errors() {
            super::shlex::split_v581(&one_liner).map_err(|e| {
                PluginProblem::BadConfig(format!("failed to parse argsOneLiner: {e}"))
            })?
        } else {
            super::shlex::split_v550(&one_liner)
        };
    }
    let from_file = field("argsFromFile")?;
    if !from_file.is_empty() {
        let bytes = read(&from_file)
            .map_err(|e| PluginProblem::BadConfig(format!("argsFromFile: {}", e.report())))?;
        let text = String::from_utf8_lossy(&bytes);
        // kustomize trims leading spaces (only spaces) and skips empty lines.
        args.extend(
            text.split('\n')
                .map(|l| l.trim_start_matches(' '))
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
    }
    Ok(args)
}

/// Runs the plugin at `program` with `config_text` (the config as kustomize prints it),
/// `args` and `stdin`; returns its stdout.
pub(super) fn run(
    program: &Path,
    config_text: &str,
    args: &[String],
    root: &Path,
    stdin: &[u8],
    limits: &super::Limits,
) -> Result<Vec<u8>, PluginProblem> {
    let files = |e: std::io::Error| {
        PluginProblem::Files(format!("cannot write its temporary config file: {e}"))
    };
    // Removed when dropped, and by the signal handler if kbuild is interrupted.
    let config_file = crate::output::temp::Registered::file(
        &limits.cleanup,
        tempfile::Builder::new().prefix("kust-plugin-config-"),
    )
    .map_err(files)?;
    std::fs::write(config_file.path(), config_text).map_err(files)?;
    let mut argv = vec![config_file.path().display().to_string()];
    argv.extend(args.iter().cloned());
    let mut env = Vec::new();
    let root_text = root.display().to_string();
    for (key, value) in [
        ("KUSTOMIZE_PLUGIN_CONFIG_STRING", config_text),
        ("KUSTOMIZE_PLUGIN_CONFIG_ROOT", root_text.as_str()),
    ] {
        // kustomize leaves a variable out (with a log line) rather than fail the exec.
        if key.len() + 1 + value.len() <= MAX_ENV_STRING {
            env.push((key.to_string(), value.to_string()));
        }
    }
    let finished = process::run(&Job {
        program,
        args: &argv,
        dir: root.is_dir().then_some(root),
        env: &env,
        stdin,
        cleanup: &limits.cleanup,
        timeout: limits.timeout,
        timeout_text: &limits.timeout_text,
        max_output: process::output_cap(limits.remaining, stdin.len() as u64),
    })?;
    // The temporary file goes when `config_file` is dropped, on every path.
    drop(config_file);
    if !finished.status.success() {
        return Err(PluginProblem::Failed {
            status: finished.status.to_string(),
            stderr: String::from_utf8_lossy(&finished.stderr).into_owned(),
        });
    }
    Ok(finished.stdout)
}
