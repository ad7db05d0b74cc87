//! The `merge3` and `apply` subcommands: argument parsing, reading inputs, printing results
//! and summaries. The merging itself is `kbuild::merge::merge3` and `kbuild::kubectl_apply`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::BuildFlags;
use clap::ValueEnum;
use kbuild::Error;
use kbuild::build::BuildOptions;
use kbuild::diff::generated::{merge3_generated, pairing_key};
use kbuild::diff::inputs::{self, Loaded, Origin};
use kbuild::kubectl_apply::{Action, ApplyOptions, dry_run, expand_lists};
use kbuild::merge::merge3::{Change, Merge3Options, Merged};
use kbuild::resource::selector::LabelSelector;
use kbuild::yaml::{Node, emit};

/// Arguments of `kbuild merge3`.
#[derive(clap::Args, Debug)]
pub(crate) struct Merge3Args {
    /// The upstream package as it was when it was copied: a YAML file, a directory of YAML
    /// files, or a kustomization (built first).
    #[arg(long, value_name = "O")]
    original: PathBuf,
    /// The new upstream package (file, directory or kustomization).
    #[arg(long, value_name = "U")]
    updated: PathBuf,
    /// The local copy with its edits (file, directory or kustomization).
    #[arg(long, value_name = "D")]
    dest: PathBuf,
    /// Write the merged stream to this file (atomically) instead of stdout.
    #[arg(short, long, value_name = "OUT", conflicts_with = "in_place")]
    output: Option<PathBuf>,
    /// Rewrite DEST's files with the result (each file replaced atomically); new resources
    /// go to the file of the same relative path as in UPDATED.
    #[arg(long)]
    in_place: bool,
    #[command(flatten)]
    flags: BuildFlags,
}

/// What `kbuild apply --show` prints.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Show {
    /// The live objects after apply.
    Objects,
    /// The strategic merge patch kubectl would send, per object.
    Patch,
}

/// Arguments of `kbuild apply`.
#[derive(clap::Args, Debug)]
pub(crate) struct ApplyArgs {
    /// Only `--dry-run` (or `--dry-run=client`) is supported: kbuild never contacts a
    /// cluster.
    #[arg(
        long,
        value_name = "client",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "client"
    )]
    dry_run: Option<String>,
    /// The live objects, as `kubectl get -o yaml` prints them (a List is accepted; `-` reads
    /// standard input).
    #[arg(long, value_name = "LIVE.yaml")]
    live: PathBuf,
    /// The configuration: a kustomization directory, a directory of YAML files or a file.
    #[arg(value_name = "CONFIG")]
    config: PathBuf,
    /// Report live objects that match `-l`, carry the last-applied annotation and are not in
    /// the configuration as pruned.
    #[arg(long, requires = "selector")]
    prune: bool,
    /// The label selector for `--prune` (`app=web,tier!=db`).
    #[arg(short = 'l', long)]
    selector: Option<String>,
    /// Print the resulting objects, or the patches.
    #[arg(long, value_enum, default_value = "objects")]
    show: Show,
    /// Write the output to this file (atomically) instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    flags: BuildFlags,
}

fn write_output(output: Option<&Path>, text: &str) -> Result<(), Error> {
    if let Some(path) = output {
        return kbuild::output::write_file_atomic(path, text.as_bytes(), super::signals::cleanup());
    }
    crate::print_stdout(text)
}

fn load(path: &Path, what: &str, options: &BuildOptions) -> Result<Loaded, Error> {
    inputs::load(path, options).map_err(|e| e.context(format!("reading {what} {}", path.display())))
}

/// Refuses more than one input read from standard input: the second would read nothing
/// (the first took it all) and the command would succeed on an empty input.
fn one_stdin(inputs: &[(&str, &Path)]) -> Result<(), Error> {
    let dashes: Vec<&str> = inputs
        .iter()
        .filter(|(_, p)| *p == Path::new("-"))
        .map(|(flag, _)| *flag)
        .collect();
    if let [first @ .., last] = dashes.as_slice()
        && !first.is_empty()
    {
        return Err(Error::msg(format!(
            "{} and {last} each name standard input ('-'); at most one input can be read from it: give the others as files (or as <(command), process substitution)",
            first.join(", ")
        )));
    }
    Ok(())
}

/// `kbuild merge3`.
pub(crate) fn run_merge3(args: &Merge3Args) -> super::CommandResult {
    merge3(args)?;
    Ok(super::Status::Success)
}

fn merge3(args: &Merge3Args) -> Result<(), Error> {
    one_stdin(&[
        ("--original", &args.original),
        ("--updated", &args.updated),
        ("--dest", &args.dest),
    ])?;
    let options = args.flags.options()?;
    let original = load(&args.original, "--original", &options)?;
    let updated = load(&args.updated, "--updated", &options)?;
    let dest = load(&args.dest, "--dest", &options)?;
    // Generated ConfigMaps and Secrets pair through their names without the hash suffix.
    let merged = merge3_generated(
        &original.docs,
        &updated.docs,
        &dest.docs,
        &Merge3Options::cli(),
    )?;
    if args.in_place {
        write_in_place(args, &updated, &dest, &merged)?;
    } else {
        let docs: Vec<&Node> = merged.iter().filter_map(|m| m.node.as_ref()).collect();
        write_output(args.output.as_deref(), &emit::emit_stream_refs(&docs))?;
    }
    print_merge3_summary(&merged, &original.docs, &dest.docs);
    Ok(())
}

