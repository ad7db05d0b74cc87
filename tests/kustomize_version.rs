//! `--kustomize-version` and `KBUILD_KUSTOMIZE_VERSION` through the real binary: which
//! release a build reproduces, how the choice is spelled and refused, that every command
//! that builds takes it, and `kbuild diff --to-kustomize-version` (the upgrade preview).
//! The outputs per version are fixtures (tests/fixtures/kustomize-versions/).

use crate::common;
use common::write;
use std::path::Path;
use std::process::Command;

tests! {
    default_is_v5_8_1_and_the_flag_and_variable_pick_another,
    unsupported_versions_are_usage_errors_listing_the_supported_ones,
    every_command_that_builds_takes_the_version,
    upgrade_preview_shows_what_changes_and_nothing_otherwise,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn kbuild(dir: &Path, args: &[&str], env: Option<&str>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kbuild"));
    cmd.args(args).current_dir(dir).env_remove("NO_COLOR");
    match env {
        Some(v) => cmd.env("KBUILD_KUSTOMIZE_VERSION", v),
        None => cmd.env_remove("KBUILD_KUSTOMIZE_VERSION"),
    };
    let out = cmd.output().expect("run kbuild");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A kustomization whose output names the kustomize version (the managed-by label).
fn labelled(dir: &Path) {
    write(
        dir,
        "app/kustomization.yaml",
        "buildMetadata: [managedByLabel]\nresources: [cm.yaml]\n",
    );
    write(
        dir,
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
    );
}

fn managed_by(out: &str) -> &str {
    out.lines()
        .find_map(|l| l.trim().strip_prefix("app.kubernetes.io/managed-by: "))
        .unwrap_or("<none>")
}

fn default_is_v5_8_1_and_the_flag_and_variable_pick_another() {
    let tmp = tempfile::tempdir().unwrap();
    labelled(tmp.path());
    let dir = tmp.path().join("app");
    let cases: &[(&[&str], Option<&str>, &str)] = &[
        (&[], None, "kustomize-v5.8.1"),
        (
            &["--kustomize-version", "v5.5.0"],
            None,
            "kustomize-(devel)",
        ),
        (&["--kustomize-version=5.5"], None, "kustomize-(devel)"),
        (&[], Some("v5.5"), "kustomize-(devel)"),
        (&[], Some(""), "kustomize-v5.8.1"),
        // The flag wins over the variable.
        (
            &["--kustomize-version", "5.8"],
            Some("5.5.0"),
            "kustomize-v5.8.1",
        ),
        (
            &["build", "--kustomize-version", "v5.5.0"],
            None,
            "kustomize-(devel)",
        ),
    ];
    for (args, env, want) in cases {
        let mut all = args.to_vec();
        all.push(".");
        let run = kbuild(&dir, &all, *env);
        assert_eq!(run.code, 0, "{args:?} {env:?}: {}", run.stderr);
        assert_eq!(managed_by(&run.stdout), *want, "{args:?} {env:?}");
    }
}

fn unsupported_versions_are_usage_errors_listing_the_supported_ones() {
    let tmp = tempfile::tempdir().unwrap();
    labelled(tmp.path());
    let dir = tmp.path().join("app");
    let run = kbuild(&dir, &["--kustomize-version", "v5.7.1", "."], None);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains(
            "kustomize version \"v5.7.1\" is not one kbuild reproduces; supported: v5.5.0, v5.8.1"
        ),
        "{}",
        run.stderr
    );
    let run = kbuild(&dir, &["."], Some("latest"));
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("(read from the environment variable KBUILD_KUSTOMIZE_VERSION)"),
        "{}",
        run.stderr
    );
}

fn every_command_that_builds_takes_the_version() {
    let tmp = tempfile::tempdir().unwrap();
    labelled(tmp.path());
    let dir = tmp.path().join("app");
    write(tmp.path(), "live.yaml", "");
    let v = ["--kustomize-version", "v5.5.0"];
    let render = kbuild(&dir, &["render", v[0], v[1], "."], None);
    assert_eq!(render.code, 0, "{}", render.stderr);
    let deps = kbuild(&dir, &["deps", v[0], v[1], "."], None);
    assert_eq!(deps.code, 0, "{}", deps.stderr);
    let merge3 = kbuild(
        &dir,
        &[
            "merge3",
            v[0],
            v[1],
            "--original",
            ".",
            "--updated",
            ".",
            "--dest",
            ".",
        ],
        None,
    );
    assert_eq!(merge3.code, 0, "{}", merge3.stderr);
    assert_eq!(managed_by(&merge3.stdout), "kustomize-(devel)");
    let apply = kbuild(
        &dir,
        &[
            "apply",
            "--dry-run",
            v[0],
            v[1],
            "--live",
            "../live.yaml",
            "--show",
            "patch",
            ".",
        ],
        None,
    );
    assert_eq!(apply.code, 0, "{}", apply.stderr);
    assert!(
        apply.stdout.contains("kustomize-(devel)"),
        "{}",
        apply.stdout
    );
    for cmd in ["render", "deps", "merge3", "apply", "diff"] {
        let run = kbuild(&dir, &[cmd, "--kustomize-version", "4.0", "."], None);
        assert_eq!(run.code, 2, "{cmd}: {}", run.stderr);
    }
}

fn upgrade_preview_shows_what_changes_and_nothing_otherwise() {
    let tmp = tempfile::tempdir().unwrap();
    labelled(tmp.path());
    let dir = tmp.path().join("app");
    let args = [
        "diff",
        "--color",
        "never",
        "--kustomize-version",
        "v5.5.0",
        "--to-kustomize-version",
        "v5.8.1",
        ".",
    ];
    let run = kbuild(&dir, &args, None);
    assert_eq!(run.code, 1, "{}", run.stderr);
    insta::assert_snapshot!(run.stdout);

    // Without the managed-by label the two releases agree: no output, exit 0.
    write(
        tmp.path(),
        "app/kustomization.yaml",
        "resources: [cm.yaml]\n",
    );
    let run = kbuild(&dir, &args, None);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    // The old side's version may come from the variable.
    let run = kbuild(
        &dir,
        &["diff", "--to-kustomize-version", "5.8", "."],
        Some("5.5"),
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    // Two directories, each built by its own version.
    let run = kbuild(
        tmp.path(),
        &[
            "diff",
            "--stat",
            "--to-kustomize-version",
            "v5.5.0",
            "app",
            "app",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // One path without --to-kustomize-version is a usage error.
    let run = kbuild(&dir, &["diff", "."], None);
    assert_eq!(run.code, 2);
}
