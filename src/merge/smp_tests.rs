//! Strategic merge rules, each checked against `kubectl kustomize` (v5.5.0): the
//! expectations are what it printed for the same resource and patch (applied with
//! `patches: [{path: ...}]`), not guesses.

use serde_json::{Value, json};

use super::*;
use crate::yaml::Node;

/// Applies `patch` to `resource` as kustomize does and compares with `expected` (mapping
/// order aside: kustomize prints keys sorted).
fn check(resource: Value, patch: Value, expected: Value) {
    let mut target = Node::from(&resource);
    apply(&mut target, &Node::from(&patch), None).unwrap();
    assert_eq!(target.to_json(), expected, "patch {patch}");
}

fn apply_err(resource: Value, patch: Value) -> String {
    let mut target = Node::from(&resource);
    apply(&mut target, &Node::from(&patch), None)
        .unwrap_err()
        .to_string()
}

#[test]
fn prepend_order() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"volumes": [{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}}, {"name": "c", "emptyDir": {}}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"volumes": [{"name": "d", "hostPath": {"path": "/d"}}, {"name": "b", "hostPath": {"path": "/b"}}, {"name": "e", "hostPath": {"path": "/e"}}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"volumes": [{"hostPath": {"path": "/d"}, "name": "d"}, {"emptyDir": {}, "hostPath": {"path": "/b"}, "name": "b"}, {"hostPath": {"path": "/e"}, "name": "e"}, {"emptyDir": {}, "name": "a"}, {"emptyDir": {}, "name": "c"}]}}}}),
    );
}

#[test]
fn ports_partial_key() {
    check(
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "x", "ports": [{"containerPort": 80}, {"containerPort": 81, "protocol": "UDP"}]}]}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "x", "ports": [{"containerPort": 82}, {"containerPort": 80, "protocol": "TCP", "name": "http"}]}]}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "x", "ports": [{"containerPort": 82}, {"containerPort": 80}, {"containerPort": 81, "protocol": "UDP"}]}]}}),
    );
}

#[test]
fn service_ports() {
    check(
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}, {"port": 443}]}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80, "targetPort": 9090}, {"port": 443, "protocol": "UDP"}]}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}, {"port": 443}]}}),
    );
}

#[test]
fn element_replace_ignored() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "x", "image": "x", "args": ["a"]}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "x", "image": "newx", "$patch": "replace"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"args": ["a"], "image": "x", "name": "x"}]}}}}),
    );
}

#[test]
fn element_delete() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "x", "image": "x"}, {"name": "y", "image": "y"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "x", "$patch": "delete"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"image": "y", "name": "y"}]}}}}),
    );
}

#[test]
fn keyless_patch_element() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "x", "image": "x"}, {"name": "y", "image": "y"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"image": "noname"}, {"name": "z", "image": "z"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"image": "z", "name": "z"}]}}}}),
    );
}

#[test]
fn list_replace() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "x", "image": "x"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "z", "image": "z"}, {"$patch": "replace"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"image": "z", "name": "z"}]}}}}),
    );
}

#[test]
fn list_delete() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "x", "image": "x"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"$patch": "delete"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 1, "template": {"spec": {}}}}),
    );
}

#[test]
fn added_list_keeps_list_directive() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "x", "image": "x"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"initContainers": [{"name": "z", "image": "z"}, {"$patch": "replace"}, {"name": "w", "$patch": "delete"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"image": "x", "name": "x"}], "initContainers": [{"$patch": "replace"}]}}}}),
    );
}

#[test]
fn added_list_applies_element_delete() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "x", "image": "x"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"initContainers": [{"name": "z", "image": "z"}, {"name": "w", "$patch": "delete"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"image": "x", "name": "x"}], "initContainers": [{"image": "z", "name": "z"}]}}}}),
    );
}

#[test]
fn nameless_dest_element_wipes() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "a"}, {"image": "noname"}, {"name": "b", "image": "b"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 2}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 2, "template": {"spec": {"containers": [{"image": "noname"}]}}}}),
    );
}

#[test]
fn duplicates_collapse_to_last() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "a"}, {"name": "b", "image": "b"}, {"name": "a", "image": "a2"}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 2}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 2, "template": {"spec": {"containers": [{"image": "a2", "name": "a"}, {"image": "b", "name": "b"}]}}}}),
    );
}

