//! Running the `git` program, as kustomize does, so that the user's git setup applies
//! unchanged: credential helpers, `GIT_ASKPASS`, `GIT_SSH_COMMAND`, `GIT_SSL_CAINFO`,
//! `url.<base>.insteadOf` rewrites in `~/.gitconfig`. The environment is inherited as it
//! is; each command has the entry's time limit, after which it is killed (kustomize only
//! stops waiting for it).

use crate::error::RemoteProblem;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// The `git` program found on PATH.
#[derive(Clone, Debug)]
pub(crate) struct Git {
    program: PathBuf,
}

impl Git {
    /// Looks `git` up on PATH (each directory in order, as a shell does).
    pub(crate) fn find() -> Result<Git, RemoteProblem> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join("git"))
            .find(|p| is_executable(p))
            .map(|program| Git { program })
            .ok_or_else(|| RemoteProblem::NoGit("git not found in any directory of PATH".into()))
    }

    /// Runs `git args…` in `dir` and returns what it printed on stdout; a failure
    /// carries its stdout and stderr (credentials redacted).
    pub(crate) fn run(
        &self,
        dir: &Path,
        args: &[&str],
        timeout: Duration,
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
        #[cfg(unix)]
        {
            // Its own process group, so that a timeout kills git's helpers too.
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| cannot("start", e))?;
        let status = match child
            .wait_timeout(timeout)
            .map_err(|e| cannot("wait for", e))?
        {
            Some(status) => status,
            None => {
                kill_group(&mut child);
                return Err(RemoteProblem::Timeout {
                    command,
                    after: timeout,
                });
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

/// Kills the child and its process group, and reaps it.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: killpg only sends a signal; the group is the child's own (process_group(0)).
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
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
/// for http(s) a user name alone, which is often a token (`https://***@host`).
pub fn redact(text: &str) -> String {
    static URL_USER: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = URL_USER.get_or_init(|| {
        regex::Regex::new(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/@\s:]+)(:[^/@\s]*)?@").ok()
    });
    let Some(re) = re else {
        return text.to_string();
    };
    re.replace_all(text, |c: &regex::Captures| {
        let scheme = &c[1];
        let http = scheme.to_ascii_lowercase().starts_with("http");
        match (c.get(3), http) {
            (Some(_), _) => format!("{scheme}{}:***@", &c[2]),
            (None, true) => format!("{scheme}***@"),
            (None, false) => c[0].to_string(),
        }
    })
    .into_owned()
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
