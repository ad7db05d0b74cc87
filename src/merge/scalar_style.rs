//! What kbuild keeps of a scalar's YAML presentation, and how each operation changes it.
//!
//! kustomize holds resources as go-yaml v3 nodes (tag, style, text) and prints them
//! through JSON, so a scalar's style is invisible in the output, except where an
//! operation mixes one node's style with another node's tag. The one such operation
//! kbuild models is the strategic merge (kyaml `merge2`): the patch's scalar takes the
//! style of the scalar it replaces. kbuild keeps the style of each mapping value
//! ([`Style`], set by the parser) and changes it where kustomize does:
//!
//! - a strategic merge over a quoted scalar: a number or boolean from the patch becomes
//!   the string of its text ([`restyled`]); a field the patch adds has the patch's style;
//! - a JSON 6902 patch: kustomize reads the patched JSON back into new nodes, so each
//!   string has the style go-yaml v3 writes it in (quoted only where plain text would
//!   read as something else, or not at all), everything else is plain
//!   ([`after_json_round_trip`]);
//! - any other write of a new value (`Map::insert`): plain, as kyaml's new nodes;
//! - a field `create: true` made, or a plain name or image a prefix or `images` rewrote:
//!   kustomize's node has no tag ([`Style::Untagged`], the text held as a string), takes
//!   the type of its text when printed or JSON-patched ([`resolve_untagged`]) and stays
//!   a string after a strategic merge where YAML 1.1 reads it as another type
//!   ([`quote_untagged_yaml11_non_strings`]).
//!
//! The table of operations, checked against kustomize v5.5.0 and v5.8.1, is in
//! `docs/src/internals/scalars.md`.

use crate::error::Error;
use crate::openapi::TypeRef;
use crate::resource::shared::Step;
use crate::yaml::Node;
use crate::yaml::map::{Key, Map, Quote, Style};
use std::borrow::Cow;

/// The patch's scalar `node` as it comes out in the place of a destination scalar
/// written in `style`: kyaml's `SetStyle` gives the patch's node the destination's style
/// and keeps its tag, and go-yaml writes a number or boolean in a quoted style as quoted
/// text, which reads back as a string (`minAvailable: "50%"` patched with `2` prints
/// `"2"`). The text is the value's usual spelling (kbuild's node keeps no other: a
/// patch's `1.50` or `True` would be `"1.5"` and `"true"`, where kustomize writes the
/// patch's text).
pub fn restyled(node: Node, style: Style) -> Node {
    match (style, &node) {
        (Style::Quoted(_), Node::Bool(_) | Node::Int(_) | Node::Uint(_) | Node::Float(_)) => {
            Node::text(node.scalar_string().unwrap_or_default())
        }
        _ => node,
    }
}

/// Restyles every mapping value of `node` as kustomize's JSON 6902 patch leaves it: the
/// resource is read back from the patched JSON (`RNode.UnmarshalJSON`, go-yaml v3's
/// `Node.Encode`), so a string is quoted (or a block scalar) only where go-yaml v3 cannot
/// write it plain, and every other scalar is plain.
pub fn after_json_round_trip(node: &mut Node) {
    match node {
        Node::Map(m) => {
            // New nodes from JSON values: a number is a float64, whose text is the one
            // go-yaml gives it (`strconv.FormatFloat(f, 'g', -1, 64)`): what a replacement
            // or var copies. It differs from the printed spelling (the output goes
            // through JSON again) from a million up (`1.234567e+06`).
            m.forget_typed_texts();
            // Go's JSON encoder writes a map's keys sorted, so the node read back has
            // them in that order (it shows where a replacement copies the mapping into
            // YAML text; the output is sorted anyway).
            m.sort_keys();
            // An integer below a million is spelled alike both ways (the common case:
            // ports, replicas), and costs no formatting.
            let go_texts: Vec<(String, String)> = m
                .iter()
                .filter_map(|(key, value)| {
                    let g = match value {
                        Node::Int(n) if n.unsigned_abs() < 1_000_000 => return None,
                        Node::Int(n) => crate::yaml::emit::format_float_g(*n as f64),
                        Node::Uint(n) => crate::yaml::emit::format_float_g(*n as f64),
                        Node::Float(f) => crate::yaml::emit::format_float_g(*f),
                        _ => return None,
                    };
                    (value.scalar_string()? != g).then(|| (key.to_string(), g))
                })
                .collect();
            for (key, g) in go_texts {
                m.set_typed_text(&key, &g);
            }
            for i in 0..m.len() {
                let style = match m.get_index(i) {
                    Some((_, Node::Str(s))) if needs_quotes(s) => Style::Quoted(Quote::for_text(s)),
                    _ => Style::Plain,
                };
                m.set_style_at(i, style);
            }
            for v in m.values_mut() {
                if matches!(v, Node::Map(_) | Node::Seq(_)) {
                    after_json_round_trip(v);
                }
            }
        }
        Node::Seq(items) => items.iter_mut().for_each(after_json_round_trip),
        _ => {}
    }
}

