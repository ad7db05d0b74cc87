//! Finding and reading files: kustomization files, resources, and the load
//! restrictor that keeps a kustomization's file reads inside its own root.

pub mod canonical;

use crate::error::{Error, Result};
use crate::kustomization::{FILE_NAMES, Kustomization};
use std::path::{Component, Path, PathBuf};

/// kustomize's `--load-restrictor`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadRestrictor {
    /// Files must be in or below the kustomization's directory (the default).
    #[default]
    RootOnly,
    /// Any file may be read.
    None,
}

/// Joins `rel` to `base` lexically (`..` pops), as kustomize does before
/// resolving symlinks.
pub fn join_clean(base: &Path, rel: &str) -> PathBuf {
    match join_clean_str(base, rel) {
        Some(joined) => PathBuf::from(joined),
        None => join_clean_components(base, rel),
    }
}

/// [`join_clean`] component by component: the general version.
fn join_clean_components(base: &Path, rel: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(rel).components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether `path` is absolute and clean, read as text: `/` first, no empty,
/// `.` or `..` name, no trailing `/` (the root alone excepted).
pub fn is_clean_absolute_text(path: &str) -> bool {
    path.starts_with('/')
        && (path.len() == 1
            || path[1..]
                .split('/')
                .all(|name| !matches!(name, "" | "." | "..")))
}

/// [`join_clean`] on text, for the usual case: `base` absolute and clean
/// ([`is_clean_absolute_text`]) and `rel` relative; `None` otherwise (or when
/// `..` would go above the root), and the general version answers.
fn join_clean_str(base: &Path, rel: &str) -> Option<String> {
    let base = base.to_str()?;
    if !is_clean_absolute_text(base) || rel.starts_with('/') {
        return None;
    }
    let root_only = base.len() == 1;
    let mut out = String::with_capacity(base.len() + rel.len() + 1);
    out.push_str(if root_only { "" } else { base });
    for name in rel.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                // Never above the root: the general version says what that gives.
                let cut = out.rfind('/').filter(|_| !out.is_empty())?;
                out.truncate(cut);
            }
            name => {
                out.push('/');
                out.push_str(name);
            }
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    Some(out)
}

/// The kustomization file in `dir`: exactly one of the accepted names.
pub fn find_kustomization_file(dir: &Path) -> Result<PathBuf> {
    let found: Vec<PathBuf> = FILE_NAMES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
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
    std::fs::canonicalize(path).map_err(|e| {
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

/// Reads `rel` (relative to the kustomization directory `root`), enforcing
/// the load restrictor. Returns the resolved path and the bytes.
pub fn read_restricted(
    root: &Path,
    rel: &str,
    restrictor: LoadRestrictor,
    what: &str,
) -> Result<(PathBuf, Vec<u8>)> {
    let joined = join_clean(root, rel);
    let real = canonical(&joined, what)?;
    check_restrictor(root, &real, rel, restrictor)?;
    if real.is_dir() {
        return Err(Error::msg(format!(
            "{what} '{rel}' is a directory, expected a file"
        )));
    }
    let bytes = read_file(&real)?;
    Ok((real, bytes))
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
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(Error::msg(format!(
            "'{}' is not a regular file",
            path.display()
        )));
    }
    std::fs::read(path).map_err(io)
}

/// Reads and decodes the kustomization file in `dir`.
pub fn read_kustomization(dir: &Path) -> Result<(PathBuf, Kustomization)> {
    let file = find_kustomization_file(dir)?;
    let bytes = read_file(&file)?;
    crate::kustomization::decode::decode(file, bytes)
}

/// Reads and decodes the kustomization file `file` (a real path) of type `kind`.
pub(crate) fn read_kustomization_file(
    file: &Path,
    kind: canonical::EntryType,
) -> Result<Kustomization> {
    let bytes = canonical::read(file, kind)?;
    crate::kustomization::decode::decode(file.to_path_buf(), bytes).map(|(_, k)| k)
}

/// Whether a resource entry looks like a remote URL (git or http).
pub fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || entry.starts_with("github.com/")
        || entry.starts_with("gitlab.com/")
        || entry.starts_with("bitbucket.org/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_clean_on_text_matches_components() {
        let bases = [
            "/", "/a", "/a/b", "/a/b/", "/a//b", "/a/./b", "/a/../b", "rel/x", "",
        ];
        let rels = [
            "",
            ".",
            "..",
            "../..",
            "../../..",
            "../../../..",
            "x",
            "x/",
            "./x",
            "x/./y",
            "x//y",
            "../x",
            "x/../y",
            "x/../../y",
            "/abs",
            "/abs/../x",
            "..x",
            ".x/..y",
            "x/..",
        ];
        for base in bases {
            for rel in rels {
                assert_eq!(
                    join_clean(Path::new(base), rel),
                    join_clean_components(Path::new(base), rel),
                    "{base:?} + {rel:?}"
                );
            }
        }
    }
}