#[test]
fn crd_lists_replaced() {
    check(
        json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}, "spec": {"items": [{"name": "a", "x": 1}, {"name": "b", "x": 2}], "strs": ["a", "b"]}}),
        json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}, "spec": {"items": [{"name": "b", "y": 3}], "strs": ["c"]}}),
        json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}, "spec": {"items": [{"name": "b", "y": 3}], "strs": ["c"]}}),
    );
}

#[test]
fn embedded_object_gets_its_schema() {
    check(
        json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}, "spec": {"template": {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "a"}]}}}}}}),
        json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}, "spec": {"template": {"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "b"}]}}}}}}),
        json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}, "spec": {"template": {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"image": "b", "name": "b"}, {"image": "a", "name": "a"}]}}}}}}),
    );
}

#[test]
fn apimachinery_directives_stay() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "finalizers": ["a", "b"]}, "spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}, "template": {"spec": {"containers": [{"name": "x", "args": ["a"]}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "$deleteFromPrimitiveList/finalizers": ["b"]}, "spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}, "template": {"spec": {"$setElementOrder/containers": [{"name": "x"}], "containers": [{"name": "x", "args": ["z", {"$patch": "replace"}]}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"$deleteFromPrimitiveList/finalizers": ["b"], "finalizers": ["a", "b"], "name": "d"}, "spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {"maxSurge": 1}, "type": "Recreate"}, "template": {"spec": {"$setElementOrder/containers": [{"name": "x"}], "containers": [{"args": ["z", {"$patch": "replace"}], "name": "x"}]}}}}),
    );
}

#[test]
fn finalizers_prepend() {
    check(
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["b", "c", 1]}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["a", "b", "1"]}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"finalizers": ["a", "b", 1, "c"], "name": "c"}}),
    );
}

#[test]
fn maps_and_nulls() {
    check(
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"a": "1", "b": "2", "n": null}, "annotations": {"x": "y"}}, "data": {"k": "v", "k2": "v2"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"a": null, "c": "3"}, "annotations": {"$patch": "replace", "z": "w"}}, "data": {"k": null, "new": {"$patch": "foo", "q": 1}}}),
        json!({"apiVersion": "v1", "data": {"k2": "v2", "new": {"$patch": "foo", "q": 1}}, "kind": "ConfigMap", "metadata": {"annotations": {"z": "w"}, "labels": {"b": "2", "c": "3", "n": null}, "name": "c"}}),
    );
}

#[test]
fn map_delete() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 1, "strategy": {"type": "Recreate"}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"strategy": {"$patch": "delete"}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 1}}),
    );
}

fn deployment(spec: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec})
}

// kubectl kustomize: `wrong node kind: expected MappingNode but got ScalarNode`.
#[test]
fn kind_mismatch_is_an_error() {
    let dest = deployment(json!({"strategy": {"type": "Recreate"}}));
    let err = apply_err(dest, deployment(json!({"strategy": 5})));
    assert!(err.contains("at spec.strategy: wrong node kind: the resource has a mapping where the patch has a scalar"), "{err}");
    let dest = deployment(json!({"template": {"spec": {"containers": [{"name": "a"}]}}}));
    let err = apply_err(
        dest,
        deployment(json!({"template": {"spec": {"containers": {"a": 1}}}})),
    );
    assert!(
        err.contains("has a sequence where the patch has a mapping"),
        "{err}"
    );
}

// kubectl kustomize: `unknown patch strategy 'foo'`, on an existing mapping and under a
// mapping the patch adds; on the added mapping itself the directive stays (see
// `maps_and_nulls`).
#[test]
fn unknown_directive_is_an_error() {
    let dest = deployment(json!({"strategy": {"type": "Recreate"}}));
    let err = apply_err(
        dest.clone(),
        deployment(json!({"strategy": {"$patch": "foo", "type": "x"}})),
    );
    assert!(err.contains("unknown patch strategy 'foo'"), "{err}");
    let err = apply_err(
        dest,
        deployment(json!({"newfield": {"sub": {"$patch": "foo", "a": 1}}})),
    );
    assert!(
        err.contains("at spec.newfield.sub: unknown patch strategy 'foo'"),
        "{err}"
    );
}

