//! Process groups of the programs kbuild runs (plugins, helm, git cloning a remote base
//! into a `.tmp-*` checkout): killed whole, and waited for until none of their processes
//! runs. They are registered while they run in the caller's [`super::Cleanup`], so that
//! the binary's SIGINT/SIGTERM handler stops them before it removes the temporaries.
//!
//! Removing a directory while git still writes into it leaves a half-made tree behind
//! (git recreates the directories it needs, and a removal racing with new files fails
//! with "directory not empty"): the handler kills each registered process group, waits
//! until it is gone, and only then removes the temporaries (`Cleanup::kill_and_remove_all_for_exit`).
//! Each program runs in its own process group, so its helpers (`git-remote-http`,
//! `index-pack`, `ssh`) go with it.

use std::process::Child;
use std::time::{Duration, Instant};

/// How long the handler waits for a killed group to disappear. SIGKILL cannot be
/// ignored; the wait only covers a process finishing its current system call, and a
/// zombie left to an init that never reaps (a container without one) does not write.
const GONE_WITHIN: Duration = Duration::from_secs(3);

/// Kills `child`'s process group, reaps the child and waits (a bounded time) until no
/// process of the group is left, so nothing of it writes afterwards.
pub(crate) fn kill_and_wait(child: &mut Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
    wait_gone(&[child.id()]);
}

/// Sends SIGKILL to the process group `pid` (which may be gone already).
pub(crate) fn kill_group(pid: u32) {
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
pub(crate) fn wait_gone(pids: &[u32]) {
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
    use std::process::Command;

    #[test]
    fn a_killed_group_is_gone_with_its_helpers() {
        // A shell whose child outlives it unless the whole group is killed.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & sleep 30"]);
        let cleanup = super::super::Cleanup::new();
        let (mut child, running) = cleanup.spawn(&mut cmd).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        kill_and_wait(&mut child);
        assert!(!group_alive(child.id()), "the group is gone");
        drop(running);
    }
}
