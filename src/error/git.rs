//! What can go wrong while reading a git revision (`kbuild diff --ref`).

use std::fmt;
use std::path::PathBuf;

/// Why a revision could not be read.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum GitError {
    /// The git program could not be started.
    NotFound {
        /// What the operating system said.
        msg: String,
    },
    /// The directory is not inside a git work tree.
    NotARepository {
        /// The directory kbuild ran in.
        dir: PathBuf,
    },
    /// No commit has this name.
    UnknownRevision {
        /// The name as given (`--ref`, `--to-ref`).
        rev: String,
    },
    /// A path given to compare lies outside the repository.
    OutsideRepository {
        /// The path as given.
        path: String,
        /// The repository's top directory.
        top: PathBuf,
    },
    /// A path exists neither at the revision nor on the other side.
    NoSuchPath {
        /// The path as given.
        path: String,
        /// Where each side is (`at HEAD~1`, `in the working tree`).
        sides: (String, String),
    },
    /// git ran and failed.
    Failed {
        /// The command line (program and arguments).
        command_line: String,
        /// How it ended ("exit status: 128").
        status: String,
        /// What it printed on stderr.
        stderr: String,
    },
}

impl GitError {
    /// What the user can do about it, when kbuild knows.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            GitError::NotFound { .. } => Some("install git, or put it on PATH"),
            GitError::NotARepository { .. } => Some(
                "run kbuild diff --ref inside a git checkout, or compare two directories with kbuild diff OLD NEW",
            ),
            GitError::UnknownRevision { .. } => Some(
                "name a branch, tag or commit that exists here (git fetch first for a remote branch, e.g. origin/main)",
            ),
            _ => None,
        }
    }
}

impl fmt::Display for GitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitError::NotFound { msg } => write!(f, "cannot run git: {msg}"),
            GitError::NotARepository { dir } => {
                write!(f, "'{}' is not inside a git repository", dir.display())
            }
            GitError::UnknownRevision { rev } => {
                write!(f, "unknown revision '{rev}': no commit of that name")
            }
            GitError::OutsideRepository { path, top } => write!(
                f,
                "'{path}' is outside the git repository '{}'",
                top.display()
            ),
            GitError::NoSuchPath { path, sides } => {
                write!(f, "'{path}' exists neither {} nor {}", sides.0, sides.1)
            }
            GitError::Failed {
                command_line,
                status,
                stderr,
            } => {
                write!(f, "'{command_line}' failed ({status})")?;
                let stderr = stderr.trim_end();
                if !stderr.is_empty() {
                    write!(f, ":\n{stderr}")?;
                }
                Ok(())
            }
        }
    }
}

impl From<GitError> for super::Error {
    fn from(e: GitError) -> super::Error {
        super::Error::Git(Box::new(e))
    }
}
