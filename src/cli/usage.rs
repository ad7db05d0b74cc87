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
///
/// `quick` is the command line of a plain build (see [`Quick`]), tried first when no
/// argument is one of its `other_words`.
pub(crate) fn parse<T: Parser>(quick: &Quick) -> T {
    let args = without_stack_trace(std::env::args_os());
    // Shaping the help (summaries, hidden shared flags, examples) changes only what help
    // and errors print, never what parses, and costs more than the rest of a small build's
    // start-up: a command line that parses is read without it, and only one that asks for
    // help or has an error is read again, shaped, for clap to print.
    let parsed = match parse_quickly(quick, &args) {
        Some(Ok(cli)) => Ok(cli),
        _ => {
            parse_with(parsing_command::<T>(), &args).or_else(|_| parse_with(command::<T>(), &args))
        }
    };
    match parsed {
        Ok(cli) => cli,
        Err(e) => match unknown_argument(&e) {
            Some(text) => {
                eprint!("{text}");
                std::process::exit(2);
            }
            None if e.kind() == ErrorKind::DisplayHelp => {
                let text = e.render().ansi().to_string();
                if super::pager::page(&text, super::pager::disabled_by_flag()) {
                    std::process::exit(0);
                }
                e.exit()
            }
            None => e.exit(),
        },
    }
}

/// A build's command line, parsed without building the definitions of every other
/// subcommand: clap builds each argument of each subcommand before it reads one, which
/// costs more than a small build's parse of its kustomization files. The result must be
/// what the whole command would give; anything else (help, an error, another
/// subcommand's word anywhere on the line) goes to the whole command.
pub(crate) struct Quick {
    /// The command: the build's arguments, at the top and as `build`.
    pub(crate) command: fn() -> clap::Command,
    /// The names and aliases of the other subcommands.
    pub(crate) other_words: &'static [&'static str],
}

/// `args` parsed by the quick command when [`parse`] would try it, and by the whole one.
#[cfg(test)]
pub(crate) fn quick_and_whole<T: Parser>(
    quick: &Quick,
    args: &[&str],
) -> (Option<Result<T, clap::Error>>, Result<T, clap::Error>) {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    (
        parse_quickly(quick, &args),
        parse_with(parsing_command::<T>(), &args),
    )
}

/// `args` parsed by `command`.
fn parse_with<T: Parser>(command: clap::Command, args: &[OsString]) -> Result<T, clap::Error> {
    command
        .try_get_matches_from(args)
        .and_then(|mut matches| T::from_arg_matches_mut(&mut matches))
}

/// `args` parsed by the quick command, when no argument is another subcommand's word.
fn parse_quickly<T: Parser>(quick: &Quick, args: &[OsString]) -> Option<Result<T, clap::Error>> {
    let plain_build = args
        .iter()
        .skip(1)
        .all(|a| a.to_str().is_none_or(|a| !quick.other_words.contains(&a)));
    plain_build.then(|| parse_with(optional_booleans((quick.command)()), args))
}

/// `command` with its on/off flags, and its subcommands' flags, taking a value as pflag's do
/// (`--force=true`, `--force=0`; bare still means true; a bad value is Go's
/// `strconv.ParseBool` error): the form scripts written for kustomize's `edit` use. Build
/// flags spell this out per flag, as they are optional values there.
fn with_go_booleans(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| match arg.get_action() {
            clap::ArgAction::SetTrue => arg
                .action(clap::ArgAction::Set)
                .value_name("BOOL")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("true")
                .default_value("false")
                .hide_default_value(true)
                .value_parser(super::go_bool),
            _ => arg,
        })
        .mut_subcommands(with_go_booleans)
}

/// The command line kbuild parses, which completions and man pages describe too:
/// clap's derived definition, with `--version` naming the kustomize release reproduced
/// and pflag-style on/off flags for `edit` and `create`.
pub(crate) fn command<T: Parser>() -> clap::Command {
    let build_flags: Vec<String> =
        <super::BuildFlags as clap::Args>::augment_args(clap::Command::new("flags"))
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect();
    super::help::shape(parsing_command::<T>(), &build_flags)
}

/// [`command`] without its help shaped: what parses is the same.
fn parsing_command<T: Parser>() -> clap::Command {
    let versions: Vec<&str> = kbuild::KustomizeVersion::ALL
        .iter()
        .map(|v| v.as_str())
        .collect();
    let command = T::command()
        .version(format!(
            "{} (reproduces kustomize {} by default; --kustomize-version: {})",
            env!("CARGO_PKG_VERSION"),
            kbuild::KustomizeVersion::default().as_str(),
            versions.join(", ")
        ))
        .mut_subcommands(|sub| match sub.get_name() {
            "edit" | "create" => with_go_booleans(sub),
            _ => sub,
        });
    optional_booleans(command)
}

/// Every flag declared with `value_name = "BOOL"` and a value parser (the build and
/// version flags, which are `Option<bool>` so that giving one can be told apart from
/// leaving it out) takes pflag's forms: bare for true, or `=VALUE`, never a separate
/// argument (which would be the path).
fn optional_booleans(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            let boolean = arg
                .get_value_names()
                .is_some_and(|n| n.len() == 1 && n[0] == "BOOL");
            if boolean && matches!(arg.get_action(), clap::ArgAction::Set) {
                arg.num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("true")
            } else {
                arg
            }
        })
        .mut_subcommands(optional_booleans)
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

/// The arguments without `--stack-trace` (bare or with a value) and with kubectl's
/// flag spellings normalised (see [`underscores_as_dashes`]), up to a `--`.
fn without_stack_trace(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut after_dashes = false;
    let mut out = Vec::new();
    for a in args {
        after_dashes |= a == "--";
        if after_dashes {
            out.push(a);
            continue;
        }
        let a = underscores_as_dashes(a);
        let stack_trace = a
            .to_str()
            .is_some_and(|a| a == "--stack-trace" || a.starts_with("--stack-trace="));
        // Read by the pager (super::pager::disabled_by_flag), for every command and
        // `--help` alike.
        if !stack_trace && a != "--no-pager" {
            out.push(a);
        }
    }
    out
}

/// `--load_restrictor=X` read as `--load-restrictor=X`: kubectl's flags are normalised
/// this way (pflag's word-separator normalisation), and scripts written for `kubectl
/// kustomize` use it. Only the flag's name changes, never its value.
fn underscores_as_dashes(arg: OsString) -> OsString {
    let Some(text) = arg.to_str() else {
        return arg;
    };
    let Some(flag) = text.strip_prefix("--") else {
        return arg;
    };
    let (name, value) = match flag.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (flag, None),
    };
    if !name.contains('_') {
        return arg;
    }
    let mut out = format!("--{}", name.replace('_', "-"));
    if let Some(v) = value {
        out.push('=');
        out.push_str(v);
    }
    OsString::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn underscores_in_flag_names_are_dashes_before_dashes() {
        let got = without_stack_trace(args(&[
            "kbuild",
            "--load_restrictor=Load_None",
            "--enable_alpha_plugins",
            "a_b",
            "--",
            "--x_y",
        ]));
        assert_eq!(
            got,
            args(&[
                "kbuild",
                "--load-restrictor=Load_None",
                "--enable-alpha-plugins",
                "a_b",
                "--",
                "--x_y"
            ])
        );
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
