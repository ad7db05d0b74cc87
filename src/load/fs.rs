//! The file system a build reads, behind a small trait: the real one, and an
//! in-memory one for tests and for library users who build generated trees
//! without writing them to disk.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// What a path is, symlinks not followed unless a method says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileKind {
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// A symbolic link.
    Symlink,
    /// A FIFO, a device, a socket.
    Other,
}

impl FileKind {
    fn of(t: std::fs::FileType) -> FileKind {
        if t.is_dir() {
            FileKind::Dir
        } else if t.is_file() {
            FileKind::File
        } else if t.is_symlink() {
            FileKind::Symlink
        } else {
            FileKind::Other
        }
    }
}

/// The operations a build needs; paths are absolute.
pub trait FileSystem: Send + Sync + std::fmt::Debug {
    /// The real path: every symlink resolved, `.` and `..` gone (realpath).
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf>;
    /// What `path` is, following symlinks.
    fn kind(&self, path: &Path) -> io::Result<FileKind>;
    /// What `path` is, not following a final symlink.
    fn symlink_kind(&self, path: &Path) -> io::Result<FileKind>;
    /// The names in a directory and what each is (symlinks not followed).
    fn read_dir(&self, dir: &Path) -> io::Result<Vec<(OsString, FileKind)>>;
    /// The bytes of a file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
}

/// The operating system's file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFs;

impl FileSystem for RealFs {
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }

    fn kind(&self, path: &Path) -> io::Result<FileKind> {
        std::fs::metadata(path).map(|m| FileKind::of(m.file_type()))
    }

    fn symlink_kind(&self, path: &Path) -> io::Result<FileKind> {
        std::fs::symlink_metadata(path).map(|m| FileKind::of(m.file_type()))
    }

    fn read_dir(&self, dir: &Path) -> io::Result<Vec<(OsString, FileKind)>> {
        std::fs::read_dir(dir)?
            .map(|e| e.and_then(|e| Ok((e.file_name(), FileKind::of(e.file_type()?)))))
            .collect()
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

/// The real file system, shared.
pub fn real() -> Arc<dyn FileSystem> {
    Arc::new(RealFs)
}

/// An entry of a [`MemFs`].
#[derive(Clone, Debug)]
enum Entry {
    Dir,
    File(Arc<[u8]>),
    /// A link to this target (absolute, or relative to the link's directory).
    Symlink(PathBuf),
}

/// A file system in memory: directories, files and symlinks under `/`.
/// Parent directories are created as files are added.
#[derive(Clone, Debug, Default)]
pub struct MemFs {
    entries: BTreeMap<PathBuf, Entry>,
}

/// How many symlinks one lookup may follow, as Linux's `MAXSYMLINKS`.
const MAX_LINKS: usize = 40;

impl MemFs {
    /// An empty file system (the root directory only).
    pub fn new() -> MemFs {
        let mut fs = MemFs::default();
        fs.entries.insert(PathBuf::from("/"), Entry::Dir);
        fs
    }

    /// Adds a file (and its parent directories).
    pub fn file(mut self, path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> MemFs {
        let path = path.as_ref().to_path_buf();
        self.dirs_above(&path);
        self.entries
            .insert(path, Entry::File(Arc::from(bytes.as_ref())));
        self
    }

    /// Adds a directory (and its parents).
    pub fn dir(mut self, path: impl AsRef<Path>) -> MemFs {
        let path = path.as_ref().to_path_buf();
        self.dirs_above(&path);
        self.entries.insert(path, Entry::Dir);
        self
    }

    /// Adds a symbolic link at `path` pointing to `target`.
    pub fn symlink(mut self, path: impl AsRef<Path>, target: impl AsRef<Path>) -> MemFs {
        let path = path.as_ref().to_path_buf();
        self.dirs_above(&path);
        self.entries
            .insert(path, Entry::Symlink(target.as_ref().to_path_buf()));
        self
    }

    fn dirs_above(&mut self, path: &Path) {
        for dir in path.ancestors().skip(1) {
            self.entries.entry(dir.to_path_buf()).or_insert(Entry::Dir);
        }
    }

    /// Resolves `path` component by component; with `follow_last`, a final
    /// symlink too. Returns the resolved path and its entry.
    fn resolve(&self, path: &Path, follow_last: bool) -> io::Result<(PathBuf, &Entry)> {
        let mut links = 0;
        let mut pending: Vec<OsString> = Vec::new();
        push_components(&mut pending, path);
        let mut current = PathBuf::from("/");
        while let Some(name) = pending.pop() {
            if name == ".." {
                current.pop();
                continue;
            }
            let next = current.join(&name);
            let entry = self.entries.get(&next).ok_or_else(not_found)?;
            match entry {
                Entry::Symlink(target) if follow_last || !pending.is_empty() => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(io::Error::other("too many levels of symbolic links"));
                    }
                    if target.is_absolute() {
                        current = PathBuf::from("/");
                    }
                    push_components(&mut pending, target);
                }
                Entry::File(_) if !pending.is_empty() => {
                    return Err(io::Error::from_raw_os_error(20)); // ENOTDIR
                }
                _ => current = next,
            }
        }
        let entry = self.entries.get(&current).ok_or_else(not_found)?;
        Ok((current, entry))
    }
}

