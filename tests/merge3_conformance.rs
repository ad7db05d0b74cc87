//! Runs the three-way cases of the shared merge conformance corpus
//! (`../shared/conformance/merge/merge3/`, see its README) against `kbuild::merge::merge3`.
//!
//! The corpus compares kyaml's output as text (comments and styles included); kbuild's node
//! keeps neither, so results are compared as data, with mapping key order ignored. Cases
//! whose schema is written in a YAML comment are counted as unsupported.

use crate::common;

use std::path::PathBuf;

use kbuild::merge::merge3::{Merge3Options, merge3};
use kbuild::openapi::Schemas;
use kbuild::yaml::Node;

fn parse(text: &str) -> Result<Option<Node>, String> {
    let docs = kbuild::yaml::parse::parse_stream(text, "case").map_err(|e| e.to_string())?;
    Ok(docs.into_iter().next())
}

fn field<'n>(case: &'n Node, key: &str) -> &'n str {
    case.get_str(&[key]).unwrap_or("")
}

fn run_case(case: &Node, none: &Schemas) -> Result<(), String> {
    let schemas = match field(case, "schema") {
        "kubernetes" => Schemas::builtin(),
        _ => none,
    };
    let options = Merge3Options {
        schemas,
        infer_associative_lists: case.get_path(&["options", "inferAssociativeLists"])
            == Some(&Node::Bool(true)),
    };
    let origin = parse(field(case, "origin"))?;
    let update = parse(field(case, "update"))?;
    let local = parse(field(case, "local"))?;
    let expected = parse(field(case, "expected"))?;
    let got = merge3(origin.as_ref(), update.as_ref(), local.as_ref(), &options)
        .map_err(|e| e.to_string())?;
    if same(got.as_ref(), expected.as_ref()) {
        Ok(())
    } else {
        Err(format!(
            "got {}\nexpected {}",
            got.map_or("nothing".into(), |n| n.to_json().to_string()),
            expected.map_or("nothing".into(), |n| n.to_json().to_string())
        ))
    }
}

/// Data equality; an empty mapping and no document are the same (kyaml prints `{}`).
fn same(a: Option<&Node>, b: Option<&Node>) -> bool {
    let empty = Node::map();
    a.unwrap_or(&empty) == b.unwrap_or(&empty)
}

/// The corpus files.
const FILES: [&str; 5] = ["scalar", "list", "map", "element", "kustomization"];

fn merge3_corpus(dir: PathBuf) {
    let empty = Node::from(&serde_json::json!({"definitions": {}}));
    let none = Schemas::from_openapi_document(&empty, "none").expect("empty schema");
    let (mut passed, mut unsupported, mut failures) = (0, 0, Vec::new());
    for file in FILES {
        let path = dir.join(format!("{file}.yaml"));
        let text = std::fs::read_to_string(&path).expect("corpus file");
        let table = parse(&text).expect("corpus YAML").expect("a table");
        for case in table
            .get("cases")
            .and_then(Node::as_seq)
            .into_iter()
            .flatten()
        {
            let id = field(case, "id");
            if case.get("inlineSchemaComments") == Some(&Node::Bool(true)) {
                match run_case(case, &none) {
                    Ok(()) => passed += 1,
                    Err(_) => {
                        unsupported += 1;
                        eprintln!("unsupported {id}: schema given in a YAML comment");
                    }
                }
                continue;
            }
            match run_case(case, &none) {
                Ok(()) => passed += 1,
                Err(why) => failures.push(format!("{id}: {why}")),
            }
        }
    }
    eprintln!(
        "merge3: {passed} passed, {unsupported} unsupported (schema in comments), {} failed",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(passed + unsupported, 72);
    assert_eq!(passed, 68);
}

/// This file's tests (run by tests/integration.rs): the corpus-wide count, and each case
/// alone (`merge3_conformance::<file>/<id>`).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    let mut trials = common::needing(
        module_path!(),
        || common::shared_corpus("merge/merge3"),
        &[("merge3_corpus", merge3_corpus as fn(PathBuf))],
    );
    trials.extend(common::corpus_cases(
        module_path!(),
        common::shared_corpus("merge/merge3"),
        cases,
        check_case,
    ));
    trials
}

/// Every case of the corpus files, named `<file>/<id>`.
fn cases(dir: &std::path::Path) -> Vec<(String, Node)> {
    let mut out = Vec::new();
    for file in FILES {
        let path = dir.join(format!("{file}.yaml"));
        let Some(table) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| parse(&text).ok().flatten())
        else {
            continue;
        };
        for case in table.get("cases").and_then(Node::as_seq).into_iter().flatten() {
            out.push((format!("{file}/{}", field(case, "id")), case.clone()));
        }
    }
    out
}

/// One case; a case whose schema is in YAML comments and fails is unsupported (ignored).
fn check_case(case: Node) -> Result<Option<String>, String> {
    let empty = Node::from(&serde_json::json!({"definitions": {}}));
    let none = Schemas::from_openapi_document(&empty, "none").map_err(|e| e.to_string())?;
    match run_case(&case, &none) {
        Ok(()) => Ok(None),
        Err(_) if case.get("inlineSchemaComments") == Some(&Node::Bool(true)) => {
            Ok(Some("schema given in a YAML comment".into()))
        }
        Err(why) => Err(why),
    }
}
