//! Pulled charts, kept outside the source tree.
//!
//! kustomize pulls a chart that is not in the chart home into the chart home, and from
//! then on uses whatever is there, whatever version the kustomization asks for later.
//! kbuild leaves the source tree alone: a chart with an exact version is pulled once into
//! the chart cache (`--helm-cache-dir`, default `$XDG_CACHE_HOME/kbuild/charts` or
//! `~/.cache/kbuild/charts`), in a directory named by its repo, name, version and `devel`,
//! so a version bump is a new entry and two checkouts share one download. A chart without
//! an exact version (none, or a range) is pulled into a temporary directory for each build,
//! since the newest matching version may change.
//!
//! A pull goes into a temporary directory beside the cache entry and is renamed into place
//! only when helm succeeded: a failed or interrupted pull leaves nothing behind.

use super::args::ChartArgs;
use super::{HelmProblem, Session, command};
use crate::error::Result;
use std::path::{Path, PathBuf};

/// The default chart cache: `$XDG_CACHE_HOME/kbuild/charts`, else `$HOME/.cache/kbuild/charts`.
pub fn default_cache_dir() -> Option<PathBuf> {
    crate::cache_dir::user_cache_dir("charts")
}

/// What identifies a pulled chart: repo, name, version and `devel`.
pub(super) fn key(chart: &ChartArgs) -> String {
    let c = &chart.chart;
    format!(
        "{}\0{}\0{}\0{}",
        c.repo,
        c.name,
        c.version,
        c.devel == Some(true)
    )
}

/// Whether `version` names one release (`1.2.3`, `v1.2.3-rc.1+build`), not a range.
fn is_exact(version: &str) -> bool {
    let re = regex::Regex::new(r"^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$");
    re.is_ok_and(|r| r.is_match(version))
}

/// The cache entry's directory name: readable, and unique by [`key`].
fn entry_name(chart: &ChartArgs) -> String {
    use sha2::{Digest, Sha256};
    let hash = super::hex(&Sha256::digest(key(chart).as_bytes()));
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!(
        "{}-{}-{}",
        safe(&chart.chart.name),
        safe(&chart.chart.version),
        &hash[..16]
    )
}

/// Pulls `chart` (see the module comment) and returns its directory.
pub(super) fn pull(
    session: &Session,
    chart: &ChartArgs,
    limits: &command::Limits<'_>,
) -> Result<PathBuf> {
    let fail = |p| super::failure(chart, p);
    let options = session.options();
    let name = &chart.chart.name;
    let offline = || {
        fail(HelmProblem::Offline {
            repo: chart.chart.repo.clone(),
            version: chart.chart.version.clone(),
        })
    };
    if !is_exact(&chart.chart.version) {
        if options.offline {
            return Err(offline());
        }
        let tmp = crate::output::temp::Registered::dir(
            limits.cleanup,
            tempfile::Builder::new().prefix("kbuild-chart-"),
            None,
        )
        .map_err(|e| fail(HelmProblem::Files(format!("temporary directory: {e}"))))?;
        run_pull(options, chart, tmp.path(), limits)?;
        let dir = tmp.path().join(name);
        session
            .scratch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(tmp);
        return Ok(dir);
    }
    let root = match &options.cache_dir {
        Some(dir) => dir.clone(),
        None => default_cache_dir().ok_or_else(|| {
            fail(HelmProblem::Files(
                "no chart cache directory: set --helm-cache-dir, XDG_CACHE_HOME or HOME".into(),
            ))
        })?,
    };
    let entry = root.join(entry_name(chart));
    if entry.join(name).is_dir() {
        return Ok(entry.join(name));
    }
    if options.offline {
        return Err(offline());
    }
    let files = |what: &str, e: std::io::Error| {
        fail(HelmProblem::Files(format!(
            "{what} '{}': {e}",
            root.display()
        )))
    };
    // Private to the user (0700), as kbuild's other caches: a chart found there is used as
    // it is, so no other user may put one there.
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&root)
            .map_err(|e| files("cannot create the chart cache", e))?;
    }
    let tmp = crate::output::temp::Registered::dir(
        limits.cleanup,
        tempfile::Builder::new().prefix(".pull-"),
        Some(&root),
    )
    .map_err(|e| files("cannot write to the chart cache", e))?;
    run_pull(options, chart, tmp.path(), limits)?;
    // Renamed whole: the entry appears complete or not at all (a failed rename removes
    // the pull). Another build may have put it there meanwhile; then its copy is as good
    // as this one.
    if let Err(e) = tmp.rename_to(&entry)
        && !entry.join(name).is_dir()
    {
        return Err(files(
            "cannot move the pulled chart into the chart cache",
            e,
        ));
    }
    Ok(entry.join(name))
}

/// Runs `helm pull` into `dir` and checks that it made the chart's directory there.
fn run_pull(
    options: &super::HelmOptions,
    chart: &ChartArgs,
    dir: &Path,
    limits: &command::Limits<'_>,
) -> Result<()> {
    let _spinner = crate::progress::spinner(options.progress, || {
        format!("pulling chart {} {}", chart.chart.name, chart.chart.version)
    });
    let fail = |p| super::failure(chart, p);
    command::run(&options.command, &chart.pull_args(dir), limits).map_err(fail)?;
    if !dir.join(&chart.chart.name).is_dir() {
        return Err(fail(HelmProblem::Files(format!(
            "helm pull left no directory '{}' in '{}'",
            chart.chart.name,
            dir.display()
        ))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_exact;

    #[test]
    fn exact_versions_are_cached_ranges_are_not() {
        for v in [
            "1.2.3",
            "v1.2.3",
            "1.2.3-rc.1",
            "1.2.3+g1",
            "10.20.30-a.b+c",
        ] {
            assert!(is_exact(v), "{v}");
        }
        for v in [
            "",
            "1.2",
            "^1.2.3",
            "~1.2",
            ">=1.0.0",
            "1.2.x",
            "*",
            "1.2.3 || 2.0.0",
        ] {
            assert!(!is_exact(v), "{v}");
        }
    }
}
