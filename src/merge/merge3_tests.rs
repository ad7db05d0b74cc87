//! One test per rule of the three-way merge (see the module documentation).

use super::*;

fn y(text: &str) -> Option<Node> {
    crate::yaml::parse::parse_stream(text, "test")
        .expect("test YAML")
        .into_iter()
        .next()
}

fn run(original: &str, updated: &str, dest: &str) -> Option<Node> {
    merge3(
        y(original).as_ref(),
        y(updated).as_ref(),
        y(dest).as_ref(),
        &Merge3Options::cli(),
    )
    .expect("merge")
}

fn check(original: &str, updated: &str, dest: &str, expected: &str) {
    assert_eq!(
        run(original, updated, dest),
        y(expected),
        "\n{original}\n{updated}\n{dest}"
    );
}

#[test]
fn scalar_unchanged_upstream_keeps_local_value() {
    check("a: 1\n", "a: 1\n", "a: 2\n", "a: 2\n");
}

#[test]
fn scalar_changed_upstream_takes_updated_value() {
    check("a: 1\n", "a: 3\n", "a: 2\n", "a: 3\n");
}

#[test]
fn scalar_added_upstream_is_added() {
    check("b: 0\n", "b: 0\na: 1\n", "b: 0\n", "b: 0\na: 1\n");
}

#[test]
fn scalar_deleted_upstream_is_deleted_even_if_changed_locally() {
    check("a: 1\nb: 0\n", "b: 0\n", "a: 2\nb: 0\n", "b: 0\n");
}

#[test]
fn explicit_null_in_updated_or_dest_clears() {
    check("b: 0\n", "b: 0\na: null\n", "a: 2\nb: 0\n", "b: 0\n");
    check("a: 1\nb: 0\n", "a: 3\nb: 0\n", "a: null\nb: 0\n", "b: 0\n");
}

#[test]
fn plain_list_is_a_value() {
    check(
        "l: [1, 2]\n",
        "l: [1, 2]\n",
        "l: [1, 2, 3]\n",
        "l: [1, 2, 3]\n",
    );
    check("l: [1, 2]\n", "l: [2]\n", "l: [1, 2, 3]\n", "l: [2]\n");
}

#[test]
fn map_field_only_in_dest_is_kept() {
    check(
        "m: {a: 1}\n",
        "m: {a: 1}\n",
        "m: {a: 1, mine: x}\n",
        "m: {a: 1, mine: x}\n",
    );
}

#[test]
fn map_missing_from_dest_gets_the_delta() {
    check(
        "m: {a: 1}\nk: 0\n",
        "m: {a: 1, b: 2}\nk: 0\n",
        "k: 0\n",
        "m: {b: 2}\nk: 0\n",
    );
}

#[test]
fn map_deleted_locally_and_unchanged_upstream_stays_deleted() {
    check("m: {a: 1}\nk: 0\n", "m: {a: 1}\nk: 0\n", "k: 0\n", "k: 0\n");
}

#[test]
fn map_new_upstream_is_added_whole() {
    check("k: 0\n", "k: 0\nm: {a: 1}\n", "k: 0\n", "k: 0\nm: {a: 1}\n");
}

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n";

fn containers(list: &str) -> String {
    format!("{DEPLOYMENT}spec:\n  template:\n    spec:\n      containers: {list}\n")
}

#[test]
fn schema_merge_key_pairs_elements() {
    check(
        &containers("[{name: a, image: a:1}]"),
        &containers("[{name: a, image: a:2}]"),
        &containers("[{name: b, image: b:1}, {name: a, image: a:1, args: [x]}]"),
        &containers("[{name: b, image: b:1}, {name: a, image: a:2, args: [x]}]"),
    );
}

#[test]
fn element_deleted_upstream_is_deleted() {
    check(
        &containers("[{name: a, image: a:1}, {name: b, image: b:1}]"),
        &containers("[{name: a, image: a:1}]"),
        &containers("[{name: a, image: a:1}, {name: b, image: b:1, args: [x]}, {name: c}]"),
        &containers("[{name: a, image: a:1}, {name: c}]"),
    );
}

#[test]
fn element_new_upstream_is_appended() {
    check(
        &containers("[{name: a}]"),
        &containers("[{name: a}, {name: n, image: n:1}]"),
        &containers("[{name: z}, {name: a}]"),
        &containers("[{name: z}, {name: a}, {name: n, image: n:1}]"),
    );
}

#[test]
fn element_missing_from_dest_gets_the_delta_with_its_key() {
    check(
        &containers("[{name: a, image: a:1}, {name: b}]"),
        &containers("[{name: a, image: a:1, args: [x]}, {name: b}]"),
        &containers("[{name: b}]"),
        &containers("[{name: b}, {name: a, args: [x]}]"),
    );
}

