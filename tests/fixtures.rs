//! Data-driven build fixtures: `tests/fixtures/<feature>/<case>/` holds an
//! `in/` tree, optionally a `dir` file naming the directory to build (relative
//! to `in/`, default `.`) and an `args` file (extra CLI flags, one per line),
//! and either `expected.yaml` (the output of `kubectl kustomize`, generated
//! by `tests/regen-fixtures.sh`) or `expected.err` (kbuild's own error message,
//! with the case's `in/` path written as `$IN` and the repository's as `$REPO`). A case with
//! `expected.yaml` may also have `expected.stderr`: kbuild's warnings, written the same way
//! (stdout must still equal `expected.yaml` byte for byte).

use std::path::{Path, PathBuf};
use std::process::Command;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for feature in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for case in std::fs::read_dir(feature.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if case.path().join("in").is_dir() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

#[test]
fn fixtures() {
    let mut failures = Vec::new();
    let all = cases();
    assert!(!all.is_empty(), "no fixtures found");
    // The remote cases fail to fetch; whatever they note goes here, not into $HOME.
    let cache_home = tempfile::tempdir().expect("tempdir");
    for case in &all {
        let input = case.join("in");
        let dir = read(&case.join("dir"))
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|| ".".into());
        let args: Vec<String> = read(&case.join("args"))
            .map(|s| {
                s.lines()
                    .map(str::to_string)
                    .filter(|l| !l.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
            .args(&args)
            .arg(&dir)
            .current_dir(&input)
            .env("XDG_CACHE_HOME", cache_home.path())
            .output()
            .expect("run kbuild");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let name = case
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")))
            .unwrap_or(case)
            .display()
            .to_string();
        if let Some(expected) = read(&case.join("expected.yaml")) {
            if !out.status.success() {
                failures.push(format!("{name}: expected output, got error: {stderr}"));
            } else if stdout != expected {
                failures.push(format!(
                    "{name}: output differs\n--- expected\n{expected}\n--- got\n{stdout}"
                ));
            } else if let Some(want) = read(&case.join("expected.stderr")) {
                let real_in = std::fs::canonicalize(&input).unwrap_or(input.clone());
                let got = stderr.replace(&real_in.display().to_string(), "$IN");
                if got != want {
                    failures.push(format!(
                        "{name}: stderr differs\n--- expected\n{want}\n--- got\n{got}"
                    ));
                }
            }
        } else if let Some(expected) = read(&case.join("expected.err")) {
            let real_in = std::fs::canonicalize(&input).unwrap_or(input.clone());
            let repo = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap_or_default();
            let got = stderr
                .replace(&real_in.display().to_string(), "$IN")
                .replace(&repo.display().to_string(), "$REPO");
            if out.status.success() {
                failures.push(format!("{name}: expected an error, got success"));
            } else if !stdout.is_empty() {
                failures.push(format!("{name}: error with partial output on stdout"));
            } else if got.trim() != expected.trim() {
                failures.push(format!(
                    "{name}: error differs\n--- expected\n{expected}\n--- got\n{got}"
                ));
            }
        } else {
            failures.push(format!("{name}: no expected.yaml or expected.err"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
