use super::*;

fn y(text: &str) -> Node {
    crate::yaml::parse::parse_stream(text, "test")
        .expect("test YAML")
        .into_iter()
        .next()
        .unwrap_or_else(Node::map)
}

#[test]
fn annotation_is_go_json_of_the_configuration() {
    let config = y(
        "kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\ndata: {z: '<&>', a: 1.5, n: 10}\n",
    );
    let modified = with_last_applied(&config).expect("annotate");
    let text = modified
        .get_str(&["metadata", "annotations", LAST_APPLIED])
        .expect("annotation");
    assert_eq!(
        text,
        "{\"apiVersion\":\"v1\",\"data\":{\"a\":1.5,\"n\":10,\"z\":\"\\u003c\\u0026\\u003e\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"a\"}}\n"
    );
}

fn go_float(f: f64) -> String {
    crate::yaml::gojson::to_string(&Node::Float(f), crate::yaml::gojson::Numbers::AsIs)
        .expect("finite")
}

#[test]
fn go_floats() {
    assert_eq!(go_float(1e21), "1e+21");
    assert_eq!(go_float(0.5), "0.5");
    assert_eq!(go_float(1e-7), "1e-7");
}

fn live_cm(annotation: Option<&str>) -> Node {
    let mut node = y(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default, labels: {app: x}}\ndata: {k: v, server: s}\n",
    );
    if let Some(text) = annotation {
        node.ensure_map(&["metadata", "annotations"])
            .expect("map")
            .insert(LAST_APPLIED, Node::Str(text.into()));
    }
    node
}

#[test]
fn missing_annotation_warns_and_applies() {
    let config = y("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: w}\n");
    let report = dry_run(&[live_cm(None)], &[config], &ApplyOptions::default()).expect("dry run");
    assert_eq!(report.warnings.len(), 1);
    assert!(
        report.warnings[0].contains("configmap/a"),
        "{:?}",
        report.warnings
    );
    let result = report.objects[0].result.as_ref().expect("result");
    assert_eq!(result.get_str(&["data", "k"]), Some("w"));
    // Never applied: the server's field stays.
    assert_eq!(result.get_str(&["data", "server"]), Some("s"));
}

#[test]
fn unchanged_when_config_equals_last_applied() {
    let config =
        y("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {app: x}}\ndata: {k: v}\n");
    let modified = with_last_applied(&{
        let mut c = config.clone();
        c.ensure_map(&["metadata"])
            .expect("map")
            .insert("namespace", Node::Str("default".into()));
        c
    })
    .expect("annotate");
    let text = modified
        .get_str(&["metadata", "annotations", LAST_APPLIED])
        .expect("text");
    let report =
        dry_run(&[live_cm(Some(text))], &[config], &ApplyOptions::default()).expect("dry run");
    assert_eq!(report.objects[0].action, Action::Unchanged);
}

#[test]
fn prune_needs_the_annotation_and_the_selector() {
    let applied = live_cm(Some(
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"}}\n",
    ));
    let options = ApplyOptions {
        prune: Some(LabelSelector::parse("app=x").expect("selector")),
    };
    let report = dry_run(&[applied.clone(), live_cm(None)], &[], &options);
    // Two live objects with one identity are an error.
    assert!(report.is_err());
    let report = dry_run(&[applied], &[], &options).expect("dry run");
    assert_eq!(report.objects[0].action, Action::Pruned);
    let other = ApplyOptions {
        prune: Some(LabelSelector::parse("app=y").expect("selector")),
    };
    let never = dry_run(&[live_cm(None)], &[], &other).expect("dry run");
    assert!(never.objects.is_empty());
}

#[test]
fn lists_are_expanded() {
    let list = y(
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n",
    );
    assert_eq!(expand_lists(vec![list]).expect("expand").len(), 1);
    let bad = y("apiVersion: v1\nkind: List\nitems: 3\n");
    assert!(expand_lists(vec![bad]).is_err());
}

#[test]
fn directives_do_not_reach_the_result() {
    let mut node = y(
        "spec: {strategy: {$retainKeys: [type], type: Recreate}, x: [{$setElementOrder/y: [1], y: [1]}]}",
    );
    strip_directives(&mut node);
    assert_eq!(node, y("spec: {strategy: {type: Recreate}, x: [{y: [1]}]}"));
}

#[test]
fn overwriting_a_live_change_warns() {
    let last = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":{},\"name\":\"w\",\"namespace\":\"default\"},\"spec\":{\"replicas\":1}}\n";
    let mut live = y(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: default}\nspec: {replicas: 5}\n",
    );
    live.ensure_map(&["metadata", "annotations"])
        .expect("map")
        .insert(LAST_APPLIED, Node::Str(last.into()));
    let config =
        y("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec: {replicas: 2}\n");
    let report = dry_run(&[live], &[config], &ApplyOptions::default()).expect("dry run");
    assert_eq!(report.objects[0].action, Action::Configured);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].contains("overwrites"),
        "{:?}",
        report.warnings
    );
}
