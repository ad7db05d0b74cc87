//! Finding and reading files: kustomization files, resources, and the load
//! restrictor that keeps a kustomization's file reads inside its own root.
//!
//! A build reads through one [`Files`] value (the file system, the restrictor
//! and the cache of resolved paths) and hands each kustomization a [`Loader`]:
//! that kustomization's root plus the build's files. `Loader::child` gives a
//! base or component its own loader; `Loader::read` reads a file an entry
//! names, under the restrictor. The free functions read the real file system
//! the same way, for tools that look at one file or kustomization at a time.

pub mod canonical;
pub mod fs;
mod path;

pub use fs::{FileKind, FileSystem, MemFs, RealFs};
pub use path::{is_clean_absolute_text, is_remote, is_remote_file, join_clean};

use crate::error::{Error, Result};
use crate::kustomization::{FILE_NAMES, Kustomization};
use canonical::{CanonicalCache, EntryType, KustomizationFile};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// kustomize's `--load-restrictor`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadRestrictor {
    /// Files must be in or below the kustomization's directory (the default).
    #[default]
    RootOnly,
    /// Any file may be read.
    None,
}

/// The kustomization file in `dir`: exactly one of the accepted names.
pub fn find_kustomization_file(dir: &Path) -> Result<PathBuf> {
    find_kustomization_file_in(&RealFs, dir)
}

/// [`find_kustomization_file`] on `fs`.
pub(crate) fn find_kustomization_file_in(fs: &dyn FileSystem, dir: &Path) -> Result<PathBuf> {
    let found: Vec<PathBuf> = FILE_NAMES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| fs.kind(p).ok() == Some(FileKind::File))
        .collect();
    one_kustomization_file(dir, found)
}

