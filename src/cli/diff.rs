//! `kbuild diff`: arguments, output and exit status.

use super::{Restrictor, build_options, print_stdout};
use clap::ValueEnum;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub(crate) struct DiffArgs {
    /// The old side: a kustomization directory, a YAML file, or - (stdin).
    old: String,
    /// The new side: a kustomization directory, a YAML file, or - (stdin).
    new: String,
    /// When to color the output (NO_COLOR turns off "auto").
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorWhen,
    /// Print one line per changed, added or removed resource, no diffs.
    #[arg(long)]
    stat: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    output: DiffFormat,
    /// Leave a field out of the comparison (repeatable), e.g.
    /// metadata.annotations.x or spec.template.spec.containers[name=web].image.
    #[arg(long, value_name = "PATH")]
    ignore_field: Vec<String>,
    /// Compare generated ConfigMap/Secret names without their hash suffix.
    #[arg(long)]
    ignore_hash_suffix: bool,
    /// Whether files outside a kustomization's directory may be read.
    #[arg(long, value_enum, default_value = "LoadRestrictionsRootOnly")]
    load_restrictor: Restrictor,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum DiffFormat {
    Text,
    Json,
}

/// `kbuild diff`: exit 0 when equal, 1 when different, 2 on error, as diff(1).
pub(crate) fn run_diff(args: &DiffArgs) -> ExitCode {
    use kbuild::diff::{DiffOptions, diff, load_side};
    use std::io::IsTerminal;
    let result = (|| {
        if args.old == "-" && args.new == "-" {
            return Err(kbuild::Error::msg(
                "only one side of a diff can be read from stdin ('-')",
            ));
        }
        let options = build_options(args.load_restrictor);
        let mut stdin = std::io::stdin().lock();
        let old = load_side(&args.old, &options, &mut stdin)?;
        let new = load_side(&args.new, &options, &mut stdin)?;
        let opts = DiffOptions {
            ignore_fields: args.ignore_field.clone(),
            ignore_hash_suffix: args.ignore_hash_suffix,
        };
        let result = diff(&old, &new, &opts)?;
        let text = match args.output {
            DiffFormat::Json => format!("{:#}\n", result.to_json()),
            DiffFormat::Text => {
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                let color = match args.color {
                    ColorWhen::Always => true,
                    ColorWhen::Never => false,
                    ColorWhen::Auto => !no_color && std::io::stdout().is_terminal(),
                };
                result.to_text(color, args.stat)
            }
        };
        print_stdout(&text)?;
        Ok(result.has_differences())
    })();
    match result {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(e) => {
            eprintln!("Error: {}", e.report());
            ExitCode::from(2)
        }
    }
}
