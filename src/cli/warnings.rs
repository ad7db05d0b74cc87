//! What a command does with a build's warnings (kbuild's own, about input kustomize accepts
//! silently; see docs/src/guide/warnings.md): print them (the default), print none
//! (`--quiet`), or fail on them (`--strict`, for CI).
//!
//! kustomize's own deprecation notices ("# Warning: 'commonLabels' is deprecated...") are
//! printed as kustomize prints them and silenced by `--quiet`, but they do not fail a
//! `--strict` build: the fields still work in both kustomize releases kbuild reproduces,
//! and `kbuild edit fix` migrates them.

use kbuild::kustomization::deprecated::PREFIX as DEPRECATED;

/// `--strict` and `--quiet`.
#[derive(clap::Args, Debug, Clone, Copy)]
pub(crate) struct WarningFlags {
    /// Fail (exit 1, nothing written) when the build has warnings: entries that change
    /// nothing, patches that replace a keyed list or leave a union field with two members
    /// (kbuild's; for CI). The warnings are printed, even with --quiet.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Print no warnings and no progress (kbuild's); errors are still printed.
    #[arg(short, long)]
    pub(crate) quiet: bool,
}

impl WarningFlags {
    /// Prints `warnings` as the flags say, and with `--strict` turns kbuild's into an
    /// error.
    pub(crate) fn report(&self, warnings: &[String]) -> Result<(), kbuild::Error> {
        let own = self.print(warnings);
        if self.strict && own > 0 {
            let s = if own == 1 { "" } else { "s" };
            return Err(kbuild::Error::msg(format!(
                "{own} warning{s}, and --strict makes warnings errors; nothing was written"
            )));
        }
        Ok(())
    }

    /// Prints `warnings` as the flags say (with `--strict`, kbuild's own even under
    /// `--quiet`, so the log says why the command failed); how many are kbuild's own.
    pub(crate) fn print(&self, warnings: &[String]) -> usize {
        let own = warnings
            .iter()
            .filter(|w| !w.starts_with(DEPRECATED))
            .count();
        let fail = self.strict && own > 0;
        for w in warnings {
            let deprecation = w.starts_with(DEPRECATED);
            // Quiet, unless this warning is why a --strict build fails.
            let why_it_fails = fail && !deprecation;
            if self.quiet && !why_it_fails {
                continue;
            }
            if deprecation {
                // kustomize's own line, printed as kustomize prints it.
                eprintln!("{w}");
            } else {
                eprintln!("warning: {w}");
            }
        }
        own
    }
}
