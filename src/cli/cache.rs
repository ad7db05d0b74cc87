//! `kbuild cache list|clean`: the clone cache of remote bases (see the library's
//! `remote::cache`).

use super::print_stdout;
use kbuild::remote::cache;
use std::path::PathBuf;

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

pub(crate) fn run_cache(args: &CacheArgs) -> super::CommandResult {
    let Some(root) = args.remote_cache_dir.clone().or_else(cache::default_dir) else {
        return Err(kbuild::Error::msg(
            "no cache directory: set --remote-cache-dir, XDG_CACHE_HOME or HOME",
        )
        .into());
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
    let text =
        result.map_err(|e| kbuild::Error::msg(format!("clone cache '{}': {e}", root.display())))?;
    print_stdout(&text)?;
    Ok(super::Status::Success)
}
