//! Running the `git` program, as kustomize does, so that the user's git setup applies
//! unchanged: credential helpers, `GIT_ASKPASS`, `GIT_SSH_COMMAND`, `GIT_SSL_CAINFO`,
//! proxies, `url.<base>.insteadOf` rewrites in `~/.gitconfig`. Each command has the
//! entry's time limit, after which it is killed with its process group (kustomize only
//! stops waiting for it).
//!
//! Stricter than kustomize, because every value comes from a kustomization kbuild may not
//! trust: positional arguments follow `--`, so none is read as an option (kustomize's
//! `git fetch <url> <ref>` runs `--upload-pack=<command>` given as the ref); git may use
//! only the transports kustomize documents (`GIT_ALLOW_PROTOCOL`, which overrides any
//! configuration, so `ext::` never runs a command), and submodules not even `file`
//! (git's own default since 2.38.1, CVE-2022-39253); the environment variables that
//! point git at another repository (`GIT_DIR`, `GIT_INDEX_FILE`, …, set in a git hook)
//! are removed, so a clone never writes into the repository kbuild runs in; credentials
//! in a URL reach git through its environment, never its command line or the disk
//! (`userinfo.rs`).

use super::userinfo::Credentials;
use crate::error::RemoteProblem;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// The `git` program found on PATH.
#[derive(Clone, Debug)]
pub(crate) struct Git {
    program: PathBuf,
    /// Where its process groups are registered while they run.
    cleanup: crate::output::Cleanup,
}

/// The transports a remote base may be fetched with: kustomize's documented ones.
pub(crate) const BASE_TRANSPORTS: &[&str] = &["file", "http", "https", "ssh"];
/// The transports its submodules may be fetched with: `file` is left out, as git leaves
/// it out for submodules by default (a submodule cloned from a local path copies or
/// links that path's files; CVE-2022-39253).
pub(crate) const SUBMODULE_TRANSPORTS: &[&str] = &["http", "https", "ssh"];

/// git's variables that name a repository, index or object store other than the one
/// in the current directory (`git rev-parse --local-env-vars`, less the configuration
/// ones, which are the user's settings and kept).
const LOCAL_REPO_ENV: &[&str] = &[
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
];

/// What one git command may reach: its transports, and the credentials of the URL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access<'a> {
    /// The transports allowed (`GIT_ALLOW_PROTOCOL`).
    pub(crate) transports: &'a [&'a str],
    /// The URL's credentials, given as configuration in git's environment.
    pub(crate) credentials: Option<&'a Credentials>,
}

impl Git {
    /// Looks `git` up on PATH (each directory in order, as a shell does).
    pub(crate) fn find(cleanup: &crate::output::Cleanup) -> Result<Git, RemoteProblem> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join("git"))
            .find(|p| is_executable(p))
            .map(|program| Git {
                program,
                cleanup: cleanup.clone(),
            })
            .ok_or_else(|| RemoteProblem::NoGit("git not found in any directory of PATH".into()))
    }

    /// Runs `git args…` in `dir` with `access`, and returns what it printed on stdout; a
    /// failure carries its stdout and stderr (credentials redacted).
    pub(crate) fn run(
        &self,
        dir: &Path,
        args: &[&str],
        timeout: Duration,
        access: Access,
    ) -> Result<String, RemoteProblem> {
        let command = redact(&format!("git {}", args.join(" ")));
        let cannot = |what: &str, e: std::io::Error| RemoteProblem::GitFailed {
            command: command.clone(),
            status: format!("could not {what}"),
            output: e.to_string(),
        };
        // Output goes to files, not pipes: a killed git's helpers (ssh, git-remote-http)
        // may keep a pipe open, and reading it would wait for them.
        let mut stdout = tempfile::tempfile().map_err(|e| cannot("start", e))?;
        let mut stderr = tempfile::tempfile().map_err(|e| cannot("start", e))?;
        let mut cmd = Command::new(&self.program);
        cmd.args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(stdout.try_clone().map_err(|e| cannot("start", e))?)
            .stderr(stderr.try_clone().map_err(|e| cannot("start", e))?);
        environment(&mut cmd, access);
        // Its own process group, registered, so that a timeout or a signal to kbuild
        // stops git's helpers too before its checkout is removed.
        let (mut child, _running) = self
            .cleanup
            .spawn(&mut cmd)
            .map_err(|e| cannot("start", e))?;
        let status = match child.wait_timeout(timeout) {
            Ok(Some(status)) => status,
            Ok(None) => {
                crate::output::children::kill_and_wait(&mut child);
                return Err(RemoteProblem::Timeout {
                    command,
                    after: timeout,
                });
            }
            Err(e) => {
                crate::output::children::kill_and_wait(&mut child);
                return Err(cannot("wait for", e));
            }
        };
        let read = |f: &mut std::fs::File| {
            use std::io::{Read, Seek};
            let mut s = String::new();
            let _ = f.seek(std::io::SeekFrom::Start(0));
            let mut bytes = Vec::new();
            let _ = f.read_to_end(&mut bytes);
            s.push_str(&String::from_utf8_lossy(&bytes));
            s
        };
        let out = read(&mut stdout);
        if status.success() {
            return Ok(out);
        }
        let err = read(&mut stderr);
        Err(RemoteProblem::GitFailed {
            command,
            status: status.to_string(),
            output: redact(&format!("{out}{err}")),
        })
    }
}

