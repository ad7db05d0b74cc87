//! The `kbuild` command line: parses arguments, calls the library, renders
//! errors and sets the exit code.

use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;

/// mimalloc instead of the system allocator: ~12% fewer instructions on the generated
/// trees (a build allocates and frees many small nodes, and glibc's per-thread arenas grow by
/// one `mprotect` call at a time). Built without transparent huge pages (`no_thp`): with them
/// a small build's peak RSS doubles.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli {
    pub(crate) mod build;
    pub(crate) mod cache;
    pub(crate) mod completions;
    pub(crate) mod create;
    pub(crate) mod deps;
    pub(crate) mod diff;
    pub(crate) mod edit;
    pub(crate) mod exit;
    pub(crate) mod explain;
    pub(crate) mod help;
    pub(crate) mod localize;
    pub(crate) mod man;
    pub(crate) mod merge;
    pub(crate) mod openapi;
    pub(crate) mod pager;
    pub(crate) mod pool;
    pub(crate) mod progress;
    pub(crate) mod render;
    pub(crate) mod signals;
    pub(crate) mod unsupported;
    pub(crate) mod usage;
    pub(crate) mod version;
    pub(crate) mod warnings;
    pub(crate) use super::{print_stdout, print_stdout_parts};
    pub(crate) use build::{BuildFlags, VersionFlag, go_bool, parse_version};
    pub(crate) use exit::{CommandError, CommandResult, OrTrouble, Status};
}
use cli::merge as merge_cli;
use cli::{build::BuildArgs, build::run_build, version::VersionArgs, version::run_version};
use cli::{cache::*, completions::*, create::*, deps::*, diff::*, edit::*, man::*, render::*};

/// Renders Kubernetes configuration the way `kustomize build` does.
#[derive(Parser, Debug)]
#[command(
    name = "kbuild",
    version,
    about,
    args_conflicts_with_subcommands = true,
    // pflag lets a flag be given twice, the last value winning; clap refuses by default.
    // Both settings reach the subcommands.
    args_override_self = true,
    // One layout for every section: the help of the long kustomize flags below each.
    next_line_help = true,
    // `--help` and the man page, not `-h`.
    after_long_help = cli::exit::EXIT_STATUS_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    build: BuildArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Build a kustomization (the default command).
    Build(BuildArgs),
    /// Three-way merge: carry the changes between ORIGINAL and UPDATED into DEST.
    Merge3(merge_cli::Merge3Args),
    /// Show what `kubectl apply` (client-side) would do to live objects, offline.
    Apply(merge_cli::ApplyArgs),
    /// Compare two builds, saved renders, YAML streams or git revisions resource by
    /// resource.
    Diff(DiffArgs),
    /// Render many kustomizations, one file each (for pre-commit and CI).
    Render(RenderArgs),
    /// Print the input files of a kustomization.
    Deps(DepsArgs),
    /// Say where each field of the output came from: the file, line and column, and the
    /// patches and transformers that changed it.
    Explain(cli::explain::ExplainArgs),
    /// Merge custom resources' lists by the keys their CRDs declare: `from-crds` writes
    /// the schema file for a kustomization's `openapi: path:`.
    Openapi(cli::openapi::OpenapiArgs),
    /// Edit the kustomization file in the current directory, as `kustomize edit`
    /// does, keeping its comments and layout.
    Edit(EditArgs),
    /// Create a kustomization file in the current directory, as `kustomize create`
    /// does.
    #[command(alias = "init")]
    Create(CreateArgs),
    /// Copy a kustomization with its remote bases and files into a local tree, as
    /// `kustomize localize` does.
    Localize(cli::localize::LocalizeArgs),
    /// List or clean the clone cache of remote bases.
    Cache(CacheArgs),
    /// Print the kustomize version kbuild reproduces, as `kustomize version` does.
    Version(VersionArgs),
    /// Print a completion script for bash, zsh, fish, powershell or elvish.
    #[command(alias = "completion")]
    Completions(CompletionsArgs),
    /// Print the manual page (roff), or write one per subcommand with --out.
    Man(ManArgs),
}

