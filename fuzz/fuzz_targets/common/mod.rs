//! Helpers shared by the fuzz targets (included with `#[path]`, not a crate).

#![allow(dead_code)]

use kbuild::yaml::Node;

/// Splits fuzz input into at most `n` parts at lines holding only `%%`, so one input can
/// carry a target document and a patch (seeds in `fuzz/corpus/<target>/` show the layout).
pub fn parts(text: &str, n: usize) -> Vec<&str> {
    text.splitn(n, "\n%%\n").collect()
}

/// Value equality as kustomize's output preserves it: numbers compare by value, because
/// kustomize prints every resource through JSON, where `1e3` (a float) becomes `1000` and
/// reads back as an integer; NaN equals NaN (a `.nan` scalar must round-trip too); and
/// strings and keys compare as printed, where kustomize folds NEL (U+0085, see
/// `kbuild::yaml::emit::json_round_trip`).
pub fn same(a: &Node, b: &Node) -> bool {
    use kbuild::yaml::emit::json_round_trip as printed;
    match (a, b) {
        (Node::Float(x), Node::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Node::Int(i), Node::Float(f)) | (Node::Float(f), Node::Int(i)) => *i as f64 == *f,
        // A float above i64's range prints without an exponent when it is whole
        // (18000000000524770000, as kustomize prints it) and reads back as an unsigned
        // integer.
        (Node::Uint(u), Node::Float(f)) | (Node::Float(f), Node::Uint(u)) => *u as f64 == *f,
        (Node::Str(x), Node::Str(y)) => printed(x) == printed(y),
        (Node::Seq(x), Node::Seq(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Node::Map(x), Node::Map(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| match y.get(k) {
                    Some(w) => same(v, w),
                    None => y
                        .iter()
                        .any(|(k2, w)| printed(k) == printed(k2) && same(v, w)),
                })
        }
        _ => a == b,
    }
}

/// Whether two keys of one mapping print the same (they differ only in how NEL is folded):
/// such a mapping cannot print as itself, so it is not checked.
pub fn keys_collide_when_printed(n: &Node) -> bool {
    use kbuild::yaml::emit::json_round_trip as printed;
    match n {
        Node::Seq(items) => items.iter().any(keys_collide_when_printed),
        Node::Map(m) => {
            let mut seen = std::collections::HashSet::new();
            m.iter().any(|(k, _)| !seen.insert(printed(k).into_owned()))
                || m.values().any(keys_collide_when_printed)
        }
        _ => false,
    }
}

/// Whether a key of `n` holds NEL (U+0085): a build refuses such a resource, as kustomize
/// does (kbuild's build/printable.rs).
pub fn has_key_with_nel(n: &Node) -> bool {
    match n {
        Node::Seq(items) => items.iter().any(has_key_with_nel),
        Node::Map(m) => m.iter().any(|(k, v)| k.contains('\u{85}') || has_key_with_nel(v)),
        _ => false,
    }
}

/// Whether a string or key of `n` holds U+2028 or U+2029. go-yaml v2, and so kustomize,
/// prints them as line breaks followed by the indentation (`'ls\u{2028}  x'`, byte for byte
/// what kbuild prints, checked with kubectl kustomize v5.5.0 and v5.8.1); a YAML 1.2 reader,
/// kbuild's included, takes them for ordinary characters, so the indentation reads back as
/// content. Such a value cannot round-trip, in kustomize's output either.
pub fn has_line_separator(n: &Node) -> bool {
    let sep = |s: &str| s.contains(['\u{2028}', '\u{2029}']);
    match n {
        Node::Str(s) => sep(s),
        Node::Seq(items) => items.iter().any(has_line_separator),
        Node::Map(m) => m.iter().any(|(k, v)| sep(k) || has_line_separator(v)),
        _ => false,
    }
}

/// Every successful result must print as YAML that parses back to the same value.
pub fn check_roundtrip(doc: &Node, what: &str) {
    if keys_collide_when_printed(doc) || has_line_separator(doc) {
        return;
    }
    let mut text = String::new();
    kbuild::yaml::emit::emit_document(doc, &mut text);
    let back = match kbuild::yaml::parse::parse_stream(&text, "emitted") {
        Ok(back) => back,
        Err(e) => panic!("{what}: emitted text does not parse: {e}\n--- emitted:\n{text}"),
    };
    let expected: Vec<&Node> = if is_dropped(doc) { vec![] } else { vec![doc] };
    assert!(
        back.len() == expected.len() && back.iter().zip(&expected).all(|(b, e)| same(b, e)),
        "{what}: round trip changed the value\n--- value: {doc:?}\n--- emitted:\n{text}--- parsed back: {back:?}"
    );
}

/// Documents the resource reader drops (empty, `null`, `{}`, `[]`).
fn is_dropped(doc: &Node) -> bool {
    match doc {
        Node::Null => true,
        Node::Map(m) => m.is_empty(),
        Node::Seq(s) => s.is_empty(),
        _ => false,
    }
}
