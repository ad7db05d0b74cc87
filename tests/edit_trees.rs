//! `kbuild edit` and `kbuild create` on whole trees: `tests/edit-trees/<command>/<case>/`
//! holds
//! - `in/`: the tree the command runs in (its top is the current directory);
//! - `args`: the command line after `kbuild`, one argument per line;
//! - `expected/`: the whole tree afterwards (every file compared byte for byte, none
//!   missing, none extra), or `expected.err`: the error on stderr, the tree then
//!   unchanged;
//! - optionally `expected.stdout` and `expected.stderr` (the temporary directory
//!   written as `$TMP`);
//! - optionally `same-build`: the tree builds to the same output before and after the
//!   command, with kbuild and with each `kubectl kustomize` installed (kustomize v5.5.0:
//!   `$KUBECTL_V550`, default `kubectl` on PATH; v5.8.1: `$KUBECTL_V581`, default
//!   `../kubectl-1.37/bin/kubectl` beside the repository);
//! - optionally `kustomize.yaml`: the kustomization as kustomize's own `edit` writes it
//!   (read off its code and tests; kustomize's `edit` is not installed here): the tree
//!   with it in place of kbuild's result must build to the same output, with each tool.
//!
//! A missing kubectl is reported on stderr as SKIPPED, and fails the run under `CI=true`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/edit-trees")
}

fn cases() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for command in std::fs::read_dir(root()).into_iter().flatten().flatten() {
        for case in std::fs::read_dir(command.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if case.path().join("args").is_file() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

/// Every file under `dir`, by relative path.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !dir.is_dir() {
        return out;
    }
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.expect("walk");
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(dir).expect("under dir");
            let bytes = std::fs::read(entry.path()).expect("read");
            out.insert(rel.display().to_string(), bytes);
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let path = to.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
}

/// The builders to compare with: kbuild always, each kubectl found.
fn builders() -> Vec<(String, Vec<String>)> {
    let mut out = vec![(
        env!("CARGO_BIN_EXE_kbuild").to_string(),
        vec!["build".to_string(), ".".to_string()],
    )];
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kubectl-1.37/bin/kubectl");
    let candidates = [
        std::env::var("KUBECTL_V550").unwrap_or_else(|_| "kubectl".into()),
        std::env::var("KUBECTL_V581").unwrap_or_else(|_| beside.display().to_string()),
    ];
    for bin in candidates {
        let works = Command::new(&bin)
            .args(["version", "--client"])
            .output()
            .is_ok_and(|o| o.status.success());
        if works {
            out.push((bin, vec!["kustomize".to_string(), ".".to_string()]));
        } else {
            common::skipped(
                &format!("the {bin} build checks of the edit trees"),
                "not found (KUBECTL_V550 / KUBECTL_V581)",
            );
        }
    }
    out
}

/// The output of building `dir`; a failure is a problem of the fixture (the checks
/// compare outputs, so each tree must build).
fn build(builder: &(String, Vec<String>), dir: &Path) -> Result<String, String> {
    let out = Command::new(&builder.0)
        .args(&builder.1)
        .current_dir(dir)
        .output()
        .expect("run builder");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{}: the build failed: {}",
            builder.0,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

fn show(files: &BTreeMap<String, Vec<u8>>) -> String {
    files
        .iter()
        .map(|(k, v)| format!("=== {k}\n{}", String::from_utf8_lossy(v)))
        .collect()
}

/// Runs one case; the problems found.
fn run_case(case: &Path, builders: &[(String, Vec<String>)]) -> Vec<String> {
    let mut problems = Vec::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).expect("mkdir");
    copy_tree(&case.join("in"), &work);
    let args: Vec<String> = read(&case.join("args"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(&args)
        .current_dir(&work)
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .output()
        .expect("run kbuild");
    let real = std::fs::canonicalize(&work).expect("canonical");
    let clean = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .replace(&real.display().to_string(), "$TMP")
            .replace(&work.display().to_string(), "$TMP")
    };
    let (stdout, stderr) = (clean(&out.stdout), clean(&out.stderr));
    let after = tree(&work);
    if let Some(want) = read(&case.join("expected.err")) {
        if out.status.success() {
            problems.push("expected an error, got success".into());
        } else if stderr.trim() != want.trim() {
            problems.push(format!(
                "error differs\n--- expected\n{want}\n--- got\n{stderr}"
            ));
        }
        if after != tree(&case.join("in")) {
            problems.push("the tree changed on error".into());
        }
        return problems;
    }
    if !out.status.success() {
        return vec![format!("failed: {stderr}")];
    }
    let expected = tree(&case.join("expected"));
    if after != expected {
        problems.push(format!(
            "tree differs\n--- expected\n{}--- got\n{}",
            show(&expected),
            show(&after)
        ));
    }
    for (file, got) in [("expected.stdout", &stdout), ("expected.stderr", &stderr)] {
        let want = read(&case.join(file)).unwrap_or_default();
        if *got != want {
            problems.push(format!(
                "{file} differs\n--- expected\n{want}\n--- got\n{got}"
            ));
        }
    }
    if case.join("same-build").exists() {
        let before = tmp.path().join("before");
        copy_tree(&case.join("in"), &before);
        for b in builders {
            let (old, new) = match (build(b, &before), build(b, &work)) {
                (Ok(old), Ok(new)) => (old, new),
                (Err(e), _) | (_, Err(e)) => {
                    problems.push(e);
                    continue;
                }
            };
            if old != new {
                problems.push(format!(
                    "{}: the build changed\n--- before\n{old}\n--- after\n{new}",
                    b.0
                ));
            }
        }
    }
    if let Some(theirs) = read(&case.join("kustomize.yaml")) {
        let kz = tmp.path().join("kustomize");
        copy_tree(&work, &kz);
        std::fs::write(kz.join("kustomization.yaml"), theirs).expect("write");
        for b in builders {
            let (ours, theirs) = match (build(b, &work), build(b, &kz)) {
                (Ok(ours), Ok(theirs)) => (ours, theirs),
                (Err(e), _) | (_, Err(e)) => {
                    problems.push(e);
                    continue;
                }
            };
            if ours != theirs {
                problems.push(format!(
                    "{}: builds differently from kustomize's edit\n--- kbuild's edit\n{ours}\n--- kustomize's edit\n{theirs}",
                    b.0
                ));
            }
        }
    }
    problems
}

#[test]
fn edit_fixtures() {
    let all = cases();
    assert!(!all.is_empty(), "no edit fixtures found");
    let builders = builders();
    let mut failures = Vec::new();
    for case in &all {
        let name = case
            .strip_prefix(root())
            .unwrap_or(case)
            .display()
            .to_string();
        for problem in run_case(case, &builders) {
            failures.push(format!("{name}: {problem}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems in {} edit fixtures:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}
