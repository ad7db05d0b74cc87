//! Real paths and file types of the files a build reads, with each
//! directory resolved once per build.
//!
//! `std::fs::canonicalize` (realpath) calls `readlink` on every component of
//! a path, and the checks around a read (`exists`, `is_dir`, `metadata`) each
//! cost a `stat`: a small tree made ~1,450 of each for ~200 files. Here the
//! real path of `dir/name` is the real path of `dir` (remembered) joined with
//! `name`, unless `name` is a symbolic link; what `name` is (a directory, a
//! regular file, something else) comes from one `lstat`, or from the listing
//! of `dir` when `dir` holds a kustomization (one `read_dir` answers the
//! kustomization file names and the files the kustomization names next to
//! it). A real path has no symbolic link in it, so its `stat` is its `lstat`.
//!
//! Anything unusual (a symlink, a missing name, a name that differs from a
//! kustomization file name only in case, a path that is not absolute and
//! clean, an unreadable directory) goes to `std::fs::canonicalize` and
//! the checks kbuild made before, so results and error messages are the
//! same, including the load restrictor's: it is applied to the real path as
//! before.

use crate::error::{Error, Result};
use crate::kustomization::FILE_NAMES;
use crate::load::fs::{FileKind, FileSystem};
use crate::load::{self, LoadRestrictor};
use foldhash::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// What a resolved path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EntryType {
    Dir,
    /// A regular file.
    File,
    /// A FIFO, a device, a socket.
    Other,
    /// Its metadata could not be read: reading it reports why.
    Unknown,
}

impl EntryType {
    fn of(t: FileKind) -> EntryType {
        match t {
            FileKind::Dir => EntryType::Dir,
            FileKind::File => EntryType::File,
            FileKind::Symlink | FileKind::Other => EntryType::Other,
        }
    }
}

/// A kustomization file found in a directory.
#[derive(Clone, Debug)]
pub(crate) struct KustomizationFile {
    /// The file as named in its directory (what errors show).
    pub(crate) path: PathBuf,
    /// Its real path, which is read (the same path unless it is a symlink).
    pub(crate) real: PathBuf,
    /// What `real` is.
    pub(crate) kind: EntryType,
}

/// The names in a directory and their types (symlinks not followed).
type Listing = HashMap<OsString, FileKind>;

/// A directory's listing, once it has been read.
type ListingSlot = Arc<OnceLock<Option<Arc<Listing>>>>;

/// Real paths of the directories seen so far in one build, and the listings
/// of kustomization directories.
pub(crate) struct CanonicalCache {
    /// Where the files are.
    fs: Arc<dyn FileSystem>,
    /// Directory path as written (absolute, clean) -> its real path. Keyed by
    /// the path's bytes: paths here are clean, so equal bytes are equal paths,
    /// and hashing bytes is cheaper than hashing a `Path` (component by component).
    dirs: Mutex<HashMap<OsString, PathBuf>>,
    /// Real directory path -> its listing (`None` when it cannot be listed),
    /// filled once: threads asking for the same directory wait for one listing.
    listings: Mutex<HashMap<OsString, ListingSlot>>,
}

/// Whether `path` is absolute and lexically clean (no `.` or `..`), as
/// `load::join_clean` makes paths under an absolute directory.
fn is_clean_absolute(path: &Path) -> bool {
    if let Some(s) = path.to_str() {
        // The usual case, on text.
        return load::is_clean_absolute_text(s);
    }
    path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)))
}

impl CanonicalCache {
    /// An empty cache over `fs`.
    pub(crate) fn new(fs: Arc<dyn FileSystem>) -> CanonicalCache {
        CanonicalCache {
            fs,
            dirs: Mutex::default(),
            listings: Mutex::default(),
        }
    }

    /// The file system behind the cache.
    pub(crate) fn fs(&self) -> &dyn FileSystem {
        &*self.fs
    }

    /// Notes `root`, a real directory path (from `canonicalize`): it and each
    /// of its ancestors are their own real paths.
    pub(crate) fn seed(&self, root: &Path) {
        if let Ok(mut dirs) = self.dirs.lock() {
            for dir in root.ancestors() {
                dirs.insert(dir.as_os_str().to_owned(), dir.to_path_buf());
            }
        }
    }

    /// The real path of `path` and what it is: `load::canonical(path, what)`
    /// (same result, same errors) with the real path's type.
    pub(crate) fn resolve(&self, path: &Path, what: &str) -> Result<(PathBuf, EntryType)> {
        if let Some(found) = self.lookup(path) {
            return Ok(found);
        }
        let real = load::canonical_in(self.fs(), path, what)?;
        let kind = self
            .fs
            .kind(&real)
            .map(EntryType::of)
            .unwrap_or(EntryType::Unknown);
        if kind == EntryType::Dir {
            self.remember_dir(path, &real);
        }
        Ok((real, kind))
    }

