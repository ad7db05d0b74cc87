//! The one path every subcommand's result takes to the terminal: each `run_*` returns
//! `Result<Status, CommandError>`, and [`finish`] prints the error (the library's
//! `Error::report`: the problem, the chain of kustomizations that led to it, the hint) and
//! turns the result into the exit status. No subcommand prints an error of its own, so
//! none can drop its hint; [`print`] is the same renderer for the one command (`render`)
//! that reports each failed kustomization and carries on.
//!
//! The exit statuses are kbuild's interface to scripts, CI and pre-commit, so each keeps
//! the meaning it had before this module existed (docs/src/reference/exit-codes.md):
//!
//! | status | meaning |
//! |---|---|
//! | 0 | success (for `diff`, no differences; for `--check`, everything current) |
//! | 1 | a difference was found (`diff`, `render --check`, `openapi from-crds --check`), or the command failed |
//! | 2 | trouble in a command whose 1 means "differences" (`diff`, `render`, `deps`, `openapi`), as diff(1); or a usage error (clap) |
//! | 128+N | killed by signal N (SIGINT, SIGTERM, SIGHUP: temporaries removed first, `signals.rs`) |

/// How a subcommand that ran to its end went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Done; for a comparison, nothing differs.
    Success,
    /// A comparison found a difference (`diff`), or a check found a file stale
    /// (`render --check`, `openapi from-crds --check`).
    Differences,
}

/// Which status an error ends the process with: a command that says "differences" with
/// 1 must say "trouble" with something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// Exit 1: the command failed (build, edit, create, merge3, apply, cache, version,
    /// completions, man), as kustomize's commands do.
    Failed,
    /// Exit 2: a command whose 1 means "differences found" failed (diff, render, deps,
    /// openapi), as diff(1) and cmp(1) do.
    Trouble,
}

/// A subcommand's error: what went wrong (printed by [`finish`]) and the status it ends
/// with.
#[derive(Debug)]
pub(crate) struct CommandError {
    /// `None` when the errors were printed already, one by one (`render`).
    error: Option<kbuild::Error>,
    failure: Failure,
}

impl CommandError {
    /// An error of a command that exits 1 on failure.
    pub(crate) fn failed(error: kbuild::Error) -> Self {
        CommandError {
            error: Some(error),
            failure: Failure::Failed,
        }
    }

    /// An error of a command whose 1 means "differences": it exits 2.
    pub(crate) fn trouble(error: kbuild::Error) -> Self {
        CommandError {
            error: Some(error),
            failure: Failure::Trouble,
        }
    }

    /// The command failed, and printed each of its errors as it went (with [`print`]).
    pub(crate) fn reported(failure: Failure) -> Self {
        CommandError {
            error: None,
            failure,
        }
    }

    /// The status the process ends with.
    pub(crate) fn exit_code(&self) -> u8 {
        match self.failure {
            Failure::Failed => 1,
            Failure::Trouble => 2,
        }
    }
}

/// A command's result: its status, or an error to print.
pub(crate) type CommandResult = Result<Status, CommandError>;

/// `?` on a library error in a command that exits 1.
impl From<kbuild::Error> for CommandError {
    fn from(error: kbuild::Error) -> Self {
        CommandError::failed(error)
    }
}

/// Maps a library result into a command result that exits 2 on error.
pub(crate) trait OrTrouble<T> {
    /// The error, exiting 2.
    fn or_trouble(self) -> Result<T, CommandError>;
}

impl<T> OrTrouble<T> for Result<T, kbuild::Error> {
    fn or_trouble(self) -> Result<T, CommandError> {
        self.map_err(CommandError::trouble)
    }
}

impl Status {
    /// The status's exit code.
    pub(crate) fn exit_code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Differences => 1,
        }
    }
}

/// Prints one error, whole: `Error: ` and the report (problem, chain, hint).
pub(crate) fn print(error: &kbuild::Error) {
    eprintln!("Error: {}", error.report());
}

/// Prints the error, if any, and gives the process's exit status.
pub(crate) fn finish(result: CommandResult) -> u8 {
    match result {
        Ok(status) => status.exit_code(),
        Err(e) => {
            if let Some(error) = &e.error {
                print(error);
            }
            e.exit_code()
        }
    }
}

/// The EXIT STATUS section of `kbuild --help` and the man page.
pub(crate) const EXIT_STATUS_HELP: &str = "\
EXIT STATUS:
  0      success; for diff and --check, no differences
  1      differences found (diff, render --check, openapi from-crds --check),
         or an error in build, edit, create, merge3, apply, cache, version
  2      an error in diff, render, deps or openapi from-crds (1 means
         differences there), or a command line kbuild cannot parse
  128+N  ended by signal N (SIGINT, SIGTERM, SIGHUP), temporary files removed";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_exit_by_kind() {
        assert_eq!(Status::Success.exit_code(), 0);
        assert_eq!(Status::Differences.exit_code(), 1);
        let e = || kbuild::Error::msg("x");
        assert_eq!(CommandError::failed(e()).exit_code(), 1);
        assert_eq!(CommandError::trouble(e()).exit_code(), 2);
        assert_eq!(CommandError::from(e()).exit_code(), 1);
        assert_eq!(Err::<(), _>(e()).or_trouble().unwrap_err().exit_code(), 2);
        assert_eq!(CommandError::reported(Failure::Trouble).exit_code(), 2);
    }
}
