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

    /// Whether a directory being built is `dir` or lies below it (building `dir`
    /// now would be a cycle).
    pub(super) fn reaches(&self, dir: &Path) -> bool {
        self.iter().any(|d| within(d, dir))
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

/// `dir.starts_with(ancestor)` for real (clean, absolute) paths. The cycle check
/// runs once per level against every enclosing level, so on a chain of thousands of
/// bases this is called millions of times: on Unix it is a byte comparison (a clean
/// path has no `.`, `..`, doubled or trailing separators, so a byte prefix that ends at
/// a separator is a component prefix). `Path::starts_with` compares component by
/// component, and sibling names that share a prefix (`b1`, `b10`, `b100`) made it take
/// most of a 5,000-level build's seconds.
pub(super) fn within(dir: &Path, ancestor: &Path) -> bool {
    let (d, a) = (
        dir.as_os_str().as_encoded_bytes(),
        ancestor.as_os_str().as_encoded_bytes(),
    );
    if !d.starts_with(a) {
        return false;
    }
    if cfg!(unix) {
        d.len() == a.len() || a.ends_with(b"/") || d[a.len()] == b'/'
    } else {
        dir.starts_with(ancestor)
    }
}

#[cfg(test)]
mod tests {
    use super::within;
    use std::path::Path;

    #[test]
    fn within_is_a_component_prefix() {
        let w = |d: &str, a: &str| within(Path::new(d), Path::new(a));
        assert!(w("/t/b1", "/t/b1"));
        assert!(w("/t/b1/x", "/t/b1"));
        assert!(w("/t/b1", "/"));
        assert!(w("/t/b1", "/t"));
        assert!(!w("/t/b10", "/t/b1"));
        assert!(!w("/t", "/t/b1"));
        assert!(!w("/u/b1", "/t"));
    }
}
