//! Runs the shared merge conformance corpus (`../shared/conformance/merge`, see its README)
//! against `kbuild::merge`:
//! - `merge2/*.yaml`: kyaml's two-way merge, which kustomize's patches use; every case must
//!   pass, except the two whose schema is carried by YAML comments (kbuild's node has no
//!   comments), which are counted as unsupported;
//! - `smp/k8s-apply.yaml`: the same inputs applied by apimachinery (`kubectl patch`); kbuild
//!   follows kustomize, so it must agree exactly where the corpus says kyaml agrees.
//!
//! The corpus is YAML and read with `kbuild::yaml::parse::parse_stream`.

use crate::common;

use std::path::{Path, PathBuf};

use kbuild::merge::{ListIncrease, MergeOptions, apply_with, take_directive};
use kbuild::openapi::Schemas;
use kbuild::yaml::Node;

/// Parses one document of a case (an empty text is no document: `Null`).
pub(crate) type ParseDoc<'a> = &'a dyn Fn(&str) -> Result<Node, String>;

fn parse_yaml(text: &str) -> Result<Node, String> {
    let docs = kbuild::yaml::parse::parse_stream(text, "case").map_err(|e| e.to_string())?;
    Ok(docs.into_iter().next().unwrap_or(Node::Null))
}

/// The cases of a table file, parsed with `parse_file`.
pub(crate) fn load_cases(path: &Path, parse_file: ParseDoc) -> Vec<Node> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table = parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    table
        .get("cases")
        .and_then(Node::as_seq)
        .cloned()
        .unwrap_or_default()
}

/// How a case ended.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    Pass,
    /// A feature kbuild cannot have (schemas in YAML comments).
    Unsupported(String),
    Fail(String),
}

fn text<'n>(case: &'n Node, key: &str) -> &'n str {
    case.get_str(&[key]).unwrap_or("")
}

fn no_schema() -> Schemas {
    let empty = Node::from(&serde_json::json!({"definitions": {}}));
    Schemas::from_openapi_document(&empty, "none").expect("empty schema")
}

/// Runs one merge2 or smpDirective case.
pub(crate) fn run_merge2(case: &Node, parse: ParseDoc) -> Verdict {
    if case.get("inlineSchemaComments") == Some(&Node::Bool(true)) {
        return Verdict::Unsupported("schema given in a YAML comment".into());
    }
    match text(case, "operation") {
        "merge2" => run_merge(case, parse, text(case, "schema")),
        "smpDirective" => run_directive(case, parse),
        other => Verdict::Fail(format!("unknown operation {other}")),
    }
}

fn options_of(case: &Node) -> (ListIncrease, bool) {
    let increase = match case.get_str(&["options", "listIncreaseDirection"]) {
        Some("prepend") => ListIncrease::Prepend,
        _ => ListIncrease::Append,
    };
    let infer = case.get_path(&["options", "inferAssociativeLists"]) == Some(&Node::Bool(true));
    (increase, infer)
}

fn merge(
    case: &Node,
    options_from: &Node,
    parse: ParseDoc,
    schema: &str,
    dest_key: &str,
) -> Result<Node, String> {
    let none = no_schema();
    let schemas = if schema == "kubernetes" {
        Schemas::builtin()
    } else {
        &none
    };
    let (list_increase, infer) = options_of(options_from);
    let options = MergeOptions {
        schemas,
        list_increase,
        infer_associative_lists: infer,
    };
    let mut dest = parse(text(case, dest_key))?;
    let patch = parse(text(case, "patch"))?;
    apply_with(&mut dest, &patch, None, &options).map_err(|e| e.to_string())?;
    Ok(dest)
}

fn run_merge(case: &Node, parse: ParseDoc, schema: &str) -> Verdict {
    let got = match merge(case, case, parse, schema, "dest") {
        Ok(got) => got,
        Err(e) => return Verdict::Fail(format!("error: {e}")),
    };
    let expected = match parse(text(case, "expected")) {
        Ok(e) => e,
        Err(e) => return Verdict::Fail(format!("expected: {e}")),
    };
    compare(case, got, expected)
}

fn compare(case: &Node, mut got: Node, mut expected: Node) -> Verdict {
    let ordered = matches!(text(case, "compare"), "ordered" | "text");
    for path in case
        .get("unorderedPaths")
        .and_then(Node::as_seq)
        .into_iter()
        .flatten()
    {
        let path: Vec<&str> = path.as_str().unwrap_or("").split('.').collect();
        sort_by_name(&mut got, &path);
        sort_by_name(&mut expected, &path);
    }
    if same(&got, &expected, ordered) {
        Verdict::Pass
    } else {
        Verdict::Fail(format!(
            "got {}\nexpected {}",
            got.to_json(),
            expected.to_json()
        ))
    }
}