/// Annotation values as kustomize's JSON 6902 patch sees them, before its operations run.
///
/// kustomize reads annotations as a string map of the text written, but the nodes keep
/// their tags: the JSON the patch works on has a *plain* annotation's value typed (`007` is
/// the number 7, `~` null, `1e3` the number 1000), while a quoted one stays the string.
/// kbuild's parser keeps annotation values as their text; here the plain ones are read
/// as go-yaml v3 reads them, so that `copy`, `move` and `test` see what kustomize's see.
pub fn annotations_before_json_patch(node: &mut Node) {
    let Some(Node::Map(ann)) = node.get_path_mut(&["metadata", "annotations"]) else {
        return;
    };
    for i in 0..ann.len() {
        if !matches!(ann.style_at(i), Style::PlainText | Style::UntaggedText) {
            continue;
        }
        let Some((_, value)) = ann.get_index_mut(i) else {
            continue;
        };
        if let Node::Str(text) = value
            && let Ok(typed) = crate::yaml::parse::resolve_resource_scalar(text, None)
        {
            *value = typed;
        }
    }
}

/// Annotation values as kustomize leaves them after it rewrote the annotation mapping
/// from its string map (`Resource.SetAnnotations`: each value a new `!!str` node), as it
/// does after every transformer when any `buildMetadata` option is on (the origin or
/// transformer annotation is written so): a later JSON 6902 patch sees the text `0b101`
/// or `0.1e-2` as a string, no longer the number a plain annotation reads as.
pub fn annotations_as_strings(node: &mut Node) {
    let Some(Node::Map(ann)) = node.get_path_mut(&["metadata", "annotations"]) else {
        return;
    };
    for i in 0..ann.len() {
        if matches!(ann.style_at(i), Style::PlainText | Style::UntaggedText) {
            ann.set_style_at(i, Style::Plain);
        }
    }
}

/// The resource as kustomize's JSON 6902 patch leaves it, after its operations ran: every
/// number went through a JSON float64 (integers past 2^53 lose their last digits), and
/// annotations are read back as the text go-yaml v3 gives each JSON value (numbers in
/// Go's `%g` form: `7`, `1000`, `1.2345678901234567e+19`; null as `null`).
pub fn after_json_patch(node: &mut Node) {
    through_float64(node);
    if let Some(Node::Map(ann)) = node.get_path_mut(&["metadata", "annotations"]) {
        for value in ann.values_mut() {
            let text = match value {
                Node::Int(i) => crate::yaml::emit::format_float_g(*i as f64),
                Node::Uint(u) => crate::yaml::emit::format_float_g(*u as f64),
                Node::Float(f) => crate::yaml::emit::format_float_g(*f),
                Node::Null => "null".to_owned(),
                Node::Bool(b) => b.to_string(),
                _ => continue,
            };
            *value = Node::text(text);
        }
    }
    after_json_round_trip(node);
}

/// Integers JSON's float64 cannot hold exactly become the float they round to.
fn through_float64(node: &mut Node) {
    const EXACT: u64 = 1 << 53;
    match node {
        Node::Int(i) if i.unsigned_abs() > EXACT => *node = Node::Float(*i as f64),
        Node::Uint(u) if *u > EXACT => *node = Node::Float(*u as f64),
        Node::Map(m) => m.values_mut().for_each(through_float64),
        Node::Seq(items) => items.iter_mut().for_each(through_float64),
        _ => {}
    }
}

/// How go-yaml v3's encoder writes the key `key` of a mapping read back from JSON (see
/// [`after_json_round_trip`]; `Resource::keys_from_json`): quoted where plain text
/// would read as another type.
pub fn json_key_quote(key: &str) -> Option<Quote> {
    needs_quotes(key).then(|| Quote::for_text(key))
}

/// Whether go-yaml v3 writes the string `s` (a mapping value) other than plain.
fn needs_quotes(s: &str) -> bool {
    // The common case costs nothing: short names, words and paths are plain whatever
    // their length, unless they read as another type.
    if s.is_empty() || s.contains('\n') {
        return true;
    }
    if plain_for_sure(s) {
        return false;
    }
    encoder_quotes_beyond_node_writer(s) || !crate::yaml::styled::emit::str_is_plain_block_value(s)
}

