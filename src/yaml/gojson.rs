//! JSON text exactly as Go's `encoding/json` writes it: for the name hash
//! (kustomize hashes the output of `json.Marshal`), `kubectl apply`'s last
//! applied configuration, and JSON text a replacement rewrites (`json.Marshal`
//! or `json.MarshalIndent`). Every byte matters:
//! object keys sorted, no whitespace, HTML-sensitive characters (`<`, `>`,
//! `&`) and U+2028/U+2029 escaped as `\u003c` etc., `\b` and `\f` in short
//! form (Go 1.22 and later), other control characters as `\u00XX`, and
//! floats in Go's shortest form (`1e+21`, `1e-7`).

use crate::error::Error;
use crate::yaml::map::Key;
use crate::yaml::{Map, Node};
use std::fmt::Write;

/// How numbers reach the encoder.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Numbers {
    /// As decoded from YAML: integers stay integers.
    AsIs,
    /// After a JSON round trip through `interface{}`, where every number
    /// becomes a float64 (kustomize does this to `data` and `binaryData`).
    Float64,
}

/// Encodes a node the way `json.Marshal` encodes the equivalent Go value.
pub fn to_string(node: &Node, numbers: Numbers) -> Result<String, Error> {
    let mut out = String::new();
    write_node(node, numbers, &mut out)?;
    Ok(out)
}

/// Encodes a node the way `json.MarshalIndent(v, "", indent)` does: each
/// element of a non-empty object or array on its own line, indented one more
/// `indent` per level, `": "` after keys; empty ones stay `{}` and `[]`.
pub fn to_string_indent(node: &Node, numbers: Numbers, indent: &str) -> Result<String, Error> {
    let mut out = String::new();
    write_indented(node, numbers, indent, 0, &mut out)?;
    Ok(out)
}

fn write_indented(
    node: &Node,
    numbers: Numbers,
    indent: &str,
    depth: usize,
    out: &mut String,
) -> Result<(), Error> {
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    };
    match node {
        Node::Seq(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_indented(item, numbers, indent, depth + 1, out)?;
            }
            newline(out, depth);
            out.push(']');
        }
        Node::Map(map) if !map.is_empty() => {
            out.push('{');
            for (i, (k, v)) in sorted_entries(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_str(k, out);
                out.push_str(": ");
                write_indented(v, numbers, indent, depth + 1, out)?;
            }
            newline(out, depth);
            out.push('}');
        }
        other => write_node(other, numbers, out)?,
    }
    Ok(())
}

/// A map's entries in key order: `encoding/json` sorts a Go map's keys, in
/// both the compact and the indented form.
fn sorted_entries(map: &Map) -> Vec<(&Key, &Node)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// Appends a node as Go JSON.
pub fn write_node(node: &Node, numbers: Numbers, out: &mut String) -> Result<(), Error> {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Int(i) if numbers == Numbers::AsIs => {
            let _ = write!(out, "{i}");
        }
        // A float64 conversion is what Go's decoder does to every JSON number.
        Node::Int(i) => write_float(*i as f64, out)?,
        Node::Uint(u) if numbers == Numbers::AsIs => {
            let _ = write!(out, "{u}");
        }
        Node::Uint(u) => write_float(*u as f64, out)?,
        Node::Float(f) => write_float(*f, out)?,
        Node::Str(s) => write_str(s, out),
        Node::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node(item, numbers, out)?;
            }
            out.push(']');
        }
        Node::Map(map) => {
            out.push('{');
            for (i, (k, v)) in sorted_entries(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(k, out);
                out.push(':');
                write_node(v, numbers, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// Appends one character as Go's encoder writes it inside a string.
fn escape_char(c: char, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '<' | '>' | '&' | '\u{0}'..='\u{1f}' => {
            let b = c as u8;
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xf)] as char);
        }
        '\u{2028}' => out.push_str("\\u2028"),
        '\u{2029}' => out.push_str("\\u2029"),
        _ => out.push(c),
    }
}

/// Appends a quoted, escaped string.
pub fn write_str(s: &str, out: &mut String) {
    /// Whether a byte needs escaping (or starts a character that may): quotes,
    /// backslashes, control characters, `<`, `>`, `&`, and the first byte of
    /// U+2028/U+2029 (0xE2).
    fn special(b: u8) -> bool {
        matches!(b, b'"' | b'\\' | b'<' | b'>' | b'&' | 0..=0x1f | 0xe2)
    }
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    while start < s.len() {
        // Copy the run of bytes that need nothing in one go.
        let run = bytes[start..]
            .iter()
            .position(|&b| special(b))
            .map_or(s.len(), |n| start + n);
        out.push_str(&s[start..run]);
        let Some(c) = s[run..].chars().next() else {
            break;
        };
        escape_char(c, out);
        start = run + c.len_utf8();
    }
    out.push('"');
}

