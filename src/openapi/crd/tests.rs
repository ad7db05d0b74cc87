use super::*;
use crate::openapi::Schemas;
use serde_json::json;

fn crd(group: &str, kind: &str, schema: serde_json::Value) -> Node {
    Node::from(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{}s.{group}", kind.to_lowercase())},
        "spec": {"group": group, "names": {"kind": kind},
                 "versions": [{"name": "v1", "served": true, "schema": {"openAPIV3Schema": schema}},
                              {"name": "v0", "served": false}]}
    }))
}

fn ports_schema(keys: serde_json::Value) -> serde_json::Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys,
                  "items": {"type": "object", "properties": {
                      "name": {"type": "string"}, "protocol": {"type": "string"},
                      "port": {"type": "integer"},
                      "hosts": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}},
        "tags": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}},
        "replicas": {"type": "integer"}}}}})
}

fn generate(docs: &[Node], keys: &[&str], from_crds: bool) -> Result<Document> {
    let mut set = CrdSet::default();
    for d in docs {
        set.add(d, "crds.yaml")?;
    }
    let keys: Vec<MergeKey> = keys.iter().map(|k| MergeKey::parse(k).unwrap()).collect();
    document(&set, &keys, from_crds)
}

fn definitions(doc: &Document) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&doc.text).unwrap();
    v["definitions"].clone()
}

#[test]
fn several_keys_stay_list_map_keys_and_one_key_is_also_the_merge_key() {
    let doc = generate(
        &[crd(
            "example.com",
            "Gadget",
            ports_schema(json!(["name", "protocol"])),
        )],
        &[],
        true,
    )
    .unwrap();
    let defs = definitions(&doc);
    let ports = &defs["com.example.v1.Gadget"]["properties"]["spec"]["properties"]["ports"];
    assert_eq!(ports["x-kubernetes-patch-strategy"], "merge");
    assert_eq!(
        ports["x-kubernetes-list-map-keys"],
        json!(["name", "protocol"])
    );
    assert!(
        ports.get("x-kubernetes-patch-merge-key").is_none(),
        "{ports}"
    );
    // Set and atomic lists, and scalars, are left out.
    assert!(ports.get("items").is_none(), "{ports}");
    let spec = &defs["com.example.v1.Gadget"]["properties"]["spec"]["properties"];
    assert_eq!(spec.as_object().unwrap().len(), 1, "{spec}");
    assert_eq!(doc.kinds, vec!["example.com/v1 Gadget"]);
    assert_eq!(doc.lists, 1);
    // The built-in kinds are there too.
    assert!(defs.get("io.k8s.api.apps.v1.Deployment").is_some());

    let one = generate(
        &[crd("example.com", "Gadget", ports_schema(json!(["name"])))],
        &[],
        true,
    )
    .unwrap();
    let defs = definitions(&one);
    let ports = &defs["com.example.v1.Gadget"]["properties"]["spec"]["properties"]["ports"];
    assert_eq!(ports["x-kubernetes-patch-merge-key"], "name");
}

#[test]
fn the_document_reads_back_with_the_keys_and_the_builtin_kinds() {
    let doc = generate(
        &[crd(
            "example.com",
            "Gadget",
            ports_schema(json!(["name", "protocol"])),
        )],
        &[],
        true,
    )
    .unwrap();
    let schemas = Schemas::from_openapi_text(&doc.text, "openapi.json").unwrap();
    let ports = schemas
        .lookup("example.com", "v1", "Gadget")
        .and_then(|g| g.field("spec"))
        .and_then(|s| s.field("ports"))
        .unwrap();
    assert_eq!(ports.merge_keys(), vec!["name", "protocol"]);
    let containers = schemas
        .lookup("apps", "v1", "Deployment")
        .and_then(|d| d.field("spec"))
        .and_then(|s| s.field("template"))
        .and_then(|t| t.field("spec"))
        .and_then(|s| s.field("containers"))
        .unwrap();
    assert_eq!(containers.merge_keys(), vec!["name"]);
}

