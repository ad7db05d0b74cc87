//! YAML text as go-yaml v3 reads and writes it, presentation included.
//!
//! Since v5.8.0 a replacement may write into YAML or JSON text held in a string
//! field (see `transform::replacements::structured`): kustomize parses the text
//! into go-yaml v3's `yaml.Node`, which keeps each node's tag, its style (quotes,
//! block scalars, flow collections) and the order of keys, changes it, and writes
//! it back with go-yaml v3's encoder as kyaml configures it (see [`emit`]). For
//! JSON text it writes instead what Go's `encoding/json` makes of the value
//! go-yaml decodes ([`Styled::decoded`]).
//!
//! [`Styled`] is that node, built by [`crate::yaml::parse::parse_styled`].
//! Comments, anchors and aliases are not kept: the parser reports comments (so
//! that writing YAML text back can refuse what it would drop) and refuses
//! anchors and aliases.

pub mod emit;

use crate::yaml::Node;
use crate::yaml::parse::{TagRef, plain_tag, resolve_resource};

/// go-yaml v3's core tag prefix, written `!!`.
pub(crate) const CORE: &str = "tag:yaml.org,2002:";

/// How a scalar is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScalarStyle {
    /// Plain (or any, for a node kbuild makes).
    #[default]
    Plain,
    /// `'...'`
    SingleQuoted,
    /// `"..."`
    DoubleQuoted,
    /// `|`
    Literal,
    /// `>`
    Folded,
}

/// A node's style, as go-yaml v3's `yaml.Style` bits record it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// The tag was written in the text (`TaggedStyle`): the encoder keeps it.
    pub tagged: bool,
    /// How a scalar is written.
    pub scalar: ScalarStyle,
    /// A collection written `[...]` or `{...}` (`FlowStyle`).
    pub flow: bool,
}

/// What a node holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A scalar's text, as go-yaml's `Node.Value` holds it (escapes decoded).
    Scalar(String),
    /// A sequence's items.
    Seq(Vec<Styled>),
    /// Keys and values in the order written (keys may repeat, as in go-yaml's node).
    Map(Vec<(Styled, Styled)>),
}

/// How the keys of a mapping kbuild holds were written (see [`Styled::from_node`]).
#[derive(Clone, Copy, Debug)]
pub enum KeyStyles {
    /// As the file wrote them (`Map::key_quote_at`).
    AsWritten,
    /// As go-yaml's encoder writes a mapping read back from JSON (after a JSON 6902
    /// patch): quoted where plain text would read as another type, as the function says
    /// (`merge::scalar_style::json_key_quote`).
    FromJson(fn(&str) -> Option<crate::yaml::map::Quote>),
}

impl PartialEq for KeyStyles {
    /// The same way of writing keys (there is one function for JSON's).
    fn eq(&self, other: &KeyStyles) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

/// A YAML node as go-yaml v3 keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Styled {
    /// The short tag (`!!str`, `!!int`, `!custom`): written, or resolved by
    /// go-yaml from a plain scalar's text (`!!seq`/`!!map` for collections);
    /// empty for a node made by kustomize (a created field, a `sourceValue`).
    pub tag: String,
    /// How the node is written.
    pub style: Style,
    /// What it holds.
    pub kind: Kind,
}

/// A parsed text: its first document (`None` when there is none: empty text,
/// only comments), and whether the text holds comments.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The first document's root node.
    pub root: Option<Styled>,
    /// Whether the text holds a comment (go-yaml keeps comments; kbuild does not).
    pub has_comments: bool,
}

impl Styled {
    /// A scalar without tag, as kustomize makes one (`yaml.NewScalarRNode`):
    /// written plain when it can be, read back as YAML reads plain text.
    pub fn untagged(text: &str) -> Styled {
        Styled {
            tag: String::new(),
            style: Style::default(),
            kind: Kind::Scalar(text.to_string()),
        }
    }

    /// An empty mapping or sequence without tag (what kyaml creates on a path).
    pub fn empty_collection(map: bool) -> Styled {
        Styled {
            tag: String::new(),
            style: Style::default(),
            kind: if map {
                Kind::Map(Vec::new())
            } else {
                Kind::Seq(Vec::new())
            },
        }
    }

