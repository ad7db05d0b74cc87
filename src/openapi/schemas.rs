//! The schemas a build merges with: the built-in table, or an OpenAPI document that a
//! kustomization names with `openapi: {path: ...}`.
//!
//! kustomize's behaviour, checked with `kubectl kustomize` (v5.5.0):
//! - a custom document *replaces* the built-in schema for merging: with a custom document
//!   that only describes a CRD, a Deployment's containers are no longer merged by name;
//! - except when kustomize had already loaded its built-in schema when the custom one is set:
//!   kyaml loads the built-in schema lazily, the first time it checks the scope of a kind
//!   missing from its precomputed scope table (a custom resource, say), and a custom schema
//!   set after that is *added on top* of it. Then a `$ref` to a definition the custom
//!   document lacks resolves to the built-in definition of that name, and built-in kinds keep
//!   their built-in schema. Where both describe a definition or kind, the built-in one wins.
//!   A component setting `openapi:` after its kustomization loaded a custom resource is the
//!   usual way to get there; a kustomization that sets it before any such resource (built-in
//!   kinds such as a ConfigMap do not count) gets the custom definitions only;
//! - scope does not change: kustomize consults its precomputed table of built-in kinds first,
//!   then the scope derived from the document's `paths`, and calls everything else namespaced.

use std::borrow::Cow;
use std::collections::HashMap;

use super::builtin;
use super::table::{
    FieldDef, KindEntry, ListType, N, PatchStrategy, Shape, Table, TypeDef, TypeRef,
};
use crate::error::Error;
use crate::yaml::Node;

static BUILTIN_TABLE: Table = Table {
    shapes: Cow::Borrowed(builtin::SHAPES),
    types: Cow::Borrowed(builtin::TYPES),
    fields: Cow::Borrowed(builtin::FIELDS),
    kinds: Cow::Borrowed(builtin::KINDS),
};

static BUILTIN: Schemas = Schemas { custom: None };

/// The Kubernetes version of the built-in schema.
pub const BUILTIN_VERSION: &str = "v1.21.2";

/// Merge schemas and resource scopes for one kustomization.
#[derive(Clone, Debug, Default)]
pub struct Schemas {
    custom: Option<Box<Custom>>,
}

#[derive(Clone, Debug)]
struct Custom {
    table: Table,
    /// The custom definitions were added on top of the built-in ones: built-in kinds and
    /// definitions win over custom ones of the same name.
    over_builtin: bool,
    /// (group, version, kind) -> namespaced, from the document's `paths`.
    scopes: HashMap<(String, String, String), bool>,
}

