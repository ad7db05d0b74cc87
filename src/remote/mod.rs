//! Remote entries: kustomizations in git repositories (`resources`, `bases`,
//! `components`) and files over http(s) (any file field, and `resources`).
//!
//! Which entries are remote, and how a URL splits into repository, ref and path, follow
//! kustomize (`repospec.rs`); repositories are fetched with the `git` program, with
//! kustomize's commands (`git.rs`). Beyond kustomize, which clones every reference
//! afresh: one build fetches each (repository, ref) once, whatever number of
//! kustomizations name it, and keeps the checkout in a cache shared by builds (`cache.rs`)
//! by commit. A ref known to be immutable (a full commit id, or a tag seen before) is
//! then used without any network command; a branch costs one `git ls-remote`.

pub mod cache;
pub(crate) mod git;
mod http;
pub mod refuse;
pub mod repospec;
pub mod userinfo;

use crate::error::{Error, RemoteError, RemoteProblem, Result};
use cache::{KnownRef, RepoDir};
use foldhash::HashMap;
use git::Git;
pub use git::redact;
pub use repospec::RepoSpec;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// How a build fetches remote entries.
#[derive(Clone, Debug, Default)]
pub struct RemoteOptions {
    /// Where checkouts are kept (`--remote-cache-dir`; default [`cache::default_dir`], or
    /// a temporary directory for the build when there is no home directory).
    pub cache_dir: Option<PathBuf>,
    /// Use only what the cache holds: no git or http command (`--offline`).
    pub offline: bool,
    /// Where clones register their temporary checkouts and git's process groups (for a
    /// signal handler; see [`crate::output::Cleanup`]).
    pub cleanup: crate::output::Cleanup,
    /// Show a spinner on stderr while a repository is fetched (see [`crate::progress`]).
    pub progress: bool,
}

/// A repository checked out for a build.
#[derive(Clone, Debug)]
pub struct Checkout {
    /// The checkout's directory (the repository's root; a real path).
    pub dir: PathBuf,
    /// The commit checked out.
    pub commit: String,
}

/// A remote input a build used, for `kbuild deps` and `render --affected`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RemoteInput {
    /// The URL: the entry as written (credentials redacted).
    pub url: String,
    /// The commit it resolved to (git), or `None` (a file over http).
    pub commit: Option<String>,
}

type Shared<T> = Arc<OnceLock<std::result::Result<T, RemoteProblem>>>;

/// A repository as kustomize's `config.kubernetes.io/origin` annotation names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoOrigin {
    /// `repo:`, the URL git clones (kustomize's `CloneSpec`: host and repository path).
    pub repo: String,
    /// `ref:`, the ref the entry asked for (`""`: none, and no `ref:` line).
    pub git_ref: String,
    /// Whether the entry named the repository's root: kustomize then writes paths in
    /// it under `notCloned/` (its placeholder for the clone directory, which leaks
    /// through its path arithmetic).
    pub not_cloned: bool,
}

impl RepoOrigin {
    /// How `spec` names its repository.
    pub fn of(spec: &RepoSpec) -> RepoOrigin {
        RepoOrigin {
            repo: spec.clone_url(),
            git_ref: spec.git_ref.clone(),
            not_cloned: crate::go_path::clean(&spec.kust_root) == ".",
        }
    }
}

/// The remote fetches of one build: each (repository, ref) and each file URL once.
pub struct Session {
    options: RemoteOptions,
    /// The cache directory and its shared lock, taken on first use.
    root: OnceLock<std::result::Result<(PathBuf, Option<std::fs::File>), String>>,
    /// A cache for this build alone, when there is no cache directory.
    temp_root: OnceLock<Option<tempfile::TempDir>>,
    git: OnceLock<std::result::Result<Git, RemoteProblem>>,
    agent: OnceLock<ureq::Agent>,
    checkouts: Mutex<HashMap<(String, String, bool), Shared<Checkout>>>,
    files: Mutex<HashMap<String, Shared<Arc<Vec<u8>>>>>,
    /// Every checkout directory handed out, for [`Session::clone_containing`].
    dirs: Mutex<Vec<PathBuf>>,
    /// How each checkout directory was first named, for origin annotations.
    named: Mutex<Vec<(PathBuf, RepoOrigin)>>,
    inputs: Mutex<Vec<RemoteInput>>,
}

impl Session {
    /// A session fetching as `options` say; nothing is done before the first remote entry.
    pub fn new(options: RemoteOptions) -> Session {
        Session {
            options,
            root: OnceLock::new(),
            temp_root: OnceLock::new(),
            git: OnceLock::new(),
            agent: OnceLock::new(),
            checkouts: Mutex::default(),
            files: Mutex::default(),
            dirs: Mutex::default(),
            named: Mutex::default(),
            inputs: Mutex::default(),
        }
    }

    /// The remote inputs used so far, sorted, each once.
    pub fn inputs(&self) -> Vec<RemoteInput> {
        let mut v = lock(&self.inputs).clone();
        v.sort();
        v.dedup();
        v
    }

