//! Writing a set of files all or nothing (`build -o DIR`, `merge3 --in-place`, and one
//! file as a set of one). Every new content is first written in full to a temporary file
//! beside its target and flushed to disk; only when all are written are they renamed into
//! place. A full disk, a read-only directory or a directory in the way therefore fails
//! before any target changed. The renames themselves are undone if one fails: each file
//! replaced or removed is first kept under a temporary name (a hard link, or the rename
//! that removes it), and put back.

use super::target::{self, Target};
use super::{Cleanup, temp};
use crate::error::{Error, Result};
use std::fs::{File, Metadata};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The files to write (`Some(bytes)`) or remove (`None`), in order.
#[derive(Debug, Default)]
pub struct FileSet {
    changes: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// When set, every path must lie below it with no symlink on the way
    /// ([`target::confined`]), and missing directories below it are created. Without it,
    /// a missing directory is an error (as for `kustomize build -o dir/missing/file`).
    confine: Option<PathBuf>,
    /// Where its temporary files are registered while they exist.
    cleanup: Cleanup,
}

/// A new content written to a temporary file, not yet in place.
struct Staged {
    temp: PathBuf,
    target: PathBuf,
    /// The replaced file's old content under a temporary name, while renaming.
    backup: Option<PathBuf>,
    /// The target did not exist before.
    created: bool,
}

impl FileSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set whose paths must stay below `root`, where it may create directories.
    pub fn confined_to(root: &Path) -> Self {
        Self {
            confine: Some(root.to_path_buf()),
            ..Self::default()
        }
    }

    /// Registers its temporary files in `cleanup` while they exist (for a signal handler
    /// that removes them; see [`Cleanup`]).
    pub fn with_cleanup(mut self, cleanup: &Cleanup) -> Self {
        self.cleanup = cleanup.clone();
        self
    }

    /// Adds a file to write.
    pub fn write(&mut self, path: PathBuf, bytes: Vec<u8>) {
        self.changes.push((path, Some(bytes)));
    }

    /// Adds a file to remove.
    pub fn remove(&mut self, path: PathBuf) {
        self.changes.push((path, None));
    }

    /// Writes the set: every file or none (see the module's comment).
    pub fn commit(self) -> Result<()> {
        let mut created_dirs = Vec::new();
        let result = self.stage(&mut created_dirs).and_then(|(staged, removed)| {
            // A signal arriving while the files are renamed is handled after the last
            // rename or the rollback: the set is never left half in place.
            self.cleanup
                .critical(|register| rename_all(staged, removed, register))
        });
        if result.is_err() {
            for dir in created_dirs.iter().rev() {
                let _ = std::fs::remove_dir(dir);
            }
        }
        result
    }

    /// Checks every path and writes every new content to its temporary file: the files
    /// to rename into place, and those to remove.
    fn stage(&self, created_dirs: &mut Vec<PathBuf>) -> Result<(Vec<Staged>, Vec<Staged>)> {
        let mut written: Vec<Staged> = Vec::new();
        let mut removed: Vec<Staged> = Vec::new();
        let fail = |written: &[Staged], e: Error| {
            for s in written {
                discard(&s.temp, &self.cleanup);
            }
            Err(e)
        };
        for (path, bytes) in &self.changes {
            let step = self.stage_one(path, bytes.as_deref(), created_dirs);
            match step {
                Ok(Some(s)) if bytes.is_some() => written.push(s),
                Ok(Some(s)) => removed.push(s),
                Ok(None) => {}
                Err(e) => return fail(&written, e),
            }
        }
        Ok((written, removed))
    }

    fn stage_one(
        &self,
        path: &Path,
        bytes: Option<&[u8]>,
        created_dirs: &mut Vec<PathBuf>,
    ) -> Result<Option<Staged>> {
        if let Some(root) = &self.confine {
            target::confined(root, path)?;
        }
        let Some(bytes) = bytes else {
            return Ok(std::fs::symlink_metadata(path).is_ok().then(|| Staged {
                temp: PathBuf::new(),
                target: path.to_path_buf(),
                backup: None,
                created: false,
            }));
        };
        let (real, existing) = match target::plan(path)? {
            Target::Replace { path, existing } => (path, existing),
            Target::Through(p) => {
                return Err(Error::Output(format!(
                    "{} is not a regular file; a set of files is written only to regular files",
                    p.display()
                )));
            }
        };
        let dir = parent(&real);
        if self.confine.is_some() {
            create_dirs(dir, created_dirs)?;
        }
        let temp =
            write_temp(dir, bytes, existing.as_ref(), &self.cleanup).map_err(|e| Error::Io {
                path: real.clone(),
                source: e,
            })?;
        Ok(Some(Staged {
            temp,
            target: real,
            backup: None,
            created: existing.is_none(),
        }))
    }
}

