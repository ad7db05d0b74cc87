//! `kbuild diff --ref`: the kustomizations of a git revision against the working tree (or
//! a second revision), each compared resource by resource as [`crate::diff::diff`] does.
//! Above both `diff` and `render` (it uses `render`'s discovery of affected kustomizations,
//! and `render` uses `diff`'s unified diffs).
//!
//! Without paths, the kustomizations compared are those a changed file affects, found on
//! each side with the dependency data behind `render --affected` ([`crate::render::affected`])
//! and joined: a kustomization that exists on one side only (an added or deleted overlay)
//! is compared with nothing, so all its resources show as added or removed.

pub mod git;

use crate::build::BuildOptions;
use crate::diff::{DiffOptions, DiffResult, Side, Summary, load_side, markdown_report};
use crate::error::{GitError, Result};
use crate::load;
use crate::render;
use git::{Checkout, Repo};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What `kbuild diff --ref` compares.
#[derive(Clone, Debug)]
pub struct RefDiff<'a> {
    /// The old side's revision (`--ref`).
    pub from: &'a str,
    /// The new side's revision (`--to-ref`); `None` is the working tree.
    pub to: Option<&'a str>,
    /// Kustomization directories (or YAML files), relative to the current directory;
    /// empty: every kustomization under the current directory that a changed file affects.
    pub paths: &'a [String],
    /// Options of every build, both sides.
    pub build: &'a BuildOptions,
    /// What the comparison leaves out.
    pub diff: &'a DiffOptions,
}

/// One kustomization's comparison.
#[derive(Clone, Debug)]
pub struct KustomizationDiff {
    /// Its path relative to the current directory (`.` for the directory itself).
    pub path: String,
    /// The comparison; a side where the path does not exist has no resources.
    pub result: DiffResult,
}

/// The result of `kbuild diff --ref`.
#[derive(Clone, Debug)]
pub struct RefReport {
    /// The old side (`HEAD~1`).
    pub old_label: String,
    /// The new side (`main`, or `working tree`).
    pub new_label: String,
    /// The kustomizations compared, in path order.
    pub kustomizations: Vec<KustomizationDiff>,
}

impl RefReport {
    /// Whether any kustomization differs (diff(1)'s exit status 1).
    pub fn has_differences(&self) -> bool {
        self.kustomizations
            .iter()
            .any(|k| k.result.has_differences())
    }
}

/// One side: the repository's top directory as of a revision, or the working tree.
struct Tree {
    /// The revision as the user named it, or `working tree`.
    label: String,
    top: PathBuf,
    /// Whether `label` names a revision: its paths are then shown as `REV:path`, as git
    /// shows a file at a revision.
    is_revision: bool,
}

impl Tree {
    /// `at HEAD~1`, `in the working tree`: for messages.
    fn place(&self) -> String {
        if self.is_revision {
            format!("at {}", self.label)
        } else {
            format!("in the {}", self.label)
        }
    }

    fn path_label(&self, path: &str) -> String {
        if self.is_revision {
            format!("{}:{path}", self.label)
        } else {
            path.to_string()
        }
    }
}

/// Compares the kustomizations of two revisions, or of one and the working tree, run from
/// `cwd`. The revisions are checked out into temporary directories that are gone when this
/// returns.
pub fn diff_refs(req: &RefDiff, cwd: &Path) -> Result<RefReport> {
    let repo = Repo::discover(cwd)?;
    let from = repo.resolve(req.from)?;
    let to = req.to.map(|t| repo.resolve(t)).transpose()?;
    // The checkouts go into the build's register of what to undo when killed.
    let cleanup = &req.build.external.cleanup;
    let old_checkout = repo.checkout(&from, cleanup)?;
    let new_checkout: Option<Checkout> = to
        .as_deref()
        .map(|t| repo.checkout(t, cleanup))
        .transpose()?;
    let old = Tree {
        label: req.from.to_string(),
        top: old_checkout.root().to_path_buf(),
        is_revision: true,
    };
    let new = match (&new_checkout, req.to) {
        (Some(c), Some(label)) => Tree {
            label: label.to_string(),
            top: c.root().to_path_buf(),
            is_revision: true,
        },
        _ => Tree {
            label: "working tree".to_string(),
            top: repo.top().to_path_buf(),
            is_revision: false,
        },
    };
    let paths: Vec<String> = if req.paths.is_empty() {
        let changed = repo.changed_files(&from, to.as_deref())?;
        let mut found = affected(&repo, &old, &changed)?;
        found.extend(affected(&repo, &new, &changed)?);
        found.into_iter().collect()
    } else {
        req.paths.to_vec()
    };
    let kustomizations = paths
        .par_iter()
        .map(|path| compare(&repo, cwd, path, &old, &new, req))
        .collect::<Result<Vec<_>>>()?;
    Ok(RefReport {
        old_label: old.label,
        new_label: new.label,
        kustomizations,
    })
}

/// The kustomizations under the current directory on side `tree` that read one of the
/// `changed` files (relative to the repository's top), as paths relative to the current
/// directory.
fn affected(repo: &Repo, tree: &Tree, changed: &[PathBuf]) -> Result<BTreeSet<String>> {
    let here = tree.top.join(repo.prefix());
    if !here.is_dir() {
        // The current directory is new (or gone) on this side: nothing to find there.
        return Ok(BTreeSet::new());
    }
    let candidates = render::discover(std::slice::from_ref(&here), None)?;
    let changed: Vec<PathBuf> = changed.iter().map(|f| tree.top.join(f)).collect();
    let found = render::affected(&candidates, &changed, None)?;
    Ok(found
        .iter()
        .map(|dir| {
            let rel = dir.strip_prefix(&here).unwrap_or(dir);
            if rel.as_os_str().is_empty() {
                ".".to_string()
            } else {
                rel.display().to_string()
            }
        })
        .collect())
}

