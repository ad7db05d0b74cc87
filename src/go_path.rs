//! Go's `path.Clean` and `filepath.Join` on `/`-separated text: kustomize joins and cleans
//! paths with them where the result is printed (origin annotations, `filePathPosition`
//! values, the `notCloned` placeholder of a repository's root), so kbuild does the same
//! lexically, never through the file system.

/// Go's `path.Clean`: `.` parts dropped, `..` taking back the part before it (kept at
/// the start of a relative path, dropped at the root), repeated `/` folded, `.` for
/// nothing.
pub(crate) fn clean(path: &str) -> String {
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            _ => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Go's `filepath.Join`: the elements from the first non-empty one joined and cleaned,
/// `""` when all are empty.
pub(crate) fn join(parts: &[&str]) -> String {
    match parts.iter().position(|p| !p.is_empty()) {
        Some(first) => clean(&parts[first..].join("/")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::{clean, join};

    #[test]
    fn paths_are_cleaned_and_joined_as_go_does() {
        assert_eq!(clean(""), ".");
        assert_eq!(clean("base/../other/x.yaml"), "other/x.yaml");
        assert_eq!(clean("../a//b/./c/"), "../a/b/c");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(join(&["", ""]), "");
        assert_eq!(join(&["notCloned", ""]), "notCloned");
        assert_eq!(join(&["", "a/./b"]), "a/b");
    }
}