/// Writes one file atomically: the set of one (its temporary file registered in
/// `cleanup`).
pub fn write_file_atomic(path: &Path, bytes: &[u8], cleanup: &Cleanup) -> Result<()> {
    if let Target::Through(p) = target::plan(path)? {
        return target::write_through(&p, bytes);
    }
    let mut set = FileSet::new().with_cleanup(cleanup);
    set.write(path.to_path_buf(), bytes.to_vec());
    set.commit()
}

/// [`write_file_atomic`] of content written by `fill` as it is made (the provenance JSON
/// of a large build is tens of megabytes, not worth holding whole): `fill` writes into
/// the temporary file (buffered), which is renamed into place only when `fill` and the
/// flush to disk succeeded; on any failure it is removed and the target is untouched. A
/// device or pipe is written through, as [`write_file_atomic`] does.
pub fn write_file_atomic_with(
    path: &Path,
    cleanup: &Cleanup,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let (real, existing) = match target::plan(path)? {
        Target::Replace { path, existing } => (path, existing),
        Target::Through(p) => return target::write_through_with(&p, fill),
    };
    let temp = write_temp_with(parent(&real), existing.as_ref(), cleanup, |file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        fill(&mut out)?;
        out.flush()
    })
    .map_err(|e| Error::Io {
        path: real.clone(),
        source: e,
    })?;
    let staged = Staged {
        temp,
        target: real,
        backup: None,
        created: existing.is_none(),
    };
    cleanup.critical(|register| rename_all(vec![staged], Vec::new(), register))
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Creates `dir` and its missing parents, remembering each one created (removed again if
/// the set fails).
fn create_dirs(dir: &Path, created: &mut Vec<PathBuf>) -> Result<()> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(d) = at {
        if d.as_os_str().is_empty() || std::fs::symlink_metadata(d).is_ok() {
            break;
        }
        missing.push(d.to_path_buf());
        at = d.parent();
    }
    for d in missing.into_iter().rev() {
        std::fs::create_dir(&d).map_err(|e| Error::Io {
            path: d.clone(),
            source: e,
        })?;
        created.push(d);
    }
    Ok(())
}

/// A new registered temporary file in `dir` holding `bytes`, flushed to disk, with the
/// mode and owner of `existing` (the file it will replace), else 0666 less the umask as
/// every Unix tool creates files.
fn write_temp(
    dir: &Path,
    bytes: &[u8],
    existing: Option<&Metadata>,
    cleanup: &Cleanup,
) -> std::io::Result<PathBuf> {
    write_temp_with(dir, existing, cleanup, |mut file| file.write_all(bytes))
}

/// [`write_temp`] of the content `fill` writes into the file; on any failure the file is
/// removed.
fn write_temp_with(
    dir: &Path,
    existing: Option<&Metadata>,
    cleanup: &Cleanup,
    fill: impl FnOnce(&File) -> std::io::Result<()>,
) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
    let prefix = temp::own_prefix();
    let temp = tempfile::Builder::new()
        .prefix(&prefix)
        .make_in(dir, |path| {
            cleanup.create(path, |path| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o666)
                    .open(path)
            })
        })
        .map_err(super::without_temp_path)?;
    // From here the file is kbuild's to remove: keep it past tempfile's guard, which
    // would remove it without unregistering it.
    let (file, path) = temp.keep().map_err(|e| e.error)?;
    let filled = (|| {
        fill(&file)?;
        if let Some(meta) = existing {
            file.set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o7777))?;
            keep_owner(&file, meta)?;
        }
        file.sync_all()
    })();
    match filled {
        Ok(()) => Ok(path),
        Err(e) => {
            discard(&path, cleanup);
            Err(e)
        }
    }
}

/// Gives the new file the replaced file's owner and group, when they differ from the
/// writer's. Only root may give a file away; for anyone else a different owner is kept
/// where the system allows it (the group, when the writer is a member) and silently
/// dropped otherwise, as `cp -p` and editors do.
fn keep_owner(file: &File, meta: &Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mine = file.metadata()?;
    if mine.uid() == meta.uid() && mine.gid() == meta.gid() {
        return Ok(());
    }
    if std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid())).is_err() {
        let _ = std::os::unix::fs::fchown(file, None, Some(meta.gid()));
    }
    Ok(())
}

fn discard(temp: &Path, cleanup: &Cleanup) {
    let _ = std::fs::remove_file(temp);
    cleanup.unregister(temp);
}

