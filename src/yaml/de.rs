//! A serde `Deserializer` over [`Node`], used for kustomization files and
//! transformer configs.
//!
//! kustomize decodes these files with Go's `encoding/json` rules, which match
//! struct field names case-insensitively (`nameprefix` works like
//! `namePrefix`) and refuse unknown fields. We reproduce both: struct fields are
//! matched exactly first, then ignoring case, and an unknown field is an error
//! with a "did you mean" hint. Errors carry the path of the offending field,
//! as steps (for [`super::locate`]) and as dotted text.

use super::Node;
use super::parse::PathStep;
use serde::Deserialize as _;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use std::fmt;

/// A deserialization error with the path of the field that caused it.
#[derive(Debug)]
pub struct DeError {
    /// The path as dotted text, with `[i]` for indexes (`patches[0].target.kind`);
    /// empty for the whole value.
    pub path: String,
    /// The same path as steps; keys are spelled as in the document.
    pub steps: Vec<PathStep>,
    /// What is wrong.
    pub msg: String,
    /// What the user may have meant (`did you mean "resources"?`), for an unknown field.
    pub hint: Option<String>,
}

impl DeError {
    fn at(steps: Vec<PathStep>, msg: String) -> DeError {
        DeError {
            path: render_path(&steps),
            steps,
            msg,
            hint: None,
        }
    }
}

/// A path as dotted text: keys joined with `.`, indexes as `[i]`.
fn render_path(steps: &[PathStep]) -> String {
    let mut s = String::new();
    for step in steps {
        match step {
            PathStep::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            PathStep::Index(i) => {
                s.push('[');
                s.push_str(&i.to_string());
                s.push(']');
            }
        }
    }
    s
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "field {}: ", self.path)?;
        }
        write!(f, "{}", self.msg)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError::at(Vec::new(), msg.to_string())
    }
}

