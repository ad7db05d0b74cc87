//! The one thing kustomize's output stage refuses that the rest of a build lets through: a
//! mapping key holding NEL (U+0085).
//!
//! kustomize prints every resource by encoding it as JSON and reading that back with
//! go-yaml v2. Go's JSON encoder leaves NEL unescaped and v2's scanner takes it for a line
//! break; in a value that only folds the text (see `yaml::emit::json_round_trip`), but a
//! key must fit on one line, so v2 fails with "did not find expected ',' or '}'" and the
//! whole build fails (kubectl kustomize v5.5.0 and v5.8.1, checked). kbuild refuses the
//! same builds, naming the resource and the key, instead of printing keys that no longer
//! say what the input said (two keys can even fold into one).

use crate::ResMap;
use crate::error::{Error, Result};
use crate::yaml::Node;

/// Fails on the first resource holding a key with NEL in it.
pub(super) fn check(resmap: &ResMap) -> Result<()> {
    use rayon::prelude::*;
    /// Resources worth a look on the thread pool (the walk visits every key of the
    /// output); smaller builds have not started the pool and stay on this thread.
    const PARALLEL: usize = 64;
    // The common case, no NEL anywhere, without building paths (an allocation per key).
    let any = if resmap.len() >= PARALLEL {
        resmap
            .resources
            .par_iter()
            .any(|r| has_key_with_nel(r.node()))
    } else {
        resmap.iter().any(|r| has_key_with_nel(r.node()))
    };
    if !any {
        return Ok(());
    }
    for r in resmap.iter() {
        if !has_key_with_nel(r.node()) {
            continue;
        }
        if let Some(path) = key_with_nel(r.node(), &mut Vec::new()) {
            return Err(Error::InvalidResource(format!(
                "{}: the key {path} holds a NEL character (U+0085), which kustomize cannot \
                 print (its JSON round trip fails: \"did not find expected ',' or '}}'\"); \
                 remove it from the key",
                r.id()
            )));
        }
    }
    Ok(())
}

/// Whether a key under `node` holds NEL.
fn has_key_with_nel(node: &Node) -> bool {
    // Scalars, most of the values, are not gone into: the walk visits every key of the
    // output, and a call per scalar was a third of it.
    let nested = |v: &Node| matches!(v, Node::Map(_) | Node::Seq(_)) && has_key_with_nel(v);
    match node {
        // Nearly every key is ASCII: that check is a word at a time.
        Node::Map(m) => m
            .iter()
            .any(|(k, v)| (!k.is_ascii() && k.contains('\u{85}')) || nested(v)),
        Node::Seq(items) => items.iter().any(nested),
        _ => false,
    }
}

/// The path to the first key holding NEL under `node`, as `a.b[0]."key"`. `path` holds
/// the segments above `node`: keys, and list indexes written `[i]`.
fn key_with_nel(node: &Node, path: &mut Vec<String>) -> Option<String> {
    match node {
        Node::Map(m) => m.iter().find_map(|(k, v)| {
            if k.contains('\u{85}') {
                path.push(format!("{:?}", k.as_str()));
                let at = joined(path);
                path.pop();
                return Some(at);
            }
            path.push(k.to_string());
            let found = key_with_nel(v, path);
            path.pop();
            found
        }),
        Node::Seq(items) => items.iter().enumerate().find_map(|(i, v)| {
            path.push(format!("[{i}]"));
            let found = key_with_nel(v, path);
            path.pop();
            found
        }),
        _ => None,
    }
}

/// `a`, `b`, `[0]`, `c` as `a.b[0].c`.
fn joined(path: &[String]) -> String {
    let mut out = String::new();
    for segment in path {
        if !out.is_empty() && !segment.starts_with('[') {
            out.push('.');
        }
        out.push_str(segment);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(yaml: &str) -> Option<String> {
        let doc = crate::yaml::parse::parse_stream(yaml, "t.yaml").expect("parse");
        key_with_nel(&doc[0], &mut Vec::new())
    }

    #[test]
    fn finds_keys_with_nel_and_says_where() {
        assert_eq!(first("a: {b: 1}\nc: [x, {d: 2}]\n"), None);
        assert_eq!(
            first("a:\n  \"x\\u0085y\": 1\n").as_deref(),
            Some("a.\"x\\u{85}y\"")
        );
        assert_eq!(
            first("spec:\n  containers:\n  - name: a\n  - \"n\\u0085\": 1\n").as_deref(),
            Some("spec.containers[1].\"n\\u{85}\"")
        );
        // A value may hold NEL: kustomize folds it (see yaml::emit::json_round_trip).
        assert_eq!(first("a: \"x\\u0085y\"\n"), None);
    }
}