fn print_merge3_summary(merged: &[Merged], original: &[Node], dest: &[Node]) {
    // The original of each resource, by pairing key (the first of a key, as a scan finds).
    let mut originals: HashMap<String, &Node> = HashMap::new();
    if merged.iter().any(|m| m.change == Change::Deleted) {
        for n in original {
            originals.entry(pairing_key(n)).or_insert(n);
        }
    }
    let mut counts = [0usize; 4];
    let mut changed = 0;
    for m in merged {
        let (i, word) = match m.change {
            Change::Added => (0, "added"),
            Change::Deleted => (1, "deleted"),
            Change::Merged => (2, "merged"),
            Change::Kept => (3, "kept"),
        };
        counts[i] += 1;
        let differs = m.dest_index.and_then(|d| dest.get(d)) != m.node.as_ref();
        if m.change == Change::Merged && differs {
            changed += 1;
            eprintln!("merged  {} (changed)", m.key);
        } else if m.change == Change::Deleted && locally_edited(m, &originals, dest) {
            // kyaml's rule (upstream's deletion wins) stands, but not silently.
            eprintln!(
                "{word:<7} {} (upstream removed it; the local edits to it are dropped)",
                m.key
            );
        } else if matches!(m.change, Change::Added | Change::Deleted) {
            eprintln!("{word:<7} {}", m.key);
        }
    }
    eprintln!(
        "merge3: {} added, {} deleted, {} merged ({changed} changed), {} kept",
        counts[0], counts[1], counts[2], counts[3]
    );
}

/// Whether the local copy of a resource differs from the original it was copied from.
fn locally_edited(m: &Merged, originals: &HashMap<String, &Node>, dest: &[Node]) -> bool {
    let local = m.dest_index.and_then(|i| dest.get(i));
    let upstream = originals.get(&m.key).copied();
    local.is_some() && local != upstream
}

/// Writes the result back into DEST's files; computes every file before writing any.
fn write_in_place(
    args: &Merge3Args,
    updated: &Loaded,
    dest: &Loaded,
    merged: &[Merged],
) -> Result<(), Error> {
    if dest.files.is_empty() {
        return Err(Error::msg(format!(
            "--in-place: {} is a kustomization, standard input or has no YAML files; write the result with -o instead",
            args.dest.display()
        )));
    }
    // Sets and groups, built once: DEST may be thousands of one-resource files.
    let mut files = dest.files.clone();
    let dest_files: HashSet<&PathBuf> = dest.files.iter().collect();
    let mut listed: HashSet<PathBuf> = dest.files.iter().cloned().collect();
    let upstream_files = upstream_files(updated);
    let mut placed: Vec<(PathBuf, &Node)> = Vec::new();
    for m in merged {
        let Some(node) = &m.node else { continue };
        let target = match m.dest_index.map(|i| &dest.origins[i]) {
            Some(Origin::File { path, .. }) => path.clone(),
            _ => new_resource_file(args, upstream_files.get(&m.key).copied(), &dest.files),
        };
        if listed.insert(target.clone()) {
            files.push(target.clone());
        }
        placed.push((target, node));
    }
    let mut before: HashMap<&PathBuf, Vec<&Node>> = HashMap::new();
    for (d, o) in dest.docs.iter().zip(&dest.origins) {
        if let Origin::File { path, .. } = o {
            before.entry(path).or_default().push(d);
        }
    }
    let mut after: HashMap<&PathBuf, Vec<&Node>> = HashMap::new();
    for (p, n) in &placed {
        after.entry(p).or_default().push(*n);
    }
    // A file whose resources all come out as they were is not written: rewriting it would
    // only drop its comments and styles (kbuild writes kustomize's format), and its
    // modification time would say it changed.
    let unchanged = |path: &PathBuf| {
        let (was, now) = (before.get(path), after.get(path));
        let same = match (was, now) {
            (Some(a), Some(b)) => a == b,
            (None, None) => true,
            (Some(v), None) | (None, Some(v)) => v.is_empty(),
        };
        dest_files.contains(path) && same
    };
    // All files or none, and none outside DEST: a symlinked subdirectory (or file) below
    // DEST could lead anywhere.
    let mut set = if args.dest.is_dir() {
        kbuild::output::FileSet::confined_to(&args.dest)
    } else {
        kbuild::output::FileSet::new()
    }
    .with_cleanup(super::signals::cleanup());
    for (path, text) in inputs::render_files(&files, &placed) {
        if unchanged(&path) {
            continue;
        }
        if text.is_empty() {
            if dest_files.contains(&path) {
                set.remove(path);
            }
            continue;
        }
        // A file DEST had is edited in place where its documents map one for one onto
        // the merged ones: only the changed entries are rewritten, the user's comments
        // and layout stay (`edit::rewrite`); otherwise it is written anew.
        let kept = dest_files
            .contains(&path)
            .then(|| std::fs::read_to_string(&path).ok())
            .flatten()
            .and_then(|old| {
                let now = after.get(&path).map_or(&[][..], Vec::as_slice);
                kbuild::edit::rewrite::rewrite_stream(&old, &path.display().to_string(), now)
            });
        set.write(path, kept.unwrap_or(text).into_bytes());
    }
    set.commit()
}

