//! Runs the strategic-merge-patch cases of the shared merge conformance corpus
//! (`../shared/conformance/merge/smp/`, see its README) against
//! `kbuild::merge::strategic`, apimachinery's semantics (what `kubectl apply` does):
//! the two- and three-way cases (`create`, `raw`, `raw-extension`, `unknown-field`) and the
//! `apply` cases, with the corpus's own test schema (`smp/schema.yaml`).

use crate::common;

use std::path::PathBuf;

use kbuild::Error;
use kbuild::merge::strategic::{
    PatchSchema, Strategy, apply_patch, create_three_way_patch, create_two_way_patch,
    three_way_conflicts,
};
use kbuild::yaml::Node;

/// A position in `smp/schema.yaml`: an object type, or a field of one.
#[derive(Clone, Copy)]
struct TestSchema<'a> {
    types: &'a Node,
    /// The object type whose fields `field` looks up (`None`: no fields known).
    object: Option<&'a str>,
    /// The field definition this position was reached by.
    def: Option<&'a Node>,
}

impl<'a> TestSchema<'a> {
    fn root(types: &'a Node, name: &'a str) -> Self {
        TestSchema {
            types,
            object: Some(name),
            def: None,
        }
    }
}

impl PatchSchema for TestSchema<'_> {
    fn field(&self, name: &str) -> Result<Option<Self>, Error> {
        let Some(object) = self.object else {
            return Ok(None);
        };
        let Some(def) = self.types.get_path(&[object, "fields", name]) else {
            return Err(Error::msg(format!(
                "unable to find api field in struct {object} for the json field {name:?}"
            )));
        };
        let object = match def.get_str(&["type"]) {
            Some("map") => def.get_str(&["ref"]),
            Some("list") => def.get_str(&["items"]).filter(|i| *i != "primitive"),
            _ => None,
        };
        Ok(Some(TestSchema {
            types: self.types,
            object,
            def: Some(def),
        }))
    }

    fn items(&self) -> Option<Self> {
        Some(*self)
    }

    fn strategy(&self) -> Strategy {
        let text = self
            .def
            .and_then(|d| d.get_str(&["patchStrategy"]))
            .unwrap_or("");
        let mut s = Strategy::default();
        for part in text.split(',') {
            match part {
                "merge" => s.merge = true,
                "replace" => s.replace = true,
                "retainKeys" => s.retain_keys = true,
                _ => {}
            }
        }
        s
    }

    fn merge_key(&self) -> Option<&str> {
        self.def.and_then(|d| d.get_str(&["patchMergeKey"]))
    }
}

fn parse(text: &str, json: bool) -> Result<Node, String> {
    if json {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("invalid JSON document: {e}"))?;
        return Ok(Node::from(&v));
    }
    let docs = kbuild::yaml::parse::parse_stream(text, "case").map_err(|e| e.to_string())?;
    Ok(docs.into_iter().next().unwrap_or_else(Node::map))
}

fn text<'n>(case: &'n Node, path: &[&str]) -> Option<&'n str> {
    case.get_str(path)
}

