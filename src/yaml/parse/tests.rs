//! Unit tests of the parser: resolution, streams, keys, merge keys, anchors, bounds and
//! error positions, with expectations from `kubectl kustomize`.

use super::keys::COMPLEX_KEY;
use super::merge_keys::MERGE_WANTS_MAP;
use super::*;
use serde_json::{Value, json};

/// A node from JSON, for readable expectations (integers stay integers).
fn j(v: Value) -> Node {
    match v {
        Value::Null => Node::Null,
        Value::Bool(b) => Node::Bool(b),
        Value::Number(n) => n
            .as_i64()
            .map_or_else(|| Node::Float(n.as_f64().unwrap_or_default()), Node::Int),
        Value::String(s) => Node::text(s),
        Value::Array(a) => Node::Seq(a.into_iter().map(j).collect()),
        Value::Object(o) => Node::Map(o.into_iter().map(|(k, v)| (k, j(v))).collect()),
    }
}

fn stream(text: &str) -> Vec<Node> {
    parse_stream(text, "r.yaml").unwrap_or_else(|e| panic!("{e}"))
}

/// The `spec` of a one-document stream.
fn spec(body: &str) -> Node {
    let docs = stream(&format!("kind: Values\nspec:\n{body}"));
    docs[0].get("spec").cloned().unwrap_or_default()
}

fn kustomization(text: &str) -> Node {
    parse_document(text, "kustomization.yaml").unwrap_or_else(|e| panic!("{e}"))
}

/// (line, column, message) of the error for a stream.
fn stream_err(text: &str) -> (usize, usize, String) {
    position(parse_stream(text, "r.yaml").expect_err("should fail"))
}

fn document_err(text: &str) -> (usize, usize, String) {
    position(parse_document(text, "k.yaml").expect_err("should fail"))
}

fn position(e: Error) -> (usize, usize, String) {
    match e {
        Error::Yaml { line, col, msg, .. } => (line, col, msg),
        other => panic!("not a YAML error: {other}"),
    }
}

// Expectations come from `kubectl kustomize` (kustomize v5.5.0): a resource holding the
// input was built and the printed output (or error) noted in the comment.

#[test]
fn plain_scalars_resolve_like_go_yaml_v3() {
    // kubectl printed: "yes", "on", "y", true, null, 10 (012), 15, 31, 5, 1000,
    // "2024-01-01T00:00:00Z", "12:30", 1e (string), 1 (1.0).
    let got = spec(
        "  a: yes\n  b: on\n  c: y\n  d: True\n  e: ~\n  f: 012\n  g: 0o17\n  h: 0x1F\n  \
         i: 0b101\n  k: 1_000\n  l: 2024-01-01\n  m: 12:30\n  n: 1e\n  o: 1.0\n  p:\n",
    );
    let want = json!({"a": "yes", "b": "on", "c": "y", "d": true, "e": null, "f": 10,
        "g": 15, "h": 31, "i": 5, "k": 1000, "l": "2024-01-01T00:00:00Z", "m": "12:30",
        "n": "1e", "o": 1.0, "p": null});
    assert_eq!(got, j(want));
}

#[test]
fn quoted_block_and_tagged_scalars() {
    // kubectl: "2" stays a string, `!!str 123` -> "123", `!!int "42"` -> 42,
    // `!!binary aGVsbG8=` -> hello, `!foo 12` -> "12", `! 12` -> 12.
    let got = spec(
        "  a: \"2\"\n  b: '012'\n  c: |\n    12\n  d: !!str 123\n  e: !!int \"42\"\n  \
         f: !!binary aGVsbG8=\n  g: !foo 12\n  h: ! 12\n  i: !foo {x: 1}\n",
    );
    let want = json!({"a": "2", "b": "012", "c": "12\n", "d": "123", "e": 42,
        "f": "hello", "g": "12", "h": 12, "i": {"x": 1}});
    assert_eq!(got, j(want));
}

