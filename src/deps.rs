//! The input files of a kustomization: everything a build of it may read,
//! followed transitively through resources, bases and components.
//!
//! Used by `kbuild deps` and by `kbuild render --affected`, which renders only
//! the kustomizations whose inputs include a changed file.

use crate::error::{Error, Result};
use crate::kustomization::{Kustomization, files};
use crate::load;
use crate::load::read_kustomization as load_kustomization;
use crate::remote::{RemoteInput, RepoSpec, Session};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The files a build of the kustomization in `dir` reads: its kustomization
/// file, resource files, patch files, generator inputs, `crds`,
/// `configurations`, `openapi`, `replacements` and plugin config files, and
/// the same for every kustomization or component it includes. Paths are
/// absolute and symlink-resolved where the file exists; a missing file is
/// listed at its lexical path (a build would fail on it, and a change that
/// creates it must still count).
/// Remote entries are not followed: they name no local file (a changed ref changes the
/// kustomization file that holds it, which is listed).
pub fn input_files(dir: &Path) -> Result<BTreeSet<PathBuf>> {
    let root = load::canonical(dir, "kustomization directory")?;
    let mut walk = Walk::default();
    walk.kustomization(&root)?;
    Ok(walk.files)
}

/// Everything a build of the kustomization in `dir` reads: [`input_files`], and the
/// remote entries (git repositories with the commit their ref resolves to, through
/// `remote`, and file URLs), followed into the repositories they name.
pub fn inputs(dir: &Path, remote: &Session) -> Result<(BTreeSet<PathBuf>, Vec<RemoteInput>)> {
    let mut walk = Walk {
        remote: Some(remote),
        ..Walk::default()
    };
    match dir.to_str().filter(|d| RepoSpec::parse(d).is_ok()) {
        // A git URL as the root, read as the build reads it (kustomize's loader tries the
        // repo-spec parse before the file system).
        Some(url) => walk.file_or_dir(Path::new(""), url)?,
        None => walk.kustomization(&load::canonical(dir, "kustomization directory")?)?,
    }
    let mut remote_inputs: Vec<RemoteInput> = walk.remote_inputs.into_iter().collect();
    remote_inputs.sort();
    Ok((walk.files, remote_inputs))
}

#[derive(Default)]
struct Walk<'r> {
    files: BTreeSet<PathBuf>,
    /// Directories already walked (a diamond of bases is walked once; a
    /// cycle, which the build reports, stops here).
    seen: BTreeSet<PathBuf>,
    /// Resolves git entries, when remote inputs are asked for.
    remote: Option<&'r Session>,
    remote_inputs: BTreeSet<RemoteInput>,
}

impl Walk<'_> {
    fn kustomization(&mut self, dir: &Path) -> Result<()> {
        if !self.seen.insert(dir.to_path_buf()) {
            return Ok(());
        }
        let (file, k) = load_kustomization(dir)?;
        self.insert(file.clone());
        self.body(dir, &k)
            .map_err(|e| e.context(format!("in {}", file.display())))
    }

    fn body(&mut self, dir: &Path, k: &Kustomization) -> Result<()> {
        for named in files::named(k) {
            if named.may_be_dir() {
                self.file_or_dir(dir, named.path)?;
            } else {
                self.file(dir, named.path);
            }
        }
        self.helm_charts(dir, k);
        Ok(())
    }

    /// The files of the helm charts vendored in the chart home (`<chartHome>/<name>`, or
    /// `<chartHome>/<name>-<version>/<name>` for a chart with a version and a repo). A chart
    /// that would be pulled names no local input.
    fn helm_charts(&mut self, dir: &Path, k: &Kustomization) {
        use crate::kustomization::helm::charts_and_globals;
        let (charts, globals) = charts_and_globals(
            &k.helm_charts,
            k.helm_globals.as_ref(),
            &k.helm_chart_inflation_generator,
        );
        let home = if globals.chart_home.is_empty() {
            "charts"
        } else {
            &globals.chart_home
        };
        let home = load::join_clean(dir, home);
        for c in &charts {
            let mut chart = home.clone();
            if !c.version.is_empty() && !c.repo.is_empty() {
                chart.push(format!("{}-{}", c.name, c.version));
            }
            chart.push(&c.name);
            for entry in walkdir::WalkDir::new(&chart).into_iter().flatten() {
                if entry.file_type().is_file() {
                    let path = entry.path();
                    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                    self.insert(path);
                }
            }
        }
    }

    /// A file of a local kustomization (one in a git checkout is no local input).
    fn insert(&mut self, path: PathBuf) {
        let in_checkout = self
            .remote
            .is_some_and(|r| r.clone_containing(&path).is_some());
        if !in_checkout {
            self.files.insert(path);
        }
    }

    /// A resource-like entry: a file, or a directory that is walked in turn.
    fn file_or_dir(&mut self, dir: &Path, entry: &str) -> Result<()> {
        if let Ok(spec) = RepoSpec::parse(entry) {
            let Some(remote) = self.remote else {
                return Ok(());
            };
            // As the build: an http(s) entry that is a file is a file, unless the
            // repository it may name is at hand already.
            if load::is_remote_file(entry)
                && !remote.cached_immutable(&spec)
                && remote.get_file(entry).is_ok()
            {
                self.file(dir, entry);
                return Ok(());
            }
            let checkout = remote.checkout(&spec)?;
            self.remote_inputs.insert(RemoteInput {
                url: crate::remote::git::redact(entry),
                commit: Some(checkout.commit.clone()),
            });
            let base = load::join_clean(&checkout.dir, &spec.kust_root);
            // As the build: the path must stay in the checkout after symlinks, so that
            // a repository cannot make `deps` read a kustomization of this machine.
            let real = load::canonical(&base, "directory")?;
            in_checkout(&real, &checkout.dir, entry)?;
            return self.kustomization(&real).map_err(|e| {
                e.context(format!("following '{}'", crate::remote::git::redact(entry)))
            });
        }
        if load::is_remote_file(entry) {
            self.file(dir, entry);
            return Ok(());
        }
        let joined = load::join_clean(dir, entry);
        if joined.is_dir() {
            let real = load::canonical(&joined, "directory")?;
            // A base of a remote kustomization stays in its checkout (the build's
            // `check_base`).
            if let Some(repo) = self.remote.and_then(|r| r.clone_containing(dir)) {
                in_checkout(&real, &repo, entry)?;
            }
            return self
                .kustomization(&real)
                .map_err(|e| e.context(format!("following '{entry}'")));
        }
        self.file(dir, entry);
        Ok(())
    }

    fn file(&mut self, dir: &Path, entry: &str) {
        if load::is_remote_file(entry) {
            // A URL names no local input; listed as it is, not fetched.
            if self.remote.is_some() {
                self.remote_inputs.insert(RemoteInput {
                    url: crate::remote::git::redact(entry),
                    commit: None,
                });
            }
            return;
        }
        let joined = load::join_clean(dir, entry);
        let path = std::fs::canonicalize(&joined).unwrap_or(joined);
        self.insert(path);
    }
}