#[test]
fn top_level_delete_and_replace() {
    let mut target = Node::from(&deployment(json!({"replicas": 1})));
    let patch = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "$patch": "delete"});
    apply(&mut target, &Node::from(&patch), None).unwrap();
    assert_eq!(target, Node::Null);

    let mut target = Node::from(&deployment(json!({"replicas": 1})));
    let patch = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "$patch": "replace", "spec": {"paused": true}});
    apply(&mut target, &Node::from(&patch), None).unwrap();
    assert_eq!(target.to_json(), deployment(json!({"paused": true})));
}

// kyaml's own expectation (merge2 list table): appending keeps the destination first.
#[test]
fn append_option() {
    let options = MergeOptions {
        list_increase: ListIncrease::Append,
        ..MergeOptions::kustomize()
    };
    let mut target = Node::from(&deployment(
        json!({"template": {"spec": {"volumes": [{"name": "foo0"}]}}}),
    ));
    let patch = deployment(
        json!({"template": {"spec": {"volumes": [{"name": "foo1"}, {"name": "foo2"}]}}}),
    );
    apply_with(&mut target, &Node::from(&patch), None, &options).unwrap();
    let want = deployment(
        json!({"template": {"spec": {"volumes": [{"name": "foo0"}, {"name": "foo1"}, {"name": "foo2"}]}}}),
    );
    assert_eq!(target.to_json(), want);
}

// The schema of krusty's TestCustomOpenApiFieldBasicUsage, trimmed; its expected output
// merges the container by name.
#[test]
fn custom_openapi_schema() {
    let doc = Node::from(&json!({"definitions": {
        "v1alpha1.MyCRD": {"properties": {"spec": {"properties": {"template": {"$ref": "#/definitions/io.k8s.api.core.v1.PodTemplateSpec"}}, "type": "object"}},
            "type": "object",
            "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "MyCRD", "version": "v1alpha1"}]},
        "io.k8s.api.core.v1.PodTemplateSpec": {"properties": {"spec": {"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec"}}, "type": "object"},
        "io.k8s.api.core.v1.PodSpec": {"properties": {"containers": {"items": {"$ref": "#/definitions/io.k8s.api.core.v1.Container"}, "type": "array",
            "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"}}, "type": "object"},
        "io.k8s.api.core.v1.Container": {"properties": {"name": {"type": "string"}}, "type": "object"}
    }}));
    let schemas =
        crate::openapi::Schemas::from_openapi_document(&doc, "mycrd_schema.json").unwrap();
    let options = MergeOptions {
        schemas: &schemas,
        ..MergeOptions::kustomize()
    };
    let crd = |containers: Value| {
        json!({"apiVersion": "example.com/v1alpha1", "kind": "MyCRD", "metadata": {"name": "service"},
               "spec": {"template": {"spec": {"containers": containers}}}})
    };
    let mut target = Node::from(&crd(
        json!([{"name": "server", "image": "server", "command": "example",
        "ports": [{"name": "grpc", "protocol": "TCP", "containerPort": 8080}]}]),
    ));
    let patch = crd(json!([{"name": "server", "image": "nginx"}]));
    apply_with(&mut target, &Node::from(&patch), None, &options).unwrap();
    let want = crd(
        json!([{"command": "example", "image": "nginx", "name": "server",
        "ports": [{"containerPort": 8080, "name": "grpc", "protocol": "TCP"}]}]),
    );
    assert_eq!(target.to_json(), want);
}

#[test]
fn the_patch_is_not_modified() {
    let patch = Node::from(&deployment(
        json!({"template": {"spec": {"containers": [{"name": "x", "$patch": "delete"}, {"name": "y"}]}}}),
    ));
    let before = patch.clone();
    let mut target = Node::from(&deployment(
        json!({"template": {"spec": {"containers": [{"name": "x"}]}}}),
    ));
    apply(&mut target, &patch, None).unwrap();
    assert_eq!(patch, before);
}

/// A small deterministic generator for list shapes the fast paths take.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn keyed(&mut self) -> Value {
        let mut names: Vec<u64> = (0..6).filter(|_| self.next(2) == 0).collect();
        // Repeated names too (kyaml merges the first, deletes all, keeps the last).
        for _ in 0..self.next(3) {
            names.push(self.next(6));
        }
        names.sort_by_key(|_| self.next(100));
        let items: Vec<Value> = names
            .into_iter()
            .map(|n| match self.next(6) {
                0 => json!({"name": format!("n{n}"), "$patch": "delete"}),
                1 => json!({"name": format!("n{n}"), "$patch": "replace", "v": self.next(3)}),
                _ => json!({"name": format!("n{n}"), "v": self.next(3), "w": {"x": self.next(2)}}),
            })
            .collect();
        json!(items)
    }

    /// Container ports, merged by `containerPort` and `protocol`, values repeated.
    fn ports(&mut self) -> Value {
        // Often no port sets a protocol (kyaml then merges by containerPort alone).
        let protocols = self.next(2) == 0;
        let items: Vec<Value> = (0..self.next(7))
            .map(|_| {
                let mut port = json!({"containerPort": 80 + self.next(3), "v": self.next(3)});
                match self.next(8) {
                    0 => {}
                    1 => port["$patch"] = json!("delete"),
                    _ if protocols => {
                        port["protocol"] = json!(["TCP", "UDP"][self.next(2) as usize])
                    }
                    _ => {}
                }
                if self.next(6) == 0 {
                    if protocols {
                        port["protocol"] = json!("TCP");
                    }
                    port["$patch"] = json!("replace");
                }
                port
            })
            .collect();
        json!(items)
    }

    fn scalars(&mut self) -> Value {
        let pool = [
            json!("a"),
            json!("b"),
            json!(1),
            json!("1"),
            json!(true),
            json!("c"),
        ];
        json!(
            (0..self.next(5))
                .map(|_| pool[self.next(6) as usize].clone())
                .collect::<Vec<_>>()
        )
    }
}