#[test]
fn double_quoted_escapes() {
    // kubectl accepted every YAML 1.2 escape but `\/` ("found unknown escape character").
    assert_eq!(
        spec("  e: \"\\0\\a\\e\\ \\N\\_\\L\\x41\\u00e9\\U0001F600\\\t\"\n"),
        j(json!({"e": "\u{0}\u{7}\u{1b} \u{85}\u{a0}\u{2028}A\u{e9}\u{1f600}\t"}))
    );
    let (line, col, msg) = stream_err("a: 1\nb: \"x\\/y\"\n");
    assert_eq!((line, col), (2, 4));
    assert!(msg.contains("unknown escape"), "{msg}");
    // A backslash escaped before a slash, or `\/` outside double quotes, is fine.
    assert_eq!(
        spec("  a: \"x\\\\/y\"\n  b: 'x\\/y'\n  c: x\\/y\n"),
        j(json!({"a": "x\\/y", "b": "x\\/y", "c": "x\\/y"}))
    );
    assert_eq!(
        spec("  \u{e9}: \"\u{e9}\\\\/\"\n"),
        j(json!({"\u{e9}": "\u{e9}\\/"}))
    );
}

#[test]
fn empty_values_in_flow_collections_and_empty_keys() {
    // kubectl: `{a: 1, b, c: }` -> b: "", c: ""; `[a: ]` -> [{a: ""}];
    // `[&x , *x]`... -> ["", ""]; `? ` + `: v` -> "": v; block `e:` and `- ` stay null.
    assert_eq!(
        spec(
            "  f: {a: 1, b, c: }\n  g: [a: ]\n  h: [a, &x , *x]\n  i:\n    ?\n    : v\n  e:\n  s:\n  -\n"
        ),
        j(
            json!({"f": {"a": 1, "b": "", "c": ""}, "g": [{"a": ""}], "h": ["a", "", ""],
            "i": {"": "v"}, "e": null, "s": [null]})
        )
    );
    // Only resources take that round trip.
    assert_eq!(kustomization("f: {c: }\n"), j(json!({"f": {"c": null}})));
    assert!(document_err("f:\n  ?\n  : v\n").2.contains("null map key"));
}

#[test]
fn tag_mismatch_is_an_error_at_the_scalar() {
    // kubectl: "cannot decode !!float `1.5` as a !!int" (without a position).
    let e = stream_err("kind: Values\nspec:\n  a: !!int 1.5\n");
    assert_eq!(e, (3, 6, "cannot decode !!float `1.5` as a !!int".into()));
    let e = stream_err("a: !!binary aGVsbG8\n");
    assert_eq!(e.2, "!!binary value contains invalid base64 data");
}

#[test]
fn infinity_and_nan_cannot_become_json() {
    // kubectl: "json: unsupported value: +Inf" for .inf, also in a kustomization.
    let (line, col, msg) = stream_err("kind: Values\nspec:\n  a: .inf\n");
    assert_eq!((line, col), (3, 6));
    assert!(msg.contains("json: unsupported value: +Inf"), "{msg}");
    assert!(stream_err("a: -.inf\n").2.contains("-Inf"));
    assert!(stream_err("a: .nan\n").2.contains("NaN"));
    assert!(
        document_err("commonAnnotations: {a: .inf}\n")
            .2
            .contains("+Inf")
    );
    // As text they are fine: kubectl printed `inf` and `NaN` as strings.
    assert_eq!(
        spec("  a: inf\n  b: NaN\n"),
        j(json!({"a": "inf", "b": "NaN"}))
    );
}

#[test]
fn documents_of_a_stream() {
    // kubectl skipped empty documents, comments-only documents, `null`, `{}` and `[]`.
    let docs = stream(
        "---\na: 1\n---\n---\n# only a comment\n---\nnull\n---\n{}\n---\n[]\n--- # c\nb: 2\n",
    );
    assert_eq!(docs, vec![j(json!({"a": 1})), j(json!({"b": 2}))]);
    assert_eq!(stream(""), Vec::<Node>::new());
    assert_eq!(stream("# nothing\n"), Vec::<Node>::new());
    // A scalar or list document is kept; kustomize then reports missing metadata.
    assert_eq!(stream("a: 1\n---\nhello\n")[1], j(json!("hello")));
    assert_eq!(stream("- a\n")[0], j(json!(["a"])));
    // Many documents, no limit.
    assert_eq!(stream(&"x: 1\n---\n".repeat(20_000)).len(), 20_000);
}