/// Refuses `real`, which `entry` of a kustomization in the checkout `repo` resolved to,
/// when it is outside that checkout.
fn in_checkout(real: &Path, repo: &Path, entry: &str) -> Result<()> {
    if real.starts_with(repo) {
        return Ok(());
    }
    Err(Error::msg(format!(
        "security: bases in kustomizations found in cloned git repos must be within the repo, but base '{}' ({}) is outside '{}'",
        crate::remote::git::redact(entry),
        real.display(),
        repo.display()
    )))
}

/// Makes `path` absolute and lexically clean (relative to the current
/// directory), resolving symlinks when it exists, so it compares with the
/// paths [`input_files`] returns. A deleted file keeps its lexical path.
pub fn normalize(path: &Path) -> Result<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Ok(real);
    }
    let cwd = std::env::current_dir().map_err(|e| Error::Io {
        path: PathBuf::from("."),
        source: e,
    })?;
    // The parent may exist even when the file was deleted: resolve it so a
    // symlinked checkout still matches.
    let joined = load::join_clean(&cwd, &path.to_string_lossy());
    match (joined.parent(), joined.file_name()) {
        (Some(parent), Some(name)) => Ok(std::fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or(joined)),
        _ => Ok(joined),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn follows_bases_components_patches_and_generators() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().canonicalize().unwrap();
        write(
            &d,
            "base/kustomization.yaml",
            "resources: [deploy.yaml]\nconfigMapGenerator:\n- name: c\n  files: [k=app.properties]\n  envs: [env.txt]\n",
        );
        write(&d, "base/deploy.yaml", "kind: X\n");
        write(&d, "base/app.properties", "a=b\n");
        write(&d, "base/env.txt", "A=b\n");
        write(
            &d,
            "comp/kustomization.yaml",
            "kind: Component\npatches:\n- path: p.yaml\n",
        );
        write(&d, "comp/p.yaml", "kind: X\n");
        write(
            &d,
            "overlay/kustomization.yaml",
            "resources: [../base]\ncomponents: [../comp]\npatchesStrategicMerge: [smp.yaml]\nconfigurations: [conf.yaml]\n",
        );
        let files = input_files(&d.join("overlay")).unwrap();
        let rel: Vec<String> = files
            .iter()
            .map(|p| p.strip_prefix(&d).unwrap().display().to_string())
            .collect();
        assert_eq!(
            rel,
            [
                "base/app.properties",
                "base/deploy.yaml",
                "base/env.txt",
                "base/kustomization.yaml",
                "comp/kustomization.yaml",
                "comp/p.yaml",
                "overlay/conf.yaml",
                "overlay/kustomization.yaml",
                "overlay/smp.yaml",
            ]
        );
    }

    #[test]
    fn a_cycle_does_not_loop() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        write(d, "a/kustomization.yaml", "resources: [../b]\n");
        write(d, "b/kustomization.yaml", "resources: [../a]\n");
        assert_eq!(input_files(&d.join("a")).unwrap().len(), 2);
    }
}
