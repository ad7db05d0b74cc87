//! `replacements` (and the builtin `ReplacementTransformer`): copy one field
//! of one resource, or a value given inline, into fields of other resources.
//!
//! Semantics follow kustomize; where releases differ, the switches of
//! [`KustomizeVersion`] decide:
//! - The value comes from a `source`, which must select exactly one resource
//!   (group, version, kind, name and namespace compared literally, against
//!   the resource's current id and every id it had before renames, so a
//!   base's original name still selects it after a prefix), or, from v5.7.0,
//!   from `sourceValue`, a string given inline (see [`value`]). v5.5.0 does
//!   not know `sourceValue`: the kustomization decoder refuses it there, and
//!   replacement files and `ReplacementTransformer` configs ignore it, as
//!   kustomize ignores unknown fields in them.
//! - A target selects every resource matching `select` (ids as above, plus
//!   label and annotation selectors) that no `reject` entry matches; a
//!   reject by id matches any of the resource's ids too (so rejecting a
//!   base's name still rejects it after a suffix), a reject by labels or
//!   annotations matches on those alone. From v5.8.0 the id fields of
//!   `select` and `reject` are regular expressions (see [`select`]).
//! - Field paths use kustomize's dotted syntax (see [`crate::transform::field_path`]).
//!   From v5.8.0 a target path may go on into a string field holding YAML or
//!   JSON text (see [`structured`]).
//! - When the target field is a scalar, only its text is replaced and its
//!   type is kept: a string target gets the source's text (`8080` becomes
//!   `"8080"`), a number target reads the text as a number, and so on; as in
//!   kustomize, a text the type cannot read (`abc` in a number field) is an
//!   error only when the resource is printed or JSON-patched, so a later
//!   replacement may still write one it can (`0o14`, printed `12`). A field
//!   created by `options.create` has no type yet, so the text is read as a
//!   plain YAML scalar (`"8080"` from a string source becomes the number
//!   8080). A mapping or list target is replaced by the source value as is.
//! - `options.delimiter`/`options.index` pick one part of the source text, or
//!   replace one part of the target text (an index before the first part
//!   prepends, one past the last appends).

mod select;
mod structured;
mod value;

use crate::error::{Context, Error, Result};
use crate::kustomization::{ReplacementField, Selector};
use crate::kustomize_version::KustomizeVersion;
use crate::openapi::Schemas;
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use crate::resource::shared::{Trail, trail_of_path};
use crate::transform::field_path::{FieldPath, Options};
use crate::yaml::Node;
use crate::yaml::de::{DeError, from_node, from_node_lenient};
use crate::yaml::map::{KeptTag, Style};
use crate::yaml::parse::PathStep;
use select::{IdSelector, TargetMatcher, resource_ids};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use value::{Target as Written, Value, created_text, delimiter_on_collection, set_field_in};

/// The field path used when a source or target gives none.
pub(crate) const DEFAULT_FIELD_PATH: &str = "metadata.name";

/// One replacement: a source value and where to put it.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Replacement {
    #[serde(default)]
    pub source: Option<Source>,
    #[serde(default)]
    pub targets: Option<Vec<Target>>,
    /// The value itself, in place of a `source` (kustomize v5.7.0). Kept as
    /// written until the version is known: see [`Loaded::source_value`].
    #[serde(default)]
    pub source_value: Option<Node>,
}

/// The resource and field a replacement copies from.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Source {
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
pub(crate) struct FieldOptions {
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
pub(crate) struct Target {
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
pub(crate) enum Decode {
    Strict,
    Lenient,
}

/// A replacement ready to run, with a label for error messages.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub label: String,
    pub replacement: Replacement,
    /// `sourceValue` as the version being reproduced reads it: a string, or
    /// nothing (absent, null, or ignored by v5.5.0).
    pub source_value: Option<String>,
    /// Where it was written: the index of its `replacements` entry, and for an entry
    /// naming a file, its index in the file (for the warning about a target that
    /// selects nothing).
    pub at: (usize, Option<usize>),
}

/// Whether a replacement target selected any resource (kustomize accepts one that selects
/// none, which changes nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TargetUse {
    /// The replacement's place (see [`Loaded::at`]).
    pub at: (usize, Option<usize>),
    /// The index in its `targets`.
    pub target: usize,
    /// Whether it selected a resource.
    pub selected: bool,
}

