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
    let files = changed
        .iter()
        .filter_map(|(path, text)| {
            let real = RealFs.canonicalize(path).ok()?;
            Some((real, text.clone().into_bytes()))
        })
        .collect();
    match (before, render(Arc::new(Overlay { files }))) {
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
