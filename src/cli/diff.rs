//! `kbuild diff`: arguments, output and exit status.

use super::{BuildFlags, print_stdout};
use clap::ValueEnum;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub(crate) struct DiffArgs {
    /// The old side: a kustomization directory, a YAML file, or - (stdin).
    old: String,
    /// The new side: a kustomization directory, a YAML file, or - (stdin). With
    /// --to-kustomize-version it may be left out: OLD is then compared with itself.
    #[arg(required_unless_present = "to_kustomize_version")]
    new: Option<String>,
    /// Preview a kustomize upgrade: build the new side as this kustomize release
    /// would (the old side as --kustomize-version says), e.g.
    /// `kbuild diff --kustomize-version v5.5.0 --to-kustomize-version v5.8.1 DIR`;
    /// prints nothing (exit 0) when the upgrade changes nothing.
    #[arg(long, value_name = "VERSION", value_parser = super::parse_version)]
    to_kustomize_version: Option<kbuild::KustomizeVersion>,
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
    /// With --output markdown: the most bytes the report may take (a pull-request
    /// comment holds 65,536 characters); longer diffs are cut and say so.
    #[arg(long, value_name = "N", default_value_t = 60_000)]
    max_bytes: usize,
    /// With --output markdown: show Secret data and stringData values (by default each is
    /// replaced by a short hash of it).
    #[arg(long)]
    show_secrets: bool,
    #[command(flatten)]
    flags: BuildFlags,
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
    // For pull-request comments: a summary table and a collapsible diff per resource.
    Markdown,
}

/// `kbuild diff`: exit 0 when equal, 1 when different, 2 on error, as diff(1).
pub(crate) fn run_diff(args: &DiffArgs) -> ExitCode {
    use kbuild::diff::{DiffOptions, diff, load_side};
    use std::io::IsTerminal;
    let result = (|| {
        let new_spec = args.new.as_deref().unwrap_or(&args.old);
        if args.old == "-" && new_spec == "-" {
            return Err(kbuild::Error::msg(
                "only one side of a diff can be read from stdin ('-')",
            ));
        }
        let old_options = args.flags.options()?;
        let mut new_options = old_options.clone();
        if let Some(v) = args.to_kustomize_version {
            new_options.kustomize_version = v;
        }
        let mut stdin = std::io::stdin().lock();
        let mut old = load_side(&args.old, &old_options, &mut stdin)?;
        let mut new = load_side(new_spec, &new_options, &mut stdin)?;
        if args.to_kustomize_version.is_some() {
            // Both sides may be the same directory: say which build is which.
            old.label = format!(
                "{} (kustomize {})",
                old.label, old_options.kustomize_version
            );
            new.label = format!(
                "{} (kustomize {})",
                new.label, new_options.kustomize_version
            );
        }
        let opts = DiffOptions {
            ignore_fields: args.ignore_field.clone(),
            ignore_hash_suffix: args.ignore_hash_suffix,
            redact_secrets: matches!(args.output, DiffFormat::Markdown) && !args.show_secrets,
        };
        let result = diff(&old, &new, &opts)?;
        let text = match args.output {
            DiffFormat::Json => format!("{:#}\n", result.to_json()),
            DiffFormat::Markdown => result.to_markdown(args.max_bytes),
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
        // An upgrade preview says nothing when the upgrade changes nothing, so
        // scripts can test for empty output as well as the exit status.
        let quiet = args.to_kustomize_version.is_some()
            && matches!(args.output, DiffFormat::Text)
            && !result.has_differences();
        if !quiet {
            print_stdout(&text)?;
        }
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