// The linear-time paths give what kyaml's general algorithm gives.
#[test]
fn fast_paths_agree_with_the_general_algorithm() {
    let mut rng = Lcg(7);
    for round in 0..3_000 {
        let increase = if round % 2 == 0 {
            ListIncrease::Prepend
        } else {
            ListIncrease::Append
        };
        let options = MergeOptions {
            list_increase: increase,
            ..MergeOptions::kustomize()
        };
        let strip = |v: Value| -> Value {
            let mut v = v;
            if let Some(items) = v.as_array_mut() {
                for i in items {
                    if let Some(m) = i.as_object_mut() {
                        m.remove("$patch");
                    }
                }
            }
            v
        };
        let resource = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "finalizers": rng.scalars()},
            "spec": {"volumes": strip(rng.keyed()), "containers": [{"name": "c", "ports": strip(rng.ports())}]}});
        let patch = json!({"metadata": {"finalizers": rng.scalars()}, "spec": {"volumes": rng.keyed(),
            "containers": [{"name": "c", "ports": rng.ports()}]}});
        let run = |general: bool| {
            super::assoc::FORCE_GENERAL.with(|f| f.set(general));
            let mut target = Node::from(&resource);
            let result = apply_with(&mut target, &Node::from(&patch), None, &options)
                .map(|()| target.to_json());
            super::assoc::FORCE_GENERAL.with(|f| f.set(false));
            result.map_err(|e| e.to_string())
        };
        assert_eq!(run(false), run(true), "round {round}: {resource} + {patch}");
    }
}

#[test]
fn long_lists_merge_in_linear_time() {
    let env = |n: usize, v: &str| -> Value {
        json!(
            (0..n)
                .map(|i| json!({"name": format!("E{i}"), "value": v}))
                .collect::<Vec<_>>()
        )
    };
    let resource = deployment(
        json!({"template": {"spec": {"containers": [{"name": "c", "env": env(20_000, "old")}]}}}),
    );
    let patch = deployment(
        json!({"template": {"spec": {"containers": [{"name": "c", "env": env(20_000, "new")}]}}}),
    );
    let mut target = Node::from(&resource);
    apply(&mut target, &Node::from(&patch), None).unwrap();
    let merged = target
        .get_path(&["spec", "template", "spec", "containers"])
        .unwrap();
    let env = merged.as_seq().unwrap()[0]
        .get("env")
        .unwrap()
        .as_seq()
        .unwrap();
    assert_eq!(env.len(), 20_000);
    assert_eq!(env[19_999].get_str(&["value"]), Some("new"));
}

