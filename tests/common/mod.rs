//! Helpers shared by the integration tests (the modules of tests/integration.rs, which
//! reach this one as `crate::common`).

use std::path::Path;

pub(crate) mod bless;
pub(crate) mod plugins;

/// Writes `text` to `dir/rel`, creating parent directories.
pub(crate) fn write(dir: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// Argo CD's `versionWithBinaryPath` and `getSemver` (util/kustomize/kustomize.go), step for
/// step, on the output of `kbuild version --short`.
pub(crate) fn argo_cd_semver(output: &str) -> Option<String> {
    let mut version = output.trim();
    version = version.strip_prefix('{').unwrap_or(version);
    version = version.strip_suffix('}').unwrap_or(version);
    let version = version.trim().replace("  ", " ");
    let version = version.strip_prefix("kustomize/").unwrap_or(&version);
    // Masterminds semver's regular expression, as Argo CD copies it.
    let semver = regex::Regex::new(concat!(
        r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?",
        r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?",
        r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    ))
    .expect("regex");
    semver.find(version).map(|m| m.as_str().to_string())
}

/// A named test taking what its prerequisite check found.
pub(crate) type Needing<T> = (&'static str, fn(T));

/// The trials of a test file whose tests need a prerequisite, each given what the check
/// found. The check runs once, when the first of them runs (not when another file's tests
/// are selected). A missing prerequisite (`Err(reason)`) reports each test as ignored with
/// the reason, never as passed; under `CI=true` it fails them instead, so CI cannot go green
/// without running them. `module` is the file's `module_path!()`.
pub(crate) fn needing<T: Clone + Send + Sync + 'static>(
    module: &str,
    prerequisite: fn() -> Result<T, String>,
    tests: &[Needing<T>],
) -> Vec<libtest_mimic::Trial> {
    needing_as(module, prerequisite, tests, false)
}

/// [`needing`] for slow end-to-end tests: reported as ignored by a plain `cargo test` (so it
/// stays quick), run with `-- --include-ignored`, as `.ci/run` does. Under that flag a
/// missing prerequisite is ignored or, with `CI=true`, a failure.
pub(crate) fn slow_needing<T: Clone + Send + Sync + 'static>(
    module: &str,
    prerequisite: fn() -> Result<T, String>,
    tests: &[Needing<T>],
) -> Vec<libtest_mimic::Trial> {
    needing_as(module, prerequisite, tests, true)
}

fn needing_as<T: Clone + Send + Sync + 'static>(
    module: &str,
    prerequisite: fn() -> Result<T, String>,
    tests: &[Needing<T>],
    slow: bool,
) -> Vec<libtest_mimic::Trial> {
    use libtest_mimic::{Completion, Failed, Trial};
    use std::sync::{Arc, OnceLock};
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let found: Arc<OnceLock<Result<T, String>>> = Arc::new(OnceLock::new());
    tests
        .iter()
        .map(|&(name, test)| {
            let found = Arc::clone(&found);
            let full = crate::name(module, name);
            let shown = full.clone();
            Trial::ignorable_test(full, move || {
                match found.get_or_init(prerequisite).clone() {
                    Ok(found) => crate::run(&shown, || {
                        test(found);
                        Ok(())
                    })
                    .map(|()| Completion::Completed),
                    Err(reason) if ci => Err(Failed::from(format!("CI=true and {reason}"))),
                    Err(reason) => Ok(Completion::ignored_with(reason)),
                }
            })
            .with_ignored_flag(slow)
        })
        .collect()
}

/// One trial per data-driven case: `cases` are `(case name, input)` pairs, each trial named
/// `<file>::<case name>` and running `check(input)`, whose `Err` fails it.
pub(crate) fn cases<C: Send + 'static>(
    module: &str,
    cases: Vec<(String, C)>,
    check: fn(C) -> Result<(), String>,
) -> Vec<libtest_mimic::Trial> {
    cases
        .into_iter()
        .map(|(name, case)| {
            let full = crate::name(module, &name);
            let shown = full.clone();
            libtest_mimic::Trial::test(full, move || crate::run(&shown, || check(case)))
        })
        .collect()
}

/// One trial per case of a corpus under `../shared` (`corpus`, found or why not), named
/// `<file>::<case name>`: `enumerate` lists the cases when the binary starts; `check` runs
/// one, `Ok(None)` passing it, `Ok(Some(reason))` reporting it ignored (a case kbuild
/// cannot support, counted by the file's corpus-wide test). Without the corpus there are
/// none: the file's corpus-wide tests report that (see [`needing`]).
pub(crate) fn corpus_cases<C: Send + 'static>(
    module: &str,
    corpus: Result<std::path::PathBuf, String>,
    enumerate: impl FnOnce(&Path) -> Vec<(String, C)>,
    check: fn(C) -> Result<Option<String>, String>,
) -> Vec<libtest_mimic::Trial> {
    use libtest_mimic::{Completion, Trial};
    let Ok(dir) = corpus else {
        return Vec::new();
    };
    enumerate(&dir)
        .into_iter()
        .map(|(name, case)| {
            let full = crate::name(module, &name);
            let shown = full.clone();
            Trial::ignorable_test(full, move || {
                let mut ignored = None;
                crate::run(&shown, || {
                    ignored = check(case)?;
                    Ok(())
                })?;
                Ok(ignored.map_or(Completion::Completed, Completion::ignored_with))
            })
        })
        .collect()
}

/// `../shared/conformance/<rel>` beside the repository, or why it cannot be used.
pub(crate) fn shared_corpus(rel: &str) -> Result<std::path::PathBuf, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance")
        .join(rel);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!(
            "needs the shared corpus at {} (../shared beside the repository)",
            dir.display()
        ))
    }
}

/// Says that part of a test could not run, and why: on stderr as `SKIPPED …`, or, under
/// `CI=true`, as a failure (CI must not go green without the check).
pub(crate) fn skipped(what: &str, reason: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and {what} cannot run: {reason}");
    }
    eprintln!("SKIPPED {what}: {reason}");
}

/// The kubectl whose kustomize is `version` ("v5.5.0", "v5.8.1"), if there is one:
/// v5.8.1 from `$KUBECTL_V581` or `../kubectl-1.37/bin/kubectl`, v5.5.0 from
/// `$KUBECTL_V550`, else `kubectl` on PATH when it reports that version.
pub(crate) fn kubectl(version: &str) -> Option<std::path::PathBuf> {
    let mut candidates = Vec::new();
    if version == "v5.8.1" {
        candidates.extend(std::env::var_os("KUBECTL_V581").map(std::path::PathBuf::from));
        candidates.push(std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../kubectl-1.37/bin/kubectl"
        )));
    } else {
        candidates.extend(std::env::var_os("KUBECTL_V550").map(std::path::PathBuf::from));
    }
    candidates.push(std::path::PathBuf::from("kubectl"));
    candidates.into_iter().find(|k| {
        std::process::Command::new(k)
            .args(["version", "--client"])
            .output()
            .is_ok_and(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .contains(&format!("Kustomize Version: {version}"))
            })
    })
}
