//! The value a replacement carries and how it goes into a target field
//! (kustomize's `setFieldValue`).

use super::FieldOptions;
use crate::error::{Error, Result};
use crate::transform::field_path::NewLeaf;
use crate::yaml::Node;
use crate::yaml::map::{KeptTag, Quote};
use crate::yaml::styled::{KeyStyles, Styled};

/// A replacement's value: a scalar keeps the type it was read with and its
/// text (which a delimiter may have cut), a mapping or list is copied whole.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    /// `tag`: the YAML core tag the source was read with; `None` for a
    /// `sourceValue`, which kustomize makes an untagged scalar node.
    Scalar {
        tag: Option<&'static str>,
        text: String,
        /// How the source field was written, where quoted (a mapping value): kustomize
        /// copies the node with its style into YAML text it replaces a collection of.
        quote: Option<Quote>,
    },
    /// A mapping or list, and how its keys are written.
    Tree(Node, KeyStyles),
}

impl Value {
    /// A source field's value.
    pub(super) fn of(node: &Node) -> Value {
        match node {
            Node::Map(_) | Node::Seq(_) => Value::Tree(node.clone(), KeyStyles::AsWritten),
            scalar => Value::Scalar {
                tag: Some(tag_of(scalar)),
                text: scalar.scalar_string().unwrap_or_default(),
                quote: None,
            },
        }
    }

    /// A `sourceValue`.
    pub(super) fn untagged(text: &str) -> Value {
        Value::Scalar {
            tag: None,
            text: text.to_string(),
            quote: None,
        }
    }

    /// About how many bytes a copy of the value prints as (see resource/budget.rs).
    pub(super) fn bytes(&self) -> u64 {
        match self {
            Value::Scalar { text, .. } => text.len() as u64,
            Value::Tree(node, _) => crate::resource::budget::node_bytes(node),
        }
    }

    /// How deeply the value nests (0 for a scalar).
    pub(super) fn depth(&self) -> usize {
        match self {
            Value::Scalar { .. } => 0,
            Value::Tree(node, _) => crate::resource::budget::node_depth(node),
        }
    }

    /// The text a scalar target receives (a collection has none).
    pub(super) fn text(&self) -> &str {
        match self {
            Value::Scalar { text, .. } => text,
            Value::Tree(..) => "",
        }
    }

    /// The value as a node of its own type (an untagged scalar's text read
    /// as a plain scalar, as kustomize's output reads it).
    pub(super) fn to_node(&self) -> std::result::Result<Node, String> {
        match self {
            Value::Scalar { tag, text, .. } => {
                crate::yaml::parse::resolve_resource_scalar(text, *tag)
            }
            Value::Tree(n, _) => Ok(n.clone()),
        }
    }

    /// The value as go-yaml holds it when it replaces a mapping or list in
    /// YAML text (kustomize's `SetYNode`): a `sourceValue` untagged, a source
    /// scalar with its core tag and the quotes it was written with (a list item's,
    /// which kbuild keeps no style for, plain where it can be).
    pub(super) fn to_styled(&self) -> Styled {
        match self {
            Value::Scalar {
                tag: Some(tag),
                text,
                quote,
            } => Styled::core_scalar(tag, text).quoted(*quote),
            Value::Scalar {
                tag: None, text, ..
            } => Styled::untagged(text),
            Value::Tree(n, keys) => Styled::from_node(n, *keys),
        }
    }

    /// What `options.create` makes at the end of a missing path.
    pub(super) fn new_leaf(&self) -> NewLeaf {
        match self {
            Value::Scalar { .. } => NewLeaf::Scalar,
            Value::Tree(n, _) => NewLeaf::like(n),
        }
    }
}

/// The YAML core tag a scalar node was read with.
pub(super) fn tag_of(node: &Node) -> &'static str {
    match node {
        Node::Null => "null",
        Node::Bool(_) => "bool",
        Node::Int(_) | Node::Uint(_) => "int",
        Node::Float(_) => "float",
        Node::Str(_) | Node::Seq(_) | Node::Map(_) => "str",
    }
}