/// Lists whose merge keys repeat (a container name twice), and ports merged by several
/// keys (a Service's `port` and `protocol`, or `port` alone when no port sets a protocol),
/// take the linear-time path, not kyaml's general algorithm, which is quadratic (20,000
/// containers with one name repeated took 22 s to patch, 5,000 ports 5.4 s). Checked by
/// which path ran, not by time; the general algorithm gives the same results
/// (fast_paths_agree_with_the_general_algorithm).
#[test]
fn repeated_keys_and_port_lists_take_the_linear_path() {
    let cases = [
        (
            deployment(
                json!({"template": {"spec": {"containers": [{"name": "a", "image": "1"}, {"name": "b"}, {"name": "a", "image": "2"}]}}}),
            ),
            deployment(
                json!({"template": {"spec": {"containers": [{"name": "a", "image": "3"}, {"name": "c"}, {"name": "c"}]}}}),
            ),
        ),
        (
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"}]}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80, "protocol": "UDP", "name": "u"}, {"port": 81, "protocol": "TCP"}]}}),
        ),
        (
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}, {"port": 81}]}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 81, "name": "b"}, {"port": 82}]}}),
        ),
    ];
    for (resource, patch) in cases {
        super::assoc::GENERAL_RUNS.with(|c| c.set(0));
        let mut target = Node::from(&resource);
        apply(&mut target, &Node::from(&patch), None).unwrap();
        assert_eq!(super::assoc::GENERAL_RUNS.with(|c| c.get()), 0, "{patch}");
    }
}

/// kyaml visits a mapping's fields in sorted order, so when several fields fail the error is
/// the one of the field that sorts first. kbuild walks the fields the patch does not mention
/// first, in the destination's order, and then looks for an earlier failure in sorted order
/// (`Walker::first_error`); these are the cases where that matters. The failures come from
/// kyaml's inferred merge keys (an empty list without a schema has none).
#[test]
fn first_error_in_sorted_field_order() {
    let options = MergeOptions {
        infer_associative_lists: true,
        ..MergeOptions::kustomize()
    };
    let err = |dest: Value, patch: Value| {
        let mut target = Node::from(&dest);
        apply_with(&mut target, &Node::from(&patch), None, &options)
            .unwrap_err()
            .to_string()
    };
    // Two fields the patch does not mention fail; the later one sorts first.
    assert_eq!(
        err(json!({"b": {"x": []}, "a": {"y": []}}), json!({"c": 1})),
        "strategic merge patch at a.y: no merge key found"
    );
    // A field the patch mentions fails and sorts before one it does not mention...
    assert_eq!(
        err(json!({"z": {"l": []}, "b": 1}), json!({"b": {"k": 1}})),
        "strategic merge patch at b: wrong node kind: the resource has a scalar where the patch has a mapping"
    );
    // ... or after it.
    assert_eq!(
        err(json!({"a": {"l": []}, "b": 1}), json!({"b": {"k": 1}})),
        "strategic merge patch at a.l: no merge key found"
    );
}

/// Lists the patch does not reach are still normalised (the resource is walked in full);
/// lists that normalisation keeps as they are (the usual case) are left in place.
#[test]
fn untouched_lists_normalised_or_kept() {
    check(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "1"}, {"name": "b", "image": "2"}, {"name": "a", "image": "3"}, {}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": {"x": "y"}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"labels": {"x": "y"}, "name": "d"}, "spec": {"template": {"spec": {"containers": [{"image": "1", "name": "a"}, {"image": "2", "name": "b"}]}}}}),
    );
    check(
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "x", "ports": [{"containerPort": 80}, {"containerPort": 80, "protocol": "UDP"}, {"containerPort": 81, "protocol": "TCP"}]}]}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"x": "y"}}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"x": "y"}, "name": "p"}, "spec": {"containers": [{"name": "x", "ports": [{"containerPort": 80}, {"containerPort": 80, "protocol": "UDP"}, {"containerPort": 81, "protocol": "TCP"}]}]}}),
    );
}
