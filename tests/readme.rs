//! The documentation's samples are real: every `console` block in README.md and in the
//! book's pages (`docs/src/**/*.md`) is run and its output compared, and every `sh` block
//! marked as runnable is run, so a sample cannot fall behind the code. The same files'
//! internal links are checked too: a relative link must name a file of the repository,
//! and a `#anchor` a heading of the page it points at (as mdBook makes heading ids), and
//! every page of the book must be in `docs/src/SUMMARY.md`.
//!
//! A block is tied to the files it runs on by an HTML comment on the line before its fence
//! (invisible on GitHub):
//! - `<!-- sample: DIR -->` before a ```` ```console ```` block: DIR (relative to the
//!   repository) is copied into a temporary directory, the block's `$ ` lines run there in
//!   one `sh` (so `$?`, `cd` and files written carry from one command to the next; a line
//!   ending in `\` continues the command), stdout and stderr together, and each command's
//!   output must equal the lines after it. A line `...` stands for any number of lines and
//!   `...` inside a line for any text (for samples the README shortens on purpose).
//! - `<!-- sample: continue -->`: the same directory as the previous sample, as it was left.
//! - `<!-- sample: DIR setup: SCRIPT -->`: as `sample: DIR`, after running the repository's
//!   SCRIPT with `sh` in the copy (`KBUILD_REPO` names the repository), for state a sample
//!   needs but does not show (a git repository with a commit).
//! - `<!-- sample-run: DIR -->` before a ```` ```sh ```` block: each command runs in a copy
//!   of DIR and must exit 0 (1 is accepted from `kbuild diff` and `--check`, which use it
//!   for "different"); the output is not compared. `cargo run --release -- ARGS` runs
//!   `kbuild ARGS` (the binary under test) and other `cargo` lines are skipped: this test
//!   is itself run by `cargo test`.
//!
//! A `console` block without a marker fails the test: a sample that is not checked is not
//! trusted. A `continue` marker continues the previous sample of the same file.
//! `KBUILD_BLESS=1 cargo test readme::` rewrites, in every checked file, the expected
//! output of every checked block that has no `...` from what the commands print now
//! (review the change with `git diff`).
//!
//! Samples that need a program kbuild does not ship (the pre-commit framework) report
//! themselves ignored when it is missing, and fail under `CI=true`.

#[path = "readme/links.rs"]
mod links;

use crate::common;
use libtest_mimic::{Completion, Failed, Trial};
use std::sync::{Arc, OnceLock};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The checked files: the README, the contributor guide and every page of the book,
/// relative to the repository.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_string(), "CONTRIBUTING.md".to_string()];
    let mut pages: Vec<String> = walkdir::WalkDir::new(repo().join("docs/src"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| {
            e.path()
                .strip_prefix(repo())
                .expect("under the repository")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    pages.sort();
    docs.extend(pages);
    docs.retain(|d| repo().join(d).is_file());
    docs
}

/// What a marker asks for.
#[derive(Clone, Debug)]
enum Marker {
    /// Compare the block's commands' output, in a fresh copy of a directory, after an
    /// optional setup script.
    Sample(String, Option<String>),
    /// Compare, in the directory the previous sample left.
    Continue,
    /// Run each command; check the exit status only.
    Run(String),
}

/// One checked code block.
#[derive(Clone, Debug)]
struct Block {
    /// The file the block is in, relative to the repository.
    file: String,
    /// 1-based line of the opening fence.
    line: usize,
    marker: Marker,
    /// The directory the block runs in: its own, or the one it continues.
    dir: String,
    /// The fenced lines.
    body: Vec<String>,
}

/// One `$ ` command of a console block and the output shown after it.
#[derive(Clone, Debug)]
struct Step {
    command: String,
    expected: Vec<String>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn marker(line: &str) -> Option<Marker> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    if let Some(dir) = inner.strip_prefix("sample-run:") {
        return Some(Marker::Run(dir.trim().to_string()));
    }
    let rest = inner.strip_prefix("sample:")?.trim();
    if rest == "continue" {
        return Some(Marker::Continue);
    }
    Some(match rest.split_once(" setup:") {
        Some((dir, setup)) => Marker::Sample(dir.trim().to_string(), Some(setup.trim().into())),
        None => Marker::Sample(rest.to_string(), None),
    })
}

/// The checked blocks of `text`, or the problems found reading it (a console block without
/// a marker, a `continue` with nothing before it).
fn blocks(file: &str, text: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut last_dir: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        // A fence is three or more backticks; it ends at a line of as many (a ````
        // block may hold ``` lines, as a markdown sample does).
        let ticks = lines[i].len() - lines[i].trim_start_matches('`').len();
        if ticks < 3 {
            i += 1;
            continue;
        }
        let (fence, info) = lines[i].split_at(ticks);
        let open = i;
        let end = (open + 1..lines.len())
            .find(|&j| lines[j].trim_end() == fence)
            .unwrap_or(lines.len());
        let body: Vec<String> = lines[open + 1..end.min(lines.len())]
            .iter()
            .map(|l| l.to_string())
            .collect();
        i = end + 1;
        let before = lines[..open].iter().rev().find(|l| !l.trim().is_empty());
        let marker = before.and_then(|l| marker(l));
        let Some(marker) = marker else {
            if info.trim() == "console" {
                problems.push(format!(
                    "{file}:{}: a console block without a `<!-- sample: DIR -->` marker",
                    open + 1
                ));
            }
            continue;
        };
        let dir = match &marker {
            Marker::Sample(d, _) | Marker::Run(d) => d.clone(),
            Marker::Continue => match &last_dir {
                Some(d) => d.clone(),
                None => {
                    problems.push(format!(
                        "{file}:{}: `sample: continue` with no sample before it",
                        open + 1
                    ));
                    continue;
                }
            },
        };
        if let Marker::Sample(d, _) = &marker {
            last_dir = Some(d.clone());
        }
        found.push(Block {
            file: file.to_string(),
            line: open + 1,
            marker,
            dir,
            body,
        });
    }
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(problems.join("\n"))
    }
}