/// Pushes the components of `path` so that the first is popped first.
fn push_components(stack: &mut Vec<OsString>, path: &Path) {
    let names: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect();
    stack.extend(names.into_iter().rev());
}

fn not_found() -> io::Error {
    io::Error::from(io::ErrorKind::NotFound)
}

fn kind_of(entry: &Entry) -> FileKind {
    match entry {
        Entry::Dir => FileKind::Dir,
        Entry::File(_) => FileKind::File,
        Entry::Symlink(_) => FileKind::Symlink,
    }
}

impl FileSystem for MemFs {
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.resolve(path, true).map(|(p, _)| p)
    }

    fn kind(&self, path: &Path) -> io::Result<FileKind> {
        self.resolve(path, true).map(|(_, e)| kind_of(e))
    }

    fn symlink_kind(&self, path: &Path) -> io::Result<FileKind> {
        self.resolve(path, false).map(|(_, e)| kind_of(e))
    }

    fn read_dir(&self, dir: &Path) -> io::Result<Vec<(OsString, FileKind)>> {
        let (real, entry) = self.resolve(dir, true)?;
        if !matches!(entry, Entry::Dir) {
            return Err(io::Error::from_raw_os_error(20));
        }
        Ok(self
            .entries
            .range(real.clone()..)
            .skip_while(|(p, _)| **p == real)
            .take_while(|(p, _)| p.starts_with(&real))
            .filter(|(p, _)| p.parent() == Some(real.as_path()))
            .filter_map(|(p, e)| Some((p.file_name()?.to_os_string(), kind_of(e))))
            .collect())
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.resolve(path, true)? {
            (_, Entry::File(bytes)) => Ok(bytes.to_vec()),
            (_, Entry::Dir) => Err(io::Error::from_raw_os_error(21)), // EISDIR
            (_, Entry::Symlink(_)) => Err(not_found()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_a_real_tree() {
        let fs = MemFs::new()
            .file("/r/a.yaml", "a")
            .file("/r/sub/b.yaml", "b")
            .symlink("/r/link", "sub")
            .symlink("/r/abs", "/r/sub/b.yaml")
            .symlink("/r/loop", "loop");
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            fs.canonicalize(&p("/r/link/b.yaml")).unwrap(),
            p("/r/sub/b.yaml")
        );
        assert_eq!(fs.canonicalize(&p("/r/abs")).unwrap(), p("/r/sub/b.yaml"));
        assert_eq!(
            fs.canonicalize(&p("/r/sub/../a.yaml")).unwrap(),
            p("/r/a.yaml")
        );
        assert_eq!(fs.kind(&p("/r/link")).unwrap(), FileKind::Dir);
        assert_eq!(fs.symlink_kind(&p("/r/link")).unwrap(), FileKind::Symlink);
        assert!(fs.canonicalize(&p("/r/loop")).is_err());
        assert_eq!(
            fs.canonicalize(&p("/r/missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(fs.read(&p("/r/a.yaml/x")).is_err());
        assert_eq!(fs.read(&p("/r/link/b.yaml")).unwrap(), b"b");
        let mut names: Vec<_> = fs.read_dir(&p("/r")).unwrap();
        names.sort();
        assert_eq!(
            names,
            vec![
                ("a.yaml".into(), FileKind::File),
                ("abs".into(), FileKind::Symlink),
                ("link".into(), FileKind::Symlink),
                ("loop".into(), FileKind::Symlink),
                ("sub".into(), FileKind::Dir),
            ]
        );
    }
}
