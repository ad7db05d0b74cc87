//! What can go wrong while fetching a remote resource (see the `remote` module): a git
//! repository cloned with the `git` program, or a file fetched over http(s).

use std::fmt;
use std::time::Duration;

/// A remote entry that could not be fetched: which entry, from where, and why.
#[derive(Clone, Debug)]
pub struct RemoteError {
    /// The entry as the kustomization writes it.
    pub entry: String,
    /// What was fetched: the repository (without the path in it) or the file's URL,
    /// credentials redacted.
    pub url: String,
    /// What went wrong.
    pub problem: RemoteProblem,
}

/// Why a remote entry could not be fetched.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum RemoteProblem {
    /// There is no `git` program on PATH.
    NoGit(String),
    /// A git command failed.
    GitFailed {
        /// The command line, credentials redacted.
        command: String,
        /// How it ended ("exit status: 128").
        status: String,
        /// What it printed, credentials redacted.
        output: String,
    },
    /// A git command ran longer than the entry's `timeout`.
    Timeout {
        /// The command line, credentials redacted.
        command: String,
        /// The limit.
        after: Duration,
    },
    /// An http request failed before an answer (connection, TLS, proxy, size limit…).
    Http(String),
    /// The server answered with a status outside 2xx.
    HttpStatus(u16),
    /// The path in the repository leaves it (`//../x`, or a symlink out of it).
    OutsideRepo(String),
    /// The path in the repository is a file, not a kustomization directory.
    NotADirectory(String),
    /// The entry is in neither the clone cache nor reachable: `--offline` forbids fetching.
    Offline,
    /// The clone cache could not be read or written.
    Cache(String),
    /// A part of the entry kbuild will not hand to git (`remote/refuse.rs`).
    Refused {
        /// Which part, with its value: "ref '--upload-pack=x'".
        what: String,
        /// Why.
        why: &'static str,
    },
}

impl RemoteError {
    /// What the user can do about it, when kbuild knows.
    pub fn hint(&self) -> Option<&'static str> {
        match self.problem {
            RemoteProblem::NoGit(_) => Some("install git and put it on PATH"),
            RemoteProblem::Timeout { .. } => Some(
                "raise the limit with '?timeout=<seconds>' on the URL (default 27 s, at most 1 hour)",
            ),
            RemoteProblem::Offline => {
                Some("build once without --offline to fill the clone cache (--remote-cache-dir)")
            }
            RemoteProblem::Refused { .. } => Some(
                "kbuild hands git no value from a kustomization that git or ssh could take for an option, nor a control character (stricter than kustomize); correct the entry",
            ),
            _ => None,
        }
    }
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (entry, url) = (&self.entry, &self.url);
        write!(f, "remote entry '{entry}'")?;
        if url != entry {
            write!(f, " ({url})")?;
        }
        match &self.problem {
            RemoteProblem::NoGit(msg) => write!(f, ": no 'git' program on PATH: {msg}"),
            RemoteProblem::GitFailed {
                command,
                status,
                output,
            } => {
                write!(f, ": '{command}' failed ({status})")?;
                let output = output.trim_end();
                if !output.is_empty() {
                    write!(f, ":\n{output}")?;
                }
                Ok(())
            }
            RemoteProblem::Timeout { command, after } => {
                write!(f, ": '{command}' timed out after {after:?}")
            }
            RemoteProblem::Http(msg) => write!(f, ": http request failed: {msg}"),
            RemoteProblem::HttpStatus(code) => write!(
                f,
                ": the server answered http status {code}{}",
                status_text(*code)
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default()
            ),
            RemoteProblem::OutsideRepo(msg) => write!(f, ": {msg}"),
            RemoteProblem::NotADirectory(msg) => write!(f, ": {msg}"),
            RemoteProblem::Offline => write!(
                f,
                ": not in the clone cache, and --offline forbids fetching it"
            ),
            RemoteProblem::Cache(msg) => write!(f, ": clone cache: {msg}"),
            RemoteProblem::Refused { what, why } => write!(f, ": refusing its {what}: {why}"),
        }
    }
}

/// The reason phrase of the common http status codes.
fn status_text(code: u16) -> Option<&'static str> {
    Some(match code {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}
