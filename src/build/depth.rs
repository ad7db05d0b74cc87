//! How deep a build may recurse: kustomizations within kustomizations (bases
//! and components) nest as deep as the input says, and kustomize builds a
//! chain of thousands of bases. The recursion follows the input's depth, so
//! it must not be limited by the stack of whichever thread it runs on (the
//! main thread's 8 MiB, a rayon worker's 2 MiB): each level checks the stack
//! left and, when it runs low, carries on in a fresh stack segment (stacker).
//! Past [`MAX_DEPTH`] levels the build stops with a clear error instead of
//! using memory without bound.

use crate::error::{Error, Result};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The deepest nesting of kustomizations a build accepts: far beyond any real
/// tree (a few levels, rarely twenty), and beyond the 2,000-base chain
/// kustomize builds.
pub(crate) const MAX_DEPTH: usize = 5_000;

/// When less stack than this is left, the next level runs in a new segment: one
/// level of a build takes ~20 KiB of stack in a debug build, far less in release.
const RED_ZONE: usize = 512 * 1024;

/// The size of each new stack segment.
const SEGMENT: usize = 8 * 1024 * 1024;

/// The most kustomization builds (each base built, each component applied) one
/// build may make. Bases listed by several kustomizations are built once (see
/// build/memo.rs), but a component is applied at every inclusion, and components
/// that each include the next twice double the work per level (kustomize too):
/// this bounds the time such a tree takes. Real trees make hundreds.
pub(crate) const MAX_BUILDS: usize = 200_000;

/// How many kustomization builds a build has made so far (all threads).
#[derive(Default)]
pub(crate) struct Builds(AtomicUsize);

impl Builds {
    /// Counts the build of `dir`; an error past [`MAX_BUILDS`].
    pub(crate) fn count(&self, dir: &Path) -> Result<()> {
        if self.0.fetch_add(1, Ordering::Relaxed) < MAX_BUILDS {
            return Ok(());
        }
        Err(Error::limit(
            format!(
                "more than {MAX_BUILDS} kustomization builds (bases built, components applied) in one build, at '{}'",
                dir.display()
            ),
            "components that include the same component more than once along many paths multiply the work; include each once",
        ))
    }
}

/// Runs `f`, the build of the kustomization `dir` at nesting `depth` (0 at
/// the top), on enough stack; an error past [`MAX_DEPTH`].
pub(crate) fn nested<T>(depth: usize, dir: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    if depth >= MAX_DEPTH {
        return Err(too_deep(dir));
    }
    grow_past(depth, f)
}

/// The depth up to which the stack is not checked: a few hundred KiB in a debug
/// build, within any thread's stack; real trees stay below it, and checking costs
/// (the first check on a thread reads its stack bounds: /proc/self/maps for the
/// main thread).
const UNCHECKED: usize = 16;

/// [`grow`] for a step at nesting `depth`: nothing to check near the top.
pub(crate) fn grow_past<T>(depth: usize, f: impl FnOnce() -> T) -> T {
    if depth < UNCHECKED {
        return f();
    }
    grow(f)
}

/// Runs `f`, a step that recurses once per level of the input's nesting, on
/// enough stack.
fn grow<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

fn too_deep(dir: &Path) -> Error {
    Error::limit(
        format!(
            "kustomizations nested more than {MAX_DEPTH} levels deep (bases and components within each other) at '{}'",
            dir.display()
        ),
        "a real tree is a few levels deep: look for a generated chain of bases",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recursion far past a thread's stack, on a small thread.
    #[test]
    fn recursion_moves_to_new_segments() {
        fn down(n: usize) -> usize {
            let pad = std::hint::black_box([0u8; 4096]);
            if n == 0 {
                return pad[0] as usize;
            }
            nested(UNCHECKED, Path::new("/"), || Ok(down(n - 1) + 1)).unwrap_or(0)
        }
        let t = std::thread::Builder::new().stack_size(256 * 1024);
        let depth = t.spawn(|| down(20_000)).unwrap().join().unwrap();
        assert_eq!(depth, 20_000);
    }

    #[test]
    fn past_the_limit_is_an_error() {
        let e = nested(MAX_DEPTH, Path::new("/x"), || Ok(())).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Limit);
        assert!(e.to_string().contains("5000 levels"), "{e}");
    }
}