/// Renames every staged file into place and every removed file away; on the first
/// failure, puts back what was done. Runs with the temporary-file register locked.
fn rename_all(
    mut written: Vec<Staged>,
    mut removed: Vec<Staged>,
    register: &mut std::collections::BTreeSet<PathBuf>,
) -> Result<()> {
    // Keeping the old contents costs a hard link per file; a set of one needs none (one
    // rename is atomic on its own).
    let many = written.len() + removed.len() > 1;
    let mut done_written = 0;
    let mut done_removed = 0;
    let outcome = (|| -> Result<()> {
        for s in written.iter_mut() {
            if many && !s.created {
                s.backup = Some(backup_link(&s.target, register)?);
            }
            std::fs::rename(&s.temp, &s.target).map_err(|e| Error::Io {
                path: s.target.clone(),
                source: e,
            })?;
            register.remove(&s.temp);
            done_written += 1;
        }
        for s in removed.iter_mut() {
            let keep = backup_name(&s.target);
            register.insert(keep.clone());
            std::fs::rename(&s.target, &keep).map_err(|e| Error::Io {
                path: s.target.clone(),
                source: e,
            })?;
            s.backup = Some(keep);
            done_removed += 1;
        }
        Ok(())
    })();
    if let Err(e) = outcome {
        for s in &removed[..done_removed] {
            if let Some(b) = &s.backup {
                let _ = std::fs::rename(b, &s.target);
            }
        }
        for (i, s) in written.iter().enumerate() {
            if i < done_written {
                match &s.backup {
                    Some(b) => drop(std::fs::rename(b, &s.target)),
                    None if s.created => drop(std::fs::remove_file(&s.target)),
                    None => {}
                }
            } else {
                let _ = std::fs::remove_file(&s.temp);
                if let Some(b) = &s.backup {
                    let _ = std::fs::remove_file(b);
                }
            }
        }
        for s in written.iter().chain(&removed) {
            register.remove(&s.temp);
            if let Some(b) = &s.backup {
                register.remove(b);
            }
        }
        return Err(e.context("nothing was changed"));
    }
    for b in written
        .iter()
        .chain(&removed)
        .filter_map(|s| s.backup.as_ref())
    {
        let _ = std::fs::remove_file(b);
        register.remove(b);
    }
    Ok(())
}

/// A temporary name beside `target`, for its old content: unique within the process by a
/// counter, across processes by the process id in the prefix.
fn backup_name(target: &Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    parent(target).join(format!("{}old{n}", temp::own_prefix()))
}

/// A hard link to `target`'s current content under a registered temporary name.
fn backup_link(
    target: &Path,
    register: &mut std::collections::BTreeSet<PathBuf>,
) -> Result<PathBuf> {
    let keep = backup_name(target);
    register.insert(keep.clone());
    std::fs::hard_link(target, &keep).map_err(|e| {
        register.remove(&keep);
        Error::Io {
            path: target.to_path_buf(),
            source: e,
        }
        .context("keeping the previous content while replacing a set of files")
    })?;
    Ok(keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn a_set_writes_and_removes() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join("a.yaml"), "old a").unwrap();
        std::fs::write(d.join("gone.yaml"), "old").unwrap();
        let mut set = FileSet::confined_to(d);
        set.write(d.join("a.yaml"), b"new a".to_vec());
        set.write(d.join("sub/b.yaml"), b"new b".to_vec());
        set.remove(d.join("gone.yaml"));
        set.commit().unwrap();
        assert_eq!(names(d), ["a.yaml", "sub"]);
        assert_eq!(std::fs::read_to_string(d.join("a.yaml")).unwrap(), "new a");
        assert_eq!(
            std::fs::read_to_string(d.join("sub/b.yaml")).unwrap(),
            "new b"
        );
    }

    /// A rename that fails after others succeeded: every target is put back as it was,
    /// and no temporary or backup file stays.
    #[test]
    fn a_failed_rename_rolls_the_set_back() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join("a.yaml"), "old a").unwrap();
        std::fs::write(d.join("b.yaml"), "old b").unwrap();
        std::fs::write(d.join("gone.yaml"), "old gone").unwrap();
        let new_a = write_temp(d, b"new a", None, &Cleanup::new()).unwrap();
        let new_c = write_temp(d, b"new c", None, &Cleanup::new()).unwrap();
        let staged = |temp: PathBuf, target: &str, created: bool| Staged {
            temp,
            target: d.join(target),
            backup: None,
            created,
        };
        let written = vec![
            staged(new_a, "a.yaml", false),
            staged(new_c, "c.yaml", true),
            // Its temporary file does not exist: the rename fails.
            staged(d.join(".kbuild-tmp.missing"), "b.yaml", false),
        ];
        let removed = vec![staged(PathBuf::new(), "gone.yaml", false)];
        let err = critical_for_test(written, removed).unwrap_err().to_string();
        assert!(err.contains("b.yaml"), "{err}");
        assert_eq!(names(d), ["a.yaml", "b.yaml", "gone.yaml"]);
        assert_eq!(std::fs::read_to_string(d.join("a.yaml")).unwrap(), "old a");
        assert_eq!(std::fs::read_to_string(d.join("b.yaml")).unwrap(), "old b");
    }

    /// A streamed file is in place only when its writer finished: a failing writer
    /// leaves the old content and no temporary file.
    #[test]
    fn a_streamed_file_is_all_or_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let target = d.join("p.json");
        write_file_atomic_with(&target, &Cleanup::new(), |out| out.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let err = write_file_atomic_with(&target, &Cleanup::new(), |out| {
            out.write_all(b"partial")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(d), ["p.json"]);
    }

    fn critical_for_test(written: Vec<Staged>, removed: Vec<Staged>) -> Result<()> {
        Cleanup::new().critical(|register| rename_all(written, removed, register))
    }
}
