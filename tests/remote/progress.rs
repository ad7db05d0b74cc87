//! Progress on stderr for slow remote work: a spinner naming the repository while it is
//! fetched, drawn when stderr is a terminal (a pseudo-terminal made by util-linux
//! `script`), and never when stderr is piped or with `render --quiet`. The repository is
//! served by `/slow/git/`, whose answers are held back, so the fetch lasts long enough
//! for the spinner to be drawn.

use super::{Git, Scratch, Server, app_repo, overlay, text};
use std::process::{Command, Stdio};

/// Runs `kbuild ARGS` under `script` with stdout sent to a file and stderr on the
/// pseudo-terminal; returns what reached the terminal, or `None` (reported skipped)
/// without `script`.
fn on_a_terminal(s: &Scratch, args: &str, prints_yaml: bool) -> Option<String> {
    let kbuild = env!("CARGO_BIN_EXE_kbuild");
    let out = s.dir().join("stdout.yaml");
    let line = format!("{kbuild} {args} > '{}'", out.display());
    match Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("PATH", &s.path)
        .env("XDG_CACHE_HOME", s.dir().join("xdg"))
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) => {
            assert!(o.status.success(), "{}", text(&o.stdout));
            let yaml = std::fs::read_to_string(&out).unwrap_or_default();
            assert_eq!(yaml.contains("name: base"), prints_yaml, "stdout: {yaml}");
            assert!(!yaml.contains("fetching"), "progress on stdout: {yaml}");
            Some(text(&o.stdout))
        }
        Err(e) => {
            super::common::skipped("the progress test", &format!("no `script` program: {e}"));
            None
        }
    }
}

pub(super) fn spinner_on_a_terminal_only(g: Git) {
    let s = Scratch::new();
    let (bare, _, _) = app_repo(&g, &s.dir());
    let server = Server::start(&g, s.dir(), s.dir().join("files"));
    let name = bare.file_name().unwrap().to_str().unwrap();
    let url = server.url(&format!("/slow/git/{name}"));
    let dir = overlay(&s, "slow", &format!("resources:\n- {url}//base?ref=v1\n"));
    let dir_s = dir.to_str().unwrap();
    // Piped: nothing but the output.
    let cache = s.dir().join("cache-piped");
    let piped = s.kbuild(&[
        "build",
        dir_s,
        "--remote-cache-dir",
        cache.to_str().unwrap(),
    ]);
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    assert!(piped.stderr.is_empty(), "{}", text(&piped.stderr));
    // On a terminal: the spinner names the repository and the ref.
    let cache = s.dir().join("cache-tty");
    let Some(screen) = on_a_terminal(
        &s,
        &format!("build '{dir_s}' --remote-cache-dir '{}'", cache.display()),
        true,
    ) else {
        return;
    };
    assert!(
        screen.contains("fetching") && screen.contains(name) && screen.contains("v1"),
        "{screen:?}"
    );
    // `render --quiet` on a terminal: silent.
    let cache = s.dir().join("cache-quiet");
    let Some(screen) = on_a_terminal(
        &s,
        &format!(
            "render --quiet '{dir_s}' --remote-cache-dir '{}'",
            cache.display()
        ),
        false,
    ) else {
        return;
    };
    assert!(!screen.contains("fetching"), "{screen:?}");
    assert!(cache.exists(), "render fetched nothing");
}