#[test]
fn document_separator_with_content_is_an_error() {
    // kubectl: "invalid document separator: --- ~", "... ----", "... ---foo".
    assert_eq!(
        stream_err("a: 1\n--- ~\n"),
        (2, 1, "invalid document separator: --- ~".into())
    );
    assert_eq!(
        stream_err("a: 1\n----\n").2,
        "invalid document separator: ----"
    );
    assert_eq!(
        stream_err("a: 1\n---foo\n").2,
        "invalid document separator: ---foo"
    );
    // On the first line it is an ordinary document start (kubectl accepted it).
    assert_eq!(stream("--- {a: 1}\n"), vec![j(json!({"a": 1}))]);
    assert_eq!(stream("a: 1\n---\t\nb: 2\n").len(), 2);
}

#[test]
fn text_after_document_end_marker_is_ignored_until_the_next_separator() {
    // kubectl printed only the first resource for `...` followed by another one.
    assert_eq!(stream("a: 1\n...\nb: 2\n"), vec![j(json!({"a": 1}))]);
    assert_eq!(stream("a: 1\n...\nb: [\n---\nc: 3\n").len(), 2);
}

#[test]
fn errors_point_into_the_right_document() {
    let (line, col, _) = stream_err("a: 1\n---\nb: 2\n---\nc:\n\td: 1\n");
    assert_eq!((line, col), (6, 2));
}

#[test]
fn byte_order_mark_and_crlf() {
    // kubectl accepted a BOM at the start of the file.
    assert_eq!(stream("\u{feff}a: 1\n"), vec![j(json!({"a": 1}))]);
    assert_eq!(
        stream("a: |\r\n  x\r\n  y\r\nb: 1\r\n---\r\nc: 2\r\n"),
        vec![j(json!({"a": "x\ny\n", "b": 1})), j(json!({"c": 2}))]
    );
}

#[test]
fn tabs() {
    // kubectl: "found character that cannot start any token" for tab indentation.
    let (line, col, msg) = stream_err("spec:\n\ta: 1\n");
    assert_eq!((line, col), (2, 2));
    assert!(msg.contains("tab"), "{msg}");
    // A tab after `:` separates like a space (kubectl printed a: b, c: -1, d: e).
    assert_eq!(
        stream("a:\tb\nc:\t-1\ns:\n- e:\tf\n- {d:\te}\n")[0],
        j(json!({"a": "b", "c": -1, "s": [{"e": "f"}, {"d": "e"}]}))
    );
    assert_eq!(
        kustomization("namePrefix:\tx-\n"),
        j(json!({"namePrefix": "x-"}))
    );
    // Tabs inside values are kept.
    assert_eq!(
        spec("  a: \"x:\\ty\"\n  b: |\n    k:\tv\n"),
        j(json!({"a": "x:\ty", "b": "k:\tv\n"}))
    );
}

#[test]
fn control_characters_are_rejected() {
    // kubectl: "control characters are not allowed", raw or quoted.
    let (line, col, msg) = stream_err("a: 1\nb: x\u{1}y\n");
    assert_eq!((line, col), (2, 5));
    assert!(
        msg.starts_with("control characters are not allowed (U+0001)"),
        "{msg}"
    );
    assert_eq!(stream_err("a: \"\u{7f}\"\n").0, 1);
    assert_eq!(stream_err("a: \u{9f}\n").1, 4);
    // Escaped they are fine.
    assert_eq!(stream("a: \"\\x01\"\n")[0], j(json!({"a": "\u{1}"})));
}

#[test]
fn top_level_keys_keep_their_text() {
    // kubectl printed "012": a, "true": a, "1.50": a, "2024-01-01": a, hello: a.
    let got = stream("012: a\ntrue: b\n1.50: c\n2024-01-01: d\n!!binary aGVsbG8=: e\n.inf: f\n");
    let want = json!({"012": "a", "true": "b", "1.50": "c", "2024-01-01": "d",
        "hello": "e", ".inf": "f"});
    assert_eq!(got[0], j(want));
}

