//! The clone cache (kbuild's, beyond kustomize, which clones every remote base afresh
//! into a temporary directory): checkouts kept by repository and commit, shared by
//! builds and by checkouts of the same repository.
//!
//! ```text
//! <cache dir>/                 --remote-cache-dir, default $XDG_CACHE_HOME/kbuild/git
//!   cache.lock                 builds hold it shared, `kbuild cache clean` exclusive
//!   salt                       random bytes, hashed with a URL that holds credentials
//!   locks/<name>-<hash>        held exclusive while the repository is fetched
//!   repos/<name>-<hash>/       one repository (its clone URL, hashed), made with its first
//!                              checkout: a failed fetch leaves only the lock file
//!     url                      the clone URL (credentials redacted), for `cache list`
//!     refs.json                ref -> commit, and whether the ref is a tag
//!     <commit>/                a complete checkout (".nosub" suffix: without submodules)
//!     .tmp-*/                  a checkout being made; renamed into place when complete
//! ```
//!
//! Every directory is made 0700: a checkout of a private repository is readable by its
//! owner alone. A clone URL with credentials (`https://user:token@host/…`) gets its own
//! directory (a build without them must not find what a build with them fetched), named
//! after the URL without them, and hashed with the cache's salt, so that the name (which
//! `cache list` prints) cannot be checked against guessed passwords.
//!
//! A checkout is made in a temporary directory and renamed to its commit only when every
//! git command succeeded, so a killed build never leaves a half checkout under a name a
//! later build trusts; the repository's lock keeps two builds from fetching it at once
//! (the second then finds the first one's checkout).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The default cache: `$XDG_CACHE_HOME/kbuild/git`, else `$HOME/.cache/kbuild/git`.
pub fn default_dir() -> Option<PathBuf> {
    crate::cache_dir::user_cache_dir("git")
}

/// What the cache knows of a ref.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct KnownRef {
    /// The commit it named when last resolved.
    pub(crate) commit: String,
    /// A tag: taken as naming that commit forever.
    pub(crate) tag: bool,
}

/// One repository's directory in the cache.
pub(crate) struct RepoDir {
    dir: PathBuf,
    /// Its lock file (outside it, so that the directory exists only with a checkout).
    lock: PathBuf,
    /// The clone URL, credentials redacted.
    url: String,
    /// Where its temporary files and checkouts are registered while they exist.
    cleanup: crate::output::Cleanup,
}

impl RepoDir {
    /// The directory of the repository cloned from `url` under `root` (made with its
    /// first checkout).
    pub(crate) fn open(
        root: &Path,
        url: &str,
        cleanup: &crate::output::Cleanup,
    ) -> std::io::Result<RepoDir> {
        use sha2::{Digest, Sha256};
        let (plain, credentials) = super::userinfo::split(url);
        let mut hasher = Sha256::new();
        if credentials.is_some() {
            hasher.update(salt(root, cleanup)?);
        }
        hasher.update(url.as_bytes());
        let hash: String = hasher
            .finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        let name: String = plain
            .rsplit(['/', ':'])
            .find(|s| !s.is_empty())
            .unwrap_or("repo")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        let locks = root.join("locks");
        create_private_dir(&locks)?;
        let repos = root.join("repos");
        create_private_dir(&repos)?;
        Ok(RepoDir {
            dir: repos.join(format!("{name}-{hash}")),
            lock: locks.join(format!("{name}-{hash}")),
            url: super::git::redact(url),
            cleanup: cleanup.clone(),
        })
    }

    /// A directory that exists, for git commands that need one (`ls-remote`).
    pub(crate) fn existing_dir(&self) -> &Path {
        self.lock.parent().unwrap_or(&self.lock)
    }

    /// Locks the repository against other builds until the returned file is dropped,
    /// and removes checkouts left half made by killed builds (no one else can be making
    /// one now).
    pub(crate) fn lock(&self) -> std::io::Result<File> {
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.lock)?;
        lock.lock()?;
        // Checkouts (and the small files written beside them) of killed builds: the
        // repository's writers hold this lock, so none of them is being made now.
        for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            if !entry.file_name().to_string_lossy().starts_with(".tmp-") {
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = std::fs::remove_dir_all(entry.path());
            } else {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(lock)
    }

    /// The checkout of `commit`, if the cache has it. `commit` becomes a path component:
    /// anything but a full commit id (which git's output and `refs.json` should hold, but
    /// a server or a damaged cache could say otherwise, `../..`) is never in the cache.
    pub(crate) fn checkout(&self, commit: &str, submodules: bool) -> Option<PathBuf> {
        if !super::git::is_full_commit(commit) {
            return None;
        }
        let dir = self.dir.join(checkout_name(commit, submodules));
        dir.is_dir().then_some(dir)
    }

