//! Unit tests of the name reference transformer. Each case replays a build
//! (renames done by the real prefix/suffix/namespace transformers, bases
//! appended like the build does) whose result was checked with
//! `kubectl kustomize` (v5.5.0); the expectations quote what it printed.

use super::*;
use crate::config::builtin_specs;
use crate::config::fieldspec::from_table;
use crate::config::name_reference_specs::builtin;
use crate::transform::{name_affix, namespace};
use serde_json::{Value, json};

fn resmap(docs: Vec<Value>) -> ResMap {
    let mut rm = ResMap::new();
    let resources = docs
        .iter()
        .map(|d| Resource::new(Node::from(d)).expect("valid resource"))
        .collect();
    rm.append_all(resources).expect("distinct ids");
    rm
}

/// A kustomization's `namePrefix`, `nameSuffix` and `namespace`, applied in
/// kustomize's order.
fn kustomize(mut rm: ResMap, prefix: &str, suffix: &str, ns: &str) -> ResMap {
    let names = from_table(builtin_specs::NAME);
    let specs = namespace::kustomization_specs(&[]);
    namespace::apply(&mut rm, ns, &specs, Default::default()).expect("namespace");
    name_affix::apply(&mut rm, prefix, "", &names).expect("prefix");
    name_affix::apply(&mut rm, "", suffix, &names).expect("suffix");
    rm
}

fn combine(parts: Vec<ResMap>) -> ResMap {
    let mut rm = ResMap::new();
    for p in parts {
        rm.append_all(p.resources).expect("distinct ids");
    }
    rm
}

fn fix(mut rm: ResMap) -> ResMap {
    apply(&mut rm, &builtin()).expect("name references");
    rm
}