/// go-yaml v3's encoder (`stringv`, which `Node.Encode` runs) quotes YAML 1.1's booleans
/// (`isOldBool`: these spellings only) and base-60 floats (`1:20`) too, which its node
/// writer would leave plain.
fn encoder_quotes_beyond_node_writer(s: &str) -> bool {
    const OLD_BOOLS: [&str; 16] = [
        "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off",
        "OFF",
    ];
    OLD_BOOLS.contains(&s) || crate::yaml::emit::is_base60_float(s)
}

/// Settles most strings without the encoder: a word starting with a letter, made only of
/// letters, digits and `-_./` (no indicator, space or `:`), and none of the words go-yaml v3
/// reads as another type (`true`, `false`, `null`) or still quotes as YAML 1.1 booleans
/// (`y`, `yes`, `n`, `no`, `on`, `off`), in any case, is written plain. Everything else asks
/// the encoder. Running the encoder for every string of every JSON-patched resource cost
/// a fifth of a small tree's build (callgrind).
fn plain_for_sure(s: &str) -> bool {
    const WORDS: [&str; 9] = ["y", "yes", "n", "no", "on", "off", "true", "false", "null"];
    let b = s.as_bytes();
    b[0].is_ascii_alphabetic()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"-_./".contains(c))
        && !WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))
}

/// The mapping holding the field at `at` (a path from the resource's root) and the
/// field's position in it; `None` when the field is not a mapping value.
pub fn entry_at<'n>(node: &'n mut Node, at: &[Step]) -> Option<(&'n mut Map, usize)> {
    let (Step::Key(key), parent) = at.split_last()? else {
        return None;
    };
    let mut node = node;
    for step in parent {
        node = match (step, node) {
            (Step::Key(k), Node::Map(m)) => m.get_mut(k)?,
            (Step::Index(i), Node::Seq(items)) => items.get_mut(*i)?,
            _ => return None,
        };
    }
    let Node::Map(m) = node else { return None };
    let i = m.get_index_of(key)?;
    Some((m, i))
}

/// Marks the field at `at` untagged where kustomize sets a new untagged node that keeps
/// the old one's style (`filtersutil.SetScalar`: `namePrefix`, `nameSuffix`, `images`):
/// a plain field becomes [`Style::Untagged`], a quoted one stays a string.
pub fn untag_plain_at(node: &mut Node, at: &[Step]) {
    if let Some((m, i)) = entry_at(node, at)
        && m.style_at(i) == Style::Plain
        && matches!(m.get_index(i), Some((_, Node::Str(_))))
    {
        m.set_style_at(i, Style::Untagged);
    }
}

/// Whether an untagged value holding `text` could print other than as that string: its
/// text reads as another type (or another string) in go-yaml v3, or in YAML 1.1 (which a strategic merge
/// makes it keep as a string). Only resources holding such a value need the untagged
/// passes ([`resolve_untagged`], [`quote_untagged_yaml11_non_strings`]).
pub fn untagged_text_matters(text: &str) -> bool {
    if !text.is_empty() && plain_for_sure(text) {
        return false;
    }
    // A timestamp reads as a string too, but not as this one (`2024-01-01T00:00:00Z`).
    crate::yaml::parse::is_yaml11_non_string(text)
        || !matches!(
            crate::yaml::parse::resolve_resource_scalar(text, None),
            Ok(Node::Str(s)) if *s == *text
        )
}

/// Gives every untagged value of `node` ([`Style::Untagged`], held as its text) the type
/// go-yaml v3 reads its text as, written plain: what kustomize's untagged node becomes
/// when the resource is printed or turned into JSON. Annotations keep their text
/// (kustomize reads them as a string map). A value that kept its tag beside a text
/// ([`Style::Kept`]) is read as go-yaml v3 reads the two (`!!float 0o14` is 12).
///
/// A text that reads as infinity or NaN (`.inf`, written by a replacement into a field an
/// earlier one created) is an error: kustomize fails there, as Go's JSON encoder refuses
/// the value (`json: unsupported value: +Inf`); so is a text its kept tag cannot read
/// (go-yaml's `cannot decode !!str `abc` as a !!float`).
pub fn resolve_untagged(node: &mut Node) -> Result<(), Unreadable> {
    resolve_in(node, true)
}