    /// A plain scalar with the tag `!!<core>` (`str`, `int`, …).
    pub fn core_scalar(core: &str, text: &str) -> Styled {
        Styled {
            tag: format!("!!{core}"),
            style: Style::default(),
            kind: Kind::Scalar(text.to_string()),
        }
    }

    /// The scalar written with `quote` (as it is without).
    pub fn quoted(mut self, quote: Option<crate::yaml::map::Quote>) -> Styled {
        use crate::yaml::map::Quote;
        if let Some(q) = quote {
            self.style.scalar = match q {
                Quote::Double => ScalarStyle::DoubleQuoted,
                Quote::Single => ScalarStyle::SingleQuoted,
                Quote::Literal => ScalarStyle::Literal,
                Quote::Folded => ScalarStyle::Folded,
            };
        }
        self
    }

    /// A kbuild node as go-yaml would hold it after reading it from block YAML:
    /// strings, numbers, booleans and nulls with their core tags, a string mapping value
    /// with the quotes it was written with, keys as `keys` says.
    pub fn from_node(node: &Node, keys: KeyStyles) -> Styled {
        match node {
            Node::Map(m) => Styled {
                tag: "!!map".into(),
                style: Style::default(),
                kind: Kind::Map(
                    m.iter()
                        .enumerate()
                        .map(|(i, (k, v))| {
                            let value = Styled::from_node(v, keys);
                            let value = match (m.style_at(i), v) {
                                (crate::yaml::map::Style::Quoted(q), Node::Str(_)) => {
                                    value.quoted(Some(q))
                                }
                                _ => value,
                            };
                            let quote = match keys {
                                KeyStyles::AsWritten => m.key_quote_at(i),
                                KeyStyles::FromJson(quote) => quote(k),
                            };
                            let key = Styled::core_scalar("str", k).quoted(quote);
                            (key, value)
                        })
                        .collect(),
                ),
            },
            Node::Seq(items) => Styled {
                tag: "!!seq".into(),
                style: Style::default(),
                kind: Kind::Seq(items.iter().map(|i| Styled::from_node(i, keys)).collect()),
            },
            Node::Str(s) => Styled::core_scalar("str", s),
            Node::Null => Styled::core_scalar("null", "null"),
            Node::Bool(b) => Styled::core_scalar("bool", if *b { "true" } else { "false" }),
            Node::Int(i) => Styled::core_scalar("int", &i.to_string()),
            Node::Uint(u) => Styled::core_scalar("int", &u.to_string()),
            Node::Float(f) => Styled::core_scalar("float", &crate::yaml::emit::format_float(*f)),
        }
    }

