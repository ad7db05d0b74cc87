//! The programs kbuild runs that write into its temporary directories (git cloning a
//! remote base into a `.tmp-*` checkout), registered while they run, so that the
//! binary's SIGINT/SIGTERM handler stops them before it removes those directories.
//!
//! Removing a directory while git still writes into it leaves a half-made tree behind
//! (git recreates the directories it needs, and a removal racing with new files fails
//! with "directory not empty"): the handler kills each registered process group, waits
//! until it is gone, and only then removes the temporaries (`temp::remove_all_for_exit`).
//! Each program runs in its own process group, so its helpers (`git-remote-http`,
//! `index-pack`, `ssh`) go with it.

use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The process group ids (each its leader's pid) of the registered programs.
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// How long the handler waits for a killed group to disappear. SIGKILL cannot be
/// ignored; the wait only covers a process finishing its current system call, and a
/// zombie left to an init that never reaps (a container without one) does not write.
const GONE_WITHIN: Duration = Duration::from_secs(3);

fn lock() -> MutexGuard<'static, Vec<u32>> {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A registered program: unregistered when dropped, which its runner does after the
/// program ended and was reaped. Once the signal handler has run, dropping it blocks
/// until the process ends: the runner of a program the handler killed reports no error
/// of its own (a "git failed" on stderr instead of dying of the signal).
pub(crate) struct Running {
    pid: u32,
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut groups = lock();
        if let Some(i) = groups.iter().position(|&p| p == self.pid) {
            groups.swap_remove(i);
        }
    }
}

/// Spawns `cmd` in a process group of its own and registers it. The register is held
/// across the spawn: a signal handled meanwhile finds the program registered, or stops
/// the spawn from happening at all.
pub(crate) fn spawn(cmd: &mut Command) -> std::io::Result<(Child, Running)> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut groups = lock();
    let child = cmd.spawn()?;
    let pid = child.id();
    groups.push(pid);
    Ok((child, Running { pid }))
}

/// Kills `child`'s process group, reaps the child and waits (a bounded time) until no
/// process of the group is left, so nothing of it writes afterwards.
pub(crate) fn kill_and_wait(child: &mut Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
    wait_gone(&[child.id()]);
}

/// For the binary's signal handler: kills every registered process group, waits until
/// no process of them runs (each leader is reaped by its runner), and keeps the register
/// locked for the rest of the process's life, so that no other thread starts a program
/// afterwards.
pub(crate) fn kill_all_for_exit() {
    let groups = lock();
    for &pid in groups.iter() {
        kill_group(pid);
    }
    wait_gone(&groups);
    // Never unlocked: the process is about to end.
    std::mem::forget(groups);
}

fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: killpg only sends a signal; the group is the child's own
        // (process_group(0) in `spawn`), never kbuild's.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Waits until none of the process groups `pids` has a live member left (or
/// [`GONE_WITHIN`] passed). A leader is never reaped here: its runner reaps it (its
/// wait would fail, and `wait-timeout` panics then), and a zombie writes nothing.
fn wait_gone(pids: &[u32]) {
    let deadline = Instant::now() + GONE_WITHIN;
    while pids.iter().any(|&p| group_alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether a process of the group `pgid` still runs: on Linux, a process in /proc in that
/// group and not a zombie; elsewhere, whether the group has any member at all.
fn group_alive(pgid: u32) -> bool {
    #[cfg(target_os = "linux")]
    if let Ok(procs) = std::fs::read_dir("/proc") {
        return procs.flatten().any(|p| {
            let is_pid = p
                .file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
            // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
            let stat = is_pid
                .then(|| std::fs::read_to_string(p.path().join("stat")).ok())
                .flatten();
            stat.as_deref()
                .and_then(|s| s.rsplit_once(')'))
                .is_some_and(|(_, rest)| {
                    let mut fields = rest.split_whitespace();
                    let state = fields.next().unwrap_or("Z");
                    let pgrp = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
                    pgrp == Some(pgid) && !matches!(state, "Z" | "X")
                })
        });
    }
    #[cfg(unix)]
    {
        i32::try_from(pgid).is_ok_and(|pgid| {
            // SAFETY: signal 0 sends nothing; it asks whether the group has a member.
            unsafe { libc::killpg(pgid, 0) == 0 }
        })
    }
    #[cfg(not(unix))]
    {
        let _ = pgid;
        false
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_killed_group_is_gone_with_its_helpers() {
        // A shell whose child outlives it unless the whole group is killed.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & sleep 30"]);
        let (mut child, running) = spawn(&mut cmd).unwrap();
        assert!(lock().contains(&child.id()));
        std::thread::sleep(Duration::from_millis(100));
        kill_and_wait(&mut child);
        assert!(!group_alive(child.id()), "the group is gone");
        drop(running);
        assert!(!lock().contains(&child.id()));
    }
}
