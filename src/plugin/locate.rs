//! Where a legacy exec plugin lives: kustomize's plugin home and the path under it.
//!
//! kustomize takes the first of these directories that exists as the plugin home:
//! `$KUSTOMIZE_PLUGIN_HOME`, `$XDG_CONFIG_HOME/kustomize/plugin` (only when the variable is
//! set), `$HOME/.config/kustomize/plugin`, `$HOME/kustomize/plugin` (`~` when `HOME` is
//! unset, as kustomize writes it). A plugin of `apiVersion: G/V` and `kind: K` is then the
//! executable `<home>/G/V/<lowercase K>/K`; failing that kustomize loads `K.so` as a Go
//! plugin, which kbuild cannot.

use crate::error::PluginProblem;
use std::path::{Path, PathBuf};

/// The plugin home, or kustomize's list of the places it looked.
pub(super) fn plugin_home() -> Result<PathBuf, PluginProblem> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let home = var("HOME").unwrap_or_else(|| "~".to_string());
    let candidates = [
        (
            var("KUSTOMIZE_PLUGIN_HOME"),
            "homed in $KUSTOMIZE_PLUGIN_HOME",
        ),
        (
            var("XDG_CONFIG_HOME").map(|x| format!("{x}/kustomize/plugin")),
            "homed in $XDG_CONFIG_HOME",
        ),
        (
            Some(format!("{home}/.config/kustomize/plugin")),
            "homed in default value of $XDG_CONFIG_HOME",
        ),
        (
            Some(format!("{home}/kustomize/plugin")),
            "homed in home directory",
        ),
    ];
    let mut tried = Vec::new();
    for (dir, note) in candidates {
        match dir {
            // kustomize asks whether the path exists, not whether it is a directory.
            Some(dir) if Path::new(&dir).exists() => return Ok(PathBuf::from(dir)),
            Some(dir) => tried.push((dir, note.to_string())),
            None => tried.push(("<no value>".to_string(), note.to_string())),
        }
    }
    Err(PluginProblem::NoPluginHome { tried })
}

/// The executable of the plugin `api_version`/`kind` under `home`.
pub(super) fn exec_plugin_path(home: &Path, api_version: &str, kind: &str) -> PathBuf {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let mut p = home.to_path_buf();
    for part in [group, version] {
        if !part.is_empty() {
            p.push(part);
        }
    }
    p.push(kind.to_lowercase());
    p.push(kind);
    p
}

/// Checks that `path` is an executable file, as kustomize does before running it: a
/// missing file may be a Go plugin (`.so` beside it), which kbuild names in its error.
pub(super) fn check_executable(path: &Path) -> Result<(), PluginProblem> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().mode() & 0o111 == 0 => Err(PluginProblem::NotExecutable {
            path: path.to_path_buf(),
        }),
        Ok(_) => Ok(()),
        Err(_) => {
            let mut so = path.as_os_str().to_owned();
            so.push(".so");
            let so = PathBuf::from(so);
            if so.exists() {
                Err(PluginProblem::GoPlugin { path: so })
            } else {
                Err(PluginProblem::Missing {
                    path: path.to_path_buf(),
                })
            }
        }
    }
}

/// The program an exec KRM function names: a bare name is looked up on PATH (as Go's
/// `exec.Command` does), a relative path is taken from the kustomization's directory (the
/// function's working directory, where Go resolves it).
pub(super) fn function_program(path: &str, root: &Path) -> Result<PathBuf, PluginProblem> {
    if path.contains('/') {
        let p = Path::new(path);
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            PathBuf::from(super::clean(&format!("{}/{path}", root.display())))
        };
        check_executable_file(&p)?;
        return Ok(p);
    }
    which(path).ok_or_else(|| PluginProblem::Spawn {
        program: path.to_string(),
        msg: "not found on PATH".to_string(),
    })
}

/// Like [`check_executable`], for a program that is no plugin-home entry (no `.so` to try).
fn check_executable_file(path: &Path) -> Result<(), PluginProblem> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(()),
        Ok(_) => Err(PluginProblem::NotExecutable {
            path: path.to_path_buf(),
        }),
        Err(e) => Err(PluginProblem::Spawn {
            program: path.display().to_string(),
            msg: e.to_string(),
        }),
    }
}

/// The first executable file called `name` in a PATH directory.
pub(super) fn which(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_paths_follow_group_version_and_lowercase_kind() {
        let home = Path::new("/h");
        assert_eq!(
            exec_plugin_path(home, "example.com/v1", "SopsGenerator"),
            Path::new("/h/example.com/v1/sopsgenerator/SopsGenerator")
        );
        // No group (apiVersion: v1): kustomize's filepath.Join drops the empty part.
        assert_eq!(
            exec_plugin_path(home, "v1", "Gen"),
            Path::new("/h/v1/gen/Gen")
        );
    }
}
