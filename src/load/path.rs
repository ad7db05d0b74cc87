//! Paths as kustomize joins them: lexically, before resolving symlinks.

use std::path::{Component, Path, PathBuf};

/// Joins `rel` to `base` lexically (`..` pops), as kustomize does before
/// resolving symlinks.
pub fn join_clean(base: &Path, rel: &str) -> PathBuf {
    match join_clean_str(base, rel) {
        Some(joined) => PathBuf::from(joined),
        None => join_clean_components(base, rel),
    }
}

/// [`join_clean`] component by component: the general version.
fn join_clean_components(base: &Path, rel: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(rel).components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether `path` is absolute and clean, read as text: `/` first, no empty,
/// `.` or `..` name, no trailing `/` (the root alone excepted).
pub fn is_clean_absolute_text(path: &str) -> bool {
    path.starts_with('/')
        && (path.len() == 1
            || path[1..]
                .split('/')
                .all(|name| !matches!(name, "" | "." | "..")))
}

/// [`join_clean`] on text, for the usual case: `base` absolute and clean
/// ([`is_clean_absolute_text`]) and `rel` relative; `None` otherwise (or when
/// `..` would go above the root), and the general version answers.
fn join_clean_str(base: &Path, rel: &str) -> Option<String> {
    let base = base.to_str()?;
    if !is_clean_absolute_text(base) || rel.starts_with('/') {
        return None;
    }
    let root_only = base.len() == 1;
    let mut out = String::with_capacity(base.len() + rel.len() + 1);
    out.push_str(if root_only { "" } else { base });
    for name in rel.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                // Never above the root: the general version says what that gives.
                let cut = out.rfind('/').filter(|_| !out.is_empty())?;
                out.truncate(cut);
            }
            name => {
                out.push('/');
                out.push_str(name);
            }
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    Some(out)
}

/// Whether a resource entry looks like a remote URL (git or http).
pub fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || entry.starts_with("github.com/")
        || entry.starts_with("gitlab.com/")
        || entry.starts_with("bitbucket.org/")
}

/// Whether a file entry is an http(s) URL, which kustomize's loader fetches instead of
/// reading a file (`IsRemoteFile`: Go's `url.Parse` finds the scheme `http` or `https`,
/// in any letter case). kustomize checks this before looking for a local file.
pub fn is_remote_file(entry: &str) -> bool {
    let Some((scheme, _)) = entry.split_once(':') else {
        return false;
    };
    // Go's url.Parse refuses ASCII control characters; such an entry is a local path.
    !entry.bytes().any(|b| b < 0x20 || b == 0x7f)
        && (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_files_are_http_urls() {
        for entry in [
            "https://example.com/a.txt",
            "http://h/x",
            "HTTPS://h/x",
            "https:x",
        ] {
            assert!(is_remote_file(entry), "{entry}");
        }
        for entry in [
            "a.txt",
            "key=a.txt",
            "github.com/org/repo/a.txt",
            "git@github.com:org/repo",
            "ftp://h/x",
            "dir/https://x",
            "https\t://x",
        ] {
            assert!(!is_remote_file(entry), "{entry}");
        }
    }

    #[test]
    fn join_clean_on_text_matches_components() {
        let bases = [
            "/", "/a", "/a/b", "/a/b/", "/a//b", "/a/./b", "/a/../b", "rel/x", "",
        ];
        let rels = [
            "",
            ".",
            "..",
            "../..",
            "../../..",
            "../../../..",
            "x",
            "x/",
            "./x",
            "x/./y",
            "x//y",
            "../x",
            "x/../y",
            "x/../../y",
            "/abs",
            "/abs/../x",
            "..x",
            ".x/..y",
            "x/..",
        ];
        for base in bases {
            for rel in rels {
                assert_eq!(
                    join_clean(Path::new(base), rel),
                    join_clean_components(Path::new(base), rel),
                    "{base:?} + {rel:?}"
                );
            }
        }
    }
}