    /// The scalar's text.
    pub fn text(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the node is a null scalar (tag `!!null`): kyaml neither finds a
    /// field in it nor keeps what it adds there.
    pub fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Scalar(_)) && self.tag == "!!null"
    }

    /// The tag the encoder writes (empty: none) and whether it must quote the
    /// scalar instead: go-yaml v3 drops a tag the text would resolve to anyway,
    /// and drops `!!str` from a text that would resolve to something else by
    /// quoting it; a tag written in the source is always kept.
    pub fn written_tag(&self) -> (&str, bool) {
        if self.tag.is_empty() || self.style.tagged {
            return (&self.tag, false);
        }
        match &self.kind {
            Kind::Scalar(text) => {
                let quoted = self.style.scalar != ScalarStyle::Plain;
                if self.tag == "!!str" && quoted {
                    return ("", false);
                }
                let resolved = plain_tag(text);
                if resolved == self.tag {
                    ("", false)
                } else if self.tag == "!!str" {
                    ("", true)
                } else {
                    (&self.tag, false)
                }
            }
            Kind::Seq(_) if self.tag == "!!seq" => ("", false),
            Kind::Map(_) if self.tag == "!!map" => ("", false),
            _ => (&self.tag, false),
        }
    }

    /// The value go-yaml v3 decodes from this node once the encoder has written
    /// it (as kustomize's `serializeAsJSON` reads it back into `interface{}`),
    /// as a kbuild node; the error says why `encoding/json` could not take it.
    /// The text is written and read again because the encoder decides what the
    /// value becomes: a changed `!!int` holding `abc` keeps its tag and fails,
    /// and a scalar in a flow collection that must be quoted there
    /// (`{t: 2001-12-14t21:59:43-05:00}`) turns from a timestamp into a string.
    pub fn decoded(&self) -> Result<Node, String> {
        let text = emit::to_string(self);
        let reparsed = crate::yaml::parse::parse_styled(&text, "the text written back")
            .map_err(|e| e.to_string())?;
        match reparsed.root {
            Some(root) => root.to_node(),
            None => Ok(Node::Null),
        }
    }

    /// The value go-yaml v3 decodes from a node as it parsed it (each scalar's
    /// tag as written, or resolved from its plain text).
    fn to_node(&self) -> Result<Node, String> {
        match &self.kind {
            Kind::Scalar(text) => self.scalar_value(text),
            Kind::Seq(items) => items
                .iter()
                .map(Styled::to_node)
                .collect::<Result<_, _>>()
                .map(Node::Seq),
            Kind::Map(pairs) => {
                let mut map = crate::yaml::Map::with_capacity(pairs.len());
                for (k, v) in pairs {
                    let key = match k.to_node()? {
                        Node::Str(s) if k.tag != "!!merge" => s,
                        _ => {
                            return Err(format!(
                                "the key {:?} is not a string (json: unsupported type)",
                                k.text().unwrap_or("")
                            ));
                        }
                    };
                    if map.contains_key(key.as_str()) {
                        return Err(format!("mapping key {:?} already defined", key.as_str()));
                    }
                    map.insert(key.to_string(), v.to_node()?);
                }
                Ok(Node::Map(map))
            }
        }
    }

    fn scalar_value(&self, text: &str) -> Result<Node, String> {
        let plain = self.style.scalar == ScalarStyle::Plain;
        let tag_ref = if !self.style.tagged {
            TagRef::None
        } else {
            match self.tag.strip_prefix("!!") {
                Some("binary") => {
                    return Err(
                        "!!binary data decodes to bytes, which kbuild does not write as JSON"
                            .into(),
                    );
                }
                Some(core) => TagRef::Core(core),
                None if self.tag.starts_with(CORE) => TagRef::Core(&self.tag[CORE.len()..]),
                None => TagRef::Other,
            }
        };
        match resolve_resource(text, plain, tag_ref)? {
            Node::Float(f) if !f.is_finite() => Err(format!("json: unsupported value: {f}")),
            n => Ok(n),
        }
    }

    /// The node written alone, as kyaml's `RNode.String()` trimmed: the text a
    /// list entry selector (`[name=x]`) compares in a parsed text.
    pub fn to_text(&self) -> String {
        emit::to_string(self).trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Styled {
        crate::yaml::parse::parse_styled(text, "test")
            .ok()
            .and_then(|p| p.root)
            .expect("parses")
    }

    #[test]
    fn decodes_like_go_yaml_into_interface() {
        let doc =
            parse("{\"a\": 1.0, \"b\": \"x\", \"c\": [true, null], \"d\": 012, \"e\": 1E400}");
        assert_eq!(
            doc.decoded().ok(),
            Some(Node::from(&serde_json::json!({
                "a": 1.0, "b": "x", "c": [true, null], "d": 10, "e": "1E400"
            })))
        );
        assert!(parse("{x: 1, x: 2}").decoded().is_err());
        assert!(parse("{1: a}").decoded().is_err());
        assert!(parse("{a: .inf}").decoded().is_err());
        // Quoted in a flow mapping (it holds ':'), the timestamp stays a string.
        assert_eq!(
            parse("{d: 2001-12-14, t: 2001-12-14t21:59:43.10-05:00}")
                .decoded()
                .ok(),
            Some(Node::from(&serde_json::json!({
                "d": "2001-12-14T00:00:00Z", "t": "2001-12-14t21:59:43.10-05:00"
            })))
        );
    }

    #[test]
    fn tags_are_dropped_where_the_text_resolves_to_them() {
        let mut n = Styled::core_scalar("int", "5");
        assert_eq!(n.written_tag(), ("", false));
        n.kind = Kind::Scalar("abc".into());
        assert_eq!(n.written_tag(), ("!!int", false));
        assert!(n.decoded().is_err());
        let s = Styled::core_scalar("str", "true");
        assert_eq!(s.written_tag(), ("", true));
        assert_eq!(s.decoded().ok(), Some(Node::Str("true".into())));
        assert_eq!(
            Styled::untagged("true").decoded().ok(),
            Some(Node::Bool(true))
        );
    }
}