#[test]
fn nested_keys_must_be_strings() {
    // kubectl: "json: unsupported type: map[interface {}]interface {}" for `1: a`,
    // `true: b` and a timestamp key in a nested mapping.
    for key in [
        "1",
        "true",
        "1.5",
        "2024-01-01",
        "!!binary aGVsbG8=",
        "!foo x",
    ] {
        let (line, col, msg) = stream_err(&format!("spec:\n  {key}: a\n"));
        assert_eq!((line, col), (2, 3), "{key}");
        assert!(msg.contains("is not a string"), "{key}: {msg}");
    }
    // Strings that look like other types in YAML 1.1 are fine.
    assert_eq!(
        spec("  yes: 1\n  \"1\": 2\n  !!str 3: 3\n"),
        j(json!({"yes": 1, "1": 2, "3": 3}))
    );
}

#[test]
fn null_and_complex_keys_are_errors() {
    assert!(stream_err("spec:\n  ~: a\n").2.contains("null map key"));
    assert!(stream_err("~: a\n").2.contains("null map key"));
    // kubectl: "invalid map key: []interface {}{\"a\"}" / "cannot unmarshal !!seq into string".
    assert_eq!(
        stream_err("spec:\n  ? [a]\n  : b\n"),
        (2, 5, COMPLEX_KEY.to_string())
    );
    assert_eq!(stream_err("x: &x {a: 1}\ny:\n  *x : 1\n").0, 3);
    assert!(
        document_err("a: {? {b: 1} : c}\n")
            .2
            .contains("cannot be a map key")
    );
    assert!(document_err("a: {~: c}\n").2.contains("null map key"));
}

#[test]
fn duplicate_keys() {
    // kubectl: `line 9: mapping key "c" already defined at line 8`; `1` and `"1"` clash.
    assert_eq!(
        stream_err("spec:\n  a: 1\n  b:\n    c: 2\n    c: 3\n"),
        (5, 5, "mapping key \"c\" already defined at line 4".into())
    );
    assert_eq!(
        stream_err("1: 1\n\"1\": 2\n").2,
        "mapping key \"1\" already defined at line 1"
    );
    assert_eq!(
        stream_err("{a: 1, a: 2}").2,
        "mapping key \"a\" already defined at line 1"
    );
    // The same key in different mappings is fine.
    assert_eq!(stream("a: {x: 1}\nb: {x: 2}\n").len(), 1);
}

#[test]
fn aliases_are_expanded() {
    // kubectl printed the copies; a scalar alias resolves like the original (`012` is
    // 10 as a value, and keeps its text as a top-level key).
    let got =
        stream("a: &x {k: [1, 2]}\nb: *x\nc: &s 012\nd: *s\n*s : v\ne: &k key\nf: {*k : v}\n");
    let want = json!({"a": {"k": [1, 2]}, "b": {"k": [1, 2]}, "c": 10, "d": 10,
        "012": "v", "e": "key", "f": {"key": "v"}});
    assert_eq!(got[0], j(want));
    assert!(stream_err("a: *nope\n").2.contains("unknown anchor"));
    // kubectl overflows its stack on this one.
    assert!(stream_err("a: &a\n  b: *a\n").2.contains("recursive"));
}

#[test]
fn merge_keys_in_resources() {
    // kubectl: own keys win; in a list the first mapping wins; nested merges apply.
    assert_eq!(
        spec("  base: &b {x: 1, y: 1}\n  m:\n    <<: *b\n    y: 2\n"),
        j(json!({"base": {"x": 1, "y": 1}, "m": {"x": 1, "y": 2}}))
    );
    assert_eq!(
        spec("  <<: [{a: 1, c: 1}, {a: 2, b: 2}]\n  c: 3\n"),
        j(json!({"a": 1, "b": 2, "c": 3}))
    );
    assert_eq!(
        spec("  x: &x {a: 1, <<: {b: 2}}\n  y:\n    <<: *x\n    c: 3\n"),
        j(json!({"x": {"a": 1, "b": 2}, "y": {"a": 1, "b": 2, "c": 3}}))
    );
    assert_eq!(
        spec("  <<: {a: null, b: 1}\n  c: 2\n"),
        j(json!({"a": null, "b": 1, "c": 2}))
    );
}

