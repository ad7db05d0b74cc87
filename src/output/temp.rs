//! kbuild's temporary files: their names, and the register of those that exist, so that
//! the binary's SIGINT/SIGTERM handler can remove them before the process dies (a killed
//! process runs no destructors, and tempfile's cleanup is a destructor). Temporary
//! directories and files elsewhere (a remote base's clone, a helm chart's scratch
//! directory, a plugin's config file) are registered too, through [`Registered`].
//!
//! A temporary file is registered *before* it is created and unregistered only after it
//! was renamed into place or removed, so no instant exists where it is on disk and
//! unknown to the handler. `critical` holds the register's lock across a step that must
//! not be cut in two by a signal (renaming a set of files into place): the handler waits
//! for it, then removes what is left.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Every temporary file kbuild writes starts with this, followed by the writing process's
/// id and a dot: `kbuild render` recognises its own leftovers by it (and removes them only
/// when that process is gone).
pub const PREFIX: &str = ".kbuild-tmp.";

static REGISTER: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// The register; a panic while it was held does not make it unusable (its content is a
/// set of paths, valid whatever the panicking thread was doing).
fn lock() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    REGISTER.lock().unwrap_or_else(|e| e.into_inner())
}

/// The prefix of this process's temporary files.
pub(crate) fn own_prefix() -> String {
    format!("{PREFIX}{}.", std::process::id())
}

/// What the binary runs when the first temporary is registered: it starts its signal
/// handler then (a build that makes no temporary file, the common and benchmarked case,
/// starts no thread).
static ON_FIRST: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();
static FIRST: std::sync::Once = std::sync::Once::new();

/// Has `hook` run once, when the first temporary file or directory is registered (for the
/// binary's signal handler).
pub fn on_first_register(hook: fn()) {
    let _ = ON_FIRST.set(hook);
}

pub(crate) fn register(path: &Path) {
    start_handler();
    lock().insert(path.to_path_buf());
}

/// Runs the hook of [`on_first_register`] if it has not run: also when the first plugin or
/// helm process starts (see `plugin::process`), which the handler stops.
pub(crate) fn start_handler() {
    if let Some(hook) = ON_FIRST.get() {
        FIRST.call_once(hook);
    }
}

pub(crate) fn unregister(path: &Path) {
    lock().remove(path);
}

/// Runs `f` with the register locked: a signal arriving meanwhile is handled after it.
pub(crate) fn critical<R>(f: impl FnOnce(&mut BTreeSet<PathBuf>) -> R) -> R {
    f(&mut lock())
}

/// Removes every registered temporary file and keeps the register locked for the rest of
/// the process's life, so no other thread renames or creates one afterwards. For the
/// binary's signal handler, which then ends the process. The programs writing into
/// temporaries (a git clone) are killed and gone first (`children`).
pub fn remove_all_for_exit() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    super::children::kill_all_for_exit();
    let mut held = lock();
    for path in std::mem::take(&mut *held) {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {
                let _ = std::fs::remove_dir_all(&path);
            }
            _ => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    held
}

/// A temporary file or directory (`tempfile`'s, removed when dropped) that the signal
/// handler also removes: registered from its creation until after its removal (or its
/// rename into place).
pub struct Registered<T> {
    item: Option<T>,
    path: PathBuf,
}

impl Registered<tempfile::TempDir> {
    /// A new temporary directory made by `builder`, in `parent` or the system's
    /// temporary directory. `tempfile` picks the name while creating it, so it is made
    /// with the register locked: a signal meanwhile is handled once it is registered
    /// (else the handler could miss a directory just made).
    pub(crate) fn dir(
        builder: &tempfile::Builder,
        parent: Option<&Path>,
    ) -> std::io::Result<Registered<tempfile::TempDir>> {
        if let Some(hook) = ON_FIRST.get() {
            FIRST.call_once(hook);
        }
        let dir = critical(|register| {
            let dir = match parent {
                Some(p) => builder.tempdir_in(p)?,
                None => builder.tempdir()?,
            };
            register.insert(dir.path().to_path_buf());
            Ok::<_, std::io::Error>(dir)
        })?;
        Ok(Registered {
            path: dir.path().to_path_buf(),
            item: Some(dir),
        })
    }