/// JSON data equality (numbers by value).
fn same(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Int(i), Node::Float(f)) | (Node::Float(f), Node::Int(i)) => *i as f64 == *f,
        (Node::Map(x), Node::Map(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Node::Seq(x), Node::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

fn go_fmt(n: &Node) -> String {
    match n {
        Node::Null => "<nil>".into(),
        other => other
            .scalar_string()
            .unwrap_or_else(|| other.to_json().to_string()),
    }
}

/// The corpus's `normalized` comparison: merging lists sorted by merge key, scalar merging
/// lists deduplicated and sorted.
fn normalize(node: &Node, schema: Option<TestSchema>) -> Node {
    let Node::Map(m) = node else {
        return node.clone();
    };
    let mut out = kbuild::yaml::Map::new();
    for (k, v) in m {
        let field = schema.and_then(|s| s.field(k).ok().flatten());
        let v = if k == "$retainKeys" || k.starts_with("$deleteFromPrimitiveList/") {
            let mut items = v.as_seq().cloned().unwrap_or_default();
            items.sort_by_key(go_fmt);
            Node::Seq(items)
        } else if k.starts_with("$setElementOrder/") || k == "$patch" {
            v.clone()
        } else if let Node::Map(_) = v {
            normalize(v, field)
        } else if let (Node::Seq(items), Some(f)) = (v, field) {
            if f.strategy().merge && !items.is_empty() {
                if let Node::Map(_) = items[0] {
                    let key = f.merge_key().unwrap_or("").to_string();
                    let mut sorted: Vec<Node> =
                        items.iter().map(|i| normalize(i, Some(f))).collect();
                    sorted.sort_by_key(|i| i.get(&key).map(go_fmt).unwrap_or_default());
                    Node::Seq(sorted)
                } else {
                    let mut seen: Vec<Node> = Vec::new();
                    for i in items {
                        if !seen.contains(i) {
                            seen.push(i.clone());
                        }
                    }
                    seen.sort_by_key(go_fmt);
                    Node::Seq(seen)
                }
            } else {
                v.clone()
            }
        } else {
            v.clone()
        };
        out.insert(k.clone(), v);
    }
    Node::Map(out)
}

struct Case<'a> {
    case: &'a Node,
    schema: TestSchema<'a>,
    json: bool,
    normalized: bool,
}

impl Case<'_> {
    fn doc(&self, key: &str) -> Result<Node, String> {
        match text(self.case, &[key]) {
            Some(t) => parse(t, self.json),
            None => Ok(Node::map()),
        }
    }

    fn check(&self, got: &Node, expected_text: &str) -> Result<(), String> {
        let expected = parse(expected_text, self.json)?;
        let (g, e) = if self.normalized {
            (
                normalize(got, Some(self.schema)),
                normalize(&expected, Some(self.schema)),
            )
        } else {
            (got.clone(), expected)
        };
        if same(&g, &e) {
            Ok(())
        } else {
            Err(format!("got {}, want {}", g.to_json(), e.to_json()))
        }
    }

    /// Checks an expected error of a step; `Ok(true)` when the step was expected to fail.
    fn expect_error(&self, step: &Node, result: &Result<Node, String>) -> Result<bool, String> {
        if step.get("expectError") != Some(&Node::Bool(true)) {
            return Ok(false);
        }
        let want = text(step, &["errorContains"]).unwrap_or("");
        let alt = text(step, &["alternativeErrorContains"]);
        match result {
            Err(e) if e.contains(want) || alt.is_some_and(|a| e.contains(a)) => Ok(true),
            other => Err(format!("want error containing {want:?}, got {other:?}")),
        }
    }

    fn two_way(&self) -> Result<(), String> {
        let Some(step) = self.case.get_path(&["expected", "twoWay"]) else {
            return Ok(());
        };
        let run = || -> Result<Node, String> {
            let original = self.doc("original")?;
            let modified = self.doc("modified")?;
            create_two_way_patch(&original, &modified, Some(self.schema)).map_err(|e| e.to_string())
        };
        let patch = run();
        if self.expect_error(step, &patch)? {
            return Ok(());
        }
        let patch = patch?;
        self.check(&patch, text(step, &["patch"]).unwrap_or("{}"))
            .map_err(|e| format!("two-way patch: {e}"))?;
        let original = self.doc("original")?;
        let result =
            apply_patch(&original, &patch, Some(self.schema)).map_err(|e| e.to_string())?;
        self.check(&result, text(step, &["result"]).unwrap_or("{}"))
            .map_err(|e| format!("two-way result: {e}"))
    }

    fn three_way(&self) -> Result<(), String> {
        let Some(step) = self.case.get_path(&["expected", "threeWay"]) else {
            return Ok(());
        };
        let docs = || -> Result<(Node, Node, Node), String> {
            Ok((
                self.doc("original")?,
                self.doc("modified")?,
                self.doc("current")?,
            ))
        };
        let patch = docs().and_then(|(o, m, c)| {
            create_three_way_patch(&o, &m, &c, Some(self.schema)).map_err(|e| e.to_string())
        });
        if self.expect_error(step, &patch)? {
            return Ok(());
        }
        let patch = patch?;
        let (original, _, current) = docs()?;
        self.check(&patch, text(step, &["patch"]).unwrap_or("{}"))
            .map_err(|e| format!("three-way patch: {e}"))?;
        let conflict = three_way_conflicts(&original, &current, &patch, Some(self.schema))
            .map_err(|e| format!("conflict check: {e}"))?;
        let want_conflict = step.get("conflict") == Some(&Node::Bool(true));
        if conflict != want_conflict {
            return Err(format!("conflict {conflict}, want {want_conflict}"));
        }
        let result = apply_patch(&current, &patch, Some(self.schema)).map_err(|e| e.to_string())?;
        self.check(&result, text(step, &["result"]).unwrap_or("{}"))
            .map_err(|e| format!("three-way result: {e}"))
    }

    fn apply(&self) -> Result<(), String> {
        let result = self.doc("original").and_then(|o| {
            let p = self.doc("patch")?;
            apply_patch(&o, &p, Some(self.schema)).map_err(|e| e.to_string())
        });
        if self.expect_error(self.case, &result)? {
            return Ok(());
        }
        self.check(&result?, text(self.case, &["expected"]).unwrap_or("{}"))
    }
}