#[test]
fn merge_key_errors_in_resources() {
    // kyaml's messages, as kubectl printed them.
    let cases = [
        ("  <<: 5\n", MERGE_WANTS_MAP),
        ("  <<:\n  b: 1\n", MERGE_WANTS_MAP),
        ("  <<: [1]\n", MERGE_WANTS_MAP),
        (
            "  <<: [[{a: 1}]]\n",
            "invalid map merge: received a nested sequence",
        ),
        (
            "  x: &x [1]\n  y:\n    <<: *x\n",
            "invalid map merge: received alias for a non-map value",
        ),
        ("  <<: {a: 1}\n  <<: {b: 1}\n", "duplicate merge key"),
    ];
    for (body, msg) in cases {
        let (_, _, got) = stream_err(&format!("kind: Values\nspec:\n{body}"));
        assert_eq!(got, msg, "{body}");
    }
}

#[test]
fn quoted_merge_text_keys_in_resources() {
    // kyaml deletes the first key spelled `<<` of every mapping, quoted or not
    // (kubectl printed `b: 2` for `"<<": {a: 1}` + `b: 2`, and `<<: 2` + `x: 3` for
    // `'<<': 1` + `"<<": 2` + `x: 3`).
    assert_eq!(spec("  \"<<\": {a: 1}\n  b: 2\n"), j(json!({"b": 2})));
    assert_eq!(
        spec("  '<<': 1\n  \"<<\": 2\n  x: 3\n"),
        j(json!({"<<": 2, "x": 3}))
    );
    assert_eq!(
        spec("  <<: {a: 1}\n  '<<': 2\n"),
        j(json!({"<<": 2, "a": 1}))
    );
    assert_eq!(spec("  '<<': 2\n  <<: {a: 1}\n"), j(json!({"a": 1})));
    // As a value `<<` is an ordinary string.
    assert_eq!(spec("  a: <<\n"), j(json!({"a": "<<"})));
}

#[test]
fn folded_scalars_take_go_yaml_round_trip() {
    // kubectl printed "a\n\n b\n" for a folded `a` + more-indented ` b`.
    assert_eq!(
        spec("  f: >\n    a\n     b\n"),
        j(json!({"f": "a\n\n b\n"}))
    );
    assert_eq!(spec("  f: >\n    a\n    b\n"), j(json!({"f": "a b\n"})));
    // Through an alias too.
    assert_eq!(
        spec("  f: &f >\n    a\n     b\n  g: *f\n"),
        j(json!({"f": "a\n\n b\n", "g": "a\n\n b\n"}))
    );
    // Kustomization files are read once, as written.
    assert_eq!(
        kustomization("namePrefix: >\n  a\n   b\n"),
        j(json!({"namePrefix": "a\n b\n"}))
    );
}

#[test]
fn nesting_is_bounded() {
    let nested = |depth: usize| {
        let mut s = String::new();
        for i in 0..depth {
            s.push_str(&"  ".repeat(i));
            s.push_str("k:\n");
        }
        s + &"  ".repeat(depth) + "x\n"
    };
    // `depth` nested mappings.
    assert_eq!(stream(&nested(MAX_DEPTH)).len(), 1);
    let (line, _, msg) = stream_err(&nested(MAX_DEPTH + 1));
    assert_eq!(line, MAX_DEPTH + 1);
    assert_eq!(msg, format!("YAML nested deeper than {MAX_DEPTH} levels"));
    // 1000 levels of block sequences, and flow collections nested 300 deep.
    let seqs: String = (0..1000)
        .map(|i| format!("{}-\n", "  ".repeat(i)))
        .collect();
    assert!(stream_err(&seqs).2.contains("nested deeper"));
    let flow = format!("a: {}{}\n", "[".repeat(300), "]".repeat(300));
    assert!(parse_stream(&flow, "r.yaml").is_err());
    // Aliases count at the depth where they expand.
    let mut chain = String::from("a0: &a0 [x]\n");
    for i in 1..=MAX_DEPTH {
        chain.push_str(&format!("a{i}: &a{i} [*a{}]\n", i - 1));
    }
    assert!(stream_err(&chain).2.contains("through an alias"));
}