fn main() {
    let cli = cli::usage::parse::<Cli>(&QUICK);
    if writes_files(&cli) {
        cli::signals::remove_temporaries_on_signal();
    }
    // Otherwise the handler starts with the first plugin, helm chart or remote base
    // (`signals::cleanup`'s first use).
    let code = match cli::pool::sharing_main_thread() {
        // The main thread is the pool's first worker: `install` runs `run` right here.
        Some(pool) => pool.install(|| cli::exit::finish(run(cli))),
        None => cli::exit::finish(run(cli)),
    };
    end_process(code)
}

/// A plain build's command line (see `cli::usage::Quick`): the build's arguments at the
/// top and as `build`, with the settings of [`Cli`] that change what parses.
const QUICK: cli::usage::Quick = cli::usage::Quick {
    command: || {
        use clap::Args;
        BuildArgs::augment_args(clap::Command::new("kbuild"))
            .args_conflicts_with_subcommands(true)
            .args_override_self(true)
            .subcommand(BuildArgs::augment_args(clap::Command::new("build")))
    },
    other_words: &[
        "merge3",
        "apply",
        "diff",
        "render",
        "deps",
        "explain",
        "openapi",
        "edit",
        "create",
        "init",
        "localize",
        "cache",
        "version",
        "completions",
        "completion",
        "man",
        "help",
    ],
};

/// Ends the process with `code` once stdout is flushed, skipping the exit handlers. The
/// one registered is mimalloc's, which collects every thread's heap and returns the
/// pages to the system one `madvise` at a time: work the kernel does in one pass when
/// the process ends (about 2% of a build's wall time, measured on the bench trees).
/// Nothing of kbuild's is left to run here: temporary files are removed by their owners
/// before `run` returns, a pager has been waited for, and the results of a build are
/// never freed (see `cli::build`).
///
/// Except in the binary tools/build-pgo.sh builds to profile kbuild (`--cfg
/// kbuild_pgo_train`): its profile's counts are written by an exit handler.
fn end_process(code: u8) -> ! {
    let _ = std::io::stdout().flush();
    #[cfg(kbuild_pgo_train)]
    std::process::exit(i32::from(code));
    // SAFETY: `_exit` has no preconditions; it ends the process without returning.
    #[cfg(not(kbuild_pgo_train))]
    unsafe {
        libc::_exit(i32::from(code))
    }
}

/// Runs the subcommand: every one returns its status or its error, which `main` prints
/// in one place (`cli::exit`).
fn run(cli: Cli) -> cli::CommandResult {
    match cli.command {
        Some(Command::Build(a)) => run_build(&a),
        Some(Command::Merge3(a)) => merge_cli::run_merge3(&a),
        Some(Command::Apply(a)) => merge_cli::run_apply(&a),
        Some(Command::Diff(a)) => run_diff(&a),
        Some(Command::Render(a)) => run_render(&a),
        Some(Command::Deps(a)) => run_deps(&a),
        Some(Command::Explain(a)) => cli::explain::run_explain(&a),
        Some(Command::Openapi(a)) => cli::openapi::run_openapi(&a),
        Some(Command::Edit(a)) => run_edit(&a),
        Some(Command::Create(a)) => run_create(&a),
        Some(Command::Localize(a)) => cli::localize::run_localize(&a),
        Some(Command::Cache(a)) => run_cache(&a),
        Some(Command::Version(a)) => run_version(&a),
        Some(Command::Completions(a)) => run_completions(&a, cli::usage::command::<Cli>()),
        Some(Command::Man(a)) => run_man(&a, cli::usage::command::<Cli>()),
        None => run_build(&cli.build),
    }
}

/// Whether the command may write files (and so leave temporary files if killed): only
/// those start the signal thread, so `kbuild build` to stdout, the benchmarked path,
/// spawns nothing.
fn writes_files(cli: &Cli) -> bool {
    match &cli.command {
        Some(Command::Build(a)) => a.writes_files(),
        None => cli.build.writes_files(),
        Some(Command::Merge3(_) | Command::Apply(_) | Command::Render(_)) => true,
        Some(Command::Edit(_) | Command::Create(_) | Command::Localize(_)) => true,
        Some(Command::Openapi(a)) => a.writes_files(),
        // `diff --ref` writes a revision's files into a temporary directory.
        Some(Command::Diff(a)) => a.git_ref.is_some(),
        Some(
            Command::Cache(_)
            | Command::Deps(_)
            | Command::Explain(_)
            | Command::Version(_)
            | Command::Completions(_)
            | Command::Man(_),
        ) => false,
    }
}

