//! The `kbuild` command line: parses arguments, calls the library, renders
//! errors and sets the exit code.

use clap::{Parser, Subcommand, ValueEnum};
use kbuild::KustomizeVersion;
use kbuild::build::{BuildOptions, build_with_warnings};
use kbuild::load::LoadRestrictor;
use kbuild::output;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc instead of the system allocator: ~12% fewer instructions on the generated
/// trees (a build allocates and frees many small nodes, and glibc's per-thread arenas grow by
/// one `mprotect` call at a time). Built without transparent huge pages (`no_thp`): with them
/// a small build's peak RSS doubles.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli {
    pub(crate) mod create;
    pub(crate) mod deps;
    pub(crate) mod diff;
    pub(crate) mod edit;
    pub(crate) mod merge;
    pub(crate) mod render;
    pub(crate) use super::{BuildFlags, VersionFlag, parse_version, print_stdout};
}
use cli::merge as merge_cli;
use cli::{create::*, deps::*, diff::*, edit::*, render::*};

/// Renders Kubernetes configuration the way `kustomize build` does.
#[derive(Parser, Debug)]
#[command(
    name = "kbuild",
    version,
    about,
    args_conflicts_with_subcommands = true
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
    /// Compare two builds, saved renders or YAML streams resource by resource.
    Diff(DiffArgs),
    /// Render many kustomizations, one file each (for pre-commit and CI).
    Render(RenderArgs),
    /// Print the input files of a kustomization.
    Deps(DepsArgs),
    /// Edit the kustomization file in the current directory, as `kustomize edit`
    /// does, keeping its comments and layout.
    Edit(EditArgs),
    /// Create a kustomization file in the current directory, as `kustomize create`
    /// does.
    #[command(alias = "init")]
    Create(CreateArgs),
}

#[derive(clap::Args, Debug)]
struct BuildArgs {
    /// Directory holding kustomization.yaml.
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Write the output to this file, or, if it is an existing directory, one
    /// file per resource named as kustomize names them.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    flags: BuildFlags,
}

/// The flags of every command that builds kustomizations.
#[derive(clap::Args, Debug, Clone)]
struct BuildFlags {
    /// Whether files outside a kustomization's directory may be read.
    #[arg(long, value_enum, default_value = "LoadRestrictionsRootOnly")]
    load_restrictor: Restrictor,
    #[command(flatten)]
    version: VersionFlag,
}

/// `--kustomize-version`, with `KBUILD_KUSTOMIZE_VERSION` as its default.
#[derive(clap::Args, Debug, Clone, Copy)]
struct VersionFlag {
    /// The kustomize release whose output to reproduce: v5.8.1 (the default) or
    /// v5.5.0 (5.8, v5.5, … name them too).
    #[arg(
        long,
        value_name = "VERSION",
        env = kbuild::kustomize_version::ENV_VAR,
        value_parser = parse_version,
        default_value = "v5.8.1"
    )]
    kustomize_version: KustomizeVersion,
}

/// [`KustomizeVersion::parse`], saying when the bad value came from the environment.
/// An empty variable counts as unset.
fn parse_version(text: &str) -> Result<KustomizeVersion, String> {
    let var = kbuild::kustomize_version::ENV_VAR;
    let from_env = std::env::var(var).is_ok_and(|v| v == text);
    if from_env && text.trim().is_empty() {
        return Ok(KustomizeVersion::default());
    }
    KustomizeVersion::parse(text).map_err(|e| {
        if from_env {
            format!("{e} (read from the environment variable {var})")
        } else {
            e.to_string()
        }
    })
}

impl BuildFlags {
    fn options(&self) -> BuildOptions {
        BuildOptions {
            load_restrictor: match self.load_restrictor {
                Restrictor::RootOnly => LoadRestrictor::RootOnly,
                Restrictor::None => LoadRestrictor::None,
            },
            kustomize_version: self.version.kustomize_version,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Restrictor {
    #[value(name = "LoadRestrictionsRootOnly")]
    RootOnly,
    #[value(name = "LoadRestrictionsNone")]
    None,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let args = match cli.command {
        Some(Command::Build(a)) => a,
        Some(Command::Merge3(a)) => return merge_cli::finish(merge_cli::run_merge3(&a)),
        Some(Command::Apply(a)) => return merge_cli::finish(merge_cli::run_apply(&a)),
        Some(Command::Diff(a)) => return run_diff(&a),
        Some(Command::Render(a)) => return run_render(&a),
        Some(Command::Deps(a)) => return run_deps(&a),
        Some(Command::Edit(a)) => return run_edit(&a),
        Some(Command::Create(a)) => return run_create(&a),
        None => cli.build,
    };
    match run_build(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {}", e.report());
            ExitCode::FAILURE
        }
    }
}

fn run_build(args: &BuildArgs) -> Result<(), kbuild::Error> {
    let options = args.flags.options();
    let built = build_with_warnings(&args.dir, &options)?;
    for w in &built.warnings {
        eprintln!("warning: {w}");
    }
    let resmap = built.resmap;
    let result = write_output(args, &resmap);
    // The process ends right after: freeing every node of a large build
    // one by one costs more than the output took to write.
    std::mem::forget(resmap);
    result
}

fn write_output(
    args: &BuildArgs,
    resmap: &kbuild::resource::resmap::ResMap,
) -> Result<(), kbuild::Error> {
    match &args.output {
        Some(path) if path.is_dir() => output::write_dir(resmap, path),
        Some(path) => output::write_file_atomic(path, output::render(resmap).as_bytes()),
        None => print_stdout(&output::render(resmap)),
    }
}

/// Writes to stdout; a closed pipe (`kbuild | head`) is not an error.
fn print_stdout(text: &str) -> Result<(), kbuild::Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(kbuild::Error::Io {
            path: PathBuf::from("<stdout>"),
            source: e,
        }),
        _ => Ok(()),
    }
}