    /// [`Self::resolve`] without falling back: `None` for anything unusual.
    fn lookup(&self, path: &Path) -> Option<(PathBuf, EntryType)> {
        if !is_clean_absolute(path) {
            return None;
        }
        if let Some(real) = self.cached_dir(path) {
            return Some((real, EntryType::Dir));
        }
        let name = path.file_name()?;
        let real_parent = self.real_dir(path.parent()?)?;
        let candidate = real_parent.join(name);
        let file_type = match self.listing_of(&real_parent) {
            // Not in the listing: missing, and the fallback says so.
            Some(listing) => *listing.get(name)?,
            None => self.fs.symlink_kind(&candidate).ok()?,
        };
        if file_type == FileKind::Symlink {
            return None;
        }
        let kind = EntryType::of(file_type);
        if kind == EntryType::Dir {
            self.remember_dir(path, &candidate);
        }
        Some((candidate, kind))
    }

    /// The real path of the directory `dir` (absolute and clean), resolving
    /// and remembering it on first use.
    fn real_dir(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(real) = self.cached_dir(dir) {
            return Some(real);
        }
        if let Some((real, kind)) = self.lookup(dir) {
            return (kind == EntryType::Dir).then_some(real);
        }
        // A symlink on the way: realpath resolves it, once per directory.
        let real = self.fs.canonicalize(dir).ok()?;
        if self.fs.kind(&real).ok()? != FileKind::Dir {
            return None;
        }
        self.remember_dir(dir, &real);
        Some(real)
    }

    fn cached_dir(&self, dir: &Path) -> Option<PathBuf> {
        self.dirs.lock().ok()?.get(dir.as_os_str()).cloned()
    }

    fn remember_dir(&self, dir: &Path, real: &Path) {
        if let Ok(mut dirs) = self.dirs.lock() {
            dirs.insert(dir.as_os_str().to_owned(), real.to_path_buf());
            dirs.insert(real.as_os_str().to_owned(), real.to_path_buf());
        }
    }

    /// The listing of a real directory, if it was listed.
    fn listing_of(&self, real_dir: &Path) -> Option<Arc<Listing>> {
        let slot = self
            .listings
            .lock()
            .ok()?
            .get(real_dir.as_os_str())
            .cloned()?;
        slot.get().cloned().flatten()
    }

    /// Lists the real directory `dir` (once): `None` when it cannot be read.
    fn list(&self, dir: &Path) -> Option<Arc<Listing>> {
        let slot = self
            .listings
            .lock()
            .ok()?
            .entry(dir.as_os_str().to_owned())
            .or_default()
            .clone();
        slot.get_or_init(|| {
            self.fs
                .read_dir(dir)
                .ok()
                .map(|entries| Arc::new(entries.into_iter().collect::<Listing>()))
        })
        .clone()
    }

    /// The kustomization file in `dir` (a real directory path), as
    /// `load::find_kustomization_file` finds it, and what it is.
    ///
    /// A kustomization file that is a symbolic link counts only when its
    /// target is one the load restrictor lets this kustomization read, as in
    /// kustomize (which loads the file names through its restrictor and
    /// reports no kustomization file otherwise): a link out of the
    /// directory is never read, so nothing of the outside file (not even a
    /// first line in a parse error) reaches the output or an error message.
    pub(crate) fn kustomization_file(
        &self,
        dir: &Path,
        restrictor: LoadRestrictor,
    ) -> Result<KustomizationFile> {
        // A name that differs from an accepted one only in case may be the same
        // file on a case-insensitive file system: probing answers then.
        let unsure = |listing: &Listing| {
            listing.keys().any(|n| {
                FILE_NAMES
                    .iter()
                    .any(|f| n.eq_ignore_ascii_case(f) && n.as_os_str() != *f)
            })
        };
        let listing = self.list(dir).filter(|l| !unsure(l));
        let mut found = Vec::new();
        let mut refused = None;
        for name in FILE_NAMES {
            let path = dir.join(name);
            let kind = match &listing {
                Some(listing) => listing.get(OsStr::new(name)).copied(),
                None => self.fs.symlink_kind(&path).ok(),
            };
            match kind {
                Some(FileKind::File) => found.push(KustomizationFile {
                    real: path.clone(),
                    path,
                    kind: if listing.is_some() {
                        EntryType::File
                    } else {
                        EntryType::Unknown
                    },
                }),
                // `is_file` follows symlinks: a link to a file counts, if the
                // restrictor allows its target.
                Some(FileKind::Symlink) => {
                    let Ok(real) = self.fs.canonicalize(&path) else {
                        continue;
                    };
                    if self.fs.kind(&real).ok() != Some(FileKind::File) {
                        continue;
                    }
                    match load::check_restrictor(dir, &real, name, restrictor) {
                        Ok(()) => found.push(KustomizationFile {
                            path,
                            real,
                            kind: EntryType::File,
                        }),
                        Err(e) => {
                            refused.get_or_insert(e);
                        }
                    }
                }
                _ => {}
            }
        }
        if let (true, Some(refused)) = (found.is_empty(), refused) {
            return Err(refused);
        }
        let one =
            load::one_kustomization_file(dir, found.iter().map(|f| f.path.clone()).collect())?;
        Ok(found
            .into_iter()
            .find(|f| f.path == one)
            .unwrap_or(KustomizationFile {
                real: one.clone(),
                path: one,
                kind: EntryType::Unknown,
            }))
    }

