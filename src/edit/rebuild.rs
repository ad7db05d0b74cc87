//! Whether an edit changes what the kustomization builds: kustomize's `edit fix`
//! builds before and after and warns when the output differs. kbuild builds the
//! "after" from the edited texts held in memory (over the real files), so the check
//! runs before anything is written, and with `--dry-run` too.

use crate::build::{BuildOptions, build_in};
use crate::load::{FileKind, FileSystem, RealFs};
use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The real file system, with some files' contents replaced.
#[derive(Debug)]
struct Overlay {
    /// Real (canonical) path → new contents.
    files: HashMap<PathBuf, Vec<u8>>,
}

impl FileSystem for Overlay {
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        RealFs.canonicalize(path)
    }

    fn kind(&self, path: &Path) -> io::Result<FileKind> {
        RealFs.kind(path)
    }

    fn symlink_kind(&self, path: &Path) -> io::Result<FileKind> {
        RealFs.symlink_kind(path)
    }

    fn read_dir(&self, dir: &Path) -> io::Result<Vec<(OsString, FileKind)>> {
        RealFs.read_dir(dir)
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let real = RealFs.canonicalize(path)?;
        match self.files.get(&real) {
            Some(bytes) => Ok(bytes.clone()),
            None => RealFs.read(path),
        }
    }
}

/// One kustomization built before and after an edit, for `edit fix --verify`.
#[derive(Debug)]
pub struct Verified {
    /// The kustomization directory.
    pub dir: PathBuf,
    /// The bytes of its output before the edit (0 when the build failed).
    pub bytes: usize,
    /// `None`: the same output (or the same failure) after the edit; else what changed
    /// (a unified diff of the outputs, or the new error).
    pub change: Option<String>,
}

/// The edited texts as a file system over the real one.
fn overlay(changed: &[(PathBuf, String)]) -> Overlay {
    let files = changed
        .iter()
        .filter_map(|(path, text)| {
            let real = RealFs.canonicalize(path).ok()?;
            Some((real, text.clone().into_bytes()))
        })
        .collect();
    Overlay { files }
}

/// Builds each of `dirs` as the files are and as they would be with `changed` written,
/// and compares the outputs byte for byte (a build that fails both times with the same
/// error counts as unchanged). `options` are the build's (`--load-restrictor` and the
/// rest, as a build of them would use).
pub fn verify(
    dirs: &[PathBuf],
    changed: &[(PathBuf, String)],
    options: &BuildOptions,
) -> Vec<Verified> {
    use rayon::prelude::*;
    let after_fs: Arc<dyn FileSystem> = Arc::new(overlay(changed));
    let render = |fs: Arc<dyn FileSystem>, dir: &Path| {
        build_in(fs, dir, options)
            .map(|out| crate::output::render(&out.resmap))
            .map_err(|e| e.report().to_string())
    };
    dirs.par_iter()
        .map(|dir| {
            let before = render(Arc::new(RealFs), dir);
            let after = render(after_fs.clone(), dir);
            let change = match (&before, &after) {
                (Ok(b), Ok(a)) if a == b => None,
                (Err(b), Err(a)) if a == b => None,
                (Ok(b), Ok(a)) => Some(crate::diff::unified_diff(b, a, "before", "after")),
                (_, Err(a)) => Some(format!("the build now fails: {a}")),
                (Err(b), Ok(_)) => Some(format!("the build failed before and now succeeds: {b}")),
            };
            Verified {
                dir: dir.clone(),
                bytes: before.as_ref().map_or(0, String::len),
                change,
            }
        })
        .collect()
}

/// Builds the kustomization in `dir` as the files are, and as they would be with
/// `changed` (path, new text) written; `None` when both give the same output, else
/// kustomize's warning (with a diff of the two outputs rather than the whole new one).
pub fn build_change(dir: &Path, changed: &[(PathBuf, String)]) -> Option<String> {
    let options = BuildOptions::default();
    let render = |fs: Arc<dyn FileSystem>| {
        build_in(fs, dir, &options).map(|out| crate::output::render(&out.resmap))
    };
    // kustomize compares with an empty output when the first build fails, and warns
    // about any error after; kbuild says nothing when it failed before too (a
    // component, a kustomization that needs helm): there is no output to keep.
    let before = render(Arc::new(RealFs));
    match (before, render(Arc::new(overlay(changed)))) {
        (Err(_), Err(_)) => None,
        (Ok(_), Err(e)) => Some(format!(
            "Warning: 'Fixed' kustomization now produces the error when running `kbuild build`: {}",
            e.report()
        )),
        (before, Ok(after)) if before.as_ref().ok() != Some(&after) => {
            let before = before.unwrap_or_default();
            let diff = crate::diff::unified_diff(&before, &after, "before", "after");
            Some(format!(
                "Warning: 'Fixed' kustomization now produces different output when running `kbuild build`:\n{}",
                diff.trim_end()
            ))
        }
        (_, Ok(_)) => None,
    }
}