/// Writes to stdout; a closed pipe (`kbuild | head`) is not an error.
fn print_stdout(text: &str) -> Result<(), kbuild::Error> {
    print_stdout_parts(&[text])
}

/// Writes `parts` to stdout, one after another (see [`print_stdout`]).
fn print_stdout_parts<S: AsRef<str>>(parts: &[S]) -> Result<(), kbuild::Error> {
    let mut out = std::io::stdout().lock();
    let written = parts
        .iter()
        .try_for_each(|p| out.write_all(p.as_ref().as_bytes()))
        .and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(kbuild::Error::Io {
            path: PathBuf::from("<stdout>"),
            source: e,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick parse skips a command line holding any of these words: they must be
    /// every other subcommand's name and alias.
    #[test]
    fn quick_words_are_the_other_subcommands() {
        let command = cli::usage::command::<Cli>();
        let mut words: Vec<&str> = command
            .get_subcommands()
            .filter(|s| s.get_name() != "build")
            .flat_map(|s| std::iter::once(s.get_name()).chain(s.get_all_aliases()))
            .chain(["help"])
            .collect();
        let mut quick = QUICK.other_words.to_vec();
        words.sort_unstable();
        quick.sort_unstable();
        assert_eq!(words, quick);
    }

    /// Every build command line the quick parse reads gives what the whole command gives.
    #[test]
    fn quick_parse_is_the_whole_parse() {
        let lines: &[&[&str]] = &[
            &["kbuild"],
            &["kbuild", "dir"],
            &["kbuild", "build"],
            &["kbuild", "build", "dir"],
            &["kbuild", "build", "dir", "-o", "out.yaml", "--enable-helm"],
            &["kbuild", "dir", "--enable-helm=false", "--enable-helm"],
            &["kbuild", "-o", "a", "dir", "-o", "b"],
            &["kbuild", "dir", "--load-restrictor", "LoadRestrictionsNone"],
            &[
                "kbuild",
                "dir",
                "--kustomize-version=v5.5.0",
                "--reorder",
                "none",
            ],
            &[
                "kbuild",
                "build",
                "dir",
                "--enable-alpha-plugins",
                "--enable-exec",
            ],
            &[
                "kbuild",
                "build",
                "--provenance",
                "p.json",
                "dir",
                "--quiet",
            ],
            &["kbuild", "dir", "extra", "more"],
            &["kbuild", "--", "dir"],
            &["kbuild", "build", "--", "-dir"],
            &[
                "kbuild",
                "dir",
                "--helm-command",
                "h",
                "--helm-api-versions",
                "a,b",
            ],
            &["kbuild", "dir", "--network"],
            &[
                "kbuild",
                "dir",
                "--enable-managedby-label",
                "--strict",
                "--offline",
                "-e",
                "K=V",
            ],
            // Errors and help are left to the whole command.
            &["kbuild", "--version"],
            &["kbuild", "build", "--help"],
            &["kbuild", "dir", "--no-such-flag"],
            &["kbuild", "dir", "--enable-helm", "yes"],
        ];
        for line in lines {
            let (quick, whole) = cli::usage::quick_and_whole::<Cli>(&QUICK, line);
            let quick = quick.expect("a build's command line is tried quickly");
            match (quick, whole) {
                (Ok(q), Ok(w)) => assert_eq!(format!("{q:?}"), format!("{w:?}"), "{line:?}"),
                (Err(_), Err(_)) => {}
                (q, w) => panic!("{line:?}: quick {q:?}, whole {w:?}"),
            }
        }
        for line in [
            &["kbuild", "diff", "a", "b"][..],
            &["kbuild", "dir", "-o", "help"],
        ] {
            let (quick, _) = cli::usage::quick_and_whole::<Cli>(&QUICK, line);
            assert!(quick.is_none(), "{line:?}");
        }
    }
}
