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

/// The indexed lookup of elements by id finds what kyaml's scan finds: the first element
/// whose key values are all equal (`==`: an integer is not a float, NaN equals nothing, a
/// missing key matches a missing key), on random lists with repeats.
#[test]
fn indexed_ids_find_what_a_scan_finds() {
    let pool = [
        None,
        Some(Node::Null),
        Some(Node::Int(1)),
        Some(Node::Float(1.0)),
        Some(Node::Float(-0.0)),
        Some(Node::Float(0.0)),
        Some(Node::Float(f64::NAN)),
        Some(Node::text("a")),
        Some(Node::text("b")),
        Some(Node::Seq(vec![Node::Int(1)])),
    ];
    let mut state = 17u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % n
    };
    let keys = ["name".to_string(), "protocol".to_string()];
    for round in 0..2_000 {
        let mut list: Vec<Node> = Vec::new();
        for _ in 0..next(8) {
            let mut m = crate::yaml::Map::new();
            for k in &keys {
                if let Some(v) = &pool[next(pool.len())] {
                    m.insert(k.as_str(), v.clone());
                }
            }
            list.push(if next(10) == 0 {
                Node::text("scalar")
            } else {
                Node::Map(m)
            });
        }
        let ids = Ids::new(&list, &keys);
        for probe in &list {
            let id = element_id(probe, &keys);
            let scan = list.iter().position(|e| element_id(e, &keys) == id);
            assert_eq!(ids.find(&id), scan, "round {round}: {list:?}");
        }
    }
}

/// A merge of long associative lists reads each element's id a few times, not once per
/// element of the other lists: 20,000 containers took 24 s when each element was found by
/// scanning. Counted, not timed.
#[test]
fn long_lists_merge_with_a_linear_number_of_lookups() {
    let n = 1_000;
    let deployment = |image: &str, local: bool| {
        let containers: Vec<String> = (0..n)
            .map(|i| match local {
                true => format!("{{name: c{i}, image: {image}{i}, env: [{{name: L, value: x}}]}}"),
                false => format!("{{name: c{i}, image: {image}{i}}}"),
            })
            .collect();
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec: {{template: {{spec: {{containers: [{}]}}}}}}\n",
            containers.join(", ")
        )
    };
    let (original, updated, dest) = (
        deployment("old", false),
        deployment("new", false),
        deployment("old", true),
    );
    ID_READS.with(|c| c.set(0));
    let merged = run(&original, &updated, &dest).expect("merged");
    let reads = ID_READS.with(|c| c.get());
    assert!(reads < 10 * n, "{reads} id reads for {n} containers");
    let containers = merged
        .get_path(&["spec", "template", "spec", "containers"])
        .and_then(Node::as_seq)
        .expect("containers");
    assert_eq!(containers.len(), n as usize);
    assert_eq!(
        containers[n as usize - 1].get_str(&["image"]),
        Some("new999")
    );
}
