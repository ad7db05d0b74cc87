//! Warnings for patches that leave a union field with two members set.
//!
//! Several Kubernetes fields are unions: exactly one of their members may be set. A strategic
//! merge patch that switches a volume from `emptyDir` to `hostPath` *adds* `hostPath` and
//! keeps `emptyDir` unless it says `emptyDir: null`; the API server then rejects the object.
//! kustomize says nothing; kbuild keeps the output byte-identical and reports the resource and
//! the patch as a warning (the library returns warnings, the command line prints them).
//!
//! Checked unions (in Pods and the pod templates of the built-in workload kinds):
//! - a volume's source (`emptyDir`, `hostPath`, `configMap`, ...);
//! - a probe's handler (`exec`, `httpGet`, `tcpSocket`, `grpc`) and a lifecycle hook's;
//! - an environment variable's `valueFrom` source;
//! - a Deployment's `strategy` with `type: Recreate` and a `rollingUpdate`, and a DaemonSet's
//!   or StatefulSet's `updateStrategy` with `type: OnDelete` and a `rollingUpdate`.
//!
//! Only conflicts a patch introduces are reported: one already in the input is left alone.

use crate::error::Result;
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use crate::yaml::{Map, Node};
use std::collections::{BTreeSet, HashSet};

/// The members of a volume's source union (Kubernetes `VolumeSource`).
const VOLUME_SOURCES: [&str; 29] = [
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
];

const PROBE_HANDLERS: [&str; 4] = ["exec", "httpGet", "tcpSocket", "grpc"];
const LIFECYCLE_HANDLERS: [&str; 4] = ["exec", "httpGet", "tcpSocket", "sleep"];
const ENV_SOURCES: [&str; 4] = [
    "configMapKeyRef",
    "secretKeyRef",
    "fieldRef",
    "resourceFieldRef",
];

/// Where the pod spec of a built-in kind is.
fn pod_spec_path(group: &str, kind: &str) -> Option<&'static [&'static str]> {
    if !matches!(group, "" | "apps" | "extensions" | "batch") {
        return None;
    }
    Some(match kind {
        "Pod" => &["spec"],
        "PodTemplate" => &["template", "spec"],
        "Deployment"
        | "ReplicaSet"
        | "StatefulSet"
        | "DaemonSet"
        | "Job"
        | "ReplicationController" => &["spec", "template", "spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => return None,
    })
}

/// The union conflicts of one resource, each described with its field path.
pub(crate) fn union_conflicts(res: &Resource) -> Vec<String> {
    let mut out = Vec::new();
    // The group and kind as borrowed text: this runs around every patch.
    let api_version = text_at(res.node(), "apiVersion");
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let kind = text_at(res.node(), "kind");
    if let Some(path) = pod_spec_path(group, &kind)
        && let Some(spec) = res.node().get_path(path).and_then(Node::as_map)
    {
        pod_spec(spec, path, &mut out);
    }
    let strategy = match (group, kind.as_ref()) {
        ("apps" | "extensions", "Deployment") => Some(("strategy", "Recreate")),
        ("apps" | "extensions", "DaemonSet" | "StatefulSet") => {
            Some(("updateStrategy", "OnDelete"))
        }
        _ => None,
    };
    if let Some((field, exclusive)) = strategy {
        let s = res.node().get_path(&["spec", field]);
        let is_exclusive = s.and_then(|s| s.get_str(&["type"])) == Some(exclusive);
        let rolling = s
            .and_then(|s| s.get("rollingUpdate"))
            .is_some_and(|r| !r.is_null());
        if is_exclusive && rolling {
            out.push(format!(
                "spec.{field}.type is {exclusive} but spec.{field}.rollingUpdate is still set"
            ));
        }
    }
    out
}

fn pod_spec(spec: &Map, path: &[&str], out: &mut Vec<String>) {
    // Where the pod spec is, written out only for a conflict.
    let at = || path.join(".");
    let name_of = |n: &'_ Node| n.get_str(&["name"]).unwrap_or("?").to_string();
    for (i, v) in items(spec.get("volumes")).enumerate() {
        members(
            v,
            &VOLUME_SOURCES,
            &|| format!("volume '{}' ({}.volumes[{i}])", name_of(v), at()),
            out,
        );
    }
    const PROBES: [&str; 3] = ["livenessProbe", "readinessProbe", "startupProbe"];
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (i, c) in items(spec.get(list)).enumerate() {
            let Some(fields) = c.as_map() else { continue };
            // Descriptions are only written for conflicts: this runs around every patch.
            let here = || format!("container '{}' ({}.{list}[{i}])", name_of(c), at());
            // The fields looked at, found in one pass over the container.
            let (mut probes, mut lifecycle, mut env) = ([None; 3], None, None);
            for (key, value) in fields {
                match key.as_str() {
                    "livenessProbe" => probes[0] = Some(value),
                    "readinessProbe" => probes[1] = Some(value),
                    "startupProbe" => probes[2] = Some(value),
                    "lifecycle" => lifecycle = Some(value),
                    "env" => env = Some(value),
                    _ => {}
                }
            }
            for (probe, p) in PROBES.iter().zip(probes) {
                if let Some(p) = p {
                    members(p, &PROBE_HANDLERS, &|| format!("{} {probe}", here()), out);
                }
            }
            for hook in ["postStart", "preStop"] {
                if let Some(h) = lifecycle.and_then(|l| l.get(hook)) {
                    members(
                        h,
                        &LIFECYCLE_HANDLERS,
                        &|| format!("{} lifecycle.{hook}", here()),
                        out,
                    );
                }
            }
            for (j, e) in items(env).enumerate() {
                if let Some(from) = e.get("valueFrom") {
                    let var = e.get_str(&["name"]).unwrap_or("?");
                    members(
                        from,
                        &ENV_SOURCES,
                        &|| format!("{} env[{j}] '{var}' valueFrom", here()),
                        out,
                    );
                }
            }
        }
    }
}