impl Schemas {
    /// The schema kustomize v5.5.0 builds in (Kubernetes v1.21.2).
    pub fn builtin() -> &'static Schemas {
        &BUILTIN
    }

    /// The built-in schema of a Kubernetes version, for a kustomization's
    /// `openapi: {version: ...}`: kustomize v5.5.0 builds in only v1.21.2.
    pub fn builtin_version(version: &str) -> Result<&'static Schemas, Error> {
        if version == BUILTIN_VERSION {
            Ok(&BUILTIN)
        } else {
            Err(Error::invalid_config(format!(
                "the specified OpenAPI version is not built in: {version} (kustomize v5.5.0 has {BUILTIN_VERSION})"
            )))
        }
    }

    /// Schemas from a custom OpenAPI (swagger v2) document, JSON or YAML; `source` names it in
    /// errors. The document replaces the built-in schema for merging.
    pub fn from_openapi_text(text: &str, source: &str) -> Result<Schemas, Error> {
        Schemas::from_openapi_text_layered(text, source, false)
    }

    /// Like [`Schemas::from_openapi_text`]; with `over_builtin`, the document's definitions
    /// are added on top of the built-in ones, as kustomize does when it had loaded its
    /// built-in schema before (see the module documentation).
    pub fn from_openapi_text_layered(
        text: &str,
        source: &str,
        over_builtin: bool,
    ) -> Result<Schemas, Error> {
        let doc = if text.trim_start().starts_with('{') {
            let json: serde_json::Value = serde_json::from_str(text).map_err(|e| {
                Error::invalid_config(format!("{source}: invalid OpenAPI JSON: {e}"))
            })?;
            Node::from(&json)
        } else {
            crate::yaml::parse::parse_stream(text, source)?
                .into_iter()
                .next()
                .unwrap_or_default()
        };
        Schemas::from_openapi_document_layered(&doc, source, over_builtin)
    }

    /// Schemas from a parsed custom OpenAPI document.
    pub fn from_openapi_document(doc: &Node, source: &str) -> Result<Schemas, Error> {
        Schemas::from_openapi_document_layered(doc, source, false)
    }

    /// Like [`Schemas::from_openapi_document`], optionally on top of the built-in schema.
    pub fn from_openapi_document_layered(
        doc: &Node,
        source: &str,
        over_builtin: bool,
    ) -> Result<Schemas, Error> {
        let definitions = doc
            .get("definitions")
            .and_then(Node::as_map)
            .ok_or_else(|| {
                Error::invalid_config(format!(
                    "{source}: OpenAPI document has no 'definitions' mapping"
                ))
            })?;
        let table = TableBuilder::new(definitions, over_builtin).build();
        let scopes = scopes_from_paths(doc.get("paths"));
        Ok(Schemas {
            custom: Some(Box::new(Custom {
                table,
                over_builtin,
                scopes,
            })),
        })
    }

    /// The table merges use.
    pub fn table(&self) -> &Table {
        match &self.custom {
            Some(c) => &c.table,
            None => &BUILTIN_TABLE,
        }
    }

    /// The schema of a kind.
    pub fn lookup(&self, group: &str, version: &str, kind: &str) -> Option<TypeRef<'_>> {
        match &self.custom {
            // On top of the built-in schema, built-in kinds keep their built-in schema even
            // when the document describes them too (kyaml keeps what it loaded first).
            Some(c) if c.over_builtin => BUILTIN_TABLE
                .lookup(group, version, kind)
                .or_else(|| c.table.lookup(group, version, kind)),
            _ => self.table().lookup(group, version, kind),
        }
    }

    /// The schema of a kind given its `apiVersion` (`group/version` or `version`).
    pub fn lookup_api_version(&self, api_version: &str, kind: &str) -> Option<TypeRef<'_>> {
        let (group, version) = split_api_version(api_version);
        self.lookup(group, version, kind)
    }

    /// Whether objects of this kind live in a namespace. Unknown kinds (custom resources, or
    /// a known kind under an apiVersion kustomize does not list) are namespaced.
    pub fn is_namespaced(&self, group: &str, version: &str, kind: &str) -> bool {
        if let Some(scope) = builtin_scope(group, version, kind) {
            return scope;
        }
        let key = (group.to_string(), version.to_string(), kind.to_string());
        self.custom
            .as_ref()
            .and_then(|c| c.scopes.get(&key).copied())
            .unwrap_or(true)
    }
}

/// Whether loading a resource of this kind makes kustomize load its built-in schema: kyaml
/// does so the first time it checks the scope of a kind missing from its precomputed scope
/// table. A custom schema set after that is added on top of the built-in one.
pub fn loads_builtin_schema(group: &str, version: &str, kind: &str) -> bool {
    builtin_scope(group, version, kind).is_none()
}

/// Splits an `apiVersion` into group and version (`v1` has the empty group).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version),
    }
}

/// The scope kustomize's precomputed table gives a kind: `Some(true)` namespaced,
/// `Some(false)` cluster-scoped, `None` not listed.
pub(super) fn builtin_scope(group: &str, version: &str, kind: &str) -> Option<bool> {
    // A scan that compares the kind first (its length, then its bytes): the table is short
    // (82 kinds) and this runs for every resource several times a build; a binary search
    // over the (group, version, kind) order compared the three strings at each of its seven
    // steps and cost four times as much.
    builtin::SCOPES
        .iter()
        .find(|(g, v, k, _)| *k == kind && *g == group && *v == version)
        .map(|entry| entry.3)
}