/// `options.delimiter`/`index` on a target: the target's text with one part
/// replaced by `value` (an index before the first part prepends, one past the
/// last appends). `current` is the target's text ("" for a created field).
pub(super) fn join_part(current: &str, value: &str, o: &FieldOptions) -> String {
    let mut parts: Vec<&str> = current.split(o.delimiter.as_str()).collect();
    match usize::try_from(o.index) {
        Err(_) => parts.insert(0, value),
        Ok(i) if i >= parts.len() => parts.push(value),
        Ok(i) => parts[i] = value,
    }
    parts.join(&o.delimiter)
}

/// The error kustomize gives for a delimiter on a mapping or list target.
pub(super) fn delimiter_on_collection(found: &str) -> Error {
    Error::invalid_config(format!(
        "options.delimiter needs a scalar target field, found a {found}"
    ))
}

/// The text `set_field_in` puts into a field `create` made.
pub(super) fn created_text(value: &Value, o: &FieldOptions) -> String {
    match o.delimiter.is_empty() {
        true => value.text().to_string(),
        false => join_part("", value.text(), o),
    }
}

/// Where [`set_field_in`] writes, as far as the tag kustomize's node keeps goes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Target {
    /// `create` made the field: kustomize's node has no tag.
    pub created: bool,
    /// The field is a mapping value: a field `create` made stays untagged there
    /// (`mark_untagged`) until the resource is printed.
    pub mapping_value: bool,
    /// A list item holding a text beside the tag kustomize's node kept
    /// (`resource::deferred`): the tag, which the text written is read under.
    pub kept_before: Option<KeptTag>,
    /// The field is in a string map (an annotation), which kustomize reads as text.
    pub string_map: bool,
}

