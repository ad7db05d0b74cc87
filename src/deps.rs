//! The input files of a kustomization: everything a build of it may read,
//! followed transitively through resources, bases and components.
//!
//! Used by `kbuild deps` and by `kbuild render --affected`, which renders only
//! the kustomizations whose inputs include a changed file.

use crate::build::graph::Graph;
use crate::error::{Error, Result};
use crate::load;
use crate::remote::{RemoteInput, Session};
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
///
/// A query of the kustomization graph (build/graph.rs).
pub fn input_files(dir: &Path) -> Result<BTreeSet<PathBuf>> {
    let root = load::canonical(dir, "kustomization directory")?;
    Ok(Graph::for_inputs(&root, None)?.input_files())
}

/// Everything a build of the kustomization in `dir` reads: [`input_files`], and the
/// remote entries (git repositories with the commit their ref resolves to, through
/// `remote`, and file URLs), followed into the repositories they name.
pub fn inputs(dir: &Path, remote: &Session) -> Result<(BTreeSet<PathBuf>, Vec<RemoteInput>)> {
    let is_url = dir
        .to_str()
        .is_some_and(|d| crate::remote::RepoSpec::parse(d).is_ok());
    let root = if is_url {
        dir.to_path_buf()
    } else {
        load::canonical(dir, "kustomization directory")?
    };
    let graph = Graph::for_inputs(&root, Some(remote))?;
    Ok((graph.input_files(), graph.remote_inputs()))
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