/// The kustomization file among `found`, the files in `dir` with an accepted
/// name (in `FILE_NAMES` order): an error unless there is exactly one.
pub fn one_kustomization_file(dir: &Path, found: Vec<PathBuf>) -> Result<PathBuf> {
    match found.len() {
        1 => Ok(found.into_iter().next().unwrap_or_default()),
        0 => Err(Error::msg(format!(
            "no kustomization file in directory '{}': expected one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization'",
            dir.display()
        ))),
        _ => Err(Error::msg(format!(
            "found multiple kustomization files in '{}': {}; keep only one",
            dir.display(),
            found
                .iter()
                .filter_map(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Resolves symlinks; the error names the path the user wrote.
pub fn canonical(path: &Path, what: &str) -> Result<PathBuf> {
    canonical_in(&RealFs, path, what)
}

/// [`canonical`] on `fs`.
pub(crate) fn canonical_in(fs: &dyn FileSystem, path: &Path, what: &str) -> Result<PathBuf> {
    fs.canonicalize(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::NotFound {
                what: what.to_string(),
                path: path.to_path_buf(),
            }
        } else {
            Error::msg(format!("{what} '{}': {e}", path.display()))
        }
    })
}

/// Refuses `real` (a resolved path) when it is outside `root` under RootOnly.
pub fn check_restrictor(
    root: &Path,
    real: &Path,
    rel: &str,
    restrictor: LoadRestrictor,
) -> Result<()> {
    if restrictor == LoadRestrictor::RootOnly && !real.starts_with(root) {
        return Err(Error::Restricted(Box::new(crate::error::Restricted {
            entry: rel.to_string(),
            real: real.to_path_buf(),
            root: root.to_path_buf(),
        })));
    }
    Ok(())
}

/// Reads a regular file; FIFOs and devices are refused instead of blocking.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    read_file_in(&RealFs, path)
}

/// [`read_file`] on `fs`.
pub(crate) fn read_file_in(fs: &dyn FileSystem, path: &Path) -> Result<Vec<u8>> {
    check_regular_file(fs, path)?;
    fs.read(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// Refuses `path` unless it is a regular file (symlinks followed).
pub(crate) fn check_regular_file(fs: &dyn FileSystem, path: &Path) -> Result<()> {
    let kind = fs.kind(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    if kind != FileKind::File {
        return Err(not_regular(path));
    }
    Ok(())
}

fn not_regular(path: &Path) -> Error {
    Error::msg(format!("'{}' is not a regular file", path.display()))
}

/// Reads the real path `real` (checked) without following a symbolic link
/// (see [`FileSystem::read_real`]).
pub(crate) fn read_real_in(fs: &dyn FileSystem, real: &Path) -> Result<Vec<u8>> {
    fs.read_real(real).map_err(|e| {
        if fs::is_not_regular(&e) {
            not_regular(real)
        } else if fs::is_symlink_in_path(&e) {
            Error::msg(format!(
                "security: '{}' changed into a symbolic link (or a directory on its path did) after the load restrictor checked it; it was not read. Is something rewriting the tree during the build?",
                real.display()
            ))
        } else {
            Error::Io {
                path: real.to_path_buf(),
                source: e,
            }
        }
    })
}

/// Reads and decodes the kustomization file in `dir`.
pub fn read_kustomization(dir: &Path) -> Result<(PathBuf, Kustomization)> {
    let file = find_kustomization_file(dir)?;
    let bytes = read_file(&file)?;
    crate::kustomization::decode::decode(file, bytes)
}

/// Reads and decodes the kustomization file `file`.
pub(crate) fn read_kustomization_file(
    files: &Files,
    file: &KustomizationFile,
) -> Result<Kustomization> {
    let bytes = files.paths.read(&file.real, file.kind)?;
    crate::kustomization::decode::decode(file.path.clone(), bytes).map(|(_, k)| k)
}

/// The error for a file entry that is an http(s) URL: kustomize would download it (for any
/// file a kustomization names: generator files and env files, patches, replacements,
/// configurations, crds, openapi schemas); kbuild reads local files only, for now.
pub(crate) fn remote_file(entry: &str, what: &str) -> Error {
    Error::Unsupported {
        what: format!(
            "{what} '{entry}' is a remote file: kbuild does not fetch remote files (yet)"
        ),
        hint: Some("download it and name the local copy instead".into()),
    }
}

/// The file access of one build: the file system, the load restrictor, and the
/// real paths resolved so far (see canonical.rs).
pub struct Files {
    paths: CanonicalCache,
    restrictor: LoadRestrictor,
}

impl Files {
    /// Reads `fs` under `restrictor`.
    pub fn new(fs: Arc<dyn FileSystem>, restrictor: LoadRestrictor) -> Files {
        Files {
            paths: CanonicalCache::new(fs),
            restrictor,
        }
    }

    /// The loader of the kustomization directory `dir` (the top of a build):
    /// its real path, which must be a directory.
    pub fn root(&self, dir: &Path) -> Result<Loader<'_>> {
        let root = canonical_in(self.paths.fs(), dir, "kustomization directory")?;
        if self.paths.fs().kind(&root).ok() != Some(FileKind::Dir) {
            return Err(Error::msg(format!(
                "'{}' is not a directory; kbuild builds a directory holding a kustomization file",
                dir.display()
            )));
        }
        self.paths.seed(&root);
        Ok(Loader { files: self, root })
    }

    /// The loader of `root`, a real directory path already checked.
    pub(crate) fn at(&self, root: PathBuf) -> Loader<'_> {
        Loader { files: self, root }
    }

    /// The load restrictor.
    pub(crate) fn restrictor(&self) -> LoadRestrictor {
        self.restrictor
    }

    /// The resolved-path cache.
    pub(crate) fn paths(&self) -> &CanonicalCache {
        &self.paths
    }

    /// The file system.
    pub fn fs(&self) -> &dyn FileSystem {
        self.paths.fs()
    }
}

/// One kustomization's view of the build's files: its root directory (a real
/// path) and the load restrictor that keeps its reads below that root.
#[derive(Clone)]
pub struct Loader<'f> {
    files: &'f Files,
    root: PathBuf,
}

impl<'f> Loader<'f> {
    /// The kustomization's directory (a real path).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The build's files.
    pub fn files(&self) -> &'f Files {
        self.files
    }

    /// The kustomization file in the root (one the restrictor lets it read).
    pub(crate) fn kustomization_file(&self) -> Result<KustomizationFile> {
        self.files
            .paths
            .kustomization_file(&self.root, self.files.restrictor)
    }

    /// The real path of `entry` and what it is, without the restrictor
    /// (bases and components may be anywhere; files are checked by the caller).
    pub(crate) fn resolve(&self, entry: &str, what: &str) -> Result<(PathBuf, EntryType)> {
        self.files
            .paths
            .resolve(&join_clean(&self.root, entry), what)
    }

    /// The loader of the directory `entry` names (a base or component).
    pub fn child(&self, real_dir: PathBuf) -> Loader<'f> {
        Loader {
            files: self.files,
            root: real_dir,
        }
    }

    /// Refuses `real`, which `entry` resolved to, when the restrictor keeps it out.
    pub(crate) fn check(&self, real: &Path, entry: &str) -> Result<()> {
        check_restrictor(&self.root, real, entry, self.files.restrictor)
    }

    /// The real path of the file `entry` names and what it is, when this
    /// kustomization may read it (`what` names it in errors).
    pub(crate) fn resolve_file(&self, entry: &str, what: &str) -> Result<(PathBuf, EntryType)> {
        if is_remote_file(entry) {
            return Err(remote_file(entry, what));
        }
        self.files
            .paths
            .resolve_restricted(&self.root, entry, self.files.restrictor, what)
    }

    /// Reads the file `entry` names, under the restrictor.
    pub fn read(&self, entry: &str, what: &str) -> Result<(PathBuf, Vec<u8>)> {
        let (real, kind) = self.resolve_file(entry, what)?;
        let bytes = self.read_resolved(&real, kind)?;
        Ok((real, bytes))
    }

    /// Reads a file already resolved (and checked).
    pub(crate) fn read_resolved(&self, real: &Path, kind: EntryType) -> Result<Vec<u8>> {
        self.files.paths.read(real, kind)
    }

    /// What the path `entry` names is, if it exists (symlinks followed).
    pub(crate) fn kind_of(&self, entry: &str) -> Option<FileKind> {
        self.files.fs().kind(&join_clean(&self.root, entry)).ok()
    }
}
