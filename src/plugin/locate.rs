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
///
/// The group, version and kind become path components, so each must be one plain name:
/// kbuild refuses `/`, `\`, `.`, `..`, an empty part (but for the group of a bare
/// `apiVersion: V`) and control characters. kustomize joins them unchecked, so `../..`
/// in an apiVersion leaves its plugin home, and an absolute kind would replace the home
/// in Rust's `Path::push` (kustomize's `filepath.Join` keeps it below).
pub(super) fn exec_plugin_path(
    home: &Path,
    api_version: &str,
    kind: &str,
) -> Result<PathBuf, PluginProblem> {
    let bad = |part: &'static str, value: &str, why: &'static str| PluginProblem::UnsafeName {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        part,
        value: value.to_string(),
        why,
    };
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => {
            component(g).map_err(|why| bad("group", g, why))?;
            (g, v)
        }
        None => ("", api_version),
    };
    component(version).map_err(|why| bad("version", version, why))?;
    component(kind).map_err(|why| bad("kind", kind, why))?;
    let lower = kind.to_lowercase();
    component(&lower).map_err(|why| bad("kind", kind, why))?;
    let mut p = home.to_path_buf();
    if !group.is_empty() {
        p.push(group);
    }
    p.push(version);
    p.push(lower);
    p.push(kind);
    Ok(p)
}

/// Why `part` cannot be one directory or file name under the plugin home, if it cannot.
fn component(part: &str) -> Result<(), &'static str> {
    if part.is_empty() {
        Err("it is empty")
    } else if part == "." || part == ".." {
        Err("it is '.' or '..'")
    } else if part.contains(['/', '\\']) {
        Err("it holds a '/' or '\\'")
    } else if part.chars().any(char::is_control) {
        Err("it holds a control character")
    } else {
        Ok(())
    }
}

/// Checks that `program`, with every symlink resolved, is inside `home` (also resolved):
/// a symlink in the plugin home must not lead kbuild to run a program from elsewhere.
/// Called once `program` is known to exist.
pub(super) fn check_inside_home(home: &Path, program: &Path) -> Result<(), PluginProblem> {
    let outside = |resolved: PathBuf| PluginProblem::OutsideHome {
        path: program.to_path_buf(),
        resolved,
        home: home.to_path_buf(),
    };
    let files = |e: std::io::Error| PluginProblem::Spawn {
        program: program.display().to_string(),
        msg: format!("cannot resolve its path: {e}"),
    };
    let home = std::fs::canonicalize(home).map_err(files)?;
    let resolved = std::fs::canonicalize(program).map_err(files)?;
    if resolved.starts_with(&home) && resolved != home {
        Ok(())
    } else {
        Err(outside(resolved))
    }
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
            exec_plugin_path(home, "example.com/v1", "SopsGenerator").unwrap(),
            Path::new("/h/example.com/v1/sopsgenerator/SopsGenerator")
        );
        // No group (apiVersion: v1): kustomize's filepath.Join drops the empty part.
        assert_eq!(
            exec_plugin_path(home, "v1", "Gen").unwrap(),
            Path::new("/h/v1/gen/Gen")
        );
    }

    #[test]
    fn names_that_are_no_single_path_component_are_refused() {
        let home = Path::new("/h");
        for (api, kind, part) in [
            ("example.com/v1", "/usr/bin/id", "kind"),
            ("example.com/v1", "../../x", "kind"),
            ("example.com/v1", "..", "kind"),
            ("example.com/v1", ".", "kind"),
            ("example.com/v1", "", "kind"),
            ("example.com/v1", "a\\b", "kind"),
            ("example.com/v1", "a\nb", "kind"),
            ("example.com/v1", "a\0b", "kind"),
            ("../../../usr/v1", "K", "group"),
            ("a/../../v1", "K", "version"),
            ("example.com/..", "K", "version"),
            ("/v1", "K", "group"),
            ("g/", "K", "version"),
            ("", "K", "version"),
            ("..", "K", "version"),
            ("g/v1/x", "K", "version"),
        ] {
            match exec_plugin_path(home, api, kind) {
                Err(PluginProblem::UnsafeName { part: p, .. }) => {
                    assert_eq!(p, part, "{api} {kind}")
                }
                other => panic!("{api:?} {kind:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_program_resolving_outside_the_home_is_refused() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join("g/v1/k")).unwrap();
        std::fs::write(tmp.path().join("outside"), "#!/bin/sh\n").unwrap();
        std::fs::write(home.join("g/v1/k/Inside"), "#!/bin/sh\n").unwrap();
        symlink(tmp.path().join("outside"), home.join("g/v1/k/K")).unwrap();
        symlink(tmp.path(), home.join("up")).unwrap();
        symlink("Inside", home.join("g/v1/k/Relative")).unwrap();
        assert!(check_inside_home(&home, &home.join("g/v1/k/Inside")).is_ok());
        assert!(check_inside_home(&home, &home.join("g/v1/k/Relative")).is_ok());
        for p in [home.join("g/v1/k/K"), home.join("up/outside")] {
            assert!(
                matches!(
                    check_inside_home(&home, &p),
                    Err(PluginProblem::OutsideHome { .. })
                ),
                "{}",
                p.display()
            );
        }
    }
}
