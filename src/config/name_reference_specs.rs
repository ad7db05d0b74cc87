//! kustomize's built-in name reference table (its `nameReference`
//! configuration, as of kustomize v5.5.0): for each kind that can be
//! referred to by name, the fields of other kinds that hold such a name.
//!
//! Quirks kept on purpose, because kustomize has them:
//! - IngressClass is listed with the group `networking.k8s.io/v1`, which no
//!   resource has, so `spec/ingressClassName` never follows a renamed
//!   IngressClass.
//! - Ingress `spec/tls/secretName` is listed twice for Secret.
//! - Container lists are `containers` and `initContainers` only (no
//!   `ephemeralContainers`); ConfigMap and Secret references are not looked
//!   for in ReplicationControllers.
//! - HTTPRoute backends are not in v5.5.0's table.

use crate::kustomization::FieldSpec;
use serde::Deserialize;
use std::sync::OnceLock;

/// Pod-spec fields (relative to the pod spec) that name a ConfigMap.
/// One entry of the name reference table: resources of this kind (empty
/// group or version match any) may be referred to by name from the fields
/// of `field_specs`. Also the shape of a `configurations:` file's
/// `nameReference` entries.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Hash)]
#[serde(rename_all = "camelCase")]
pub struct NameRefSpec {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub field_specs: Vec<FieldSpec>,
}

/// kustomize's built-in name reference table.
pub(crate) fn builtin() -> Vec<NameRefSpec> {
    // Every kustomization of a build starts from it: build it once.
    static TABLE: OnceLock<Vec<NameRefSpec>> = OnceLock::new();
    TABLE.get_or_init(table).clone()
}

const CONFIG_MAP_IN_POD_SPEC: [&str; 6] = [
    "volumes/configMap/name",
    "containers/env/valueFrom/configMapKeyRef/name",
    "initContainers/env/valueFrom/configMapKeyRef/name",
    "containers/envFrom/configMapRef/name",
    "initContainers/envFrom/configMapRef/name",
    "volumes/projected/sources/configMap/name",
];

/// Pod-spec fields that name a Secret.
const SECRET_IN_POD_SPEC: [&str; 7] = [
    "volumes/secret/secretName",
    "containers/env/valueFrom/secretKeyRef/name",
    "initContainers/env/valueFrom/secretKeyRef/name",
    "containers/envFrom/secretRef/name",
    "initContainers/envFrom/secretRef/name",
    "imagePullSecrets/name",
    "volumes/projected/sources/secret/name",
];

/// Kinds whose pod spec the ConfigMap and Secret entries search:
/// (version, kind, path of the pod spec). Only Pod is tied to a version.
const CONFIG_POD_SPECS: [(&str, &str, &str); 8] = [
    ("v1", "Pod", "spec"),
    ("", "PodTemplate", "template/spec"),
    ("", "Deployment", "spec/template/spec"),
    ("", "ReplicaSet", "spec/template/spec"),
    ("", "DaemonSet", "spec/template/spec"),
    ("", "StatefulSet", "spec/template/spec"),
    ("", "Job", "spec/template/spec"),
    ("", "CronJob", "spec/jobTemplate/spec/template/spec"),
];

/// Kinds whose pod spec the ServiceAccount, PersistentVolumeClaim and
/// PriorityClass entries search: (kind, path of the pod spec).
const WORKLOAD_POD_SPECS: [(&str, &str); 7] = [
    ("Pod", "spec"),
    ("StatefulSet", "spec/template/spec"),
    ("Deployment", "spec/template/spec"),
    ("ReplicationController", "spec/template/spec"),
    ("CronJob", "spec/jobTemplate/spec/template/spec"),
    ("Job", "spec/template/spec"),
    ("DaemonSet", "spec/template/spec"),
];

const RBAC: &str = "rbac.authorization.k8s.io";
const ADMISSION: &str = "admissionregistration.k8s.io";

