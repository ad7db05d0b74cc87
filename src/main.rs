//! The `kbuild` command line: parses arguments, calls the library, renders
//! errors and sets the exit code.

use clap::{Parser, Subcommand, ValueEnum};
use kbuild::build::{build, BuildOptions};
use kbuild::load::LoadRestrictor;
use kbuild::output;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Renders Kubernetes configuration the way `kustomize build` does.
#[derive(Parser, Debug)]
#[command(name = "kbuild", version, about, args_conflicts_with_subcommands = true)]
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
    /// Whether files outside a kustomization's directory may be read.
    #[arg(long, value_enum, default_value = "LoadRestrictionsRootOnly")]
    load_restrictor: Restrictor,
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
        None => cli.build,
    };
    match run_build(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_build(args: &BuildArgs) -> Result<(), kbuild::Error> {
    let options = BuildOptions {
        load_restrictor: match args.load_restrictor {
            Restrictor::RootOnly => LoadRestrictor::RootOnly,
            Restrictor::None => LoadRestrictor::None,
        },
    };
    let resmap = build(&args.dir, &options)?;
    let result = write_output(args, &resmap);
    // The process ends right after: freeing every node of a large build
    // one by one costs more than the output took to write.
    std::mem::forget(resmap);
    result
}

fn write_output(args: &BuildArgs, resmap: &kbuild::resmap::ResMap) -> Result<(), kbuild::Error> {
    match &args.output {
        Some(path) if path.is_dir() => output::write_dir(resmap, path),
        Some(path) => output::write_file_atomic(path, output::render(resmap).as_bytes()),
        None => {
            let text = output::render(resmap);
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                // A closed pipe (`kbuild | head`) is not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(kbuild::Error::Io {
                    path: PathBuf::from("<stdout>"),
                    source: e,
                }),
                _ => Ok(()),
            }
        }
    }
}
