//! The one way to accept new expected outputs: `KBUILD_BLESS=1 cargo test [name]` rewrites
//! every kind of expected output the selected tests compare with (insta snapshots, fixture
//! files, README samples, the JSON schema, ...), then `git diff` shows what changed.
//! docs/src/internals/testing.md lists the kinds.

use std::cell::Cell;
use std::path::Path;

/// The variable's name, for messages.
pub(crate) const VAR: &str = "KBUILD_BLESS";

/// Whether expected outputs are being rewritten (`KBUILD_BLESS` set to anything but `0` or
/// the empty string).
pub(crate) fn blessing() -> bool {
    std::env::var(VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Once, before any test runs: under `KBUILD_BLESS`, insta writes its snapshot files in
/// place instead of failing (its own switch is `INSTA_UPDATE`).
pub(crate) fn init() {
    if blessing() {
        // SAFETY: called first thing in main, before any thread is started.
        unsafe { std::env::set_var("INSTA_UPDATE", "always") };
    }
}

thread_local! {
    /// Whether the running test compared with an expected output and found it different.
    static DIFFERED: Cell<bool> = const { Cell::new(false) };
}

/// Marks the start of a test on this thread (tests run one at a time per thread).
pub(crate) fn start() {
    DIFFERED.with(|d| d.set(false));
}

/// Whether the test that just ran on this thread met a blessable difference.
pub(crate) fn finish() -> bool {
    DIFFERED.with(|d| d.replace(false))
}

/// Notes that the running test found an expected output different from what it got: its
/// failure message then says how to bless it.
pub(crate) fn differs() {
    DIFFERED.with(|d| d.set(true));
}

/// [`differs`] when `differ` is true.
pub(crate) fn differs_if(differ: bool) {
    if differ {
        differs();
    }
}

/// The line added to a failure whose cause is an out-of-date expected output.
pub(crate) fn hint(name: &str) -> String {
    format!(
        "if the new output is right: {VAR}=1 cargo test --test integration -- --exact '{name}' (then review `git diff`)"
    )
}

/// Compares `got` with the file at `path`; under `KBUILD_BLESS` writes `got` there instead.
/// `Err` says how they differ.
pub(crate) fn check_file(path: &Path, got: &str) -> Result<(), String> {
    if blessing() {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        return std::fs::write(path, got).map_err(|e| format!("{}: {e}", path.display()));
    }
    let want = std::fs::read_to_string(path).unwrap_or_default();
    if want == got {
        Ok(())
    } else {
        differs();
        Err(format!(
            "{} differs\n--- expected\n{want}\n--- got\n{got}",
            path.display()
        ))
    }
}
