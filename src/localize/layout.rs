//! Where `localize` puts what it copies, with kustomize v5.8.1's names
//! (`api/internal/localizer/util.go`): the default destination `localized-<target>`
//! (`localized-<target>-<ref>` for a repository), a repository's kustomization under
//! `localized-files/<host>/<repository path>/<ref>/<path in the repository>` and a file
//! over http(s) under `localized-files/<host>/<URL path>`, both beside the kustomization
//! that names them.

use crate::error::{Error, Result};
use crate::remote::RepoSpec;
use std::path::{Component, Path, PathBuf};

/// The prefix of a default destination's name.
pub const DST_PREFIX: &str = "localized";
/// The directory, beside a kustomization, that holds its remote content.
pub const LOCALIZE_DIR: &str = "localized-files";
/// The host directory of `file://` repositories.
pub(super) const FILE_SCHEME_DIR: &str = "file-schemed";

/// The default destination's name: `localized-<name of the target directory>`, or for a
/// repository `localized-<directory, or the repository's name at its root>-<ref with each
/// '/' as '-'>`; the file system's root gives `localized`.
pub(super) fn default_dest(root: &Path, remote: Option<(&RepoSpec, &Path)>) -> String {
    let base = root.file_name().map(|n| n.to_string_lossy().into_owned());
    if let Some((spec, checkout)) = remote {
        let name = if root == checkout {
            url_base(&spec.repo_path).to_string()
        } else {
            base.unwrap_or_default()
        };
        return format!("{DST_PREFIX}-{name}-{}", spec.git_ref.replace('/', "-"));
    }
    match base {
        Some(name) => format!("{DST_PREFIX}-{name}"),
        None => DST_PREFIX.to_string(),
    }
}

/// The last segment of a URL path (trailing slashes ignored).
fn url_base(url: &str) -> &str {
    let cleaned = url.trim_end_matches('/');
    cleaned.rsplit('/').next().unwrap_or(cleaned)
}

/// Where the kustomization of the repository entry `spec` goes, relative to the
/// kustomization naming it: `localized-files/<host>/<repository path without .git>/<ref>/
/// <in_repo>`.
pub(super) fn remote_root(spec: &RepoSpec, in_repo: &Path) -> Result<PathBuf> {
    let mut path = PathBuf::from(LOCALIZE_DIR);
    path.push(repo_host(&spec.host));
    // Go's filepath.Join("/", path) cleans the path and keeps it below the root.
    for part in clean_below_root(spec.repo_path.trim_end_matches(".git")) {
        path.push(part);
    }
    // A ref names branches and tags, which may hold '/', never '..' (git refuses such
    // names); kbuild refuses one here rather than write outside `localized-files`.
    for part in spec
        .git_ref
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
    {
        if part == ".." {
            return Err(Error::msg(format!(
                "localize: the ref '{}' of '{}' climbs out of its directory",
                spec.git_ref,
                crate::remote::redact(&spec.raw)
            )));
        }
        path.push(part);
    }
    for c in in_repo.components() {
        if let Component::Normal(p) = c {
            path.push(p);
        }
    }
    Ok(path)
}

/// Where the file at the http(s) URL `url` goes, relative to the kustomization naming
/// it: `localized-files/<host>/<path of the URL>` (no query, no fragment).
pub(super) fn remote_file(url: &str) -> PathBuf {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut out = PathBuf::from(LOCALIZE_DIR);
    out.push(hostname(authority));
    for part in clean_below_root(path) {
        out.push(part);
    }
    out
}