thread_local! {
    /// Set while decoding with [`from_node_lenient`].
    static LENIENT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Deserializes `T` from a node, ignoring unknown struct fields (kustomize
/// reads builtin plugin configs this way).
pub fn from_node_lenient<T: DeserializeOwned>(node: &Node) -> Result<T, DeError> {
    let was = LENIENT.with(|l| l.replace(true));
    let r = from_node(node);
    LENIENT.with(|l| l.set(was));
    r
}

/// Deserializes `T` from a node.
pub fn from_node<T: DeserializeOwned>(node: &Node) -> Result<T, DeError> {
    T::deserialize(NodeDe {
        node,
        path: &Path::Root,
    })
}

/// Path of the value being deserialized, built lazily for error messages.
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn steps(&self) -> Vec<PathStep> {
        let mut steps = Vec::new();
        let mut p = self;
        loop {
            match p {
                Path::Root => break,
                Path::Key(parent, k) => {
                    steps.push(PathStep::Key(k.to_string()));
                    p = parent;
                }
                Path::Index(parent, i) => {
                    steps.push(PathStep::Index(*i));
                    p = parent;
                }
            }
        }
        steps.reverse();
        steps
    }
}

struct NodeDe<'a, 'p> {
    node: &'a Node,
    path: &'p Path<'p>,
}

impl NodeDe<'_, '_> {
    fn err(&self, msg: impl fmt::Display) -> DeError {
        DeError::at(self.path.steps(), msg.to_string())
    }

    fn type_err(&self, expected: &str) -> DeError {
        self.err(format_args!(
            "expected {expected}, found {}",
            describe(self.node)
        ))
    }

    /// Adds the path to an error raised deeper without one.
    fn with_path(&self, e: DeError) -> DeError {
        with_path(e, self.path)
    }
}

/// Adds `path` to an error raised without one.
fn with_path(mut e: DeError, path: &Path) -> DeError {
    if e.steps.is_empty() {
        e.steps = path.steps();
        e.path = render_path(&e.steps);
    }
    e
}

fn describe(n: &Node) -> String {
    match n {
        Node::Str(s) => format!("string {s:?}"),
        Node::Int(i) => format!("number {i}"),
        Node::Float(f) => format!("number {f}"),
        Node::Bool(b) => format!("boolean {b}"),
        other => other.type_name().to_string(),
    }
}

/// Levenshtein distance, for "did you mean" hints.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(!ca.eq_ignore_ascii_case(cb));
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest candidate to `word`, when it is close enough to be a likely typo.
pub fn did_you_mean<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

impl<'de> de::Deserializer<'de> for NodeDe<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            Node::Null => v.visit_unit(),
            Node::Bool(b) => v.visit_bool(*b),
            Node::Int(i) => v.visit_i64(*i),
            Node::Uint(u) => v.visit_u64(*u),
            Node::Float(f) => v.visit_f64(*f),
            Node::Str(s) => v.visit_str(s),
            Node::Seq(_) => self.deserialize_seq(v),
            Node::Map(_) => self.deserialize_map(v),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            Node::Bool(b) => v.visit_bool(*b),
            _ => Err(self.type_err("a boolean")),
        }
    }

    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            Node::Int(i) => v.visit_i64(*i),
            _ => Err(self.type_err("an integer")),
        }
    }

    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            Node::Int(i) if *i >= 0 => v.visit_u64(*i as u64),
            Node::Uint(u) => v.visit_u64(*u),
            _ => Err(self.type_err("a non-negative integer")),
        }
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            Node::Int(i) => v.visit_f64(*i as f64),
            Node::Uint(u) => v.visit_f64(*u as f64),
            Node::Float(f) => v.visit_f64(*f),
            _ => Err(self.type_err("a number")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            Node::Str(s) => v.visit_str(s),
            // Go's JSON decoding leaves a string field it reads null into empty, and stores
            // "" for a null map value or list item (`commonLabels: {a: ~}` labels a: "").
            Node::Null => v.visit_str(""),
            _ => Err(self.type_err("a string")),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_str(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            Node::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        v.visit_unit()
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            // Go decodes null into an empty slice.
            Node::Null => v.visit_seq(SeqDe {
                items: [].iter(),
                index: 0,
                path: self.path,
            }),
            Node::Seq(items) => v.visit_seq(SeqDe {
                items: items.iter(),
                index: 0,
                path: self.path,
            }),
            _ => Err(self.type_err("a list")),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node {
            Node::Null => v.visit_map(MapDe::new(None, self.path, None)),
            Node::Map(m) => v.visit_map(MapDe::new(Some(m), self.path, None)),
            _ => Err(self.type_err("a mapping")),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        match self.node {
            Node::Null => v.visit_map(MapDe::new(None, self.path, Some(fields))),
            Node::Map(m) => {
                if !LENIENT.with(|l| l.get()) {
                    check_fields(m, fields, self.path)?;
                }
                v.visit_map(MapDe::new(Some(m), self.path, Some(fields)))
            }
            _ => Err(self.type_err("a mapping")),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        match self.node {
            Node::Str(s) => {
                if !variants.contains(&s.as_str()) {
                    return Err(self.err(format_args!(
                        "unknown value {s:?}, expected one of: {}",
                        variants.join(", ")
                    )));
                }
                v.visit_enum(s.as_str().into_deserializer())
            }
            Node::Map(m) if m.len() == 1 => {
                let (k, val) = m.iter().next().ok_or_else(|| self.type_err("a string"))?;
                let path = Path::Key(self.path, k);
                v.visit_enum(EnumDe {
                    key: k,
                    node: val,
                    path: &path,
                })
            }
            _ => Err(self.type_err("a string")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        v.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, DeError> {
        v.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i128 u8 u16 u32 u128 f32 char bytes byte_buf unit_struct
        tuple tuple_struct identifier
    }
}

/// Refuses unknown fields, with a hint when a known one is close.
fn check_fields(m: &super::Map, fields: &[&str], path: &Path) -> Result<(), DeError> {
    for k in m.keys() {
        if fields.contains(&k.as_str()) || fields.iter().any(|f| f.eq_ignore_ascii_case(k)) {
            continue;
        }
        let mut e = DeError::at(Path::Key(path, k).steps(), "unknown field".into());
        e.hint = did_you_mean(k, fields).map(|c| format!("did you mean {c:?}?"));
        return Err(e);
    }
    Ok(())
}

struct SeqDe<'a, 'p> {
    items: std::slice::Iter<'a, Node>,
    index: usize,
    path: &'p Path<'p>,
}

impl<'de> SeqAccess<'de> for SeqDe<'_, '_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(node) = self.items.next() else {
            return Ok(None);
        };
        let path = Path::Index(self.path, self.index);
        self.index += 1;
        let de = NodeDe { node, path: &path };
        seed.deserialize(de)
            .map(Some)
            .map_err(|e| with_path(e, &path))
    }
}

struct MapDe<'a, 'p> {
    iter: Option<crate::yaml::map::Iter<'a>>,
    path: &'p Path<'p>,
    fields: Option<&'static [&'static str]>,
    value: Option<(&'a str, &'a Node)>,
}

impl<'a, 'p> MapDe<'a, 'p> {
    fn new(
        m: Option<&'a super::Map>,
        path: &'p Path<'p>,
        fields: Option<&'static [&'static str]>,
    ) -> Self {
        MapDe {
            iter: m.map(|m| m.iter()),
            path,
            fields,
            value: None,
        }
    }
}

impl<'de> MapAccess<'de> for MapDe<'_, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let lenient = LENIENT.with(|l| l.get());
        let (k, v) = loop {
            let Some((k, v)) = self.iter.as_mut().and_then(|i| i.next()) else {
                return Ok(None);
            };
            // Lenient decoding drops fields the struct does not know.
            let unknown = self
                .fields
                .is_some_and(|f| !f.iter().any(|f| f.eq_ignore_ascii_case(k)));
            if !(lenient && unknown) {
                break (k, v);
            }
        };
        self.value = Some((k, v));
        // Match struct fields case-insensitively, as Go's encoding/json does.
        let key: &str = match self.fields {
            Some(fields) if !fields.contains(&k.as_str()) => fields
                .iter()
                .find(|f| f.eq_ignore_ascii_case(k))
                .copied()
                .unwrap_or(k),
            _ => k,
        };
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let (k, node) = self
            .value
            .take()
            .ok_or_else(|| <DeError as de::Error>::custom("value without key"))?;
        let path = Path::Key(self.path, k);
        let de = NodeDe { node, path: &path };
        seed.deserialize(de)
            .map_err(|e| NodeDe { node, path: &path }.with_path(e))
    }
}