/// The commands of a console block and the output after each.
fn steps(body: &[String]) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut continuing = false;
    for line in body {
        if continuing {
            let step = out.last_mut().expect("a command is being continued");
            step.command.push('\n');
            step.command.push_str(line);
            continuing = line.ends_with('\\');
        } else if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Step {
                command: cmd.to_string(),
                expected: Vec::new(),
            });
            continuing = cmd.ends_with('\\');
        } else if let Some(step) = out.last_mut() {
            step.expected.push(line.clone());
        }
    }
    out
}

/// Whether `line` matches `pattern`, where `...` inside the pattern stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    if !pattern.contains("...") {
        return pattern == line;
    }
    let pieces: Vec<&str> = pattern.split("...").collect();
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    if !line.ends_with(last) {
        return false;
    }
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the output `lines` match the expected lines, where a line that is only `...`
/// matches any number of lines.
fn output_matches(expected: &[String], lines: &[&str]) -> bool {
    // matches[i][j]: expected[i..] matches lines[j..].
    let (n, m) = (expected.len(), lines.len());
    let mut matches = vec![vec![false; m + 1]; n + 1];
    matches[n][m] = true;
    for i in (0..n).rev() {
        let any = expected[i].trim() == "...";
        for j in (0..=m).rev() {
            matches[i][j] = if any {
                matches[i + 1][j] || (j < m && matches[i][j + 1])
            } else {
                j < m && line_matches(&expected[i], lines[j]) && matches[i + 1][j + 1]
            };
        }
    }
    matches[0][0]
}

/// Copies the directory `rel` of the repository into `into`, without `target/` and `.git/`
/// directories.
fn copy_tree(rel: &str, into: &Path) -> Result<(), String> {
    let from = repo().join(rel);
    if !from.is_dir() {
        return Err(format!("sample directory {rel} does not exist"));
    }
    // Build output and git's database are not samples' input (`.` is the repository).
    let skip = |e: &walkdir::DirEntry| {
        e.depth() > 0
            && e.file_type().is_dir()
            && (e.file_name() == "target" || e.file_name() == ".git")
    };
    for entry in walkdir::WalkDir::new(&from)
        .into_iter()
        .filter_entry(|e| !skip(e))
    {
        let entry = entry.map_err(|e| e.to_string())?;
        let to = into.join(entry.path().strip_prefix(&from).expect("under the root"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).map_err(|e| e.to_string())?;
        } else {
            std::fs::copy(entry.path(), &to).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// A shell with kbuild first on PATH, colors off, and none of the environment that changes
/// kbuild's output.
fn shell(dir: &Path, script: &str) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_kbuild"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(&path));
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).expect("PATH"))
        .env("NO_COLOR", "1")
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .env_remove("KUSTOMIZE_ENABLE_MANAGEDBY_LABEL");
    cmd
}

/// The record separator the script prints before each command's output.
const SEPARATOR: &str = "\u{1e}README-SAMPLE-STEP\u{1e}";