#[test]
fn output_is_stable_and_sorted() {
    let a = crd("example.com", "Gadget", ports_schema(json!(["name"])));
    let b = crd("b.example.com", "Widget", ports_schema(json!(["port"])));
    let one = generate(&[a.clone(), b.clone()], &[], true).unwrap();
    let two = generate(&[b, a], &[], true).unwrap();
    assert_eq!(one.text, two.text);
    assert!(one.text.ends_with("}\n"));
    let keys: Vec<&str> = one
        .text
        .lines()
        .filter(|l| l.starts_with("    \"") && l.ends_with(": {"))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn nested_lists_under_a_merging_list() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "groups": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"},
                "rules": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["alert"],
                          "items": {"type": "object", "properties": {"alert": {"type": "string"}}}}}}},
        "plain": {"type": "array", "items": {"type": "object", "properties": {
            "inner": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                      "items": {"type": "object", "properties": {"k": {"type": "string"}}}}}}}}}}});
    let doc = generate(&[crd("example.com", "Rule", schema)], &[], true).unwrap();
    let defs = definitions(&doc);
    let spec = &defs["com.example.v1.Rule"]["properties"]["spec"]["properties"];
    let rules = &spec["groups"]["items"]["properties"]["rules"];
    assert_eq!(rules["x-kubernetes-patch-merge-key"], "alert");
    // A list that is replaced whole: kyaml never looks inside it.
    assert!(spec.get("plain").is_none(), "{spec}");
    assert_eq!(doc.lists, 2);
}

#[test]
fn declared_keys_for_a_list_no_crd_describes() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
        "x-kubernetes-preserve-unknown-fields": true}}});
    let doc = generate(
        &[crd("example.com", "Thing", schema)],
        &["example.com/Thing:spec.routes=host,path"],
        false,
    )
    .unwrap();
    let defs = definitions(&doc);
    let routes = &defs["com.example.v1.Thing"]["properties"]["spec"]["properties"]["routes"];
    assert_eq!(
        routes["x-kubernetes-list-map-keys"],
        json!(["host", "path"])
    );
    // Without a CRD, the versions come from the resources seen.
    let mut set = CrdSet::default();
    set.add(
        &Node::from(
            &json!({"apiVersion": "example.com/v2", "kind": "Other", "metadata": {"name": "x"}}),
        ),
        "x.yaml",
    )
    .unwrap();
    let key = MergeKey::parse("example.com/Other:spec.items=id").unwrap();
    let doc = document(&set, &[key], false).unwrap();
    assert!(doc.text.contains("\"com.example.v2.Other\""));
    let key = MergeKey::parse("example.com/Missing:spec.items=id").unwrap();
    let doc = document(&set, &[key], false).unwrap();
    assert_eq!(doc.unmatched, vec!["example.com/Missing:spec.items=id"]);
}

#[test]
fn declared_paths_must_agree_with_the_crd() {
    let err = generate(
        &[crd("example.com", "Gadget", ports_schema(json!(["name"])))],
        &["example.com/Gadget:spec.replicas=name"],
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("spec.replicas is not a list in the CRD's schema"),
        "{err}"
    );
    let err = generate(
        &[crd("example.com", "Gadget", ports_schema(json!(["name"])))],
        &["example.com/Gadget:spec.tags[].x=name"],
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("spec.tags[] is not a list that merges by key"),
        "{err}"
    );
}

