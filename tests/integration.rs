//! kbuild's integration tests: one test binary (`[[test]] integration`, `harness = false`),
//! so the crate and `tests/common` are linked once rather than once per file.
//!
//! Each `tests/<file>.rs` is a module listed in `suites!` below and lists its tests in a
//! `tests! { ... }` line (a plain `#[test]` does not run here: this is libtest-mimic's harness,
//! which also runs one trial per fixture case). To add a test file: write `tests/<file>.rs`
//! with `use crate::common;` (not `mod common;`) and a `tests! { a, b }` list, and add
//! `<file>,` to `suites!`. `harness::files_are_modules` and `harness::no_stray_test_attribute`
//! fail when one of these steps is missing; a listed name without its function fails to
//! compile, and a test function left out of the list is dead code (a warning, an error under
//! clippy's `-D warnings`).
//!
//! Names are `<file>::<test>` (and `<file>::<case>` for data-driven cases), so `cargo test
//! <part of a name>` selects as before. Expected outputs of every kind are rewritten with
//! `KBUILD_BLESS=1` (docs/src/internals/testing.md).

use libtest_mimic::{Arguments, Failed, Trial};

/// Declares a test file's tests: `tests! { a, #[cfg(unix)] b, #[ignore = "why"] c }` defines
/// `tests()`, one trial per function, named `<file>::<function>`. Extra trials (data-driven
/// cases) follow a `;` as expressions giving a `Vec<Trial>`.
macro_rules! tests {
    ($($(#[cfg($cfg:meta)])? $(#[ignore = $why:literal])? $name:ident),* $(,)?
     $(; $($more:expr),* $(,)?)?) => {
        #[allow(clippy::vec_init_then_push)] // one push per listed test, some under #[cfg]
        pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
            #[allow(unused_mut)]
            let mut trials: Vec<libtest_mimic::Trial> = Vec::new();
            $(
                $(#[cfg($cfg)])?
                trials.push(
                    crate::trial(crate::name(module_path!(), stringify!($name)), $name)
                        $(.with_ignored_flag({ let _why: &str = $why; true }))?,
                );
            )*
            $($(trials.extend($more);)*)?
            trials
        }
    };
}

/// The test files: one module each, and `main` runs all their trials.
macro_rules! suites {
    ($($(#[cfg($cfg:meta)])? $file:ident),* $(,)?) => {
        $($(#[cfg($cfg)])? mod $file;)*

        /// The names of the modules, for `harness::files_are_modules`.
        const FILES: &[&str] = &[$(stringify!($file)),*];

        fn main() {
            common::bless::init();
            let mut trials = harness::tests();
            $($(#[cfg($cfg)])? trials.extend($file::tests());)*
            libtest_mimic::run(&Arguments::from_args(), trials).exit()
        }
    };
}

mod common;
mod harness;

suites! {
    action,
    build_flags,
    concurrent_builds,
    crd_merge,
    determinism,
    diff_ref,
    diff_render,
    edit,
    edit_trees,
    exit_codes,
    fixtures,
    #[cfg(unix)] full_disk,
    helm,
    helm_security,
    hostile,
    hostile_inputs,
    #[cfg(unix)] kill,
    kustomize_version,
    localize,
    merge3_comments,
    merge3_conformance,
    merge_conformance,
    merge_tools,
    plugin_functions,
    plugin_security,
    plugins,

    precommit,
    provenance,
    readme,
    remote,
    schema,
    shell,
    smp_conformance,
    #[cfg(unix)] static_binary,
    warnings,
    #[cfg(unix)] writes,
}

/// `<file>::<test>` from the module path `integration::<file>`.
pub(crate) fn name(module_path: &str, test: &str) -> String {
    let file = module_path.split_once("::").map_or(module_path, |(_, f)| f);
    format!("{file}::{test}")
}

/// A trial running `test`; a panic fails it with the panic's message, and a failed comparison
/// with an expected output (a snapshot, a fixture's expected file) names `KBUILD_BLESS`.
pub(crate) fn trial(name: String, test: impl FnOnce() + Send + 'static) -> Trial {
    let shown = name.clone();
    Trial::test(name, move || {
        run(&shown, || {
            test();
            Ok(())
        })
    })
}

/// Runs one test, turning an `Err` or a panic into a failure (with the bless hint where it
/// applies).
pub(crate) fn run(name: &str, test: impl FnOnce() -> Result<(), String>) -> Result<(), Failed> {
    common::bless::start();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(test));
    let blessable = common::bless::finish();
    let message = match outcome {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(message)) => message,
        Err(payload) => payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("(a panic without a message)")
            .to_string(),
    };
    // insta's failure reads "snapshot assertion for 'x' failed in line N".
    if blessable || message.starts_with("snapshot assertion") {
        Err(Failed::from(format!(
            "{message}\n{}",
            common::bless::hint(name)
        )))
    } else {
        Err(Failed::from(message))
    }
}
