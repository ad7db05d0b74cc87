//! Local configuration: resources annotated `config.kubernetes.io/local-config` are inputs to
//! the build, not part of its output.
//!
//! kustomize keeps them through every level of the build — so bases and overlays can patch
//! them and they serve as name reference sources (an `IngressHost` whose prefixed name is
//! copied into an Ingress) — and drops them at the very end, after name references are fixed.
//! Any value but `"false"` marks a resource local (`"true"`, `""`, `"yes"`, `"True"` all do;
//! checked with `kubectl kustomize`).

use crate::resource::resmap::ResMap;

/// The annotation that marks a resource as local configuration.
pub(crate) const LOCAL_CONFIG_ANNOTATION: &str = "config.kubernetes.io/local-config";

/// Whether kustomize treats the resource as local configuration.
pub(crate) fn is_local_config(res: &crate::resource::Resource) -> bool {
    res.annotation(LOCAL_CONFIG_ANNOTATION)
        .is_some_and(|v| v != "false")
}

/// Drops local-configuration resources from the build's output.
pub(crate) fn drop_local_config(resmap: &mut ResMap) {
    resmap.resources.retain(|r| !is_local_config(r));
}