fn fix_err(mut rm: ResMap) -> String {
    match apply(&mut rm, &builtin()) {
        Ok(()) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

/// The JSON at a `/`-separated path (numbers index lists) of the resource
/// of `kind` now named `name`.
fn at(rm: &ResMap, kind: &str, name: &str, path: &str) -> Value {
    let res = rm
        .iter()
        .find(|r| r.kind() == kind && r.name() == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"));
    let mut v = res.node().to_json();
    for seg in path.split('/') {
        v = match seg.parse::<usize>() {
            Ok(i) => v[i].take(),
            Err(_) => v[seg].take(),
        };
    }
    v
}

fn meta(api: &str, kind: &str, name: &str) -> Value {
    json!({"apiVersion": api, "kind": kind, "metadata": {"name": name}})
}

fn with(mut doc: Value, key: &str, value: Value) -> Value {
    doc[key] = value;
    doc
}

#[test]
fn workload_references_follow_prefix_and_namespace() {
    let deployment = with(
        meta("apps/v1", "Deployment", "d"),
        "spec",
        json!({"template": {"spec": {
            "serviceAccountName": "sa",
            "imagePullSecrets": [{"name": "sec"}],
            "containers": [{"name": "c",
                "envFrom": [{"configMapRef": {"name": "cm"}}, {"secretRef": {"name": "sec"}}],
                "env": [
                    {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}},
                    {"name": "B", "valueFrom": {"secretKeyRef": {"name": "missing", "key": "k"}}}]}],
            "volumes": [
                {"name": "v1", "persistentVolumeClaim": {"claimName": "claim"}},
                {"name": "v2", "projected": {"sources": [{"configMap": {"name": "cm"}}, {"secret": {"name": "sec"}}]}}]}}}),
    );
    let rm = resmap(vec![
        meta("v1", "ConfigMap", "cm"),
        meta("v1", "Secret", "sec"),
        meta("v1", "ServiceAccount", "sa"),
        meta("v1", "PersistentVolumeClaim", "claim"),
        meta("v1", "Service", "svc"),
        with(
            meta("apps/v1", "StatefulSet", "ss"),
            "spec",
            json!({"serviceName": "svc"}),
        ),
        with(
            meta("autoscaling/v2", "HorizontalPodAutoscaler", "hpa"),
            "spec",
            json!({"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "ss"}}),
        ),
        deployment,
    ]);
    let rm = fix(kustomize(rm, "p-", "", "prod"));
    let spec = at(&rm, "Deployment", "p-d", "spec/template/spec");
    // kubectl: every reference gets the "p-" name; the unknown Secret stays.
    assert_eq!(spec["serviceAccountName"], "p-sa");
    assert_eq!(spec["imagePullSecrets"][0]["name"], "p-sec");
    let c = &spec["containers"][0];
    assert_eq!(c["envFrom"][0]["configMapRef"]["name"], "p-cm");
    assert_eq!(c["envFrom"][1]["secretRef"]["name"], "p-sec");
    assert_eq!(c["env"][0]["valueFrom"]["configMapKeyRef"]["name"], "p-cm");
    assert_eq!(c["env"][1]["valueFrom"]["secretKeyRef"]["name"], "missing");
    assert_eq!(
        spec["volumes"][0]["persistentVolumeClaim"]["claimName"],
        "p-claim"
    );
    assert_eq!(
        spec["volumes"][1]["projected"]["sources"][0]["configMap"]["name"],
        "p-cm"
    );
    assert_eq!(
        spec["volumes"][1]["projected"]["sources"][1]["secret"]["name"],
        "p-sec"
    );
    assert_eq!(at(&rm, "StatefulSet", "p-ss", "spec/serviceName"), "p-svc");
    assert_eq!(
        at(
            &rm,
            "HorizontalPodAutoscaler",
            "p-hpa",
            "spec/scaleTargetRef/name"
        ),
        "p-ss"
    );
}

#[test]
fn table_quirks_and_subject_namespaces() {
    let rm = resmap(vec![
        meta("v1", "Service", "svc"),
        with(
            meta("gateway.networking.k8s.io/v1", "HTTPRoute", "route"),
            "spec",
            json!({"rules": [{"backendRefs": [{"name": "svc", "port": 80}]}]}),
        ),
        meta("networking.k8s.io/v1", "IngressClass", "ic"),
        with(
            meta("networking.k8s.io/v1", "Ingress", "ing"),
            "spec",
            json!({"ingressClassName": "ic", "defaultBackend": {"service": {"name": "svc"}}}),
        ),
        meta("v1", "ServiceAccount", "sa"),
        with(
            with(
                meta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "crb"),
                "roleRef",
                json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cr"}),
            ),
            "subjects",
            json!([
                {"kind": "User", "name": "sa"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": ""},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "default"},
                {"kind": "Group", "name": "sa", "namespace": "other"}]),
        ),
        with(
            meta(
                "admissionregistration.k8s.io/v1",
                "ValidatingAdmissionPolicyBinding",
                "b",
            ),
            "spec",
            json!({"policyName": "pol", "paramRef": {"name": "cm"}}),
        ),
        meta(
            "admissionregistration.k8s.io/v1",
            "ValidatingAdmissionPolicy",
            "pol",
        ),
        meta("v1", "ConfigMap", "cm"),
    ]);
    let rm = fix(kustomize(rm, "p-", "", ""));
    // kubectl: HTTPRoute backends and ingressClassName are not in v5.5.0's
    // table (IngressClass has a group that never matches).
    assert_eq!(
        at(
            &rm,
            "HTTPRoute",
            "p-route",
            "spec/rules/0/backendRefs/0/name"
        ),
        "svc"
    );
    assert_eq!(at(&rm, "Ingress", "p-ing", "spec/ingressClassName"), "ic");
    assert_eq!(
        at(&rm, "Ingress", "p-ing", "spec/defaultBackend/service/name"),
        "p-svc"
    );
    // kubectl: the subject's kind is ignored; namespace "" matches nothing,
    // "default" matches and stays, "other" matches nothing.
    assert_eq!(
        at(&rm, "ClusterRoleBinding", "p-crb", "subjects"),
        json!([
            {"kind": "User", "name": "p-sa"},
            {"kind": "ServiceAccount", "name": "sa", "namespace": ""},
            {"kind": "ServiceAccount", "name": "p-sa", "namespace": "default"},
            {"kind": "Group", "name": "sa", "namespace": "other"}])
    );
    assert_eq!(
        at(
            &rm,
            "ValidatingAdmissionPolicyBinding",
            "p-b",
            "spec/policyName"
        ),
        "p-pol"
    );
    assert_eq!(
        at(
            &rm,
            "ValidatingAdmissionPolicyBinding",
            "p-b",
            "spec/paramRef/name"
        ),
        "cm"
    );
}

#[test]
fn affixes_must_match_exactly_when_several_candidates() {
    // a/: namePrefix a-, ServiceAccount sa. b/: namespace default,
    // ServiceAccount sa and a Deployment using it. kubectl keeps "sa": the
    // Deployment has no prefixes, so a-sa (prefixes [a-]) is not a match.
    let a = kustomize(
        resmap(vec![meta("v1", "ServiceAccount", "sa")]),
        "a-",
        "",
        "",
    );
    let deployment = with(
        meta("apps/v1", "Deployment", "d"),
        "spec",
        json!({"template": {"spec": {"serviceAccountName": "sa"}}}),
    );
    let b = kustomize(
        resmap(vec![meta("v1", "ServiceAccount", "sa"), deployment]),
        "",
        "",
        "default",
    );
    let rm = fix(combine(vec![a, b]));
    assert_eq!(
        at(
            &rm,
            "Deployment",
            "d",
            "spec/template/spec/serviceAccountName"
        ),
        "sa"
    );
}

#[test]
fn empty_affix_lists_match_any_first() {
    // The conformance case TestPrefixSuffix: common/ generates ConfigMap
    // -example-configmap (hashed) and includes service/ (nameSuffix api,
    // a Deployment using the ConfigMap); a/ and b/ add namePrefix a and b.
    // kubectl: a-api uses a-example-configmap-6ct58987ht, b-api the b one.
    let common = || {
        let mut cm = resmap(vec![meta("v1", "ConfigMap", "-example-configmap")]);
        for r in cm.iter_mut() {
            r.store_prev_id();
            r.set_name("-example-configmap-6ct58987ht");
        }
        let deployment = with(
            meta("apps/v1", "Deployment", "-"),
            "spec",
            json!({"template": {"spec": {"containers": [
                {"name": "app", "envFrom": [{"configMapRef": {"name": "-example-configmap"}}]}]}}}),
        );
        combine(vec![cm, kustomize(resmap(vec![deployment]), "", "api", "")])
    };
    let rm = fix(combine(vec![
        kustomize(common(), "a", "", ""),
        kustomize(common(), "b", "", ""),
    ]));
    let env = "spec/template/spec/containers/0/envFrom/0/configMapRef/name";
    assert_eq!(
        at(&rm, "Deployment", "a-api", env),
        "a-example-configmap-6ct58987ht"
    );
    assert_eq!(
        at(&rm, "Deployment", "b-api", env),
        "b-example-configmap-6ct58987ht"
    );
}

#[test]
fn no_strict_affix_match_leaves_the_reference() {
    // a/ and b/ (namePrefix a- and b-) each have ServiceAccount sa; a
    // Deployment beside them uses sa. kubectl leaves "sa": both match
    // leniently, neither strictly.
    let part = |p: &str| kustomize(resmap(vec![meta("v1", "ServiceAccount", "sa")]), p, "", "");
    let deployment = with(
        meta("apps/v1", "Deployment", "d"),
        "spec",
        json!({"template": {"spec": {"serviceAccountName": "sa"}}}),
    );
    let rm = fix(combine(vec![
        part("a-"),
        part("b-"),
        resmap(vec![deployment]),
    ]));
    assert_eq!(
        at(
            &rm,
            "Deployment",
            "d",
            "spec/template/spec/serviceAccountName"
        ),
        "sa"
    );
}

#[test]
fn role_ref_kind_chooses_role_or_cluster_role() {
    let role_ref = |name: &str, r: Value| {
        with(
            meta("rbac.authorization.k8s.io/v1", "RoleBinding", name),
            "roleRef",
            r,
        )
    };
    let a = kustomize(
        resmap(vec![meta("rbac.authorization.k8s.io/v1", "Role", "admin")]),
        "a-",
        "",
        "",
    );
    let b = kustomize(
        resmap(vec![meta(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "admin",
        )]),
        "b-",
        "",
        "",
    );
    let top = resmap(vec![
        role_ref(
            "rb",
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "admin"}),
        ),
        role_ref(
            "rb2",
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "admin"}),
        ),
        role_ref("rb3", json!({"name": "admin"})),
    ]);
    let rm = fix(combine(vec![a, b, top]));
    // kubectl: b-admin, a-admin, and a-admin (without apiGroup and kind any
    // kind will do; the Role entry comes first in the table).
    assert_eq!(at(&rm, "RoleBinding", "rb", "roleRef/name"), "b-admin");
    assert_eq!(at(&rm, "RoleBinding", "rb2", "roleRef/name"), "a-admin");
    assert_eq!(at(&rm, "RoleBinding", "rb3", "roleRef/name"), "a-admin");
}

