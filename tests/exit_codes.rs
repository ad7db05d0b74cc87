//! The exit statuses kbuild documents (docs/src/reference/exit-codes.md, `kbuild --help`'s
//! EXIT STATUS), command by command through the real binary, and every error printed
//! whole by the one renderer: `Error: ` with the problem, its chain of kustomizations and
//! its hint, whichever subcommand failed (before, two of the CLI's error paths dropped
//! the hint).

use crate::common;
use common::write;
use std::path::Path;
use std::process::Command;

tests! {
    build_exits_0_or_1_with_the_hint,
    diff_exits_0_same_1_different_2_trouble,
    render_exits_1_for_stale_and_2_for_errors_with_the_hint,
    deps_and_openapi_exit_2_on_errors,
    edit_and_create_exit_1_with_the_hint,
    other_commands_exit_1_on_errors,
    usage_errors_exit_2,
    help_documents_the_exit_statuses,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn kbuild_env(dir: &Path, args: &[&str], env: &[(&str, Option<&str>)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kbuild"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .env_remove("KUSTOMIZE_ENABLE_MANAGEDBY_LABEL");
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = cmd.output().expect("run kbuild");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn kbuild(dir: &Path, args: &[&str]) -> Run {
    kbuild_env(dir, args, &[])
}

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
const RESTRICTOR_HINT: &str = "\nhint: use --load-restrictor LoadRestrictionsNone to allow it\n";
const FIELD_HINT: &str = "\nhint: did you mean \"resources\"?\n";

/// A tree with a good kustomization (`good`), one that reads a file outside its root
/// (`outside`: an error with a hint) and one with a misspelt field (`typo`: a hint too).
fn tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "x.yaml", CONFIG_MAP);
    write(t.path(), "good/x.yaml", CONFIG_MAP);
    write(
        t.path(),
        "good/kustomization.yaml",
        "resources:\n- x.yaml\n",
    );
    write(
        t.path(),
        "outside/kustomization.yaml",
        "resources:\n- ../x.yaml\n",
    );
    write(t.path(), "typo/kustomization.yaml", "resourcs:\n- x.yaml\n");
    t
}

/// Asserts the run failed with `code`, printed nothing on stdout, and printed one error
/// whole, its hint included.
fn assert_error(run: &Run, code: i32, hint: &str) {
    assert_eq!(run.code, code, "{}", run.stderr);
    assert_eq!(run.stdout, "", "nothing on stdout");
    assert!(run.stderr.starts_with("Error: "), "{}", run.stderr);
    assert!(
        run.stderr.contains(hint),
        "the hint is printed: {}",
        run.stderr
    );
}

fn build_exits_0_or_1_with_the_hint() {
    let t = tree();
    let ok = kbuild(t.path(), &["build", "good"]);
    assert_eq!((ok.code, ok.stdout.as_str()), (0, CONFIG_MAP));
    assert_error(&kbuild(t.path(), &["build", "outside"]), 1, RESTRICTOR_HINT);
    // The default command is build.
    assert_error(&kbuild(t.path(), &["typo"]), 1, FIELD_HINT);
}

fn diff_exits_0_same_1_different_2_trouble() {
    let t = tree();
    assert_eq!(kbuild(t.path(), &["diff", "good", "good"]).code, 0);
    write(t.path(), "y.yaml", CONFIG_MAP.replace("name: x", "name: y"));
    assert_eq!(kbuild(t.path(), &["diff", "x.yaml", "y.yaml"]).code, 1);
    assert_error(
        &kbuild(t.path(), &["diff", "outside", "good"]),
        2,
        RESTRICTOR_HINT,
    );
}

fn render_exits_1_for_stale_and_2_for_errors_with_the_hint() {
    let t = tree();
    assert_eq!(
        kbuild(t.path(), &["render", "--out", "out", "good"]).code,
        0
    );
    assert_eq!(
        kbuild(t.path(), &["render", "--out", "out", "--check", "good"]).code,
        0
    );
    write(
        t.path(),
        "good/x.yaml",
        CONFIG_MAP.replace("name: x", "name: z"),
    );
    let stale = kbuild(t.path(), &["render", "--out", "out", "--check", "good"]);
    assert_eq!(stale.code, 1, "{}", stale.stderr);
    // A failed kustomization among good ones: each error whole, then the summary.
    let run = kbuild(t.path(), &["render", "good", "outside"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("Error: ")
            && run
                .stderr
                .contains("outside/kustomization.yaml:2:3: resources[0]: security: "),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(RESTRICTOR_HINT), "{}", run.stderr);
    assert!(
        run.stderr
            .ends_with("built 1 of 2 kustomizations, 1 failed\n"),
        "{}",
        run.stderr
    );
    // An error before anything is rendered.
    let none = kbuild(t.path(), &["render"]);
    assert_eq!((none.code, none.stdout.as_str()), (2, ""));
}

fn deps_and_openapi_exit_2_on_errors() {
    let t = tree();
    assert_eq!(kbuild(t.path(), &["deps", "good"]).code, 0);
    assert_error(&kbuild(t.path(), &["deps", "typo"]), 2, FIELD_HINT);
    let missing = kbuild(t.path(), &["openapi", "from-crds", "nothing-here"]);
    assert_eq!(
        (missing.code, missing.stdout.as_str()),
        (2, ""),
        "{}",
        missing.stderr
    );
    // A refused subcommand is an error of the ordinary kind.
    let refused = kbuild(t.path(), &["openapi", "info"]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .starts_with("Error: kbuild does not implement")
    );
}

fn edit_and_create_exit_1_with_the_hint() {
    let t = tree();
    let typo = t.path().join("typo");
    assert_error(
        &kbuild(&typo, &["edit", "set", "namespace", "n"]),
        1,
        FIELD_HINT,
    );
    // `create` where a kustomization exists.
    let again = kbuild(&t.path().join("good"), &["create"]);
    assert_eq!(
        (again.code, again.stdout.as_str()),
        (1, ""),
        "{}",
        again.stderr
    );
    assert!(again.stderr.starts_with("Error: "), "{}", again.stderr);
}

fn other_commands_exit_1_on_errors() {
    let t = tree();
    let version = kbuild(t.path(), &["version", "--short", "--output", "yaml"]);
    assert_eq!(version.code, 1);
    assert!(
        version
            .stderr
            .ends_with("Error: --short and --output are mutually exclusive\n"),
        "{}",
        version.stderr
    );
    let cache = kbuild_env(
        t.path(),
        &["cache", "list"],
        &[("HOME", None), ("XDG_CACHE_HOME", None)],
    );
    assert_eq!(cache.code, 1);
    assert_eq!(
        cache.stderr,
        "Error: no cache directory: set --remote-cache-dir, XDG_CACHE_HOME or HOME\n"
    );
    let apply = kbuild(t.path(), &["apply", "--live", "x.yaml", "good"]);
    assert_eq!(apply.code, 1, "{}", apply.stderr);
    assert!(
        apply
            .stderr
            .starts_with("Error: kbuild apply never contacts a cluster")
    );
}

fn usage_errors_exit_2() {
    let t = tree();
    let run = kbuild(t.path(), &["build", "--no-such-flag"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(
        run.stderr
            .starts_with("error: unknown flag: --no-such-flag"),
        "{}",
        run.stderr
    );
}

fn help_documents_the_exit_statuses() {
    let t = tree();
    let help = kbuild(t.path(), &["--help"]);
    assert_eq!(help.code, 0);
    let section = help.stdout.split_once("\nEXIT STATUS:\n").map(|(_, s)| s);
    let section = section.expect("an EXIT STATUS section");
    for status in ["  0 ", "  1 ", "  2 ", "  128+N "] {
        assert!(section.contains(status), "{section}");
    }
}
