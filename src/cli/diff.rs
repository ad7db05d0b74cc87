//! `kbuild diff`: arguments, output and exit status.

use super::{BuildFlags, print_stdout};
use super::{OrTrouble, Status};
use clap::ValueEnum;
use std::path::Path;

#[derive(clap::Args, Debug)]
#[command(override_usage = "kbuild diff [OPTIONS] OLD NEW\n       \
                            kbuild diff [OPTIONS] --ref REF [--to-ref REF] [PATH]...")]
pub(crate) struct DiffArgs {
    /// OLD NEW: the two sides, each a kustomization directory, a YAML file, or - (stdin).
    /// With --to-kustomize-version, NEW may be left out: OLD is then compared with itself.
    /// With --ref: kustomization directories (or YAML files) to compare between the
    /// revisions (default: every one under the current directory that reads a changed
    /// file).
    #[arg(value_name = "OLD NEW | PATH")]
    inputs: Vec<String>,
    /// Compare with git revision REF (a branch, tag or commit): each PATH is built as of
    /// REF and in the working tree. The revision is read into a temporary directory,
    /// removed afterwards; the working tree and the index are not touched.
    #[arg(
        long = "ref",
        value_name = "REF",
        conflicts_with = "to_kustomize_version"
    )]
    pub(crate) git_ref: Option<String>,
    /// With --ref: compare with this revision instead of the working tree.
    #[arg(long, value_name = "REF", requires = "git_ref")]
    to_ref: Option<String>,
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
    /// Read OLD and NEW as the directories `kubectl diff` passes its external diff program
    /// (one object per file): `KUBECTL_EXTERNAL_DIFF="kbuild diff --kubectl" kubectl diff
    /// -k DIR`. Exit 0 same, 1 different, 2 error, as kubectl expects.
    #[arg(long, conflicts_with_all = ["git_ref", "to_kustomize_version"])]
    kubectl: bool,
    /// Say, under each changed resource, where each changed field's new value came from
    /// (the entry, patch or file that set it last; see `kbuild explain`). Sides read from
    /// YAML files have no such record.
    #[arg(long)]
    explain: bool,
    #[command(flatten)]
    flags: BuildFlags,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// Whether to color stdout: `auto` colors a terminal unless NO_COLOR is set.
    pub(crate) fn enabled(self) -> bool {
        use std::io::IsTerminal;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => !no_color && std::io::stdout().is_terminal(),
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum DiffFormat {
    Text,
    Json,
    // For pull-request comments: a summary table and a collapsible diff per resource.
    Markdown,
}

impl DiffArgs {
    fn diff_options(&self) -> kbuild::diff::DiffOptions {
        kbuild::diff::DiffOptions {
            ignore_fields: self.ignore_field.clone(),
            ignore_hash_suffix: self.ignore_hash_suffix,
            redact_secrets: matches!(self.output, DiffFormat::Markdown) && !self.show_secrets,
        }
    }

    /// Whether the text output is colored.
    fn color(&self) -> bool {
        self.color.enabled()
    }
}

/// `kbuild diff`: exit 0 when equal, 1 when different, 2 on error, as diff(1).
pub(crate) fn run_diff(args: &DiffArgs) -> super::CommandResult {
    let result = if let Some(git_ref) = &args.git_ref {
        run_diff_ref(args, git_ref)
    } else {
        run_diff_sides(args)
    };
    match result.or_trouble()? {
        false => Ok(Status::Success),
        true => Ok(Status::Differences),
    }
}

/// `kbuild diff OLD NEW`: whether they differ.
fn run_diff_sides(args: &DiffArgs) -> Result<bool, kbuild::Error> {
    use kbuild::diff::{diff, load_side};
    let (old_spec, new_spec) = match (args.inputs.as_slice(), args.to_kustomize_version) {
        ([old, new], _) => (old, new),
        ([old], Some(_)) => (old, old),
        _ => {
            return Err(kbuild::Error::msg(format!(
                "kbuild diff compares two sides, OLD and NEW, and was given {} argument{}; to compare with a git revision, use --ref REF [PATH]...",
                args.inputs.len(),
                if args.inputs.len() == 1 { "" } else { "s" }
            )));
        }
    };
    if old_spec == "-" && new_spec == "-" {
        return Err(kbuild::Error::msg(
            "only one side of a diff can be read from stdin ('-')",
        ));
    }
    let mut old_options = args.flags.options()?;
    old_options.provenance = args.explain;
    let mut new_options = old_options.clone();
    if let Some(v) = args.to_kustomize_version {
        new_options.kustomize_version = v;
    }
    let mut stdin = std::io::stdin().lock();
    let (mut old, mut new) = if args.kubectl {
        use kbuild::diff::kubectl_dirs::load;
        (load(Path::new(old_spec))?, load(Path::new(new_spec))?)
    } else {
        (
            load_side(old_spec, &old_options, &mut stdin)?,
            load_side(new_spec, &new_options, &mut stdin)?,
        )
    };
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
    let mut result = diff(&old, &new, &args.diff_options())?;
    if args.explain {
        let read = |p: &Path| std::fs::read_to_string(p).ok();
        let mut loc = kbuild::explain::report::Locator::new(&read);
        let cwd = std::env::current_dir().unwrap_or_default();
        let show =
            |at: &kbuild::explain::report::Position| kbuild::explain::report::relative(at, &cwd);
        result.explain(&old, &new, &mut loc, &show);
    }
    let text = match args.output {
        DiffFormat::Json => format!("{:#}\n", result.to_json()),
        DiffFormat::Markdown => result.to_markdown(args.max_bytes),
        DiffFormat::Text => result.to_text(args.color(), args.stat),
    };
    // An upgrade preview says nothing when the upgrade changes nothing, so
    // scripts can test for empty output as well as the exit status.
    let quiet = args.to_kustomize_version.is_some()
        && matches!(args.output, DiffFormat::Text)
        && !result.has_differences();
    if !quiet {
        page_or_print(&text)?;
    }
    Ok(result.has_differences())
}

/// `kbuild diff --ref REF [--to-ref REF] [PATH]...`: whether any kustomization differs.
fn run_diff_ref(args: &DiffArgs, git_ref: &str) -> Result<bool, kbuild::Error> {
    use kbuild::refs::{RefDiff, diff_refs};
    if args.inputs.iter().any(|p| p == "-") {
        return Err(kbuild::Error::msg(
            "with --ref, the paths are kustomization directories or YAML files in the repository; standard input ('-') has no revision",
        ));
    }
    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .map_err(|e| kbuild::Error::Io {
            path: ".".into(),
            source: e,
        })?;
    // One spinner for the whole comparison (checkouts and builds of both revisions), on
    // a terminal only; the builds' own fetch and pull spinners would draw over it.
    let mut build = args.flags.options()?;
    build.provenance = args.explain;
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    build.remote.progress = false;
    build.helm.progress = false;
    let spinner = kbuild::progress::spinner(progress, || {
        format!(
            "building {git_ref} and {}",
            args.to_ref.as_deref().unwrap_or("the working tree")
        )
    });
    let report = diff_refs(
        &RefDiff {
            from: git_ref,
            to: args.to_ref.as_deref(),
            paths: &args.inputs,
            build: &build,
            diff: &args.diff_options(),
        },
        &cwd,
    )?;
    drop(spinner);
    let text = match args.output {
        DiffFormat::Json => format!("{:#}\n", report.to_json()),
        DiffFormat::Markdown => report.to_markdown(args.max_bytes),
        DiffFormat::Text => report.to_text(args.color(), args.stat),
    };
    page_or_print(&text)?;
    Ok(report.has_differences())
}

/// The diff through the pager on a terminal (see `pager.rs`), else printed.
fn page_or_print(text: &str) -> Result<(), kbuild::Error> {
    if super::pager::page(text, super::pager::disabled_by_flag()) {
        return Ok(());
    }
    print_stdout(text)
}
