//! ValueAddTransformer unit tests.

use super::file_path::*;
use super::path::*;
use super::*;
use crate::yaml::parse::parse_resource_stream;

fn resources(text: &str) -> ResMap {
    let mut rm = ResMap::new();
    let mut all = Vec::new();
    for (node, nulls) in parse_resource_stream(text, "test").expect("yaml") {
        let mut r = Resource::new(node).expect("resource");
        r.empty_nulls = nulls;
        all.push(r);
    }
    rm.append_all(all).expect("distinct ids");
    rm
}

fn config(text: &str) -> Result<ValueAdd> {
    let node = crate::yaml::parse::parse_document(text, "config").expect("yaml");
    let c: Config = crate::yaml::de::from_node_lenient(&node).expect("decodes");
    c.resolve(Path::new("/work/overlays/prod"), &mut |p| {
        Err(Error::msg(format!("no file {p}")))
    })
}

fn run(res: &str, cfg: &str) -> Result<Vec<Node>> {
    let mut rm = resources(res);
    apply(&mut rm, &config(cfg)?)?;
    Ok(rm.resources.into_iter().map(Resource::into_node).collect())
}

fn get<'n>(n: &'n Node, path: &[&str]) -> Option<&'n Node> {
    n.get_path(path)
}

const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  path: a/nice/warm/pie\n  abs: /raw\n  quoted: \"abc\"\n  empty: \"\"\n  blank:\n  nul: null\n  num: 5\n  list: [p, q, \"80\"]\n  map: {}\n";

/// Examples of kustomize's doc comment and of its tests, plus kubectl runs.
#[test]
fn insert_path_part_like_kustomize() {
    let cases = [
        ("", 0, "PEACH"),
        ("", 5, "PEACH"),
        ("/", 0, "/PEACH"),
        ("/", 3, "/PEACH"),
        ("pie", 0, "PEACH/pie"),
        ("/pie", 0, "/PEACH/pie"),
        ("raw", 1, "raw/PEACH"),
        ("/raw", 1, "/raw/PEACH"),
        ("/raw", 9999, "/raw/PEACH"),
        ("a/nice/warm/pie", 3, "a/nice/warm/PEACH/pie"),
        ("/a/nice/warm/pie", 3, "/a/nice/warm/PEACH/pie"),
        ("a/nice/warm/pie", 99, "a/nice/warm/pie/PEACH"),
        ("/var/lib/data", 0, "/PEACH/var/lib/data"),
        ("/data/x", 98, "/data/x/PEACH"),
        // filepath.Join cleans the result.
        ("a/./b//c/", 1, "a/PEACH/b/c"),
        ("a/../b", 0, "PEACH/b"),
        ("x/", 9, "x/PEACH"),
        ("null", 0, "PEACH/null"),
    ];
    for (path, pos, want) in cases {
        assert_eq!(
            insert_path_part(path, pos, "PEACH"),
            want,
            "{path} at {pos}"
        );
    }
    assert_eq!(insert_path_part("a/b", 1, ""), "a/b");
}

#[test]
fn path_split_like_kustomize() {
    assert_eq!(path_split("a/b"), ["a", "b"]);
    assert_eq!(path_split("/a"), ["", "a"]);
    assert_eq!(path_split("/"), [""]);
    assert_eq!(path_split("a/"), ["a", ""]);
    assert_eq!(path_split("a//b"), ["a", "", "b"]);
    assert!(path_split("").is_empty());
}

#[test]
fn parses_paths_like_kyaml() {
    let p = FieldPath::parse(r" spec / a\/b //[name=x]/0/-/*/[k]/-2/[=v] ");
    assert_eq!(
        p.steps,
        [
            Step::Field("spec".into()),
            Step::Field("a/b".into()),
            Step::Entry {
                key: "name".into(),
                value: "x".into()
            },
            Step::Index(0),
            Step::Last,
            Step::Wildcard,
            Step::BadEntry,
            Step::Negative(-2),
            Step::Entry {
                key: String::new(),
                value: "v".into()
            },
        ]
    );
}

#[test]
fn config_defaults_and_errors() {
    let va = config("targets: [{fieldPath: a}]").expect("ok");
    assert_eq!(va.value, "prod");
    assert_eq!(
        config("value: '  x '\ntargets: [{fieldPath: a}]")
            .map(|v| v.value)
            .ok(),
        Some("x".into())
    );
    assert_eq!(
        config("value: 1.50\ntargets: [{fieldPath: a}]")
            .map(|v| v.value)
            .ok(),
        Some("1.5".into())
    );
    assert_eq!(
        config("value: 123\ntargets: [{fieldPath: a}]")
            .map(|v| v.value)
            .ok(),
        Some("123".into())
    );
    let err = |t: &str| config(t).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err("value: x").ends_with("config: must specify at least one target"));
    assert!(err("targets: [{selector: {kind: A}}]").ends_with("config: fieldPath cannot be empty"));
    assert!(
        err("targets: [{fieldPath: a, filePathPosition: -1}]")
            .ends_with("config: value of FilePathPosition (-1) cannot be negative")
    );
    let root = config("targets: [{fieldPath: a}]");
    assert!(root.is_ok());
    let c: Config = crate::yaml::de::from_node_lenient(
        &crate::yaml::parse::parse_document("targets: [{fieldPath: a}]", "c").expect("yaml"),
    )
    .expect("decodes");
    let va = c
        .resolve(Path::new("/"), &mut |_| Ok(String::new()))
        .expect("ok");
    assert_eq!(va.value, "/");
}