/// Scope from swagger `paths`: an operation tagged with `x-kubernetes-group-version-kind`
/// under `/namespaces/{namespace}/` makes the kind namespaced; one elsewhere makes it
/// cluster-scoped unless another path says namespaced.
fn scopes_from_paths(paths: Option<&Node>) -> HashMap<(String, String, String), bool> {
    let mut scopes = HashMap::new();
    let Some(paths) = paths.and_then(Node::as_map) else {
        return scopes;
    };
    for (path, item) in paths {
        let namespaced = path.contains("/namespaces/{namespace}/");
        let Some(ops) = item.as_map() else { continue };
        for op in ops.values() {
            let Some(gvk) = op.get("x-kubernetes-group-version-kind") else {
                continue;
            };
            let field = |k| gvk.get_str(&[k]).unwrap_or("").to_string();
            let key = (field("group"), field("version"), field("kind"));
            let entry = scopes.entry(key).or_insert(namespaced);
            *entry |= namespaced;
        }
    }
    scopes
}

/// Builds a table from swagger `definitions`, the way `tools/gen_openapi.py` does for the
/// built-in one (without leaving out fields).
struct TableBuilder<'d> {
    definitions: &'d crate::yaml::Map,
    shapes: Vec<Shape>,
    types: Vec<TypeDef>,
    fields: Vec<FieldDef>,
    by_name: HashMap<&'d str, u32>,
    /// Shapes that copy the object and items of another shape: a `$ref` with metadata.
    aliases: Vec<(u32, u32)>,
    /// Whether a `$ref` to a definition the document lacks resolves to the built-in one.
    over_builtin: bool,
    /// Built-in shapes and types copied into this table so far (built-in index -> own).
    imported_shapes: HashMap<u32, u32>,
    imported_types: HashMap<u32, u32>,
}

/// Where a `$ref` leads.
enum Target<'d> {
    /// A definition of the document.
    Own(&'d str),
    /// A built-in definition (the custom definitions are on top of the built-in ones):
    /// the index of its shape in the built-in table.
    Builtin(u32),
}

const REF_PREFIX: &str = "#/definitions/";

impl<'d> TableBuilder<'d> {
    fn new(definitions: &'d crate::yaml::Map, over_builtin: bool) -> TableBuilder<'d> {
        TableBuilder {
            definitions,
            shapes: Vec::new(),
            types: Vec::new(),
            fields: Vec::new(),
            by_name: HashMap::new(),
            aliases: Vec::new(),
            over_builtin,
            imported_shapes: HashMap::new(),
            imported_types: HashMap::new(),
        }
    }

    fn build(mut self) -> Table {
        let mut kinds = Vec::new();
        for (name, def) in self.definitions {
            let Some(gvks) = def
                .get("x-kubernetes-group-version-kind")
                .and_then(Node::as_seq)
            else {
                continue;
            };
            let shape = self.definition(name);
            for gvk in gvks {
                let field = |k| Cow::Owned(gvk.get_str(&[k]).unwrap_or("").to_string());
                kinds.push(KindEntry {
                    group: field("group"),
                    version: field("version"),
                    kind: field("kind"),
                    shape,
                });
            }
        }
        self.resolve_aliases();
        kinds.sort_by(|a, b| (&a.group, &a.version, &a.kind).cmp(&(&b.group, &b.version, &b.kind)));
        kinds.dedup_by(|a, b| (&a.group, &a.version, &a.kind) == (&b.group, &b.version, &b.kind));
        Table {
            shapes: Cow::Owned(self.shapes),
            types: Cow::Owned(self.types),
            fields: Cow::Owned(self.fields),
            kinds: Cow::Owned(kinds),
        }
    }

    fn definition(&mut self, name: &'d str) -> u32 {
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let i = self.reserve();
        self.by_name.insert(name, i);
        let def = &self.definitions[name];
        let shape = self.shape_of(def, i);
        self.shapes[i as usize] = shape;
        i
    }

    fn reserve(&mut self) -> u32 {
        self.shapes.push(empty_shape());
        (self.shapes.len() - 1) as u32
    }

    /// Where the schema's `$ref` leads: a definition of the document, or, on top of the
    /// built-in schema, the built-in definition of that name, which wins over a custom one
    /// of the same name (checked with `kubectl kustomize`: kyaml keeps the definitions it
    /// loaded first). None for no `$ref` or a dangling one, which kyaml treats as a schema
    /// without fields.
    fn reference(&self, schema: &Node) -> Option<Target<'d>> {
        let r = schema.get_str(&["$ref"])?;
        let name = r.strip_prefix(REF_PREFIX)?;
        if self.over_builtin
            && let Ok(i) = builtin::DEFINITIONS.binary_search_by(|(n, _)| (*n).cmp(name))
        {
            return Some(Target::Builtin(builtin::DEFINITIONS[i].1));
        }
        self.definitions
            .get_key_value(name)
            .map(|(k, _)| Target::Own(k.as_str()))
    }