/// How a replacement list is read and run: the kustomize release being
/// reproduced, and the schemas that say which kinds are cluster-scoped.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub version: KustomizeVersion,
    pub schemas: &'a Schemas,
    /// The build's output budget: each value written is charged.
    pub budget: &'a crate::resource::budget::Budget,
}

/// The list an error's item context names (see [`crate::error::Context::Item`]).
const KEY: &str = "replacements";

/// Reads the entries of a `replacements` list: inline ones are decoded,
/// `path:` ones read (relative to the kustomization, through `read`) as a
/// file holding one replacement or a list of them.
pub(crate) fn load(
    entries: &[ReplacementField],
    inline: Decode,
    version: KustomizeVersion,
    read: &mut dyn FnMut(&str) -> Result<String>,
) -> Result<Vec<Loaded>> {
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let label = format!("replacements[{i}]");
        if e.path.is_empty() {
            let mut loaded = decode_inline(e, inline)
                .and_then(|r| Loaded::new(label.clone(), r, inline, version))
                .map_err(|err| err.in_item(KEY, i, label.clone()))?;
            loaded.at = (i, None);
            out.push(loaded);
            continue;
        }
        let has_inline = e.source.as_ref().is_some_and(|s| !s.is_null())
            || e.targets.as_ref().is_some_and(|t| {
                !matches!(t, Node::Null) && t.as_seq().is_none_or(|s| !s.is_empty())
            });
        if has_inline {
            return Err(Error::invalid_config(
                "has both 'path' and an inline replacement ('source'/'targets'); use one",
            )
            .in_item(KEY, i, label));
        }
        let label = format!("{label} (file '{}')", e.path);
        let list = load_file(&e.path, read).map_err(|err| err.in_item(KEY, i, label.clone()))?;
        let many = list.len() > 1;
        for (j, r) in list.into_iter().enumerate() {
            let label = if many {
                format!("{label}, entry {j}")
            } else {
                label.clone()
            };
            let mut loaded = Loaded::new(label.clone(), r, Decode::Lenient, version)
                .map_err(|err| err.in_item(KEY, i, label))?;
            loaded.at = (i, Some(j));
            out.push(loaded);
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
    Ok(Replacement {
        source,
        targets,
        source_value: e.source_value.clone(),
    })
}

impl Loaded {
    /// Reads `sourceValue` the way `version` does: v5.7.0 and later want a
    /// string (null is "not given", as for kustomize's `*string`); v5.5.0
    /// does not know the field and ignores it here (in replacement files and
    /// `ReplacementTransformer` configs, which kustomize reads leniently; a
    /// kustomization's own entries were refused by
    /// [`crate::kustomization::by_version::check`] before).
    fn new(
        label: String,
        replacement: Replacement,
        how: Decode,
        version: KustomizeVersion,
    ) -> Result<Loaded> {
        let source_value = match &replacement.source_value {
            Some(n) if !n.is_null() && version.replacement_source_value() => {
                Some(decode::<String>(n, how, "sourceValue")?)
            }
            _ => None,
        };
        Ok(Loaded {
            label,
            replacement,
            source_value,
            at: (0, None),
        })
    }
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

/// Runs loaded replacements over the resource map, in order; which targets selected a
/// resource.
pub(crate) fn apply(rm: &mut ResMap, replacements: &[Loaded], ctx: Ctx) -> Result<Vec<TargetUse>> {
    let mut uses = Vec::new();
    for l in replacements {
        let selected =
            apply_one(rm, l, ctx).map_err(|e| e.in_item(KEY, l.at.0, l.label.clone()))?;
        uses.extend(
            selected
                .into_iter()
                .enumerate()
                .map(|(target, selected)| TargetUse {
                    at: l.at,
                    target,
                    selected,
                }),
        );
    }
    Ok(uses)
}

/// Loads and runs a `replacements` list; which targets selected a resource.
pub(crate) fn apply_entries(
    rm: &mut ResMap,
    entries: &[ReplacementField],
    inline: Decode,
    ctx: Ctx,
    read: &mut dyn FnMut(&str) -> Result<String>,
) -> Result<Vec<TargetUse>> {
    let loaded = load(entries, inline, ctx.version, read)?;
    apply(rm, &loaded, ctx)
}

/// Runs one replacement; whether each of its targets selected a resource.
fn apply_one(rm: &mut ResMap, l: &Loaded, ctx: Ctx) -> Result<Vec<bool>> {
    let r = &l.replacement;
    let needs = || {
        let what = if ctx.version.replacement_source_value() {
            "a 'source' or a 'sourceValue'"
        } else {
            "both a 'source'"
        };
        Error::invalid_config(format!(
            "a replacement needs {what} (where the value comes from) and 'targets' (where it goes)"
        ))
    };
    let Some(targets) = &r.targets else {
        return Err(needs());
    };
    let value = match (&r.source, &l.source_value) {
        (Some(_), Some(_)) => {
            return Err(Error::invalid_config(
                "'source' and 'sourceValue' are mutually exclusive: give the value inline or say where to read it, not both",
            ));
        }
        (None, Some(text)) => Value::untagged(text),
        (Some(source), None) => source_value(rm, source, ctx.schemas)?,
        (None, None) => return Err(needs()),
    };
    let mut selected = Vec::with_capacity(targets.len());
    for (i, t) in targets.iter().enumerate() {
        selected.push(
            apply_target(rm, &value, t, (l, i), ctx)
                .map_err(|e| e.context(format!("targets[{i}]")))?,
        );
    }
    Ok(selected)
}

impl Source {
    /// The id part of the source; kustomize compares it literally in every
    /// version (v5.8.0's regular expressions are for targets only).
    fn id_selector(&self) -> IdSelector<'_> {
        IdSelector {
            group: &self.group,
            version: &self.version,
            kind: &self.kind,
            name: &self.name,
            namespace: &self.namespace,
        }
    }
}

fn source_value(rm: &ResMap, source: &Source, schemas: &Schemas) -> Result<Value> {
    let sel = source.id_selector();
    let hits: Vec<&Resource> = rm
        .iter()
        .filter(|r| resource_ids(r, schemas).iter().any(|id| sel.selects(id)))
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
    path.check_length()?;
    let found = path
        .lookup(res.node())
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
    let mut value = Value::of(node);
    if let Value::Tree(_, keys) = &mut value
        && res.keys_from_json
    {
        *keys =
            crate::yaml::styled::KeyStyles::FromJson(crate::merge::scalar_style::json_key_quote);
    }
    // kustomize copies the source node's text: a number keeps its spelling (`1.0e+3`);
    // and its style.
    if let Value::Scalar { text, quote, .. } = &mut value
        && let Some((m, i)) = path.lookup_entry(res.node())
    {
        if let Some(written) = m.get_index(i).and_then(|(k, _)| m.typed_text(k)) {
            *text = written.to_owned();
        }
        if let Style::Quoted(q) = m.style_at(i) {
            *quote = Some(q);
        }
    }
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
    // kustomize makes a new node of the part (plain).
    let Value::Scalar { tag, text, .. } = value else {
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
        quote: None,
    })
}

