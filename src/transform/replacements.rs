//! `replacements` (and the builtin `ReplacementTransformer`): copy one field
//! of one resource into fields of other resources.
//!
//! Semantics follow kustomize v5.5.0:
//! - The source must select exactly one resource. Selectors compare group,
//!   version, kind, name and namespace exactly (no regular expressions in
//!   v5.5.0), against the resource's current id and every id it had before
//!   renames (so a base's original name still selects it after a prefix).
//!   An empty namespace and `default` are the same.
//! - A target selects every resource matching `select` (ids as above, plus
//!   label and annotation selectors) that no `reject` entry matches; a
//!   reject by id matches any of the resource's ids too (so rejecting a
//!   base's name still rejects it after a suffix), a reject by labels or
//!   annotations matches on those alone.
//! - Field paths use kustomize's dotted syntax (see [`crate::transform::field_path`]).
//! - When the target field is a scalar, only its text is replaced and its
//!   type is kept: a string target gets the source's text (`8080` becomes
//!   `"8080"`), a number target must receive a number, and so on. A field
//!   created by `options.create` has no type yet, so the text is read as a
//!   plain YAML scalar (`"8080"` from a string source becomes the number
//!   8080). A mapping or list target is replaced by the source value as is.
//! - `options.delimiter`/`options.index` pick one part of the source text, or
//!   replace one part of the target text (an index before the first part
//!   prepends, one past the last appends).

use crate::error::{Error, Result};
use crate::kustomization::{ReplacementField, Selector};
use crate::resource::Resource;
use crate::resource::id::ResId;
use crate::resource::resmap::ResMap;
use crate::resource::selector::LabelSelector;
use crate::resource::shared::{StepRef, Trail, trail_of};
use crate::transform::field_path::{FieldPath, NewLeaf};
use crate::yaml::Node;
use crate::yaml::de::{DeError, from_node, from_node_lenient};
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// The field path used when a source or target gives none.
pub const DEFAULT_FIELD_PATH: &str = "metadata.name";

/// One replacement: a source value and where to put it.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Replacement {
    #[serde(default)]
    pub source: Option<Source>,
    #[serde(default)]
    pub targets: Option<Vec<Target>>,
}

/// The resource and field a replacement copies from.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Source {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub field_path: String,
    #[serde(default)]
    pub options: Option<FieldOptions>,
}

/// `options` of a source or target.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldOptions {
    #[serde(default)]
    pub delimiter: String,
    #[serde(default)]
    pub index: i64,
    #[serde(default)]
    pub create: bool,
}

/// Where a replacement writes.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Target {
    #[serde(default)]
    pub select: Option<Selector>,
    #[serde(default)]
    pub reject: Vec<Selector>,
    #[serde(default)]
    pub field_paths: Vec<String>,
    #[serde(default)]
    pub options: Option<FieldOptions>,
}

/// How replacement entries are decoded: kustomize reads a kustomization's
/// inline entries strictly (unknown fields are errors) but replacement files
/// and `ReplacementTransformer` configs leniently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decode {
    Strict,
    Lenient,
}

/// A replacement ready to run, with a label for error messages.
#[derive(Debug)]
pub struct Loaded {
    pub label: String,
    pub replacement: Replacement,
}

/// Reads the entries of a `replacements` list: inline ones are decoded,
/// `path:` ones read (relative to the kustomization, through `read`) as a
/// file holding one replacement or a list of them.
pub fn load(
    entries: &[ReplacementField],
    inline: Decode,
    read: &mut dyn FnMut(&str) -> Result<String>,
) -> Result<Vec<Loaded>> {
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let label = format!("replacements[{i}]");
        if e.path.is_empty() {
            let r = decode_inline(e, inline).map_err(|err| err.context(label.clone()))?;
            out.push(Loaded {
                label,
                replacement: r,
            });
            continue;
        }
        let has_inline = e.source.as_ref().is_some_and(|s| !s.is_null())
            || e.targets.as_ref().is_some_and(|t| {
                !matches!(t, Node::Null) && t.as_seq().is_none_or(|s| !s.is_empty())
            });
        if has_inline {
            return Err(Error::invalid_config(format!(
                "{label}: has both 'path' and an inline replacement ('source'/'targets'); use one"
            )));
        }
        let label = format!("{label} (file '{}')", e.path);
        let list = load_file(&e.path, read).map_err(|err| err.context(label.clone()))?;
        let many = list.len() > 1;
        for (j, r) in list.into_iter().enumerate() {
            let label = if many {
                format!("{label}, entry {j}")
            } else {
                label.clone()
            };
            out.push(Loaded {
                label,
                replacement: r,
            });
        }
    }
    Ok(out)
}