/// A top-level scalar of the resource as text (empty when missing), as its id reads it.
fn text_at<'n>(node: &'n Node, key: &str) -> std::borrow::Cow<'n, str> {
    match node.get(key) {
        Some(Node::Str(s)) => std::borrow::Cow::Borrowed(s),
        Some(n) => std::borrow::Cow::Owned(n.scalar_string().unwrap_or_default()),
        None => std::borrow::Cow::Borrowed(""),
    }
}

fn items(list: Option<&Node>) -> impl Iterator<Item = &Node> {
    list.and_then(Node::as_seq).into_iter().flatten()
}

/// Reports `what` when more than one of `union` is set (null counts as unset).
fn members(node: &Node, union: &[&str], what: &dyn Fn() -> String, out: &mut Vec<String>) {
    let Some(map) = node.as_map() else { return };
    // One pass over the (few) fields set, rather than a lookup per member (29 for a volume):
    // this runs for every volume, probe and env source of each resource a patch changes.
    let in_union = |k: &str| union.contains(&k);
    if map
        .iter()
        .filter(|(k, v)| !v.is_null() && in_union(k))
        .nth(1)
        .is_none()
    {
        return;
    }
    let is_set = |m: &str| map.get(m).is_some_and(|v| !v.is_null());
    let set: Vec<&str> = union.iter().copied().filter(|m| is_set(m)).collect();
    out.push(format!(
        "{} sets {}, but only one may be set",
        what(),
        set.join(" and ")
    ));
}

/// The conflicts of one resource, each prefixed with its id.
fn prefixed_conflicts(res: &Resource) -> impl Iterator<Item = String> {
    let conflicts = union_conflicts(res);
    let id = if conflicts.is_empty() {
        None
    } else {
        Some(res.id())
    };
    conflicts.into_iter().map(move |c| match &id {
        Some(id) => format!("{id}: {c}"),
        None => c,
    })
}

/// Every conflict in the map, each prefixed with its resource's id.
fn all_conflicts(resmap: &ResMap) -> HashSet<String> {
    resmap.iter().flat_map(prefixed_conflicts).collect()
}

/// The resources a patch changes, reported by the patch as it goes, so that
/// only those are checked: looking at the whole map around every patch made
/// patching quadratic.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Conflicts of the changed resources before their first change (of all
    /// resources once `all` is set), prefixed with the resource's id.
    before: HashSet<String>,
    /// Positions of the changed resources in the map as it is now.
    changed: BTreeSet<usize>,
    /// Set by a transformer that may change any resource.
    all: bool,
}

