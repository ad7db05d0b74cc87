//! `merge3` across generated names. A ConfigMap or Secret that a kustomization generates
//! carries a hash of its content in its name (`settings-7h2kd8m5bt`), so one generator has
//! another name in each of original, updated and dest as soon as their data differ. Paired
//! by name, the local copy's ConfigMap would be kept as an orphan beside upstream's new one
//! and the workloads would point at upstream's: the local edit lost. Here they pair as
//! `kbuild diff` pairs them, through the name without the hash; a merged resource whose name
//! carried kustomize's hash of its content gets the hash of its merged content, and every
//! reference to any of its old names is rewritten to the new one.

use super::{replace_names, strip_hash_suffix};
use crate::error::Result;
use crate::generate::hash::name_hash;
use crate::merge::merge3::{Merge3Options, Merged, merge3_resources_by, resource_key};
use crate::yaml::Node;
use std::collections::HashMap;

/// The identity resources pair up by: [`resource_key`], without the hash suffix of a
/// ConfigMap's or Secret's name.
pub fn pairing_key(node: &Node) -> String {
    let mut key = resource_key(node);
    if let Some(name) = generated_name(node) {
        let stripped = strip_hash_suffix(name);
        key.truncate(key.len() - (name.len() - stripped.len()));
    }
    key
}

/// The name of a ConfigMap or Secret (the kinds kustomize generators make).
fn generated_name(node: &Node) -> Option<&str> {
    matches!(node.get_str(&["kind"]), Some("ConfigMap" | "Secret"))
        .then(|| node.get_str(&["metadata", "name"]))
        .flatten()
}

/// Whether the name ends in kustomize's hash of this very content: the resource was
/// generated (a name that merely looks hashed is left alone).
fn carries_own_hash(node: &Node) -> bool {
    let Some(name) = generated_name(node) else {
        return false;
    };
    let stripped = strip_hash_suffix(name);
    stripped.len() != name.len()
        && name_hash(node).is_ok_and(|hash| name[stripped.len() + 1..] == hash)
}

/// Three-way merge of resource streams ([`merge3_resources_by`]) with generated
/// ConfigMaps and Secrets paired through their unhashed names and renamed after the merge.
pub fn merge3_generated(
    original: &[Node],
    updated: &[Node],
    dest: &[Node],
    options: &Merge3Options<'_>,
) -> Result<Vec<Merged>> {
    let mut merged = merge3_resources_by(original, updated, dest, options, &pairing_key)?;
    // Every input generated resource's name, by pairing key.
    let mut inputs: HashMap<String, Vec<&Node>> = HashMap::new();
    for node in original.iter().chain(updated).chain(dest) {
        if generated_name(node).is_some() {
            inputs.entry(pairing_key(node)).or_default().push(node);
        }
    }
    let mut renames: HashMap<String, String> = HashMap::new();
    for m in &merged {
        let (Some(node), Some(sources)) = (&m.node, inputs.get(&m.key)) else {
            continue;
        };
        let Some(name) = generated_name(node) else {
            continue;
        };
        if !sources.iter().any(|n| carries_own_hash(n)) {
            continue;
        }
        let fresh = format!("{}-{}", strip_hash_suffix(name), name_hash(node)?);
        let old_names = sources
            .iter()
            .filter_map(|n| generated_name(n))
            .chain([name]);
        for old in old_names {
            if old != fresh {
                renames.insert(old.to_string(), fresh.clone());
            }
        }
    }
    if !renames.is_empty() {
        for node in merged.iter_mut().filter_map(|m| m.node.as_mut()) {
            replace_names(node, &renames);
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn node(text: &str) -> Node {
        parse_stream(text, "t").expect("yaml").remove(0)
    }

    #[test]
    fn pairing_keys_drop_the_hash_of_generated_kinds_only() {
        let cm = node("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-5tb2m7h8f9\n");
        assert_eq!(pairing_key(&cm), "ConfigMap/c");
        let pod = node("apiVersion: v1\nkind: Pod\nmetadata:\n  name: c-5tb2m7h8f9\n");
        assert_eq!(pairing_key(&pod), "Pod/c-5tb2m7h8f9");
    }

    #[test]
    fn only_a_name_hashing_its_own_content_counts_as_generated() {
        // kubectl kustomize names `configMapGenerator: [{name: c, literals: [k=v]}]`
        // c-bdg947hgcc.
        let real =
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-bdg947hgcc\ndata:\n  k: v\n";
        assert!(carries_own_hash(&node(real)));
        assert!(!carries_own_hash(&node(&real.replace("k: v", "k: w"))));
    }
}
