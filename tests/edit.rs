//! `kbuild edit` through the real binary.
//!
//! Fixture cases (tests/fixtures/edit/<case>/): `in/` is the tree, `commands` one edit
//! command a line (a JSON array of arguments, run in `in/<cwd>` where `cwd` is the
//! first line when it starts with `cwd:`), then either `expected.yaml` (the exact
//! kustomization file afterwards) or `expected.err` (text the error must hold; the file
//! must be left byte for byte). A case may hold `kustomize.yaml`: what kustomize's own
//! `edit` writes for the same commands (from kustomize's edit tests and docs); the tree
//! with that file must build to the same output as the tree kbuild edited. And when a
//! `kubectl` is available, `kubectl kustomize` of the edited tree must print what
//! `kbuild build` prints.

use std::path::{Path, PathBuf};
use std::process::Command;

fn kbuild(dir: &Path, args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(args)
        .current_dir(dir)
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .output()
        .expect("run kbuild")
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let rel = entry.path().strip_prefix(from).expect("prefix");
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

/// A `kubectl` whose `kustomize` prints what kbuild's default build (v5.8.1) prints for
/// trees without version-specific features: `$KUBECTL_V581`, kubectl v1.37 beside the
/// repository, or the `kubectl` on PATH.
fn kubectl() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("KUBECTL_V581").map(PathBuf::from),
        Some(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../kubectl-1.37/bin/kubectl"
        ))),
        Some(PathBuf::from("kubectl")),
    ];
    candidates.into_iter().flatten().find(|k| {
        Command::new(k)
            .args(["version", "--client"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn build(dir: &Path) -> String {
    let out = kbuild(dir, &["build".into(), ".".into()]);
    assert!(
        out.status.success(),
        "build of {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

struct Case {
    name: String,
    dir: PathBuf,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/edit");
    let mut cases: Vec<Case> = std::fs::read_dir(&root)
        .expect("fixtures/edit")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("commands").is_file())
        .map(|dir| Case {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            dir,
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

fn run_case(case: &Case, kubectl: Option<&Path>) -> Result<(), String> {
    let tmp = tempfile::tempdir().expect("tmp");
    let tree = tmp.path().join("in");
    copy_tree(&case.dir.join("in"), &tree);
    let commands = std::fs::read_to_string(case.dir.join("commands")).expect("commands");
    let mut lines = commands.lines().filter(|l| !l.trim().is_empty()).peekable();
    let cwd = match lines.peek().and_then(|l| l.strip_prefix("cwd:")) {
        Some(rel) => {
            let rel = rel.trim().to_string();
            lines.next();
            tree.join(rel)
        }
        None => tree.clone(),
    };
    let file = cwd.join("kustomization.yaml");
    let before = std::fs::read(&file).unwrap_or_default();
    let mut failure = None;
    for line in lines {
        let args: Vec<String> = serde_json::from_str(line).map_err(|e| format!("{line}: {e}"))?;
        let out = kbuild(&cwd, &args);
        if !out.status.success() {
            failure = Some((line.to_string(), out));
            break;
        }
        if !out.stdout.is_empty() && !args.iter().any(|a| a == "--dry-run") {
            return Err(format!("{line}: printed on stdout"));
        }
    }
    let after = std::fs::read_to_string(&file).unwrap_or_default();
    let expected_err = case.dir.join("expected.err");
    if expected_err.is_file() {
        let want = std::fs::read_to_string(&expected_err).expect("expected.err");
        let Some((line, out)) = failure else {
            return Err("expected an error, every command succeeded".into());
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !stderr.contains(want.trim()) {
            return Err(format!("{line}: stderr {stderr:?} lacks {:?}", want.trim()));
        }
        if !out.stdout.is_empty() {
            return Err(format!("{line}: printed on stdout after an error"));
        }
        if after.as_bytes() != before.as_slice() {
            return Err(format!("{line}: failed but changed the file"));
        }
        return Ok(());
    }
    if let Some((line, out)) = failure {
        return Err(format!("{line}: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let expected = std::fs::read_to_string(case.dir.join("expected.yaml")).expect("expected.yaml");
    if after != expected {
        return Err(format!(
            "kustomization differs:\n--- expected\n{expected}\n--- got\n{after}"
        ));
    }
    let ours = build(&cwd);
    let kustomize_file = case.dir.join("kustomize.yaml");
    if kustomize_file.is_file() {
        std::fs::copy(&kustomize_file, &file).expect("copy");
        let theirs = build(&cwd);
        std::fs::write(&file, &after).expect("restore");
        if ours != theirs {
            return Err(format!(
                "kustomize's own edit builds differently:\n--- kustomize\n{theirs}\n--- kbuild\n{ours}"
            ));
        }
    }
    if let Some(kubectl) = kubectl {
        let out = Command::new(kubectl)
            .args(["kustomize", "."])
            .current_dir(&cwd)
            .output()
            .expect("kubectl");
        let reference = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || reference != ours {
            return Err(format!(
                "kubectl kustomize of the edited tree differs:\n--- kubectl\n{reference}{}\n--- kbuild\n{ours}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    Ok(())
}

#[test]
fn edit_fixtures() {
    let kubectl = kubectl();
    if kubectl.is_none() {
        eprintln!("SKIPPED the kubectl kustomize half of edit_fixtures: no kubectl found");
    }
    let mut failures = Vec::new();
    let all = cases();
    assert!(!all.is_empty(), "no edit fixtures");
    for case in &all {
        if let Err(e) = run_case(case, kubectl.as_deref()) {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} edit fixtures failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}