#[test]
fn mappings_take_the_namespace_too() {
    let base = kustomize(
        resmap(vec![
            meta("v1", "Service", "svc"),
            meta("v1", "ServiceAccount", "sa"),
            meta("v1", "ConfigMap", "cm"),
            meta("foo.io/v1", "ConfigMap", "cm"),
            with(
                meta("apps/v1", "Deployment", "d"),
                "spec",
                json!({"template": {"spec": {"volumes": [{"name": "v", "configMap": {"name": "cm"}}]}}}),
            ),
        ]),
        "",
        "",
        "prod",
    );
    let mut other = meta("v1", "Service", "other");
    other["metadata"]["namespace"] = json!("team");
    let service = |name: &str, ns: Option<&str>| match ns {
        Some(ns) => {
            json!({"name": name, "clientConfig": {"service": {"name": name, "namespace": ns}}})
        }
        None => json!({"name": name, "clientConfig": {"service": {"name": name}}}),
    };
    let top = resmap(vec![
        with(
            meta(
                "admissionregistration.k8s.io/v1",
                "ValidatingWebhookConfiguration",
                "w",
            ),
            "webhooks",
            json!([
                service("svc", None),
                service("svc", Some("default")),
                service("svc", Some("prod")),
                service("other", Some("team")),
                service("svc", Some("nowhere"))
            ]),
        ),
        with(
            with(
                meta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "crb"),
                "roleRef",
                json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "x"}),
            ),
            "subjects",
            json!([
                {"kind": "ServiceAccount", "name": "sa"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "default"}]),
        ),
    ]);
    let rm = fix(kustomize(
        combine(vec![base, resmap(vec![other]), top]),
        "p-",
        "",
        "",
    ));
    let svc = |i: usize| {
        at(
            &rm,
            "ValidatingWebhookConfiguration",
            "p-w",
            &format!("webhooks/{i}/clientConfig/service"),
        )
    };
    // kubectl: no namespace, the original one, or the current one all find
    // p-svc in prod; an unknown namespace finds nothing.
    assert_eq!(svc(0), json!({"name": "p-svc", "namespace": "prod"}));
    assert_eq!(svc(1), json!({"name": "p-svc", "namespace": "prod"}));
    assert_eq!(svc(2), json!({"name": "p-svc", "namespace": "prod"}));
    assert_eq!(svc(3), json!({"name": "p-other", "namespace": "team"}));
    assert_eq!(svc(4), json!({"name": "svc", "namespace": "nowhere"}));
    assert_eq!(
        at(&rm, "ClusterRoleBinding", "p-crb", "subjects"),
        json!([
            {"kind": "ServiceAccount", "name": "p-sa", "namespace": "prod"},
            {"kind": "ServiceAccount", "name": "p-sa", "namespace": "prod"}])
    );
    // kubectl: two ConfigMaps (v1 and foo.io/v1) both named p-cm in prod are
    // the same referral: the first one is taken.
    assert_eq!(
        at(
            &rm,
            "Deployment",
            "p-d",
            "spec/template/spec/volumes/0/configMap/name"
        ),
        "p-cm"
    );
}