/// A value [`resolve_untagged`] could not type: the field (`spec.ports.0.port`), its text
/// and the error.
#[derive(Debug)]
pub struct Unreadable {
    /// The field, as kbuild's field paths write it.
    pub field: String,
    /// The text it holds.
    pub text: String,
    /// Why it cannot be printed.
    pub error: Error,
}

/// [`resolve_untagged`] for the [`Style::Kept`] values alone: what kustomize's vars' pass
/// leaves as they are (refvar substitutes in strings only), and which nothing after it
/// changes before they are printed.
pub fn resolve_kept_tags(node: &mut Node) -> Result<(), Unreadable> {
    resolve_in(node, false)
}

/// `text`, held untagged (`tag` None) or beside the tag kustomize's node kept, as the
/// value go-yaml reads when kustomize turns the resource into JSON: none for an untagged
/// text that reads as nothing else (it stays a string); an error for a text the tag
/// cannot read, or one that reads as infinity or NaN. `field` names the field for it.
pub(crate) fn read_as_printed(
    text: &str,
    tag: Option<&str>,
    field: impl FnOnce() -> String,
) -> Result<Option<Node>, Unreadable> {
    let typed = match (crate::yaml::parse::resolve_resource_scalar(text, tag), tag) {
        (Ok(typed), _) => typed,
        (Err(_), None) => return Ok(None),
        (Err(e), Some(tag)) => {
            let (kind, hint) = match tag {
                "null" => ("a null", "; write the field as \"\" to make it a string"),
                "bool" => ("a boolean", ""),
                "int" => ("an integer", ""),
                _ => ("a number", ""),
            };
            let field = field();
            return Err(Unreadable {
                error: Error::invalid_config(format!(
                    "'{field}' was {kind} field and now holds {text:?}: kustomize keeps \
                     the type of a field a replacement writes into, and cannot read the \
                     text as that type when it turns the resource into JSON ({e}){hint}"
                )),
                field,
                text: text.to_string(),
            });
        }
    };
    if let Node::Float(f) = typed
        && !f.is_finite()
    {
        let go = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "+Inf"
        } else {
            "-Inf"
        };
        let field = field();
        return Err(Unreadable {
            error: Error::invalid_config(format!(
                "'{field}' holds {text:?}, which reads as a number kustomize cannot \
                 write as JSON (json: unsupported value: {go}); quote the \
                 replacement's source to keep it a string"
            )),
            field,
            text: text.to_string(),
        });
    }
    Ok(Some(typed))
}

fn resolve_in(node: &mut Node, untagged_too: bool) -> Result<(), Unreadable> {
    let mut at = Vec::new();
    resolve_at(node, untagged_too, &mut at)
}

/// [`resolve_in`] below the field path `at` (for the error), as kbuild's field paths
/// write it (`spec.ports.0.port`).
fn resolve_at<'n>(
    node: &'n mut Node,
    untagged_too: bool,
    at: &mut Vec<Cow<'n, str>>,
) -> Result<(), Unreadable> {
    let Node::Map(m) = node else {
        if let Node::Seq(items) = node {
            for (i, item) in items.iter_mut().enumerate() {
                at.push(Cow::Owned(i.to_string()));
                resolve_at(item, untagged_too, at)?;
                at.pop();
            }
        }
        return Ok(());
    };
    for i in 0..m.len() {
        let tag = match m.style_at(i) {
            Style::Untagged if untagged_too => None,
            Style::Kept(tag) => Some(tag.name()),
            _ => continue,
        };
        m.set_style_at(i, Style::Plain);
        let Some((key, value)) = m.get_index_mut(i) else {
            continue;
        };
        let Node::Str(text) = value else { continue };
        let field = || {
            let mut path = at.join(".");
            if !path.is_empty() {
                path.push('.');
            }
            path + key
        };
        let Some(typed) = read_as_printed(text, tag, field)? else {
            continue;
        };
        // kustomize's node keeps the text beside the tag, which a var reads
        // (`Map::typed_text`: kyaml's GetFieldValue runs Go's `strconv.Atoi` on `0x1F`).
        let spelled = tag.is_some()
            && matches!(
                typed,
                Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_)
            );
        let kept_text = spelled.then(|| (key.clone(), text.clone()));
        *value = typed;
        if let Some((key, text)) = kept_text {
            m.set_typed_text(&key, &text);
        }
    }
    for (key, value) in m.iter_mut() {
        at.push(Cow::Borrowed(key));
        resolve_at(value, untagged_too, at)?;
        at.pop();
    }
    Ok(())
}