    /// The shape a `$ref` leads to; N for a built-in scalar without merge metadata (the
    /// generator leaves those out).
    fn target(&mut self, target: Target<'d>) -> u32 {
        match target {
            Target::Own(name) => self.definition(name),
            Target::Builtin(N) => N,
            Target::Builtin(shape) => self.import_shape(shape),
        }
    }

    /// Copies a built-in shape, and what it reaches, into this table (once per shape; the
    /// built-in types are recursive).
    fn import_shape(&mut self, shape: u32) -> u32 {
        if let Some(&i) = self.imported_shapes.get(&shape) {
            return i;
        }
        let i = self.reserve();
        self.imported_shapes.insert(shape, i);
        let Some(from) = builtin::SHAPES.get(shape as usize) else {
            return i;
        };
        let mut copy = from.clone();
        copy.object = if from.object == N {
            N
        } else {
            self.import_type(from.object)
        };
        copy.items = if from.items == N {
            N
        } else {
            self.import_shape(from.items)
        };
        self.shapes[i as usize] = copy;
        i
    }

    fn import_type(&mut self, ty: u32) -> u32 {
        if let Some(&i) = self.imported_types.get(&ty) {
            return i;
        }
        let i = self.types.len() as u32;
        self.imported_types.insert(ty, i);
        self.types.push(TypeDef {
            first: 0,
            len: 0,
            additional: N,
        });
        let Some(from) = builtin::TYPES.get(ty as usize) else {
            return i;
        };
        let range = from.first as usize..(from.first + from.len) as usize;
        let mut fields = Vec::with_capacity(range.len());
        for f in builtin::FIELDS.get(range).unwrap_or_default() {
            let shape = self.import_shape(f.shape);
            fields.push(FieldDef {
                name: f.name.clone(),
                shape,
            });
        }
        let additional = if from.additional == N {
            N
        } else {
            self.import_shape(from.additional)
        };
        let first = self.fields.len() as u32;
        let len = fields.len() as u32;
        self.fields.extend(fields);
        self.types[i as usize] = TypeDef {
            first,
            len,
            additional,
        };
        i
    }

    /// The shape of a schema node; `own` is the index it will be stored at.
    fn shape_of(&mut self, schema: &'d Node, own: u32) -> Shape {
        let mut shape = metadata(schema);
        if let Some(target) = self.reference(schema) {
            let target = self.target(target);
            if target != N {
                self.aliases.push((own, target));
            }
            return shape;
        }
        if let Some(items) = schema
            .get("items")
            .filter(|_| schema.get_str(&["type"]) == Some("array"))
        {
            shape.items = self.add_shape(items);
        }
        if schema.get("properties").is_some() || schema.get("additionalProperties").is_some() {
            shape.object = self.add_type(schema);
        }
        shape
    }