struct EnumDe<'a, 'p> {
    key: &'a str,
    node: &'a Node,
    path: &'p Path<'p>,
}

impl<'de, 'a, 'p> EnumAccess<'de> for EnumDe<'a, 'p> {
    type Error = DeError;
    type Variant = NodeDe<'a, 'p>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), DeError> {
        let v = seed.deserialize(self.key.into_deserializer())?;
        Ok((
            v,
            NodeDe {
                node: self.node,
                path: self.path,
            },
        ))
    }
}

impl<'de> VariantAccess<'de> for NodeDe<'_, '_> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_seq(self, v)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_struct(self, "", fields, v)
    }
}

/// Lets a `Node` field inside a deserialized struct receive the raw node.
impl<'de> serde::Deserialize<'de> for Node {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct NV;
        impl<'de> Visitor<'de> for NV {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                Node::deserialize(d)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Node, E> {
                Ok(Node::Bool(b))
            }
            fn visit_i64<E>(self, i: i64) -> Result<Node, E> {
                Ok(Node::Int(i))
            }
            fn visit_u64<E>(self, u: u64) -> Result<Node, E> {
                Ok(i64::try_from(u).map(Node::Int).unwrap_or(Node::Uint(u)))
            }
            fn visit_f64<E>(self, f: f64) -> Result<Node, E> {
                Ok(Node::Float(f))
            }
            fn visit_str<E>(self, s: &str) -> Result<Node, E> {
                Ok(Node::text(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Node, E> {
                Ok(Node::text(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut v = Vec::new();
                while let Some(n) = a.next_element()? {
                    v.push(n);
                }
                Ok(Node::Seq(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut m = super::Map::new();
                while let Some((k, v)) = a.next_entry::<String, Node>()? {
                    m.insert(k, v);
                }
                Ok(Node::Map(m))
            }
        }
        // deserialize_any on NodeDe clones the node structurally.
        d.deserialize_any(NV)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)] // `resources` is there to be suggested, never read
    struct K {
        #[serde(default)]
        name_prefix: Option<String>,
        #[serde(default)]
        resources: Vec<String>,
    }

    fn map(pairs: &[(&str, Node)]) -> Node {
        Node::Map(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn case_insensitive_fields() {
        let n = map(&[("nameprefix", Node::Str("p-".into()))]);
        let k: K = from_node(&n).expect("decodes");
        assert_eq!(k.name_prefix.as_deref(), Some("p-"));
    }

    #[test]
    fn unknown_field_hint() {
        let n = map(&[("resourcs", Node::Seq(vec![]))]);
        let e = from_node::<K>(&n).expect_err("unknown field");
        assert_eq!(e.msg, "unknown field");
        assert_eq!(e.hint.as_deref(), Some("did you mean \"resources\"?"));
        assert_eq!(e.steps, [PathStep::Key("resourcs".into())]);
        // Display keeps the hint, for callers that print the error whole.
        assert_eq!(
            e.to_string(),
            "field resourcs: unknown field (did you mean \"resources\"?)"
        );
    }

    #[test]
    fn unknown_field_without_a_close_name_has_no_hint() {
        let n = map(&[("zzzzzzzzzz", Node::Null)]);
        let e = from_node::<K>(&n).expect_err("unknown field");
        assert_eq!(e.hint, None);
        assert_eq!(e.to_string(), "field zzzzzzzzzz: unknown field");
    }

    #[test]
    fn type_error_path() {
        let n = map(&[("resources", Node::Seq(vec![Node::Int(1)]))]);
        let e = from_node::<K>(&n).expect_err("type");
        assert_eq!(
            e.to_string(),
            "field resources[0]: expected a string, found number 1"
        );
        assert_eq!(
            e.steps,
            [PathStep::Key("resources".into()), PathStep::Index(0)]
        );
        assert_eq!(e.hint, None);
    }

    #[test]
    fn keys_with_dots_stay_one_step() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct M {
            labels: std::collections::BTreeMap<String, String>,
        }
        let n = map(&[("labels", map(&[("app.kubernetes.io/name", Node::Int(1))]))]);
        let e = from_node::<M>(&n).expect_err("type");
        assert_eq!(e.path, "labels.app.kubernetes.io/name");
        assert_eq!(
            e.steps,
            [
                PathStep::Key("labels".into()),
                PathStep::Key("app.kubernetes.io/name".into())
            ]
        );
    }
}