#[derive(Default)]
struct Tally {
    passed: usize,
    failures: Vec<String>,
}

impl Tally {
    fn record(&mut self, id: &str, result: Result<(), String>) {
        match result {
            Ok(()) => self.passed += 1,
            Err(e) => self.failures.push(format!("{id}: {e}")),
        }
    }
}

fn smp_corpus(dir: PathBuf) {
    let schema_text = std::fs::read_to_string(dir.join("schema.yaml")).expect("schema.yaml");
    let schema_doc = parse(&schema_text, false).expect("schema YAML");
    let types = schema_doc.get("types").expect("types");
    let (mut three, mut two, mut apply) = (Tally::default(), Tally::default(), Tally::default());
    for file in SMP {
        let text_ = std::fs::read_to_string(dir.join(format!("{file}.yaml"))).expect("corpus file");
        let table = parse(&text_, false).expect("corpus YAML");
        for case in table
            .get("cases")
            .and_then(Node::as_seq)
            .into_iter()
            .flatten()
        {
            let id = text(case, &["id"]).unwrap_or("?");
            let root = match text(case, &["schema"]) {
                Some("mergeItem") => "mergeItem",
                _ => continue,
            };
            let c = Case {
                case,
                schema: TestSchema::root(types, root),
                json: text(case, &["inputFormat"]) == Some("json"),
                normalized: text(case, &["compare"]) == Some("normalized"),
            };
            match text(case, &["operation"]) {
                Some("twoWayAndThreeWay") => {
                    three.record(id, c.three_way());
                    two.record(id, c.two_way());
                }
                Some("apply") => apply.record(id, c.apply()),
                _ => {}
            }
        }
    }
    eprintln!(
        "smp three-way: {} passed, {} failed; two-way: {} passed, {} failed; apply: {} passed, {} failed",
        three.passed,
        three.failures.len(),
        two.passed,
        two.failures.len(),
        apply.passed,
        apply.failures.len()
    );
    let all: Vec<&String> = three
        .failures
        .iter()
        .chain(&two.failures)
        .chain(&apply.failures)
        .collect();
    for f in &all {
        eprintln!("FAIL {f}");
    }
    assert!(all.is_empty(), "{} failures", all.len());
    assert_eq!((three.passed, two.passed, apply.passed), (133, 133, 30));
}