/// Writes `value` into the target's fields; whether it selected any resource. `who`: the
/// replacement and the target's index in it, which a text checked only when the resource
/// is printed is recorded with (`resource::deferred`).
fn apply_target(
    rm: &mut ResMap,
    value: &Value,
    t: &Target,
    who: (&Loaded, usize),
    ctx: Ctx,
) -> Result<bool> {
    let select = t.select.as_ref().ok_or_else(|| {
        Error::invalid_config("a target needs 'select' to say which resources to change (use `select: {}` for all of them)")
    })?;
    let matcher = TargetMatcher::new(
        select,
        &t.reject,
        ctx.version.replacement_selectors_are_regex(),
    )?;
    let default_paths = [DEFAULT_FIELD_PATH.to_string()];
    let paths = if t.field_paths.is_empty() {
        &default_paths[..]
    } else {
        &t.field_paths[..]
    };
    let compiled: Vec<_> = paths
        .iter()
        .map(|p| {
            let path = FieldPath::parse(p);
            path.check_length()?;
            let matcher = path.matcher();
            Ok((path, matcher))
        })
        .collect::<Result<_>>()?;
    let options = t.options.clone().unwrap_or_default();
    let create = options.create.then(|| value.new_leaf());
    let value_bytes = value.bytes();
    // A deep value may make its target too deep (see MAX_BUILT_DEPTH); a shallow one
    // cannot by itself (field paths have at most 512 segments), so only deep values cost
    // a walk of each target.
    let check_depth = value.depth() > 64;
    let into_text = ctx.version.replacement_into_structured_text();
    let mut selected = false;
    for res in rm.iter_mut() {
        if !matcher.selects(res, &resource_ids(res, ctx.schemas)) {
            continue;
        }
        selected = true;
        let id = res.id();
        for (path, path_matcher) in &compiled {
            let at = |e: Error| e.context(format!("target {id}: fieldPath '{path}'"));
            if into_text && structured::set(res, path, value, create).map_err(at)? {
                continue;
            }
            let mut writes = SharedWrites::new(res);
            // The path to each field: a created one is marked untagged, a typed one may
            // keep its tag beside a text (value::set_field_in), shared values are written
            // through.
            let trail = true;
            // Scalars `create` made, with their text: kustomize's are untagged.
            let mut made: Vec<(Vec<PathStep>, String)> = Vec::new();
            // A text written into an existing string that may be untagged (a field an
            // earlier replacement created, a name a prefix rewrote) and reads as
            // another type: the resource needs the untagged passes.
            let mut retyped = false;
            // Typed fields holding a text their type is asked about when printed.
            let mut kept: Vec<(Vec<PathStep>, KeptTag)> = Vec::new();
            // Texts written into fields that may already keep a tag or be untagged (only
            // in a resource an earlier write marked), to record with their writer.
            let may_hold_kept = res.untagged;
            let mut rewritten: Vec<Vec<PathStep>> = Vec::new();
            // The list items holding a text beside a kept tag (resource::deferred): a
            // copy, as the walk below has the resource's node.
            let kept_items = if may_hold_kept {
                res.writers.clone()
            } else {
                Default::default()
            };
            let mut set = |field: &mut Node, created: bool, at: &[PathStep]| {
                writes.note(field, created, at);
                // kustomize reads annotations as a string map (see value::set_field_in).
                // A mapping value can hold kustomize's untagged or kept-tag node.
                let mapping_value = matches!(at.last(), Some(PathStep::Key(_)));
                let annotation = is_annotation(at);
                let kept_before = match &*field {
                    Node::Str(t) if may_hold_kept && !mapping_value => kept_items.item_tag(at, t),
                    _ => None,
                };
                let target = Written {
                    created,
                    mapping_value,
                    kept_before,
                    string_map: annotation,
                };
                if let Some(tag) = set_field_in(field, target, value, &options)? {
                    kept.push((at.to_vec(), tag));
                } else if created && !matches!(field, Node::Map(_) | Node::Seq(_)) {
                    made.push((at.to_vec(), created_text(value, &options)));
                } else if let Node::Str(t) = field {
                    retyped |= crate::merge::scalar_style::untagged_text_matters(t);
                    if may_hold_kept {
                        rewritten.push(at.to_vec());
                    }
                }
                Ok(())
            };
            // What the walk finds in a parsed copy of YAML text (v5.8.0) is
            // dropped, but kustomize's setFieldValue still runs on it.
            let mut in_copy = |collection: bool| match collection && !options.delimiter.is_empty() {
                true => Err(delimiter_on_collection("mapping or list")),
                false => Ok(()),
            };
            let (node, empty_nulls) = res.node_mut_with_empty_nulls();
            let opts = Options {
                create,
                into_text,
                empty_nulls,
                trail,
            };
            // Charged before the copy (most paths set one field), the rest after.
            ctx.budget.charge(value_bytes, "replacements")?;
            let n = path_matcher
                .visit(node, opts, &mut set, &mut in_copy)
                .map_err(at)?;
            writes.finish(res);
            res.untagged |= retyped;
            // The error these texts may meet when the resource is printed, as this write
            // would have made it (see `resource::deferred`).
            let note = |res: &mut Resource, at: &[PathStep], text: String, item_tag| {
                let (l, target) = who;
                res.writers.note(
                    at,
                    text,
                    item_tag,
                    vec![
                        Context::Text(format!("target {id}: fieldPath '{path}'")),
                        Context::Text(format!("targets[{target}]")),
                        Context::Item {
                            key: KEY,
                            index: l.at.0,
                            label: l.label.clone(),
                        },
                    ],
                );
            };
            for (at, text) in made {
                if reads_as_non_finite(&text) {
                    note(res, &at, text.clone(), None);
                }
                mark_untagged(res, &at, text);
            }
            for (at, tag) in kept {
                if let Some(PathStep::Index(_)) = at.last() {
                    // A list item: the record keeps the tag (see resource::deferred).
                    let text = match res.node_mut().at_steps_mut(&at) {
                        Some(Node::Str(text)) => text.to_string(),
                        _ => continue,
                    };
                    note(res, &at, text, Some(tag));
                    res.untagged = true;
                    continue;
                }
                if let Some((m, i)) =
                    crate::merge::scalar_style::entry_at(res.node_mut(), &trail_of_path(&at))
                {
                    m.set_style_at(i, Style::Kept(tag));
                    res.untagged = true;
                }
                rewritten.push(at);
            }
            for at in rewritten {
                let Some((m, i)) =
                    crate::merge::scalar_style::entry_at(res.node_mut(), &trail_of_path(&at))
                else {
                    continue;
                };
                let checked_later = match (m.style_at(i), m.get_index(i)) {
                    (Style::Kept(_), Some((_, Node::Str(t)))) => Some(t.to_string()),
                    (Style::Untagged, Some((_, Node::Str(t)))) if reads_as_non_finite(t) => {
                        Some(t.to_string())
                    }
                    _ => None,
                };
                if let Some(text) = checked_later {
                    note(res, &at, text, None);
                }
            }
            if check_depth {
                let depth = crate::resource::budget::node_depth(res.node());
                if depth > crate::resource::budget::MAX_BUILT_DEPTH {
                    return Err(at(crate::resource::budget::too_deep(depth, "replacements")));
                }
            }
            let more = value_bytes.saturating_mul(n.saturating_sub(1) as u64);
            ctx.budget.charge(more, "replacements")?;
            if n == 0 {
                let hint = if options.create {
                    ""
                } else {
                    " (set options.create: true to create it)"
                };
                return Err(Error::invalid_config(format!(
                    "target {id} has no field '{path}'{hint}"
                )));
            }
        }
    }
    Ok(selected)
}