/// kustomize's host directory of a repository: `gh` for `gh:`, `file-schemed` for
/// `file://`, else the host name alone (no scheme, user or port).
fn repo_host(host: &str) -> String {
    let scheme = host.split_once("://").map_or(host, |(s, _)| s);
    if scheme == "gh:" {
        return "gh".to_string();
    }
    if scheme == "file" {
        return FILE_SCHEME_DIR.to_string();
    }
    let rest = host.split_once("://").map_or(host, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or(rest);
    hostname(authority.trim_end_matches(':'))
}

/// Go's `url.Hostname` of an authority: no user, no port, no IPv6 brackets.
fn hostname(authority: &str) -> String {
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if let Some(v6) = host.strip_prefix('[') {
        return v6.split(']').next().unwrap_or(v6).to_string();
    }
    host.split(':').next().unwrap_or(host).to_string()
}

/// The segments of `/path` cleaned as Go's `filepath.Join("/", path)` does: `.` and
/// empty segments dropped, `..` removing the one before and nothing at the root.
fn clean_below_root(path: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out
}

/// The path from the directory `from` to `to` (both real, absolute), as Go's
/// `filepath.Rel`: `.` for the same directory, `..` segments up to their common part.
pub(super) fn relative(from: &Path, to: &Path) -> PathBuf {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `base` joined with `rel` and cleaned lexically; `None` when `rel` climbs above `base`'s
/// start (a relative path's first segment).
pub(super) fn join_inside(base: &Path, rel: &Path) -> Option<PathBuf> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in base.components().chain(rel.components()) {
        match c {
            Component::Normal(p) => parts.push(p),
            Component::ParentDir => {
                parts.pop()?;
            }
            _ => {}
        }
    }
    Some(parts.iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(url: &str) -> RepoSpec {
        RepoSpec::parse(url).unwrap()
    }

    #[test]
    fn repositories_go_under_host_path_and_ref() {
        // kustomize's runner_test.go: simplePathAndFiles.
        let s = spec(
            "https://github.com/kubernetes-sigs/kustomize//api/krusty/testdata/localize/simple?submodules=0&ref=kustomize/v4.5.7&timeout=300",
        );
        assert_eq!(
            remote_root(&s, Path::new("api/krusty/testdata/localize/simple")).unwrap(),
            Path::new(
                "localized-files/github.com/kubernetes-sigs/kustomize/kustomize/v4.5.7/api/krusty/testdata/localize/simple"
            )
        );
        let s = spec("file:///srv/git/app.git//base?ref=v1");
        assert_eq!(
            remote_root(&s, Path::new("base")).unwrap(),
            Path::new("localized-files/file-schemed/srv/git/app/v1/base")
        );
        let s = spec("git@github.com:org/repo.git/base?ref=main");
        assert_eq!(
            remote_root(&s, Path::new("base")).unwrap(),
            Path::new("localized-files/github.com/org/repo/main/base")
        );
        let s = spec("http://me@127.0.0.1:8080/git/app.git//base?ref=v2");
        assert_eq!(
            remote_root(&s, Path::new("base")).unwrap(),
            Path::new("localized-files/127.0.0.1/git/app/v2/base")
        );
        assert!(
            remote_root(
                &spec("https://github.com/o/r//x?ref=../../e"),
                Path::new("x")
            )
            .is_err()
        );
    }

    #[test]
    fn files_go_under_host_and_url_path() {
        // kustomize's runner_test.go: TestRemoteFile.
        assert_eq!(
            remote_file(
                "https://raw.githubusercontent.com/kubernetes-sigs/kustomize/kustomize/v4.5.7/api/krusty/testdata/customschema.json"
            ),
            Path::new(
                "localized-files/raw.githubusercontent.com/kubernetes-sigs/kustomize/kustomize/v4.5.7/api/krusty/testdata/customschema.json"
            )
        );
        assert_eq!(
            remote_file("http://127.0.0.1:9/files/../a/./b.yaml?x=1"),
            Path::new("localized-files/127.0.0.1/a/b.yaml")
        );
    }

    #[test]
    fn default_destinations() {
        assert_eq!(
            default_dest(Path::new("/a/target"), None),
            "localized-target"
        );
        assert_eq!(default_dest(Path::new("/"), None), "localized");
        let s = spec(
            "https://github.com/kubernetes-sigs/kustomize//api/krusty/testdata/localize/simple?ref=kustomize/v4.5.7",
        );
        let root = Path::new("/c/api/krusty/testdata/localize/simple");
        assert_eq!(
            default_dest(root, Some((&s, Path::new("/c")))),
            "localized-simple-kustomize-v4.5.7"
        );
        let s = spec("https://github.com/org/repo?ref=v1");
        assert_eq!(
            default_dest(Path::new("/c"), Some((&s, Path::new("/c")))),
            "localized-repo-v1"
        );
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/c/d")),
            Path::new("../c/d")
        );
        assert_eq!(relative(Path::new("/a"), Path::new("/a")), Path::new("."));
        assert_eq!(
            join_inside(Path::new("x/y"), Path::new("../z")),
            Some(PathBuf::from("x/z"))
        );
        assert_eq!(join_inside(Path::new("x"), Path::new("../../z")), None);
    }
}