#[test]
fn alias_expansion_is_bounded() {
    // The "billion laughs": 10^9 strings from a few hundred bytes.
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let start = std::time::Instant::now();
    let (_, _, msg) = stream_err(&text);
    assert!(msg.contains("alias bomb"), "{msg}");
    assert!(start.elapsed().as_secs() < 20);
    // Long strings count by bytes.
    let big = "x".repeat(1 << 20);
    let mut text = format!("a: &a {big}\nb: [");
    text.push_str(&vec!["*a"; 70].join(", "));
    text.push_str("]\n");
    assert!(stream_err(&text).2.contains("alias bomb"));
    // The budget is per document.
    let doc = format!(
        "a: &a {}\nb: [{}]\n",
        "x".repeat(1 << 10),
        vec!["*a"; 1000].join(",")
    );
    assert_eq!(stream(&[doc.as_str(); 100].join("---\n")).len(), 100);
}

#[test]
fn invalid_input_is_an_error_not_a_panic() {
    for text in [
        "a: [1, 2\n",
        "a: \"x\n",
        "a: 1\n b: 2\n",
        "a: b: c\n",
        "- a\nb: c\n",
        "!<x> [\n",
        "%TAG !e! x\n--- !f!y 1\n",
        "{[}\n",
        "? - :\n",
    ] {
        assert!(parse_stream(text, "r.yaml").is_err(), "{text:?}");
        assert!(parse_document(text, "k.yaml").is_err(), "{text:?}");
    }
}

#[test]
fn kustomization_files_read_like_sigs_k8s_io_yaml() {
    // kubectl rejected `commonAnnotations: {a: yes}` ("cannot unmarshal bool into ...
    // string") and `namePrefix: 012` ("cannot unmarshal number"); kept `2024-01-01`.
    assert_eq!(
        kustomization("a: yes\nb: Off\nc: 012\nd: 2024-01-01\ne: y\nf: ~\n"),
        j(json!({"a": true, "b": false, "c": 10, "d": "2024-01-01", "e": true, "f": null}))
    );
    // The later key wins (kubectl used `a: "2"`); merges apply where `<<` stands.
    assert_eq!(kustomization("a: '1'\na: '2'\n"), j(json!({"a": "2"})));
    assert_eq!(
        kustomization("a: '0'\n<<: {a: '1', b: '1'}\nb: '2'\n"),
        j(json!({"a": "1", "b": "2"}))
    );
    assert_eq!(
        kustomization("<<: [{a: '1', c: '1'}, {a: '2', b: '2'}]\n"),
        j(json!({"a": "1", "b": "2", "c": "1"}))
    );
    // A quoted "<<" is an ordinary key here.
    assert_eq!(kustomization("'<<': a\n"), j(json!({"<<": "a"})));
    assert_eq!(document_err("<<: 5\n").2, MERGE_WANTS_MAP);
}

#[test]
fn kustomization_keys_become_strings_like_sigs_k8s_io_yaml() {
    // kubectl showed the keys 10, 31, 1000, 1.5, 1e+06, true for these.
    assert_eq!(
        kustomization(
            "m: {012: a, 0x1F: b, 1e3: c, 1.5: d, 1000000.0: e, yes: f, 2024-01-01: g}\n"
        ),
        j(
            json!({"m": {"10": "a", "31": "b", "1000": "c", "1.5": "d", "1e+06": "e",
            "true": "f", "2024-01-01": "g"}})
        )
    );
    // kubectl: "unsupported map key of type: uint64" / "of type: %!s(<nil>)".
    assert!(
        document_err("m: {12345678901234567890: a}\n")
            .2
            .contains("uint64")
    );
    assert!(document_err("m: {~: a}\n").2.contains("null map key"));
}

#[test]
fn kustomization_documents() {
    assert_eq!(kustomization(""), Node::Null);
    assert_eq!(kustomization("# just a comment\n"), Node::Null);
    assert_eq!(
        kustomization("\u{feff}namePrefix: x-\n"),
        j(json!({"namePrefix": "x-"}))
    );
    // kubectl ignored a second document (its namePrefix was not applied).
    assert_eq!(kustomization("a: 1\n---\nb: 2\n"), j(json!({"a": 1})));
    assert_eq!(kustomization("a: 1\n---\nb: [\n"), j(json!({"a": 1})));
    // No document splitting: a `---` line with content is YAML's business.
    assert_eq!(kustomization("--- {a: 1}\n"), j(json!({"a": 1})));
}

