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

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

tests! {
    ;
    common::cases(module_path!(), named_cases(), edit_tree),
}

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
        } else if stderr.trim() != want.trim()
            && let Err(e) = common::bless::check_file(&case.join("expected.err"), &stderr)
        {
            problems.push(e);
        }
        if after != tree(&case.join("in")) {
            problems.push("the tree changed on error".into());
        }
        return problems;
    }
    if !out.status.success() {
        return vec![format!("failed: {stderr}")];
    }
    if common::bless::blessing() {
        let _ = std::fs::remove_dir_all(case.join("expected"));
        copy_tree(&work, &case.join("expected"));
    }
    let expected = tree(&case.join("expected"));
    if after != expected {
        common::bless::differs();
        problems.push(format!(
            "tree differs\n--- expected\n{}--- got\n{}",
            show(&expected),
            show(&after)
        ));
    }
    for (file, got) in [("expected.stdout", &stdout), ("expected.stderr", &stderr)] {
        let path = case.join(file);
        if (!got.is_empty() || path.exists())
            && let Err(e) = common::bless::check_file(&path, got)
        {
            problems.push(e);
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

/// `(command/case, directory)` for every case: one test each, `edit_trees::<command>/<case>`.
fn named_cases() -> Vec<(String, PathBuf)> {
    let all = cases();
    assert!(!all.is_empty(), "no edit fixtures found");
    all.into_iter()
        .map(|case| {
            let name = case.strip_prefix(root()).unwrap_or(&case).display().to_string();
            (name, case)
        })
        .collect()
}

/// One case, with the builders found (kbuild and the kubectls).
fn edit_tree(case: PathBuf) -> Result<(), String> {
    static BUILDERS: std::sync::OnceLock<Vec<(String, Vec<String>)>> = std::sync::OnceLock::new();
    let problems = run_case(&case, BUILDERS.get_or_init(builders));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n\n"))
    }
}