fn decode_inline(e: &ReplacementField, how: Decode) -> Result<Replacement> {
    let source = e
        .source
        .as_ref()
        .filter(|n| !n.is_null())
        .map(|n| decode::<Source>(n, how, "source"))
        .transpose()?;
    let targets = e
        .targets
        .as_ref()
        .filter(|n| !n.is_null())
        .map(|n| decode::<Vec<Target>>(n, how, "targets"))
        .transpose()?;
    Ok(Replacement { source, targets })
}

fn decode<T: DeserializeOwned>(node: &Node, how: Decode, field: &str) -> Result<T> {
    let r: std::result::Result<T, DeError> = match how {
        Decode::Strict => from_node(node),
        Decode::Lenient => from_node_lenient(node),
    };
    r.map_err(|e| {
        let path = if e.path.is_empty() {
            field.to_string()
        } else {
            format!("{field}.{}", e.path)
        };
        match e.hint {
            Some(hint) => Error::invalid_config(format!("field {path}: {} ({hint})", e.msg)),
            None => Error::invalid_config(format!("field {path}: {}", e.msg)),
        }
    })
}

/// A replacements file: one replacement (a mapping) or a list of them. Like
/// kustomize (sigs.k8s.io/yaml), only the first YAML document is read and
/// unknown fields are ignored.
fn load_file(path: &str, read: &mut dyn FnMut(&str) -> Result<String>) -> Result<Vec<Replacement>> {
    let text = read(path)?;
    let node = crate::yaml::parse::parse_document(&text, path)?;
    let items: Vec<&Node> = match &node {
        Node::Seq(items) => items.iter().collect(),
        Node::Map(_) => vec![&node],
        other => {
            return Err(Error::invalid_config(format!(
                "expected a replacement (a mapping with 'source' and 'targets') or a list of them, found {}",
                if other.is_null() {
                    "an empty document".to_string()
                } else {
                    format!("a {}", other.type_name())
                }
            )));
        }
    };
    items
        .into_iter()
        .enumerate()
        .map(|(j, n)| decode::<Replacement>(n, Decode::Lenient, &format!("[{j}]")))
        .collect()
}

/// Runs loaded replacements over the resource map, in order.
pub fn apply(rm: &mut ResMap, replacements: &[Loaded]) -> Result<()> {
    for l in replacements {
        apply_one(rm, &l.replacement).map_err(|e| e.context(l.label.clone()))?;
    }
    Ok(())
}

/// Loads and runs a `replacements` list.
pub fn apply_entries(
    rm: &mut ResMap,
    entries: &[ReplacementField],
    inline: Decode,
    read: &mut dyn FnMut(&str) -> Result<String>,
) -> Result<()> {
    let loaded = load(entries, inline, read)?;
    apply(rm, &loaded)
}

fn apply_one(rm: &mut ResMap, r: &Replacement) -> Result<()> {
    let (Some(source), Some(targets)) = (&r.source, &r.targets) else {
        return Err(Error::invalid_config(
            "a replacement needs both a 'source' (where the value comes from) and 'targets' (where it goes)",
        ));
    };
    let value = source_value(rm, source)?;
    for (i, t) in targets.iter().enumerate() {
        apply_target(rm, &value, t).map_err(|e| e.context(format!("targets[{i}]")))?;
    }
    Ok(())
}

/// A source value: a scalar keeps the type it was read with and its text
/// (which a delimiter may have cut), a mapping or list is copied whole.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Scalar { tag: &'static str, text: String },
    Tree(Node),
}

impl Value {
    fn of(node: &Node) -> Value {
        match node {
            Node::Map(_) | Node::Seq(_) => Value::Tree(node.clone()),
            scalar => Value::Scalar {
                tag: tag_of(scalar),
                text: scalar.scalar_string().unwrap_or_default(),
            },
        }
    }

    /// The text a scalar target receives (a collection has none).
    fn text(&self) -> &str {
        match self {
            Value::Scalar { text, .. } => text,
            Value::Tree(_) => "",
        }
    }

    /// The value as a node of its own type.
    fn to_node(&self) -> std::result::Result<Node, String> {
        match self {
            Value::Scalar { tag, text } => {
                crate::yaml::parse::resolve_resource_scalar(text, Some(tag))
            }
            Value::Tree(n) => Ok(n.clone()),
        }
    }