/// Runs the steps in `dir` in one shell and returns each step's output.
fn run_steps(dir: &Path, steps: &[Step]) -> Result<Vec<String>, String> {
    let mut script = String::from("exec 2>&1\n");
    for step in steps {
        // Keep `$?` of the previous command across the separator.
        script.push_str(&format!(
            "__s=$?; printf '\\n%s\\n' '{SEPARATOR}'; (exit $__s)\n{}\n",
            step.command
        ));
    }
    let out = shell(dir, &script)
        .output()
        .map_err(|e| format!("sh: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut parts: Vec<String> = text
        .split(&format!("\n{SEPARATOR}\n"))
        .map(str::to_string)
        .collect();
    // The text before the first separator is empty.
    parts.remove(0);
    if parts.len() != steps.len() {
        return Err(format!(
            "expected {} commands' output, got {}:\n{text}",
            steps.len(),
            parts.len()
        ));
    }
    Ok(parts)
}

/// The output shown as lines, without the final newline.
fn output_lines(output: &str) -> Vec<&str> {
    let trimmed = output.strip_suffix('\n').unwrap_or(output);
    if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('\n').collect()
    }
}

/// The outcome of one checked block.
#[derive(Clone, Debug, Default)]
struct Outcome {
    /// The block's body as its commands print it now (console blocks that ran).
    now: Option<Vec<String>>,
    /// What differs or failed.
    failure: Option<String>,
    /// Why the block could not run here.
    skipped: Option<String>,
}

/// Runs a console block's commands and compares their output with the README's.
fn check_sample(block: &Block, dir: &Path) -> Outcome {
    let steps = steps(&block.body);
    if steps.is_empty() {
        return Outcome {
            failure: Some("a sample block without a `$ ` command".into()),
            ..Outcome::default()
        };
    }
    let outputs = match run_steps(dir, &steps) {
        Ok(o) => o,
        Err(e) => {
            return Outcome {
                failure: Some(e),
                ..Outcome::default()
            };
        }
    };
    let mut failures = Vec::new();
    let mut now = Vec::new();
    for (step, output) in steps.iter().zip(&outputs) {
        let lines = output_lines(output);
        for (k, cmd_line) in step.command.split('\n').enumerate() {
            now.push(if k == 0 {
                format!("$ {cmd_line}")
            } else {
                cmd_line.to_string()
            });
        }
        now.extend(lines.iter().map(|l| l.to_string()));
        if !output_matches(&step.expected, &lines) {
            failures.push(format!(
                "$ {}\n--- {} shows\n{}\n--- the command printed\n{}",
                step.command,
                block.file,
                step.expected.join("\n"),
                lines.join("\n")
            ));
        }
    }
    Outcome {
        now: Some(now),
        failure: (!failures.is_empty()).then(|| failures.join("\n")),
        skipped: None,
    }
}

/// The commands of a runnable `sh` block, with `cargo run --release --` turned into the
/// binary under test and other cargo commands dropped.
fn runnable_commands(body: &[String]) -> Vec<String> {
    body.iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            if let Some(rest) = l.strip_prefix("cargo run --release -- ") {
                Some(format!("kbuild {rest}"))
            } else if l.starts_with("cargo ") {
                None
            } else {
                Some(l.to_string())
            }
        })
        .collect()
}