/// Appends a float64 as Go's encoder does: plain decimal notation for
/// magnitudes in [1e-6, 1e21), exponent notation outside, shortest digits
/// that read back to the same value either way.
fn write_float(f: f64, out: &mut String) -> Result<(), Error> {
    if !f.is_finite() {
        return Err(Error::invalid_resource(format!(
            "cannot encode {f} as JSON (json: unsupported value)"
        )));
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // Rust writes `1e21`/`1e-7`; Go writes `1e+21`/`1e-7` (it trims the
        // zero of a one-digit negative exponent but signs positive ones).
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((mantissa, exp)) if !exp.starts_with('-') => {
                let _ = write!(out, "{mantissa}e+{exp}");
            }
            _ => out.push_str(&s),
        }
    } else {
        let _ = write!(out, "{f}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `write_str` one character at a time: what the run-copying version must match.
    fn by_chars(s: &str) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            escape_char(c, &mut out);
        }
        out.push('"');
        out
    }

    #[test]
    fn write_str_matches_per_character_escaping() {
        let samples = [
            "",
            "plain",
            "a\"b",
            "back\\slash",
            "line\nbreak\r\t",
            "\u{0}\u{1}\u{1f}\u{7f}",
            "<html>&amp;",
            "\u{2028}x\u{2029}",
            "\u{2027}\u{202a}\u{20ac}€",
            "日本語 ✓ \u{8}\u{c}",
            "key=value\nother=\"quoted\"\n",
            "trailing\\",
            "\u{e2}\u{2028}",
        ];
        for s in samples {
            let mut got = String::new();
            write_str(s, &mut got);
            assert_eq!(got, by_chars(s), "{s:?}");
        }
    }

    fn enc(n: &Node, numbers: Numbers) -> String {
        to_string(n, numbers).expect("encodable")
    }

    #[test]
    fn strings_escape_like_go() {
        let n = Node::Str(
            "h\u{e9}llo <a&b> \u{2028} \u{2029} \u{1} \u{8} \u{c} \u{7f} \"q\" \\ \t\r\n".into(),
        );
        assert_eq!(
            enc(&n, Numbers::AsIs),
            "\"h\u{e9}llo \\u003ca\\u0026b\\u003e \\u2028 \\u2029 \\u0001 \\b \\f \u{7f} \\\"q\\\" \\\\ \\t\\r\\n\""
        );
        assert_eq!(
            enc(&Node::Str("\u{1f}".into()), Numbers::AsIs),
            "\"\\u001f\""
        );
    }

    #[test]
    fn maps_sort_keys_bytewise() {
        let n =
            Node::from(&serde_json::json!({"b": 1, "B": 2, "a": {"z": null, "y": [true, "x"]}}));
        assert_eq!(
            enc(&n, Numbers::AsIs),
            r#"{"B":2,"a":{"y":[true,"x"],"z":null},"b":1}"#
        );
    }

    #[test]
    fn floats_format_like_go() {
        let cases = [
            (1.5, "1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (1.5e-10, "1.5e-10"),
            (0.000001, "0.000001"),
            (1.2345678901234567e19, "12345678901234567000"),
            (1e300, "1e+300"),
            (-2.5e22, "-2.5e+22"),
            (0.0, "0"),
            (1.0, "1"),
        ];
        for (f, want) in cases {
            assert_eq!(enc(&Node::Float(f), Numbers::AsIs), want, "{f}");
        }
        assert!(to_string(&Node::Float(f64::NAN), Numbers::AsIs).is_err());
    }

    #[test]
    fn indents_like_marshal_indent() {
        let n = Node::from(&serde_json::json!({"b": [1, {}], "a": {"x": []}, "c": {"d": "<"}}));
        assert_eq!(
            to_string_indent(&n, Numbers::AsIs, "  ").ok().as_deref(),
            Some(
                "{\n  \"a\": {\n    \"x\": []\n  },\n  \"b\": [\n    1,\n    {}\n  ],\n  \"c\": {\n    \"d\": \"\\u003c\"\n  }\n}"
            )
        );
        assert_eq!(
            to_string_indent(&Node::Int(1), Numbers::AsIs, "  ")
                .ok()
                .as_deref(),
            Some("1")
        );
    }

    #[test]
    fn integers_through_float64() {
        assert_eq!(enc(&Node::Int(5), Numbers::Float64), "5");
        assert_eq!(
            enc(&Node::Int(9007199254740993), Numbers::AsIs),
            "9007199254740993"
        );
        assert_eq!(
            enc(&Node::Int(9007199254740993), Numbers::Float64),
            "9007199254740992"
        );
    }
}
