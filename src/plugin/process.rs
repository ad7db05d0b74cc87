//! Running a plugin's program (or helm): its input on stdin, its output read whole up to a
//! bound, a time limit.
//!
//! Each plugin runs in a process group of its own, so that a plugin that hangs (or a
//! shell script whose children hang) is killed whole when the limit passes, and so that
//! nothing it started outlives it: once it has exited, what is left of its group is
//! killed too (its stray children would otherwise hold its output pipe open). Output is
//! read on threads while the process runs, so a plugin that writes more than a pipe
//! holds before reading its input cannot deadlock with kbuild; a pipe still open at the
//! time limit (held by a process that left the group) is abandoned, not waited for.
//!
//! Output is bounded: stdout by what the caller allows (see [`output_cap`]: about what is
//! left of the build's output budget), past which the group is killed at once and the run
//! fails, so a program printing without end neither fills memory nor runs to its time
//! limit; stderr, which is for people, is kept up to [`MAX_STDERR`] and the rest read and
//! dropped.

use crate::error::PluginProblem;
use crate::output::children::kill_group;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// The most a plugin may print on stdout: far more than any set of Kubernetes objects,
/// but a bound on a runaway program even with a huge output budget.
pub(crate) const MAX_OUTPUT: u64 = 1 << 30;

/// How much of a program's stderr is kept (for the error message, and a KRM function's
/// log passed on); the rest is read and dropped, with a note of how much.
const MAX_STDERR: usize = 16 << 20;

/// How much a program may print on stdout when `remaining` bytes of the build's output
/// budget are left and it was given `input` bytes to print back (a transformer prints
/// the resources it was given): twice their sum plus 1 MiB, since YAML text prints longer
/// than the budget counts a value (quotes, flow style, comments), and at most
/// [`MAX_OUTPUT`]. What the output holds is charged to the budget once parsed; this bound
/// only keeps a runaway program from filling memory first.
pub(crate) fn output_cap(remaining: u64, input: u64) -> u64 {
    remaining
        .saturating_add(input)
        .saturating_mul(2)
        .saturating_add(1 << 20)
        .min(MAX_OUTPUT)
}

/// What to run, and how.
pub(crate) struct Job<'a> {
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
    /// Where its process group is registered while it runs.
    pub cleanup: &'a crate::output::Cleanup,
    /// How long it may run.
    pub timeout: Duration,
    /// The timeout as the user wrote it, for the message.
    pub timeout_text: &'a str,
    /// The most it may print on stdout (see [`output_cap`]).
    pub max_output: u64,
}

/// What a finished program left.
pub(crate) struct Finished {
    /// How it ended.
    pub status: ExitStatus,
    /// Its stdout.
    pub stdout: Vec<u8>,
    /// Its stderr.
    pub stderr: Vec<u8>,
}

/// Runs the job to its end (or its time limit, or its output bound).
pub(crate) fn run(job: &Job<'_>) -> Result<Finished, PluginProblem> {
    let mut cmd = Command::new(job.program);
    cmd.args(job.args)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // Captured: for the error message, and (KRM functions) passed on when it ends.
        .stderr(Stdio::piped());
    if let Some(dir) = job.dir {
        cmd.current_dir(dir);
    }
    // A group of its own, led by the plugin (killing the group kills what it started),
    // registered for the signal handler while it runs.
    let (mut child, running) = job
        .cleanup
        .spawn(&mut cmd)
        .map_err(|e| PluginProblem::Spawn {
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
    if let Some(out) = child.stdout.take() {
        let tx = tx.clone();
        let max = job.max_output;
        std::thread::spawn(move || {
            let read = read_bounded(out, max);
            if read.is_err() {
                // Past the bound: stop the program now rather than at its time limit (the
                // main thread is waiting for it to exit).
                kill_group(pid);
            }
            let _ = tx.send((false, read));
        });
    } else {
        let _ = tx.send((false, Ok(Vec::new())));
    }
    if let Some(err) = child.stderr.take() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let _ = tx.send((true, read_stderr(err)));
        });
    } else {
        let _ = tx.send((true, Ok(Vec::new())));
    }
    let waited = child.wait_timeout(job.timeout);
    // Whatever happened, nothing of the group may remain: on a timeout this is the kill;
    // after an exit it ends the plugin's stray children.
    kill_group(pid);
    drop(running);
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

/// Reads stdout to its end, refusing more than `max` bytes. Reads in chunks, so memory
/// grows with what was read, not with what a program claims.
fn read_bounded(pipe: impl Read, max: u64) -> Result<Vec<u8>, PluginProblem> {
    let mut buf = Vec::new();
    pipe.take(max.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| PluginProblem::BadOutput(format!("reading its output: {e}")))?;
    if buf.len() as u64 > max {
        return Err(PluginProblem::TooMuchOutput { limit: max });
    }
    Ok(buf)
}

/// Reads stderr to its end, keeping the first [`MAX_STDERR`] bytes.
fn read_stderr(mut pipe: impl Read) -> Result<Vec<u8>, PluginProblem> {
    let mut buf = Vec::new();
    (&mut pipe)
        .take(MAX_STDERR as u64)
        .read_to_end(&mut buf)
        .map_err(|e| PluginProblem::BadOutput(format!("reading its stderr: {e}")))?;
    let dropped = std::io::copy(&mut pipe, &mut std::io::sink()).unwrap_or(0);
    if dropped > 0 {
        buf.extend_from_slice(
            format!("\n[kbuild: {dropped} more bytes of stderr not shown]\n").as_bytes(),
        );
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_is_bounded_and_stderr_kept_in_part() {
        assert_eq!(read_bounded(&b"12345"[..], 5).unwrap(), b"12345");
        assert!(matches!(
            read_bounded(&b"123456"[..], 5),
            Err(PluginProblem::TooMuchOutput { limit: 5 })
        ));
        let long = vec![b'x'; MAX_STDERR + 10];
        let kept = read_stderr(&long[..]).unwrap();
        assert!(kept.starts_with(&long[..MAX_STDERR]));
        assert!(kept.ends_with(b"[kbuild: 10 more bytes of stderr not shown]\n"));
        assert_eq!(output_cap(0, 0), 1 << 20);
        assert_eq!(output_cap(10, 5), 30 + (1 << 20));
        assert_eq!(output_cap(u64::MAX, u64::MAX), MAX_OUTPUT);
    }
}