#[test]
fn other_namespaces_are_invisible_to_namespaced_referrers() {
    let a = kustomize(resmap(vec![meta("v1", "ConfigMap", "cm")]), "a-", "", "a");
    let b = kustomize(
        resmap(vec![
            with(
                meta("apps/v1", "Deployment", "d"),
                "spec",
                json!({"template": {"spec": {"volumes": [{"configMap": {"name": "cm"}}]}}}),
            ),
            with(
                meta("rbac.authorization.k8s.io/v1", "ClusterRole", "cr"),
                "rules",
                json!([{"resources": ["configmaps"], "resourceNames": ["cm", "other"]}]),
            ),
        ]),
        "",
        "",
        "b",
    );
    let rm = fix(combine(vec![a, b]));
    // kubectl: the Deployment in b keeps "cm"; the ClusterRole sees a-cm.
    assert_eq!(
        at(
            &rm,
            "Deployment",
            "d",
            "spec/template/spec/volumes/0/configMap/name"
        ),
        "cm"
    );
    assert_eq!(
        at(&rm, "ClusterRole", "cr", "rules/0/resourceNames"),
        json!(["a-cm", "other"])
    );
}

#[test]
fn multibases_with_conflict() {
    // The conformance case TestMultibasesWithConflict: kubectl fails with
    // "found multiple possible referrals: ServiceAccount.v1.[noGrp]/a-serviceaccount-suffixA.[noNs],
    // ServiceAccount.v1.[noGrp]/a-pfx-serviceaccount-sfx-suffixA.[noNs]".
    let base = || {
        let binding = |kind: &str| {
            with(
                with(
                    meta("rbac.authorization.k8s.io/v1beta1", kind, "rolebinding"),
                    "roleRef",
                    json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "role"}),
                ),
                "subjects",
                json!([{"kind": "ServiceAccount", "name": "serviceaccount"}]),
            )
        };
        kustomize(
            resmap(vec![
                meta("v1", "ServiceAccount", "serviceaccount"),
                binding("RoleBinding"),
                binding("ClusterRoleBinding"),
                meta("rbac.authorization.k8s.io/v1", "ClusterRole", "role"),
            ]),
            "pfx-",
            "-sfx",
            "",
        )
    };
    let a = combine(vec![
        resmap(vec![meta("v1", "ServiceAccount", "serviceaccount")]),
        base(),
    ]);
    let a = kustomize(a, "a-", "-suffixA", "");
    let b = kustomize(base(), "b-", "-suffixB", "");
    let err = fix_err(combine(vec![a, b]));
    assert!(
        err.contains("found multiple possible referrals for 'serviceaccount'"),
        "{err}"
    );
    assert!(err.contains("v1 ServiceAccount a-serviceaccount-suffixA, v1 ServiceAccount a-pfx-serviceaccount-sfx-suffixA"), "{err}");
    assert!(err.contains("in 'subjects' field of rbac.authorization.k8s.io/v1beta1 RoleBinding a-pfx-rolebinding-sfx-suffixA"), "{err}");
}

