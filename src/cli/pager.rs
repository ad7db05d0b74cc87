//! Long output through a pager, on a terminal only (as git, jj and ripgrep's users expect).
//!
//! The pager is `$KBUILD_PAGER`, else `$PAGER`, else `less -FRX` (`-F`: quit when the text
//! fits on one screen; `-R`: colors; `-X`: leave it on the screen). Either variable set to
//! the empty string, or `--no-pager`, turns paging off; so does stdout not being a
//! terminal (a pipe, a file), so scripts never see a pager. The command is run by `sh -c`,
//! as git runs `$PAGER` (it may hold options); it comes from the user's environment,
//! never from a kustomization. A pager that cannot be started means the text is printed
//! as without one.

use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};

/// The pager command to use now, if any: `None` when disabled or not on a terminal.
fn pager_command(no_pager: bool) -> Option<String> {
    if no_pager || !std::io::stdout().is_terminal() {
        return None;
    }
    let chosen = match std::env::var("KBUILD_PAGER") {
        Ok(p) => p,
        Err(_) => std::env::var("PAGER").unwrap_or_else(|_| "less -FRX".to_string()),
    };
    let chosen = chosen.trim().to_string();
    (!chosen.is_empty()).then_some(chosen)
}

/// Whether `--no-pager` is among the arguments (it must work for `--help`, which clap
/// prints before the rest of the command line is read).
pub(crate) fn disabled_by_flag() -> bool {
    std::env::args_os()
        .take_while(|a| a != "--")
        .any(|a| a == "--no-pager")
}

/// Writes `text` to stdout, through the pager when one applies; `Ok(false)` when no
/// pager ran (the caller prints).
pub(crate) fn page(text: &str, no_pager: bool) -> bool {
    let Some(command) = pager_command(no_pager) else {
        return false;
    };
    let child = Command::new("sh")
        .arg("-c")
        .arg(&command)
        .stdin(Stdio::piped())
        // less reads these for color and for a missing LESS.
        .env(
            "LESSCHARSET",
            std::env::var("LESSCHARSET").unwrap_or_else(|_| "utf-8".into()),
        )
        .spawn();
    let Ok(mut child) = child else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        // The user may quit the pager before reading everything: a broken pipe is fine.
        let _ = stdin.write_all(text.as_bytes());
    }
    match child.wait() {
        // 127: sh could not find the program; print without it.
        Ok(status) if status.code() == Some(127) => false,
        _ => true,
    }
}
