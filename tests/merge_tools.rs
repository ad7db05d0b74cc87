//! Runs the `merge3` and `apply` subcommands on the cases under
//! `tests/merge-fixtures/<command>/<case>/`: `args` holds the arguments (one per line, paths
//! relative to the case directory), `expected.out` the standard output, `expected.err` the
//! standard error and `expected.code` the exit code when it is not 0. Each case is a test,
//! `merge_tools::<command>/<case>`; `KBUILD_BLESS=1` writes the expectations from the current
//! output (then review them).
//!
//! `apply` results were cross-checked with `kubectl patch --local --type strategic`.

use std::path::{Path, PathBuf};
use std::process::Command;

tests! {
    merge3_in_place,
    merge3_in_place_error_writes_nothing;
    crate::common::cases(module_path!(), named_cases(), |dir| run_case(&dir)),
}

fn run_case(dir: &Path) -> Result<(), String> {
    let args_text = std::fs::read_to_string(dir.join("args")).map_err(|e| e.to_string())?;
    let args: Vec<&str> = args_text.lines().filter(|l| !l.trim().is_empty()).collect();
    let output = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(&args)
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let code = output.status.code().unwrap_or(-1);
    if crate::common::bless::blessing() {
        std::fs::write(dir.join("expected.out"), &stdout).map_err(|e| e.to_string())?;
        std::fs::write(dir.join("expected.err"), &stderr).map_err(|e| e.to_string())?;
        if code != 0 {
            std::fs::write(dir.join("expected.code"), format!("{code}\n"))
                .map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    let want_code: i32 = read("expected.code").trim().parse().unwrap_or(0);
    let mut problems = Vec::new();
    if stdout != read("expected.out") {
        problems.push(format!("stdout differs:\n{stdout}"));
    }
    if stderr != read("expected.err") {
        problems.push(format!("stderr differs:\n{stderr}"));
    }
    if code != want_code {
        problems.push(format!("exit code {code}, want {want_code}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        crate::common::bless::differs();
        Err(problems.join("\n"))
    }
}

/// `(command/case, directory)` for every case, sorted.
fn named_cases() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/merge-fixtures");
    let mut cases: Vec<_> = walk(&root);
    cases.sort();
    assert!(!cases.is_empty(), "no cases under {}", root.display());
    cases
        .into_iter()
        .map(|c| {
            let name = c.strip_prefix(&root).unwrap_or(&c).display().to_string();
            (name, c)
        })
        .collect()
}

/// Case directories: those holding an `args` file.
fn walk(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for command in std::fs::read_dir(root).into_iter().flatten().flatten() {
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
    out
}

/// `--in-place` rewrites DEST's files: merged resources stay in their file, deleted ones
/// leave it (a file left empty is removed), new ones go to the file of the same relative
/// path as upstream; a file whose resources all stay as they were is not written.
fn merge3_in_place() {
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/merge-fixtures/merge3/package-update");
    let tmp = tempfile::tempdir().expect("temporary directory");
    let dest = tmp.path().join("dest");
    std::fs::create_dir(&dest).expect("dest");
    for entry in std::fs::read_dir(case.join("dest")).expect("fixture") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dest.join(entry.file_name())).expect("copy");
    }
    let status = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(["merge3", "--original"])
        .arg(case.join("original"))
        .arg("--updated")
        .arg(case.join("updated"))
        .arg("--dest")
        .arg(&dest)
        .arg("--in-place")
        .output()
        .expect("run kbuild");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let mut files: Vec<String> = std::fs::read_dir(&dest)
        .expect("dest")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["app.yaml", "netpol.yaml", "pdb.yaml"]);
    let app = std::fs::read_to_string(dest.join("app.yaml")).expect("app.yaml");
    assert!(
        app.contains("image: example/web:2.0") && app.contains("replicas: 3"),
        "{app}"
    );
    assert!(
        app.contains("type: NodePort") && app.contains("name: proxy"),
        "{app}"
    );
    let pdb = std::fs::read_to_string(dest.join("pdb.yaml")).expect("pdb.yaml");
    assert!(
        pdb.starts_with("apiVersion: policy/v1\nkind: PodDisruptionBudget\n"),
        "{pdb}"
    );
    // Byte for byte, its comment and flow list included.
    let netpol = std::fs::read(dest.join("netpol.yaml")).expect("netpol.yaml");
    let before = std::fs::read(case.join("dest/netpol.yaml")).expect("fixture netpol.yaml");
    assert_eq!(netpol, before);
}

/// A failing merge writes nothing.
fn merge3_in_place_error_writes_nothing() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    let dest = tmp.path().join("dest.yaml");
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n";
    std::fs::write(&dest, text).expect("write");
    let bad = tmp.path().join("bad.yaml");
    std::fs::write(&bad, "kind: [").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(["merge3", "--original"])
        .arg(&dest)
        .arg("--updated")
        .arg(&bad)
        .arg("--dest")
        .arg(&dest)
        .arg("--in-place")
        .output()
        .expect("run kbuild");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.yaml"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&dest).expect("read"), text);
}