#[test]
fn namespaced_service_accounts_with_overlap() {
    // The conformance case TestNamedspacedServiceAccountsWithOverlap:
    // kubectl fails with "found multiple possible referrals:
    // ServiceAccount.v1.[noGrp]/sa.a, ServiceAccount.v1.[noGrp]/sa.b".
    let part = |ns: &str| {
        let crb = with(
            with(
                meta(
                    "rbac.authorization.k8s.io/v1",
                    "ClusterRoleBinding",
                    &format!("crb-{ns}"),
                ),
                "roleRef",
                json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": format!("cr-{ns}")}),
            ),
            "subjects",
            json!([{"kind": "ServiceAccount", "name": "sa"}]),
        );
        kustomize(
            resmap(vec![meta("v1", "ServiceAccount", "sa"), crb]),
            "",
            "",
            ns,
        )
    };
    let err = fix_err(combine(vec![part("a"), part("b")]));
    assert!(err.contains("found multiple possible referrals for 'sa': v1 ServiceAccount a/sa, v1 ServiceAccount b/sa"), "{err}");
    assert!(err.contains("ClusterRoleBinding crb-"), "{err}");
}

#[test]
fn service_account_subject_namespace_must_be_a_string() {
    // kubectl: "Invalid Input: namespace is blank for resource
    // "RoleBinding.v1.rbac.authorization.k8s.io/p-rb.[noNs]"" for null and 5;
    // "5" (a string) is fine.
    let rb = |ns: Value| {
        let rm = resmap(vec![with(
            with(
                meta("rbac.authorization.k8s.io/v1", "RoleBinding", "rb"),
                "roleRef",
                json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}),
            ),
            "subjects",
            json!([{"kind": "ServiceAccount", "name": "sa", "namespace": ns}]),
        )]);
        kustomize(rm, "p-", "", "")
    };
    let err = fix_err(rb(Value::Null));
    assert!(err.contains("a ServiceAccount subject of rbac.authorization.k8s.io/v1 RoleBinding p-rb has a null namespace"), "{err}");
    assert!(fix_err(rb(json!(5))).contains("has a number namespace"));
    let rm = fix(rb(json!("5")));
    assert_eq!(at(&rm, "RoleBinding", "p-rb", "subjects/0/name"), "sa");
}

