//! Resources on their way to a plugin and back: what kustomize writes into them, and
//! what it reads out of the plugin's output.
//!
//! kustomize keeps a resource's history (previous names, kinds and namespaces, name
//! prefixes and suffixes, a pending name hash) as `internal.config.kubernetes.io/...`
//! annotations, so a plugin sees them, and adds `kustomize.config.k8s.io/id` (the
//! resource's current id as YAML) so that a transformer's output can be matched back. kbuild
//! keeps that history in [`Resource`] fields; it writes the same annotations for the
//! plugin and reads them back from resources the plugin made. A transformer's output is
//! matched to the input by current id, as kustomize's `UpdateResMapValues` does: a match
//! gets the new content in place, an unmatched output is appended, an input with no
//! output is removed; the order of the output does not matter.

use crate::error::{Error, Result};
use crate::resource::Resource;
use crate::resource::id::ResId;
use crate::resource::resmap::ResMap;
use crate::yaml::{Map, Node};

/// kustomize's annotation carrying the resource's current id to a transformer plugin.
const ID: &str = "kustomize.config.k8s.io/id";
/// Generator output: ask for a name hash (`"true"`; any Go boolean).
pub(super) const NEEDS_HASH: &str = "kustomize.config.k8s.io/needs-hash";
/// Generator output: `create`, `merge` or `replace` an existing resource.
pub(super) const BEHAVIOR: &str = "kustomize.config.k8s.io/behavior";

use crate::resource::build_annotations::{
    HELM_GENERATED, INTERNAL, NEEDS_HASH_SUFFIX, PREFIXES, PREVIOUS_KINDS, PREVIOUS_NAMES,
    PREVIOUS_NAMESPACES, SUFFIXES,
};
/// kyaml's reader annotations outside the internal prefix (the legacy spellings).
const READER: [&str; 3] = [
    "config.kubernetes.io/index",
    "config.kubernetes.io/path",
    "config.k8s.io/id",
];

/// The resource as kustomize hands it to a transformer: its history and current id as
/// annotations.
pub(super) fn for_plugin(r: &Resource) -> Node {
    let mut node = r.node().clone();
    let mut add = crate::resource::build_annotations::of(r);
    add.push((ID, id_yaml(&r.id())));
    if let Some(annotations) = node.ensure_map(&["metadata", "annotations"]) {
        for (k, v) in add {
            annotations.insert(k, Node::text(v));
        }
    }
    node
}

/// The id as kustomize writes it into [`ID`]: YAML with sorted keys, empty parts left out.
fn id_yaml(id: &ResId) -> String {
    let mut m = Map::new();
    for (k, v) in [
        ("group", id.gvk.group.as_str()),
        ("version", id.gvk.version.as_str()),
        ("kind", id.gvk.kind.as_str()),
        ("name", id.name.as_str()),
        ("namespace", id.namespace.as_str()),
    ] {
        if !v.is_empty() {
            m.insert(k, Node::text(v.to_string()));
        }
    }
    let mut out = String::new();
    crate::yaml::emit::emit_document(&Node::Map(m), &mut out);
    out
}

