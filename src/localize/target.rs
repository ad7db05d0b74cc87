//! The target, scope and destination of a localize run, with kustomize v5.8.1's
//! refusals (`locloader.go`, `util.go`): a URL target needs `ref=` and takes no
//! `--scope` (its scope is its repository); a local scope must contain the target; the
//! destination must not exist and its parent must.

use super::layout;
use crate::error::{Error, Result};
use crate::load::Files;
use crate::remote::{RepoSpec, redact};
use std::path::{Path, PathBuf};

/// The established arguments.
pub(super) struct Args {
    /// The target's kustomization directory (real).
    pub(super) target: PathBuf,
    /// The scope (real): the target's repository for a URL target.
    pub(super) scope: PathBuf,
    /// The destination (absolute; its parent real).
    pub(super) dest: PathBuf,
    /// Where the target goes in the destination: its path below the scope.
    pub(super) target_in_dest: PathBuf,
    /// The target is a git URL.
    pub(super) remote: bool,
}

/// Checks the arguments as kustomize does, in its order.
pub(super) fn establish(files: &Files, o: &super::LocalizeOptions) -> Result<Args> {
    let raw = if o.target.is_empty() { "." } else { &o.target };
    let spec = RepoSpec::parse(raw).ok();
    if spec.as_ref().is_some_and(|s| s.git_ref.is_empty()) {
        return Err(super::walk::missing_ref(raw));
    }
    let target = files
        .root(Path::new(raw))
        .map_err(|e| {
            e.context(format!(
                "unable to establish localize target '{}'",
                redact(raw)
            ))
        })?
        .root()
        .to_path_buf();
    let scope_text = o
        .scope
        .as_ref()
        .map(|s| s.display().to_string())
        .unwrap_or_default();
    let invalid_scope =
        |msg: String| Error::msg(format!("invalid localize scope '{scope_text}': {msg}"));
    let checkout = spec
        .as_ref()
        .and_then(|_| files.remote().clone_containing(&target));
    let scope = match (&checkout, &o.scope) {
        (Some(_), Some(_)) => {
            return Err(invalid_scope(format!(
                "scope '{scope_text}' specified for remote localize target '{}'",
                redact(raw)
            )));
        }
        (Some(repo), None) => repo.clone(),
        (None, None) => target.clone(),
        (None, Some(s)) => {
            let scope = std::fs::canonicalize(s).map_err(|e| {
                invalid_scope(format!(
                    "unable to establish localize scope: '{scope_text}': {e}"
                ))
            })?;
            if !scope.is_dir() {
                return Err(invalid_scope(format!(
                    "unable to establish localize scope: '{scope_text}' is not a directory"
                )));
            }
            if !target.starts_with(&scope) {
                return Err(invalid_scope(format!(
                    "localize scope '{scope_text}' does not contain target '{raw}' at '{}'",
                    target.display()
                )));
            }
            scope
        }
    };
    let raw_dest = match &o.dest {
        Some(d) => d.clone(),
        None => {
            let remote = spec.as_ref().zip(checkout.as_deref());
            PathBuf::from(layout::default_dest(&target, remote))
        }
    };
    let dest = absolute_dest(&raw_dest)?;
    Ok(Args {
        // The target itself is the scope: it is the destination's top.
        target_in_dest: target
            .strip_prefix(&scope)
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        target,
        scope,
        dest,
        remote: checkout.is_some(),
    })
}

/// The destination made absolute through its parent's real path: it must not exist,
/// and its parent must be a directory.
fn absolute_dest(raw: &Path) -> Result<PathBuf> {
    let invalid = |msg: String| {
        Error::msg(format!(
            "invalid localize destination '{}': {msg}",
            raw.display()
        ))
    };
    if std::fs::symlink_metadata(raw).is_ok() {
        return Err(invalid(format!(
            "localize destination '{}' already exists",
            raw.display()
        )));
    }
    let Some(name) = raw.file_name() else {
        return Err(invalid("not a name for a new directory".to_string()));
    };
    let parent = match raw.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let real = std::fs::canonicalize(&parent).map_err(|e| {
        invalid(format!(
            "unable to create localize destination directory: '{}': {e}",
            parent.display()
        ))
    })?;
    if !real.is_dir() {
        return Err(invalid(format!(
            "unable to create localize destination directory: '{}' is not a directory",
            parent.display()
        )));
    }
    Ok(real.join(name))
}

/// The refusal for a destination that appeared while localizing.
pub(super) fn dest_exists(dest: &Path) -> Error {
    Error::msg(format!(
        "invalid localize destination '{}': localize destination '{}' already exists",
        dest.display(),
        dest.display()
    ))
}
