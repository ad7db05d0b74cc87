//! kbuild's temporary files: their names, and [`Registered`], a temporary file or
//! directory (a remote base's clone, a helm chart's scratch directory, a plugin's config
//! file) recorded in the caller's [`Cleanup`] register from its creation to its removal,
//! so that the binary's SIGINT/SIGTERM handler can remove it before the process dies.

use super::Cleanup;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Every temporary file kbuild writes starts with this, followed by the writing process's
/// id and a dot: `kbuild render` recognises its own leftovers by it (and removes them only
/// when that process is gone).
pub const PREFIX: &str = ".kbuild-tmp.";

/// The prefix of this process's temporary files.
pub(crate) fn own_prefix() -> String {
    format!("{PREFIX}{}.", std::process::id())
}

/// A temporary file or directory (`tempfile`'s, removed when dropped) that the signal
/// handler also removes: registered from its creation until after its removal (or its
/// rename into place).
pub struct Registered<T> {
    item: Option<T>,
    path: PathBuf,
    cleanup: Cleanup,
}

impl Registered<tempfile::TempDir> {
    /// A new temporary directory made by `builder`, in `parent` or the system's
    /// temporary directory. `tempfile` picks the name while creating it, so it is made
    /// with the register locked: a signal meanwhile is handled once it is registered
    /// (else the handler could miss a directory just made).
    pub(crate) fn dir(
        cleanup: &Cleanup,
        builder: &tempfile::Builder,
        parent: Option<&Path>,
    ) -> std::io::Result<Registered<tempfile::TempDir>> {
        let dir = cleanup.critical(|register| {
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
            cleanup: cleanup.clone(),
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
    /// registered as it is created.
    pub(crate) fn file(
        cleanup: &Cleanup,
        builder: &tempfile::Builder,
    ) -> std::io::Result<Registered<tempfile::NamedTempFile>> {
        let file = builder.make(|p| cleanup.create(p, |p| std::fs::File::create_new(p)))?;
        Ok(Registered {
            path: file.path().to_path_buf(),
            item: Some(file),
            cleanup: cleanup.clone(),
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
        self.cleanup.unregister(&self.path);
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
        let cleanup = Cleanup::new();
        let registered = |p: &Path| cleanup.holds(p);
        let builder = || {
            let mut b = tempfile::Builder::new();
            b.prefix("kbuild-test-");
            b
        };
        let dir = Registered::dir(&cleanup, &builder(), None).unwrap();
        let path = dir.path().to_path_buf();
        assert!(path.is_dir() && registered(&path));
        drop(dir);
        assert!(!path.exists() && !registered(&path));
        let file = Registered::file(&cleanup, &builder()).unwrap();
        let path = file.path().to_path_buf();
        assert!(path.is_file() && registered(&path));
        drop(file);
        assert!(!path.exists() && !registered(&path));
        let parent = tempfile::tempdir().unwrap();
        let dir =
            Registered::dir(&cleanup, &tempfile::Builder::new(), Some(parent.path())).unwrap();
        let path = dir.path().to_path_buf();
        let target = parent.path().join("kept");
        dir.rename_to(&target).unwrap();
        assert!(target.is_dir() && !path.exists() && !registered(&path));
    }
}
