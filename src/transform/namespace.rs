//! `namespace`: moves namespaced resources into one namespace.

use crate::builtin_specs;
use crate::error::Result;
use crate::fieldspec::{apply_specs, from_table, CreateKind};
use crate::kustomization::FieldSpec;
use crate::openapi;
use crate::resmap::ResMap;
use crate::yaml::Node;

/// Sets the namespace of every namespaced resource, plus the extra fields
/// kustomize sets (a Namespace's own name, APIService and CRD webhook
/// services, and ServiceAccount subjects named "default" in role bindings).
pub fn apply(resmap: &mut ResMap, ns: &str, extra_specs: &[FieldSpec]) -> Result<()> {
    if ns.is_empty() {
        return Ok(());
    }
    let mut specs = from_table(builtin_specs::NAMESPACE);
    crate::fieldspec::merge_specs(&mut specs, extra_specs);
    for res in resmap.iter_mut() {
        let gvk = res.gvk();
        res.store_prev_id();
        if openapi::is_namespaced(&gvk.group, &gvk.version, &gvk.kind) {
            res.set_namespace(ns);
        } else if gvk.kind == "Namespace" && gvk.group.is_empty() {
            // Only the core Namespace kind is renamed; other groups' kinds
            // called Namespace are ordinary resources.
            res.set_name(ns);
        }
        apply_specs(&mut res.node, &gvk, &specs, CreateKind::Scalar, &mut |n| {
            *n = Node::Str(ns.to_string());
            Ok(())
        })?;
        if gvk.group == "rbac.authorization.k8s.io"
            && (gvk.kind == "RoleBinding" || gvk.kind == "ClusterRoleBinding")
        {
            set_default_subjects(&mut res.node, ns);
        }
    }
    if let Some((a, b)) = resmap.find_conflict() {
        let (a, b) = (&resmap.resources[a], &resmap.resources[b]);
        return Err(crate::Error::msg(format!(
            "namespace transformation produces ID conflict: {} (originally {}) and {} (originally {}) both become {}",
            a.id(),
            a.orig_id(),
            b.id(),
            b.orig_id(),
            crate::resmap::id_text(&a.id())
        )));
    }
    Ok(())
}

/// kustomize's default for role-binding subjects: only ServiceAccounts named
/// "default" follow the namespace.
fn set_default_subjects(node: &mut Node, ns: &str) {
    let Some(Node::Seq(subjects)) = node.get_mut("subjects") else {
        return;
    };
    for s in subjects.iter_mut() {
        let is_default_sa = s.get_str(&["kind"]) == Some("ServiceAccount")
            && s.get_str(&["name"]) == Some("default");
        if is_default_sa {
            if let Some(m) = s.as_map_mut() {
                m.insert("namespace".to_string(), Node::Str(ns.to_string()));
            }
        }
    }
}