#[test]
fn target_file_targets_are_appended() {
    let node = crate::yaml::parse::parse_document(
        "value: v\ntargets: [{fieldPath: a}]\ntargetFilePath: t.yaml",
        "c",
    )
    .expect("yaml");
    let c: Config = crate::yaml::de::from_node_lenient(&node).expect("decodes");
    let va = c
        .resolve(Path::new("/x"), &mut |p| {
            assert_eq!(p, "t.yaml");
            Ok("targets:\n- fieldPath: b\n  filePathPosition: 2\n".into())
        })
        .expect("ok");
    let paths: Vec<&str> = va.targets.iter().map(|t| t.field_path.0.as_str()).collect();
    assert_eq!(paths, ["a", "b"]);
    assert_eq!(va.targets[1].file_path_position, Position(2));
}

#[test]
fn sets_creates_and_inserts() {
    let out = run(
        CM,
        "value: PEACH\ntargets:\n- fieldPath: data/path\n  filePathPosition: 4\n- fieldPath: data/abs\n  filePathPosition: 1\n- fieldPath: metadata/labels/app\n- fieldPath: data/blank\n  filePathPosition: 2\n- fieldPath: data/nul\n  filePathPosition: 1\n- fieldPath: data/num\n  filePathPosition: 2\n",
    )
    .expect("runs");
    let n = &out[0];
    let s = |p: &[&str]| get(n, p).cloned();
    assert_eq!(
        s(&["data", "path"]),
        Some(Node::text("a/nice/warm/PEACH/pie"))
    );
    assert_eq!(s(&["data", "abs"]), Some(Node::text("/PEACH/raw")));
    assert_eq!(s(&["metadata", "labels", "app"]), Some(Node::text("PEACH")));
    // `blank:` has the text "", an explicit null "null".
    assert_eq!(s(&["data", "blank"]), Some(Node::text("PEACH")));
    assert_eq!(s(&["data", "nul"]), Some(Node::text("PEACH/null")));
    assert_eq!(s(&["data", "num"]), Some(Node::text("5/PEACH")));
}

#[test]
fn new_values_resolve_unless_the_old_one_was_quoted() {
    let out = run(
        CM,
        "value: '123'\ntargets:\n- fieldPath: data/path\n- fieldPath: data/quoted\n- fieldPath: data/empty\n- fieldPath: data/new\n- fieldPath: data/list/[=80]\n",
    )
    .expect("runs");
    let n = &out[0];
    // `a/nice/warm/pie` and `abc` could both be plain: kbuild takes them
    // as plain (kustomize would keep `"abc"` a string).
    assert_eq!(get(n, &["data", "path"]), Some(&Node::Int(123)));
    assert_eq!(get(n, &["data", "quoted"]), Some(&Node::Int(123)));
    assert_eq!(get(n, &["data", "empty"]), Some(&Node::text("123")));
    assert_eq!(get(n, &["data", "new"]), Some(&Node::Int(123)));
    assert_eq!(
        get(n, &["data", "list"]),
        Some(&Node::Seq(vec![
            Node::text("p"),
            Node::text("q"),
            Node::text("123")
        ]))
    );
}

#[test]
fn list_steps() {
    let out = run(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  ports:\n  - {port: 80, name: a}\n  - {port: 81, name: b}\n  args: [p, q]\n",
        "value: V\ntargets:\n- fieldPath: data/ports/[port=81]/name\n- fieldPath: data/ports/[port=82]/name\n- fieldPath: data/args/-\n- fieldPath: data/args/+0\n- fieldPath: data/args/7\n- fieldPath: data/new/0/x\n- fieldPath: data/made/[=80]\n",
    )
    .expect("runs");
    let want = crate::yaml::parse::parse_resource_stream(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  ports:\n  - {port: 80, name: a}\n  - {port: 81, name: V}\n  - {port: 82, name: V}\n  args: [V, V]\n  new: []\n  made: [V]\n",
        "want",
    )
    .expect("yaml");
    assert_eq!(out[0], want[0].0);
}

