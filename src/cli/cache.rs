//! `kbuild cache list|clean`: the clone cache of remote bases (see the library's
//! `remote::cache`).

use super::print_stdout;
use kbuild::remote::cache;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub(crate) struct CacheArgs {
    #[command(subcommand)]
    action: CacheAction,
    /// The clone cache (default $XDG_CACHE_HOME/kbuild/git or ~/.cache/kbuild/git).
    #[arg(long, value_name = "DIR", global = true)]
    remote_cache_dir: Option<PathBuf>,
}

#[derive(clap::Subcommand, Debug)]
enum CacheAction {
    /// Print each cached checkout: URL, commit, the refs last seen naming it, size, path.
    List,
    /// Remove every cached checkout (waits for running builds that use the cache).
    Clean,
}

pub(crate) fn run_cache(args: &CacheArgs) -> ExitCode {
    let Some(root) = args.remote_cache_dir.clone().or_else(cache::default_dir) else {
        eprintln!("Error: no cache directory: set --remote-cache-dir, XDG_CACHE_HOME or HOME");
        return ExitCode::FAILURE;
    };
    let result = match args.action {
        CacheAction::List => cache::list(&root).map(|entries| {
            entries
                .iter()
                .map(|e| {
                    let refs = if e.refs.is_empty() {
                        "-".to_string()
                    } else {
                        e.refs.join(",")
                    };
                    format!(
                        "{}\t{}\t{}\t{}\t{}\n",
                        e.url,
                        e.commit,
                        refs,
                        e.bytes,
                        e.dir.display()
                    )
                })
                .collect::<String>()
        }),
        CacheAction::Clean => {
            cache::clean(&root).map(|n| format!("removed {n} checkouts from {}\n", root.display()))
        }
    };
    match result {
        Ok(text) => super::finish_output(print_stdout(&text)),
        Err(e) => {
            eprintln!("Error: clone cache '{}': {e}", root.display());
            ExitCode::FAILURE
        }
    }
}