#[test]
fn large_streams_parse_in_parallel_in_order() {
    let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\ndata:\n  k: v\n";
    let text: String = (0..30_000)
        .map(|i| doc.replace("NAME", &format!("cm{i}")))
        .collect::<Vec<_>>()
        .join("---\n");
    assert!(text.len() > PARALLEL_MIN_BYTES);
    let docs = stream(&text);
    assert_eq!(docs.len(), 30_000);
    assert_eq!(docs[12_345].get_str(&["metadata", "name"]), Some("cm12345"));
    // The first error in document order is reported.
    let broken =
        text.replacen("name: cm20000", "name: [", 1)
            .replacen("name: cm29000", "name: {", 1);
    let (line, _, _) = stream_err(&broken);
    assert!((20_000 * 7 + 1..=20_000 * 7 + 7).contains(&line), "{line}");
}

#[test]
fn block_scalar_on_an_unterminated_last_line_has_no_final_newline() {
    assert_eq!(
        spec("  a: |\n    x\n  b: |\n    y"),
        j(json!({"a": "x\n", "b": "y"}))
    );
    assert_eq!(spec("  b: >\n    y\n    z  "), j(json!({"b": "y z  "})));
    assert_eq!(spec("  b: |\n    y\n"), j(json!({"b": "y\n"})));
    // A later unterminated line that is not part of the scalar.
    assert_eq!(
        spec("  a: |\n    x\n  b: 1"),
        j(json!({"a": "x\n", "b": 1}))
    );
}

#[test]
fn patches_keep_null_annotations() {
    let text = "metadata:\n  annotations:\n    a: null\n    b: ~\n    c:\n    d: 1\n";
    let res = stream(text);
    assert_eq!(
        res[0].get_path(&["metadata", "annotations"]).cloned(),
        Some(j(json!({"a": "null", "b": "~", "c": "", "d": "1"})))
    );
    let patch = parse_patch_stream(text, "p.yaml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        patch[0].get_path(&["metadata", "annotations"]).cloned(),
        Some(j(json!({"a": null, "b": null, "c": null, "d": "1"})))
    );
}

#[test]
fn empty_nulls_are_recorded_through_block_collections() {
    let text =
        "kind: X\nspec:\n  a:\n  b: null\n  c: !!null\n  l:\n  - n: x\n    v:\n  - \n  f: {g: }\n";
    let docs = parse_resource_stream(text, "r.yaml").unwrap_or_else(|e| panic!("{e}"));
    let key = |k: &str| PathStep::Key(k.to_string());
    assert_eq!(
        docs[0].1,
        vec![
            vec![key("spec"), key("a")],
            vec![key("spec"), key("c")],
            vec![key("spec"), key("l"), PathStep::Index(0), key("v")],
        ]
    );
}

/// A resource's plain numbers keep their text where kbuild would spell the value
/// otherwise (explicitly tagged `!!int`/`!!float` ones too); quoted and usually spelled
/// ones, and kustomization files, keep none.
#[test]
fn resource_numbers_keep_their_text() {
    let body = "  day: 2024-01-01\n  i: 007\n  j: -5\n  k: -0\n  t: False\n  u: true\n  a: 1.50\n  b: 0x1F\n  c: +12\n  d: 1.0e+3\n  e: 12\n  f: \"1.50\"\n  g: !!float 1.50\n  h: 1.5\n  l: [1.50]\n";
    let s = spec(body);
    let m = s.as_map().expect("a mapping");
    for (k, want) in [
        ("day", Some("2024-01-01")),
        ("i", Some("007")),
        ("j", None),
        ("k", Some("-0")),
        ("t", Some("False")),
        ("u", None),
        ("a", Some("1.50")),
        ("b", Some("0x1F")),
        ("c", Some("+12")),
        ("d", Some("1.0e+3")),
        ("e", None),
        ("f", None),
        ("g", Some("1.50")),
        ("h", None),
    ] {
        assert_eq!(m.typed_text(k), want, "{k}");
    }
    assert_eq!(m.get("a"), Some(&Node::Float(1.5)));
    let k = kustomization("replicas:\n- name: x\n  count: 0x1F\n");
    let item = &k.get("replicas").and_then(Node::as_seq).expect("a list")[0];
    assert_eq!(item.as_map().and_then(|m| m.typed_text("count")), None);
}
