//! Three-way merge: carry the changes between an `original` and an `updated` version of
//! configuration into a locally edited copy (`dest`), as kyaml's `merge3` (and `kpt pkg
//! update`) do.
//!
//! The rules, field by field (kyaml's `merge3.Visitor`, checked against its test tables in
//! the shared conformance corpus):
//! - Scalars and lists that do not merge by key: an explicit `null` in `dest` or `updated`
//!   clears the field; a value equal in `original` and `updated` keeps `dest`'s value; a
//!   changed value (added, deleted or changed) takes `updated`'s.
//! - Mappings: `null` in `dest` or `updated` clears; missing from both `dest` and `updated`
//!   stays missing; missing from `dest` only gets the `original` → `updated` delta (the whole
//!   `updated` mapping when `original` has none, nothing when the delta is empty: a mapping
//!   deleted locally stays deleted); otherwise the fields merge recursively.
//! - Associative lists (see [`Merge3Options`] for how their keys are found): missing or
//!   `null` in `updated` while `original` has one clears the list; elements pair up by key.
//!   An element `updated` dropped is deleted, one only `dest` has is kept, one `dest` lacks
//!   gets the delta (keys included), others merge recursively. Order: `dest`'s elements, then
//!   the new ones in `updated`'s order.
//!
//! kyaml keeps comments and styles; kbuild's node has neither, so results are equal as data.

use crate::error::Error;
use crate::merge::index::{Equality, FirstIndex, ValueHasher};
use crate::openapi::{Schemas, TypeRef};
use crate::yaml::{Map, Node};

/// The keys kyaml tries, in order, to pair elements of a list no schema describes
/// (`yaml.AssociativeSequenceKeys`); one is used when every element of the lists has it.
pub const ASSOCIATIVE_KEYS: &[&str] = &[
    "mountPath",
    "devicePath",
    "ip",
    "type",
    "topologyKey",
    "name",
    "containerPort",
];

/// How to merge.
#[derive(Clone, Copy, Debug)]
pub struct Merge3Options<'s> {
    /// Where merge keys of built-in kinds come from (looked up by `apiVersion`/`kind`).
    pub schemas: &'s Schemas,
    /// Pair elements of lists the schema does not describe by [`ASSOCIATIVE_KEYS`].
    pub infer_associative_lists: bool,
}

impl Merge3Options<'static> {
    /// The built-in schema, with inferred keys: what `kbuild merge3` uses.
    pub fn cli() -> Merge3Options<'static> {
        Merge3Options {
            schemas: Schemas::builtin(),
            infer_associative_lists: true,
        }
    }
}

/// The schema a list is merged with.
#[derive(Clone, Copy)]
enum Meta<'s> {
    /// Nothing is known: infer keys if allowed.
    Unknown,
    /// A schema node (which may say "not associative").
    Typed(TypeRef<'s>),
    /// Forced merge keys (the Kustomization generators).
    Keys(&'static [&'static str]),
}

/// Merges one object: `original` and `updated` are the two upstream versions (either may be
/// missing), `dest` the local copy. Returns the merged object, or `None` when nothing is left.
pub fn merge3(
    original: Option<&Node>,
    updated: Option<&Node>,
    dest: Option<&Node>,
    options: &Merge3Options<'_>,
) -> Result<Option<Node>, Error> {
    let first = [dest, original, updated].into_iter().flatten().next();
    let root = first.and_then(|n| schema_of(n, options.schemas));
    let mut walker = Walker {
        options,
        path: Vec::new(),
        kustomization: first.and_then(|n| n.get_str(&["kind"])) == Some("Kustomization"),
    };
    walker.node(original, updated, dest, root)
}

struct Walker<'o, 's> {
    options: &'o Merge3Options<'s>,
    path: Vec<String>,
    /// The object is a Kustomization: its generators merge by `name` (kyaml's built-in
    /// Kustomization schema).
    kustomization: bool,
}

fn schema_of<'s>(node: &Node, schemas: &'s Schemas) -> Option<TypeRef<'s>> {
    let api_version = node.get_str(&["apiVersion"])?;
    let kind = node.get_str(&["kind"])?;
    schemas.lookup_api_version(api_version, kind)
}

/// Which shape the walk treats a field as: the first present non-null source's.
enum Shape {
    Map,
    Seq,
    Scalar,
}

fn shape(nodes: [Option<&Node>; 3]) -> Shape {
    match nodes.into_iter().flatten().find(|n| !n.is_null()) {
        Some(Node::Map(_)) => Shape::Map,
        Some(Node::Seq(_)) => Shape::Seq,
        _ => Shape::Scalar,
    }
}

fn is_missing_or_null(n: Option<&Node>) -> bool {
    n.is_none_or(Node::is_null)
}