    /// Renames the directory to `target` (it is then no longer temporary); on failure
    /// it is removed.
    pub(crate) fn rename_to(mut self, target: &Path) -> std::io::Result<()> {
        let Some(dir) = self.item.take() else {
            return Ok(());
        };
        // On failure `dir` is dropped, which removes it.
        std::fs::rename(dir.path(), target)?;
        let _ = dir.keep();
        Ok(())
    }
}

impl Registered<tempfile::NamedTempFile> {
    /// A new temporary file made by `builder` in the system's temporary directory,
    /// registered before it is created.
    pub(crate) fn file(
        builder: &tempfile::Builder,
    ) -> std::io::Result<Registered<tempfile::NamedTempFile>> {
        let file = builder.make(|p| {
            register(p);
            std::fs::File::create_new(p)
        })?;
        Ok(Registered {
            path: file.path().to_path_buf(),
            item: Some(file),
        })
    }
}

impl<T> Registered<T> {
    /// The path of the file or directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl<T> Drop for Registered<T> {
    fn drop(&mut self) {
        // Removed first (the item's own drop), then forgotten: a signal in between finds
        // nothing to remove.
        drop(self.item.take());
        unregister(&self.path);
    }
}

/// A kbuild temporary file's name: the process id that wrote it, if the name is one.
pub fn writer_pid(name: &OsStr) -> Option<u32> {
    let rest = name.to_str()?.strip_prefix(PREFIX)?;
    rest.split_once('.')?.0.parse().ok()
}

/// Whether the temporary file `name` was left by a process that no longer runs. Only
/// Linux's /proc answers "is process N alive" without a system call crate; elsewhere a
/// temporary file is taken as stale after an hour (a write takes milliseconds).
pub fn is_stale(path: &Path) -> bool {
    let Some(pid) = path.file_name().and_then(writer_pid) else {
        return false;
    };
    if pid == std::process::id() {
        return false;
    }
    if Path::new("/proc/self").exists() {
        return !Path::new(&format!("/proc/{pid}")).exists();
    }
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().is_ok_and(|age| age.as_secs() > 3600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_writer() {
        let name = format!("{}abc123", own_prefix());
        assert_eq!(writer_pid(OsStr::new(&name)), Some(std::process::id()));
        assert_eq!(writer_pid(OsStr::new(".tmpAbc")), None);
        assert_eq!(writer_pid(OsStr::new(".kbuild-tmp.x.y")), None);
        // This process is alive: its own files are never stale.
        assert!(!is_stale(Path::new(&name)));
    }

    #[test]
    fn registered_temporaries_are_known_while_they_exist() {
        let registered = |p: &Path| lock().contains(p);
        let dir = Registered::dir(tempfile::Builder::new().prefix("kbuild-test-"), None).unwrap();
        let path = dir.path().to_path_buf();
        assert!(path.is_dir() && registered(&path));
        drop(dir);
        assert!(!path.exists() && !registered(&path));
        let file = Registered::file(tempfile::Builder::new().prefix("kbuild-test-")).unwrap();
        let path = file.path().to_path_buf();
        assert!(path.is_file() && registered(&path));
        drop(file);
        assert!(!path.exists() && !registered(&path));
        let parent = tempfile::tempdir().unwrap();
        let dir = Registered::dir(&tempfile::Builder::new(), Some(parent.path())).unwrap();
        let path = dir.path().to_path_buf();
        let target = parent.path().join("kept");
        dir.rename_to(&target).unwrap();
        assert!(target.is_dir() && !path.exists() && !registered(&path));
    }
}