impl Changes {
    /// Notes that the resource at `index` is about to change. Call it before
    /// changing the resource: its conflicts then are those the patch found.
    pub(crate) fn will_change(&mut self, index: usize, res: &Resource) {
        if !self.all && self.changed.insert(index) {
            self.before.extend(prefixed_conflicts(res));
        }
    }

    /// Whether any resource was noted as changing (for the warning about a patch that
    /// changes nothing).
    pub(crate) fn any(&self) -> bool {
        self.all || !self.changed.is_empty()
    }

    /// Notes that any resource of `resmap` may change (a transformer that is
    /// not a patch). Call it before changing them.
    pub(crate) fn will_change_all(&mut self, resmap: &ResMap) {
        if !self.all {
            self.before.extend(all_conflicts(resmap));
            self.all = true;
            self.changed.clear();
        }
    }

    /// Notes that resources were removed from the map: `kept[i]` says whether
    /// the one at position `i` stayed. Positions of changed resources follow.
    pub(crate) fn removed(&mut self, kept: &[bool]) {
        let mut new_index = Vec::with_capacity(kept.len());
        let mut next = 0;
        for k in kept {
            new_index.push(next);
            next += usize::from(*k);
        }
        self.changed = self
            .changed
            .iter()
            .filter(|i| kept.get(**i).copied().unwrap_or(false))
            .map(|i| new_index[*i])
            .collect();
    }
}

/// Runs `apply` (one patch, which reports what it changes into its
/// [`Changes`]) on `resmap` and adds a warning to `warnings` for each union
/// conflict it introduced; `patch` names the patch (kustomization file and
/// entry).
pub(crate) fn check_changes(
    resmap: &mut ResMap,
    warnings: &mut Vec<String>,
    patch: &dyn Fn() -> String,
    apply: impl FnOnce(&mut ResMap, &mut Changes) -> Result<()>,
) -> Result<()> {
    let mut changes = Changes::default();
    apply(resmap, &mut changes)?;
    let after: HashSet<String> = if changes.all {
        all_conflicts(resmap)
    } else {
        changes
            .changed
            .iter()
            .filter_map(|i| resmap.resources.get(*i))
            .flat_map(prefixed_conflicts)
            .collect()
    };
    let mut new: Vec<String> = after.difference(&changes.before).cloned().collect();
    if new.is_empty() {
        return Ok(());
    }
    if !changes.all {
        // Rare (the patch left a conflict): a resource the patch did not change
        // may already have had it, under the same id (a patch that renames a
        // resource onto another's id). Such a conflict is not new.
        let unchanged: HashSet<String> = resmap
            .iter()
            .enumerate()
            .filter(|(i, _)| !changes.changed.contains(i))
            .flat_map(|(_, r)| prefixed_conflicts(r))
            .collect();
        new.retain(|c| !unchanged.contains(c));
    }
    new.sort();
    let patch = patch();
    for conflict in new {
        warnings.push(format!("{patch} leaves {conflict}"));
    }
    Ok(())
}

