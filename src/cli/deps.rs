//! `kbuild deps`: arguments and output.

use super::{VersionFlag, print_stdout};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub(crate) struct DepsArgs {
    /// Directory holding kustomization.yaml.
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Checked like the build's; every supported kustomize release reads the same files.
    #[command(flatten)]
    version: VersionFlag,
}

/// `kbuild deps`: the kustomization's input files, one a line, relative to
/// the current directory when below it.
pub(crate) fn run_deps(args: &DepsArgs) -> ExitCode {
    let result = kbuild::deps::input_files(&args.dir).and_then(|files| {
        let cwd = std::env::current_dir()
            .ok()
            .and_then(|d| std::fs::canonicalize(d).ok())
            .unwrap_or_default();
        let text: String = files
            .iter()
            .map(|f| format!("{}\n", f.strip_prefix(&cwd).unwrap_or(f).display()))
            .collect();
        print_stdout(&text)
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {}", e.report());
            ExitCode::from(2)
        }
    }
}
