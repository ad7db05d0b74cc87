//! `kbuild render`: builds many kustomizations in one process, in parallel,
//! and writes (or, with `--check`, compares) one rendered file per
//! kustomization under an output directory. Made for pre-commit hooks and CI.
//! The output directory is kbuild's: a manifest there ([`manifest`]) records
//! the files it wrote, so `--all` removes the renders of kustomizations that
//! are gone and leaves hand-made files alone.
//!
//! A kustomization in `apps/web/overlays/prod` renders to
//! `OUTDIR/apps/web/overlays/prod.yaml`: its path relative to the current
//! directory, mirrored. Writes are atomic, and nothing is written before
//! every requested directory has been found and the output directory is
//! known to be writable.

use crate::build::{BuildOptions, build_with_warnings};
use crate::error::{Error, Result};
use crate::load::read_kustomization as load_kustomization;
use crate::{deps, load, output};
use manifest::Manifest;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod housekeep;
pub mod manifest;

pub use housekeep::{Housekeeping, housekeep};

/// What to render.
#[derive(Clone, Debug)]
pub struct RenderJob {
    /// Kustomization directories, as the user wrote them (relative to the
    /// current directory, or absolute).
    pub dirs: Vec<PathBuf>,
    /// Where rendered files go; `None` builds only (every kustomization must
    /// build, nothing is written).
    pub out_dir: Option<PathBuf>,
    /// Compare with the files in `out_dir` instead of writing them.
    pub check: bool,
    /// Options of every build (`--load-restrictor`).
    pub build_options: BuildOptions,
    /// A kustomization whose build has warnings (kbuild's own; kustomize's deprecation
    /// notices aside) fails, and its render is not written (`--strict`).
    pub strict: bool,
    /// Where the renders' temporary files are registered while they exist (for a signal
    /// handler; see [`output::Cleanup`]).
    pub cleanup: output::Cleanup,
}

/// What happened to one kustomization.
#[derive(Debug)]
pub enum Outcome {
    /// Rendered and written (`changed`: the file did not already hold this).
    Written {
        /// Whether the file changed: it was missing or held something else.
        changed: bool,
    },
    /// Built; nothing written (no output directory).
    Built,
    /// `--check`: the committed render matches.
    Current,
    /// `--check`: the committed render is missing or differs; a short diff.
    Stale {
        /// The committed render against the fresh one, in unified diff form.
        diff: String,
    },
    /// The build (or the write) failed.
    Failed(Error),
}

/// One kustomization's result.
#[derive(Debug)]
pub struct Rendered {
    /// The directory, as given.
    pub dir: PathBuf,
    /// Its render file, when there is an output directory.
    pub file: Option<PathBuf>,
    /// What happened to it.
    pub outcome: Outcome,
    /// Its build's warnings (see [`crate::BuildOutput::warnings`]).
    pub warnings: Vec<String>,
}

/// Every kustomization (not component) under `roots`, in path order.
/// Hidden directories (`.git`) are skipped; `exclude` (the output directory)
/// too.
pub fn discover(roots: &[PathBuf], exclude: Option<&Path>) -> Result<Vec<PathBuf>> {
    let exclude = exclude.and_then(|p| std::fs::canonicalize(p).ok());
    let mut found = BTreeSet::new();
    for root in roots {
        load::canonical(root, "directory")?;
        let walker = walkdir::WalkDir::new(root).sort_by_file_name().into_iter();
        let entries = walker.filter_entry(|e| {
            let hidden = e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.');
            let excluded = exclude.as_ref().is_some_and(|x| {
                e.file_type().is_dir() && std::fs::canonicalize(e.path()).is_ok_and(|p| &p == x)
            });
            !hidden && !excluded
        });
        for entry in entries {
            let entry =
                entry.map_err(|e| Error::msg(format!("reading '{}': {e}", root.display())))?;
            if !entry.file_type().is_dir() || load::find_kustomization_file(entry.path()).is_err() {
                continue;
            }
            // Components cannot be built on their own; a kustomization file
            // that does not parse is kept, so its error is reported.
            let is_component =
                load_kustomization(entry.path()).is_ok_and(|(_, k)| k.is_component());
            if !is_component {
                found.insert(clean(entry.path()));
            }
        }
    }
    Ok(found.into_iter().collect())
}

