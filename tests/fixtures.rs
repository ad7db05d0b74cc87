//! Data-driven build fixtures: `tests/fixtures/<feature>/<case>/` holds an
//! `in/` tree, optionally a `dir` file naming the directory to build (relative
//! to `in/`, default `.`) and an `args` file (extra CLI flags, one per line),
//! and either `expected.yaml` (the output of `kubectl kustomize`, the oracle) or
//! `expected.err` (kbuild's own error message, with the case's `in/` path written as `$IN`
//! and the repository's as `$REPO`). A case with `expected.yaml` may also have
//! `expected.stderr`: kbuild's warnings, written the same way (stdout must still equal
//! `expected.yaml` byte for byte).
//!
//! Each case is its own test, `fixtures::<feature>/<case>`. `KBUILD_BLESS=1` rewrites
//! `expected.yaml` from the oracle the case's `args` name (`--kustomize-version v5.5.0`:
//! kustomize v5.5.0 from `$KUBECTL_V550` or `kubectl`; else v5.8.1 from `$KUBECTL_V581` or
//! `../kubectl-1.37/bin/kubectl`), never from kbuild, and `expected.err` and
//! `expected.stderr` from kbuild (a case whose kustomize fails needs its `expected.err`
//! written by hand first). `tests/regen-fixtures.sh --check` compares every
//! `expected.yaml` with its oracle (as .ci/run does).

use crate::common::{self, bless};
use std::path::{Path, PathBuf};
use std::process::Command;

tests! {
    ;
    common::cases(module_path!(), cases(), check),
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `(feature/case, directory)` for every case directory (one with an `in/`).
fn cases() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for feature in std::fs::read_dir(root()).into_iter().flatten().flatten() {
        for case in std::fs::read_dir(feature.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if case.path().join("in").is_dir() {
                let name = format!(
                    "{}/{}",
                    feature.file_name().to_string_lossy(),
                    case.file_name().to_string_lossy()
                );
                out.push((name, case.path()));
            }
        }
    }
    out.sort();
    out
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

/// The case's `args`, one per line.
fn args(case: &Path) -> Vec<String> {
    read(&case.join("args"))
        .map(|s| {
            s.lines()
                .map(str::to_string)
                .filter(|l| !l.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The kubectl with the kustomize the case's flags name, and the flags without
/// `--kustomize-version` (kubectl has no such flag).
fn oracle(args: &[String]) -> Result<(PathBuf, Vec<String>), String> {
    let mut version = "v5.8.1".to_string();
    let mut rest = Vec::new();
    let mut words = args.iter();
    while let Some(a) = words.next() {
        if a == "--kustomize-version" {
            version = words.next().cloned().unwrap_or_default();
        } else if let Some(v) = a.strip_prefix("--kustomize-version=") {
            version = v.to_string();
        } else {
            rest.push(a.clone());
        }
    }
    let want = if version.trim_start_matches('v').starts_with("5.5") {
        "v5.5.0"
    } else {
        "v5.8.1"
    };
    let kubectl = common::kubectl(want).ok_or_else(|| {
        format!("{} needs kubectl with kustomize {want} (KUBECTL_V550 / KUBECTL_V581)", bless::VAR)
    })?;
    Ok((kubectl, rest))
}

/// Rewrites `expected.yaml` from the oracle (a case expecting an error keeps it: its
/// `expected.err` is kbuild's, blessed below).
fn bless_output(case: &Path, input: &Path, dir: &str, args: &[String]) -> Result<(), String> {
    let (kubectl, flags) = oracle(args)?;
    let out = Command::new(kubectl)
        .arg("kustomize")
        .args(&flags)
        .arg(dir)
        .current_dir(input)
        .output()
        .map_err(|e| format!("kubectl: {e}"))?;
    if out.status.success() {
        let yaml = String::from_utf8_lossy(&out.stdout);
        bless::check_file(&case.join("expected.yaml"), &yaml)
    } else {
        Err(format!(
            "kustomize fails on this case ({}): write expected.err by hand",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Builds one case and compares with its expected files.
fn check(case: PathBuf) -> Result<(), String> {
    let input = case.join("in");
    let dir = read(&case.join("dir"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| ".".into());
    let args = args(&case);
    if bless::blessing() && !case.join("expected.err").is_file() {
        bless_output(&case, &input, &dir, &args)?;
    }
    // The remote cases fail to fetch; whatever they note goes here, not into $HOME.
    let cache_home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(&args)
        .arg(&dir)
        .current_dir(&input)
        .env("XDG_CACHE_HOME", cache_home.path())
        .output()
        .expect("run kbuild");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let real_in = std::fs::canonicalize(&input).unwrap_or(input.clone());
    let repo = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap_or_default();
    let stderr = stderr
        .replace(&real_in.display().to_string(), "$IN")
        .replace(&repo.display().to_string(), "$REPO");
    if let Some(expected) = read(&case.join("expected.yaml")) {
        if !out.status.success() {
            return Err(format!("expected output, got error: {stderr}"));
        }
        if stdout != expected {
            // kbuild differs from kustomize: a kbuild bug, unless the case's input changed
            // (blessing then asks kustomize again, never kbuild).
            return Err(format!(
                "output differs from kubectl kustomize's expected.yaml (if the case's input changed, {}=1 rewrites it from kubectl kustomize)\n--- expected\n{expected}\n--- got\n{stdout}",
                bless::VAR
            ));
        }
        if case.join("expected.stderr").is_file() {
            bless::check_file(&case.join("expected.stderr"), &stderr)?;
        }
        Ok(())
    } else if case.join("expected.err").is_file() {
        if out.status.success() {
            return Err("expected an error, got success".into());
        }
        if !stdout.is_empty() {
            return Err("error with partial output on stdout".into());
        }
        let expected = read(&case.join("expected.err")).unwrap_or_default();
        if stderr.trim() == expected.trim() {
            Ok(())
        } else {
            bless::check_file(&case.join("expected.err"), &stderr)
        }
    } else {
        Err("no expected.yaml or expected.err".into())
    }
}