/// git's environment for `access`: the caller's, less the variables naming another
/// repository, with the allowed transports (narrowed further by a `GIT_ALLOW_PROTOCOL`
/// the caller set) and the credentials as configuration after the caller's own
/// (`GIT_CONFIG_COUNT`, git 2.31 and later; the environment, unlike the command line,
/// is not readable by other users).
fn environment(cmd: &mut Command, access: Access) {
    for var in LOCAL_REPO_ENV {
        cmd.env_remove(var);
    }
    let callers = std::env::var("GIT_ALLOW_PROTOCOL").ok();
    let allowed: Vec<&str> = access
        .transports
        .iter()
        .copied()
        .filter(|t| {
            callers
                .as_deref()
                .is_none_or(|c| c.split(':').any(|theirs| theirs == *t))
        })
        .collect();
    cmd.env("GIT_ALLOW_PROTOCOL", allowed.join(":"));
    if let Some(c) = access.credentials {
        let n: usize = std::env::var("GIT_CONFIG_COUNT")
            .ok()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        cmd.env(
            format!("GIT_CONFIG_KEY_{n}"),
            format!("url.{}.insteadOf", c.with),
        )
        .env(format!("GIT_CONFIG_VALUE_{n}"), &c.plain)
        .env("GIT_CONFIG_COUNT", (n + 1).to_string());
    }
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// `text` with the secret parts of URLs hidden: a password (`https://user:***@host`), or
/// for http(s) a user name alone, which is often a token (`https://***@host`). The
/// userinfo runs to the last `@` before the host (a password may hold `@`); in free text
/// a URL's host ends at whitespace too.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(sep) = rest.find("://") {
        // The scheme: the letters, digits, `+`, `-` and `.` before `://`, from a letter.
        let scheme_start = rest[..sep]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let scheme_start = rest[scheme_start..sep]
            .find(|c: char| c.is_ascii_alphabetic())
            .map_or(sep, |i| scheme_start + i);
        let start = sep + 3;
        let end = rest[start..]
            .find(|c: char| "/?#".contains(c) || c.is_whitespace())
            .map_or(rest.len(), |i| start + i);
        let authority = &rest[start..end];
        match authority.rfind('@').filter(|_| scheme_start < sep) {
            Some(at) => {
                let http = rest[scheme_start..sep]
                    .to_ascii_lowercase()
                    .starts_with("http");
                out.push_str(&rest[..start]);
                match authority[..at].split_once(':') {
                    Some((user, _)) => {
                        out.push_str(user);
                        out.push_str(":***");
                    }
                    None if http => out.push_str("***"),
                    None => out.push_str(&authority[..at]),
                }
                out.push_str(&authority[at..]);
            }
            None => out.push_str(&rest[..end]),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The commit `ls-remote`'s output gives `git_ref` (`""`: HEAD), choosing among the
/// refs it lists in the order git resolves a short name (`refs/<ref>`, then tags, then
/// branches), an annotated tag peeled to its commit; and whether it is a tag.
pub(crate) fn pick_ls_remote(output: &str, git_ref: &str) -> Option<(String, bool)> {
    let git_ref = if git_ref.is_empty() { "HEAD" } else { git_ref };
    let refs: Vec<(&str, &str)> = output
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(sha, name)| (sha.trim(), name.trim()))
        .collect();
    let candidates = [
        git_ref.to_string(),
        format!("refs/{git_ref}"),
        format!("refs/tags/{git_ref}"),
        format!("refs/heads/{git_ref}"),
        format!("refs/remotes/{git_ref}"),
        format!("refs/remotes/{git_ref}/HEAD"),
    ];
    candidates.iter().find_map(|want| {
        let sha = refs.iter().find(|(_, n)| n == want)?.0;
        let peeled = format!("{want}^{{}}");
        let sha = refs
            .iter()
            .find(|(_, n)| *n == peeled)
            .map(|(s, _)| *s)
            .unwrap_or(sha);
        Some((sha.to_string(), want.starts_with("refs/tags/")))
    })
}

/// Whether `r` is a whole commit id (SHA-1 or SHA-256), which names one commit forever.
pub(crate) fn is_full_commit(r: &str) -> bool {
    (r.len() == 40 || r.len() == 64) && r.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether git's `FETCH_HEAD` says the fetched ref was a tag (`<sha>\t\ttag 'v1' of …`).
pub(crate) fn fetched_a_tag(fetch_head: &str) -> bool {
    fetch_head
        .lines()
        .next()
        .and_then(|l| l.splitn(3, '\t').nth(2))
        .is_some_and(|d| d.starts_with("tag '"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_credentials() {
        assert_eq!(
            redact("fatal: https://me:s3cret@host/x and https://tok@h/y ssh://git@h/z"),
            "fatal: https://me:***@host/x and https://***@h/y ssh://git@h/z"
        );
        // A password holding `@` (or `:`) is hidden up to the last `@` before the host.
        assert_eq!(
            redact("'https://me:p@ss:w@rd@host:8080/x?ref=a@b' HTTPS://t@k@h"),
            "'https://me:***@host:8080/x?ref=a@b' HTTPS://***@h"
        );
        assert_eq!(redact("ssh://u:p@w@h/r"), "ssh://u:***@h/r");
        // `@` in a path or query is not userinfo; text without URLs is kept.
        assert_eq!(
            redact("https://host/org/repo@v1?x=a@b file:///tmp/a@b"),
            "https://host/org/repo@v1?x=a@b file:///tmp/a@b"
        );
        assert_eq!(
            redact("no url: a@b, ://x@y, 1://x@y"),
            "no url: a@b, ://x@y, 1://x@y"
        );
        // Found by the fuzzer: a multi-byte character right before the scheme.
        assert_eq!(redact("reƏhttps://u:p@h/x"), "reƏhttps://u:***@h/x");
        assert_eq!(redact("Əhttps://t@h/"), "Əhttps://***@h/");
    }

    #[test]
    fn picks_refs_as_git_resolves_them() {
        let out = "a1\tHEAD\nb2\trefs/heads/main\nc3\trefs/tags/v1\nd4\trefs/tags/v1^{}\ne5\trefs/heads/v1\n";
        assert_eq!(pick_ls_remote(out, "v1"), Some(("d4".into(), true)));
        assert_eq!(pick_ls_remote(out, "main"), Some(("b2".into(), false)));
        assert_eq!(pick_ls_remote(out, ""), Some(("a1".into(), false)));
        assert_eq!(pick_ls_remote(out, "nope"), None);
        assert!(fetched_a_tag("abc\t\ttag 'v1' of file:///x\n"));
        assert!(!fetched_a_tag("abc\t\tbranch 'main' of file:///x\n"));
        assert!(is_full_commit(&"a".repeat(40)));
        assert!(!is_full_commit("abc123"));
    }
}