/// The kustomizations among `candidates` whose input files include one of
/// `changed` (paths as pre-commit passes them, relative to the current
/// directory), or whose render file under `out_dir` is one of them. A
/// kustomization whose inputs cannot be worked out (a broken kustomization
/// file) is included, so its error is reported.
pub fn affected(
    candidates: &[PathBuf],
    changed: &[PathBuf],
    out_dir: Option<&Path>,
) -> Result<Vec<PathBuf>> {
    let changed: BTreeSet<PathBuf> = changed
        .iter()
        .map(|p| deps::normalize(p))
        .collect::<Result<_>>()?;
    let renders: BTreeSet<PathBuf> = match out_dir {
        Some(out) => candidates
            .iter()
            .filter_map(|d| render_path(out, d).ok())
            .map(|p| deps::normalize(&p))
            .collect::<Result<_>>()?,
        None => BTreeSet::new(),
    };
    let picked = candidates
        .par_iter()
        .filter(|dir| {
            if let Some(out) = out_dir
                && let Ok(file) = render_path(out, dir)
                && deps::normalize(&file)
                    .is_ok_and(|f| renders.contains(&f) && changed.contains(&f))
            {
                return true;
            }
            match deps::input_files(dir) {
                Ok(inputs) => inputs.iter().any(|f| changed.contains(f)),
                Err(_) => true,
            }
        })
        .cloned()
        .collect();
    Ok(picked)
}

/// Where the render of `dir` goes: `out/<dir>.yaml`, `dir` taken relative to
/// the current directory (`out/root.yaml` for the current directory itself).
pub fn render_path(out: &Path, dir: &Path) -> Result<PathBuf> {
    let cwd = std::env::current_dir().map_err(|e| Error::Io {
        path: PathBuf::from("."),
        source: e,
    })?;
    let abs = load::join_clean(&cwd, &dir.to_string_lossy());
    let rel = abs.strip_prefix(&cwd).map_err(|_| {
        Error::msg(format!(
            "'{}' is outside the current directory; run kbuild render from a directory above it, so its render path can mirror its path",
            dir.display()
        ))
    })?;
    let mut name = rel.as_os_str().to_os_string();
    if name.is_empty() {
        name = "root".into();
    }
    name.push(".yaml");
    Ok(out.join(name))
}

/// Render files under `out` for the kustomization trees `roots` (the
/// `--all` roots: `out/<root>.yaml` and everything under `out/<root>/`) that
/// no kustomization renders to any more, because it was deleted or moved.
/// `expected` holds the render paths of the kustomizations found.
pub fn orphans(out: &Path, roots: &[PathBuf], expected: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let expected: BTreeSet<PathBuf> = expected.iter().map(|p| clean(p)).collect();
    let mut found = BTreeSet::new();
    for root in roots {
        let file = render_path(out, root)?;
        let tree = if clean(root) == Path::new(".") {
            out.to_path_buf()
        } else {
            file.with_extension("")
        };
        if file.is_file() {
            found.insert(clean(&file));
        }
        for entry in walkdir::WalkDir::new(&tree)
            .into_iter()
            .filter_map(|e| e.ok())
        {
            let path = entry.path();
            if entry.file_type().is_file() && path.extension().is_some_and(|e| e == "yaml") {
                found.insert(clean(path));
            }
        }
    }
    Ok(found
        .into_iter()
        .filter(|p| !expected.contains(p))
        .collect())
}

/// A path without `.` components, so `./a` and `a` are one kustomization; the
/// current directory itself is `.`.
fn clean(path: &Path) -> PathBuf {
    let cleaned: PathBuf = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if cleaned.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        cleaned
    }
}

/// Checks what can be checked before anything is written: every directory
/// exists and holds a kustomization file, every render path is inside the
/// current directory, and the output directory can be created and written.
pub fn validate(job: &RenderJob) -> Result<()> {
    for dir in &job.dirs {
        let real = load::canonical(dir, "kustomization directory")?;
        if !real.is_dir() {
            return Err(Error::msg(format!(
                "'{}' is not a directory; kbuild render takes kustomization directories",
                dir.display()
            )));
        }
        load::find_kustomization_file(&real)?;
    }
    if let Some(out) = &job.out_dir {
        let mut taken: BTreeMap<PathBuf, (&PathBuf, PathBuf)> = BTreeMap::new();
        for dir in &job.dirs {
            let file = clean(&render_path(out, dir)?);
            let real = load::canonical(dir, "kustomization directory")?;
            match taken.get(&file) {
                Some((other, other_real)) if *other_real != real => {
                    return Err(Error::Output(format!(
                        "'{}' and '{}' would both render to {}; rename one of the directories",
                        other.display(),
                        dir.display(),
                        file.display()
                    )));
                }
                _ => {
                    taken.insert(file, (dir, real));
                }
            }
        }
    }
    if let (Some(out), false) = (&job.out_dir, job.check) {
        let io = |e: std::io::Error| {
            Error::Io {
                path: out.clone(),
                source: e,
            }
            .context("the output directory is not writable")
        };
        std::fs::create_dir_all(out).map_err(io)?;
        // Named as kbuild's temporary files are, so that a signal arriving before it is
        // dropped leaves a file the next render recognises and removes.
        tempfile::Builder::new()
            .prefix(&output::temp::own_prefix())
            .tempfile_in(out)
            .map_err(|e| io(output::without_temp_path(e)))?;
    }
    // A manifest that cannot be read stops the run before anything is written.
    if let Some(out) = &job.out_dir {
        Manifest::load(out)?;
    }
    Ok(())
}

