//! kustomize's built-in field specs (facts of its default configuration).
//!
//! Tuples are (group, version, kind, path, create); empty parts match any.

use crate::config::fieldspec::BuiltinSpec;

/// Label fields kustomize writes with `labels` and `includeTemplates`:
/// object metadata and pod/job templates.
pub(crate) const METADATA_LABELS: &[BuiltinSpec] = &[
    ("", "", "", "metadata/labels", true),
    (
        "",
        "v1",
        "ReplicationController",
        "spec/template/metadata/labels",
        true,
    ),
    ("", "", "Deployment", "spec/template/metadata/labels", true),
    ("", "", "ReplicaSet", "spec/template/metadata/labels", true),
    ("", "", "DaemonSet", "spec/template/metadata/labels", true),
    (
        "apps",
        "",
        "StatefulSet",
        "spec/template/metadata/labels",
        true,
    ),
    (
        "apps",
        "",
        "StatefulSet",
        "spec/volumeClaimTemplates[]/metadata/labels",
        true,
    ),
    ("batch", "", "Job", "spec/template/metadata/labels", true),
    (
        "batch",
        "",
        "CronJob",
        "spec/jobTemplate/metadata/labels",
        true,
    ),
    (
        "batch",
        "",
        "CronJob",
        "spec/jobTemplate/spec/template/metadata/labels",
        true,
    ),
];

/// Selector fields `commonLabels` (and `labels` with `includeSelectors`) also write.
pub(crate) fn selector_labels() -> Vec<BuiltinSpec> {
    let mut v: Vec<BuiltinSpec> = vec![
        ("", "v1", "Service", "spec/selector", true),
        ("", "v1", "ReplicationController", "spec/selector", true),
        ("", "", "Deployment", "spec/selector/matchLabels", true),
    ];
    let affinity = |kind: &'static str, v: &mut Vec<BuiltinSpec>| {
        for p in AFFINITY_PATHS {
            v.push(("apps", "", kind, p, false));
        }
    };
    affinity("Deployment", &mut v);
    v.push(("", "", "ReplicaSet", "spec/selector/matchLabels", true));
    v.push(("", "", "DaemonSet", "spec/selector/matchLabels", true));
    v.push(("apps", "", "StatefulSet", "spec/selector/matchLabels", true));
    affinity("StatefulSet", &mut v);
    v.extend_from_slice(&[
        ("batch", "", "Job", "spec/selector/matchLabels", false),
        (
            "batch",
            "",
            "CronJob",
            "spec/jobTemplate/spec/selector/matchLabels",
            false,
        ),
        (
            "policy",
            "",
            "PodDisruptionBudget",
            "spec/selector/matchLabels",
            false,
        ),
        (
            "networking.k8s.io",
            "",
            "NetworkPolicy",
            "spec/podSelector/matchLabels",
            false,
        ),
        (
            "networking.k8s.io",
            "",
            "NetworkPolicy",
            "spec/ingress/from/podSelector/matchLabels",
            false,
        ),
        (
            "networking.k8s.io",
            "",
            "NetworkPolicy",
            "spec/egress/to/podSelector/matchLabels",
            false,
        ),
    ]);
    v
}

const AFFINITY_PATHS: [&str; 5] = [
    concat!(
        "spec/template/spec/affinity",
        "/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels"
    ),
    concat!(
        "spec/template/spec/affinity",
        "/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels"
    ),
    concat!(
        "spec/template/spec/affinity",
        "/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels"
    ),
    concat!(
        "spec/template/spec/affinity",
        "/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels"
    ),
    "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels",
];

/// Annotation fields of `commonAnnotations`.
pub(crate) const ANNOTATIONS: &[BuiltinSpec] = &[
    ("", "", "", "metadata/annotations", true),
    (
        "",
        "v1",
        "ReplicationController",
        "spec/template/metadata/annotations",
        true,
    ),
    (
        "",
        "",
        "Deployment",
        "spec/template/metadata/annotations",
        true,
    ),
    (
        "",
        "",
        "ReplicaSet",
        "spec/template/metadata/annotations",
        true,
    ),
    (
        "",
        "",
        "DaemonSet",
        "spec/template/metadata/annotations",
        true,
    ),
    (
        "",
        "",
        "StatefulSet",
        "spec/template/metadata/annotations",
        true,
    ),
    (
        "batch",
        "",
        "Job",
        "spec/template/metadata/annotations",
        true,
    ),
    (
        "batch",
        "",
        "CronJob",
        "spec/jobTemplate/metadata/annotations",
        true,
    ),
    (
        "batch",
        "",
        "CronJob",
        "spec/jobTemplate/spec/template/metadata/annotations",
        true,
    ),
];

/// Name fields of `namePrefix` / `nameSuffix`.
pub(crate) const NAME: &[BuiltinSpec] = &[("", "", "", "metadata/name", false)];

/// Fields besides `metadata/namespace` that `namespace` sets (a core
/// Namespace's own name is set too; see `transform::namespace`).
pub(crate) const NAMESPACE: &[BuiltinSpec] = &[
    // Renames core Namespace objects: the namespace transformer keeps
    // `metadata/name` specs only for apiVersion v1 resources.
    ("", "", "Namespace", "metadata/name", true),
    (
        "apiregistration.k8s.io",
        "",
        "APIService",
        "spec/service/namespace",
        true,
    ),
    (
        "apiextensions.k8s.io",
        "",
        "CustomResourceDefinition",
        "spec/conversion/webhook/clientConfig/service/namespace",
        false,
    ),
];

/// Image fields of `images`, besides every `containers`/`initContainers`
/// list anywhere in an object (which kustomize also updates). In kustomize's
/// order; the image volume paths came with v5.7.0 (see [`IMAGE_VOLUMES`]).
pub(crate) const IMAGES: &[BuiltinSpec] = &[
    ("", "", "", "spec/containers[]/image", true),
    ("", "", "", "spec/initContainers[]/image", true),
    IMAGE_VOLUMES[0],
    ("", "", "", "spec/template/spec/containers[]/image", true),
    (
        "",
        "",
        "",
        "spec/template/spec/initContainers[]/image",
        true,
    ),
    IMAGE_VOLUMES[1],
];

/// The image volume fields of `images` (kustomize v5.7.0 and later).
pub(crate) const IMAGE_VOLUMES: [BuiltinSpec; 2] = [
    ("", "", "", "spec/volumes[]/image/reference", true),
    (
        "",
        "",
        "",
        "spec/template/spec/volumes[]/image/reference",
        true,
    ),
];

/// Replica count fields of `replicas`.
pub(crate) const REPLICAS: &[BuiltinSpec] = &[
    ("", "", "Deployment", "spec/replicas", true),
    ("", "", "ReplicationController", "spec/replicas", true),
    ("", "", "ReplicaSet", "spec/replicas", true),
    ("", "", "StatefulSet", "spec/replicas", true),
];
