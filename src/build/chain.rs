//! The kustomization directories being built, outermost first: what the
//! cycle check looks at. A persistent list, so that a base's builder extends
//! its parent's chain instead of copying it (a copy per level is quadratic in
//! the depth, in time and memory, on a chain of thousands of bases).

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// See the module comment; empty at the top of a build.
#[derive(Clone, Default)]
pub(super) struct Chain(Option<Arc<Link>>);

struct Link {
    dir: PathBuf,
    parent: Chain,
    len: usize,
}

impl Chain {
    /// How many directories are being built.
    pub(super) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |l| l.len)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// This chain with `dir` innermost.
    pub(super) fn with(&self, dir: PathBuf) -> Chain {
        Chain(Some(Arc::new(Link {
            dir,
            parent: self.clone(),
            len: self.len() + 1,
        })))
    }

    /// The directories, innermost first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Path> {
        std::iter::successors(self.0.as_deref(), |l| l.parent.0.as_deref()).map(|l| &*l.dir)
    }

    /// The directories from the outermost one that contains `candidate` (so
    /// that building `candidate` would be a cycle) to the innermost, if any.
    pub(super) fn cycle_with(&self, candidate: &Path) -> Option<Vec<PathBuf>> {
        let mut inner_first = Vec::new();
        let mut found = None;
        for (i, d) in self.iter().enumerate() {
            inner_first.push(d);
            if within(d, candidate) {
                found = Some(i);
            }
        }
        let outermost = found?;
        Some(
            inner_first[..=outermost]
                .iter()
                .rev()
                .map(|d| d.to_path_buf())
                .collect(),
        )
    }
}

/// `dir.starts_with(ancestor)` for real (clean, absolute) paths, with a byte
/// comparison first: the cycle check runs once per level against every
/// enclosing level, and component-wise comparison is the slow part on deep chains.
pub(super) fn within(dir: &Path, ancestor: &Path) -> bool {
    dir.as_os_str()
        .as_encoded_bytes()
        .starts_with(ancestor.as_os_str().as_encoded_bytes())
        && dir.starts_with(ancestor)
}
