//! Merging a patch into a mapping (apimachinery's `mergeMap`): `$patch` on mappings,
//! nulls, type changes, and values added without their directives.

use foldhash::{HashMap, HashMapExt};

use crate::error::Error;
use crate::yaml::map::Key;
use crate::yaml::{Map, Node};

use super::directives::{apply_retain_keys, extract_key, merge_set_element_order};
use super::list::merge_slice;
use super::value::{go_str, type_class};
use super::{DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, MergeOptions, PatchSchema, lookup};

pub(super) fn merge_map<S: PatchSchema>(
    mut original: Map,
    mut patch: Map,
    schema: Option<S>,
    options: MergeOptions,
) -> Result<Map, Error> {
    if let Some(directive) = patch.get(DIRECTIVE) {
        return match directive.as_str() {
            Some("replace") => {
                patch.shift_remove(DIRECTIVE);
                Ok(patch)
            }
            Some("delete") => Ok(Map::new()),
            _ => Err(Error::invalid_patch(format!(
                "Unknown patch type: {} in map: {}",
                go_str(directive),
                go_str(&Node::Map(patch.clone()))
            ))),
        };
    }
    apply_retain_keys(&mut original, &mut patch, options)?;
    merge_set_element_order(&mut original, &mut patch, schema, options)?;
    #[cfg(test)]
    if super::quadratic::forced() {
        return super::quadratic::merge_fields(original, patch, schema, options);
    }
    let mut original = Fields::new(original);
    // Parallel deletion lists go last, after the lists they edit have been merged.
    let (deletions, rest): (Vec<_>, Vec<_>) = patch
        .into_iter()
        .partition(|(k, _)| k.starts_with(DELETE_FROM_PRIMITIVE_LIST));
    for (key, mut patch_value) in rest.into_iter().chain(deletions) {
        let (key, is_delete_list) = if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            if !options.merge_parallel_list {
                original.insert(key, patch_value);
                continue;
            }
            (extract_key(&key, DELETE_FROM_PRIMITIVE_LIST)?.into(), true)
        } else {
            (key, false)
        };
        if patch_value.is_null() {
            original.remove(&key);
            if options.ignore_unmatched_nulls {
                continue;
            }
        }
        let same_type = original
            .get(&key)
            .is_some_and(|o| type_class(o) == type_class(&patch_value));
        if !same_type {
            if !is_delete_list {
                if options.ignore_unmatched_nulls {
                    discard_nulls(&mut patch_value);
                }
                // A value the object does not have is added without its directives.
                if let Some(value) = remove_directives(patch_value) {
                    original.insert(key, value);
                }
            }
            continue;
        }
        let Some(current) = original.get_mut(&key) else {
            continue;
        };
        let merged = match (std::mem::take(current), patch_value) {
            (Node::Map(o), Node::Map(p)) => {
                let meta = lookup(schema, &key, false)?;
                if meta.strategy.replace {
                    Node::Map(p)
                } else {
                    Node::Map(merge_map(o, p, meta.schema, options)?)
                }
            }
            (Node::Seq(o), Node::Seq(p)) => {
                let meta = lookup(schema, &key, true)?;
                // A deletion list removes scalars whatever the list's strategy.
                if meta.strategy.merge || is_delete_list {
                    Node::Seq(merge_slice(
                        o,
                        p,
                        meta.schema,
                        &meta.merge_key,
                        options,
                        is_delete_list,
                    )?)
                } else {
                    Node::Seq(p)
                }
            }
            (_, p) => p,
        };
        *current = merged;
    }
    Ok(original.into_map())
}

/// A mapping being merged into: fields are removed by leaving a hole (a patch that deletes
/// thousands of fields would otherwise shift the rest of the mapping each time), and come
/// back, like new ones, at the end.
struct Fields {
    entries: Vec<Option<(Key, Node)>>,
    at: HashMap<Key, usize>,
}

impl Fields {
    fn new(map: Map) -> Fields {
        let entries: Vec<Option<(Key, Node)>> = map.into_iter().map(Some).collect();
        let mut at = HashMap::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            if let Some((k, _)) = entry {
                at.insert(k.clone(), i);
            }
        }
        Fields { entries, at }
    }

    fn get(&self, key: &str) -> Option<&Node> {
        let i = *self.at.get(key)?;
        self.entries[i].as_ref().map(|(_, v)| v)
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        let i = *self.at.get(key)?;
        self.entries[i].as_mut().map(|(_, v)| v)
    }

    /// Sets a field in place, or adds it at the end.
    fn insert(&mut self, key: Key, value: Node) {
        match self.at.get(&key) {
            Some(&i) => self.entries[i] = Some((key, value)),
            None => {
                self.at.insert(key.clone(), self.entries.len());
                self.entries.push(Some((key, value)));
            }
        }
    }

    fn remove(&mut self, key: &str) {
        if let Some(i) = self.at.remove(key) {
            self.entries[i] = None;
        }
    }

    fn into_map(self) -> Map {
        let mut map = Map::with_capacity(self.at.len());
        for (k, v) in self.entries.into_iter().flatten() {
            map.insert(k, v);
        }
        map
    }
}

/// A new value with every mapping that carries a `$patch` directive dropped (apimachinery's
/// `removeDirectives`); `None` when the value itself is such a mapping.
pub(super) fn remove_directives(value: Node) -> Option<Node> {
    match value {
        Node::Map(m) => {
            if m.contains_key(DIRECTIVE) {
                return None;
            }
            Some(Node::Map(
                m.into_iter()
                    .filter_map(|(k, v)| remove_directives(v).map(|v| (k, v)))
                    .collect(),
            ))
        }
        Node::Seq(items) => Some(Node::Seq(
            items.into_iter().filter_map(remove_directives).collect(),
        )),
        other => Some(other),
    }
}

pub(super) fn discard_nulls(node: &mut Node) {
    match node {
        Node::Map(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(discard_nulls);
        }
        Node::Seq(items) => items.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}
