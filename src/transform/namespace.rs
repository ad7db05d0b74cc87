//! `namespace`: moves namespaced resources into one namespace.

use crate::config::builtin_specs;
use crate::config::fieldspec::{CreateKind, SplitSpecs, from_table, merge_specs};
use crate::error::{Error, Result};
use crate::kustomization::FieldSpec;
use crate::openapi;
use crate::resource::resmap::ResMap;
use crate::yaml::Node;

/// Which role-binding subjects follow the namespace
/// (`setRoleBindingSubjects`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Subjects {
    /// ServiceAccount subjects named "default" (kustomize's default).
    #[default]
    DefaultOnly,
    /// Every ServiceAccount subject.
    AllServiceAccounts,
    None,
}

impl Subjects {
    pub(crate) fn parse(s: &str) -> Result<Subjects> {
        match s {
            "" | "defaultOnly" => Ok(Subjects::DefaultOnly),
            "allServiceAccounts" => Ok(Subjects::AllServiceAccounts),
            "none" => Ok(Subjects::None),
            other => Err(Error::invalid_config(format!(
                "setRoleBindingSubjects: unknown value {other:?}; expected defaultOnly, allServiceAccounts or none"
            ))),
        }
    }
}

/// Options of the namespace transformer.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Options {
    /// Only set namespaces that are not set yet.
    pub unset_only: bool,
    pub subjects: Subjects,
    /// Leave resources made by helm alone (kustomize v5.8.0 and later).
    pub skip_helm_generated: bool,
}

/// The field specs of the kustomization-level `namespace` field: the
/// built-in ones plus those from `configurations`.
pub(crate) fn kustomization_specs(extra: &[FieldSpec]) -> Vec<FieldSpec> {
    let mut specs = from_table(builtin_specs::NAMESPACE);
    merge_specs(&mut specs, extra);
    specs
}

/// Sets the namespace of every namespaced resource (`metadata.namespace` is
/// always handled, whatever the specs say, and only on namespaced kinds),
/// the fields of `specs`, a core Namespace's own name, and role-binding
/// subjects per `opts`.
pub(crate) fn apply(
    resmap: &mut ResMap,
    ns: &str,
    specs: &[FieldSpec],
    opts: Options,
) -> Result<()> {
    if ns.is_empty() {
        return Ok(());
    }
    // kustomize sets metadata.namespace itself (namespaced kinds only), and
    // follows `metadata/name` specs only on resources whose apiVersion is "v1",
    // so a Namespace of another group keeps its name.
    let specs: Vec<FieldSpec> = specs
        .iter()
        .filter(|f| f.path != "metadata/namespace")
        .cloned()
        .collect();
    let v1_split = SplitSpecs::new(&specs);
    let without_name: Vec<FieldSpec> = specs
        .iter()
        .filter(|f| f.path != "metadata/name")
        .cloned()
        .collect();
    let other_split = SplitSpecs::new(&without_name);
    // Whether it wrote: with `unsetOnly` a field that has a value is left alone.
    let set = |n: &mut Node| {
        let empty = n.is_null() || n.as_str().is_some_and(str::is_empty);
        if !opts.unset_only || empty {
            *n = Node::text(ns.to_string());
            return true;
        }
        false
    };
    // What a record compares besides the specs' paths, made once for every resource.
    let namespace_field = crate::config::fieldspec::scope_of(&["metadata", "namespace"]);
    // Each resource on its own (on the thread pool for a large map).
    resmap.try_for_each_mut(
        || (),
        |(), _, res| {
            if opts.skip_helm_generated && res.helm_generated {
                // kustomize: "Helm should take care of it" (the chart got the namespace as
                // its release namespace).
                return Ok(());
            }
            let gvk = res.gvk();
            res.store_prev_id();
            let namespaced = openapi::is_namespaced(&gvk.group, &gvk.version, &gvk.kind);
            let split = if res.node().get_str(&["apiVersion"]) == Some("v1") {
                &v1_split
            } else {
                &other_split
            };
            // `metadata.namespace` and the specs' paths are all this step writes: a record
            // compares only those after it.
            res.node_mut_within(|node, within| {
                if let Some(within) = within {
                    within.push(namespace_field.clone());
                    split.scope(&gvk, within);
                }
                if namespaced && let Some(meta) = node.ensure_map(&["metadata"]) {
                    set(meta.entry("namespace".to_string()).or_insert(Node::Null));
                }
                split.apply(node, &gvk, CreateKind::Scalar, &mut |n| {
                    if matches!(n, Node::Map(_) | Node::Seq(_)) {
                        return Err(Error::invalid_config(
                            "namespace field specs must point at scalar fields",
                        ));
                    }
                    set(n);
                    Ok(())
                })
            })?;
            if gvk.group == "rbac.authorization.k8s.io"
                && (gvk.kind == "RoleBinding" || gvk.kind == "ClusterRoleBinding")
            {
                let written = set_subjects(res.node_mut(), &set, opts.subjects);
                // A subject that already had this namespace shows no change: note the write,
                // or `explain` would credit the namespace to the file that wrote it first.
                if !written.is_empty() {
                    res.note_written(|node| {
                        crate::provenance::writes::element_fields(
                            node,
                            "subjects",
                            &written,
                            "namespace",
                        )
                    });
                }
            }
            Ok(())
        },
    )?;
    if let Some((a, b)) = resmap.find_conflict() {
        let (a, b) = (&resmap.resources[a], &resmap.resources[b]);
        let id = crate::resource::resmap::id_text(&a.id());
        return Err(Error::duplicate_id(
            id.clone(),
            format!(
                "namespace transformation produces ID conflict: {} (originally {}) and {} (originally {}) both become {id}",
                a.id(),
                a.orig_id(),
                b.id(),
                b.orig_id(),
            ),
        ));
    }
    Ok(())
}

/// ServiceAccount subjects of role bindings follow the namespace per `mode`; returns the
/// indices of the subjects whose namespace `set` wrote.
fn set_subjects(node: &mut Node, set: &dyn Fn(&mut Node) -> bool, mode: Subjects) -> Vec<usize> {
    let mut written = Vec::new();
    if mode == Subjects::None {
        return written;
    }
    let Some(Node::Seq(subjects)) = node.get_mut("subjects") else {
        return written;
    };
    for (i, s) in subjects.iter_mut().enumerate() {
        let sa = s.get_str(&["kind"]) == Some("ServiceAccount");
        let wanted = match mode {
            Subjects::DefaultOnly => s.get_str(&["name"]) == Some("default"),
            Subjects::AllServiceAccounts => true,
            Subjects::None => false,
        };
        if sa
            && wanted
            && let Some(m) = s.as_map_mut()
            && set(m.entry("namespace".to_string()).or_insert(Node::Null))
        {
            written.push(i);
        }
    }
    written
}
