//! What a process must undo if it is killed: kbuild's temporary files and directories, and
//! the process groups of the programs it runs (plugins, helm, git cloning a remote base).
//!
//! A killed process runs no destructors, and tempfile's cleanup is a destructor: a program
//! that handles SIGINT/SIGTERM (the `kbuild` binary) removes these itself, through
//! [`Cleanup::kill_and_remove_all_for_exit`]. The register is an object, not process state:
//! the library records into the [`Cleanup`] its caller gives it (in the build's options,
//! `FileSet::with_cleanup`, `write_file_atomic`), so two builds on two threads, or two
//! embedders in one process, each keep their own. A caller that installs no handler passes
//! `Cleanup::default()` and the bookkeeping is simply never read.
//!
//! A temporary file is created and registered in one step with the register locked
//! ([`Cleanup::create`]), and unregistered only after it was renamed into place or removed,
//! so no instant exists where it is on disk and unknown to the handler. (Registering first
//! and creating after, unlocked, is not enough: the handler may run in between, find
//! nothing to remove, and the file made next outlives the process.) [`Cleanup::critical`] holds the register's lock across a step that must
//! not be cut in two by a signal (renaming a set of files into place): the handler waits
//! for it, then removes what is left. A program is registered while its spawn holds the
//! lock of the process groups, so a signal handled meanwhile finds it, or stops the spawn.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Mutex, MutexGuard, Once, OnceLock};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// One process's (or one embedder's) register of what to undo when it is killed; cloning
/// it gives another handle to the same register.
#[derive(Clone, Default)]
pub struct Cleanup {
    inner: Arc<Inner>,
}

struct Inner {
    temporaries: Mutex<BTreeSet<PathBuf>>,
    /// The process group ids (each its leader's pid) of the programs running now.
    groups: Mutex<BTreeSet<u32>>,
    /// Directories many threads write into at once (the checkouts of `diff --ref`, see
    /// refs/git.rs): every write holds this lock for reading; creating, removing and
    /// the signal handler hold it for writing, so the handler removes them all without
    /// racing a write.
    checkouts: RwLock<Vec<PathBuf>>,
    /// Run once, when the first temporary is registered or the first program starts.
    on_first_use: OnceLock<Box<dyn Fn() + Send + Sync>>,
    first_use: Once,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            temporaries: Mutex::default(),
            groups: Mutex::default(),
            checkouts: RwLock::default(),
            on_first_use: OnceLock::new(),
            first_use: Once::new(),
        }
    }
}

impl std::fmt::Debug for Cleanup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cleanup").finish_non_exhaustive()
    }
}

