//! What writing to a path means, decided before anything is written: a regular file (or a
//! new one) is replaced atomically and keeps its mode and owner; a symlink is followed, so
//! its target is written and the link stays; a character device or a pipe (`/dev/null`,
//! `/dev/stdout`, a FIFO) is opened and written through, as kustomize's `os.WriteFile`
//! does; anything else is refused.

use crate::error::{Error, Result};
use std::fs::Metadata;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// How to write one output path.
#[derive(Debug)]
pub(crate) enum Target {
    /// Write a temporary file beside `path` and rename it over `path`. `existing`: the
    /// file's metadata when it exists (its mode and owner are kept).
    Replace {
        /// The regular file (a symlink's target, when the output path was a link).
        path: PathBuf,
        /// The file being replaced, if any.
        existing: Option<Metadata>,
    },
    /// Open `path` and write into it: a device, a pipe, or the missing target of a
    /// dangling symlink (created, as `os.WriteFile` creates it).
    Through(PathBuf),
}

/// Decides how `path` is written. Refuses directories, block devices, sockets and
/// read-only files (kbuild does not overwrite what its owner protected, root or not).
pub(crate) fn plan(path: &Path) -> Result<Target> {
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Target::Replace {
                path: path.to_path_buf(),
                existing: None,
            });
        }
        Err(e) => return Err(io(e)),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return match std::fs::canonicalize(path) {
            Ok(real) => plan(&real),
            // A dangling link: writing through it creates its target, as kustomize does.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(Target::Through(path.to_path_buf()))
            }
            Err(e) => Err(io(e)),
        };
    }
    if kind.is_file() {
        if meta.permissions().readonly() {
            return Err(Error::Output(format!(
                "{} is read-only; make it writable (chmod u+w) or write elsewhere",
                path.display()
            )));
        }
        return Ok(Target::Replace {
            path: path.to_path_buf(),
            existing: Some(meta),
        });
    }
    if kind.is_char_device() || kind.is_fifo() {
        return Ok(Target::Through(path.to_path_buf()));
    }
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "a socket"
    };
    Err(Error::Output(format!(
        "{} is {what}, not a file kbuild can write; remove it or write elsewhere",
        path.display()
    )))
}

/// Writes `bytes` into an existing device, pipe or link target, as `os.WriteFile` would:
/// not atomic (there is nothing to rename over), and a new file gets 0666 less the umask.
pub(crate) fn write_through(path: &Path, bytes: &[u8]) -> Result<()> {
    write_through_with(path, |out| out.write_all(bytes))
}

/// [`write_through`] of the content `fill` writes (buffered).
pub(crate) fn write_through_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o666)
        .open(path)
        .map_err(io)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    fill(&mut out).and_then(|()| out.flush()).map_err(io)
}

/// Refuses `path` when a component below `root` (the file itself included) is a symlink,
/// or is not a directory where one is needed: a write under `root` must stay under it.
/// Components that do not exist yet are fine (they are created as directories).
pub(crate) fn confined(root: &Path, path: &Path) -> Result<()> {
    let rel = path.strip_prefix(root).map_err(|_| {
        Error::Output(format!(
            "{} is outside {}; kbuild writes only below it",
            path.display(),
            root.display()
        ))
    })?;
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        let std::path::Component::Normal(name) = part else {
            return Err(Error::Output(format!(
                "{} leaves {}; kbuild writes only below it",
                path.display(),
                root.display()
            )));
        };
        at.push(name);
        let Ok(meta) = std::fs::symlink_metadata(&at) else {
            return Ok(());
        };
        if meta.file_type().is_symlink() {
            return Err(Error::Output(format!(
                "{} is a symlink; kbuild does not write through links below {} (the link could lead outside it): replace it with a {}",
                at.display(),
                root.display(),
                if i + 1 == parts.len() {
                    "regular file"
                } else {
                    "directory"
                }
            )));
        }
        if i + 1 < parts.len() && !meta.is_dir() {
            return Err(Error::Output(format!(
                "{} is not a directory; cannot write {}",
                at.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_devices_and_directories() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let link = tmp.path().join("l");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let real = std::fs::canonicalize(&file).unwrap();
        assert!(
            matches!(plan(&link).unwrap(), Target::Replace { path, existing: Some(_) } if path == real)
        );
        let dangling = tmp.path().join("d");
        std::os::unix::fs::symlink(tmp.path().join("missing"), &dangling).unwrap();
        assert!(matches!(plan(&dangling).unwrap(), Target::Through(p) if p == dangling));
        assert!(matches!(
            plan(Path::new("/dev/null")).unwrap(),
            Target::Through(_)
        ));
        let err = plan(tmp.path()).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Output);
        assert!(err.to_string().contains("is a directory"), "{err}");
    }

    #[test]
    fn confinement_refuses_links_below_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), root.join("out")).unwrap();
        assert!(confined(&root, &root.join("sub/new/x.yaml")).is_ok());
        let err = confined(&root, &root.join("out/x.yaml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a symlink"), "{err}");
        assert!(confined(&root, &root.join("../x.yaml")).is_err());
    }
}