    /// `load::read_restricted`: reads `rel` (relative to the kustomization
    /// directory `root`) under the load restrictor, with the same checks and
    /// errors in the same order.
    #[cfg(test)]
    pub(crate) fn read_restricted(
        &self,
        root: &Path,
        rel: &str,
        restrictor: LoadRestrictor,
        what: &str,
    ) -> Result<(PathBuf, Vec<u8>)> {
        let (real, kind) = self.resolve_restricted(root, rel, restrictor, what)?;
        let bytes = self.read(&real, kind)?;
        Ok((real, bytes))
    }

    /// `load::read_file` for a resolved path: a regular file is read without
    /// asking its type again; anything else gets `read_file`'s checks and errors.
    ///
    /// `real` has no symbolic link in it, and the read refuses to follow one
    /// (see `FileSystem::read_real`): what was checked is what is read, even
    /// when a component is swapped for a link to an outside file in between.
    pub(crate) fn read(&self, real: &Path, kind: EntryType) -> Result<Vec<u8>> {
        if kind != EntryType::File {
            load::check_regular_file(self.fs(), real)?;
        }
        load::read_real_in(self.fs(), real)
    }

    /// The checks of [`Self::read_restricted`] without the read: the real
    /// path of `rel` and what it is, when this kustomization may read it.
    pub(crate) fn resolve_restricted(
        &self,
        root: &Path,
        rel: &str,
        restrictor: LoadRestrictor,
        what: &str,
    ) -> Result<(PathBuf, EntryType)> {
        let joined = load::join_clean(root, rel);
        let (real, kind) = self.resolve(&joined, what)?;
        load::check_restrictor(root, &real, rel, restrictor)?;
        if kind == EntryType::Dir {
            return Err(Error::msg(format!(
                "{what} '{rel}' is a directory, expected a file"
            )));
        }
        Ok((real, kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `resolve` and `canonicalize` plus `metadata` agree, first use and cached.
    fn agrees(cache: &CanonicalCache, path: &Path) {
        let want = load::canonical(path, "resource").map(|real| {
            let kind = crate::load::fs::RealFs
                .kind(&real)
                .map(EntryType::of)
                .unwrap_or(EntryType::Unknown);
            (real, kind)
        });
        for round in ["first", "cached"] {
            let got = cache.resolve(path, "resource");
            match (&got, &want) {
                (Ok(g), Ok(w)) => assert_eq!(g, w, "{} ({round})", path.display()),
                (Err(g), Err(w)) => {
                    assert_eq!(g.to_string(), w.to_string(), "{}", path.display())
                }
                _ => panic!("{} ({round}): {got:?} vs {want:?}", path.display()),
            }
        }
    }

    #[test]
    #[cfg(unix)]
    fn agrees_with_canonicalize_through_symlinks_listed_or_not() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join("real/sub")).unwrap();
        std::fs::write(root.join("real/a.yaml"), "x: 1\n").unwrap();
        std::fs::write(root.join("real/sub/c.yaml"), "x: 1\n").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("real/a.yaml"), root.join("real/b.yaml")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("real/rel-link")).unwrap();
        std::os::unix::fs::symlink("missing", root.join("real/dangling")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("real/loop")).unwrap();
        let paths = [
            "real",
            "real/a.yaml",
            "real/b.yaml",
            "real/sub",
            "real/sub/c.yaml",
            "real/rel-link",
            "real/rel-link/c.yaml",
            "real/dangling",
            "real/loop",
            "real/loop/x",
            "real/missing.yaml",
            "real/missing/x.yaml",
            "real/a.yaml/x",
            "link",
            "link/a.yaml",
            "link/b.yaml",
            "link/sub/c.yaml",
            "link/missing.yaml",
        ];
        // Without listings (lstat per name), then with `real` listed.
        for listed in [false, true] {
            let cache = CanonicalCache::new(crate::load::fs::real());
            cache.seed(&root);
            if listed {
                assert!(cache.list(&root.join("real")).is_some());
            }
            for p in paths {
                agrees(&cache, &root.join(p));
            }
            agrees(&cache, Path::new("/"));
            agrees(&cache, &root.join("real/../real/a.yaml"));
        }
    }