impl<'s> Walker<'_, 's> {
    fn node(
        &mut self,
        original: Option<&Node>,
        updated: Option<&Node>,
        dest: Option<&Node>,
        schema: Option<TypeRef<'s>>,
    ) -> Result<Option<Node>, Error> {
        // Where the sources disagree on the kind of node, the value is treated as a scalar:
        // a change upstream replaces it, no change keeps the local one.
        let mut shapes = [original, updated, dest]
            .into_iter()
            .flatten()
            .filter(|n| !n.is_null())
            .map(|n| match n {
                Node::Map(_) => 0,
                Node::Seq(_) => 1,
                _ => 2,
            });
        let first = shapes.next();
        if shapes.any(|s| Some(s) != first) {
            return Ok(self.scalar(original, updated, dest));
        }
        match shape([dest, original, updated]) {
            Shape::Map => self.map(original, updated, dest, schema),
            Shape::Seq => {
                let meta = self.list_meta(schema);
                match self.list_keys(meta, [original, updated, dest]) {
                    Some(keys) => self.assoc_list(original, updated, dest, &keys, meta),
                    None => Ok(self.scalar(original, updated, dest)),
                }
            }
            Shape::Scalar => Ok(self.scalar(original, updated, dest)),
        }
    }

    /// Scalars and lists merged as a whole.
    fn scalar(
        &self,
        original: Option<&Node>,
        updated: Option<&Node>,
        dest: Option<&Node>,
    ) -> Option<Node> {
        if updated.is_some_and(Node::is_null) || dest.is_some_and(Node::is_null) {
            return None;
        }
        if original == updated {
            dest.cloned()
        } else {
            updated.cloned()
        }
    }

    fn map(
        &mut self,
        original: Option<&Node>,
        updated: Option<&Node>,
        dest: Option<&Node>,
        schema: Option<TypeRef<'s>>,
    ) -> Result<Option<Node>, Error> {
        if updated.is_some_and(Node::is_null) || dest.is_some_and(Node::is_null) {
            return Ok(None);
        }
        if dest.is_none() && updated.is_none() {
            return Ok(None);
        }
        let empty = Map::new();
        let (o, u) = (as_map(original), as_map(updated));
        let d = as_map(dest);
        let merged = self.fields(o, u, d.unwrap_or(&empty), schema)?;
        // A mapping the local copy deleted stays deleted when upstream did not change it.
        if d.is_none() && merged.is_empty() && original.is_some() {
            return Ok(None);
        }
        Ok(Some(Node::Map(merged)))
    }

    /// Merges the fields of three mappings: `dest`'s fields in order, then fields only
    /// `updated` has, in its order.
    fn fields(
        &mut self,
        original: Option<&Map>,
        updated: Option<&Map>,
        dest: &Map,
        schema: Option<TypeRef<'s>>,
    ) -> Result<Map, Error> {
        let mut keys: Vec<&crate::yaml::map::Key> = dest.keys().collect();
        if let Some(u) = updated {
            keys.extend(u.keys().filter(|k| !dest.contains_key(k)));
        }
        let mut out = Map::new();
        for key in keys {
            let child = schema.and_then(|s| s.field(key));
            self.path.push(key.to_string());
            let value = self.node(
                original.and_then(|m| m.get(key)),
                updated.and_then(|m| m.get(key)),
                dest.get(key),
                child,
            );
            self.path.pop();
            if let Some(v) = value? {
                out.insert(key.clone(), v);
            }
        }
        Ok(out)
    }

    fn list_meta(&self, schema: Option<TypeRef<'s>>) -> Meta<'s> {
        if let Some(s) = schema {
            return Meta::Typed(s);
        }
        // kyaml's Kustomization schema: the generators merge by name.
        if self.kustomization
            && self.path.len() == 1
            && matches!(
                self.path[0].as_str(),
                "configMapGenerator" | "secretGenerator"
            )
        {
            return Meta::Keys(&["name"]);
        }
        Meta::Unknown
    }

    /// The keys a list merges by, or `None` when it is merged as a whole.
    fn list_keys(&self, meta: Meta<'s>, lists: [Option<&Node>; 3]) -> Option<Vec<String>> {
        match meta {
            Meta::Typed(s) => {
                let keys = s.merge_keys();
                (!keys.is_empty()).then(|| keys.iter().map(|k| k.to_string()).collect())
            }
            Meta::Keys(keys) => Some(keys.iter().map(|k| k.to_string()).collect()),
            Meta::Unknown if self.options.infer_associative_lists => {
                let items: Vec<&Node> = lists
                    .iter()
                    .flatten()
                    .filter_map(|l| l.as_seq())
                    .flatten()
                    .collect();
                if items.is_empty() {
                    return None;
                }
                ASSOCIATIVE_KEYS
                    .iter()
                    .find(|k| items.iter().all(|i| i.get(k).is_some()))
                    .map(|k| vec![k.to_string()])
            }
            Meta::Unknown => None,
        }
    }

    fn assoc_list(
        &mut self,
        original: Option<&Node>,
        updated: Option<&Node>,
        dest: Option<&Node>,
        keys: &[String],
        meta: Meta<'s>,
    ) -> Result<Option<Node>, Error> {
        if is_missing_or_null(updated) && !is_missing_or_null(original) {
            return Ok(None);
        }
        if is_missing_or_null(dest) && is_missing_or_null(updated) {
            return Ok(dest.cloned());
        }
        let items = match meta {
            Meta::Typed(s) => s.items(),
            _ => None,
        };
        let (o, u, d) = (seq(original), seq(updated), seq(dest));
        let (o_ids, u_ids, d_ids) = (Ids::new(o, keys), Ids::new(u, keys), Ids::new(d, keys));
        let mut out = Vec::new();
        for (element, id) in d.iter().zip(&d_ids.ids) {
            if !matches!(element, Node::Map(_)) {
                out.push(element.clone());
                continue;
            }
            let (in_o, in_u) = (o_ids.find(id), u_ids.find(id));
            if in_o.is_some() && in_u.is_none() {
                continue; // deleted upstream
            }
            self.path.push(format!("[{}]", id_text(id)));
            let merged = self.map(
                in_o.map(|i| &o[i]),
                in_u.map(|i| &u[i]),
                Some(element),
                items,
            );
            self.path.pop();
            out.extend(merged?);
        }
        for (element, id) in u.iter().zip(&u_ids.ids) {
            if d_ids.find(id).is_some() {
                continue;
            }
            let in_o = o_ids.find(id).map(|i| &o[i]);
            self.path.push(format!("[{}]", id_text(id)));
            let merged = self.map(in_o, Some(element), None, items);
            self.path.pop();
            let Some(Node::Map(mut merged)) = merged? else {
                continue;
            };
            // The delta of an element keeps its keys, so that it pairs up again later.
            let Some(source) = element.as_map() else {
                out.push(element.clone());
                continue;
            };
            let only_keys = merged.keys().all(|k| keys.iter().any(|x| x == k));
            if in_o.is_some() && only_keys {
                continue; // deleted locally, unchanged upstream: stays deleted
            }
            for key in keys {
                if let Some(v) = source.get(key)
                    && !merged.contains_key(key)
                {
                    merged.insert(key.clone(), v.clone());
                }
            }
            out.push(Node::Map(merged));
        }
        if dest.is_none() && out.is_empty() {
            return Ok(None);
        }
        Ok(Some(Node::Seq(out)))
    }
}