/// A resource the plugin printed, with kustomize's and kyaml's bookkeeping annotations
/// taken out (an emptied `annotations` goes too) and the history they carried read into
/// its fields.
pub(super) fn from_plugin(mut node: Node) -> Result<Resource> {
    let mut taken = Map::new();
    if let Some(Node::Map(meta)) = node.get_mut("metadata")
        && let Some(Node::Map(a)) = meta.get_mut("annotations")
    {
        a.retain(|k, v| {
            let bookkeeping =
                k.as_str() == ID || k.starts_with(INTERNAL) || READER.contains(&k.as_str());
            if bookkeeping {
                taken.insert(k.as_str(), std::mem::take(v));
            }
            !bookkeeping
        });
        if a.is_empty() {
            meta.shift_remove("annotations");
        }
    }
    let mut r = Resource::new(node)?;
    let text = |k: &str| {
        taken
            .get(k)
            .and_then(Node::scalar_string)
            .unwrap_or_default()
    };
    let list = |k: &str| -> Vec<String> {
        text(k)
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    r.name_prefixes = list(PREFIXES);
    r.name_suffixes = list(SUFFIXES);
    let (kinds, names, namespaces) = (
        list(PREVIOUS_KINDS),
        list(PREVIOUS_NAMES),
        list(PREVIOUS_NAMESPACES),
    );
    if kinds.len() == names.len() && names.len() == namespaces.len() {
        // The group and version of earlier ids are not recorded (kustomize keeps only
        // kinds); the current ones stand in, as in kustomize.
        let gvk = r.gvk();
        r.prev_ids = kinds
            .into_iter()
            .zip(names)
            .zip(namespaces)
            .map(|((kind, name), namespace)| ResId {
                gvk: crate::resource::id::Gvk {
                    kind: kind.into(),
                    ..gvk.clone()
                },
                namespace: namespace.into(),
                name: name.into(),
            })
            .collect();
    }
    r.needs_hash = text(NEEDS_HASH_SUFFIX) == "enabled";
    r.helm_generated = text(HELM_GENERATED) == "true";
    Ok(r)
}

/// Replaces `rm`'s resources with a transformer's output, as kustomize's
/// `UpdateResMapValues`: matched by current id, in place; new ones appended; missing ones
/// removed. A matched resource keeps the history kbuild knows (the plugin sees it as
/// annotations, and kustomize would read back the same annotations).
pub(super) fn update(rm: &mut ResMap, output: Vec<Resource>, plugin: &str) -> Result<()> {
    use std::collections::{HashMap, HashSet};
    let key = |r: &Resource| r.id_key().map(std::borrow::Cow::into_owned);
    let mut index: HashMap<[String; 5], usize> = HashMap::with_capacity(rm.len());
    for (i, r) in rm.resources.iter().enumerate() {
        index.entry(key(r)).or_insert(i);
    }
    let mut kept = vec![false; rm.len()];
    let mut seen = HashSet::with_capacity(output.len());
    let mut appended = Vec::new();
    for mut r in output {
        if !seen.insert(key(&r)) {
            let id = crate::resource::resmap::id_text(&r.id());
            return Err(Error::duplicate_id(
                id.clone(),
                format!("plugin {plugin} generated duplicate resource: {id}"),
            ));
        }
        match index.get(&key(&r)) {
            Some(&i) => {
                let old = &mut rm.resources[i];
                let empty_nulls = std::mem::take(&mut r.empty_nulls);
                old.set_node(r.into_node());
                old.empty_nulls = empty_nulls;
                old.shared = Default::default();
                kept[i] = true;
            }
            None => appended.push(r),
        }
    }
    let mut kept = kept.into_iter();
    rm.resources.retain(|_| kept.next().unwrap_or(false));
    rm.resources.extend(appended);
    Ok(())
}

/// Reads a generated resource's [`NEEDS_HASH`] and [`BEHAVIOR`] annotations (taking them
/// out), as kustomize's `UpdateResourceOptions`: no hash unless asked for.
pub(super) fn generator_options(r: &mut Resource) -> Result<crate::generate::Behavior> {
    let hash = r.annotation(NEEDS_HASH);
    let behavior = r.annotation(BEHAVIOR).unwrap_or_default();
    r.set_annotation(NEEDS_HASH, None);
    r.set_annotation(BEHAVIOR, None);
    if let Some(v) = hash {
        // Go's strconv.ParseBool, kustomize's words for anything else.
        r.needs_hash = match v.as_str() {
            "1" | "t" | "T" | "true" | "TRUE" | "True" => true,
            "0" | "f" | "F" | "false" | "FALSE" | "False" => false,
            _ => {
                return Err(Error::invalid_resource(format!(
                    "the annotation \"{NEEDS_HASH}\" contains an invalid value (\"{v}\")"
                )));
            }
        };
    }
    Ok(crate::generate::Behavior::parse(&behavior))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::first_doc;

    #[test]
    fn history_goes_out_as_annotations_and_comes_back() {
        let mut r = Resource::new(first_doc(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: p-d\n  namespace: ns\n",
        ))
        .unwrap();
        r.prev_ids.push(ResId {
            gvk: r.gvk(),
            namespace: "ns".into(),
            name: "d".into(),
        });
        r.name_prefixes.push("p-".into());
        let node = for_plugin(&r);
        let a = |k: &str| node.get_path(&["metadata", "annotations", k]).cloned();
        assert_eq!(
            a(ID).unwrap().as_str(),
            Some("group: apps\nkind: Deployment\nname: p-d\nnamespace: ns\nversion: v1\n")
        );
        assert_eq!(a(PREVIOUS_NAMES).unwrap().as_str(), Some("d"));
        let back = from_plugin(node).unwrap();
        assert_eq!(back.node(), r.node());
        assert_eq!(back.prev_ids, r.prev_ids);
        assert_eq!(back.name_prefixes, r.name_prefixes);
    }

    #[test]
    fn needs_hash_reads_go_booleans_only() {
        let mut r = Resource::new(first_doc(
            "kind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    kustomize.config.k8s.io/needs-hash: \"yes\"\n",
        ))
        .unwrap();
        let e = generator_options(&mut r).unwrap_err().to_string();
        assert!(e.contains("contains an invalid value (\"yes\")"), "{e}");
    }
}
