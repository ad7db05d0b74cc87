//! The warning for a strategic-merge patch that replaces, whole, a list of a custom
//! resource whose CRD (in the build's output) declares it a map keyed by some fields
//! (`x-kubernetes-list-type: map`, `x-kubernetes-list-map-keys`).
//!
//! kustomize merges a custom resource's lists only with a schema that says they merge, and
//! by default it has none for custom resources: a patch's `groups:` list of a
//! PrometheusRule takes the place of the resource's, and the groups the patch does not list
//! are gone, silently. kbuild's output is kustomize's; the warning names the patch (the file
//! and the line of the list), the resource, the list, what was dropped and the fix
//! (`kbuild openapi from-crds`, or `--crd-merge-keys`).
//!
//! Two steps, because a CRD may come into the build after the patch (an overlay adding the
//! CRDs next to a base's patched resources): while patching, [`find`] notes on the resource
//! each list the patch replaces ([`crate::resource::replaced`]); at the end, [`warn`] keeps
//! those whose CRD declares keys.
//!
//! Which lists a patch replaces follows kyaml's walk of a resource without a schema: maps
//! merge field by field (so the walk goes on where both sides hold a map), lists are
//! replaced; a map that has an `apiVersion` and `kind` of its own with a schema (an embedded
//! Deployment, say) is merged by that schema, so the walk stops there; a `$patch` directive
//! says what the patch means to happen, so the walk stops there too.

use std::collections::HashSet;
use std::sync::Arc;

use crate::openapi::{Schemas, crd};
use crate::resource::Resource;
use crate::resource::replaced::ReplacedList;
use crate::resource::resmap::ResMap;
use crate::yaml::Node;

/// The patch being applied, for the note: its name in warnings, and its file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PatchSource<'a> {
    /// As warnings name the patch entry ("patches[0] 'p.yaml' of …/kustomization.yaml").
    pub name: &'a str,
    /// The file as the kustomization names it; `None` for an inline patch.
    pub file: Option<&'a str>,
    /// The patch text (of the file, or inline).
    pub text: &'a str,
}

/// The lists of `dest` that `patch` replaces whole, each as (path, the resource's list, the
/// patch's list); only for a resource whose kind the schemas do not know (the caller
/// checks).
pub(crate) fn find(dest: &Node, patch: &Node, schemas: &Schemas) -> Vec<(Vec<String>, Node, Node)> {
    let mut out = Vec::new();
    walk(dest, patch, schemas, &mut Vec::new(), &mut out);
    out
}

fn walk(
    dest: &Node,
    patch: &Node,
    schemas: &Schemas,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Node, Node)>,
) {
    match (dest, patch) {
        (Node::Map(d), Node::Map(p)) => {
            if p.contains_key("$patch") {
                return;
            }
            if !path.is_empty() && has_schema(d, schemas) {
                return;
            }
            for (key, pv) in p {
                if key.starts_with('$') {
                    continue;
                }
                if let Some(dv) = d.get(key.as_str()) {
                    path.push(key.to_string());
                    walk(dv, pv, schemas, path, out);
                    path.pop();
                }
            }
        }
        (Node::Seq(d), Node::Seq(_)) if !d.is_empty() && !path.is_empty() => {
            out.push((path.clone(), dest.clone(), patch.clone()));
        }
        _ => {}
    }
}

/// Whether a map names a kind the schemas know, which kyaml then merges by that schema.
fn has_schema(map: &crate::yaml::Map, schemas: &Schemas) -> bool {
    let text = |k: &str| map.get(k).and_then(Node::as_str).filter(|s| !s.is_empty());
    match (text("apiVersion"), text("kind")) {
        (Some(api_version), Some(kind)) => schemas.lookup_api_version(api_version, kind).is_some(),
        _ => false,
    }
}

/// Notes the lists `find` found on the resource the patch was applied to.
pub(crate) fn note(
    res: &mut Resource,
    found: Vec<(Vec<String>, Node, Node)>,
    source: &PatchSource,
    doc: usize,
) {
    if found.is_empty() {
        return;
    }
    let name: Arc<str> = Arc::from(source.name);
    let file = source
        .file
        .map(|f| (Arc::<str>::from(f), Arc::<str>::from(source.text), doc));
    for (path, before, patch_list) in found {
        res.replaced_lists.push(ReplacedList {
            path,
            before,
            patch_list,
            patch: name.clone(),
            file: file.clone(),
        });
    }
}

/// Adds a warning for each list noted on the resources of `resmap` that a CRD in `resmap`,
/// or else among `extra` (the CRD files the user named, `--crds`), declares
/// `x-kubernetes-list-type: map`.
pub(crate) fn warn(resmap: &ResMap, extra: &[Node], warnings: &mut Vec<String>) {
    if resmap.iter().all(|r| r.replaced_lists.is_empty()) {
        return;
    }
    let crds: Vec<&Node> = resmap
        .iter()
        .filter(|r| {
            let gvk = r.gvk();
            gvk.group == "apiextensions.k8s.io" && gvk.kind == "CustomResourceDefinition"
        })
        .map(|r| r.node())
        .chain(extra)
        .collect();
    let mut seen = HashSet::new();
    for res in resmap.iter() {
        if res.replaced_lists.is_empty() {
            continue;
        }
        let gvk = res.gvk();
        let crd = crds.iter().find(|c| {
            c.get_str(&["spec", "group"]) == Some(gvk.group.as_str())
                && c.get_str(&["spec", "names", "kind"]) == Some(gvk.kind.as_str())
        });
        let Some(crd) = crd else { continue };
        for list in res.replaced_lists.iter() {
            let Some(keys) = crd::list_map_keys(crd, &gvk.version, &list.path) else {
                continue;
            };
            let text = message(res, crd, list, &keys);
            if seen.insert(text.clone()) {
                warnings.push(text);
            }
        }
    }
}