#[test]
fn nulls_stop_the_walk() {
    let out = run(
        CM,
        "value: V\ntargets:\n- fieldPath: data/nul/x\n- fieldPath: data/nul/[name=a]/b\n",
    )
    .expect("runs");
    assert_eq!(get(&out[0], &["data", "nul"]), Some(&Node::Null));
    let err = run(
        CM,
        "value: V\ntargets:\n- fieldPath: data/nul/x\n  filePathPosition: 1\n",
    )
    .expect_err("nil leaf with a position");
    assert!(err.to_string().contains("nil pointer"), "{err}");
    // The walk goes on through the unseen element, and fails on it.
    let err = run(CM, "value: V\ntargets:\n- fieldPath: data/nul/[name=a]/0\n")
        .expect_err("index on a mapping");
    assert!(err.to_string().contains("expected a list"), "{err}");
}

#[test]
fn walk_errors() {
    let err = |path: &str| {
        run(CM, &format!("value: V\ntargets:\n- fieldPath: '{path}'\n"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(err("data/map").contains("expected a scalar"));
    assert!(err("data/list").contains("expected a scalar"));
    assert!(err("/").contains("found a mapping"));
    assert!(err("data/path/x").contains("expected a mapping"));
    assert!(err("data/*").contains("wildcard"));
    assert!(err("data/list/-1").contains("cannot be negative"));
    assert!(err("data/list/[x]").contains("fieldName=fieldValue"));
    assert!(err("data/map/-").contains("expected a list"));
    assert!(err("data/list/[=q]/-").contains("expected a list"));
    let empty = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  l: []\n";
    assert!(
        run(empty, "value: V\ntargets:\n- fieldPath: data/l/-\n")
            .err()
            .is_some_and(|e| e.to_string().contains("index out of range"))
    );
}

const NS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: old\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\nsubjects:\n- {kind: ServiceAccount, name: default}\n- {kind: User, name: default}\n- {kind: ServiceAccount, name: other}\n";

#[test]
fn namespace_route() {
    let mut rm = resources(NS);
    apply(
        &mut rm,
        &config("value: '5'\ntargets: [{fieldPath: metadata/namespace}]").expect("cfg"),
    )
    .expect("runs");
    let ns = |i: usize| get(rm.resources[i].node(), &["metadata", "namespace"]).cloned();
    // Always a string; the Namespace is neither moved nor renamed.
    assert_eq!(ns(0), Some(Node::text("5")));
    assert_eq!(ns(1), None);
    assert_eq!(
        get(rm.resources[1].node(), &["metadata", "name"]),
        Some(&Node::text("ns1"))
    );
    assert_eq!(ns(2), Some(Node::text("5")));
    let subjects = get(rm.resources[2].node(), &["subjects"])
        .and_then(Node::as_seq)
        .expect("list");
    let sns: Vec<Option<&str>> = subjects.iter().map(|s| s.get_str(&["namespace"])).collect();
    assert_eq!(sns, [Some("5"), Some("5"), None]);
    // No previous id: the new namespace is the original one.
    assert!(rm.resources[0].prev_ids.is_empty());
    assert_eq!(rm.resources[0].orig_id().namespace, "5");
}

#[test]
fn leading_slash_takes_the_generic_walk() {
    let out = run(NS, "value: V\ntargets: [{fieldPath: /metadata/namespace}]").expect("runs");
    // Even the cluster-scoped Namespace gets one.
    assert_eq!(
        get(&out[1], &["metadata", "namespace"]),
        Some(&Node::text("V"))
    );
}

#[test]
fn selectors_and_id_conflicts() {
    let two = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: a\n  labels: {tier: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: b\n";
    let out = run(
        two,
        "value: V\ntargets:\n- selector: {labelSelector: tier=x}\n  fieldPath: data/k\n- selector: {namespace: b}\n  fieldPath: data/j\n",
    )
    .expect("runs");
    assert_eq!(get(&out[0], &["data", "k"]), Some(&Node::text("V")));
    assert_eq!(get(&out[0], &["data", "j"]), None);
    assert_eq!(get(&out[1], &["data", "j"]), Some(&Node::text("V")));
    let err =
        run(two, "value: V\ntargets: [{fieldPath: metadata/namespace}]").expect_err("conflict");
    assert!(
        err.to_string().contains("ConfigMap.v1.[noGrp]/cm.V"),
        "{err}"
    );
    assert!(
        run(
            two,
            "value: V\ntargets: [{fieldPath: x, selector: {name: '('}}]"
        )
        .is_err()
    );
}

#[test]
fn plain_text_guess() {
    for s in ["abc", "a/b", "-x", "a:b", "x-y.z"] {
        assert!(could_be_plain(s), "{s}");
    }
    for s in [
        "", " a", "a ", "123", "true", "null", "a: b", "a #c", "[x", "*x", "-", "- x", "a\nb",
        "'q'",
    ] {
        assert!(!could_be_plain(s), "{s:?}");
    }
}