fn sort_by_name(node: &mut Node, path: &[&str]) {
    if let Some(Node::Seq(items)) = node.get_path_mut(path) {
        items.sort_by_key(|i| i.get_str(&["name"]).unwrap_or("").to_string());
    }
}

/// Data equality; mapping order counts when `ordered`.
fn same(a: &Node, b: &Node, ordered: bool) -> bool {
    match (a, b) {
        (Node::Map(x), Node::Map(y)) => {
            x.len() == y.len()
                && if ordered {
                    x.iter()
                        .zip(y)
                        .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb, ordered))
                } else {
                    x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w, ordered)))
                }
        }
        (Node::Seq(x), Node::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w, ordered))
        }
        (Node::Int(i), Node::Float(f)) | (Node::Float(f), Node::Int(i)) => *i as f64 == *f,
        _ => a == b,
    }
}

fn run_directive(case: &Node, parse: ParseDoc) -> Verdict {
    let mut node = match parse(text(case, "node")) {
        Ok(n) => n,
        Err(e) => return Verdict::Fail(e),
    };
    let result = take_directive(&mut node);
    if case.get("expectError") == Some(&Node::Bool(true)) {
        let want = text(case, "errorContains");
        return match result {
            Err(e) if e.to_string().contains(want) => Verdict::Pass,
            other => Verdict::Fail(format!("want error containing {want:?}, got {other:?}")),
        };
    }
    let Ok(directive) = result else {
        return Verdict::Fail(format!("{result:?}"));
    };
    let want = case.get_str(&["expected", "directive"]).unwrap_or("");
    if directive.as_str() != want {
        return Verdict::Fail(format!("directive {directive:?}, want {want}"));
    }
    let elided = match parse(case.get_str(&["expected", "elided"]).unwrap_or("")) {
        Ok(e) => e,
        Err(e) => return Verdict::Fail(e),
    };
    if same(&node, &elided, true) {
        Verdict::Pass
    } else {
        Verdict::Fail(format!(
            "elided {}, want {}",
            node.to_json(),
            elided.to_json()
        ))
    }
}

/// Runs every merge2 file; returns (passed, unsupported, failures).
pub(crate) fn run_merge2_corpus(
    dir: &Path,
    parse_file: ParseDoc,
    parse: ParseDoc,
) -> (usize, usize, Vec<String>) {
    let mut passed = 0;
    let mut unsupported = 0;
    let mut failures = Vec::new();
    for file in MERGE2 {
        for case in load_cases(&dir.join(format!("merge2/{file}.yaml")), parse_file) {
            match run_merge2(&case, parse) {
                Verdict::Pass => passed += 1,
                Verdict::Unsupported(why) => {
                    unsupported += 1;
                    eprintln!("unsupported {}: {why}", text(&case, "id"));
                }
                Verdict::Fail(why) => failures.push(format!("{}: {why}", text(&case, "id"))),
            }
        }
    }
    (passed, unsupported, failures)
}

/// One case of `smp/k8s-apply.yaml` with the merge2 case it takes its inputs from:
/// `Ok(true)` where kbuild agrees with apimachinery as the corpus says kyaml does,
/// `Ok(false)` where both differ as recorded.
fn k8s_apply_case(case: &Node, source: &Node, parse: ParseDoc) -> Result<bool, String> {
    let same_as_kyaml = text(case, "sameAsKyaml").starts_with("yes");
    let ours = merge(case, source, parse, "kubernetes", "original");
    let theirs = if case.get("expectError") == Some(&Node::Bool(true)) {
        Err(text(case, "errorContains").to_string())
    } else {
        parse(text(case, "expected"))
    };
    // apimachinery returns {} where kyaml deletes the document.
    let normalize = |n: Node| if n == Node::map() { Node::Null } else { n };
    let agree = match (&ours, theirs) {
        (Ok(a), Ok(b)) => {
            let mut sorted = (a.clone(), normalize(b));
            for path in source
                .get("unorderedPaths")
                .and_then(Node::as_seq)
                .into_iter()
                .flatten()
            {
                let path: Vec<&str> = path.as_str().unwrap_or("").split('.').collect();
                sort_by_name(&mut sorted.0, &path);
                sort_by_name(&mut sorted.1, &path);
            }
            same(&sorted.0, &sorted.1, false)
        }
        _ => false,
    };
    match (same_as_kyaml, agree) {
        (true, true) => Ok(true),
        (false, false) => Ok(false),
        (true, false) => Err(format!("kbuild gave {:?}", ours.map(|n| n.to_json()))),
        (false, true) => Err("expected a difference, none found".into()),
    }
}