fn as_map(node: Option<&Node>) -> Option<&Map> {
    node.and_then(Node::as_map)
}

fn seq(node: Option<&Node>) -> &[Node] {
    node.and_then(Node::as_seq).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
thread_local! {
    /// How many element ids were read or compared on this thread: the tests bound the work
    /// of a list merge by this count instead of timing it.
    static ID_READS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The values of an element's merge keys (a missing key is `None`).
fn element_id<'n>(element: &'n Node, keys: &[String]) -> Vec<Option<&'n Node>> {
    #[cfg(test)]
    ID_READS.with(|c| c.set(c.get() + 1));
    keys.iter().map(|k| element.get(k)).collect()
}

/// The ids of a list's elements, indexed: kyaml finds an element by scanning the list for
/// the first with an equal id, which made a merge quadratic in the list length (20,000
/// containers took 24 s); here a lookup goes to the id's hash bucket.
struct Ids<'n> {
    ids: Vec<Vec<Option<&'n Node>>>,
    hasher: ValueHasher,
    index: FirstIndex,
}

impl<'n> Ids<'n> {
    fn new(list: &'n [Node], keys: &[String]) -> Ids<'n> {
        let ids: Vec<Vec<Option<&Node>>> = list.iter().map(|e| element_id(e, keys)).collect();
        let hasher = ValueHasher::new(Equality::Exact);
        let keyed: Vec<Option<&[Option<&Node>]>> =
            ids.iter().map(|id| Some(id.as_slice())).collect();
        let index = FirstIndex::new(&keyed, |id| hasher.hash_tuple(id), |a, b| a == b);
        Ids { ids, hasher, index }
    }

    /// The position of the first element whose id is `id`.
    fn find(&self, id: &[Option<&Node>]) -> Option<usize> {
        self.index.first(self.hasher.hash_tuple(id), |i| {
            #[cfg(test)]
            ID_READS.with(|c| c.set(c.get() + 1));
            self.ids[i] == id
        })
    }
}

fn id_text(id: &[Option<&Node>]) -> String {
    id.iter()
        .map(|v| v.and_then(Node::scalar_string).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(",")
}

/// The identity resources pair up by in a three-way merge: group, kind, namespace, name.
pub fn resource_key(node: &Node) -> String {
    let api_version = node.get_str(&["apiVersion"]).unwrap_or("");
    let group = crate::openapi::split_api_version(api_version).0;
    let kind = node.get_str(&["kind"]).unwrap_or("");
    let namespace = node.get_str(&["metadata", "namespace"]).unwrap_or("");
    let name = node.get_str(&["metadata", "name"]).unwrap_or("");
    let mut key = String::new();
    if !group.is_empty() {
        key.push_str(group);
        key.push('/');
    }
    key.push_str(kind);
    key.push('/');
    if !namespace.is_empty() {
        key.push_str(namespace);
        key.push('/');
    }
    key.push_str(name);
    key
}

/// What happened to one resource of a three-way merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// New upstream: added.
    Added,
    /// Removed upstream: deleted from the local copy.
    Deleted,
    /// In `updated` and `dest`: fields merged (the result may equal `dest`).
    Merged,
    /// Only in the local copy (or unchanged and missing upstream): kept as it is.
    Kept,
}

/// One resource of a three-way merge's result, or a deleted one.
#[derive(Clone, Debug)]
pub struct Merged {
    /// `group/kind/namespace/name`, see [`resource_key`].
    pub key: String,
    /// What the merge did with the resource.
    pub change: Change,
    /// The merged resource; `None` for a deleted one.
    pub node: Option<Node>,
    /// The position of the resource in `dest`, if it came from there.
    pub dest_index: Option<usize>,
}

/// Merges resource streams: resources pair up by [`resource_key`]. Present in `original` and
/// gone from `updated`: deleted; new in `updated`: added; only in `dest`: kept; in `updated`
/// and `dest`: merged with [`merge3`]. The result lists `dest`'s resources in order (deleted
/// ones included, with no node), then the added ones in `updated`'s order. A resource the
/// local copy deleted stays deleted.
pub fn merge3_resources(
    original: &[Node],
    updated: &[Node],
    dest: &[Node],
    options: &Merge3Options<'_>,
) -> Result<Vec<Merged>, Error> {
    merge3_resources_by(original, updated, dest, options, &resource_key)
}

/// [`merge3_resources`] with resources paired by `key` instead of [`resource_key`] (the
/// result's keys are `key`'s): for identities a build rewrites, such as the hash suffixes
/// of generated names.
pub fn merge3_resources_by(
    original: &[Node],
    updated: &[Node],
    dest: &[Node],
    options: &Merge3Options<'_>,
    key: &dyn Fn(&Node) -> String,
) -> Result<Vec<Merged>, Error> {
    let original = index(original, "original", key)?;
    let updated_index = index(updated, "updated", key)?;
    let dest_index = index(dest, "dest", key)?;
    let mut out = Vec::new();
    for (i, node) in dest.iter().enumerate() {
        let key = key(node);
        let o = original.get(&key).copied();
        let u = updated_index.get(&key).copied();
        let (change, merged) = match (o, u) {
            (Some(_), None) => (Change::Deleted, None),
            (_, Some(u)) => (
                Change::Merged,
                merge3(o, Some(u), Some(node), options)
                    .map_err(|e| e.context(format!("resource {key}")))?,
            ),
            (None, None) => (Change::Kept, Some(node.clone())),
        };
        out.push(Merged {
            key,
            change,
            node: merged,
            dest_index: Some(i),
        });
    }
    for node in updated {
        let key = key(node);
        if dest_index.contains_key(&key) {
            continue;
        }
        // Deleted locally while upstream still has it: stays deleted.
        if original.contains_key(&key) {
            continue;
        }
        out.push(Merged {
            key,
            change: Change::Added,
            node: Some(node.clone()),
            dest_index: None,
        });
    }
    Ok(out)
}

/// Indexes a stream by resource key; two resources with one key are an error.
fn index<'n>(
    nodes: &'n [Node],
    which: &str,
    key: &dyn Fn(&Node) -> String,
) -> Result<std::collections::HashMap<String, &'n Node>, Error> {
    let mut map = std::collections::HashMap::new();
    for node in nodes {
        if !matches!(node, Node::Map(_)) {
            return Err(Error::invalid_resource(format!(
                "{which}: a document is a {}, not a resource mapping",
                node.type_name()
            )));
        }
        let key = key(node);
        if map.insert(key.clone(), node).is_some() {
            return Err(Error::duplicate_id(
                key.clone(),
                format!("{which}: two resources have the identity {key}"),
            ));
        }
    }
    Ok(map)
}

#[cfg(test)]
#[path = "merge3_tests.rs"]
mod tests;
