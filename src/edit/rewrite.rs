//! A YAML stream file rewritten to new values with the fewest changes: each document is
//! edited in place by [`Document`] (only the entries whose values change are touched;
//! comments, key order, quoting and blank lines elsewhere stay), for `merge3 --in-place`
//! and `localize`, which write back into the user's own files.

use super::document::{Document, Step};
use crate::yaml::Node;

/// Splits a YAML stream before each `---` separator line, keeping every byte: the pieces
/// joined are the text.
pub fn split_documents(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        if at > start && (bare == "---" || bare.starts_with("--- ")) {
            pieces.push(&text[start..at]);
            start = at;
        }
        at += line.len();
    }
    pieces.push(&text[start..]);
    pieces
}

/// A piece's separator line (when it is a bare `---`) and the document after it.
pub fn split_head(piece: &str) -> (&str, &str) {
    match piece.split_inclusive('\n').next() {
        Some(first) if first.trim_end() == "---" => piece.split_at(first.len()),
        _ => ("", piece),
    }
}

/// `text` (the file `source`) with its documents turned into `new`, one for one, each
/// edited in place; `None` when that cannot be done faithfully (a different number of
/// documents, a document shape the editor does not handle), and the caller writes the
/// file anew.
pub fn rewrite_stream(text: &str, source: &str, new: &[&Node]) -> Option<String> {
    let pieces = split_documents(text);
    let mut out = String::with_capacity(text.len());
    let mut next = new.iter();
    for piece in pieces {
        let (head, body) = split_head(piece);
        let doc = Document::parse(body.to_string(), source).ok()?;
        if doc.value().is_null() {
            // Comments alone, or an empty document: kept as written.
            out.push_str(piece);
            continue;
        }
        let want = next.next()?;
        if doc.value() == *want {
            out.push_str(piece);
            continue;
        }
        let mut doc = doc;
        let old = doc.value().clone();
        edit(&mut doc, &mut Vec::new(), &old, want).ok()?;
        if doc.value() != *want {
            return None;
        }
        out.push_str(head);
        out.push_str(doc.text());
    }
    if next.next().is_some() {
        return None;
    }
    Some(out)
}

/// Turns the value at `path` from `old` into `new`: mappings entry by entry, lists of the
/// same length item by item, anything else replaced whole.
fn edit(doc: &mut Document, path: &mut Vec<Step>, old: &Node, new: &Node) -> crate::Result<()> {
    if old == new {
        return Ok(());
    }
    match (old, new) {
        (Node::Map(a), Node::Map(b)) if !path.is_empty() || !a.is_empty() => {
            for (k, _) in a.iter() {
                if b.get(k).is_none() {
                    path.push(Step::key(k));
                    doc.remove(path)?;
                    path.pop();
                }
            }
            for (k, v) in b.iter() {
                path.push(Step::key(k));
                match a.get(k) {
                    Some(w) => edit(doc, path, w, v)?,
                    None => doc.set(path, v)?,
                }
                path.pop();
            }
            Ok(())
        }
        (Node::Seq(a), Node::Seq(b)) if a.len() == b.len() => {
            for (i, (w, v)) in a.iter().zip(b).enumerate() {
                path.push(Step::Index(i));
                edit(doc, path, w, v)?;
                path.pop();
            }
            Ok(())
        }
        _ => doc.set(path, new),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Node {
        crate::yaml::parse::parse_document(t, "t").unwrap()
    }

    #[test]
    fn only_the_changed_lines_change() {
        let text = "# the app\napiVersion: v1\nkind: ConfigMap  # kind\nmetadata:\n  name: a\n\n# data below\ndata:\n  keep: 'x'   # mine\n  old: 1\n---\n# second\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n";
        let mut first = parse(text.split("---\n").next().unwrap());
        let data = first.get_mut("data").unwrap().as_map_mut().unwrap();
        data.shift_remove("old");
        data.insert("new", Node::text("fresh"));
        let second = parse("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n");
        let got = rewrite_stream(text, "t", &[&first, &second]).unwrap();
        assert_eq!(
            got,
            "# the app\napiVersion: v1\nkind: ConfigMap  # kind\nmetadata:\n  name: a\n\n# data below\ndata:\n  keep: 'x'   # mine\n  new: fresh\n---\n# second\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"
        );
    }

    #[test]
    fn documents_split_keeping_every_byte() {
        let text = "a: 1\n---\nb: 2\n--- # c\nc: 3\n";
        let pieces = split_documents(text);
        assert_eq!(pieces, ["a: 1\n", "---\nb: 2\n", "--- # c\nc: 3\n"]);
        assert_eq!(pieces.concat(), text);
        assert_eq!(split_documents("---\na: 1\n"), ["---\na: 1\n"]);
    }

    #[test]
    fn another_number_of_documents_is_written_anew() {
        let a = parse("a: 1\n");
        assert!(rewrite_stream("a: 1\n---\nb: 2\n", "t", &[&a]).is_none());
        assert!(rewrite_stream("a: 1\n", "t", &[&a, &a]).is_none());
    }
}