/// Every lock here guards a set of paths or ids, valid whatever a thread that panicked
/// while holding it was doing: a poisoned lock is used as it is.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cleanup {
    /// A new, empty register.
    pub fn new() -> Cleanup {
        Cleanup::default()
    }

    /// Has `hook` run once, when the first temporary file or directory is registered or
    /// the first program starts: the binary starts its signal handler then, so a build
    /// that makes no temporary (the common and benchmarked case) starts no thread. Only the
    /// first hook given is kept.
    pub fn on_first_use(&self, hook: impl Fn() + Send + Sync + 'static) {
        let _ = self.inner.on_first_use.set(Box::new(hook));
    }

    fn first_use(&self) {
        if let Some(hook) = self.inner.on_first_use.get() {
            self.inner.first_use.call_once(hook);
        }
    }

    /// Creates the temporary `path` with `create` and registers it, the register locked
    /// across both: a signal handled meanwhile finds it on disk and registered, or
    /// neither (see the module's comment).
    pub(crate) fn create<R>(
        &self,
        path: &Path,
        create: impl FnOnce(&Path) -> std::io::Result<R>,
    ) -> std::io::Result<R> {
        self.first_use();
        let mut register = lock(&self.inner.temporaries);
        let made = create(path)?;
        register.insert(path.to_path_buf());
        Ok(made)
    }

    /// Forgets a temporary (after it was removed or renamed into place).
    pub(crate) fn unregister(&self, path: &Path) {
        lock(&self.inner.temporaries).remove(path);
    }

    /// Runs `f` with the register of temporaries locked: a signal arriving meanwhile is
    /// handled after it.
    pub(crate) fn critical<R>(&self, f: impl FnOnce(&mut BTreeSet<PathBuf>) -> R) -> R {
        self.first_use();
        f(&mut lock(&self.inner.temporaries))
    }

    /// The checkouts (see `Inner::checkouts`), for a write into one of them: held while
    /// the write runs.
    pub(crate) fn checkouts_writing(&self) -> RwLockReadGuard<'_, Vec<PathBuf>> {
        // A thread that panicked while writing leaves the list itself intact.
        self.inner
            .checkouts
            .read()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The checkouts, for adding or removing one (or, by the signal handler, all).
    pub(crate) fn checkouts_listing(&self) -> RwLockWriteGuard<'_, Vec<PathBuf>> {
        self.first_use();
        self.inner
            .checkouts
            .write()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `path` is registered (for tests).
    #[cfg(test)]
    pub(crate) fn holds(&self, path: &Path) -> bool {
        lock(&self.inner.temporaries).contains(path)
    }

    /// Spawns `cmd` in a process group of its own and registers the group until the
    /// returned [`Running`] is dropped (which its runner does once the program ended and
    /// was reaped). The register is held across the spawn.
    pub(crate) fn spawn(&self, cmd: &mut Command) -> std::io::Result<(Child, Running)> {
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        self.first_use();
        let mut groups = lock(&self.inner.groups);
        let child = cmd.spawn()?;
        let pid = child.id();
        groups.insert(pid);
        Ok((
            child,
            Running {
                cleanup: self.clone(),
                pid,
            },
        ))
    }

    /// For a signal handler that then ends the process: kills every registered process
    /// group and waits (a bounded time) until none of them runs, then removes every
    /// registered temporary. Both registers stay locked for the rest of the process's
    /// life, so no other thread starts a program or creates or renames a temporary
    /// afterwards (and a runner whose program was killed blocks instead of reporting an
    /// error of its own).
    pub fn kill_and_remove_all_for_exit(&self) {
        let groups = lock(&self.inner.groups);
        let pids: Vec<u32> = groups.iter().copied().collect();
        for &pid in &pids {
            super::children::kill_group(pid);
        }
        super::children::wait_gone(&pids);
        // Never unlocked: the process is about to end.
        std::mem::forget(groups);
        let mut temporaries = lock(&self.inner.temporaries);
        for path in std::mem::take(&mut *temporaries) {
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => {
                    let _ = std::fs::remove_dir_all(&path);
                }
                _ => {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        std::mem::forget(temporaries);
    }
}

/// A registered program: unregistered when dropped. Once the signal handler has run,
/// dropping it blocks until the process ends: the runner of a program the handler killed
/// reports no error of its own (a "git failed" on stderr instead of dying of the signal).
pub(crate) struct Running {
    cleanup: Cleanup,
    pid: u32,
}

impl Drop for Running {
    fn drop(&mut self) {
        lock(&self.cleanup.inner.groups).remove(&self.pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn the_hook_runs_once_at_first_use() {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let cleanup = Cleanup::new();
        cleanup.on_first_use(|| {
            RUNS.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(RUNS.load(Ordering::SeqCst), 0);
        let made = |_: &Path| Ok(());
        cleanup.create(Path::new("/nonexistent/a"), made).unwrap();
        cleanup.create(Path::new("/nonexistent/b"), made).unwrap();
        assert_eq!(RUNS.load(Ordering::SeqCst), 1);
        // Another register is another handler's business.
        Cleanup::new()
            .create(Path::new("/nonexistent/c"), made)
            .unwrap();
        assert!(!cleanup.holds(Path::new("/nonexistent/c")));
    }

    #[cfg(unix)]
    #[test]
    fn programs_are_registered_while_they_run() {
        let cleanup = Cleanup::new();
        let (mut child, running) = cleanup.spawn(&mut Command::new("true")).unwrap();
        assert!(lock(&cleanup.inner.groups).contains(&child.id()));
        let _ = child.wait();
        drop(running);
        assert!(lock(&cleanup.inner.groups).is_empty());
    }
}