#[test]
fn element_deleted_locally_and_unchanged_upstream_stays_deleted() {
    check(
        &containers("[{name: a, image: a:1}, {name: b}]"),
        &containers("[{name: a, image: a:1}, {name: b}]"),
        &containers("[{name: b}]"),
        &containers("[{name: b}]"),
    );
}

#[test]
fn associative_list_removed_upstream_is_cleared() {
    check(
        &containers("[{name: a}]"),
        &format!("{DEPLOYMENT}spec:\n  template:\n    spec: {{}}\n"),
        &containers("[{name: a}, {name: mine}]"),
        &format!("{DEPLOYMENT}spec:\n  template:\n    spec: {{}}\n"),
    );
}

#[test]
fn without_schema_inferred_keys_pair_elements() {
    // A custom resource: no schema, so kyaml's associative keys are tried in order.
    let cr =
        |mounts: &str| format!("apiVersion: x.io/v1\nkind: Thing\nspec:\n  mounts: {mounts}\n");
    check(
        &cr("[{mountPath: /a, ro: true}]"),
        &cr("[{mountPath: /a, ro: false}]"),
        &cr("[{mountPath: /b}, {mountPath: /a, ro: true}]"),
        &cr("[{mountPath: /b}, {mountPath: /a, ro: false}]"),
    );
}

#[test]
fn list_map_keys_pair_ports_by_port_and_protocol() {
    let ports = |list: &str| {
        format!(
            "{DEPLOYMENT}spec:\n  template:\n    spec:\n      containers:\n      - name: c\n        ports: {list}\n"
        )
    };
    check(
        &ports("[{containerPort: 80, protocol: TCP, name: a}]"),
        &ports("[{containerPort: 80, protocol: TCP, name: b}]"),
        &ports("[{containerPort: 80, protocol: UDP}, {containerPort: 80, protocol: TCP, name: a}]"),
        &ports("[{containerPort: 80, protocol: UDP}, {containerPort: 80, protocol: TCP, name: b}]"),
    );
}

#[test]
fn kustomization_generators_merge_by_name() {
    let k = |gens: &str| {
        format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nconfigMapGenerator: {gens}\n"
        )
    };
    check(
        &k("[{name: a, literals: [x=1]}]"),
        &k("[{name: a, literals: [x=2]}]"),
        &k("[{name: mine}, {name: a, literals: [x=1]}]"),
        &k("[{name: mine}, {name: a, literals: [x=2]}]"),
    );
}

#[test]
fn kind_change_is_a_value_change() {
    check("a: {x: 1}\n", "a: [1]\n", "a: {x: 1, y: 2}\n", "a: [1]\n");
    check("a: {x: 1}\n", "a: {x: 1}\n", "a: text\n", "a: text\n");
}

fn res(kind: &str, name: &str, data: &str) -> Node {
    y(&format!(
        "apiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}}}\ndata: {data}\n"
    ))
    .expect("doc")
}

#[test]
fn resources_pair_by_identity() {
    let original = [
        res("ConfigMap", "gone", "{}"),
        res("ConfigMap", "both", "{a: '1'}"),
    ];
    let updated = [
        res("ConfigMap", "both", "{a: '2'}"),
        res("ConfigMap", "new", "{}"),
    ];
    let dest = [
        res("ConfigMap", "mine", "{}"),
        res("ConfigMap", "gone", "{}"),
        res("ConfigMap", "both", "{a: '1', b: '3'}"),
    ];
    let out = merge3_resources(&original, &updated, &dest, &Merge3Options::cli()).expect("merge");
    let summary: Vec<(&str, Change)> = out.iter().map(|m| (m.key.as_str(), m.change)).collect();
    assert_eq!(
        summary,
        [
            ("ConfigMap/mine", Change::Kept),
            ("ConfigMap/gone", Change::Deleted),
            ("ConfigMap/both", Change::Merged),
            ("ConfigMap/new", Change::Added),
        ]
    );
    assert_eq!(
        out[2].node,
        Some(res("ConfigMap", "both", "{a: '2', b: '3'}"))
    );
    assert_eq!(out[1].node, None);
}

#[test]
fn resource_deleted_locally_stays_deleted() {
    let original = [res("ConfigMap", "a", "{x: '1'}")];
    let updated = [res("ConfigMap", "a", "{x: '2'}")];
    let out = merge3_resources(&original, &updated, &[], &Merge3Options::cli()).expect("merge");
    assert!(out.is_empty());
}

#[test]
fn duplicate_identity_is_an_error() {
    let twice = [res("ConfigMap", "a", "{}"), res("ConfigMap", "a", "{}")];
    let err = merge3_resources(&[], &[], &twice, &Merge3Options::cli()).expect_err("duplicate");
    assert!(err.to_string().contains("ConfigMap/a"), "{err}");
}