/// Whether an untagged `text` reads as infinity or NaN, which kustomize cannot print.
fn reads_as_non_finite(text: &str) -> bool {
    matches!(
        crate::yaml::parse::resolve_resource_scalar(text, None),
        Ok(Node::Float(f)) if !f.is_finite()
    )
}

/// Whether the field at `at` is an annotation's value (`metadata.annotations.KEY`).
fn is_annotation(at: &[PathStep]) -> bool {
    matches!(at, [PathStep::Key(m), PathStep::Key(a), _] if m == "metadata" && a == "annotations")
}

/// Makes the field `create` made at `at` what kustomize's is: a node without a tag
/// holding `text` ([`Style::Untagged`]), or, as an annotation, that text ([`Style::UntaggedText`]: kustomize reads
/// annotations as strings). A field in a list keeps the type its text reads as (kbuild
/// keeps no style for list items).
fn mark_untagged(res: &mut Resource, at: &[PathStep], text: String) {
    let annotation = is_annotation(at);
    let Some((m, i)) = crate::merge::scalar_style::entry_at(res.node_mut(), &trail_of_path(at))
    else {
        return;
    };
    if let Some((_, v)) = m.get_index_mut(i) {
        *v = Node::text(text);
    }
    if annotation {
        m.set_style_at(i, Style::UntaggedText);
    } else {
        m.set_style_at(i, Style::Untagged);
        res.untagged = true;
    }
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

    fn note(&mut self, field: &Node, created: bool, at: &[PathStep]) {
        if !self.on || created {
            return;
        }
        match field {
            Node::Map(_) | Node::Seq(_) => self.trees.push(trail_of_path(at)),
            _ => self.scalars.push((trail_of_path(at), field.clone())),
        }
    }

    fn finish(self, res: &mut Resource) {
        for (at, old) in &self.scalars {
            let (node, shared) = res.node_mut_with_shared();
            shared.write_through(node, at, old);
        }
        for at in &self.trees {
            res.shared.forget_under(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
