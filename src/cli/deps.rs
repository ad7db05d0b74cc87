//! `kbuild deps`: arguments and output.

use super::OrTrouble;
use super::{VersionFlag, print_stdout};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(crate) struct DepsArgs {
    /// Directory holding kustomization.yaml.
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Checked like the build's; every supported kustomize release reads the same files.
    #[command(flatten)]
    version: VersionFlag,
    /// Resolve git refs from the clone cache only (see `kbuild build --offline`).
    #[arg(long)]
    offline: bool,
    /// The clone cache (see `kbuild build --remote-cache-dir`).
    #[arg(long, value_name = "DIR")]
    remote_cache_dir: Option<PathBuf>,
}

/// `kbuild deps`: the kustomization's input files, one a line, relative to
/// the current directory when below it; then its remote inputs, a URL a line, a git
/// repository's followed by the commit its ref resolves to.
pub(crate) fn run_deps(args: &DepsArgs) -> super::CommandResult {
    let session = kbuild::remote::Session::new(kbuild::remote::RemoteOptions {
        cache_dir: args.remote_cache_dir.clone(),
        offline: args.offline,
        cleanup: super::signals::cleanup().clone(),
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
    });
    let result = kbuild::deps::inputs(&args.dir, &session).and_then(|(files, remote)| {
        let cwd = std::env::current_dir()
            .ok()
            .and_then(|d| std::fs::canonicalize(d).ok())
            .unwrap_or_default();
        let mut text: String = files
            .iter()
            .map(|f| format!("{}\n", f.strip_prefix(&cwd).unwrap_or(f).display()))
            .collect();
        for input in remote {
            match input.commit {
                Some(commit) => text.push_str(&format!("{} {commit}\n", input.url)),
                None => text.push_str(&format!("{}\n", input.url)),
            }
        }
        print_stdout(&text)
    });
    result.or_trouble()?;
    Ok(super::Status::Success)
}