/// Renders every kustomization of the job, in parallel. One failing build
/// does not stop the others; see each result's outcome. Call [`validate`]
/// first.
pub fn run(job: &RenderJob) -> Vec<Rendered> {
    run_with(job, &|_| {})
}

/// [`run`], calling `done` with each kustomization's directory as its render finishes
/// (from the rendering threads; for progress reports).
pub fn run_with(job: &RenderJob, done: &(dyn Fn(&Path) + Sync)) -> Vec<Rendered> {
    job.dirs
        .par_iter()
        .map(|dir| {
            let file = job
                .out_dir
                .as_ref()
                .and_then(|out| render_path(out, dir).ok());
            let mut warnings = Vec::new();
            let outcome = match render_one(job, dir, file.as_deref(), &mut warnings) {
                Ok(o) => o,
                Err(e) => Outcome::Failed(e.context(format!("building '{}'", dir.display()))),
            };
            done(dir);
            Rendered {
                dir: dir.clone(),
                file,
                outcome,
                warnings,
            }
        })
        .collect()
}

fn render_one(
    job: &RenderJob,
    dir: &Path,
    file: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<Outcome> {
    let built = build_with_warnings(dir, &job.build_options)?;
    *warnings = built.warnings;
    let own = warnings
        .iter()
        .filter(|w| !w.starts_with(crate::kustomization::deprecated::PREFIX))
        .count();
    if job.strict && own > 0 {
        let s = if own == 1 { "" } else { "s" };
        return Err(Error::msg(format!(
            "{own} warning{s}, and --strict makes warnings errors; its render was not written"
        )));
    }
    let text = output::render(&built.resmap);
    let Some(file) = file else {
        return Ok(Outcome::Built);
    };
    let out = job.out_dir.as_deref().unwrap_or(Path::new("."));
    if let Some(problem) = not_a_render(out, file) {
        if job.check {
            return Ok(Outcome::Stale {
                diff: format!("{problem}\n"),
            });
        }
        // Only a link in the render's own place is replaced (the link, not its target);
        // a link on the way, a device or a directory is not kbuild's to remove.
        if !is_symlink(file) || output::confined(out, parent(file)).is_err() {
            return Err(Error::Output(problem));
        }
        std::fs::remove_file(file).map_err(|e| Error::Io {
            path: file.to_path_buf(),
            source: e,
        })?;
    }
    let existing = match std::fs::read(file) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(Error::Io {
                path: file.to_path_buf(),
                source: e,
            });
        }
    };
    let same = existing.as_deref() == Some(text.as_bytes());
    if job.check {
        if same {
            return Ok(Outcome::Current);
        }
        let old = existing
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let name = file.display().to_string();
        let diff = crate::diff::unified_diff(&old, &text, &name, &format!("{name} (kbuild)"));
        return Ok(Outcome::Stale { diff });
    }
    if !same {
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::Io {
                path: parent.to_path_buf(),
                source: e,
            })?;
        }
        output::write_file_atomic(file, text.as_bytes(), &job.cleanup)?;
    }
    Ok(Outcome::Written { changed: !same })
}

/// Why `file` cannot be read or replaced as a render: a render is a regular file below
/// OUTDIR, reached through directories. A symlink on the way (or the file itself a
/// symlink) is never followed: it could show any file's content in a diff.
fn not_a_render(out: &Path, file: &Path) -> Option<String> {
    if let Err(e) = output::confined(out, file) {
        return Some(e.to_string());
    }
    match std::fs::symlink_metadata(file) {
        Ok(m) if !m.is_file() => Some(format!(
            "{} is not a regular file; renders are regular files: remove it",
            file.display()
        )),
        _ => None,
    }
}

fn parent(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new(""))
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orphans_are_renders_without_a_kustomization() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        for f in [
            "apps/a.yaml",
            "apps/gone.yaml",
            "apps.yaml",
            "other/x.yaml",
            "apps/notes.txt",
        ] {
            let p = out.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let expected = [out.join("apps/a.yaml")];
        let found = orphans(&out, &[PathBuf::from("apps")], &expected).unwrap();
        assert_eq!(found, [out.join("apps/gone.yaml"), out.join("apps.yaml")]);
        let all = orphans(&out, &[PathBuf::from(".")], &expected).unwrap();
        assert_eq!(all.len(), 3);
    }

    #[test]
    fn render_paths_mirror_the_directory() {
        let out = Path::new("rendered");
        assert_eq!(
            render_path(out, Path::new("apps/web/overlays/prod")).unwrap(),
            Path::new("rendered/apps/web/overlays/prod.yaml")
        );
        assert_eq!(
            render_path(out, Path::new("./apps/web/../api/")).unwrap(),
            Path::new("rendered/apps/api.yaml")
        );
        assert_eq!(
            render_path(out, Path::new(".")).unwrap(),
            Path::new("rendered/root.yaml")
        );
        assert!(render_path(out, Path::new("../elsewhere")).is_err());
    }
}