/// Puts `value` into one target field (kustomize's `setFieldValue`).
///
/// In a field of a string map (an annotation), which kustomize reads as text, the text
/// written stays that text (`012`, a number past 2^64, a `.inf` that fails in any other
/// field).
///
/// A number, boolean or null field keeps its tag beside a text that does not read as it,
/// and the tag is returned: a mapping value holds it as [`Style::Kept`], a list item in
/// the resource's record of such writes; the text is read under the tag when the
/// resource is printed.
///
/// [`Style::Kept`]: crate::yaml::map::Style::Kept
pub(super) fn set_field_in(
    field: &mut Node,
    target: Target,
    value: &Value,
    o: &FieldOptions,
) -> Result<Option<KeptTag>> {
    let Target {
        created,
        mapping_value,
        kept_before,
        string_map,
    } = target;
    let is_scalar = !matches!(field, Node::Map(_) | Node::Seq(_));
    let mut text = value.text().to_string();
    if !o.delimiter.is_empty() {
        if !is_scalar {
            return Err(delimiter_on_collection(field.type_name()));
        }
        let current = if created {
            String::new()
        } else {
            field.scalar_string().unwrap_or_default()
        };
        text = join_part(&current, value.text(), o);
    }
    if !is_scalar {
        *field = value.to_node().map_err(Error::invalid_config)?;
        return Ok(None);
    }
    // kustomize keeps the scalar's tag and swaps its text; a created field
    // has no tag, and its text is read as a plain scalar.
    let tag = (!created).then(|| kept_before.map_or_else(|| tag_of(field), KeptTag::name));
    // kustomize's setFieldValue only swaps the node's text: whether the text reads as the
    // tag kept is asked when the resource is printed or JSON-patched (go-yaml's
    // `cannot decode !!str `abc` as a !!float` there), so a later replacement may still
    // write a text that does (`abc`, then `0o14`, into `x: 1.5` prints `x: 12`).
    let kept = tag.and_then(KeptTag::of).filter(|_| !string_map);
    let resolved = crate::yaml::parse::resolve_resource_scalar(&text, tag);
    *field = match (resolved, kept) {
        (Ok(node), _) => node,
        (Err(_), Some(kept)) => {
            *field = Node::text(&text);
            return Ok(Some(kept));
        }
        (Err(e), None) => {
            let hint = if tag == Some("null") {
                "; write the field as \"\" to make it a string"
            } else {
                ""
            };
            return Err(Error::invalid_config(format!(
                "cannot put {text:?} into {} field: kustomize keeps the type of the field it replaces ({e}){hint}",
                tag.map_or("a new", type_word)
            )));
        }
    };
    if string_map && !matches!(field, Node::Str(_)) {
        // The text as written (`012` stays `012`, a 30-digit number keeps its digits).
        *field = Node::text(&text);
    } else if let Node::Float(f) = field
        && !f.is_finite()
    {
        // kustomize holds the value and fails when it prints the resource
        // (`json: unsupported value: +Inf`), and the value may change before then. A field
        // `create` made is untagged in kustomize until then: the vars' pass (refvar's
        // `updateNodeValue`), which runs whenever a build declares any var, tags every
        // untagged scalar in a var reference field `!!str` (`value: ".inf"` in an env
        // entry). So in a mapping value the error waits for the printing
        // (`merge::scalar_style::resolve_untagged`).
        if created && mapping_value {
            return Ok(None);
        }
        if let Some(kept) = kept {
            *field = Node::text(&text);
            return Ok(Some(kept));
        }
        let go = if f.is_nan() {
            "NaN"
        } else if *f > 0.0 {
            "+Inf"
        } else {
            "-Inf"
        };
        return Err(Error::invalid_config(format!(
            "the replacement puts {text:?} into a field as a number kustomize cannot write as JSON \
             (json: unsupported value: {go}); quote the source to keep it a string"
        )));
    }
    Ok(None)
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

    use crate::yaml::parse::first_doc as yaml;

    fn set(field: Node, created: bool, value: Node, o: FieldOptions) -> Result<Node> {
        let mut f = field;
        let target = Target {
            created,
            ..Target::default()
        };
        set_field_in(&mut f, target, &Value::of(&value), &o)?;
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
        // A text the type cannot read is held beside it (the tag is returned), and read
        // when the resource is printed.
        assert_eq!(
            set(Node::Int(80), false, Node::Str("abc".into()), none()).ok(),
            Some(Node::text("abc"))
        );
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
    fn untagged_values_read_as_plain_scalars_where_no_type_is_kept() {
        let o = FieldOptions::default();
        let put = |field: Node, created: bool, text: &str| {
            let mut f = field;
            let target = Target {
                created,
                ..Target::default()
            };
            set_field_in(&mut f, target, &Value::untagged(text), &o).map(|_| f)
        };
        // A scalar target keeps its type; a created field or a replaced
        // mapping reads the text as YAML would.
        assert_eq!(
            put(Node::Str("x".into()), false, "2").ok(),
            Some(Node::Str("2".into()))
        );
        assert_eq!(put(Node::Int(1), false, "2").ok(), Some(Node::Int(2)));
        assert_eq!(put(Node::Null, true, "2").ok(), Some(Node::Int(2)));
        assert_eq!(put(Node::Null, true, "").ok(), Some(Node::Null));
        assert_eq!(
            put(yaml("k: v\n"), false, "true").ok(),
            Some(Node::Bool(true))
        );
    }

    #[test]
    fn a_mapping_value_keeps_its_tag_beside_a_text_it_cannot_read() {
        let o = FieldOptions::default();
        let put = |field: Node, mapping_value: bool, text: &str| {
            let mut f = field;
            let target = Target {
                mapping_value,
                ..Target::default()
            };
            set_field_in(&mut f, target, &Value::of(&Node::text(text)), &o).map(|kept| (f, kept))
        };
        assert_eq!(
            put(Node::Float(1.5), true, "abc").ok(),
            Some((Node::text("abc"), Some(KeptTag::Float)))
        );
        assert_eq!(
            put(Node::Float(1.5), true, ".inf").ok(),
            Some((Node::text(".inf"), Some(KeptTag::Float)))
        );
        assert_eq!(
            put(Node::Float(1.5), true, "2").ok(),
            Some((Node::Float(2.0), None))
        );
        // So does a list item (the resource records the tag).
        assert_eq!(
            put(Node::Float(1.5), false, "abc").ok(),
            Some((Node::text("abc"), Some(KeptTag::Float)))
        );
        // A string takes any text.
        assert_eq!(
            put(Node::text("x"), true, "abc").ok(),
            Some((Node::text("abc"), None))
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
}
