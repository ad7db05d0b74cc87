//! `kbuild explain`: where the fields of a build's output came from.
//!
//! - `kbuild explain DIR RESOURCE` prints the resource's YAML, each line with the origin
//!   of its field: the file, line and column it was read from, or the last step that set
//!   it (`patches[0] prod/kustomization.yaml:4:3`).
//! - `kbuild explain DIR RESOURCE FIELD` prints the chain of one field (or of the fields
//!   below it), oldest first: each step with its kind, its entry and positions, and the
//!   value before and after.
//! - `kbuild explain --from FILE:LINE [DIR...]` goes the other way: the output fields
//!   that take a value from that line (of the given kustomizations, or of every one under
//!   the current directory that reads FILE).

use super::BuildFlags;
use super::diff::ColorWhen;
use kbuild::explain::report::{LocatedStep, Locator, Position, annotated};
use kbuild::explain::{json, select};
use kbuild::provenance::FieldPath;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
#[command(
    override_usage = "kbuild explain [OPTIONS] DIR RESOURCE [FIELD]\n       \
                            kbuild explain [OPTIONS] --from FILE:LINE [DIR]..."
)]
pub(crate) struct ExplainArgs {
    /// DIR RESOURCE [FIELD]; with --from, the kustomizations to look in. RESOURCE is
    /// Kind/name, Kind/namespace/name or group/Kind/name, as the output names it; FIELD is
    /// a field path as replacements write it (spec.template.spec.containers[name=web].image).
    #[arg(value_name = "ARGS")]
    args: Vec<String>,
    /// Which output fields take a value from this line of a source file (FILE:LINE).
    #[arg(long, value_name = "FILE:LINE")]
    from: Option<String>,
    /// Output format.
    #[arg(long, short, value_enum, default_value = "text")]
    output: Format,
    /// When to color the output (NO_COLOR turns off "auto").
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorWhen,
    #[command(flatten)]
    flags: BuildFlags,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// `kbuild explain`: exit 0, or 1 with an error (a RESOURCE or FIELD not in the output
/// names the nearest ones).
pub(crate) fn run_explain(args: &ExplainArgs) -> super::CommandResult {
    let text = match &args.from {
        Some(from) => from_line(args, from)?,
        None => explain(args)?,
    };
    // Long output goes through the pager on a terminal, as `diff`'s does (see pager.rs).
    if !super::pager::page(&text, super::pager::disabled_by_flag()) {
        super::print_stdout(&text)?;
    }
    Ok(super::Status::Success)
}

/// The build of `dir` with provenance recorded: of the resources `only` admits, or of
/// all; its warnings printed when `warn`.
fn build(
    args: &ExplainArgs,
    dir: &Path,
    only: Option<kbuild::provenance::Only>,
    warn: bool,
) -> Result<kbuild::BuildOutput, kbuild::Error> {
    let mut options = args.flags.options()?;
    options.provenance = true;
    options.provenance_only = only;
    let built = kbuild::build_with_warnings(dir, &options)?;
    if warn {
        // As `build` prints them: kustomize's deprecation notices as kustomize does.
        super::warnings::WarningFlags {
            strict: false,
            quiet: false,
        }
        .print(&built.warnings);
    }
    Ok(built)
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn explain(args: &ExplainArgs) -> Result<String, kbuild::Error> {
    let (dir, resource, field) = match args.args.as_slice() {
        [dir, resource] => (dir, resource, None),
        [dir, resource, field] => (dir, resource, Some(kbuild::explain::field(field))),
        _ => {
            return Err(kbuild::Error::msg(
                "kbuild explain takes DIR RESOURCE [FIELD] (or --from FILE:LINE [DIR]...)",
            ));
        }
    };
    // Never freed: the process ends right after, and freeing every node and record of a
    // large build one by one (and the files it parsed, which the output keeps) costs more
    // than the rest of the explanation (as in `build`).
    // Recording only what may become the resource asked about; if a step rewrote its
    // kind or name beyond that (provenance/only.rs), it has no record, and the build is
    // made again recording everything (its warnings were printed the first time).
    let dir = Path::new(dir);
    let mut built = std::mem::ManuallyDrop::new(build(args, dir, select::only(resource), true)?);
    if select::find(&built.resmap, resource)?.provenance.is_none() {
        built = std::mem::ManuallyDrop::new(build(args, dir, None, false)?);
    }
    let resmap = &built.resmap;
    let r = select::find(resmap, resource)?;
    let reader = read;
    let mut loc = Locator::new(&reader);
    let color = args.color.enabled();
    let name = select::spelling(resmap, r);
    let empty = kbuild::provenance::Provenance::default();
    let p = r.provenance.as_deref().unwrap_or(&empty);
    if let Some(field) = &field
        && field.lookup(r.node()).is_none()
    {
        let fields: Vec<String> = kbuild::provenance::diff::leaves(r.node())
            .into_iter()
            .map(|(path, _)| path.to_string())
            .collect();
        return Err(kbuild::Error::msg(format!(
            "{name} has no field '{field}'{}",
            nearest_fields(&field.to_string(), &fields)
        )));
    }
    if args.output == Format::Json {
        let value = json::resource(resmap, r, field.as_ref(), &mut loc);
        return Ok(format!("{value:#}\n"));
    }
    let mut out = String::new();
    match &field {
        None => {
            let lines = annotated(r.node(), p, &mut loc);
            let width = lines
                .iter()
                .map(|(l, _)| l.chars().count())
                .max()
                .unwrap_or(0)
                .min(60);
            for (line, step) in lines {
                match step {
                    Some(step) => {
                        let pad = width.saturating_sub(line.chars().count());
                        let note = paint(color, DIM, &format!("# {}", step.summary(&display)));
                        let _ = writeln!(out, "{line}{}  {note}", " ".repeat(pad));
                    }
                    None => {
                        let _ = writeln!(out, "{line}");
                    }
                }
            }
        }
        Some(field) => {
            let chain = loc.chain(p, field);
            let _ = writeln!(out, "{} {}", paint(color, BOLD, &name), field);
            if chain.is_empty() {
                let _ = writeln!(out, "  (no recorded step)");
            }
            for (i, step) in chain.iter().enumerate() {
                let _ = writeln!(out, "{:>3}. {}", i + 1, long(step, field, color));
            }
        }
    }
    Ok(out)
}

/// One step of a chain: kind, entry, positions, before and after.
fn long(step: &LocatedStep, asked: &FieldPath, color: bool) -> String {
    let mut text = format!("{:<14}", step.kind.as_str());
    if let Some(actor) = &step.actor {
        let _ = write!(text, " {actor}");
    }
    if let Some(at) = &step.entry_at {
        let _ = write!(text, " {}", display(at));
    }
    // The value's own position when it is in another file than the entry (a patch file);
    // within the entry (an image's newTag) the entry says enough here (the JSON has both).
    if let Some(at) = &step.value_at
        && step.entry_at.as_ref().is_none_or(|e| e.file != at.file)
    {
        let _ = write!(
            text,
            " {}",
            paint(color, DIM, &format!("({})", display(at)))
        );
    }
    if &step.field != asked {
        let _ = write!(text, " {}", step.field);
    }
    let before = step.before.as_deref();
    let after = step.after.as_deref();
    let change = match (before, after) {
        (None, Some(a)) => format!("= {a}"),
        (Some(b), Some(a)) => format!("{b} -> {a}"),
        (Some(b), None) => format!("{b} -> (removed)"),
        (None, None) => String::new(),
    };
    let _ = write!(text, "  {}", paint(color, GREEN, &change));
    text
}

/// A position, its file relative to the current directory when below it.
fn display(at: &Position) -> String {
    let mut at = at.clone();
    if let Ok(cwd) = std::env::current_dir()
        && let Ok(rel) = at.file.strip_prefix(&cwd)
    {
        at.file = rel.to_path_buf();
    }
    at.to_string()
}

const DIM: &str = "\x1b[2m";
const BOLD: &str = "\x1b[1m";
const GREEN: &str = "\x1b[32m";

fn paint(color: bool, style: &str, text: &str) -> String {
    if color {
        format!("{style}{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// "; nearest: ..." with up to three fields of the resource.
fn nearest_fields(asked: &str, fields: &[String]) -> String {
    let mut scored: Vec<(usize, &String)> = fields
        .iter()
        .map(|f| (kbuild::yaml::de::edit_distance(f, asked), f))
        .collect();
    scored.sort();
    let names: Vec<&str> = scored.iter().take(3).map(|(_, f)| f.as_str()).collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("; nearest: {}", names.join(", "))
    }
}

/// Whether a path names the file `--from` asked about: the same path, or one that resolves
/// to it (each path resolved once).
struct SameFile<'f> {
    file: &'f Path,
    known: HashMap<PathBuf, bool>,
}

impl SameFile<'_> {
    fn is(&mut self, path: &Path) -> bool {
        if path == self.file {
            return true;
        }
        if let Some(&same) = self.known.get(path) {
            return same;
        }
        let same = std::fs::canonicalize(path).is_ok_and(|f| f == self.file);
        self.known.insert(path.to_path_buf(), same);
        same
    }
}

/// The files a step's positions can be in: the file it wrote from and its entry's file.
fn step_files(step: &kbuild::provenance::Step) -> impl Iterator<Item = &Path> {
    let wrote = step.wrote.as_ref().map(|w| w.file.as_path());
    wrote
        .into_iter()
        .chain(step.entry.as_ref().map(|e| e.file.as_path()))
}

/// `--from FILE:LINE [DIR...]`: every output field, in the given kustomizations (or in
/// every one under the current directory whose inputs include FILE), whose chain has a
/// step at that line of FILE.
fn from_line(args: &ExplainArgs, from: &str) -> Result<String, kbuild::Error> {
    let (file, line) = from
        .rsplit_once(':')
        .and_then(|(f, l)| Some((f, l.parse::<usize>().ok().filter(|&l| l > 0)?)))
        .ok_or_else(|| {
            kbuild::Error::msg(format!(
                "--from '{from}': write FILE:LINE (a line number from 1)"
            ))
        })?;
    let file = std::fs::canonicalize(file)
        .map_err(|e| kbuild::Error::msg(format!("--from '{from}': {file}: {e}")))?;
    let dirs: Vec<PathBuf> = if args.args.is_empty() {
        let candidates = kbuild::render::discover(&[PathBuf::from(".")], None)?;
        kbuild::render::affected(&candidates, std::slice::from_ref(&file), None)?
    } else {
        args.args.iter().map(PathBuf::from).collect()
    };
    let reader = read;
    let mut loc = Locator::new(&reader);
    let color = args.color.enabled();
    let mut out = String::new();
    let mut found = Vec::new();
    let mut same = SameFile {
        file: &file,
        known: HashMap::new(),
    };
    for (i, dir) in dirs.iter().enumerate() {
        // Each build is freed before the next is made, but the last never is: the process
        // ends after the report (as in `explain RESOURCE`).
        let built = std::mem::ManuallyDrop::new(build(args, dir, None, true)?);
        let resmap = &built.resmap;
        let names = select::Names::of(resmap);
        for r in resmap.iter() {
            let Some(p) = r.provenance.as_deref() else {
                continue;
            };
            // A position is in the file a step wrote from or the file of its entry (see
            // `step_files`): a record with no step from FILE has no field from it, and is
            // not located at all (locating every leaf of every resource was most of the
            // time).
            if !p.steps.iter().flat_map(step_files).any(|f| same.is(f)) {
                continue;
            }
            // The fields with a step from FILE:LINE: every link of the record listed once
            // (a chain asked for each leaf lists them all again), only those from FILE
            // located. A leaf's chain holds the links of the fields at and below it, and
            // the one at the leaf counts (the field as the step named it).
            let mut hit: HashSet<FieldPath> = HashSet::new();
            for (path, _, link) in p.links() {
                if !step_files(link.step).any(|f| same.is(f)) {
                    continue;
                }
                let s = loc.locate(&link);
                let at_line = [&s.value_at, &s.entry_at]
                    .into_iter()
                    .flatten()
                    .any(|at| at.line == line && same.is(&at.file));
                if at_line && path.starts_with(&s.field) {
                    hit.insert(s.field);
                }
            }
            for (path, _) in kbuild::provenance::diff::leaves(r.node()) {
                if hit.contains(&path) {
                    found.push((dir.clone(), names.spelling(r), path));
                }
            }
        }
        if i + 1 < dirs.len() {
            drop(std::mem::ManuallyDrop::into_inner(built));
        }
    }
    if args.output == Format::Json {
        let items: Vec<serde_json::Value> = found
            .iter()
            .map(|(dir, resource, path)| {
                serde_json::json!({
                    "kustomization": dir.display().to_string(),
                    "resource": resource,
                    "path": path.to_string(),
                })
            })
            .collect();
        return Ok(format!("{:#}\n", serde_json::Value::Array(items)));
    }
    for (dir, resource, path) in &found {
        let _ = writeln!(
            out,
            "{} {} {path}",
            dir.display(),
            paint(color, BOLD, resource)
        );
    }
    Ok(out)
}