/// Runs `smp/k8s-apply.yaml`: kbuild (kustomize's semantics) against apimachinery's results.
/// Returns (agreements where the corpus says kyaml agrees, differences found where it says
/// kyaml differs, failures).
pub(crate) fn run_k8s_apply(
    dir: &Path,
    parse_file: ParseDoc,
    parse: ParseDoc,
) -> (usize, Vec<String>, Vec<String>) {
    let mut merge2_cases = std::collections::HashMap::new();
    for file in ["scalar", "list", "element", "map", "old"] {
        for case in load_cases(&dir.join(format!("merge2/{file}.yaml")), parse_file) {
            merge2_cases.insert(text(&case, "id").to_string(), case);
        }
    }
    let mut agreed = 0;
    let mut differences = Vec::new();
    let mut failures = Vec::new();
    for case in load_cases(&dir.join("smp/k8s-apply.yaml"), parse_file) {
        let id = text(&case, "id");
        let Some(source) = merge2_cases.get(text(&case, "inputsFrom")) else {
            failures.push(format!(
                "{id}: no merge2 case {}",
                text(&case, "inputsFrom")
            ));
            continue;
        };
        match k8s_apply_case(&case, source, parse) {
            Ok(true) => agreed += 1,
            Ok(false) => differences.push(format!("{id} ({})", text(&case, "sameAsKyaml"))),
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    (agreed, differences, failures)
}

fn merge2_corpus(dir: PathBuf) {
    let (passed, unsupported, failures) = run_merge2_corpus(&dir, &parse_yaml, &parse_yaml);
    eprintln!(
        "merge2: {passed} passed, {unsupported} unsupported, {} failed",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(unsupported, 2);
    assert_eq!(passed, 80);
}

fn k8s_apply_corpus(dir: PathBuf) {
    let (agreed, differences, failures) = run_k8s_apply(&dir, &parse_yaml, &parse_yaml);
    eprintln!(
        "k8s-apply: {agreed} agree with apimachinery, {} differ as recorded",
        differences.len()
    );
    for d in &differences {
        eprintln!("  differs: {d}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// This file's tests (run by tests/integration.rs): the corpus-wide counts, and each case
/// alone (`merge_conformance::merge2/<file>/<id>`, `merge_conformance::k8s-apply/<id>`).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    let mut trials = common::needing(
        module_path!(),
        || common::shared_corpus("merge"),
        &[
            ("merge2_corpus", merge2_corpus as fn(PathBuf)),
            ("k8s_apply_corpus", k8s_apply_corpus),
        ],
    );
    trials.extend(common::corpus_cases(
        module_path!(),
        common::shared_corpus("merge"),
        merge2_cases,
        |case| match run_merge2(&case, &parse_yaml) {
            Verdict::Pass => Ok(None),
            Verdict::Unsupported(why) => Ok(Some(why)),
            Verdict::Fail(why) => Err(why),
        },
    ));
    trials.extend(common::corpus_cases(
        module_path!(),
        common::shared_corpus("merge"),
        k8s_apply_cases,
        |(case, source)| k8s_apply_case(&case, &source, &parse_yaml).map(|_| None),
    ));
    trials
}

/// The merge2 files.
const MERGE2: [&str; 6] = ["scalar", "list", "element", "map", "old", "smpdirective"];

/// Every merge2 case, named `merge2/<file>/<id>`.
fn merge2_cases(dir: &Path) -> Vec<(String, Node)> {
    let mut out = Vec::new();
    for file in MERGE2 {
        for case in load_cases(&dir.join(format!("merge2/{file}.yaml")), &parse_yaml) {
            out.push((format!("merge2/{file}/{}", text(&case, "id")), case));
        }
    }
    out
}

/// Every `smp/k8s-apply.yaml` case with the merge2 case it takes its inputs from, named
/// `k8s-apply/<id>` (a case without one is reported by `k8s_apply_corpus`).
fn k8s_apply_cases(dir: &Path) -> Vec<(String, (Node, Node))> {
    let mut sources = std::collections::HashMap::new();
    for file in ["scalar", "list", "element", "map", "old"] {
        for case in load_cases(&dir.join(format!("merge2/{file}.yaml")), &parse_yaml) {
            sources.insert(text(&case, "id").to_string(), case);
        }
    }
    load_cases(&dir.join("smp/k8s-apply.yaml"), &parse_yaml)
        .into_iter()
        .filter_map(|case| {
            let source = sources.get(text(&case, "inputsFrom"))?.clone();
            Some((format!("k8s-apply/{}", text(&case, "id")), (case, source)))
        })
        .collect()
}