#[test]
fn bad_crds_are_errors_naming_the_file_and_the_list() {
    let missing = generate(
        &[crd(
            "example.com",
            "Gadget",
            ports_schema(json!(["name", "proto"])),
        )],
        &[],
        true,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        missing,
        "crds.yaml: CustomResourceDefinition 'gadgets.example.com', version v1, spec.ports: invalid x-kubernetes-list-map-keys [\"name\",\"proto\"]: the list's items have no field \"proto\" (they have name, protocol, port, hosts)"
    );
    let empty = generate(
        &[crd("example.com", "Gadget", ports_schema(json!([])))],
        &[],
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(
        empty.contains("it must be a non-empty list of field names"),
        "{empty}"
    );
    let mut no_schema = crd("example.com", "Gadget", json!({}));
    if let Some(v) = no_schema.get_path_mut(&["spec", "versions"]) {
        *v = Node::from(&json!([{"name": "v1", "served": true}]));
    }
    let mut set = CrdSet::default();
    let err = set.add(&no_schema, "gadget.yaml").unwrap_err().to_string();
    assert!(
        err.starts_with(
            "gadget.yaml: CustomResourceDefinition 'gadgets.example.com', version v1, has no schema (spec.versions[0].schema.openAPIV3Schema)"
        ),
        "{err}"
    );
}

#[test]
fn two_crds_for_one_kind() {
    let a = crd("example.com", "Gadget", ports_schema(json!(["name"])));
    let mut set = CrdSet::default();
    set.add(&a, "a.yaml").unwrap();
    // The same CRD again (a directory and the build reading it): one.
    set.add(&a, "b.yaml").unwrap();
    let mut b = crd("example.com", "Gadget", ports_schema(json!(["port"])));
    if let Some(Node::Str(n)) = b.get_path_mut(&["metadata", "name"]) {
        *n = "gadgetz.example.com".into();
    }
    let err = set.add(&b, "c.yaml").unwrap_err().to_string();
    assert_eq!(
        err,
        "two CustomResourceDefinitions for example.com/Gadget: gadgets.example.com (a.yaml) and gadgetz.example.com (c.yaml) differ; kbuild needs one schema per kind: pass only one of them"
    );
}

#[test]
fn merge_key_syntax() {
    let k =
        MergeKey::parse("monitoring.coreos.com/PrometheusRule:spec.groups[].rules=alert,record")
            .unwrap();
    assert_eq!(k.group, "monitoring.coreos.com");
    assert_eq!(k.kind, "PrometheusRule");
    assert_eq!(k.path_text(), "spec.groups[].rules");
    assert_eq!(k.keys, vec!["alert", "record"]);
    for (bad, says) in [
        ("example.com/Gadget:spec.ports", "no '=' before the keys"),
        ("example.com/Gadget=name", "no ':' between GROUP/KIND"),
        (
            "Gadget:spec.ports=name",
            "no '/' between the group and the kind",
        ),
        ("/Gadget:spec.ports=name", "the group is empty"),
        ("example.com/:spec.ports=name", "the kind must be a name"),
        ("example.com/Gadget:spec..ports=name", "field 2 of the path"),
        (
            "example.com/Gadget:spec.ports[]=name",
            "the path ends in '[]'",
        ),
        (
            "example.com/Gadget:spec.ports=name,",
            "key \"\" is not a field name",
        ),
        (
            "example.com/Gadget:spec.ports=a,a",
            "key \"a\" is given twice",
        ),
        (
            "apps/Deployment:spec.x=name",
            "apps/Deployment is a built-in kind",
        ),
    ] {
        let err = MergeKey::parse(bad).unwrap_err().to_string();
        assert!(err.starts_with(&format!("--merge-key {bad:?}: ")), "{err}");
        assert!(err.contains(says), "{bad}: {err}");
        assert!(err.ends_with("e.g. monitoring.coreos.com/PrometheusRule:spec.groups=name"));
    }
}

#[test]
fn lookup_finds_list_map_keys() {
    let c = crd(
        "example.com",
        "Gadget",
        ports_schema(json!(["name", "protocol"])),
    );
    let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        list_map_keys(&c, "v1", &path(&["spec", "ports"])),
        Some(vec!["name".to_string(), "protocol".to_string()])
    );
    assert_eq!(list_map_keys(&c, "v1", &path(&["spec", "tags"])), None);
    assert_eq!(list_map_keys(&c, "v2", &path(&["spec", "ports"])), None);
}

#[test]
fn every_served_version_gets_a_definition() {
    let schema = ports_schema(json!(["name"]));
    let doc = Node::from(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Gadget"}, "versions": [
            {"name": "v1beta1", "served": true, "schema": {"openAPIV3Schema": schema.clone()}},
            {"name": "v1", "served": true, "schema": {"openAPIV3Schema": schema.clone()}},
            {"name": "v1alpha1", "served": false, "schema": {"openAPIV3Schema": schema}}]}
    }));
    let out = generate(&[doc], &[], true).unwrap();
    assert_eq!(
        out.kinds,
        vec!["example.com/v1beta1 Gadget", "example.com/v1 Gadget"]
    );
    let defs = definitions(&out);
    assert!(defs.get("com.example.v1beta1.Gadget").is_some());
    assert!(defs.get("com.example.v1alpha1.Gadget").is_none());
    // A List of CRDs (`kubectl get crd -o yaml`) is read item by item.
    let list = Node::from(&json!({"apiVersion": "v1", "kind": "List", "items": [
        crd("example.com", "Widget", ports_schema(json!(["port"]))).to_json()]}));
    let out = generate(&[list], &[], true).unwrap();
    assert_eq!(out.kinds, vec!["example.com/v1 Widget"]);
}
