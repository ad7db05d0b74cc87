//! Parsing the command line, and how its errors read.
//!
//! clap renders its errors, except one: for an unknown flag or an extra argument it says
//! "unexpected argument" and suggests passing it after `--`, which for kbuild would make
//! the flag a path. kbuild says what kustomize (cobra) says, "unknown flag: --x", keeps
//! clap's "a similar flag exists" hint and drops the `--` one.
//!
//! kustomize's root flag `--stack-trace` (print Go's stack trace on error) is accepted
//! and dropped before clap sees it: kbuild's errors carry their chain of kustomizations
//! instead, and dropped it may stand anywhere, as in kustomize, even before the subcommand
//! (where clap would take it for an option of the default command, and the subcommand for
//! its path).

use clap::Parser;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsString;

/// Parses the command line; prints help, the version or a usage error and exits (2 for
/// an error) when that is what it holds.
pub(crate) fn parse<T: Parser>() -> T {
    match T::try_parse_from(without_stack_trace(std::env::args_os())) {
        Ok(cli) => cli,
        Err(e) => match unknown_argument(&e) {
            Some(text) => {
                eprint!("{text}");
                std::process::exit(2);
            }
            None => e.exit(),
        },
    }
}

/// The message for an unknown flag or an extra argument (None for other errors).
fn unknown_argument(e: &clap::Error) -> Option<String> {
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let mut out = if arg.starts_with('-') {
        format!("error: unknown flag: {arg}\n")
    } else {
        format!("error: extra argument '{arg}'\n")
    };
    if let Some(ContextValue::String(similar)) = e.get(ContextKind::SuggestedArg) {
        out.push_str(&format!("\n  tip: a similar flag exists: '{similar}'\n"));
    }
    if let Some(ContextValue::StyledStr(usage)) = e.get(ContextKind::Usage) {
        out.push_str(&format!("\n{usage}\n"));
    }
    out.push_str("\nFor more information, try '--help'.\n");
    Some(out)
}

/// The arguments without `--stack-trace` (bare or with a value), up to a `--`.
fn without_stack_trace(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut after_dashes = false;
    args.into_iter()
        .filter(|a| {
            after_dashes |= a == "--";
            let flag = a
                .to_str()
                .is_some_and(|a| a == "--stack-trace" || a.starts_with("--stack-trace="));
            after_dashes || !flag
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn stack_trace_is_dropped_anywhere_before_dashes() {
        let got = without_stack_trace(args(&[
            "kbuild",
            "--stack-trace",
            "build",
            "--stack-trace=false",
            "dir",
            "--stack-traces",
            "--",
            "--stack-trace",
        ]));
        assert_eq!(
            got,
            args(&[
                "kbuild",
                "build",
                "dir",
                "--stack-traces",
                "--",
                "--stack-trace"
            ])
        );
    }
}
