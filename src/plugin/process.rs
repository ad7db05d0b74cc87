//! Running a plugin's program: its input on stdin, its output read whole, a time limit.
//!
//! Each plugin runs in a process group of its own, so that a plugin that hangs (or a
//! shell script whose children hang) is killed whole when the limit passes, and so that
//! nothing it started outlives it: once it has exited, what is left of its group is
//! killed too (its stray children would otherwise hold its output pipe open). Output is
//! read on threads while the process runs, so a plugin that writes more than a pipe
//! holds before reading its input cannot deadlock with kbuild; a pipe still open at the
//! time limit (held by a process that left the group) is abandoned, not waited for.

use crate::error::PluginProblem;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
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
    let deadline = Instant::now() + job.timeout;
    // Detached threads, not scoped ones: a process that left the plugin's group (setsid)
    // may hold the pipes open forever, and kbuild must not wait for it past the limit.
    if let Some(mut w) = child.stdin.take() {
        let input = job.stdin.to_vec();
        std::thread::spawn(move || {
            // A plugin that exits without reading its input is no error of the writer's
            // (a generator ignores stdin): the broken pipe is ignored.
            let _ = w.write_all(&input);
        });
    }
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take();
    let err = child.stderr.take();
    for (is_err, pipe) in [(false, out.map(Pipe::Out)), (true, err.map(Pipe::Err))] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let _ = tx.send((is_err, read_all(pipe)));
        });
    }
    let waited = child.wait_timeout(job.timeout);
    // Whatever happened, nothing of the group may remain: on a timeout this is the kill;
    // after an exit it ends the plugin's stray children.
    kill_group(pid);
    let timed_out = || PluginProblem::TimedOut {
        limit: job.timeout_text.to_string(),
    };
    let status = match waited {
        Ok(Some(status)) => status,
        Ok(None) => {
            let _ = child.wait();
            return Err(timed_out());
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
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((false, read)) => stdout = read?,
            Ok((true, read)) => stderr = read?,
            // Its output is still open (held by a process outside its group).
            Err(_) => {
                return Err(PluginProblem::OutputHeld {
                    limit: job.timeout_text.to_string(),
                });
            }
        }
    }
    Ok(Finished {
        status,
        stdout,
        stderr,
    })
}

/// One of the plugin's output pipes.
enum Pipe {
    Out(std::process::ChildStdout),
    Err(std::process::ChildStderr),
}

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Pipe::Out(p) => p.read(buf),
            Pipe::Err(p) => p.read(buf),
        }
    }
}

/// Reads a pipe to its end, refusing more than [`MAX_OUTPUT`] bytes.
fn read_all(pipe: Option<Pipe>) -> Result<Vec<u8>, PluginProblem> {
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
