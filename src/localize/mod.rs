//! `kbuild localize`: a copy of a kustomization with every remote base and remote file
//! fetched into it and the references rewritten, for building without a network
//! (kustomize v5.8.1's `kustomize localize`; its layout and refusals are kept, see
//! `layout.rs` and `target.rs`).
//!
//! Only what the kustomizations name is copied (unreferenced files stay behind), each
//! local file at the same place relative to the scope, each remote one under
//! `localized-files/` beside the kustomization naming it. The tree is written all or
//! nothing: it is assembled in a temporary directory beside the destination and renamed
//! into place by [`Staged::commit`] after the caller's verification; an error leaves no
//! destination behind (kustomize removes a partial one, but a killed process would leave it).

mod layout;
mod plugins;
mod target;
mod walk;

use crate::error::{Error, Result};
use crate::load::{Files, LoadRestrictor};
use crate::output::temp::Registered;
use crate::remote::{RemoteOptions, Session};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use layout::{DST_PREFIX, LOCALIZE_DIR};

/// What to localize, and where.
#[derive(Clone, Debug, Default)]
pub struct LocalizeOptions {
    /// The kustomization: a directory, or a git URL with `ref=` (default `.`).
    pub target: String,
    /// The directory the local files may come from (default: the target; not for a
    /// URL target, whose scope is its repository).
    pub scope: Option<PathBuf>,
    /// The new directory (default `localized-<target>` in the current directory).
    pub dest: Option<PathBuf>,
    /// How remote entries are fetched.
    pub remote: RemoteOptions,
}

/// A localized tree written in full to a temporary directory, not yet in place.
pub struct Staged {
    temp: Registered<tempfile::TempDir>,
    dest: PathBuf,
    target_in_dest: PathBuf,
    files: usize,
}

impl Staged {
    /// The localized copy of the target, in the temporary tree (to verify it).
    pub fn staged_target(&self) -> PathBuf {
        self.temp.path().join(&self.target_in_dest)
    }

    /// The destination, as it will be named.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// The target's copy in the destination.
    pub fn target_in_dest(&self) -> PathBuf {
        if self.target_in_dest.as_os_str().is_empty() {
            return self.dest.clone();
        }
        self.dest.join(&self.target_in_dest)
    }

    /// The number of files written.
    pub fn files(&self) -> usize {
        self.files
    }

    /// Moves the tree into place (one rename: the destination appears whole or not at
    /// all); the destination must still not exist.
    pub fn commit(self) -> Result<PathBuf> {
        let dest = self.dest.clone();
        if std::fs::symlink_metadata(&dest).is_ok() {
            return Err(target::dest_exists(&dest));
        }
        self.temp.rename_to(&dest).map_err(|e| Error::Io {
            path: dest.clone(),
            source: e,
        })?;
        Ok(dest)
    }
}

/// Localizes `options.target` into a temporary directory beside the destination.
pub fn stage(options: &LocalizeOptions) -> Result<Staged> {
    let session = Arc::new(Session::new(options.remote.clone()));
    let files = Files::with_remote(crate::load::fs::real(), LoadRestrictor::RootOnly, session);
    let args = target::establish(&files, options)?;
    let mut walk = walk::Walk::new(args.scope.clone(), args.dest.clone());
    let root = walk::Root {
        ldr: files.at(args.target.clone()),
        dst: args.target_in_dest.clone(),
        local: !args.remote,
    };
    walk.kustomization(&root, 0).map_err(|e| {
        e.context(format!(
            "unable to localize target '{}'",
            crate::remote::redact(&options.target)
        ))
    })?;
    let parent = args.dest.parent().unwrap_or(Path::new("/"));
    let temp = Registered::dir(
        &options.remote.cleanup,
        tempfile::Builder::new().prefix(&crate::output::temp::own_prefix()),
        Some(parent),
    )
    .map_err(|e| Error::Io {
        path: parent.to_path_buf(),
        source: e,
    })?;
    let write_err = |path: &Path, e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    std::fs::create_dir_all(temp.path().join(&args.target_in_dest))
        .map_err(|e| write_err(temp.path(), e))?;
    for dir in &walk.dirs {
        let at = temp.path().join(dir);
        std::fs::create_dir_all(&at).map_err(|e| write_err(&at, e))?;
    }
    for (rel, bytes) in &walk.out {
        let at = temp.path().join(rel);
        if let Some(d) = at.parent() {
            std::fs::create_dir_all(d).map_err(|e| write_err(d, e))?;
        }
        std::fs::write(&at, bytes).map_err(|e| write_err(&at, e))?;
    }
    Ok(Staged {
        temp,
        dest: args.dest,
        target_in_dest: args.target_in_dest,
        files: walk.out.len(),
    })
}
