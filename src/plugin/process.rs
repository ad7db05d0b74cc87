//! Running a plugin's program: its input on stdin, its output read whole, a time limit.
//!
//! Each plugin runs in a process group of its own, so that a plugin that hangs (or a
//! shell script whose children hang) is killed whole when the limit passes, and so that
//! nothing it started outlives it: once it has exited, what is left of its group is
//! killed too (its stray children would otherwise hold its output pipe open). Output is
//! read on threads while the process runs, so a plugin that writes more than a pipe
//! holds before reading its input cannot deadlock with kbuild.

use crate::error::PluginProblem;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// The most a plugin may print on stdout (or stderr): far more than any set of
/// Kubernetes objects, but a bound on a runaway program.
const MAX_OUTPUT: u64 = 1 << 30;

/// What to run, and how.
pub(super) struct Job<'a> {
    /// The program (an absolute path, or a bare name looked up on PATH).
    pub program: &'a Path,
    /// Its arguments.
    pub args: &'a [String],
    /// Its working directory.
    pub dir: Option<&'a Path>,
    /// Variables set on top of kbuild's own environment.
    pub env: &'a [(String, String)],
    /// Written to its stdin, which is then closed.
    pub stdin: &'a [u8],
    /// How long it may run.
    pub timeout: Duration,
    /// The timeout as the user wrote it, for the message.
    pub timeout_text: &'a str,
}

/// What a finished program left.
pub(super) struct Finished {
    /// How it ended.
    pub status: ExitStatus,
    /// Its stdout.
    pub stdout: Vec<u8>,
    /// Its stderr.
    pub stderr: Vec<u8>,
}

/// Runs the job to its end (or its time limit).
pub(super) fn run(job: &Job<'_>) -> Result<Finished, PluginProblem> {
    let mut cmd = Command::new(job.program);
    cmd.args(job.args)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // Captured: for the error message, and (KRM functions) passed on when it ends.
        .stderr(Stdio::piped())
        // A group of its own, led by the plugin: killing the group kills what it started.
        .process_group(0);
    if let Some(dir) = job.dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().map_err(|e| PluginProblem::Spawn {
        program: job.program.display().to_string(),
        msg: e.to_string(),
    })?;
    let pid = child.id();
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    std::thread::scope(|s| {
        s.spawn(move || {
            if let Some(mut w) = stdin {
                // A plugin that exits without reading its input is no error of the
                // writer's (a generator ignores stdin): the broken pipe is ignored.
                let _ = w.write_all(job.stdin);
            }
        });
        let out = s.spawn(move || read_all(stdout));
        let err = s.spawn(move || read_all(stderr));
        let waited = child.wait_timeout(job.timeout);
        // Whatever happened, nothing of the group may remain: on a timeout this is the
        // kill; after an exit it ends the plugin's stray children.
        kill_group(pid);
        let status = match waited {
            Ok(Some(status)) => status,
            Ok(None) => {
                let _ = child.wait();
                return Err(PluginProblem::TimedOut {
                    limit: job.timeout_text.to_string(),
                });
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(PluginProblem::Spawn {
                    program: job.program.display().to_string(),
                    msg: e.to_string(),
                });
            }
        };
        let stdout = out.join().unwrap_or_else(|_| Ok(Vec::new()))?;
        let stderr = err.join().unwrap_or_else(|_| Ok(Vec::new()))?;
        Ok(Finished {
            status,
            stdout,
            stderr,
        })
    })
}

/// Reads a pipe to its end, refusing more than [`MAX_OUTPUT`] bytes.
fn read_all(pipe: Option<impl Read>) -> Result<Vec<u8>, PluginProblem> {
    let mut buf = Vec::new();
    let Some(pipe) = pipe else { return Ok(buf) };
    let mut limited = pipe.take(MAX_OUTPUT + 1);
    limited
        .read_to_end(&mut buf)
        .map_err(|e| PluginProblem::BadOutput(format!("reading its output: {e}")))?;
    if buf.len() as u64 > MAX_OUTPUT {
        return Err(PluginProblem::BadOutput(format!(
            "printed more than {} MiB",
            MAX_OUTPUT >> 20
        )));
    }
    Ok(buf)
}

/// Sends SIGKILL to the process group `pgid` (which may be gone already).
fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    // SAFETY: kill(2) with a negative pid signals a process group; it touches no memory.
    // The group is the plugin's own (process_group(0) above), never kbuild's.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}
