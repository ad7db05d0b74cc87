//! `filePathPosition`: inserting the value as one part of a path-like string,
//! with Go's `filepath` clean and join rules.

use crate::go_path::join as go_join;

/// kustomize's `filesys.PathSplit`: `a/b` is `[a, b]`, `/a` is `["", a]`,
/// `/` is `[""]`, `a/` is `[a, ""]`, "" is `[]`.
pub(super) fn path_split(path: &str) -> Vec<&str> {
    if path.is_empty() {
        return Vec::new();
    }
    let (dir, file) = match path.rfind('/') {
        Some(i) => (&path[..=i], &path[i + 1..]),
        None => ("", path),
    };
    if dir == "/" {
        return if file.is_empty() {
            vec![""]
        } else {
            vec!["", file]
        };
    }
    let dir = dir.strip_suffix('/').unwrap_or(dir);
    if dir.is_empty() {
        return vec![file];
    }
    let mut out = path_split(dir);
    out.push(file);
    out
}

/// kustomize's `filesys.PathJoin`: a leading "" makes the path absolute; the
/// rest goes through `filepath.Join` (so it is cleaned: `a/./b` is `a/b`).
pub(super) fn path_join(parts: &[&str]) -> String {
    match parts.split_first() {
        None => String::new(),
        Some((&"", rest)) => format!("/{}", go_join(rest)),
        Some(_) => go_join(parts),
    }
}

/// kustomize's `filesys.InsertPathPart`: `part` becomes element `pos` (0-based)
/// of `path`, a position past the end appends; an absolute path stays
/// absolute (its leading `/` is not an element). `a/nice/warm/pie` with
/// `PEACH` at 3 is `a/nice/warm/PEACH/pie`; "" becomes `PEACH`.
pub(crate) fn insert_path_part(path: &str, pos: usize, part: &str) -> String {
    if part.is_empty() {
        return path.to_string();
    }
    let parts = path_split(path);
    let mut pos = pos.min(parts.len());
    if parts.first() == Some(&"") && pos < parts.len() {
        pos += 1;
    }
    let mut out: Vec<&str> = Vec::with_capacity(parts.len() + 1);
    out.extend_from_slice(&parts[..pos]);
    out.push(part);
    out.extend_from_slice(&parts[pos..]);
    path_join(&out)
}