#[test]
fn mapping_without_name_is_an_error() {
    let rm = resmap(vec![
        meta("v1", "Service", "svc"),
        with(
            meta(
                "admissionregistration.k8s.io/v1",
                "MutatingWebhookConfiguration",
                "w",
            ),
            "webhooks",
            json!([{"name": "a", "clientConfig": {"service": {"namespace": "x"}}}]),
        ),
    ]);
    let err = fix_err(kustomize(rm, "p-", "", ""));
    assert!(
        err.contains("expected a 'name' field in the mappings at 'webhooks/clientConfig/service'"),
        "{err}"
    );
}

#[test]
fn user_configuration_extends_the_table() {
    // configurations: nameReference ConfigMap <- Gadget spec/configRef (a new
    // referrer of a built-in entry) and Gadget <- Widget spec/gadgets (a new
    // entry). kubectl: p-cm, and [p-g, other].
    let mut specs = builtin();
    let extra = vec![
        NameRefSpec {
            version: "v1".into(),
            kind: "ConfigMap".into(),
            field_specs: vec![
                FieldSpec {
                    kind: "Gadget".into(),
                    path: "spec/configRef".into(),
                    ..FieldSpec::default()
                },
                FieldSpec {
                    kind: "Deployment".into(),
                    path: "spec/template/spec/volumes/configMap/name".into(),
                    ..FieldSpec::default()
                },
            ],
            ..NameRefSpec::default()
        },
        NameRefSpec {
            kind: "Gadget".into(),
            field_specs: vec![FieldSpec {
                kind: "Widget".into(),
                path: "spec/gadgets".into(),
                ..FieldSpec::default()
            }],
            ..NameRefSpec::default()
        },
    ];
    let before = specs.len();
    crate::config::merge::merge_name_references(&mut specs, &extra).unwrap();
    assert_eq!(specs.len(), before + 1);
    let config_map = specs
        .iter()
        .find(|s| s.kind == "ConfigMap")
        .map(|s| s.field_specs.len());
    assert_eq!(config_map, Some(53), "the Deployment spec is already there");
    let mut rm = kustomize(
        resmap(vec![
            meta("v1", "ConfigMap", "cm"),
            with(
                meta("x.io/v1", "Gadget", "g"),
                "spec",
                json!({"configRef": "cm"}),
            ),
            with(
                meta("x.io/v1", "Widget", "w"),
                "spec",
                json!({"gadgets": ["g", "other"]}),
            ),
        ]),
        "p-",
        "",
        "prod",
    );
    apply(&mut rm, &specs).expect("name references");
    assert_eq!(at(&rm, "Gadget", "p-g", "spec/configRef"), "p-cm");
    assert_eq!(
        at(&rm, "Widget", "p-w", "spec/gadgets"),
        json!(["p-g", "other"])
    );
}

#[test]
fn affix_lists() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(same_ending(&s(&[]), &s(&[])));
    assert!(!same_ending(&s(&[]), &s(&["a-"])));
    assert!(same_ending(&s(&["pfx-", "a-"]), &s(&["a-"])));
    assert!(!same_ending(&s(&["pfx-", "a-"]), &s(&["pfx-"])));
    assert!(affixes_match(&s(&[]), &s(&["a-"]), true));
    assert!(!affixes_match(&s(&["b-"]), &s(&["a-"]), true));
}
