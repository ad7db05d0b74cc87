//! Shell integration: `kbuild completions SHELL` and `kbuild man`, generated from the
//! clap definitions that parse the command line.

use crate::common;

use std::process::Command;

tests! {
    completion_scripts_name_the_subcommands_and_flags,
    bash_completion_completes_subcommands,
    man_prints_the_page_or_writes_one_per_subcommand,
    version_flag_names_the_kustomize_release,
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
