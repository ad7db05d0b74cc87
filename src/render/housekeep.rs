//! After the renders, the rest of the output directory: the manifest brought up to date,
//! the renders of kustomizations that are gone removed (`--all`, only files the manifest
//! says kbuild wrote), and temporary files left by an interrupted kbuild removed. With
//! `--check`, each of these is reported as stale instead of done.

use super::manifest::{self, Manifest};
use super::{Outcome, RenderJob, Rendered, clean, orphans};
use crate::error::{Error, Result};
use crate::output::{self, temp};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the housekeeping found or did.
#[derive(Debug, Default)]
pub struct Housekeeping {
    /// `--check`: files out of date beyond the renders themselves, each with why.
    pub stale: Vec<(PathBuf, String)>,
    /// Files removed: renders of kustomizations that are gone, leftover temporary files.
    pub removed: Vec<PathBuf>,
    /// `.yaml` files where renders go that kbuild did not write, and files named as the
    /// temporary files of kbuild before it named them its own way (`.tmpXXXXXX`, which
    /// any program using Rust's tempfile may leave): left alone.
    pub foreign: Vec<PathBuf>,
}

/// Brings the output directory of `job` up to date after `results` (or, with `--check`,
/// reports what is not). `all_roots`: the `--all` roots, within which a recorded render
/// whose kustomization was not found is removed.
pub fn housekeep(
    job: &RenderJob,
    all_roots: Option<&[PathBuf]>,
    results: &[Rendered],
) -> Result<Housekeeping> {
    let mut done = Housekeeping::default();
    let Some(out) = &job.out_dir else {
        return Ok(done);
    };
    let mut manifest = Manifest::load(out)?;
    let manifest_path = out.join(manifest::FILE_NAME);
    let expected: Vec<PathBuf> = results
        .iter()
        .filter_map(|r| r.file.as_deref())
        .map(clean)
        .collect();
    for r in results {
        let Some(file) = &r.file else { continue };
        match &r.outcome {
            Outcome::Written { .. } => manifest.record(out, file, &clean(&r.dir)),
            Outcome::Current if !manifest.owns(out, file) => done.stale.push((
                file.clone(),
                format!("not recorded in {}", manifest_path.display()),
            )),
            _ => {}
        }
    }
    if let Some(roots) = all_roots {
        let roots: Vec<PathBuf> = roots.iter().map(|r| clean(r)).collect();
        let expected_set: BTreeSet<&PathBuf> = expected.iter().collect();
        for (file, dir) in manifest.renders(out) {
            let in_scope = roots
                .iter()
                .any(|r| r == Path::new(".") || dir.starts_with(r));
            if !in_scope || expected_set.contains(&clean(&file)) {
                continue;
            }
            if job.check {
                done.stale.push((
                    file,
                    format!(
                        "render of '{}', which is no longer a kustomization",
                        dir.display()
                    ),
                ));
                continue;
            }
            remove_render(out, &file)?;
            manifest.forget(out, &file);
            done.removed.push(file);
        }
        for file in orphans(out, &roots, &expected)? {
            if !manifest.owns(out, &file) {
                done.foreign.push(file);
            }
        }
    }
    done.foreign.extend(old_temporaries(out));
    for leftover in leftover_temporaries(out) {
        if job.check {
            done.stale.push((
                leftover,
                "temporary file left by an interrupted kbuild".to_string(),
            ));
        } else {
            std::fs::remove_file(&leftover).map_err(|e| Error::Io {
                path: leftover.clone(),
                source: e,
            })?;
            done.removed.push(leftover);
        }
    }
    if !job.check {
        manifest.save(out, &job.cleanup)?;
    }
    Ok(done)
}

/// Removes a render kbuild wrote, and the directories it leaves empty below `out`. A
/// render that became a symlink or anything else since is left alone (and forgotten):
/// only a regular file reached without links is kbuild's to remove.
fn remove_render(out: &Path, file: &Path) -> Result<()> {
    let regular = std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file());
    if !regular || output::confined(out, file).is_err() {
        return Ok(());
    }
    std::fs::remove_file(file).map_err(|e| Error::Io {
        path: file.to_path_buf(),
        source: e,
    })?;
    let mut dir = file.parent();
    while let Some(d) = dir {
        if clean(d) == clean(out) || !d.starts_with(out) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

/// kbuild's temporary files under `out` whose writer is gone ([`temp::is_stale`]); links
/// are not followed.
fn leftover_temporaries(out: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(out)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .filter(|e| temp::writer_pid(e.file_name()).is_some() && temp::is_stale(e.path()))
        .map(|e| e.into_path())
        .collect()
}

/// Files under `out` named as tempfile names its temporary files (`.tmp` and six letters or
/// digits), as kbuild's were before `.kbuild-tmp.`: maybe kbuild's, maybe not, so only
/// reported.
fn old_temporaries(out: &Path) -> Vec<PathBuf> {
    let looks_temporary = |name: &str| {
        name.strip_prefix(".tmp")
            .is_some_and(|rest| rest.len() == 6 && rest.chars().all(|c| c.is_ascii_alphanumeric()))
    };
    walkdir::WalkDir::new(out)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.file_name().to_str().is_some_and(looks_temporary))
        .map(|e| e.into_path())
        .collect()
}