    fn new_leaf(&self) -> NewLeaf {
        match self {
            Value::Scalar { .. } => NewLeaf::Scalar,
            Value::Tree(n) => NewLeaf::like(n),
        }
    }
}

/// The YAML core tag a scalar node was read with.
fn tag_of(node: &Node) -> &'static str {
    match node {
        Node::Null => "null",
        Node::Bool(_) => "bool",
        Node::Int(_) | Node::Uint(_) => "int",
        Node::Float(_) => "float",
        Node::Str(_) | Node::Seq(_) | Node::Map(_) => "str",
    }
}

/// The group/version/kind/name/namespace part of a selector.
#[derive(Clone, Copy)]
struct IdSelector<'a> {
    group: &'a str,
    version: &'a str,
    kind: &'a str,
    name: &'a str,
    namespace: &'a str,
}

impl<'a> IdSelector<'a> {
    fn of_source(s: &'a Source) -> IdSelector<'a> {
        IdSelector {
            group: &s.group,
            version: &s.version,
            kind: &s.kind,
            name: &s.name,
            namespace: &s.namespace,
        }
    }

    fn of(s: &'a Selector) -> IdSelector<'a> {
        IdSelector {
            group: &s.group,
            version: &s.version,
            kind: &s.kind,
            name: &s.name,
            namespace: &s.namespace,
        }
    }

    fn is_empty(&self) -> bool {
        [
            self.group,
            self.version,
            self.kind,
            self.name,
            self.namespace,
        ]
        .iter()
        .all(|s| s.is_empty())
    }

    /// kustomize's `ResId.IsSelectedBy`: every field the selector sets is
    /// equal; namespaces compare as kustomize's "effective" namespaces.
    fn selects(&self, id: &ResId) -> bool {
        let eq = |want: &str, have: &str| want.is_empty() || want == have;
        eq(self.name, &id.name)
            && eq(self.group, &id.gvk.group)
            && eq(self.version, &id.gvk.version)
            && eq(self.kind, &id.gvk.kind)
            && (self.namespace.is_empty()
                || effective_namespace(self.namespace) == effective_namespace(&id.namespace))
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (k, v) in [
            ("group", self.group),
            ("version", self.version),
            ("kind", self.kind),
            ("name", self.name),
            ("namespace", self.namespace),
        ] {
            if !v.is_empty() {
                parts.push(format!("{k} {v}"));
            }
        }
        if parts.is_empty() {
            "{} (everything)".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// kustomize compares namespaces with "" read as "default". (v5.5.0 does
/// so for cluster-scoped kinds too: `namespace: default` selects a
/// ClusterRole, any other namespace does not.)
fn effective_namespace(ns: &str) -> &str {
    if ns.is_empty() { "default" } else { ns }
}

/// The current id and every previous one.
fn all_ids(r: &Resource) -> Vec<ResId> {
    let mut ids = Vec::with_capacity(1 + r.prev_ids.len());
    ids.push(r.id());
    ids.extend(r.prev_ids.iter().cloned());
    ids
}

fn source_value(rm: &ResMap, source: &Source) -> Result<Value> {
    let sel = IdSelector::of_source(source);
    let hits: Vec<&Resource> = rm
        .iter()
        .filter(|r| all_ids(r).iter().any(|id| sel.selects(id)))
        .collect();
    let res = match hits.as_slice() {
        [one] => *one,
        [] => {
            return Err(Error::no_match(
                0,
                format!(
                    "no resource matches the source ({}); a source must select exactly one resource",
                    sel.describe()
                ),
            ));
        }
        many => {
            const SHOWN: usize = 5;
            let mut ids: Vec<String> = many
                .iter()
                .take(SHOWN)
                .map(|r| r.id().to_string())
                .collect();
            if many.len() > SHOWN {
                ids.push(format!("and {} more", many.len() - SHOWN));
            }
            return Err(Error::no_match(
                many.len(),
                format!(
                    "{} resources match the source ({}): {}; a source must select exactly one resource (add kind, name or namespace)",
                    many.len(),
                    sel.describe(),
                    ids.join(", ")
                ),
            ));
        }
    };
    let path_text = if source.field_path.is_empty() {
        DEFAULT_FIELD_PATH
    } else {
        &source.field_path
    };
    let path = FieldPath::parse(path_text);
    let found = path
        .lookup(&res.node)
        .map_err(|e| e.context(format!("source {}: fieldPath '{path}'", res.id())))?;
    let node = match found {
        Some(n) if !is_nil_or_empty(n) => n,
        _ => {
            return Err(Error::invalid_config(format!(
                "source {} has no value at fieldPath '{path}' (missing, null or empty)",
                res.id()
            )));
        }
    };
    let value = Value::of(node);
    match source.options.as_ref().filter(|o| !o.delimiter.is_empty()) {
        None => Ok(value),
        Some(o) => part_of_source(value, o)
            .map_err(|e| e.context(format!("source {}: fieldPath '{path}'", res.id()))),
    }
}

/// kustomize's "nil or empty": null, `{}` and `[]` count as no value.
fn is_nil_or_empty(n: &Node) -> bool {
    match n {
        Node::Null => true,
        Node::Map(m) => m.is_empty(),
        Node::Seq(s) => s.is_empty(),
        _ => false,
    }
}

/// `options.delimiter`/`index` on a source: one part of its text.
fn part_of_source(value: Value, o: &FieldOptions) -> Result<Value> {
    let Value::Scalar { tag, text } = value else {
        return Err(Error::invalid_config(
            "options.delimiter needs a scalar value, but the source value is a mapping or a list",
        ));
    };
    let parts: Vec<&str> = text.split(o.delimiter.as_str()).collect();
    let part = usize::try_from(o.index).ok().and_then(|i| parts.get(i)).ok_or_else(|| {
        Error::invalid_config(format!(
            "options.index {} is out of bounds: splitting {text:?} at {:?} gives {} part{} (index from 0)",
            o.index,
            o.delimiter,
            parts.len(),
            if parts.len() == 1 { "" } else { "s" }
        ))
    })?;
    Ok(Value::Scalar {
        tag,
        text: (*part).to_string(),
    })
}

/// A target's selectors, compiled.
struct TargetMatcher<'t> {
    select: IdSelector<'t>,
    labels: Option<LabelSelector>,
    annotations: Option<LabelSelector>,
    /// Rejects by id (those that set any id field).
    reject_ids: Vec<IdSelector<'t>>,
    /// Rejects by labels/annotations (those that set either selector).
    reject_meta: Vec<(Option<LabelSelector>, Option<LabelSelector>)>,
}

fn parse_selector(s: &str, what: &str) -> Result<Option<LabelSelector>> {
    if s.trim().is_empty() {
        return Ok(None);
    }
    LabelSelector::parse(s)
        .map(Some)
        .map_err(|e| e.context(what.to_string()))
}

fn meta_matches(
    r: &Resource,
    labels: &Option<LabelSelector>,
    annotations: &Option<LabelSelector>,
) -> bool {
    labels
        .as_ref()
        .is_none_or(|l| l.matches_map(r.node.get_path(&["metadata", "labels"])))
        && annotations
            .as_ref()
            .is_none_or(|a| a.matches_map(r.node.get_path(&["metadata", "annotations"])))
}

impl<'t> TargetMatcher<'t> {
    fn new(select: &'t Selector, reject: &'t [Selector]) -> Result<TargetMatcher<'t>> {
        let mut reject_ids = Vec::new();
        let mut reject_meta = Vec::new();
        for (i, r) in reject.iter().enumerate() {
            let id = IdSelector::of(r);
            if !id.is_empty() {
                reject_ids.push(id);
            }
            if !r.label_selector.is_empty() || !r.annotation_selector.is_empty() {
                reject_meta.push((
                    parse_selector(&r.label_selector, &format!("reject[{i}].labelSelector"))?,
                    parse_selector(
                        &r.annotation_selector,
                        &format!("reject[{i}].annotationSelector"),
                    )?,
                ));
            }
        }
        Ok(TargetMatcher {
            select: IdSelector::of(select),
            labels: parse_selector(&select.label_selector, "select.labelSelector")?,
            annotations: parse_selector(&select.annotation_selector, "select.annotationSelector")?,
            reject_ids,
            reject_meta,
        })
    }

    fn selects(&self, r: &Resource) -> bool {
        if !meta_matches(r, &self.labels, &self.annotations) {
            return false;
        }
        if self.reject_meta.iter().any(|(l, a)| meta_matches(r, l, a)) {
            return false;
        }
        let ids = all_ids(r);
        ids.iter().any(|id| self.select.selects(id))
            && !ids
                .iter()
                .any(|id| self.reject_ids.iter().any(|rj| rj.selects(id)))
    }
}

fn apply_target(rm: &mut ResMap, value: &Value, t: &Target) -> Result<()> {
    let select = t.select.as_ref().ok_or_else(|| {
        Error::invalid_config("a target needs 'select' to say which resources to change (use `select: {}` for all of them)")
    })?;
    let matcher = TargetMatcher::new(select, &t.reject)?;
    let default_paths = [DEFAULT_FIELD_PATH.to_string()];
    let paths = if t.field_paths.is_empty() {
        &default_paths[..]
    } else {
        &t.field_paths[..]
    };
    let compiled: Vec<_> = paths
        .iter()
        .map(|p| FieldPath::parse(p).matcher())
        .collect();
    let options = t.options.clone().unwrap_or_default();
    let create = options.create.then(|| value.new_leaf());
    for res in rm.iter_mut() {
        if !matcher.selects(res) {
            continue;
        }
        let id = res.id();
        for path in &compiled {
            let mut writes = SharedWrites::new(res);
            let mut set = |field: &mut Node, created: bool, at: &[StepRef<'_>]| {
                writes.note(field, created, at);
                set_field(field, created, value, &options)
            };
            let n = path
                .visit(&mut res.node, create, &mut set)
                .map_err(|e| e.context(format!("target {id}: fieldPath '{}'", path.as_str())))?;
            writes.finish(res);
            if n == 0 {
                let hint = if options.create {
                    ""
                } else {
                    " (set options.create: true to create it)"
                };
                return Err(Error::invalid_config(format!(
                    "target {id} has no field '{}'{hint}",
                    path.as_str()
                )));
            }
        }
    }
    Ok(())
}

/// The target fields a replacement wrote in a resource that shares label or
/// annotation values between fields (see resource/shared.rs): kustomize writes a
/// scalar in place, so into every field sharing it, and puts a new node in place of a
/// mapping or list, which ends the sharing of the fields below.
struct SharedWrites {
    /// Off when the resource shares nothing (nearly always).
    on: bool,
    /// Scalars written, with the value they held.
    scalars: Vec<(Trail, Node)>,
    /// Mappings and lists replaced.
    trees: Vec<Trail>,
}

impl SharedWrites {
    fn new(res: &Resource) -> SharedWrites {
        SharedWrites {
            on: !res.shared.is_empty(),
            scalars: Vec::new(),
            trees: Vec::new(),
        }
    }

    fn note(&mut self, field: &Node, created: bool, at: &[StepRef<'_>]) {
        if !self.on || created {
            return;
        }
        match field {
            Node::Map(_) | Node::Seq(_) => self.trees.push(trail_of(at, None)),
            _ => self.scalars.push((trail_of(at, None), field.clone())),
        }
    }

    fn finish(self, res: &mut Resource) {
        for (at, old) in &self.scalars {
            res.shared.write_through(&mut res.node, at, old);
        }
        for at in &self.trees {
            res.shared.forget_under(at);
        }
    }
}

/// Puts `value` into one target field (kustomize's `setFieldValue`).
fn set_field(field: &mut Node, created: bool, value: &Value, o: &FieldOptions) -> Result<()> {
    let is_scalar = !matches!(field, Node::Map(_) | Node::Seq(_));
    let mut text = value.text().to_string();
    if !o.delimiter.is_empty() {
        if !is_scalar {
            return Err(Error::invalid_config(format!(
                "options.delimiter needs a scalar target field, found a {}",
                field.type_name()
            )));
        }
        let current = if created {
            String::new()
        } else {
            field.scalar_string().unwrap_or_default()
        };
        let mut parts: Vec<&str> = current.split(o.delimiter.as_str()).collect();
        match usize::try_from(o.index) {
            Err(_) => parts.insert(0, value.text()),
            Ok(i) if i >= parts.len() => parts.push(value.text()),
            Ok(i) => parts[i] = value.text(),
        }
        text = parts.join(&o.delimiter);
    }
    if !is_scalar {
        *field = value.to_node().map_err(Error::invalid_config)?;
        return Ok(());
    }
    // kustomize keeps the scalar's tag and swaps its text; a created field
    // has no tag, and its text is read as a plain scalar.
    let tag = (!created).then(|| tag_of(field));
    *field = crate::yaml::parse::resolve_resource_scalar(&text, tag).map_err(|e| {
        let hint = if tag == Some("null") { "; write the field as \"\" to make it a string" } else { "" };
        Error::invalid_config(format!(
            "cannot put {text:?} into {} field: kustomize keeps the type of the field it replaces ({e}){hint}",
            tag.map_or("a new", type_word)
        ))
    })?;
    Ok(())
}

fn type_word(tag: &str) -> &'static str {
    match tag {
        "null" => "a null",
        "bool" => "a boolean",
        "int" => "an integer",
        "float" => "a number",
        _ => "a string",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(s: &str) -> Node {
        crate::yaml::parse::parse_stream(s, "test")
            .expect("yaml")
            .remove(0)
    }

    fn set(field: Node, created: bool, value: Node, o: FieldOptions) -> Result<Node> {
        let mut f = field;
        set_field(&mut f, created, &Value::of(&value), &o)?;
        Ok(f)
    }

    #[test]
    fn scalar_targets_keep_their_type() {
        let none = FieldOptions::default;
        assert_eq!(
            set(Node::Str("x".into()), false, Node::Int(8080), none()).ok(),
            Some(Node::Str("8080".into()))
        );
        assert_eq!(
            set(Node::Int(80), false, Node::Str("8080".into()), none()).ok(),
            Some(Node::Int(8080))
        );
        assert!(set(Node::Int(80), false, Node::Str("abc".into()), none()).is_err());
        assert!(set(Node::Null, false, Node::Str("abc".into()), none()).is_err());
        assert_eq!(
            set(Node::Float(1.5), false, Node::Int(2), none()).ok(),
            Some(Node::Float(2.0))
        );
        // A created field reads the text as a plain scalar.
        assert_eq!(
            set(Node::Null, true, Node::Str("8080".into()), none()).ok(),
            Some(Node::Int(8080))
        );
        assert_eq!(
            set(Node::Null, true, Node::text(String::new()), none()).ok(),
            Some(Node::Null)
        );
        // A scalar target of a mapping source gets empty text; a mapping target gets the mapping.
        let m = yaml("a: 1\n");
        assert_eq!(
            set(Node::Str("x".into()), false, m.clone(), none()).ok(),
            Some(Node::text(String::new()))
        );
        assert_eq!(
            set(yaml("k: v\n"), false, Node::Bool(true), none()).ok(),
            Some(Node::Bool(true))
        );
        assert_eq!(
            set(Node::Seq(vec![]), true, m.clone(), none()).ok(),
            Some(m)
        );
    }

    #[test]
    fn delimiter_replaces_prepends_or_appends() {
        let o = |index| FieldOptions {
            delimiter: ",".into(),
            index,
            create: false,
        };
        let v = || Node::Str("N".into());
        assert_eq!(
            set(Node::Str("a,b".into()), false, v(), o(1)).ok(),
            Some(Node::Str("a,N".into()))
        );
        assert_eq!(
            set(Node::Str("a,b".into()), false, v(), o(-1)).ok(),
            Some(Node::Str("N,a,b".into()))
        );
        assert_eq!(
            set(Node::Str("a,b".into()), false, v(), o(7)).ok(),
            Some(Node::Str("a,b,N".into()))
        );
        assert_eq!(
            set(Node::Null, true, v(), o(-1)).ok(),
            Some(Node::Str("N,".into()))
        );
        assert!(set(yaml("k: v\n"), false, v(), o(0)).is_err());
    }

    #[test]
    fn source_delimiter_picks_a_part() {
        let o = |index| FieldOptions {
            delimiter: ":".into(),
            index,
            create: false,
        };
        let v = Value::of(&Node::Str("img:1.2".into()));
        assert_eq!(
            part_of_source(v.clone(), &o(1))
                .ok()
                .map(|v| v.text().to_string()),
            Some("1.2".to_string())
        );
        assert!(part_of_source(v.clone(), &o(2)).is_err());
        assert!(part_of_source(v, &o(-1)).is_err());
    }

    #[test]
    fn namespaces_compare_like_kustomize() {
        let id = |kind: &str, ns: &str| ResId {
            gvk: crate::resource::id::Gvk::from_api_version("v1", kind),
            namespace: ns.into(),
            name: "x".into(),
        };
        let sel = |ns: &'static str| IdSelector {
            group: "",
            version: "",
            kind: "",
            name: "",
            namespace: ns,
        };
        assert!(sel("default").selects(&id("ConfigMap", "")));
        assert!(sel("a").selects(&id("ConfigMap", "a")));
        assert!(!sel("a").selects(&id("ConfigMap", "b")));
        assert!(sel("default").selects(&id("Namespace", "")));
        assert!(!sel("a").selects(&id("Namespace", "")));
        assert!(sel("").selects(&id("Namespace", "")));
    }
}