    /// A new temporary directory for a checkout (the repository's directory made, with
    /// its URL noted for `cache list`).
    pub(crate) fn temp(
        &self,
    ) -> std::io::Result<crate::output::temp::Registered<tempfile::TempDir>> {
        create_private_dir(&self.dir)?;
        let url_file = self.dir.join("url");
        if !url_file.exists() {
            write_atomic(&self.dir, &url_file, self.url.as_bytes(), &self.cleanup)?;
        }
        // Removed when dropped, and by the signal handler if kbuild is interrupted
        // during the clone.
        crate::output::temp::Registered::dir(
            &self.cleanup,
            tempfile::Builder::new().prefix(".tmp-"),
            Some(&self.dir),
        )
    }

    /// Moves a complete checkout into place as `commit`'s and returns its path.
    pub(crate) fn keep(
        &self,
        temp: crate::output::temp::Registered<tempfile::TempDir>,
        commit: &str,
        submodules: bool,
    ) -> std::io::Result<PathBuf> {
        if !super::git::is_full_commit(commit) {
            return Err(std::io::Error::other(format!(
                "git named the commit '{}', which is not a commit id",
                commit.escape_debug()
            )));
        }
        let target = self.dir.join(checkout_name(commit, submodules));
        if target.is_dir() {
            // Made by an earlier build for another ref naming the same commit.
            return Ok(target);
        }
        temp.rename_to(&target)?;
        Ok(target)
    }

    /// The refs resolved so far.
    pub(crate) fn refs(&self) -> BTreeMap<String, KnownRef> {
        std::fs::read(self.dir.join("refs.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Notes that `git_ref` names `known` (the lock is held).
    pub(crate) fn note_ref(&self, git_ref: &str, known: KnownRef) -> std::io::Result<()> {
        let mut refs = self.refs();
        if refs.get(git_ref) == Some(&known) {
            return Ok(());
        }
        refs.insert(git_ref.to_string(), known);
        let json = serde_json::to_vec_pretty(&refs).map_err(std::io::Error::other)?;
        write_atomic(&self.dir, &self.dir.join("refs.json"), &json, &self.cleanup)
    }
}

fn checkout_name(commit: &str, submodules: bool) -> String {
    if submodules {
        commit.to_string()
    } else {
        format!("{commit}.nosub")
    }
}

fn write_atomic(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    cleanup: &crate::output::Cleanup,
) -> std::io::Result<()> {
    write_temp(dir, bytes, cleanup)?
        .persist(path)
        .map_err(|e| e.error)?;
    Ok(())
}

/// A temporary file in `dir` holding `bytes` (0600), known to the signal handler from
/// its creation until it is dropped or persisted (then removed from the register
/// by [`Unregistered`]'s drop): a signal while the cache writes a small file leaves no
/// `.tmp-*` file behind.
fn write_temp(
    dir: &Path,
    bytes: &[u8],
    cleanup: &crate::output::Cleanup,
) -> std::io::Result<Unregistered> {
    use std::io::Write;
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").make_in(dir, |p| {
        let mut options = File::options();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        cleanup.create(p, |p| options.open(p))
    })?;
    let path = tmp.path().to_path_buf();
    let written = tmp.as_file_mut().write_all(bytes);
    let guard = Unregistered {
        file: Some(tmp),
        path,
        cleanup: cleanup.clone(),
    };
    written?;
    Ok(guard)
}

/// A registered temporary file, unregistered once it is gone (removed or renamed).
struct Unregistered {
    file: Option<tempfile::NamedTempFile>,
    path: PathBuf,
    cleanup: crate::output::Cleanup,
}

impl Unregistered {
    fn persist(mut self, to: &Path) -> Result<(), tempfile::PersistError> {
        match self.file.take() {
            Some(f) => f.persist(to).map(drop),
            None => Ok(()),
        }
    }