/// Builds `path` on both sides and compares the builds.
fn compare(
    repo: &Repo,
    cwd: &Path,
    path: &str,
    old: &Tree,
    new: &Tree,
    req: &RefDiff,
) -> Result<KustomizationDiff> {
    // The path relative to the repository's top, the same on every side.
    let abs = load::join_clean(cwd, path);
    let rel = abs
        .strip_prefix(repo.top())
        .map_err(|_| GitError::OutsideRepository {
            path: path.to_string(),
            top: repo.top().to_path_buf(),
        })?;
    let old_side = side(old, rel, path, req.build)?;
    let new_side = side(new, rel, path, req.build)?;
    if old_side.is_none() && new_side.is_none() {
        return Err(GitError::NoSuchPath {
            path: path.to_string(),
            sides: (old.place(), new.place()),
        }
        .into());
    }
    let empty = |tree: &Tree| Side {
        label: tree.path_label(path),
        resources: Vec::new(),
    };
    let old_side = old_side.unwrap_or_else(|| empty(old));
    let new_side = new_side.unwrap_or_else(|| empty(new));
    let mut result = crate::diff::diff(&old_side, &new_side, req.diff)?;
    if req.build.provenance {
        // Positions in a checkout are shown as paths in the repository, prefixed by the
        // revision ("v1:overlays/prod/kustomization.yaml:7:3").
        let read = |p: &Path| std::fs::read_to_string(p).ok();
        let mut loc = crate::explain::report::Locator::new(&read);
        let show = |at: &crate::explain::report::Position| {
            for tree in [new, old] {
                if let Ok(rel) = at.file.strip_prefix(&tree.top) {
                    let shown = crate::explain::report::Position {
                        file: rel.to_path_buf(),
                        ..at.clone()
                    };
                    return tree.path_label(&shown.to_string());
                }
            }
            at.to_string()
        };
        result.explain(&old_side, &new_side, &mut loc, &show);
    }
    Ok(KustomizationDiff {
        path: path.to_string(),
        result,
    })
}

/// The resources of `rel` on side `tree`, or `None` when it does not exist there.
fn side(tree: &Tree, rel: &Path, path: &str, options: &BuildOptions) -> Result<Option<Side>> {
    let at = tree.top.join(rel);
    if at.symlink_metadata().is_err() {
        return Ok(None);
    }
    let mut no_stdin = std::io::empty();
    let mut side = load_side(&at.to_string_lossy(), options, &mut no_stdin)
        .map_err(|e| e.context(format!("building '{path}' {}", tree.place())))?;
    side.label = tree.path_label(path);
    Ok(Some(side))
}

impl RefReport {
    /// The text report: each kustomization's diff under a line naming it, and a total.
    pub fn to_text(&self, color: bool, stat: bool) -> String {
        if self.kustomizations.is_empty() {
            return format!("{}\n", self.nothing_affected());
        }
        let mut out = String::new();
        for k in &self.kustomizations {
            let head = format!("=== {}: {} -> {}", k.path, self.old_label, self.new_label);
            if color {
                out.push_str(&format!("\x1b[1m{head}\x1b[0m\n"));
            } else {
                out.push_str(&head);
                out.push('\n');
            }
            out.push_str(&k.result.to_text(color, stat));
        }
        if self.kustomizations.len() > 1 {
            let s = self.summary();
            let differ = self
                .kustomizations
                .iter()
                .filter(|k| k.result.has_differences())
                .count();
            out.push_str(&format!(
                "{} kustomizations, {differ} differ: {} changed, {} added, {} removed, {} unchanged\n",
                self.kustomizations.len(),
                s.changed,
                s.added,
                s.removed,
                s.unchanged
            ));
        }
        out
    }

    /// The machine-readable report: the sides, the totals, and each kustomization's
    /// comparison as `kbuild diff --output json` gives it, with its path.
    pub fn to_json(&self) -> serde_json::Value {
        let kustomizations: Vec<serde_json::Value> = self
            .kustomizations
            .iter()
            .map(|k| {
                let mut v = k.result.to_json();
                if let Some(map) = v.as_object_mut() {
                    map.insert("path".into(), k.path.clone().into());
                }
                v
            })
            .collect();
        serde_json::json!({
            "old": self.old_label,
            "new": self.new_label,
            "summary": self.summary(),
            "kustomizations": kustomizations,
        })
    }

    /// The pull-request comment: a table with a row per kustomization, then each one's
    /// changed, added and removed resources; at most `max_bytes` long.
    pub fn to_markdown(&self, max_bytes: usize) -> String {
        let title = format!("`{}` → `{}`", self.old_label, self.new_label);
        if self.kustomizations.is_empty() {
            return format!("### kbuild diff: {title}\n\n{}\n", self.nothing_affected());
        }
        let rows: Vec<(String, &DiffResult)> = self
            .kustomizations
            .iter()
            .map(|k| (format!("`{}`", k.path), &k.result))
            .collect();
        markdown_report(&title, "kustomization", &rows, true, max_bytes)
    }

    /// Resource counts over every kustomization.
    pub fn summary(&self) -> Summary {
        let mut total = Summary::default();
        for k in &self.kustomizations {
            let s = k.result.summary();
            total.changed += s.changed;
            total.added += s.added;
            total.removed += s.removed;
            total.unchanged += s.unchanged;
        }
        total
    }

    fn nothing_affected(&self) -> String {
        format!(
            "No kustomization here reads a file that differs between {} and {}.",
            self.old_label, self.new_label
        )
    }
}
