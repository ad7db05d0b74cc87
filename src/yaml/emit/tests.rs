//! Unit tests of the emitter: kustomize's output for a table of documents, the fast paths
//! against the general ones, deep nesting, the JSON round trip, streams and numbers.

use super::emitter::{Context, Emitter};
use super::style::{Scalar, classes, quick_style};
use super::*;
use crate::yaml::Map;
use std::borrow::Cow;

/// A node from JSON text: strings, numbers (`i64` when they fit), and so on.
fn node(json: &str) -> Node {
    fn convert(v: &serde_json::Value) -> Node {
        match v {
            serde_json::Value::Null => Node::Null,
            serde_json::Value::Bool(b) => Node::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Node::Int(i),
                None => Node::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Node::text(s.clone()),
            serde_json::Value::Array(items) => Node::Seq(items.iter().map(convert).collect()),
            serde_json::Value::Object(fields) => Node::Map(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), convert(v)))
                    .collect(),
            ),
        }
    }
    let value: serde_json::Value = serde_json::from_str(json).expect("test JSON");
    convert(&value)
}

fn emit(node: &Node) -> String {
    let mut out = String::new();
    emit_document(node, &mut out);
    out
}

#[test]
fn matches_kustomize_output() {
    let mut failures = Vec::new();
    for (json, want) in CASES {
        let got = emit(&node(json));
        if got != *want {
            failures.push(format!("{json}\n--- want\n{want}--- got\n{got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every string up to `max_len` characters over `alphabet`.
fn strings(alphabet: &[char], max_len: usize) -> Vec<String> {
    let mut all = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..max_len {
        let next: Vec<String> = last
            .iter()
            .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
            .collect();
        all.extend(next.iter().cloned());
        last = next;
    }
    all
}

const ALPHABET: [char; 17] = [
    'a', 'y', 'e', '0', '1', ' ', ':', '#', '-', '.', '?', '\'', '"', '!', '_', '+', '\\',
];

#[test]
fn quick_style_agrees_with_the_full_analysis() {
    for s in strings(&ALPHABET, 4) {
        let quick = quick_style(&s, classes(s.as_bytes()));
        assert_eq!(quick.is_some(), !s.is_empty(), "{s:?}");
        for ctx in [Context::SIMPLE_KEY, Context::MAPPING_VALUE, Context::ROOT] {
            let full = Scalar::analyzed(&s, ctx);
            if let Some(style) = quick {
                assert_eq!(style, full.style, "{s:?}");
                assert!(!full.multiline && full.ascii && full.text == s, "{s:?}");
            }
        }
    }
    for s in ["a\tb", "a\nb", "caf\u{e9}", "x\u{85}", "\u{7f}", "\r"] {
        assert_eq!(quick_style(s, classes(s.as_bytes())), None, "{s:?}");
    }
}

#[test]
fn verbatim_quoted_writes_what_the_general_writers_write() {
    let mut texts = strings(&ALPHABET, 3);
    texts.push("word ".repeat(20));
    texts.push(" x".repeat(45));
    for s in texts.iter().filter(|s| s.is_ascii()) {
        for column in [0, 1, 40, 76, 77, 78, 79, 80, 81, 90] {
            for whitespace in [false, true] {
                for allow_breaks in [false, true] {
                    for quote in [b'\'', b'"'] {
                        let run = |verbatim: bool| {
                            let mut out = String::new();
                            let mut e = Emitter {
                                out: &mut out,
                                column,
                                indent: 2,
                                whitespace,
                                indention: false,
                            };
                            let accepted = e.verbatim_quoted(s, quote, allow_breaks);
                            match (verbatim, quote) {
                                (true, b'\'') => e.write_verbatim_quoted(s, "'"),
                                (true, _) => e.write_verbatim_quoted(s, "\""),
                                (false, b'\'') => e.write_single_quoted(s, allow_breaks),
                                (false, _) => e.write_double_quoted(s, allow_breaks),
                            }
                            let state = (e.column, e.whitespace, e.indention);
                            (accepted, out, state)
                        };
                        let (accepted, fast, fast_state) = run(true);
                        if accepted {
                            let (_, slow, slow_state) = run(false);
                            assert_eq!((fast, fast_state), (slow, slow_state), "{s:?}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn deep_nesting_indents_past_the_spaces_table() {
    let depth = 50;
    let mut doc = Node::Int(1);
    let mut want = String::new();
    for level in 0..depth {
        let mut m = Map::new();
        m.insert("a", doc);
        doc = Node::Map(m);
        want.push_str(&"  ".repeat(level));
        want.push_str(if level + 1 == depth { "a: 1\n" } else { "a:\n" });
    }
    let mut seq = Node::Seq(vec![doc]);
    for _ in 0..3 {
        seq = Node::Seq(vec![seq]);
    }
    let mut out = String::new();
    emit_document(&seq, &mut out);
    let want = want
        .replacen("a:", "- - - - a:", 1)
        .replace("\n  ", "\n          ");
    assert_eq!(out, want);
}

#[test]
fn json_round_trip_folds_nel_only() {
    assert!(matches!(json_round_trip("plain ascii"), Cow::Borrowed(_)));
    // Non-ASCII text with C2 lead bytes but no NEL stays as it is.
    assert!(matches!(
        json_round_trip("\u{a0}caf\u{e9}"),
        Cow::Borrowed(_)
    ));
    assert_eq!(json_round_trip("a \u{85} b"), "a b");
    assert_eq!(json_round_trip("a\u{85}\u{85}\u{85}b"), "a\n\nb");
    assert_eq!(json_round_trip("\u{e9}\u{85}x"), "\u{e9} x");
}

#[test]
fn stream_separates_documents() {
    assert_eq!(emit_stream(&[]), "");
    let a = node(r#"{"kind": "A", "x": "a\n\n"}"#);
    let b = node(r#"{"kind": "B", "y": {}}"#);
    assert_eq!(
        emit_stream(std::slice::from_ref(&a)),
        "kind: A\nx: |+\n  a\n\n"
    );
    assert_eq!(
        emit_stream(&[a, b]),
        "kind: A\nx: |+\n  a\n\n---\nkind: B\n\"y\": {}\n"
    );
}

#[test]
fn document_appends_to_existing_output() {
    let mut out = String::from("# head\n");
    emit_document(&node(r#"{"a": [1]}"#), &mut out);
    assert_eq!(out, "# head\na:\n- 1\n");
}

#[test]
fn root_scalars_and_collections() {
    assert_eq!(emit(&node("{}")), "{}\n");
    assert_eq!(emit(&node("[]")), "[]\n");
    assert_eq!(emit(&node(r#"["a", ["b"]]"#)), "- a\n- - b\n");
    assert_eq!(emit(&Node::Str("yes".into())), "\"yes\"\n");
    assert_eq!(emit(&Node::Null), "null\n");
}

#[test]
fn floats_in_documents() {
    let doc = Node::Map(
        [
            ("a", 718476926396777.0 + 0.25),
            ("b", 1e-7),
            ("c", -0.0),
            ("d", f64::NAN),
        ]
        .into_iter()
        .map(|(k, f)| (k.to_owned(), Node::Float(f)))
        .collect(),
    );
    assert_eq!(
        emit(&doc),
        "a: 7.184769263967772e+14\nb: 1e-07\nc: 0\nd: .nan\n"
    );
}

// Generated from `kubectl kustomize` (kustomize v5.5.0) output: each case is one field
// of a resource, as JSON, and the lines kustomize printed for it.
const CASES: &[(&str, &str)] = &[
    // Words and numbers a YAML 1.1 reader would retype are double-quoted.
    (r##"{"g00_00": "yes"}"##, "g00_00: \"yes\"\n"),
    (r##"{"g00_01": "no"}"##, "g00_01: \"no\"\n"),
    (r##"{"g00_02": "on"}"##, "g00_02: \"on\"\n"),
    (r##"{"g00_03": "off"}"##, "g00_03: \"off\"\n"),
    (r##"{"g00_04": "y"}"##, "g00_04: \"y\"\n"),
    (r##"{"g00_05": "n"}"##, "g00_05: \"n\"\n"),
    (r##"{"g00_06": "Y"}"##, "g00_06: \"Y\"\n"),
    (r##"{"g00_07": "NO"}"##, "g00_07: \"NO\"\n"),
    (r##"{"g00_08": "True"}"##, "g00_08: \"True\"\n"),
    (r##"{"g00_09": "FALSE"}"##, "g00_09: \"FALSE\"\n"),
    (r##"{"g00_10": "null"}"##, "g00_10: \"null\"\n"),
    (r##"{"g00_11": "Null"}"##, "g00_11: \"Null\"\n"),
    (r##"{"g00_12": "~"}"##, "g00_12: \"~\"\n"),
    (r##"{"g00_13": ""}"##, "g00_13: \"\"\n"),
    (r##"{"g00_14": "0"}"##, "g00_14: \"0\"\n"),
    (r##"{"g00_15": "012"}"##, "g00_15: \"012\"\n"),
    (r##"{"g00_16": "0o17"}"##, "g00_16: \"0o17\"\n"),
    (r##"{"g00_17": "0x1F"}"##, "g00_17: \"0x1F\"\n"),
    (r##"{"g00_18": "0b101"}"##, "g00_18: \"0b101\"\n"),
    (r##"{"g00_19": "1_000"}"##, "g00_19: \"1_000\"\n"),
    (r##"{"g00_20": "+1"}"##, "g00_20: \"+1\"\n"),
    (r##"{"g00_21": "-1"}"##, "g00_21: \"-1\"\n"),
    (r##"{"g00_22": "1.0"}"##, "g00_22: \"1.0\"\n"),
    (r##"{"g00_23": ".5"}"##, "g00_23: \".5\"\n"),
    (r##"{"g00_24": "1."}"##, "g00_24: \"1.\"\n"),
    (r##"{"g00_25": "1e3"}"##, "g00_25: \"1e3\"\n"),
    (r##"{"g00_26": "1E3"}"##, "g00_26: \"1E3\"\n"),
    (r##"{"g00_27": "-0.0"}"##, "g00_27: \"-0.0\"\n"),
    (r##"{"g00_28": ".inf"}"##, "g00_28: \".inf\"\n"),
    (r##"{"g00_29": "-.Inf"}"##, "g00_29: \"-.Inf\"\n"),
    (r##"{"g00_30": ".NaN"}"##, "g00_30: \".NaN\"\n"),
    (r##"{"g00_31": "08"}"##, "g00_31: \"08\"\n"),
    (r##"{"g00_32": "0755"}"##, "g00_32: \"0755\"\n"),
    (r##"{"g00_33": "1e-06"}"##, "g00_33: \"1e-06\"\n"),
    (
        r##"{"g00_34": "12345678901234567890"}"##,
        "g00_34: \"12345678901234567890\"\n",
    ),
    (
        r##"{"g00_35": "18446744073709551616"}"##,
        "g00_35: \"18446744073709551616\"\n",
    ),
    (r##"{"g00_36": "1:20"}"##, "g00_36: \"1:20\"\n"),
    (r##"{"g00_37": "190:20:30"}"##, "g00_37: \"190:20:30\"\n"),
    (r##"{"g00_38": "-1:30"}"##, "g00_38: \"-1:30\"\n"),
    (r##"{"g00_39": "2024-01-01"}"##, "g00_39: \"2024-01-01\"\n"),
    (r##"{"g00_40": "2024-1-1"}"##, "g00_40: \"2024-1-1\"\n"),
    (
        r##"{"g00_41": "2024-01-01 10:00:00"}"##,
        "g00_41: \"2024-01-01 10:00:00\"\n",
    ),
    (
        r##"{"g00_42": "2024-01-01T10:00:00Z"}"##,
        "g00_42: \"2024-01-01T10:00:00Z\"\n",
    ),
    (
        r##"{"g00_43": "2024-01-01t10:00:00.5+05:30"}"##,
        "g00_43: \"2024-01-01t10:00:00.5+05:30\"\n",
    ),
    // Look-alikes that stay plain.
    (r##"{"g01_00": "1e"}"##, "g01_00: 1e\n"),
    (r##"{"g01_01": "NaN"}"##, "g01_01: NaN\n"),
    (r##"{"g01_02": "inf"}"##, "g01_02: inf\n"),
    (r##"{"g01_03": "yES"}"##, "g01_03: yES\n"),
    (r##"{"g01_04": "<<"}"##, "g01_04: <<\n"),
    (r##"{"g01_05": "="}"##, "g01_05: =\n"),
    (r##"{"g01_06": "v1.0"}"##, "g01_06: v1.0\n"),
    (r##"{"g01_07": "1.5.3"}"##, "g01_07: 1.5.3\n"),
    (r##"{"g01_08": "0x"}"##, "g01_08: 0x\n"),
    (r##"{"g01_09": "1e400"}"##, "g01_09: 1e400\n"),
    (
        r##"{"g01_10": "0xFFFFFFFFFFFFFFFFF"}"##,
        "g01_10: 0xFFFFFFFFFFFFFFFFF\n",
    ),
    (r##"{"g01_11": "1:60"}"##, "g01_11: 1:60\n"),
    (r##"{"g01_12": "::1"}"##, "g01_12: ::1\n"),
    (r##"{"g01_13": "10.0.0.1:80"}"##, "g01_13: 10.0.0.1:80\n"),
    (r##"{"g01_14": "2024-02-30"}"##, "g01_14: 2024-02-30\n"),
    (r##"{"g01_15": "2023-02-29"}"##, "g01_15: 2023-02-29\n"),
    (r##"{"g01_16": "2024-13-01"}"##, "g01_16: 2024-13-01\n"),
    (
        r##"{"g01_17": "2024-01-01T10:00:00"}"##,
        "g01_17: 2024-01-01T10:00:00\n",
    ),
    (
        r##"{"g01_18": "2024-01-01T24:00:00Z"}"##,
        "g01_18: 2024-01-01T24:00:00Z\n",
    ),
    (
        r##"{"g01_19": "2024-01-01 10:00:00Z"}"##,
        "g01_19: 2024-01-01 10:00:00Z\n",
    ),
    (r##"{"g01_20": "50%"}"##, "g01_20: 50%\n"),
    (r##"{"g01_21": "100m"}"##, "g01_21: 100m\n"),
    (r##"{"g01_22": "x#y"}"##, "g01_22: x#y\n"),
    (r##"{"g01_23": "x:y"}"##, "g01_23: x:y\n"),
    (r##"{"g01_24": "-x"}"##, "g01_24: -x\n"),
    (r##"{"g01_25": "?x"}"##, "g01_25: ?x\n"),
    (r##"{"g01_26": ":x"}"##, "g01_26: :x\n"),
    (r##"{"g01_27": "a'b"}"##, "g01_27: a'b\n"),
    (r##"{"g01_28": "a\"b"}"##, "g01_28: a\"b\n"),
    (r##"{"g01_29": "a\\b"}"##, "g01_29: a\\b\n"),
    (r##"{"g01_30": "$(VAR)"}"##, "g01_30: $(VAR)\n"),
    (
        r##"{"g01_31": "http://example.com/a?b=c#d"}"##,
        "g01_31: http://example.com/a?b=c#d\n",
    ),
    // Single-quoted when plain is impossible.
    (r##"{"g02_00": "-"}"##, "g02_00: '-'\n"),
    (r##"{"g02_01": "--"}"##, "g02_01: --\n"),
    (r##"{"g02_02": "---"}"##, "g02_02: '---'\n"),
    (r##"{"g02_03": "..."}"##, "g02_03: '...'\n"),
    (r##"{"g02_04": "- x"}"##, "g02_04: '- x'\n"),
    (r##"{"g02_05": "? x"}"##, "g02_05: '? x'\n"),
    (r##"{"g02_06": ": x"}"##, "g02_06: ': x'\n"),
    (r##"{"g02_07": "x:"}"##, "g02_07: 'x:'\n"),
    (r##"{"g02_08": "x: y"}"##, "g02_08: 'x: y'\n"),
    (r##"{"g02_09": "x #y"}"##, "g02_09: 'x #y'\n"),
    (r##"{"g02_10": "#x"}"##, "g02_10: '#x'\n"),
    (r##"{"g02_11": "!x"}"##, "g02_11: '!x'\n"),
    (r##"{"g02_12": "&x"}"##, "g02_12: '&x'\n"),
    (r##"{"g02_13": "*x"}"##, "g02_13: '*x'\n"),
    (r##"{"g02_14": "%x"}"##, "g02_14: '%x'\n"),
    (r##"{"g02_15": "@x"}"##, "g02_15: '@x'\n"),
    (r##"{"g02_16": "`x"}"##, "g02_16: '`x'\n"),
    (r##"{"g02_17": "|x"}"##, "g02_17: '|x'\n"),
    (r##"{"g02_18": ">x"}"##, "g02_18: '>x'\n"),
    (r##"{"g02_19": "[x]"}"##, "g02_19: '[x]'\n"),
    (r##"{"g02_20": "{x}"}"##, "g02_20: '{x}'\n"),
    (r##"{"g02_21": ",x"}"##, "g02_21: ',x'\n"),
    (r##"{"g02_22": "'x"}"##, "g02_22: '''x'\n"),
    (r##"{"g02_23": "\"x"}"##, "g02_23: '\"x'\n"),
    (r##"{"g02_24": " lead"}"##, "g02_24: ' lead'\n"),
    (r##"{"g02_25": "trail "}"##, "g02_25: 'trail '\n"),
    (r##"{"g02_26": " both "}"##, "g02_26: ' both '\n"),
    (r##"{"g02_27": "  "}"##, "g02_27: '  '\n"),
    (r##"{"g02_28": "{{ tmpl }}"}"##, "g02_28: '{{ tmpl }}'\n"),
    (r##"{"g02_29": "ls\u2028x"}"##, "g02_29: 'ls\u{2028}  x'\n"),
    (r##"{"g02_30": "a\u2029b"}"##, "g02_30: 'a\u{2029}  b'\n"),
    // Double-quoted with escapes.
    (r##"{"g03_00": "tab\there"}"##, "g03_00: \"tab\\there\"\n"),
    (r##"{"g03_01": "\t"}"##, "g03_01: \"\\t\"\n"),
    (r##"{"g03_02": "bell\u0007"}"##, "g03_02: \"bell\\a\"\n"),
    (r##"{"g03_03": "nul\u0000x"}"##, "g03_03: \"nul\\0x\"\n"),
    (r##"{"g03_04": "esc\u001b[0m"}"##, "g03_04: \"esc\\e[0m\"\n"),
    (r##"{"g03_05": "\u000b\f"}"##, "g03_05: \"\\v\\f\"\n"),
    (r##"{"g03_06": "\r"}"##, "g03_06: \"\\r\"\n"),
    (r##"{"g03_07": "a\r\nb"}"##, "g03_07: \"a\\r\\nb\"\n"),
    (r##"{"g03_08": "sp  \nx"}"##, "g03_08: \"sp  \\nx\"\n"),
    (r##"{"g03_09": "a \nb"}"##, "g03_09: \"a \\nb\"\n"),
    (r##"{"g03_10": "a\n "}"##, "g03_10: \"a\\n \"\n"),
    (
        r##"{"g03_11": "\ud83d\ude00"}"##,
        "g03_11: \"\\U0001F600\"\n",
    ),
    (
        r##"{"g03_12": "x \ud83d\ude00 y"}"##,
        "g03_12: \"x \\U0001F600 y\"\n",
    ),
    (
        r##"{"g03_13": "\ufeffbom"}"##,
        "g03_13: \"\\uFEFF\\x62\\x6F\\x6D\"\n",
    ),
    (r##"{"g03_14": "a\ufeffb"}"##, "g03_14: \"a\\uFEFFb\"\n"),
    (r##"{"g03_15": "\ufeff"}"##, "g03_15: \"\\uFEFF\"\n"),
    (r##"{"g03_16": "\ufffd ok"}"##, "g03_16: � ok\n"),
    (
        r##"{"g03_17": "\udbff\udfff"}"##,
        "g03_17: \"\\U0010FFFF\"\n",
    ),
    (
        r##"{"g03_18": "caf\u00e9 \u4e2d\u6587 \u00a0nbsp"}"##,
        "g03_18: café 中文  nbsp\n",
    ),
    // Multi-line strings are literal blocks.
    (
        r##"{"g04_00": "line1\nline2"}"##,
        "g04_00: |-\n  line1\n  line2\n",
    ),
    (
        r##"{"g04_01": "line1\nline2\n"}"##,
        "g04_01: |\n  line1\n  line2\n",
    ),
    (r##"{"g04_02": "trail\n\n"}"##, "g04_02: |+\n  trail\n\n"),
    (r##"{"g04_03": "\nlead"}"##, "g04_03: |2-\n\n  lead\n"),
    (r##"{"g04_04": " lead\nx"}"##, "g04_04: |2-\n   lead\n  x\n"),
    (r##"{"g04_05": "\n"}"##, "g04_05: |2+\n\n"),
    (r##"{"g04_06": "\n\n"}"##, "g04_06: |2+\n\n\n"),
    (r##"{"g04_07": "a\n b"}"##, "g04_07: |-\n  a\n   b\n"),
    (r##"{"g04_08": "a\n\n\nb"}"##, "g04_08: |-\n  a\n\n\n  b\n"),
    (r##"{"g04_09": "  two\n"}"##, "g04_09: |2\n    two\n"),
    (r##"{"g04_10": "x\ttab\ny"}"##, "g04_10: \"x\\ttab\\ny\"\n"),
    (
        r##"{"g04_11": "caf\u00e9\n\u4e2d\u6587\n"}"##,
        "g04_11: |\n  café\n  中文\n",
    ),
    // Long scalars fold after column 80.
    (
        r##"{"g05_00": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"##,
        "g05_00: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
    ),
    (
        r##"{"g05_01": "word word word word word word word word word word word word word word word word word word word word "}"##,
        "g05_01: 'word word word word word word word word word word word word word word word\n  word word word word word '\n",
    ),
    (
        r##"{"g05_02": "word word word word word word word word word word word word word word word word word word word word"}"##,
        "g05_02: word word word word word word word word word word word word word word word\n  word word word word word\n",
    ),
    (
        r##"{"g05_03": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa and more"}"##,
        "g05_03: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n  and more\n",
    ),
    (
        r##"{"g05_04": " word word word word word word word word word word word word word word word word word word word word "}"##,
        "g05_04: ' word word word word word word word word word word word word word word word\n  word word word word word '\n",
    ),
    (
        r##"{"g05_05": "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq   rrrrr s"}"##,
        "g05_05: qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq   rrrrr\n  s\n",
    ),
    (
        r##"{"g05_06": "\tword word word word word word word word word word word word word word word word word word word word "}"##,
        "g05_06: \"\\tword word word word word word word word word word word word word word word\n  word word word word word \"\n",
    ),
    (
        r##"{"g05_07": "\tword word word word word word word word word word word word word word   w  w  w  w  w  w  w  w  w  w"}"##,
        "g05_07: \"\\tword word word word word word word word word word word word word word   w\n  \\ w  w  w  w  w  w  w  w  w\"\n",
    ),
    (
        r##"{"g05_08": "line line line line line line line line line line line line line line line line line line line line line line line line line line line line line line \nmore more more more more more more more more more more more more more more more more more more more more more more more more more more more more more "}"##,
        "g05_08: \"line line line line line line line line line line line line line line line\n  line line line line line line line line line line line line line line line \\nmore\n  more more more more more more more more more more more more more more more more\n  more more more more more more more more more more more more more \"\n",
    ),
    (
        r##"{"g05_09": "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"}"##,
        "g05_09: kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n  kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n",
    ),
    (
        r##"{"g05_10": "x \u2028b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b "}"##,
        "g05_10: \"x \\Lb b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b\n  b b b b b b b b b b \"\n",
    ),
    // Line breaks that go-yaml v2 folds on the way back from JSON (NEL).
    (r##"{"g06_00": "nel\u0085x"}"##, "g06_00: nel x\n"),
    (r##"{"g06_01": "a \u0085 b"}"##, "g06_01: a b\n"),
    (
        r##"{"g06_02": "a\u0085\u0085b"}"##,
        "g06_02: |-\n  a\n  b\n",
    ),
    (
        r##"{"g06_03": "a\u0085\u0085\u0085b"}"##,
        "g06_03: |-\n  a\n\n  b\n",
    ),
    (r##"{"g06_04": "\u0085"}"##, "g06_04: ' '\n"),
    (r##"{"g06_05": "x\u0085"}"##, "g06_05: 'x '\n"),
    // Keys: quoting, complex keys and order.
    (
        r##"{"g07_00": {"": 1, "yes": 2, "1": 3, " a": 4, "a: b": 5, "#x": 6, "x\ny": 7, "\u00fc": 8, "\ud83d\ude00": 9, "null": 10}}"##,
        "g07_00:\n  \"\": 1\n  ' a': 4\n  '#x': 6\n  \"\\U0001F600\": 9\n  \"1\": 3\n  'a: b': 5\n  \"null\": 10\n  ? |-\n    x\n    y\n  : 7\n  \"yes\": 2\n  ü: 8\n",
    ),
    (
        r##"{"g07_01": {"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk": 1, "lllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll": 2, "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm": 3, "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\nsecond": [1, 2], "oooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo": {"p": 1}, "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq": [], "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr": "a\nb"}}"##,
        "g07_01:\n  kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: 1\n  ? lllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll\n  : 2\n  ? mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n    mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n  : 3\n  ? |-\n    nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\n    second\n  : - 1\n    - 2\n  ? oooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo\n  : p: 1\n  ? qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq\n  : []\n  ? rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr\n  : |-\n    a\n    b\n",
    ),
    (
        r##"{"g07_02": {"b": 0, "a": 0, "a10": 0, "a2": 0, "a1": 0, "_x": 0, "1": 0, "10": 0, "9": 0, "A": 0, "B2": 0, "Z": 0, "a-b": 0, "a.b": 0, "a_b": 0, "\u00fc": 0, "Ab": 0, "aB": 0, "-k": 0, ".k": 0}}"##,
        "g07_02:\n  -k: 0\n  .k: 0\n  _x: 0\n  \"1\": 0\n  \"9\": 0\n  \"10\": 0\n  A: 0\n  Ab: 0\n  B2: 0\n  Z: 0\n  a: 0\n  a-b: 0\n  a.b: 0\n  a_b: 0\n  a1: 0\n  a2: 0\n  a10: 0\n  aB: 0\n  b: 0\n  ü: 0\n",
    ),
    (
        r##"{"g07_03": {"a100": 0, "a20": 0, "a3": 0, "a003": 0, "a03": 0, "a105": 0, "a12": 0, "a1": 0, "a-": 0, "a0": 0, "a": 0, " ": 0, "x1y": 0, "x10y": 0}}"##,
        "g07_03:\n  ' ': 0\n  a: 0\n  a-: 0\n  a0: 0\n  a1: 0\n  a3: 0\n  a03: 0\n  a003: 0\n  a12: 0\n  a20: 0\n  a100: 0\n  a105: 0\n  x10y: 0\n  x1y: 0\n",
    ),
    (
        r##"{"g07_04": {"z\u0663": 0, "z3": 0, "z\u00e9": 0, "ze": 0, "z\u4e2d": 0, "z-": 0, "zZ": 0}}"##,
        "g07_04:\n  z-: 0\n  z3: 0\n  z٣: 0\n  zZ: 0\n  ze: 0\n  zé: 0\n  z中: 0\n",
    ),
    // Collections.
    (
        r##"{"g08_00": [["a", "b"], [], {}, null, [["x"]], [[]]]}"##,
        "g08_00:\n- - a\n  - b\n- []\n- {}\n- null\n- - - x\n- - []\n",
    ),
    (
        r##"{"g08_01": [{"a": 1, "b": 2}, {"c": {"d": [1, {"e": null}]}}, {"z": [], "y": {}}]}"##,
        "g08_01:\n- a: 1\n  b: 2\n- c:\n    d:\n    - 1\n    - e: null\n- \"y\": {}\n  z: []\n",
    ),
    (
        r##"{"g08_02": {"a": [1, 2, {"b": [3]}], "c": [[1]], "d": {}, "e": []}}"##,
        "g08_02:\n  a:\n  - 1\n  - 2\n  - b:\n    - 3\n  c:\n  - - 1\n  d: {}\n  e: []\n",
    ),
    (
        r##"{"g08_03": [{"a": [1, [2, {"b": "x\ny"}]]}, "s\nt\n", [{}]]}"##,
        "g08_03:\n- a:\n  - 1\n  - - 2\n    - b: |-\n        x\n        y\n- |\n  s\n  t\n- - {}\n",
    ),
    (r##"{"g08_04": {}}"##, "g08_04: {}\n"),
    (r##"{"g08_05": []}"##, "g08_05: []\n"),
    // Scalars of other types.
    (r##"{"g09_00": true}"##, "g09_00: true\n"),
    (r##"{"g09_01": false}"##, "g09_01: false\n"),
    (r##"{"g09_02": null}"##, "g09_02: null\n"),
    (r##"{"g09_03": 0}"##, "g09_03: 0\n"),
    (r##"{"g09_04": -1}"##, "g09_04: -1\n"),
    (
        r##"{"g09_05": 9223372036854775807}"##,
        "g09_05: 9223372036854775807\n",
    ),
    (
        r##"{"g09_06": -9223372036854775808}"##,
        "g09_06: -9223372036854775808\n",
    ),
    (r##"{"g09_07": 0.5}"##, "g09_07: 0.5\n"),
    (r##"{"g09_08": 1.0}"##, "g09_08: 1\n"),
    (r##"{"g09_09": -0.0}"##, "g09_09: 0\n"),
    (r##"{"g09_10": 1e+21}"##, "g09_10: 1e+21\n"),
    (r##"{"g09_11": 1e+20}"##, "g09_11: 1e+20\n"),
    (r##"{"g09_12": 1e-07}"##, "g09_12: 1e-07\n"),
    (r##"{"g09_13": 15000000000.0}"##, "g09_13: 15000000000\n"),
    (r##"{"g09_14": 1234567.5}"##, "g09_14: 1.2345675e+06\n"),
    (r##"{"g09_15": 123456.5}"##, "g09_15: 123456.5\n"),
    (r##"{"g09_16": 0.0001}"##, "g09_16: 0.0001\n"),
    (
        r##"{"g09_17": 3.141592653589793}"##,
        "g09_17: 3.141592653589793\n",
    ),
];