    /// The checkout that holds `path`, if it is in one this build made.
    pub fn clone_containing(&self, path: &Path) -> Option<PathBuf> {
        let dirs = lock(&self.dirs);
        if dirs.is_empty() {
            return None;
        }
        dirs.iter().find(|d| path.starts_with(d)).cloned()
    }

    /// The checkout holding `path` and how the build first named its repository (the
    /// first entry wins when two entries share a checkout).
    pub fn repo_origin(&self, path: &Path) -> Option<(PathBuf, RepoOrigin)> {
        lock(&self.named)
            .iter()
            .find(|(d, _)| path.starts_with(d))
            .cloned()
    }

    /// The repository `spec` names, checked out at its ref (once per build).
    pub fn checkout(&self, spec: &RepoSpec) -> Result<Checkout> {
        let url = spec.clone_url();
        let key = (url.clone(), spec.git_ref.clone(), spec.submodules);
        let slot = lock(&self.checkouts).entry(key).or_default().clone();
        let result = slot
            .get_or_init(|| {
                refuse::check(spec)?;
                self.fetch_checkout(spec)
            })
            .clone();
        let error = |problem| {
            Error::Remote(Box::new(RemoteError {
                entry: git::redact(&spec.raw),
                url: git::redact(&url),
                problem,
            }))
        };
        let checkout = result.map_err(error)?;
        {
            let mut named = lock(&self.named);
            if !named.iter().any(|(d, _)| *d == checkout.dir) {
                named.push((checkout.dir.clone(), RepoOrigin::of(spec)));
            }
        }
        lock(&self.inputs).push(RemoteInput {
            url: git::redact(&spec.raw),
            commit: Some(checkout.commit.clone()),
        });
        Ok(checkout)
    }

    /// Whether `spec`'s checkout is at hand without the network: fetched already by this
    /// build, or in the cache at a ref that cannot move (a full commit id, a tag).
    pub fn cached_immutable(&self, spec: &RepoSpec) -> bool {
        if refuse::check(spec).is_err() {
            return false;
        }
        let key = (spec.clone_url(), spec.git_ref.clone(), spec.submodules);
        if let Some(slot) = lock(&self.checkouts).get(&key)
            && slot.get().is_some_and(|r| r.is_ok())
        {
            return true;
        }
        let Ok(root) = self.root() else {
            return false;
        };
        let Ok(repo) = RepoDir::open(root, &spec.clone_url(), &self.options.cleanup) else {
            return false;
        };
        let commit = if git::is_full_commit(&spec.git_ref) {
            spec.git_ref.to_ascii_lowercase()
        } else {
            match repo.refs().get(&spec.git_ref) {
                Some(k) if k.tag => k.commit.clone(),
                _ => return false,
            }
        };
        repo.checkout(&commit, spec.submodules).is_some()
    }

    /// The body of the file at `url` (an http(s) URL; once per build). A URL that may also
    /// name a git repository has its `timeout=` for the request too (kustomize sets no
    /// limit on it).
    pub fn get_file(&self, url: &str) -> std::result::Result<Arc<Vec<u8>>, RemoteProblem> {
        let limit = RepoSpec::parse(url).ok().map(|s| s.timeout);
        if self.options.offline {
            return Err(RemoteProblem::Offline);
        }
        let slot = lock(&self.files)
            .entry(url.to_string())
            .or_default()
            .clone();
        let body = slot
            .get_or_init(|| {
                http::get(self.agent.get_or_init(http::agent), url, limit).map(Arc::new)
            })
            .clone()?;
        lock(&self.inputs).push(RemoteInput {
            url: git::redact(url),
            commit: None,
        });
        Ok(body)
    }

    /// The cache directory, locked shared for the build.
    fn root(&self) -> std::result::Result<&Path, RemoteProblem> {
        let root = self.root.get_or_init(|| {
            let dir = match self.options.cache_dir.clone().or_else(cache::default_dir) {
                Some(d) => d,
                None => {
                    let temp = self.temp_root.get_or_init(|| {
                        tempfile::Builder::new()
                            .prefix("kbuild-git-")
                            .tempdir()
                            .ok()
                    });
                    match temp {
                        Some(t) => t.path().to_path_buf(),
                        None => return Err("cannot make a temporary directory".to_string()),
                    }
                }
            };
            let lock =
                cache::lock_cache(&dir, false).map_err(|e| format!("'{}': {e}", dir.display()))?;
            let dir = dir
                .canonicalize()
                .map_err(|e| format!("'{}': {e}", dir.display()))?;
            Ok((dir, Some(lock)))
        });
        match root {
            Ok((dir, _)) => Ok(dir),
            Err(msg) => Err(RemoteProblem::Cache(msg.clone())),
        }
    }