/// What kyaml's strategic merge does to the untagged values of the resource it walks:
/// its `FieldSetter` double-quotes an untagged value whose text a YAML 1.1 reader takes
/// for something other than a string (`True`, `1e3`, `0x1F`, `on`), so that value stays
/// a string from then on; the others stay untagged.
pub fn quote_untagged_yaml11_non_strings(node: &mut Node) {
    quote_yaml11_non_strings(node, |style| style == Style::Untagged);
}

/// Double-quotes, in `node` and below, the string mapping values whose style `from`
/// accepts and whose text a YAML 1.1 reader takes for something other than a string.
fn quote_yaml11_non_strings(node: &mut Node, from: fn(Style) -> bool) {
    let Node::Map(m) = node else {
        if let Node::Seq(items) = node {
            items
                .iter_mut()
                .for_each(|item| quote_yaml11_non_strings(item, from));
        }
        return;
    };
    for i in 0..m.len() {
        if from(m.style_at(i))
            && let Some((_, Node::Str(text))) = m.get_index(i)
            && crate::yaml::parse::is_yaml11_non_string(text)
        {
            m.set_style_at(i, Style::Quoted(Quote::Double));
        }
    }
    m.values_mut()
        .for_each(|value| quote_yaml11_non_strings(value, from));
}

/// The styles kyaml gives the string values a generator writes (or a `behavior: merge`
/// generator writes again): `makeConfigMapValueRNode` makes `!!str` nodes, literal with a
/// line break, and `FieldSetter` double-quotes one a YAML 1.1 reader takes for something
/// else (`5`, `on`, `1e3`). The quotes show when a strategic merge patch writes a number
/// there ([`restyled`]: a generated `a=5` patched with `a: 6` prints `"6"`).
pub fn style_generated_strings(m: &mut Map) {
    for i in 0..m.len() {
        if let Some((_, Node::Str(text))) = m.get_index(i)
            && (text.contains('\n') || crate::yaml::parse::is_yaml11_non_string(text))
        {
            let quote = Quote::for_text(text);
            m.set_style_at(i, Style::Quoted(quote));
        }
    }
}

/// What kyaml's strategic merge leaves of the plain strings of the resource it walked:
/// its `FieldSetter` double-quotes every string value (`!!str`, or untagged) written
/// plain whose text a YAML 1.1 reader takes for something else (`y`, `yes`, `on`,
/// `off`), the fields the patch set and those it only walked past alike. The quoted
/// style shows when a later patch writes a number or boolean there
/// ([`restyled`]: `a: y`, then `a: true`, prints `"true"`).
pub fn quote_plain_yaml11_non_strings(node: &mut Node) {
    quote_yaml11_non_strings(node, |style| {
        matches!(style, Style::Plain | Style::UntaggedText)
    });
}

/// The fields of `dest` (a resource about to be patched) that `patch` writes a scalar
/// over, by their mapping keys: kyaml's merge puts the patch's value in the destination's
/// node, which its `FieldSetter` then leaves as it was, so such a field is not quoted by
/// [`quote_plain_yaml11_non_strings_but`] (`size: 'NULL'` over `size: charlie`, then
/// `size: 007`, prints `7`). Into an associative list (by `schema`'s merge keys, or
/// `name` where every element has one, as the merge infers it) the path goes through the
/// destination's element the patch's merges into, named by its keys (see `element_id`);
/// a list the patch replaces is all new nodes.
pub fn overwritten_scalars(
    dest: &Node,
    patch: &Node,
    schema: Option<TypeRef<'_>>,
) -> Vec<Vec<Key>> {
    let mut out = Vec::new();
    let mut at = Vec::new();
    overwritten_in(dest, patch, schema, &mut at, &mut out);
    out
}