/// A referrer field: (group, version, kind, path).
type Referrer = (&'static str, &'static str, &'static str, String);

fn referrer(group: &'static str, kind: &'static str, path: &str) -> Referrer {
    (group, "", kind, path.to_string())
}

/// `fields` (relative to a pod spec) in every kind of `CONFIG_POD_SPECS`.
fn in_config_pod_specs(fields: &[&str]) -> Vec<Referrer> {
    CONFIG_POD_SPECS
        .iter()
        .flat_map(|(version, kind, spec)| {
            fields
                .iter()
                .map(move |f| ("", *version, *kind, [spec, "/", f].concat()))
        })
        .collect()
}

/// `field` (relative to a pod spec) in every kind of `WORKLOAD_POD_SPECS`.
fn in_workload_pod_specs(field: &str) -> Vec<Referrer> {
    WORKLOAD_POD_SPECS
        .iter()
        .map(|(kind, spec)| referrer("", kind, &[spec, "/", field].concat()))
        .collect()
}

fn config_map_referrers() -> Vec<Referrer> {
    let mut v = in_config_pod_specs(&CONFIG_MAP_IN_POD_SPEC);
    v.extend([
        referrer("", "Node", "spec/configSource/configMap"),
        referrer("", "Role", "rules/resourceNames"),
        referrer("", "ClusterRole", "rules/resourceNames"),
        referrer(
            "",
            "Ingress",
            "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap",
        ),
    ]);
    v
}

fn secret_referrers() -> Vec<Referrer> {
    let mut v = in_config_pod_specs(&SECRET_IN_POD_SPEC);
    v.extend([
        referrer("", "Ingress", "spec/tls/secretName"),
        referrer(
            "",
            "Ingress",
            "metadata/annotations/ingress.kubernetes.io\\/auth-secret",
        ),
        referrer(
            "",
            "Ingress",
            "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret",
        ),
        referrer(
            "",
            "Ingress",
            "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret",
        ),
        referrer("", "Ingress", "spec/tls/secretName"),
        referrer("", "ServiceAccount", "imagePullSecrets/name"),
        referrer("", "StorageClass", "parameters/secretName"),
        referrer("", "StorageClass", "parameters/adminSecretName"),
        referrer("", "StorageClass", "parameters/userSecretName"),
        referrer("", "StorageClass", "parameters/secretRef"),
        referrer("", "Role", "rules/resourceNames"),
        referrer("", "ClusterRole", "rules/resourceNames"),
        (
            "serving.knative.dev",
            "v1",
            "Service",
            "spec/template/spec/containers/env/valueFrom/secretKeyRef/name".to_string(),
        ),
        referrer("", "PersistentVolume", "spec/azureFile/secretName"),
    ]);
    v
}

fn service_referrers() -> Vec<Referrer> {
    vec![
        referrer("apps", "StatefulSet", "spec/serviceName"),
        referrer("", "Ingress", "spec/rules/http/paths/backend/serviceName"),
        referrer("", "Ingress", "spec/backend/serviceName"),
        referrer("", "Ingress", "spec/rules/http/paths/backend/service/name"),
        referrer("", "Ingress", "spec/defaultBackend/service/name"),
        referrer("apiregistration.k8s.io", "APIService", "spec/service/name"),
        // A mapping with `name` and `namespace`: both follow the Service.
        referrer(
            ADMISSION,
            "ValidatingWebhookConfiguration",
            "webhooks/clientConfig/service",
        ),
        referrer(
            ADMISSION,
            "MutatingWebhookConfiguration",
            "webhooks/clientConfig/service",
        ),
    ]
}

fn service_account_referrers() -> Vec<Referrer> {
    // Subjects are mappings: name and namespace follow the ServiceAccount.
    let mut v = vec![
        referrer(RBAC, "RoleBinding", "subjects"),
        referrer(RBAC, "ClusterRoleBinding", "subjects"),
    ];
    v.extend(in_workload_pod_specs("serviceAccountName"));
    v
}

fn hpa_referrers() -> Vec<Referrer> {
    vec![referrer(
        "",
        "HorizontalPodAutoscaler",
        "spec/scaleTargetRef/name",
    )]
}

fn spec(group: &str, version: &str, kind: &str, referrers: Vec<Referrer>) -> NameRefSpec {
    let field_specs = referrers
        .into_iter()
        .map(|(g, v, k, path)| FieldSpec {
            group: g.to_string(),
            version: v.to_string(),
            kind: k.to_string(),
            path,
            create: false,
        })
        .collect();
    NameRefSpec {
        group: group.to_string(),
        version: version.to_string(),
        kind: kind.to_string(),
        field_specs,
    }
}

/// The built-in table, in kustomize's order.
pub(crate) fn table() -> Vec<NameRefSpec> {
    vec![
        spec("", "", "Deployment", hpa_referrers()),
        spec("", "", "ReplicationController", hpa_referrers()),
        spec("", "", "ReplicaSet", hpa_referrers()),
        spec("", "", "StatefulSet", hpa_referrers()),
        spec("", "v1", "ConfigMap", config_map_referrers()),
        spec("", "v1", "Secret", secret_referrers()),
        spec("", "v1", "Service", service_referrers()),
        spec(
            RBAC,
            "",
            "Role",
            vec![referrer(RBAC, "RoleBinding", "roleRef/name")],
        ),
        spec(
            RBAC,
            "",
            "ClusterRole",
            vec![
                referrer(RBAC, "RoleBinding", "roleRef/name"),
                referrer(RBAC, "ClusterRoleBinding", "roleRef/name"),
            ],
        ),
        spec("", "v1", "ServiceAccount", service_account_referrers()),
        spec(
            "",
            "v1",
            "PersistentVolumeClaim",
            in_workload_pod_specs("volumes/persistentVolumeClaim/claimName"),
        ),
        spec(
            "",
            "v1",
            "PersistentVolume",
            vec![
                referrer("", "PersistentVolumeClaim", "spec/volumeName"),
                referrer("", "ClusterRole", "rules/resourceNames"),
            ],
        ),
        spec(
            "storage.k8s.io",
            "v1",
            "StorageClass",
            vec![
                referrer("", "PersistentVolume", "spec/storageClassName"),
                referrer("", "PersistentVolumeClaim", "spec/storageClassName"),
                referrer(
                    "",
                    "StatefulSet",
                    "spec/volumeClaimTemplates/spec/storageClassName",
                ),
            ],
        ),
        spec(
            "scheduling.k8s.io",
            "v1",
            "PriorityClass",
            in_workload_pod_specs("priorityClassName"),
        ),
        // Sic: a group that never matches (see the module comment).
        spec(
            "networking.k8s.io/v1",
            "v1",
            "IngressClass",
            vec![referrer("", "Ingress", "spec/ingressClassName")],
        ),
        spec(
            ADMISSION,
            "",
            "ValidatingAdmissionPolicy",
            vec![referrer(
                ADMISSION,
                "ValidatingAdmissionPolicyBinding",
                "spec/policyName",
            )],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths_for(target: &str, referrer_kind: &str) -> Vec<String> {
        table()
            .into_iter()
            .filter(|s| s.kind == target)
            .flat_map(|s| s.field_specs)
            .filter(|fs| fs.kind == referrer_kind)
            .map(|fs| fs.path)
            .collect()
    }

    #[test]
    fn counts_match_kustomize() {
        let count = |kind: &str| {
            table()
                .iter()
                .filter(|s| s.kind == kind)
                .map(|s| s.field_specs.len())
                .sum::<usize>()
        };
        // Entry sizes of kustomize v5.5.0's namereference.go.
        assert_eq!(count("ConfigMap"), 52);
        assert_eq!(count("Secret"), 70);
        assert_eq!(count("Service"), 8);
        assert_eq!(count("ServiceAccount"), 9);
        assert_eq!(count("PersistentVolumeClaim"), 7);
        assert_eq!(count("PriorityClass"), 7);
        assert_eq!(table().len(), 16);
    }

    #[test]
    fn cron_jobs_and_pods() {
        assert!(
            paths_for("Secret", "CronJob")
                .contains(&"spec/jobTemplate/spec/template/spec/imagePullSecrets/name".to_string())
        );
        assert_eq!(
            paths_for("ConfigMap", "Pod")[0],
            "spec/volumes/configMap/name"
        );
        let pod_version: Vec<String> = table()
            .into_iter()
            .filter(|s| s.kind == "ConfigMap")
            .flat_map(|s| s.field_specs)
            .filter(|fs| fs.kind == "Pod")
            .map(|fs| fs.version)
            .collect();
        assert!(pod_version.iter().all(|v| v == "v1"));
        assert!(paths_for("ConfigMap", "ReplicationController").is_empty());
    }
}
