//! `--allow-plugin`: when the list is given, the only plugins that may run.
//!
//! Each kind of plugin is allowed by what decides the program it runs, and by nothing
//! else:
//! - a legacy exec plugin (a program in the plugin home) by its config's `kind`, or by the
//!   program's absolute path: the plugin home is the operator's, so a kind names programs
//!   the operator installed;
//! - an exec KRM function only by its program's absolute path, never by its config's
//!   kind: the kustomization chooses both the kind and `exec.path`, so allowing a kind
//!   must not let any config of that kind name any program;
//! - a container KRM function only by its image, written exactly as the config writes it.
//!
//! Matching is exact: kinds and images compare as written (case included); a path entry
//! must be absolute and names the program when both, lexically cleaned (`a//b`, `x/`,
//! `./`), are the same text and, every symlink resolved, the same file. A symlink to an
//! allowed program is another program (a multi-call binary acts on its name), and a
//! relative entry (`./x`) never names a path.

use crate::error::PluginProblem;
use std::path::{Path, PathBuf};

/// What a plugin would run, as `--allow-plugin` judges it.
pub(super) enum Candidate<'a> {
    /// A legacy exec plugin: its config's kind and its program in the plugin home.
    Home { kind: &'a str, path: &'a Path },
    /// An exec KRM function's program.
    Exec { path: &'a Path },
    /// A container KRM function's image.
    Image(&'a str),
}

/// Whether `list` (non-empty) allows `candidate`; the error says what it would run and
/// what would allow it.
pub(super) fn check(list: &[String], candidate: &Candidate<'_>) -> Result<(), PluginProblem> {
    let (allowed, runs, by) = match candidate {
        Candidate::Home { kind, path } => (
            list.iter().any(|a| a == kind || names_path(a, path)),
            path.display().to_string(),
            "a program in the plugin home is allowed by its config's kind or its absolute path",
        ),
        Candidate::Exec { path } => (
            list.iter().any(|a| names_path(a, path)),
            path.display().to_string(),
            "an exec function is allowed only by its program's absolute path, not by its config's kind",
        ),
        Candidate::Image(image) => (
            list.iter().any(|a| a == image),
            format!("the image {image}"),
            "a container function is allowed only by its image, not by its config's kind",
        ),
    };
    if allowed {
        Ok(())
    } else {
        Err(PluginProblem::NotAllowed { runs, by })
    }
}

/// Whether the `--allow-plugin` entry `entry` names the program `program` (see the module
/// comment).
fn names_path(entry: &str, program: &Path) -> bool {
    if !entry.starts_with('/') {
        return false;
    }
    let Some(program_text) = absolute(program) else {
        return false;
    };
    if super::clean(entry) != super::clean(&program_text) {
        return false;
    }
    match (std::fs::canonicalize(entry), std::fs::canonicalize(program)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// `path` as absolute text (a relative plugin home is taken from the current directory).
fn absolute(path: &Path) -> Option<String> {
    let abs: PathBuf = std::path::absolute(path).ok()?;
    abs.to_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn allows(list: &[&str], c: &Candidate<'_>) -> bool {
        let list: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        check(&list, c).is_ok()
    }

    #[test]
    fn each_plugin_is_allowed_only_by_what_decides_its_program() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(tmp.path()).unwrap();
        let prog = dir.join("fn");
        std::fs::write(&prog, "").unwrap();
        symlink(&prog, dir.join("link")).unwrap();
        let p = prog.display().to_string();
        let d = dir.display().to_string();
        let exec = Candidate::Exec { path: &prog };
        let home = Candidate::Home {
            kind: "Fn",
            path: &prog,
        };
        // A kind allows a plugin-home program, never an exec function or an image.
        assert!(allows(&["Fn"], &home));
        assert!(!allows(&["Fn"], &exec));
        assert!(!allows(&["Fn"], &Candidate::Image("img:v1")));
        assert!(!allows(&["fn", "FN"], &home));
        // Paths: absolute, cleaned, the same file.
        for entry in [p.clone(), format!("{d}//fn"), format!("{d}/./fn")] {
            assert!(allows(&[&entry], &exec), "{entry}");
            assert!(allows(&[&entry], &home), "{entry}");
        }
        for entry in ["./fn", "fn", &format!("{d}/link"), &format!("{d}/FN")] {
            assert!(!allows(&[entry], &exec), "{entry}");
        }
        // The program being a symlink to an allowed path is another program.
        let link = dir.join("link");
        assert!(!allows(&[&p], &Candidate::Exec { path: &link }));
        // Images: exactly as written.
        assert!(allows(
            &["ghcr.io/x/fn:v1"],
            &Candidate::Image("ghcr.io/x/fn:v1")
        ));
        for entry in ["ghcr.io/x/fn", "GHCR.IO/x/fn:v1", "ghcr.io/x/fn:v1/"] {
            assert!(!allows(&[entry], &Candidate::Image("ghcr.io/x/fn:v1")));
        }
    }
}