/// `smp/k8s-apply.yaml`: merge2 inputs on real kinds applied by apimachinery (recorded with
/// `kubectl patch --local`), run with kbuild's built-in schema.
fn k8s_apply_corpus(dir: PathBuf) {
    let merge_dir = dir.join("../merge2");
    let mut sources = std::collections::HashMap::new();
    for file in ["scalar", "list", "element", "map", "old"] {
        let text_ =
            std::fs::read_to_string(merge_dir.join(format!("{file}.yaml"))).expect("merge2 file");
        let table = parse(&text_, false).expect("YAML");
        for case in table
            .get("cases")
            .and_then(Node::as_seq)
            .into_iter()
            .flatten()
        {
            sources.insert(text(case, &["id"]).unwrap_or("").to_string(), case.clone());
        }
    }
    let text_ = std::fs::read_to_string(dir.join("k8s-apply.yaml")).expect("k8s-apply.yaml");
    let table = parse(&text_, false).expect("YAML");
    let mut tally = Tally::default();
    for case in table
        .get("cases")
        .and_then(Node::as_seq)
        .into_iter()
        .flatten()
    {
        let id = text(case, &["id"]).unwrap_or("?");
        let Some(source) = sources.get(text(case, &["inputsFrom"]).unwrap_or("")) else {
            tally.record(id, Err("inputs not found".into()));
            continue;
        };
        let result = (|| -> Result<(), String> {
            let original = parse(text(source, &["dest"]).unwrap_or(""), false)?;
            let patch = parse(text(source, &["patch"]).unwrap_or(""), false)?;
            let schema = original
                .get_str(&["apiVersion"])
                .zip(original.get_str(&["kind"]))
                .and_then(|(a, k)| kbuild::openapi::Schemas::builtin().lookup_api_version(a, k));
            let got = apply_patch(&original, &patch, schema).map_err(|e| e.to_string());
            if case.get("expectError") == Some(&Node::Bool(true)) {
                let want = text(case, &["errorContains"]).unwrap_or("");
                return match got {
                    Err(e) if e.contains(want) => Ok(()),
                    other => Err(format!("want error {want:?}, got {other:?}")),
                };
            }
            let mut got = got?;
            let mut want = parse(text(case, &["expected"]).unwrap_or(""), false)?;
            for path in source
                .get("unorderedPaths")
                .and_then(Node::as_seq)
                .into_iter()
                .flatten()
            {
                let path: Vec<&str> = path.as_str().unwrap_or("").split('.').collect();
                for n in [&mut got, &mut want] {
                    if let Some(Node::Seq(items)) = n.get_path_mut(&path) {
                        items.sort_by_key(|i| i.get_str(&["name"]).unwrap_or("").to_string());
                    }
                }
            }
            if same(&got, &want) {
                Ok(())
            } else {
                Err(format!("got {}, want {}", got.to_json(), want.to_json()))
            }
        })();
        tally.record(id, result);
    }
    eprintln!(
        "k8s-apply: {} passed, {} failed",
        tally.passed,
        tally.failures.len()
    );
    for f in &tally.failures {
        eprintln!("FAIL {f}");
    }
    assert!(tally.failures.is_empty());
}

/// This file's tests (run by tests/integration.rs): the corpus-wide counts, and each
/// `mergeItem` case alone (`smp_conformance::smp/<file>/<id>`, its three-way and two-way
/// steps or its apply).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    let mut trials = common::needing(
        module_path!(),
        || common::shared_corpus("merge/smp"),
        &[
            ("smp_corpus", smp_corpus as fn(PathBuf)),
            ("k8s_apply_corpus", k8s_apply_corpus as fn(PathBuf)),
        ],
    );
    trials.extend(common::corpus_cases(
        module_path!(),
        common::shared_corpus("merge/smp"),
        smp_cases,
        |(types, case)| smp_case(&types, &case).map(|()| None),
    ));
    trials
}

/// The corpus files of `smp_corpus`.
const SMP: [&str; 5] = ["create", "raw", "raw-extension", "unknown-field", "apply"];

/// Every `mergeItem` case, with the schema's types, named `smp/<file>/<id>`.
fn smp_cases(dir: &std::path::Path) -> Vec<(String, (std::sync::Arc<Node>, Node))> {
    let Some(types) = std::fs::read_to_string(dir.join("schema.yaml"))
        .ok()
        .and_then(|t| parse(&t, false).ok())
        .and_then(|doc| doc.get("types").cloned())
    else {
        return Vec::new();
    };
    let types = std::sync::Arc::new(types);
    let mut out = Vec::new();
    for file in SMP {
        let Some(table) = std::fs::read_to_string(dir.join(format!("{file}.yaml")))
            .ok()
            .and_then(|t| parse(&t, false).ok())
        else {
            continue;
        };
        for case in table.get("cases").and_then(Node::as_seq).into_iter().flatten() {
            if text(case, &["schema"]) == Some("mergeItem") {
                let id = text(case, &["id"]).unwrap_or("?");
                out.push((format!("smp/{file}/{id}"), (types.clone(), case.clone())));
            }
        }
    }
    out
}

/// One `mergeItem` case: its three-way and two-way steps, or its apply.
fn smp_case(types: &Node, case: &Node) -> Result<(), String> {
    let c = Case {
        case,
        schema: TestSchema::root(types, "mergeItem"),
        json: text(case, &["inputFormat"]) == Some("json"),
        normalized: text(case, &["compare"]) == Some("normalized"),
    };
    match text(case, &["operation"]) {
        Some("twoWayAndThreeWay") => {
            c.three_way().map_err(|e| format!("three-way: {e}"))?;
            c.two_way().map_err(|e| format!("two-way: {e}"))
        }
        Some("apply") => c.apply(),
        _ => Ok(()),
    }
}