    #[test]
    #[cfg(unix)]
    fn kustomization_file_as_find_kustomization_file() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let cases: [(&str, &[&str]); 6] = [
            ("one", &["kustomization.yaml"]),
            ("upper-case", &["KUSTOMIZATION.YAML"]),
            ("other-name", &["Kustomization"]),
            ("none", &[]),
            ("two", &["kustomization.yaml", "kustomization.yml"]),
            ("a-dir", &[]),
        ];
        for (dir, files) in cases {
            let d = root.join(dir);
            std::fs::create_dir(&d).unwrap();
            for f in files {
                std::fs::write(d.join(f), "resources: []\n").unwrap();
            }
        }
        std::fs::create_dir(root.join("a-dir/kustomization.yaml")).unwrap();
        std::fs::create_dir(root.join("linked")).unwrap();
        std::os::unix::fs::symlink(
            root.join("one/kustomization.yaml"),
            root.join("linked/kustomization.yml"),
        )
        .unwrap();
        let cache = CanonicalCache::new(crate::load::fs::real());
        for dir in [
            "one",
            "upper-case",
            "other-name",
            "none",
            "two",
            "a-dir",
            "linked",
        ] {
            let d = root.join(dir);
            let got = cache
                .kustomization_file(&d, LoadRestrictor::None)
                .map(|f| f.path);
            let want = load::find_kustomization_file(&d);
            assert_eq!(
                got.map_err(|e| e.to_string()),
                want.map_err(|e| e.to_string()),
                "{dir}"
            );
        }
        let found = cache
            .kustomization_file(&root.join("one"), LoadRestrictor::RootOnly)
            .unwrap();
        assert_eq!(
            (found.path.file_name().unwrap(), found.kind),
            ("kustomization.yaml".as_ref(), EntryType::File)
        );
        // A link out of the directory is refused under the restrictor, as in
        // kustomize; another kustomization file there would be used instead.
        let refused = cache
            .kustomization_file(&root.join("linked"), LoadRestrictor::RootOnly)
            .unwrap_err();
        assert_eq!(refused.kind(), crate::error::ErrorKind::Restricted);
        std::fs::write(root.join("linked/kustomization.yaml"), "resources: []\n").unwrap();
        let cache = CanonicalCache::new(crate::load::fs::real());
        let found = cache
            .kustomization_file(&root.join("linked"), LoadRestrictor::RootOnly)
            .unwrap();
        assert_eq!(found.path, root.join("linked/kustomization.yaml"));
    }

    /// The checks a restricted read makes, one after another, without a cache.
    fn reference_read(
        root: &Path,
        rel: &str,
        restrictor: LoadRestrictor,
        what: &str,
    ) -> Result<(PathBuf, Vec<u8>)> {
        let real = load::canonical(&load::join_clean(root, rel), what)?;
        load::check_restrictor(root, &real, rel, restrictor)?;
        if real.is_dir() {
            return Err(Error::msg(format!(
                "{what} '{rel}' is a directory, expected a file"
            )));
        }
        let bytes = load::read_file(&real)?;
        Ok((real, bytes))
    }

    #[test]
    #[cfg(unix)]
    fn read_restricted_as_load() {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        let root = top.join("root");
        std::fs::create_dir_all(root.join("dir")).unwrap();
        std::fs::write(root.join("in.yaml"), "a: 1\n").unwrap();
        std::fs::write(top.join("out.yaml"), "b: 1\n").unwrap();
        std::os::unix::fs::symlink(top.join("out.yaml"), root.join("link.yaml")).unwrap();
        let out = top.join("out.yaml").display().to_string();
        let cache = CanonicalCache::new(crate::load::fs::real());
        cache.seed(&root);
        assert!(cache.list(&root).is_some());
        for rel in [
            "in.yaml",
            "dir",
            "link.yaml",
            "../out.yaml",
            out.as_str(),
            "missing",
            "",
            "/dev/null",
        ] {
            for restrictor in [LoadRestrictor::RootOnly, LoadRestrictor::None] {
                let got = cache.read_restricted(&root, rel, restrictor, "patch file");
                let want = reference_read(&root, rel, restrictor, "patch file");
                assert_eq!(
                    got.map_err(|e| e.to_string()),
                    want.map_err(|e| e.to_string()),
                    "{rel:?} {restrictor:?}"
                );
            }
        }
    }
}
