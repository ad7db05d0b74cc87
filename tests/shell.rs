//! Shell integration: `kbuild completions SHELL` and `kbuild man`, generated from the
//! clap definitions that parse the command line.

use crate::common;

use std::process::Command;

tests! {
    completion_scripts_name_the_subcommands_and_flags,
    bash_completion_completes_subcommands,
    man_prints_the_page_or_writes_one_per_subcommand,
    version_flag_names_the_kustomize_release,
    short_help_is_one_line_per_flag,
    long_help_has_examples_and_build_flags_once,
    man_pages_carry_the_examples,
}

fn kbuild(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(args)
        .output()
        .expect("run kbuild")
}

fn completion_scripts_name_the_subcommands_and_flags() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = kbuild(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for word in ["edit", "nameprefix", "load-restrictor", "enable-helm"] {
            assert!(script.contains(word), "{shell}: {word}");
        }
    }
    let out = kbuild(&["completions", "nushell"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: bash"));
}

/// The bash script loads in bash and completes the subcommands after `kbuild `.
fn bash_completion_completes_subcommands() {
    let bin = env!("CARGO_BIN_EXE_kbuild");
    let script = format!(
        r#"source <("{bin}" completions bash)
COMP_WORDS=(kbuild ed); COMP_CWORD=1; COMP_LINE="kbuild ed"; COMP_POINT=9
_kbuild kbuild ed kbuild
printf '%s\n' "${{COMPREPLY[@]}}""#
    );
    match Command::new("bash").args(["-c", &script]).output() {
        Ok(out) => {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let words = String::from_utf8(out.stdout).unwrap();
            assert_eq!(words.trim(), "edit", "{words}");
        }
        Err(_) => common::skipped("bash_completion_completes_subcommands", "no bash"),
    }
}

fn man_prints_the_page_or_writes_one_per_subcommand() {
    let out = kbuild(&["man"]);
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with(".ie"), "{page}");
    assert!(page.contains(".TH kbuild 1"));
    assert!(page.contains("reproduces kustomize v5.8.1"));

    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("man1");
    let out = kbuild(&["man", "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    for page in [
        "kbuild.1",
        "kbuild-build.1",
        "kbuild-edit-set-image.1",
        "kbuild-diff.1",
    ] {
        let text = std::fs::read_to_string(out_dir.join(page)).unwrap();
        assert!(
            text.contains(".SH OPTIONS") || text.contains(".SH SUBCOMMANDS"),
            "{page}"
        );
    }

    // A directory that cannot be created: one error naming it, nothing on stdout.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let out = kbuild(&["man", "--out", blocker.join("sub").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("file/sub"));
}

fn version_flag_names_the_kustomize_release() {
    let out = kbuild(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "kbuild {} (reproduces kustomize v5.8.1 by default; --kustomize-version: v5.5.0, v5.8.1)\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

/// The commands whose `--help` must end with examples (every top-level subcommand).
const SUBCOMMANDS: &[&str] = &[
    "build",
    "merge3",
    "apply",
    "diff",
    "render",
    "deps",
    "openapi",
    "edit",
    "create",
    "localize",
    "cache",
    "version",
    "completions",
    "man",
];

/// `-h` is a summary: every flag on one line with its description, grouped by heading,
/// so the top-level `-h` (every command and every build flag) fits a screen or two.
fn short_help_is_one_line_per_flag() {
    for args in [
        &["-h"][..],
        &["build", "-h"],
        &["diff", "-h"],
        &["render", "-h"],
    ] {
        let out = kbuild(args);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines() {
            let flag = line.trim_start();
            if flag.starts_with('-') {
                // A flag, at least two spaces, then its description.
                let described = flag
                    .split_once("  ")
                    .is_some_and(|(_, d)| !d.trim().is_empty());
                assert!(described, "{args:?}: a flag without its summary: {line:?}");
            }
        }
        assert!(
            text.lines().count() <= 80,
            "{args:?}: {} lines",
            text.lines().count()
        );
    }
}

/// `--help` ends with examples for every subcommand, and describes the build flags once:
/// under `build`, not under the commands that take them.
fn long_help_has_examples_and_build_flags_once() {
    for sub in SUBCOMMANDS {
        let out = kbuild(&[sub, "--help"]);
        assert!(out.status.success(), "{sub}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("\nExamples:\n  "),
            "{sub} --help has no examples:\n{text}"
        );
    }
    let build = String::from_utf8(kbuild(&["build", "--help"]).stdout).unwrap();
    assert!(build.contains("--helm-command <PATH>"), "{build}");
    let diff = String::from_utf8(kbuild(&["diff", "--help"]).stdout).unwrap();
    assert!(!diff.contains("--helm-command"), "{diff}");
    assert!(
        diff.contains("Build flags: every flag of `kbuild build`"),
        "{diff}"
    );
    // Still accepted, and still completed.
    let bash = String::from_utf8(kbuild(&["completions", "bash"]).stdout).unwrap();
    assert!(bash.contains("--helm-command"));
}

/// The man pages carry the examples.
fn man_pages_carry_the_examples() {
    let dir = tempfile::tempdir().unwrap();
    let out = kbuild(&["man", "--out", dir.path().to_str().unwrap()]);
    assert!(out.status.success());
    let page = std::fs::read_to_string(dir.path().join("kbuild-diff.1")).unwrap();
    assert!(page.contains("Examples:"), "{page}");
    assert!(page.contains("kbuild diff \\-\\-ref main"), "{page}");
}
