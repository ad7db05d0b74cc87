//! TEMPORARY stub until the generated schema table lands.

const CLUSTER_SCOPED: &[&str] = &[
    "Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding",
    "CustomResourceDefinition", "StorageClass", "PriorityClass", "APIService",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "PodSecurityPolicy",
    "CSIDriver", "CSINode", "VolumeAttachment", "RuntimeClass", "IngressClass",
    "CertificateSigningRequest", "ComponentStatus", "FlowSchema", "PriorityLevelConfiguration",
];

/// Whether a kind is namespaced (unknown kinds are).
pub fn is_namespaced(group: &str, kind: &str) -> bool {
    if kind == "Namespace" && !group.is_empty() {
        return true;
    }
    !CLUSTER_SCOPED.contains(&kind)
}
