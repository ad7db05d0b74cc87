//! `kbuild localize [TARGET [DEST]] [--scope DIR] [--no-verify]`: kustomize v5.8.1's
//! `localize` (see the library's `localize`). As kustomize does, the localized copy is
//! built and compared with the original's build unless `--no-verify`; kbuild compares
//! before the copy is moved into place, so a failed verification leaves no destination.

use kbuild::localize::{LocalizeOptions, stage};
use kbuild::remote::RemoteOptions;
use kbuild::{BuildOptions, Error};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub(crate) struct LocalizeArgs {
    /// The kustomization directory, or a git URL with `?ref=` (default: the current
    /// directory).
    target: Option<String>,
    /// A new directory, in an existing one (default: `localized-<target>` in the
    /// current directory; `localized-<target>-<ref>` for a URL).
    dest: Option<PathBuf>,
    /// The directory local files may come from (default: the target); not with a URL
    /// target, whose scope is its repository.
    #[arg(long, value_name = "DIR")]
    scope: Option<PathBuf>,
    /// Do not build the original and the copy to check they print the same.
    #[arg(long)]
    no_verify: bool,
    /// Use only what the clone cache holds (see `kbuild build --offline`).
    #[arg(long)]
    offline: bool,
    /// The clone cache (see `kbuild build --remote-cache-dir`).
    #[arg(long, value_name = "DIR")]
    remote_cache_dir: Option<PathBuf>,
}

/// `kbuild localize`: exit 0 when the copy is in place, 1 on any error (nothing written).
pub(crate) fn run_localize(args: &LocalizeArgs) -> super::CommandResult {
    localize(args)?;
    Ok(super::Status::Success)
}

fn localize(args: &LocalizeArgs) -> Result<(), Error> {
    let remote = RemoteOptions {
        cache_dir: args.remote_cache_dir.clone(),
        offline: args.offline,
        cleanup: super::signals::cleanup().clone(),
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    let target = args.target.clone().unwrap_or_else(|| ".".to_string());
    let staged = stage(&LocalizeOptions {
        target: target.clone(),
        scope: args.scope.clone(),
        dest: args.dest.clone(),
        remote: remote.clone(),
    })?;
    if !args.no_verify {
        let options = BuildOptions {
            remote,
            ..BuildOptions::default()
        };
        let original = build(Path::new(&target), &options)?;
        let localized = build(&staged.staged_target(), &options)?;
        if original != localized {
            let diff = similar::TextDiff::from_lines(&original, &localized)
                .unified_diff()
                .header("original", "localized")
                .to_string();
            eprint!("{diff}");
            return Err(Error::msg(format!(
                "VERIFICATION FAILED: `kbuild build` for {target} and {} are different after localization; nothing was written",
                staged.target_in_dest().display()
            )));
        }
        eprintln!(
            "VERIFICATION SUCCESS: `kbuild build` for {target} and {} are the same after localization.",
            staged.target_in_dest().display()
        );
    }
    let files = staged.files();
    let dest = staged.commit()?;
    eprintln!(
        "SUCCESS: localized \"{}\" to directory {} ({files} files)",
        kbuild::remote::redact(&target),
        dest.display()
    );
    Ok(())
}

fn build(dir: &Path, options: &BuildOptions) -> Result<String, Error> {
    let built = kbuild::build(dir, options)?;
    Ok(kbuild::output::render(&built))
}