/// The origin of each resource of UPDATED by pairing key (the first of a key): the file
/// it comes from, `None` when built or read from standard input.
fn upstream_files(updated: &Loaded) -> HashMap<String, Option<&PathBuf>> {
    let mut files = HashMap::new();
    for (d, o) in updated.docs.iter().zip(&updated.origins) {
        let path = match o {
            Origin::File { path, .. } => Some(path),
            Origin::Built | Origin::Stdin => None,
        };
        files.entry(pairing_key(d)).or_insert(path);
    }
    files
}

/// Where a resource new upstream goes: DEST itself when it is a file, else the path it has
/// in UPDATED (`from`), relative to UPDATED, under DEST.
fn new_resource_file(
    args: &Merge3Args,
    from: Option<Option<&PathBuf>>,
    dest_files: &[PathBuf],
) -> PathBuf {
    if args.dest.is_file() {
        return args.dest.clone();
    }
    let from = from.flatten().cloned();
    let relative = from.and_then(|p| {
        if args.updated.is_file() {
            p.file_name().map(PathBuf::from)
        } else {
            p.strip_prefix(&args.updated).ok().map(Path::to_path_buf)
        }
    });
    match relative {
        Some(rel) => args.dest.join(rel),
        None => dest_files
            .first()
            .cloned()
            .unwrap_or_else(|| args.dest.join("resources.yaml")),
    }
}

/// `kbuild apply --dry-run`.
pub(crate) fn run_apply(args: &ApplyArgs) -> super::CommandResult {
    apply(args)?;
    Ok(super::Status::Success)
}

fn apply(args: &ApplyArgs) -> Result<(), Error> {
    one_stdin(&[("--live", &args.live), ("CONFIG", &args.config)])?;
    let options = args.flags.options()?;
    match args.dry_run.as_deref() {
        Some("client") | Some("true") => {}
        Some(other) => {
            return Err(Error::msg(format!(
                "--dry-run={other}: only client-side dry runs are possible offline (--dry-run or --dry-run=client)"
            )));
        }
        None => {
            return Err(Error::msg(
                "kbuild apply never contacts a cluster: pass --dry-run to see what kubectl apply would do",
            ));
        }
    }
    let live = expand_lists(load(&args.live, "--live", &options)?.docs)
        .map_err(|e| e.context(format!("reading --live {}", args.live.display())))?;
    let config = expand_lists(load(&args.config, "the configuration", &options)?.docs)?;
    let prune = match (&args.selector, args.prune) {
        (Some(s), true) => Some(LabelSelector::parse(s)?),
        _ => None,
    };
    let report = dry_run(&live, &config, &ApplyOptions { prune })?;
    let text = match args.show {
        Show::Objects => {
            let docs: Vec<&Node> = report
                .objects
                .iter()
                .filter_map(|o| o.result.as_ref())
                .collect();
            emit::emit_stream_refs(&docs)
        }
        Show::Patch => render_patches(&report.objects),
    };
    write_output(args.output.as_deref(), &text)?;
    for w in &report.warnings {
        eprintln!("Warning: {w}");
    }
    let mut counts = [0usize; 4];
    for o in &report.objects {
        let i = match o.action {
            Action::Created => 0,
            Action::Configured => 1,
            Action::Unchanged => 2,
            Action::Pruned => 3,
        };
        counts[i] += 1;
        eprintln!("{} {} (dry run)", o.name, o.action.as_str());
    }
    eprintln!(
        "apply: {} created, {} configured, {} unchanged, {} pruned",
        counts[0], counts[1], counts[2], counts[3]
    );
    Ok(())
}

/// One YAML document per object, headed by a comment naming it: the patch for configured
/// and unchanged objects, the object for created ones, nothing for pruned ones.
fn render_patches(objects: &[kbuild::kubectl_apply::Applied]) -> String {
    let mut out = String::new();
    for (i, o) in objects.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        let ns = o
            .namespace
            .as_deref()
            .map(|n| format!(" -n {n}"))
            .unwrap_or_default();
        out.push_str(&format!("# {}{ns} {}\n", o.name, o.action.as_str()));
        let doc = match o.action {
            Action::Created => o.result.as_ref(),
            Action::Pruned => None,
            _ => o.patch.as_ref(),
        };
        if let Some(doc) = doc {
            let mut text = String::new();
            emit::emit_document(doc, &mut text);
            out.push_str(&text);
            if !out.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}