    fn persist_noclobber(mut self, to: &Path) -> Result<(), tempfile::PersistError> {
        match self.file.take() {
            Some(f) => f.persist_noclobber(to).map(drop),
            None => Ok(()),
        }
    }
}

impl Drop for Unregistered {
    fn drop(&mut self) {
        // Removed (if not persisted) before it is forgotten.
        drop(self.file.take());
        self.cleanup.unregister(&self.path);
    }
}

/// Makes `dir` and its missing parents, each 0700 (as the XDG base directory
/// specification asks of a cache); an existing directory is left as it is.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// The cache's salt (made on first use: 32 random bytes, readable by its owner alone).
fn salt(root: &Path, cleanup: &crate::output::Cleanup) -> std::io::Result<Vec<u8>> {
    let path = root.join("salt");
    if let Ok(bytes) = std::fs::read(&path)
        && bytes.len() >= 16
    {
        return Ok(bytes);
    }
    let bytes = random_bytes()?;
    // Two builds making it at once: the first one's stays (no_clobber), the second
    // reads it.
    match write_temp(root, &bytes, cleanup)?.persist_noclobber(&path) {
        Ok(()) => Ok(bytes),
        Err(_) => std::fs::read(&path),
    }
}

/// 32 bytes from the operating system's random source.
fn random_bytes() -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = vec![0; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// Holds the whole cache shared (a build) or exclusive (`cache clean`).
pub(crate) fn lock_cache(root: &Path, exclusive: bool) -> std::io::Result<File> {
    create_private_dir(root)?;
    let f = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(root.join("cache.lock"))?;
    if exclusive {
        f.lock()?;
    } else {
        f.lock_shared()?;
    }
    Ok(f)
}

/// One cached checkout, for `kbuild cache list`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedCheckout {
    /// The clone URL (credentials redacted).
    pub url: String,
    /// The commit.
    pub commit: String,
    /// The refs last seen naming it (tags marked).
    pub refs: Vec<String>,
    /// Where it is.
    pub dir: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Every checkout in the cache at `root`, by URL then commit.
pub fn list(root: &Path) -> std::io::Result<Vec<CachedCheckout>> {
    let repos = root.join("repos");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&repos) else {
        return Ok(out);
    };
    for repo in entries.flatten() {
        let dir = repo.path();
        let url = std::fs::read_to_string(dir.join("url")).unwrap_or_default();
        let refs = RepoDir {
            dir: dir.clone(),
            lock: PathBuf::new(),
            url: url.clone(),
            cleanup: crate::output::Cleanup::default(),
        }
        .refs();
        for checkout in std::fs::read_dir(&dir)?.flatten() {
            let name = checkout.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || !checkout.path().is_dir() {
                continue;
            }
            let commit = name.trim_end_matches(".nosub").to_string();
            let named_by = refs
                .iter()
                .filter(|(_, k)| k.commit == commit)
                .map(|(r, k)| {
                    if k.tag {
                        format!("{r} (tag)")
                    } else {
                        r.clone()
                    }
                })
                .collect();
            out.push(CachedCheckout {
                url: url.clone(),
                commit,
                refs: named_by,
                bytes: size_of_dir(&checkout.path()),
                dir: checkout.path(),
            });
        }
    }
    out.sort_by(|a, b| (&a.url, &a.commit).cmp(&(&b.url, &b.commit)));
    Ok(out)
}

fn size_of_dir(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Removes every checkout from the cache at `root`, waiting for running builds that use
/// it; returns how many checkouts there were.
pub fn clean(root: &Path) -> std::io::Result<usize> {
    if !root.exists() {
        return Ok(0);
    }
    let _lock = lock_cache(root, true)?;
    let count = list(root)?.len();
    for dir in ["repos", "locks"] {
        let dir = root.join(dir);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_commit_ids_name_checkouts() {
        let root = tempfile::tempdir().unwrap();
        let repo = RepoDir::open(root.path(), "https://h/o/r", &Default::default()).unwrap();
        std::fs::create_dir_all(repo.dir.join("../..")).unwrap();
        assert_eq!(repo.checkout("../..", true), None);
        assert_eq!(repo.checkout("..", false), None);
        let commit = "a".repeat(40);
        std::fs::create_dir_all(repo.dir.join(&commit)).unwrap();
        assert_eq!(repo.checkout(&commit, true), Some(repo.dir.join(&commit)));
    }

    #[test]
    fn credentials_name_no_directory() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let with = RepoDir::open(
            root.path(),
            "https://me:hunter2@h/o/repo",
            &Default::default(),
        )
        .unwrap();
        let without = RepoDir::open(root.path(), "https://h/o/repo", &Default::default()).unwrap();
        assert_ne!(with.dir, without.dir, "a build without them gets its own");
        let name = with.dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("repo-") && !name.contains("hunter2"),
            "{name}"
        );
        assert_eq!(with.url, "https://me:***@h/o/repo");
        // The salted hash differs from the plain hash of the URL with its credentials.
        use sha2::{Digest, Sha256};
        let plain_hash: String = Sha256::digest(b"https://me:hunter2@h/o/repo")
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(!name.ends_with(&plain_hash), "{name}");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root.path().join("repos")), 0o700);
        assert_eq!(mode(&root.path().join("salt")), 0o600);
    }
}