fn check_runnable(block: &Block, dir: &Path) -> Result<(), String> {
    let mut failures = Vec::new();
    for cmd in runnable_commands(&block.body) {
        let out = shell(dir, &cmd).output().map_err(|e| format!("sh: {e}"))?;
        let code = out.status.code().unwrap_or(-1);
        let differs_ok = cmd.starts_with("kbuild diff") || cmd.contains("--check");
        if !(code == 0 || (code == 1 && differs_ok)) {
            failures.push(format!(
                "`{cmd}` exited {code}:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Runs the repository's setup script `rel` in `dir`.
fn run_setup(rel: &str, dir: &Path) -> Result<(), String> {
    let script = repo().join(rel);
    let out = shell(dir, &format!("sh '{}'", script.display()))
        .env("KBUILD_REPO", repo())
        .output()
        .map_err(|e| format!("sh: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "setup {rel} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Why a block cannot run here, if it needs a program that is not installed.
fn missing_prerequisite(block: &Block) -> Option<String> {
    let needs_pre_commit = block.body.iter().any(|l| l.contains("pre-commit"));
    let found = Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (needs_pre_commit && !found).then(|| "needs the pre-commit framework on PATH".to_string())
}

/// Runs every checked block in file order (a `continue` block needs the directory its
/// sample left).
fn run_all(blocks: &[Block]) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    let mut current: Option<tempfile::TempDir> = None;
    for block in blocks {
        if let Some(reason) = missing_prerequisite(block) {
            outcomes.push(Outcome {
                skipped: Some(reason),
                ..Outcome::default()
            });
            continue;
        }
        let continues = matches!(block.marker, Marker::Continue)
            && !outcomes.is_empty()
            && blocks[outcomes.len() - 1].file == block.file;
        if !continues || current.is_none() {
            let tmp = tempfile::tempdir().expect("tempdir");
            if let Err(e) = copy_tree(&block.dir, tmp.path()) {
                outcomes.push(Outcome {
                    failure: Some(e),
                    ..Outcome::default()
                });
                continue;
            }
            if let Marker::Run(_) = block.marker {
                outcomes.push(Outcome {
                    failure: check_runnable(block, tmp.path()).err(),
                    ..Outcome::default()
                });
                continue;
            }
            if let Marker::Sample(_, Some(setup)) = &block.marker
                && let Err(e) = run_setup(setup, tmp.path())
            {
                outcomes.push(Outcome {
                    failure: Some(e),
                    ..Outcome::default()
                });
                continue;
            }
            current = Some(tmp);
        }
        let dir = current.as_ref().expect("a sample directory").path();
        outcomes.push(check_sample(block, dir));
    }
    outcomes
}

/// A file's text with each of its blocks that has no `...` replaced by what its commands print now.
fn updated(text: &str, blocks: &[&Block], outcomes: &[&Outcome]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Bottom up, so the line numbers above stay valid.
    for (block, outcome) in blocks.iter().zip(outcomes).rev() {
        let elided = block.body.iter().any(|l| l.contains("..."));
        if let (Some(now), false) = (&outcome.now, elided) {
            // `block.line` is the fence's 1-based line: the body starts at that index.
            lines.splice(block.line..block.line + block.body.len(), now.clone());
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The trials: `readme::readme_markers`, `readme::doc_links`, then one per checked block.
/// The blocks run once, in order (samples continue each other), when the first of them
/// runs; under `KBUILD_BLESS` the checked files are then rewritten from what they print.
pub(crate) fn tests() -> Vec<Trial> {
    let name = |test: &str| crate::name(module_path!(), test);
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let mut texts = Vec::new();
    let mut all = Vec::new();
    let mut problems = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(repo().join(&file)).expect("a checked file");
        match blocks(&file, &text) {
            Ok(b) => all.extend(b),
            Err(p) => problems.push(p),
        }
        texts.push((file, text));
    }
    if !problems.is_empty() {
        let problems = problems.join("\n");
        return vec![Trial::test(name("readme_markers"), move || {
            Err(Failed::from(problems))
        })];
    }
    let mut trials = vec![Trial::test(name("readme_markers"), || Ok(()))];
    let link_problems = links::problems(&texts);
    trials.push(Trial::test(name("doc_links"), move || {
        if link_problems.is_empty() {
            Ok(())
        } else {
            Err(Failed::from(link_problems.join("\n")))
        }
    }));
    let all = Arc::new(all);
    let texts = Arc::new(texts);
    let outcomes: Arc<OnceLock<Vec<Outcome>>> = Arc::new(OnceLock::new());
    for (i, block) in all.iter().enumerate() {
        let stem = block
            .file
            .trim_end_matches(".md")
            .replace(['/', '.', '-'], "_")
            .to_lowercase();
        let full = name(&format!(
            "{stem}_line_{}_{}",
            block.line,
            block.dir.replace(['/', '.'], "_")
        ));
        let shown = full.clone();
        let (all, outcomes, texts) = (all.clone(), outcomes.clone(), texts.clone());
        trials.push(Trial::ignorable_test(full, move || {
            let outcome = &outcomes.get_or_init(|| run_and_bless(&texts, &all))[i];
            match (&outcome.failure, &outcome.skipped) {
                (Some(failure), _) if outcome.now.is_some() => Err(Failed::from(format!(
                    "{failure}\n{}",
                    common::bless::hint(&shown)
                ))),
                (Some(failure), _) => Err(Failed::from(failure)),
                (None, Some(reason)) if ci => Err(Failed::from(format!("CI=true and {reason}"))),
                (None, Some(reason)) => Ok(Completion::ignored_with(reason)),
                (None, None) => Ok(Completion::Completed),
            }
        }));
    }
    trials
}

/// Runs every block; under `KBUILD_BLESS`, rewrites each checked file from what its
/// blocks printed.
fn run_and_bless(texts: &[(String, String)], all: &[Block]) -> Vec<Outcome> {
    let outcomes = run_all(all);
    if common::bless::blessing() {
        for (file, text) in texts {
            let (mine, theirs): (Vec<&Block>, Vec<&Outcome>) = all
                .iter()
                .zip(&outcomes)
                .filter(|(b, _)| &b.file == file)
                .unzip();
            let new = updated(text, &mine, &theirs);
            if &new != text {
                std::fs::write(repo().join(file), new).expect("write a checked file");
                eprintln!("{file} updated: review it with git diff");
            }
        }
    }
    outcomes
}
