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

use crate::error::{Error, RemoteError, RemoteProblem, Result};
use crate::kustomization::{FILE_NAMES, Kustomization};
use crate::remote::{RepoSpec, Session};
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
///
/// The file is found and read as a build reads it under `LoadRestrictionsRootOnly`: a
/// kustomization file that links out of `dir` is refused and never read, so no tool
/// (`deps`, `render`'s discovery) shows any of it.
pub fn read_kustomization(dir: &Path) -> Result<(PathBuf, Kustomization)> {
    let files = Files::new(Arc::new(RealFs), LoadRestrictor::RootOnly);
    let found = files.root(dir)?.kustomization_file()?;
    let bytes = files.paths.read(&found.real, found.kind)?;
    // Named as the caller named the directory, not by its real path.
    let name = found.path.file_name().unwrap_or_default();
    crate::kustomization::decode::decode(dir.join(name), bytes)
}

/// Reads and decodes the kustomization file `file`.
pub(crate) fn read_kustomization_file(
    files: &Files,
    file: &KustomizationFile,
) -> Result<Kustomization> {
    let bytes = files.paths.read(&file.real, file.kind)?;
    crate::kustomization::decode::decode(file.path.clone(), bytes).map(|(_, k)| k)
}

/// The error for a remote entry that could not be fetched.
pub(crate) fn remote_error(entry: &str, url: &str, problem: RemoteProblem) -> Error {
    Error::Remote(Box::new(RemoteError {
        entry: crate::remote::git::redact(entry),
        url: crate::remote::git::redact(url),
        problem,
    }))
}

/// `repo_error`, for an entry fetched as a file first and then as a git repository,
/// with what the file fetch said (kustomize reports both too).
pub(crate) fn tried_as_file(repo_error: Error, file_error: &Error) -> Error {
    repo_error.context(format!("tried first as a file: {}", file_error.root()))
}

/// The file access of one build: the file system, the load restrictor, the
/// real paths resolved so far (see canonical.rs), and the remote fetches.
pub struct Files {
    paths: CanonicalCache,
    restrictor: LoadRestrictor,
    remote: Arc<Session>,
}

impl Files {
    /// Reads `fs` under `restrictor`; remote entries with the default options.
    pub fn new(fs: Arc<dyn FileSystem>, restrictor: LoadRestrictor) -> Files {
        Files::with_remote(fs, restrictor, Arc::new(Session::new(Default::default())))
    }

    /// Reads `fs` under `restrictor`, remote entries through `remote`.
    pub fn with_remote(
        fs: Arc<dyn FileSystem>,
        restrictor: LoadRestrictor,
        remote: Arc<Session>,
    ) -> Files {
        Files {
            paths: CanonicalCache::new(fs),
            restrictor,
            remote,
        }
    }

    /// The build's remote fetches.
    pub fn remote(&self) -> &Session {
        &self.remote
    }

    /// The loader of the kustomization directory `dir` (the top of a build):
    /// its real path, which must be a directory.
    pub fn root(&self, dir: &Path) -> Result<Loader<'_>> {
        // A git URL is a root too (`kustomize build https://github.com/org/repo//dir?ref=v1`):
        // kustomize's loader tries the repo-spec parse before the file system, so the same
        // entry means the same thing here as under `resources:`.
        if let Some(entry) = dir.to_str()
            && RepoSpec::parse(entry).is_ok()
        {
            let outside = Loader {
                files: self,
                root: PathBuf::new(),
            };
            if let Some(real) = outside.remote_base(entry)? {
                return Ok(Loader {
                    files: self,
                    root: real,
                });
            }
        }
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

    /// The load restrictor of this kustomization: the build's, except in a git checkout,
    /// where it is always RootOnly (as in kustomize: a remote kustomization may not read
    /// the files of the machine that builds it).
    pub(crate) fn restrictor(&self) -> LoadRestrictor {
        if self.checkout().is_some() {
            LoadRestrictor::RootOnly
        } else {
            self.files.restrictor
        }
    }

    /// The git checkout this kustomization is in, if it is remote.
    pub(crate) fn checkout(&self) -> Option<PathBuf> {
        self.files.remote.clone_containing(&self.root)
    }

    /// Refuses `real`, which `entry` resolved to, when the restrictor keeps it out.
    pub(crate) fn check(&self, real: &Path, entry: &str) -> Result<()> {
        check_restrictor(&self.root, real, entry, self.restrictor())
    }

    /// Refuses a base or component directory `real` outside the git checkout this
    /// kustomization is in (kustomize's containment rule for cloned repositories).
    pub(crate) fn check_base(&self, real: &Path, entry: &str) -> Result<()> {
        match self.checkout() {
            Some(repo) if !real.starts_with(&repo) => Err(Error::msg(format!(
                "security: bases in kustomizations found in cloned git repos must be within the repo, but base '{entry}' ({}) is outside '{}'",
                real.display(),
                repo.display()
            ))),
            _ => Ok(()),
        }
    }

    /// The directory of the base or component `entry` names when it is a git repository
    /// (kustomize's repo spec), checked out; `None` when it is a local path.
    pub(crate) fn remote_base(&self, entry: &str) -> Result<Option<PathBuf>> {
        let Ok(spec) = RepoSpec::parse(entry) else {
            return Ok(None);
        };
        let checkout = self.files.remote.checkout(&spec)?;
        let problem = |p| remote_error(entry, &spec.clone_url(), p);
        let joined = join_clean(&checkout.dir, &spec.kust_root);
        let real = std::fs::canonicalize(&joined).map_err(|e| {
            problem(RemoteProblem::NotADirectory(format!(
                "'{}' in the repository (commit {}): {e}",
                spec.kust_root, checkout.commit
            )))
        })?;
        // A symlink in the repository may point out of it: only known after the checkout.
        if !real.starts_with(&checkout.dir) {
            return Err(problem(RemoteProblem::OutsideRepo(format!(
                "'{}' refers to '{}', outside the repository",
                spec.kust_root,
                real.display()
            ))));
        }
        if !real.is_dir() {
            return Err(problem(RemoteProblem::NotADirectory(format!(
                "'{}' in the repository is a file; expecting a directory holding a kustomization",
                spec.kust_root
            ))));
        }
        self.files.paths.seed(&real);
        Ok(Some(real))
    }

    /// The body of the file at the http(s) URL `entry`.
    pub(crate) fn fetch(&self, entry: &str) -> Result<Arc<Vec<u8>>> {
        self.files
            .remote
            .get_file(entry)
            .map_err(|p| remote_error(entry, entry, p))
    }

    /// The real path of the file `entry` names and what it is, when this
    /// kustomization may read it (`what` names it in errors).
    pub(crate) fn resolve_file(&self, entry: &str, what: &str) -> Result<(PathBuf, EntryType)> {
        self.files
            .paths
            .resolve_restricted(&self.root, entry, self.restrictor(), what)
    }

    /// Reads the file `entry` names, under the restrictor; an http(s) URL is fetched (as
    /// kustomize does for every file a kustomization names).
    pub fn read(&self, entry: &str, what: &str) -> Result<(PathBuf, Vec<u8>)> {
        if is_remote_file(entry) {
            // Named without its credentials: the name reaches error messages.
            let name = PathBuf::from(crate::remote::git::redact(entry));
            return Ok((name, self.fetch(entry)?.to_vec()));
        }
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