fn message(res: &Resource, crd: &Node, list: &ReplacedList, keys: &[String]) -> String {
    let path = list.path.join(".");
    let at = list
        .file
        .as_ref()
        .and_then(|(file, text, doc)| {
            line_of(text, *doc, &list.path).map(|l| format!(" ({file}:{l})"))
        })
        .unwrap_or_default();
    let keyed = match keys {
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        [] => String::new(),
    };
    let dropped = dropped(&list.before, &list.patch_list, keys);
    let lost = if dropped.is_empty() {
        "the fields of its items that the patch does not repeat".to_string()
    } else {
        format!("the items the patch does not list ({})", dropped.join(", "))
    };
    format!(
        "{}{at} replaces the list {path} of {} whole, dropping {lost}: its CRD {} declares \
         the list a map keyed by {keyed} (x-kubernetes-list-type: map), which kustomize does \
         not read. To merge by {keyed}, name the file `kbuild openapi from-crds` writes in \
         `openapi: path:`, or build with --crd-merge-keys",
        list.patch,
        res.id(),
        crd.get_str(&["metadata", "name"]).unwrap_or_default(),
    )
}

/// The resource's items whose keys the patch's list has no item for, as `name=alerts`.
fn dropped(before: &Node, patch: &Node, keys: &[String]) -> Vec<String> {
    let key_of = |item: &Node| -> Vec<String> {
        keys.iter()
            .map(|k| {
                item.get(k)
                    .and_then(Node::scalar_string)
                    .unwrap_or_default()
            })
            .collect()
    };
    let kept: HashSet<Vec<String>> = patch.as_seq().into_iter().flatten().map(key_of).collect();
    before
        .as_seq()
        .into_iter()
        .flatten()
        .map(key_of)
        .filter(|k| !kept.contains(k))
        .map(|k| {
            keys.iter()
                .zip(&k)
                .map(|(key, value)| format!("{key}={value}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

/// The 1-based line, in the patch file `text`, of the list at `path` in its `doc`th
/// document (documents start at `---` lines; empty ones do not count, as the patch loader
/// skips them).
fn line_of(text: &str, doc: usize, path: &[String]) -> Option<usize> {
    let mut starts = vec![0];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        if line.starts_with("---") {
            starts.push(offset);
        }
    }
    starts.push(text.len());
    let docs = starts.windows(2).map(|w| (w[0], &text[w[0]..w[1]]));
    let (start, body) = docs
        .filter(|(_, body)| {
            body.lines().any(|l| {
                let l = l.trim();
                !l.is_empty() && !l.starts_with('#') && !l.starts_with("---")
            })
        })
        .nth(doc)?;
    let steps: Vec<crate::yaml::parse::PathStep> = path
        .iter()
        .map(|p| crate::yaml::parse::PathStep::Key(p.clone()))
        .collect();
    let (line, _) = crate::yaml::locate::locate(body, &steps)?;
    Some(text[..start].lines().count() + line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_of_lists_in_multi_document_files() {
        let text = "# rules\napiVersion: v1\nkind: A\nspec:\n  groups:\n  - name: a\n---\n---\nkind: B\nspec:\n  x: 1\n  groups: []\n";
        let path = vec!["spec".to_string(), "groups".to_string()];
        assert_eq!(line_of(text, 0, &path), Some(5));
        assert_eq!(line_of(text, 1, &path), Some(12));
        assert_eq!(line_of(text, 2, &path), None);
    }

    #[test]
    fn finds_lists_through_maps_only() {
        let dest = Node::from(&json!({"spec": {"groups": [{"name": "a"}], "empty": [],
            "inner": {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"x": [1]}},
            "kept": {"list": [1]}, "directive": {"list": [1]}}}));
        let patch = Node::from(&json!({"spec": {"groups": [{"name": "b"}], "empty": [1],
            "inner": {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"x": [2]}},
            "kept": {"list": [2]}, "directive": {"$patch": "replace", "list": [2]}}}));
        let found = find(&dest, &patch, Schemas::builtin());
        let paths: Vec<String> = found.iter().map(|(p, _, _)| p.join(".")).collect();
        assert_eq!(paths, vec!["spec.groups", "spec.kept.list"]);
    }

    #[test]
    fn dropped_items_by_all_keys() {
        let before = Node::from(
            &json!([{"name": "dns", "protocol": "UDP"}, {"name": "dns", "protocol": "TCP"}, {"name": "web", "protocol": "TCP"}]),
        );
        let patch = Node::from(&json!([{"name": "dns", "protocol": "TCP", "port": 1}]));
        let keys = vec!["name".to_string(), "protocol".to_string()];
        assert_eq!(
            dropped(&before, &patch, &keys),
            vec!["name=dns,protocol=UDP", "name=web,protocol=TCP"]
        );
    }
}
