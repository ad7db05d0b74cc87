//! Checks on the test crate itself: every test file is one of its modules, and no test is
//! written with `#[test]`, which this harness (libtest-mimic, `harness = false`) never runs.

use std::path::{Path, PathBuf};

tests! {
    files_are_modules,
    no_stray_test_attribute,
}

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The `.rs` files under `dir`, recursively (not under data directories: those hold no `.rs`).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A `tests/<file>.rs` that is not listed in `suites!` is not compiled, so its tests would
/// silently never run.
fn files_are_modules() {
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(tests_dir()).expect("tests/").flatten() {
        let path = entry.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs")
            && !["integration", "harness"].contains(&stem)
            && !crate::FILES.contains(&stem)
        {
            missing.push(format!(
                "tests/{stem}.rs is not a module of the test binary: add `{stem},` to `suites!` in tests/integration.rs"
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// `#[test]` compiles to nothing outside libtest's harness: such a test would never run.
fn no_stray_test_attribute() {
    let mut files = Vec::new();
    rust_files(&tests_dir(), &mut files);
    files.sort();
    let mut stray = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            if line.trim() == concat!("#[", "test]") {
                stray.push(format!(
                    "{}:{}: `#[test]` does not run in tests/integration.rs's harness: drop it and list the function in the file's `tests! {{ ... }}`",
                    file.display(),
                    i + 1
                ));
            }
        }
    }
    assert!(stray.is_empty(), "{}", stray.join("\n"));
}
