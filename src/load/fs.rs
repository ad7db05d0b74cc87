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
    /// The bytes of the regular file at `path`, a real path (absolute, no
    /// symbolic link in it) that the load restrictor checked: a symbolic link
    /// met on the way is an error, and so is a file
    /// that is not regular, so the file read is the file
    /// checked even if the tree changes in between. A file system that cannot
    /// change during a build may read as [`FileSystem::read`] does.
    fn read_real(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.read(path)
    }
}

/// Why `read_real` refused a path: a symbolic link on it (see
/// [`FileSystem::read_real`]).
#[derive(Debug, thiserror::Error)]
#[error("a symbolic link appeared in the path after it was checked")]
struct SymlinkInPath;

/// Why `read_real` refused a path: not a regular file.
#[derive(Debug, thiserror::Error)]
#[error("not a regular file")]
struct NotRegular;

/// Whether `read_real` failed because of a symbolic link in the path.
pub(crate) fn is_symlink_in_path(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<SymlinkInPath>())
}

/// Whether `read_real` failed because the file is not a regular file.
pub(crate) fn is_not_regular(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<NotRegular>())
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

    #[cfg(unix)]
    fn read_real(&self, path: &Path) -> io::Result<Vec<u8>> {
        let file = std::fs::File::from(no_follow::open(path)?);
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::other(NotRegular));
        }
        read_sized(&file, meta.len())
    }
}

/// The bytes of `file`, a regular file `len` bytes long when it was looked at, in as few
/// system calls as the file allows: one `read` for a file that did not change size.
/// (`std::fs::read` and `read_to_end` on a `File` ask the size again, with `statx` and
/// `lseek`, and read once more to see the end: three calls per file, a third of a
/// build's system calls.) A file of length 0 (a `/proc` file says 0) is read to its end.
/// A file that changes size while it is read is read up to the length the first look
/// gave (or to its new end, if shorter): a file that changes during a build gives no
/// consistent answer whatever the order of reads.
#[cfg(unix)]
fn read_sized(mut file: &std::fs::File, len: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let Ok(len) = usize::try_from(len) else {
        return Err(io::Error::from(io::ErrorKind::OutOfMemory));
    };
    if len == 0 {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    let mut bytes = vec![0u8; len];
    let mut filled = 0;
    while filled < len {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// Opening a real path without following any symbolic link on it.
#[cfg(unix)]
mod no_follow {
    use super::SymlinkInPath;
    use rustix::fs::{CWD, Mode, OFlags};
    use rustix::io::Errno;
    use std::io;
    use std::os::fd::OwnedFd;
    use std::path::{Component, Path};

    /// How the file is opened: read only, never blocking (a FIFO swapped in
    /// after the check must not hang the build; `read_real` refuses it once
    /// open), never as a controlling terminal, and never through a final link.
    fn file_flags() -> OFlags {
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY
    }

    /// Opens `path` refusing every symbolic link on it: with `openat2`'s
    /// `RESOLVE_NO_SYMLINKS` where the kernel has it (Linux 5.6), else one
    /// `openat` per component with `O_NOFOLLOW`.
    pub(super) fn open(path: &Path) -> io::Result<OwnedFd> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use std::sync::atomic::{AtomicBool, Ordering};
            static NO_OPENAT2: AtomicBool = AtomicBool::new(false);
            if !NO_OPENAT2.load(Ordering::Relaxed) {
                match rustix::fs::openat2(
                    CWD,
                    path,
                    file_flags(),
                    Mode::empty(),
                    rustix::fs::ResolveFlags::NO_SYMLINKS,
                ) {
                    Ok(fd) => return Ok(fd),
                    // Not in this kernel, or refused by a seccomp filter.
                    Err(Errno::NOSYS | Errno::PERM) => NO_OPENAT2.store(true, Ordering::Relaxed),
                    Err(Errno::LOOP) => return Err(io::Error::other(SymlinkInPath)),
                    Err(e) => return Err(e.into()),
                }
            }
        }
        walk(path)
    }

    /// Directories on the way are opened only to look up the next name.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn dir_flags() -> OFlags {
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn dir_flags() -> OFlags {
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW
    }

    /// One `openat` per component from `/`, none following a link.
    fn walk(path: &Path) -> io::Result<OwnedFd> {
        let mut names = Vec::new();
        for c in path.components() {
            match c {
                Component::RootDir => {}
                Component::Normal(name) => names.push(name),
                // Real paths are absolute and clean.
                _ => return Err(io::Error::from(io::ErrorKind::InvalidInput)),
            }
        }
        let Some((last, dirs)) = names.split_last() else {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        };
        let refuse_link = |dir: &OwnedFd, name: &std::ffi::OsStr, e: Errno| {
            let link = rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|st| {
                    rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink
                });
            if link || e == Errno::LOOP {
                io::Error::other(SymlinkInPath)
            } else {
                e.into()
            }
        };
        let mut dir = rustix::fs::openat(CWD, "/", dir_flags(), Mode::empty())?;
        for name in dirs {
            dir = rustix::fs::openat(&dir, *name, dir_flags(), Mode::empty())
                .map_err(|e| refuse_link(&dir, name, e))?;
        }
        rustix::fs::openat(&dir, *last, file_flags(), Mode::empty())
            .map_err(|e| refuse_link(&dir, last, e))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn refuses_links_on_the_path_both_ways() {
            let tmp = tempfile::tempdir().unwrap();
            let top = std::fs::canonicalize(tmp.path()).unwrap();
            std::fs::create_dir(top.join("dir")).unwrap();
            std::fs::write(top.join("dir/file"), "in").unwrap();
            std::os::unix::fs::symlink(top.join("dir"), top.join("linked-dir")).unwrap();
            std::os::unix::fs::symlink(top.join("dir/file"), top.join("link")).unwrap();
            for open in [open, walk] {
                assert!(open(&top.join("dir/file")).is_ok());
                for bad in ["link", "linked-dir/file"] {
                    let e = open(&top.join(bad)).unwrap_err();
                    assert!(super::super::is_symlink_in_path(&e), "{bad}: {e}");
                }
                let e = open(&top.join("missing")).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::NotFound);
            }
        }
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
