//! The `$patch` directive of strategic merge patches, read the way kyaml reads it.
//!
//! On a mapping, `$patch: replace|delete|merge` applies to the mapping itself. On a sequence,
//! an element that is exactly `{$patch: <value>}` applies to the whole list; an element with
//! other fields besides `$patch` is left for the element merge (`$patch: delete` there deletes
//! that element). Reading a directive removes it from the patch ("elides" it).

use crate::error::Error;
use crate::yaml::Node;

use super::assoc::{ElementSetter, scalar_text};

/// The `$patch` key.
pub const PATCH_KEY: &str = "$patch";

/// What a `$patch` directive asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directive {
    /// Merge (the default when there is no directive).
    Merge,
    /// Replace the destination with the patch.
    Replace,
    /// Delete the destination.
    Delete,
}

impl Directive {
    fn parse(value: &str) -> Option<Directive> {
        match value {
            "merge" => Some(Directive::Merge),
            "replace" => Some(Directive::Replace),
            "delete" => Some(Directive::Delete),
            _ => None,
        }
    }

    /// The directive as written in a patch.
    pub fn as_str(self) -> &'static str {
        match self {
            Directive::Merge => "merge",
            Directive::Replace => "replace",
            Directive::Delete => "delete",
        }
    }
}

/// Reads the `$patch` directive of a mapping or sequence and removes it from the node.
/// An unknown value is an error; so is a scalar node, which cannot carry a directive.
pub fn take_directive(node: &mut Node) -> Result<Directive, Error> {
    match node {
        Node::Map(map) => {
            let Some(value) = map.get(PATCH_KEY) else {
                return Ok(Directive::Merge);
            };
            let value = scalar_text(value);
            let directive = parse(&value)?;
            map.shift_remove(PATCH_KEY);
            Ok(directive)
        }
        Node::Seq(items) => {
            // The first mapping element with a `$patch` key decides; when it has other
            // fields too, it is an element directive and the list merges.
            let Some(element) = items
                .iter()
                .find_map(|e| e.as_map().filter(|m| m.contains_key(PATCH_KEY)))
            else {
                return Ok(Directive::Merge);
            };
            if element.len() > 1 {
                return Ok(Directive::Merge);
            }
            let value = scalar_text(&element[PATCH_KEY]).into_owned();
            let directive = parse(&value)?;
            // kyaml removes the directive with its element setter, which also drops null and
            // empty-mapping elements from the list.
            let setter = ElementSetter {
                keys: &[PATCH_KEY],
                values: &[value.as_str()],
            };
            setter.delete(items)?;
            Ok(directive)
        }
        other => Err(Error::invalid_patch(format!(
            "no implemented strategic merge patch strategy for a {} ('{}')",
            other.type_name(),
            scalar_text(other)
        ))),
    }
}

fn parse(value: &str) -> Result<Directive, Error> {
    Directive::parse(value).ok_or_else(|| {
        Error::invalid_patch(format!(
            "unknown patch strategy '{value}' (the $patch directive takes merge, replace or delete)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(v: serde_json::Value) -> Node {
        Node::from(&v)
    }

    // The cases of kyaml's determineSmpDirective test (merge2/smpdirective.yaml).
    #[test]
    fn sequence_directives_are_read_and_removed() {
        for (directive, want) in [
            ("merge", Directive::Merge),
            ("replace", Directive::Replace),
            ("delete", Directive::Delete),
        ] {
            let mut n = node(json!(["one", "two", "three", {"$patch": directive}]));
            assert_eq!(take_directive(&mut n).unwrap(), want);
            assert_eq!(n, node(json!(["one", "two", "three"])));
        }
        let mut n = node(json!(["one", "two"]));
        assert_eq!(take_directive(&mut n).unwrap(), Directive::Merge);
        assert_eq!(n, node(json!(["one", "two"])));
    }

    #[test]
    fn mapping_directives_are_read_and_removed() {
        for (directive, want) in [
            ("merge", Directive::Merge),
            ("replace", Directive::Replace),
            ("delete", Directive::Delete),
        ] {
            let mut n = node(json!({"metal": "heavy", "$patch": directive, "veggie": "carrot"}));
            assert_eq!(take_directive(&mut n).unwrap(), want);
            assert_eq!(n, node(json!({"metal": "heavy", "veggie": "carrot"})));
        }
    }

    #[test]
    fn element_directive_is_not_a_list_directive() {
        let mut n = node(json!([{"name": "a", "$patch": "delete"}, {"$patch": "replace"}]));
        assert_eq!(take_directive(&mut n).unwrap(), Directive::Merge);
        assert_eq!(
            n,
            node(json!([{"name": "a", "$patch": "delete"}, {"$patch": "replace"}]))
        );
    }

    #[test]
    fn scalars_and_unknown_values_are_errors() {
        let err = take_directive(&mut node(json!("dumb")))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no implemented strategic merge patch strategy"),
            "{err}"
        );
        let err = take_directive(&mut node(json!({"$patch": "foo"})))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown patch strategy 'foo'"), "{err}");
        let err = take_directive(&mut node(json!([{"$patch": "foo"}])))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown patch strategy 'foo'"), "{err}");
    }
}