fn overwritten_in(
    dest: &Node,
    patch: &Node,
    schema: Option<TypeRef<'_>>,
    at: &mut Vec<Key>,
    out: &mut Vec<Vec<Key>>,
) {
    match (dest, patch) {
        (Node::Map(d), Node::Map(p)) => {
            for (k, pv) in p.iter() {
                let Some(dv) = d.get(k) else { continue };
                at.push(k.clone());
                match (dv, pv) {
                    (Node::Map(_), Node::Map(_)) | (Node::Seq(_), Node::Seq(_)) => {
                        overwritten_in(dv, pv, schema.and_then(|s| s.field(k)), at, out)
                    }
                    // Only a string the quoting would take matters (rare: the list is
                    // empty for nearly every patch, which then costs this walk alone).
                    (Node::Map(_) | Node::Seq(_), _) => {}
                    (_, Node::Str(text)) if crate::yaml::parse::is_yaml11_non_string(text) => {
                        out.push(at.clone())
                    }
                    _ => {}
                }
                at.pop();
            }
        }
        (Node::Seq(d), Node::Seq(p)) => {
            let mut keys = schema.map(|s| s.merge_keys()).unwrap_or_default();
            if keys.is_empty() {
                if schema.is_some_and(|s| !s.patch_strategy().merges()) {
                    return;
                }
                if !(super::smp::all_named(d) && super::smp::all_named(p)) {
                    return;
                }
                keys.push("name");
            }
            let items = schema.and_then(|s| s.items());
            for pe in p.iter().filter(|e| matches!(e, Node::Map(_))) {
                let wanted: Vec<Cow<'_, str>> = keys
                    .iter()
                    .map(|k| super::assoc::key_value(pe, k))
                    .collect();
                if let Some(de) = d.iter().find(|de| {
                    keys.iter()
                        .zip(&wanted)
                        .all(|(k, w)| super::assoc::key_value(de, k) == *w)
                }) {
                    at.push(element_id(pe, &keys));
                    overwritten_in(de, pe, items, at, out);
                    at.pop();
                }
            }
        }
        _ => {}
    }
}

/// A list element in a path of [`overwritten_scalars`]: its merge keys and their values,
/// each after a NUL (which no mapping key of a resource holds): `\0name=B`.
fn element_id(element: &Node, keys: &[&str]) -> Key {
    let mut id = String::new();
    for k in keys {
        id.push('\0');
        id.push_str(k);
        id.push('=');
        id.push_str(&super::assoc::key_value(element, k));
    }
    Key::from(id.as_str())
}

/// The index of the element of `items` a path step made by [`element_id`] names.
fn element_index(items: &[Node], id: &Key) -> Option<usize> {
    let keys: Vec<&str> = id
        .split('\0')
        .skip(1)
        .filter_map(|kv| kv.split_once('=').map(|(k, _)| k))
        .collect();
    items.iter().position(|e| element_id(e, &keys) == *id)
}

/// [`quote_plain_yaml11_non_strings`] after a strategic merge, but for the fields
/// `overwritten` names (see [`overwritten_scalars`]).
pub fn quote_plain_yaml11_non_strings_but(node: &mut Node, overwritten: &[Vec<Key>]) {
    if overwritten.is_empty() {
        return quote_plain_yaml11_non_strings(node);
    }
    let mut at = Vec::new();
    quote_but(node, overwritten, &mut at);
}

