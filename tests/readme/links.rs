//! Internal links of the checked documents: a relative link must name a file or directory
//! of the repository, a `#anchor` must be a heading id of the page it points at (mdBook's
//! ids: lowercased, spaces as `-`, punctuation but `-` and `_` dropped, a repeated heading
//! numbered `-1`, `-2`, …), and every page under `docs/src/` must be in `SUMMARY.md`.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The problems found in `docs` (path relative to the repository, text), one line each.
pub(crate) fn problems(docs: &[(String, String)]) -> Vec<String> {
    let repo = super::repo();
    let mut out = Vec::new();
    for (file, text) in docs {
        for (line, target) in links(text) {
            if let Some(problem) = check(&repo, file, text, &target) {
                out.push(format!("{file}:{line}: link `{target}`: {problem}"));
            }
        }
    }
    out.extend(orphans(docs));
    out
}

/// Whether one link resolves; `None` when it does, else what is wrong.
fn check(repo: &Path, file: &str, text: &str, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let (page, page_text) = if path.is_empty() {
        (PathBuf::from(file), Some(text.to_string()))
    } else {
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        let Some(joined) = normalise(&dir.join(path)) else {
            return Some("leads out of the repository".into());
        };
        if !repo.join(&joined).exists() {
            return Some(format!("{} does not exist", joined.display()));
        }
        let text = std::fs::read_to_string(repo.join(&joined)).ok();
        (joined, text)
    };
    let anchor = anchor?;
    let is_markdown = page.extension().is_some_and(|e| e == "md");
    match page_text {
        Some(t) if is_markdown => {
            let ids = heading_ids(&t);
            (!ids.contains(anchor)).then(|| {
                format!(
                    "{} has no heading with the id `{anchor}` (its ids: {})",
                    page.display(),
                    ids.into_iter().collect::<Vec<_>>().join(", ")
                )
            })
        }
        _ => Some(format!(
            "an anchor into {}, which is no page",
            page.display()
        )),
    }
}

/// `path` with `.` and `..` resolved lexically; `None` when it leaves the repository.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(n) => out.push(n),
            _ => return None,
        }
    }
    Some(out)
}

/// The lines outside fenced code blocks, with their 1-based numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        if ticks >= 3 {
            match fence {
                None => fence = Some(&line[..ticks]),
                Some(f) if line.trim_end() == f => fence = None,
                Some(_) => {}
            }
            continue;
        }
        if fence.is_none() {
            out.push((i + 1, line));
        }
    }
    out
}

/// The line with inline code spans (`` `...` ``) removed: a link written inside code is
/// an example, not a link.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The targets of the inline links `[text](target)` outside code, with their lines.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            if !target.is_empty() {
                out.push((n, target.to_string()));
            }
            rest = &rest[end..];
        }
    }
    out
}

/// The ids mdBook gives the headings of a page.
fn heading_ids(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for (_, line) in prose(text) {
        let hashes = line.len() - line.trim_start_matches('#').len();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = id(&line[hashes..]);
        let mut candidate = base.clone();
        let mut n = 1;
        while ids.contains(&candidate) {
            candidate = format!("{base}-{n}");
            n += 1;
        }
        ids.insert(candidate);
    }
    ids
}

/// mdBook's `normalize_id` of a heading's text (inline code marks and link syntax are
/// punctuation, dropped alike).
fn id(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect::<String>()
        .to_lowercase()
}

/// Pages under `docs/src/` that `SUMMARY.md` does not link (mdBook would not build them).
fn orphans(docs: &[(String, String)]) -> Vec<String> {
    let Some((_, summary)) = docs.iter().find(|(f, _)| f == "docs/src/SUMMARY.md") else {
        return Vec::new();
    };
    let listed: BTreeSet<String> = links(summary)
        .into_iter()
        .map(|(_, t)| format!("docs/src/{t}"))
        .collect();
    docs.iter()
        .map(|(f, _)| f)
        .filter(|f| f.starts_with("docs/src/") && f.as_str() != "docs/src/SUMMARY.md")
        .filter(|f| !listed.contains(f.as_str()))
        .map(|f| format!("{f}: not in docs/src/SUMMARY.md, so the book leaves it out"))
        .collect()
}