    fn add_shape(&mut self, schema: &'d Node) -> u32 {
        if let Some(target) = self.reference(schema).filter(|_| !has_metadata(schema)) {
            return self.target(target);
        }
        let i = self.reserve();
        let shape = self.shape_of(schema, i);
        self.shapes[i as usize] = shape;
        i
    }

    fn add_type(&mut self, schema: &'d Node) -> u32 {
        let i = self.types.len() as u32;
        self.types.push(TypeDef {
            first: 0,
            len: 0,
            additional: N,
        });
        let mut fields = Vec::new();
        if let Some(props) = schema.get("properties").and_then(Node::as_map) {
            for (name, prop) in props {
                let shape = self.add_shape(prop);
                fields.push(FieldDef {
                    name: Cow::Owned(name.to_string()),
                    shape,
                });
            }
        }
        fields.sort_by(|a, b| a.name.cmp(&b.name));
        let additional = match schema.get("additionalProperties") {
            Some(extra @ Node::Map(_)) => self.add_shape(extra),
            _ => N,
        };
        // Nested types were added while walking the properties, so this type's fields go
        // after theirs, in one run.
        let first = self.fields.len() as u32;
        let len = fields.len() as u32;
        self.fields.extend(fields);
        self.types[i as usize] = TypeDef {
            first,
            len,
            additional,
        };
        i
    }

    /// A `$ref` with metadata of its own takes the referenced definition's object and items,
    /// and its metadata where it declares none. Chains are followed; cycles stop.
    fn resolve_aliases(&mut self) {
        let targets: HashMap<u32, u32> = self.aliases.iter().copied().collect();
        for &(own, first) in &self.aliases {
            let mut target = first;
            let mut steps = 0;
            while let Some(&next) = targets.get(&target) {
                if steps > targets.len() {
                    break;
                }
                target = next;
                steps += 1;
            }
            let from = self.shapes[target as usize].clone();
            let shape = &mut self.shapes[own as usize];
            shape.object = from.object;
            shape.items = from.items;
            if shape.strategy.is_empty() {
                shape.strategy = from.strategy;
            }
            if shape.merge_key.is_none() {
                shape.merge_key = from.merge_key;
            }
            if shape.list_type.is_none() {
                shape.list_type = from.list_type;
            }
            if shape.list_map_keys.is_empty() {
                shape.list_map_keys = from.list_map_keys;
            }
        }
    }
}

fn empty_shape() -> Shape {
    Shape {
        object: N,
        items: N,
        strategy: PatchStrategy::default(),
        merge_key: None,
        list_type: None,
        list_map_keys: Cow::Owned(Vec::new()),
    }
}

fn has_metadata(schema: &Node) -> bool {
    [
        "x-kubernetes-patch-strategy",
        "x-kubernetes-patch-merge-key",
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
    ]
    .iter()
    .any(|k| schema.get(k).is_some())
}

fn metadata(schema: &Node) -> Shape {
    let text = |k: &str| schema.get_str(&[k]);
    let keys = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Node::as_seq)
        .map(|keys| {
            keys.iter()
                .filter_map(|k| k.as_str())
                .map(|k| Cow::Owned(k.to_string()))
                .collect()
        })
        .unwrap_or_default();
    Shape {
        object: N,
        items: N,
        strategy: text("x-kubernetes-patch-strategy")
            .map(PatchStrategy::parse)
            .unwrap_or_default(),
        merge_key: text("x-kubernetes-patch-merge-key").map(|k| Cow::Owned(k.to_string())),
        list_type: text("x-kubernetes-list-type").and_then(ListType::parse),
        list_map_keys: Cow::Owned(keys),
    }
}
