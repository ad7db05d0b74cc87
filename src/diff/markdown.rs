//! `kbuild diff --output markdown`: the report as a pull-request comment. A summary table,
//! then one collapsible section per changed, added or removed resource holding its
//! unified diff in a fenced `diff` block. The whole comment stays within a byte budget
//! (GitHub caps comments at 65,536 characters): a diff that does not fit is cut at a line
//! and says how many lines were cut, and resources past the budget are counted at the end.

use super::{DiffResult, Entry, Status, pair_title};

/// Room kept for the closing note about resources left out.
const TAIL: usize = 200;

impl DiffResult {
    /// The markdown report, at most `max_bytes` long (but never less than its table).
    pub fn to_markdown(&self, max_bytes: usize) -> String {
        let title = format!("`{}` → `{}`", self.old_label, self.new_label);
        report(&title, "", &[(title.clone(), self)], false, max_bytes)
    }
}

/// A report over several comparisons: the heading `kbuild diff: {title}`, a table with one
/// row per comparison (`rows` pairs each with its row label; `column` heads the label
/// column), then the sections of every changed, added or removed resource, each comparison's
/// under a heading of its label when `headings`. The byte budget is shared: what does not
/// fit is counted at the end.
pub fn report(
    title: &str,
    column: &str,
    rows: &[(String, &DiffResult)],
    headings: bool,
    max_bytes: usize,
) -> String {
    let column = if column.is_empty() {
        " ".to_string()
    } else {
        format!(" {column} ")
    };
    let mut out = format!(
        "### kbuild diff: {title}\n\n|{column}| changed | added | removed | unchanged |\n|---|---|---|---|---|\n"
    );
    for (label, result) in rows {
        let s = result.summary();
        out.push_str(&format!(
            "| {label} | {} | {} | {} | {} |\n",
            s.changed, s.added, s.removed, s.unchanged
        ));
    }
    out.push('\n');
    let shown: Vec<(&str, &DiffResult, Vec<&Entry>)> = rows
        .iter()
        .map(|(label, result)| (label.as_str(), *result, shown_entries(result)))
        .filter(|(_, _, entries)| !entries.is_empty())
        .collect();
    if shown.is_empty() {
        out.push_str("No differences.\n");
        return out;
    }
    let total: usize = shown.iter().map(|(_, _, e)| e.len()).sum();
    let mut done = 0;
    let search = super::Budget::new();
    for (label, result, entries) in &shown {
        if headings {
            out.push_str(&format!("#### {label}\n\n"));
        }
        for e in entries {
            let budget = max_bytes.saturating_sub(out.len() + TAIL);
            match section(result, e, budget, &search) {
                Some(text) => out.push_str(&text),
                None => {
                    let left = total - done;
                    out.push_str(&format!(
                        "_{left} more resource{} not shown: the comment reached --max-bytes {max_bytes}._\n",
                        if left == 1 { "" } else { "s" }
                    ));
                    return out;
                }
            }
            done += 1;
        }
    }
    out
}

/// The entries a report shows: changed, then added, then removed.
fn shown_entries(result: &DiffResult) -> Vec<&Entry> {
    let with = |status: Status| result.entries.iter().filter(move |e| e.status == status);
    with(Status::Changed)
        .chain(with(Status::Added))
        .chain(with(Status::Removed))
        .collect()
}

/// One resource's section within `budget` bytes, its diff cut at a line if needed; None
/// when not even a cut section fits.
fn section(
    result: &DiffResult,
    e: &Entry,
    budget: usize,
    search: &super::Budget,
) -> Option<String> {
    let sign = match e.status {
        Status::Changed => "~",
        Status::Added => "+",
        _ => "-",
    };
    let fields = match e.status {
        Status::Changed => format!(
            " ({} field{})",
            e.paths.len(),
            if e.paths.len() == 1 { "" } else { "s" }
        ),
        _ => String::new(),
    };
    let title = escape(&format!("{sign} {}{fields}", pair_title(e)));
    let diff = result.unified(e, super::Style { color: false }, search);
    // A fence longer than any backtick run inside.
    let longest = diff.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    // With --explain: where each changed field's value came from, as a list.
    let why: String = e
        .why
        .iter()
        .map(|(path, why)| format!("- `{path}` ← {}\n", escape(why)))
        .collect();
    let why = if why.is_empty() {
        why
    } else {
        format!("{why}\n")
    };
    let head = format!("<details><summary>{title}</summary>\n\n{why}{fence}diff\n");
    let foot = format!("{fence}\n\n</details>\n\n");
    let whole = head.len() + diff.len() + foot.len();
    if whole <= budget {
        return Some(format!("{head}{diff}{foot}"));
    }
    let cut_note_room = 80;
    let room = budget.checked_sub(head.len() + foot.len() + cut_note_room)?;
    let mut kept = String::new();
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut n = 0;
    while n < lines.len() && kept.len() + lines[n].len() <= room {
        kept.push_str(lines[n]);
        n += 1;
    }
    if n == 0 {
        return None;
    }
    let cut = lines.len() - n;
    Some(format!(
        "{head}{kept}{fence}\n\n_{cut} more line{} cut: the comment reached --max-bytes._\n\n</details>\n\n",
        if cut == 1 { "" } else { "s" }
    ))
}

/// Text safe inside HTML `<summary>`.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