/// Runs `apply`, a transformer that does not report what it changes, on
/// `resmap`, and warns about each union conflict it introduced anywhere (see
/// [`check_changes`]).
#[cfg(test)]
fn check_patch(
    resmap: &mut ResMap,
    warnings: &mut Vec<String>,
    patch: &dyn Fn() -> String,
    apply: impl FnOnce(&mut ResMap) -> Result<()>,
) -> Result<()> {
    check_changes(resmap, warnings, patch, |rm, changes| {
        changes.will_change_all(rm);
        apply(rm)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn res(v: serde_json::Value) -> Resource {
        Resource::new(Node::from(&v)).unwrap()
    }

    #[test]
    fn two_volume_sources() {
        let r = res(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"volumes": [
                {"name": "data", "emptyDir": {}, "hostPath": {"path": "/x"}},
                {"name": "ok", "emptyDir": {}, "hostPath": null}]}}}}),
        );
        assert_eq!(
            union_conflicts(&r),
            vec![
                "volume 'data' (spec.template.spec.volumes[0]) sets hostPath and emptyDir, but only one may be set"
            ]
        );
    }

    #[test]
    fn recreate_with_rolling_update_and_probe_handlers() {
        let r = res(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"strategy": {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}},
                "template": {"spec": {"containers": [{"name": "c",
                    "readinessProbe": {"exec": {"command": ["true"]}, "httpGet": {"port": 80}}}]}}}}),
        );
        let got = union_conflicts(&r);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].contains(
            "container 'c' (spec.template.spec.containers[0]) readinessProbe sets exec and httpGet"
        ));
        assert_eq!(
            got[1],
            "spec.strategy.type is Recreate but spec.strategy.rollingUpdate is still set"
        );
    }

    #[test]
    fn daemonset_on_delete_and_custom_kinds() {
        let ds = res(
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"},
            "spec": {"updateStrategy": {"type": "OnDelete", "rollingUpdate": {}}}}),
        );
        assert_eq!(union_conflicts(&ds).len(), 1);
        let custom = res(
            json!({"apiVersion": "example.com/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"strategy": {"type": "Recreate", "rollingUpdate": {}}}}),
        );
        assert!(union_conflicts(&custom).is_empty());
    }

    #[test]
    fn only_new_conflicts_are_reported() {
        let conflicted = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"volumes": [{"name": "v", "emptyDir": {}, "hostPath": {}}]}});
        let mut rm = ResMap::new();
        rm.resources.push(res(conflicted.clone()));
        let mut warnings = Vec::new();
        check_patch(&mut rm, &mut warnings, &|| "p".into(), |_| Ok(())).unwrap();
        assert!(warnings.is_empty());
        let mut rm = ResMap::new();
        rm.resources.push(res(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"volumes": [{"name": "v", "emptyDir": {}}]}}),
        ));
        check_patch(&mut rm, &mut warnings, &|| "patch 'x.yaml'".into(), |rm| {
            rm.resources[0] = res(conflicted);
            Ok(())
        })
        .unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("patch 'x.yaml' leaves v1 Pod"),
            "{}",
            warnings[0]
        );
    }

    fn pod(name: &str, sources: serde_json::Value) -> Resource {
        let mut volume = json!({"name": "v"});
        for (k, v) in sources.as_object().unwrap() {
            volume[k] = v.clone();
        }
        res(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"volumes": [volume]}}),
        )
    }

    #[test]
    fn only_reported_resources_are_checked_and_positions_follow_removals() {
        let mut changes = Changes::default();
        changes.changed.extend([0, 1, 4]);
        changes.removed(&[true, false, true, true, true]);
        assert_eq!(changes.changed.iter().copied().collect::<Vec<_>>(), [0, 3]);

        let mut rm = ResMap::new();
        rm.resources.push(pod("a", json!({"emptyDir": {}})));
        rm.resources.push(pod("b", json!({"emptyDir": {}})));
        let mut warnings = Vec::new();
        check_changes(&mut rm, &mut warnings, &|| "p".into(), |rm, changes| {
            changes.will_change(1, &rm.resources[1]);
            rm.resources[1] = pod("b", json!({"emptyDir": {}, "hostPath": {}}));
            // An unreported change is not looked at.
            rm.resources[0] = pod("a", json!({"emptyDir": {}, "nfs": {}}));
            Ok(())
        })
        .unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("p leaves v1 Pod b: "),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_conflict_an_unchanged_resource_had_under_the_same_id_is_not_new() {
        // As when the whole map was compared: a patch that renames a resource
        // onto another's id, with the same conflict, adds nothing new.
        let mut rm = ResMap::new();
        rm.resources
            .push(pod("a", json!({"emptyDir": {}, "hostPath": {}})));
        rm.resources.push(pod("b", json!({"emptyDir": {}})));
        let mut warnings = Vec::new();
        check_changes(&mut rm, &mut warnings, &|| "p".into(), |rm, changes| {
            changes.will_change(1, &rm.resources[1]);
            rm.resources[1] = pod("a", json!({"emptyDir": {}, "hostPath": {}}));
            Ok(())
        })
        .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}