    fn git(&self) -> std::result::Result<&Git, RemoteProblem> {
        self.git
            .get_or_init(|| Git::find(&self.options.cleanup))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Finds or makes the checkout: the cache first, then at most one `ls-remote` and one
    /// fetch, under the repository's lock.
    fn fetch_checkout(&self, spec: &RepoSpec) -> std::result::Result<Checkout, RemoteProblem> {
        let url = spec.clone_url();
        let cache_err = |e: std::io::Error| RemoteProblem::Cache(e.to_string());
        let repo = RepoDir::open(self.root()?, &url, &self.options.cleanup).map_err(cache_err)?;
        let _lock = repo.lock().map_err(cache_err)?;
        let found = |commit: &str| {
            repo.checkout(commit, spec.submodules).map(|dir| Checkout {
                dir,
                commit: commit.to_string(),
            })
        };
        let known = repo.refs().get(&spec.git_ref).cloned();
        if git::is_full_commit(&spec.git_ref)
            && let Some(c) = found(&spec.git_ref.to_ascii_lowercase())
        {
            return Ok(self.handed_out(c));
        }
        if let Some(k) = known.as_ref().filter(|k| k.tag || self.options.offline)
            && let Some(c) = found(&k.commit)
        {
            return Ok(self.handed_out(c));
        }
        if self.options.offline {
            return Err(RemoteProblem::Offline);
        }
        let git = self.git()?;
        let _spinner = crate::progress::spinner(self.options.progress, || {
            format!(
                "fetching {} {}",
                git::redact(&url),
                ref_or_head(&spec.git_ref)
            )
        });
        let (plain_url, credentials) = userinfo::split(&url);
        let access = git::Access {
            transports: git::BASE_TRANSPORTS,
            credentials: credentials.as_ref(),
        };
        if !git::is_full_commit(&spec.git_ref) {
            let listed = git.run(
                repo.existing_dir(),
                &["ls-remote", "--", &plain_url, ref_or_head(&spec.git_ref)],
                spec.timeout,
                access,
            )?;
            if let Some((commit, tag)) = git::pick_ls_remote(&listed, &spec.git_ref)
                && let Some(c) = found(&commit)
            {
                repo.note_ref(&spec.git_ref, KnownRef { commit, tag })
                    .map_err(cache_err)?;
                return Ok(self.handed_out(c));
            }
        }
        let c = clone_into(git, &repo, spec, &plain_url, access)?;
        Ok(self.handed_out(c))
    }

    fn handed_out(&self, c: Checkout) -> Checkout {
        lock(&self.dirs).push(c.dir.clone());
        c
    }
}

fn ref_or_head(r: &str) -> &str {
    if r.is_empty() { "HEAD" } else { r }
}

/// kustomize's clone (`init`, `remote add origin`, `fetch --depth=1 <url> <ref>`,
/// `checkout FETCH_HEAD`, `submodule update --init --recursive`) into a temporary
/// directory, kept under its commit when every step succeeded. `url` is the URL without
/// credentials (`access` carries them), so the checkout's `.git/config` and `FETCH_HEAD`
/// never hold them; `--` ends the options before every value from the entry.
fn clone_into(
    git: &Git,
    repo: &RepoDir,
    spec: &RepoSpec,
    url: &str,
    access: git::Access,
) -> std::result::Result<Checkout, RemoteProblem> {
    let cache_err = |e: std::io::Error| RemoteProblem::Cache(e.to_string());
    let temp = repo.temp().map_err(cache_err)?;
    let dir = temp.path();
    let t = spec.timeout;
    // Only the fetch (and the ls-remote before it) reach the entry's URL; the other
    // commands reach nothing, or the submodules, which may not use `file`.
    let local = git::Access {
        transports: git::SUBMODULE_TRANSPORTS,
        ..access
    };
    git.run(dir, &["init"], t, local)?;
    // Relative submodule URLs need the origin (kustomize issue 5131).
    git.run(dir, &["remote", "add", "--", "origin", url], t, local)?;
    git.run(
        dir,
        &["fetch", "--depth=1", "--", url, ref_or_head(&spec.git_ref)],
        t,
        access,
    )?;
    git.run(dir, &["checkout", "FETCH_HEAD"], t, local)?;
    if spec.submodules {
        git.run(
            dir,
            &["submodule", "update", "--init", "--recursive"],
            t,
            local,
        )?;
    }
    let commit = git
        .run(dir, &["rev-parse", "HEAD"], t, local)?
        .trim()
        .to_string();
    let tag = std::fs::read_to_string(dir.join(".git").join("FETCH_HEAD"))
        .is_ok_and(|f| git::fetched_a_tag(&f));
    let kept = repo
        .keep(temp, &commit, spec.submodules)
        .map_err(cache_err)?;
    if !git::is_full_commit(&spec.git_ref) {
        repo.note_ref(
            &spec.git_ref,
            KnownRef {
                commit: commit.clone(),
                tag,
            },
        )
        .map_err(cache_err)?;
    }
    let dir = kept.canonicalize().map_err(cache_err)?;
    Ok(Checkout { dir, commit })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