fn quote_but(node: &mut Node, overwritten: &[Vec<Key>], at: &mut Vec<Key>) {
    // Below a field no path goes through, everything is quoted as usual.
    if !overwritten.iter().any(|p| p.starts_with(at)) {
        return quote_plain_yaml11_non_strings(node);
    }
    if let Node::Seq(items) = node {
        // The elements the paths name, then the others (quoted as usual).
        let named: Vec<Key> = overwritten
            .iter()
            .filter(|p| p.starts_with(at))
            .filter_map(|p| p.get(at.len()))
            .filter(|k| k.starts_with('\0'))
            .cloned()
            .collect();
        let mut walked = vec![false; items.len()];
        for id in named {
            if let Some(i) = element_index(items, &id)
                && !walked[i]
            {
                walked[i] = true;
                at.push(id);
                quote_but(&mut items[i], overwritten, at);
                at.pop();
            }
        }
        for (item, _) in items.iter_mut().zip(walked).filter(|(_, w)| !w) {
            quote_plain_yaml11_non_strings(item);
        }
        return;
    }
    let Node::Map(m) = node else {
        return quote_plain_yaml11_non_strings(node);
    };
    for i in 0..m.len() {
        let Some((key, value)) = m.get_index(i) else {
            continue;
        };
        at.push(key.clone());
        if matches!(m.style_at(i), Style::Plain | Style::UntaggedText)
            && let Node::Str(text) = value
            && crate::yaml::parse::is_yaml11_non_string(text)
            && !overwritten.iter().any(|p| p == at)
        {
            m.set_style_at(i, Style::Quoted(Quote::Double));
        }
        if let Some((_, value)) = m.get_index_mut(i) {
            quote_but(value, overwritten, at);
        }
        at.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::styled::Styled;

    #[test]
    fn the_shortcut_agrees_with_the_encoder() {
        for s in [
            "web",
            "app-1",
            "a.b/c_d",
            "Deployment",
            "x1e3",
            "e3",
            "inf",
            "NaN",
            "Null-x",
            "nginx",
            "noble",
            "yes1",
            "Offset",
            "o",
            "Y2",
            "pod-template-hash",
            "kube-system",
            "latest",
            "v1.2.3",
            "Infinity",
        ] {
            assert!(plain_for_sure(s), "{s}");
            let mut doc =
                Styled::from_node(&Node::map(), crate::yaml::styled::KeyStyles::AsWritten);
            if let crate::yaml::styled::Kind::Map(pairs) = &mut doc.kind {
                pairs.push((
                    Styled::core_scalar("str", "k"),
                    Styled::core_scalar("str", s),
                ));
            }
            let text = crate::yaml::styled::emit::to_string(&doc);
            assert_eq!(text, format!("k: {s}\n"), "{s}");
        }
        for s in [
            "yes", "on", "true", "no", "null", "1e3", "-x", ".inf", "a:b", "a b",
        ] {
            assert!(!plain_for_sure(s), "{s}");
        }
    }

    /// `needs_quotes` asks the emitter's style choice directly; the whole encoder is the
    /// oracle, on strings of every class the choice distinguishes.
    #[test]
    fn needs_quotes_agrees_with_the_encoder() {
        for s in [
            "",
            "web",
            "a b",
            "a: b",
            "a:b",
            "a:",
            "a #b",
            "a#b",
            "#a",
            "- a",
            "-a",
            "--- a",
            "...",
            "? a",
            "?a",
            ":a",
            "[a]",
            "{a}",
            "a,b",
            "&a",
            "*a",
            "!a",
            "|a",
            ">a",
            "'a'",
            "\"a\"",
            "%a",
            "@a",
            "`a",
            " a",
            "a ",
            "a\tb",
            "\ta",
            "a\nb",
            "7",
            "007",
            "0x1F",
            "1e3",
            "1_000",
            "2024-01-01",
            "~",
            "null",
            "Null",
            "NULL",
            "true",
            "y",
            "yes",
            "on",
            "off",
            "0.5",
            ".5",
            "+1",
            "-1",
            "1.",
            "inf",
            ".inf",
            "-.Inf",
            ".nan",
            "10Mi",
            "nginx:1.2",
            "http://x/y",
            "a\u{85}b",
            "é",
            "a\u{2028}b",
            "\u{feff}a",
            "a\rb",
            "50%",
            "1:20",
            "Yes",
            "yEs",
            "*",
            "a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4",
        ] {
            let mut doc =
                Styled::from_node(&Node::map(), crate::yaml::styled::KeyStyles::AsWritten);
            if let crate::yaml::styled::Kind::Map(pairs) = &mut doc.kind {
                pairs.push((
                    Styled::core_scalar("str", "k"),
                    Styled::core_scalar("str", s),
                ));
            }
            let text = crate::yaml::styled::emit::to_string(&doc);
            let oracle =
                !text.starts_with(&format!("k: {s}\n")) || encoder_quotes_beyond_node_writer(s);
            assert_eq!(needs_quotes(s), oracle, "{s:?} written {text:?}");
        }
    }

    #[test]
    fn quoted_destination_turns_numbers_into_their_text() {
        assert_eq!(
            restyled(Node::Int(2), Style::Quoted(Quote::Double)),
            Node::text("2")
        );
        assert_eq!(
            restyled(Node::Bool(true), Style::Quoted(Quote::Double)),
            Node::text("true")
        );
        assert_eq!(restyled(Node::Int(2), Style::Plain), Node::Int(2));
        assert_eq!(
            restyled(Node::text("x"), Style::Quoted(Quote::Double)),
            Node::text("x")
        );
    }

    fn patched(resource: &str, patch: &str, json_first: bool) -> Node {
        let mut doc = crate::yaml::parse::parse_stream(resource, "r")
            .expect("resource")
            .remove(0);
        if json_first {
            after_json_round_trip(&mut doc);
        }
        let patch = crate::yaml::parse::parse_patch_stream(patch, "p")
            .expect("patch")
            .remove(0);
        crate::merge::smp::apply(&mut doc, &patch, None).expect("merge");
        doc
    }

    #[test]
    fn strategic_merge_keeps_the_quoted_style_of_what_it_replaces() {
        let r = "kind: ConfigMap\napiVersion: v1\ndata:\n  q: \"50%\"\n  s: 'x'\n  b: |\n    x\n  p: x\n";
        let p =
            "kind: ConfigMap\napiVersion: v1\ndata:\n  q: 2\n  s: true\n  b: 1.5\n  p: 3\n  n: 4\n";
        let d = patched(r, p, false);
        let data = d.get("data").expect("data");
        assert_eq!(data.get("q"), Some(&Node::text("2")));
        assert_eq!(data.get("s"), Some(&Node::text("true")));
        assert_eq!(data.get("b"), Some(&Node::text("1.5")));
        assert_eq!(data.get("p"), Some(&Node::Int(3)));
        assert_eq!(data.get("n"), Some(&Node::Int(4)));
        // After a JSON patch "50%" is plain again: the patch's number stays a number.
        let d = patched(r, p, true);
        assert_eq!(d.get_path(&["data", "q"]), Some(&Node::Int(2)));
    }

    #[test]
    fn json_round_trip_quotes_only_what_plain_text_would_misread() {
        for s in ["50%", "x", "a b", "nginx:1.2"] {
            assert!(!needs_quotes(s), "{s}");
        }
        for s in ["7", "true", "", "~", "a\nb", "1.5", " x"] {
            assert!(needs_quotes(s), "{s}");
        }
    }

    #[test]
    fn kept_tags_read_their_text_when_printed() {
        use crate::yaml::map::KeptTag;
        let kept = |tag, text: &str| {
            let mut m = crate::yaml::map::Map::new();
            let (i, _) = m.insert_full("x", Node::text(text));
            m.set_style_at(i, Style::Kept(tag));
            let mut n = Node::Map(m);
            resolve_untagged(&mut n).map(|()| n.get("x").cloned())
        };
        // go-yaml reads an integer text under `!!float` as that number.
        assert_eq!(
            kept(KeptTag::Float, "0o14").ok(),
            Some(Some(Node::Float(12.0)))
        );
        assert_eq!(kept(KeptTag::Int, "0x1F").ok(), Some(Some(Node::Int(31))));
        assert_eq!(kept(KeptTag::Null, "~").ok(), Some(Some(Node::Null)));
        assert_eq!(
            kept(KeptTag::Bool, "true").ok(),
            Some(Some(Node::Bool(true)))
        );
        for (tag, text) in [
            (KeptTag::Float, "abc"),
            (KeptTag::Int, "1.5"),
            (KeptTag::Bool, "yes"),
            (KeptTag::Null, "abc"),
            (KeptTag::Float, ".inf"),
        ] {
            assert!(kept(tag, text).is_err(), "{tag:?} {text}");
        }
        // Only the kept tags, not untagged values, when asked for those alone.
        let mut m = crate::yaml::map::Map::new();
        let (i, _) = m.insert_full("u", Node::text("7"));
        m.set_style_at(i, Style::Untagged);
        let (i, _) = m.insert_full("k", Node::text("7"));
        m.set_style_at(i, Style::Kept(KeptTag::Float));
        let mut n = Node::Map(m);
        resolve_kept_tags(&mut n).unwrap();
        assert_eq!(n.get("u"), Some(&Node::text("7")));
        assert_eq!(n.get("k"), Some(&Node::Float(7.0)));
    }

    #[test]
    fn untagged_values_take_their_type_when_printed_or_stay_strings_after_a_merge() {
        for t in ["True", "1e3", "7", "on", "~", "2024-01-01", ""] {
            assert!(untagged_text_matters(t), "{t}");
        }
        for t in ["web", "p-x", "nginx:1.2", "a b"] {
            assert!(!untagged_text_matters(t), "{t}");
        }
        let mut m = crate::yaml::map::Map::new();
        for (k, v) in [("t", "True"), ("n", "7"), ("s", "x"), ("d", "2024-01-01")] {
            let (i, _) = m.insert_full(k, Node::text(v));
            m.set_style_at(i, Style::Untagged);
        }
        let mut merged = Node::Map(m.clone());
        quote_untagged_yaml11_non_strings(&mut merged);
        resolve_untagged(&mut merged).unwrap();
        // YAML 1.1 reads `True` and `7` as non-strings: quoted by the merge; a date is a
        // string there (go-yaml v2), so it stays untagged and prints as v3's timestamp.
        assert_eq!(merged.get("t"), Some(&Node::text("True")));
        assert_eq!(merged.get("n"), Some(&Node::text("7")));
        assert_eq!(merged.get("d"), Some(&Node::text("2024-01-01T00:00:00Z")));
        let mut printed = Node::Map(m);
        resolve_untagged(&mut printed).unwrap();
        assert_eq!(printed.get("t"), Some(&Node::Bool(true)));
        assert_eq!(printed.get("n"), Some(&Node::Int(7)));
        assert_eq!(printed.get("s"), Some(&Node::text("x")));
    }
}
