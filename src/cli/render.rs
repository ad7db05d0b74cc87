//! `kbuild render`: arguments, reports and exit status.

use super::exit::Failure;
use super::{BuildFlags, print_stdout};
use super::{CommandError, OrTrouble, Status};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(crate) struct RenderArgs {
    /// Kustomization directories; with --all, directories to search for
    /// kustomizations; with --affected, changed files.
    paths: Vec<PathBuf>,
    /// Write one file per kustomization here (OUTDIR/<dir>.yaml). Without
    /// it, the kustomizations are only built.
    #[arg(long, value_name = "OUTDIR")]
    out: Option<PathBuf>,
    /// Render every kustomization found under the given directories
    /// (default: the current directory). Components are skipped.
    #[arg(long, conflicts_with = "affected")]
    all: bool,
    /// Take the paths as changed files and render only the kustomizations
    /// (found under --root) that read one of them, or whose render it is.
    #[arg(long)]
    affected: bool,
    /// With --affected: where to look for kustomizations (repeatable).
    #[arg(long, value_name = "DIR", requires = "affected", default_value = ".")]
    root: Vec<PathBuf>,
    /// Write nothing; compare with the files in OUTDIR and exit 1 if any is
    /// missing or stale (with --all, or left by a kustomization that is gone).
    #[arg(long, requires = "out")]
    check: bool,
    /// No warnings, no progress bar (it is shown only on a terminal, for more than one
    /// kustomization) and no summary line when all went well.
    #[arg(long, short)]
    quiet: bool,
    /// A kustomization whose build has warnings fails (exit 2) and its render is not
    /// written; the warnings are printed, even with --quiet (kbuild's; for CI).
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    flags: BuildFlags,
}

/// `kbuild render`: exit 0 when all rendered (or current), 1 when --check
/// found stale renders, 2 on any error.
pub(crate) fn run_render(args: &RenderArgs) -> super::CommandResult {
    use kbuild::render::{self, Outcome, RenderJob};
    let job = (|| {
        let out = args.out.as_deref();
        let dirs = if args.all {
            let roots = if args.paths.is_empty() {
                vec![PathBuf::from(".")]
            } else {
                args.paths.clone()
            };
            render::discover(&roots, out)?
        } else if args.affected {
            render::affected(&render::discover(&args.root, out)?, &args.paths, out)?
        } else if args.paths.is_empty() {
            return Err(kbuild::Error::msg(
                "no kustomization directories given; name them, or use --all or --affected",
            ));
        } else {
            args.paths.clone()
        };
        let mut job = RenderJob {
            dirs,
            out_dir: args.out.clone(),
            check: args.check,
            build_options: args.flags.options()?,
            strict: args.strict,
            cleanup: super::signals::cleanup().clone(),
        };
        // One bar at a time on stderr: with the render bar (two directories or more)
        // or `--quiet`, no fetch or pull spinner.
        if args.quiet || job.dirs.len() > 1 {
            job.build_options.remote.progress = false;
            job.build_options.helm.progress = false;
        }
        render::validate(&job)?;
        Ok(job)
    })();
    let job = job.or_trouble()?;
    let bar = super::progress::bar(job.dirs.len() as u64, "rendering", args.quiet);
    let results = render::run_with(&job, &|_| bar.inc(1));
    bar.finish_and_clear();
    let (mut written, mut failed, mut stale) = (0, 0, 0);
    let mut report = String::new();
    for r in &results {
        let flags = super::warnings::WarningFlags {
            strict: args.strict,
            quiet: args.quiet,
        };
        // With --strict, the failure is this kustomization's error, printed below.
        flags.print(&r.warnings);
        let file = r
            .file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_default();
        match &r.outcome {
            Outcome::Written { changed } => written += usize::from(*changed),
            Outcome::Built | Outcome::Current => {}
            Outcome::Stale { diff } => {
                stale += 1;
                report.push_str(&format!("stale: {file} (render of {})\n", r.dir.display()));
                // A short diff: enough to see what changed, not the whole file.
                let lines: Vec<&str> = diff.lines().collect();
                for line in lines.iter().take(30) {
                    report.push_str(&format!("  {line}\n"));
                }
                if lines.len() > 30 {
                    report.push_str(&format!("  ... ({} more lines)\n", lines.len() - 30));
                }
            }
            Outcome::Failed(e) => {
                failed += 1;
                super::exit::print(e);
            }
        }
    }
    // The rest of OUTDIR: the manifest, renders of kustomizations that are gone (with
    // --all), leftover temporary files.
    let roots = args.all.then(|| {
        if args.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            args.paths.clone()
        }
    });
    match render::housekeep(&job, roots.as_deref(), &results) {
        Ok(done) => {
            for (file, why) in &done.stale {
                stale += 1;
                report.push_str(&format!("stale: {} ({why})\n", file.display()));
            }
            for file in &done.removed {
                eprintln!("removed {}", file.display());
            }
            for file in &done.foreign {
                eprintln!(
                    "warning: {} was not written by kbuild render (it is not in {}); left alone",
                    file.display(),
                    job.out_dir
                        .as_deref()
                        .unwrap_or(std::path::Path::new("."))
                        .join(render::manifest::FILE_NAME)
                        .display()
                );
            }
        }
        Err(e) => {
            failed += 1;
            super::exit::print(&e);
        }
    }
    print_stdout(&report).or_trouble()?;
    let n = results.len();
    let done = n.saturating_sub(failed);
    let summary = match (&job.out_dir, job.check) {
        (Some(out), true) => format!(
            "checked {done} of {} against {}: {stale} stale",
            plural(n, "kustomization"),
            out.display()
        ),
        (Some(out), false) => format!(
            "rendered {done} of {} into {} ({} updated)",
            plural(n, "kustomization"),
            out.display(),
            plural(written, "file")
        ),
        (None, _) => format!("built {done} of {}", plural(n, "kustomization")),
    };
    // The summary says something went wrong, or, unless quiet, that all went well.
    let quiet_success = args.quiet && failed == 0 && stale == 0;
    if !quiet_success {
        eprintln!(
            "{summary}{}",
            if failed > 0 {
                format!(", {failed} failed")
            } else {
                String::new()
            }
        );
    }
    if stale > 0 && job.check {
        eprintln!("run `{}` to update the renders", fix_command());
    }
    if failed > 0 {
        Err(CommandError::reported(Failure::Trouble))
    } else if stale > 0 {
        Ok(Status::Differences)
    } else {
        Ok(Status::Success)
    }
}

/// The command that brings the renders (or `openapi from-crds`'s file) up to date: this
/// one without `--check`, its arguments quoted for a POSIX shell.
pub(crate) fn fix_command() -> String {
    let mut words = vec!["kbuild".to_string()];
    words.extend(
        std::env::args_os()
            .skip(1)
            .filter(|a| a != "--check")
            .map(|a| shell_quote(&a.to_string_lossy())),
    );
    words.join(" ")
}

fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `1 file`, `2 files`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
