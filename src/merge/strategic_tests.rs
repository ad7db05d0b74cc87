//! Unit tests on real kinds (the shared corpus covers the test schema).

use super::*;
use crate::openapi::Schemas;

fn y(text: &str) -> Node {
    crate::yaml::parse::parse_stream(text, "test")
        .expect("test YAML")
        .into_iter()
        .next()
        .unwrap_or_else(Node::map)
}

fn deployment() -> Option<TypeRef<'static>> {
    Schemas::builtin().lookup("apps", "v1", "Deployment")
}

#[test]
fn three_way_keeps_fields_never_applied() {
    let original =
        y("spec: {minReadySeconds: 5, template: {spec: {containers: [{name: a, image: a:1}]}}}");
    let modified = y("spec: {template: {spec: {containers: [{name: a, image: a:2}]}}}");
    let current = y(
        "spec: {replicas: 3, minReadySeconds: 5, template: {spec: {containers: [{name: a, image: a:1, imagePullPolicy: Always}]}}}",
    );
    let patch =
        create_three_way_patch(&original, &modified, &current, deployment()).expect("patch");
    assert_eq!(
        patch,
        y(
            "spec: {minReadySeconds: null, template: {spec: {$setElementOrder/containers: [{name: a}], containers: [{name: a, image: a:2}]}}}"
        )
    );
    let result = apply_patch(&current, &patch, deployment()).expect("apply");
    assert_eq!(
        result,
        y(
            "spec: {replicas: 3, template: {spec: {containers: [{name: a, image: a:2, imagePullPolicy: Always}]}}}"
        )
    );
}

#[test]
fn retain_keys_clears_other_union_members() {
    let current = y("spec: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}}");
    let patch = y("spec: {strategy: {$retainKeys: [type], type: Recreate}}");
    let result = apply_patch(&current, &patch, deployment()).expect("apply");
    assert_eq!(result, y("spec: {strategy: {type: Recreate}}"));
}

#[test]
fn retain_keys_must_list_every_patched_field() {
    let patch = y("spec: {strategy: {$retainKeys: [type], rollingUpdate: {maxSurge: 1}}}");
    let current = y("spec: {strategy: {type: RollingUpdate}}");
    let err = apply_patch(&current, &patch, deployment()).expect_err("invalid");
    assert!(err.to_string().contains("retainKeys"), "{err}");
}

#[test]
fn directives_in_a_new_field_stay_as_apimachinery_leaves_them() {
    // Checked with `kubectl patch --local`: the API server then drops the unknown keys.
    let patch = y("spec: {strategy: {$retainKeys: [type], type: Recreate}}");
    let result = apply_patch(&y("spec: {}"), &patch, deployment()).expect("apply");
    assert_eq!(result, patch);
}

#[test]
fn delete_from_primitive_list_and_merge_key_errors() {
    let current = y("metadata: {finalizers: [a, b, c]}");
    let patch = y("metadata: {$deleteFromPrimitiveList/finalizers: [b]}");
    let result = apply_patch(&current, &patch, deployment()).expect("apply");
    assert_eq!(result, y("metadata: {finalizers: [a, c]}"));
    let current = y("spec: {template: {spec: {containers: [{name: a}]}}}");
    let patch = y("spec: {template: {spec: {containers: [{image: x}]}}}");
    let err = apply_patch(&current, &patch, deployment()).expect_err("no key");
    assert!(
        err.to_string()
            .contains("does not contain declared merge key: name"),
        "{err}"
    );
}

#[test]
fn without_schema_lists_are_replaced() {
    let current = y("spec: {items: [{name: a, x: 1}], keep: 1}");
    let patch = y("spec: {items: [{name: b}]}");
    let result = apply_patch::<TypeRef<'_>>(&current, &patch, None).expect("apply");
    assert_eq!(result, y("spec: {items: [{name: b}], keep: 1}"));
}

#[test]
fn conflicts_are_detected() {
    let original = y("spec: {replicas: 1}");
    let current = y("spec: {replicas: 5}");
    let patch = y("spec: {replicas: 2}");
    assert!(three_way_conflicts(&original, &current, &patch, deployment()).expect("check"));
    let patch = y("spec: {paused: true}");
    assert!(!three_way_conflicts(&original, &current, &patch, deployment()).expect("check"));
}
