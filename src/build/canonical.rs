//! Canonical paths of resource files, resolving each directory once per
//! build.
//!
//! `std::fs::canonicalize` (realpath) looks up every component of a path
//! on each call: with thousands of resource files in a few hundred
//! directories, that was most of the build's system time. The real path of
//! `dir/name` is the real path of `dir` joined with `name`, unless `name`
//! is a symbolic link; so directories are resolved once and remembered, and
//! each file costs one `lstat`. Anything unusual (a symlink, a missing
//! file, a path without a parent) goes to `canonicalize` itself, so errors
//! read the same.

use crate::error::Result;
use crate::load;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// Real paths of the directories seen so far in one build.
#[derive(Default)]
pub(super) struct CanonicalCache {
    dirs: Mutex<HashMap<PathBuf, PathBuf>>,
}

impl CanonicalCache {
    /// `load::canonical(path, what)`, with the parent directory's real path
    /// taken from the cache. `path` is absolute and lexically clean (as
    /// `load::join_clean` makes it).
    pub(super) fn canonical(&self, path: &Path, what: &str) -> Result<PathBuf> {
        let (Some(parent), Some(Component::Normal(name))) =
            (path.parent(), path.components().next_back())
        else {
            return load::canonical(path, what);
        };
        if !path.is_absolute() {
            return load::canonical(path, what);
        }
        let real_parent = match self.dirs.lock().ok().and_then(|d| d.get(parent).cloned()) {
            Some(p) => p,
            None => match std::fs::canonicalize(parent) {
                Ok(real) => {
                    if let Ok(mut d) = self.dirs.lock() {
                        d.insert(parent.to_path_buf(), real.clone());
                    }
                    real
                }
                Err(_) => return load::canonical(path, what),
            },
        };
        let candidate = real_parent.join(name);
        match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if !meta.file_type().is_symlink() => Ok(candidate),
            _ => load::canonical(path, what),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn agrees_with_canonicalize_through_symlinked_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join("real/a.yaml"), "x: 1\n").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("real/a.yaml"), root.join("real/b.yaml")).unwrap();
        let cache = CanonicalCache::default();
        for p in [
            "real/a.yaml",
            "link/a.yaml",
            "link/b.yaml",
            "real/b.yaml",
            "link",
        ] {
            let path = root.join(p);
            let want = std::fs::canonicalize(&path).unwrap();
            assert_eq!(cache.canonical(&path, "resource").unwrap(), want, "{p}");
            assert_eq!(
                cache.canonical(&path, "resource").unwrap(),
                want,
                "{p} (cached)"
            );
        }
        let missing = root.join("link/missing.yaml");
        assert_eq!(
            cache
                .canonical(&missing, "resource")
                .unwrap_err()
                .to_string(),
            load::canonical(&missing, "resource")
                .unwrap_err()
                .to_string()
        );
    }
}
