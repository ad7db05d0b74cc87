//! kbuild's in-memory YAML/JSON value.
//!
//! kustomize prints every resource by converting it to JSON and back, so the
//! only distinctions that survive to the output are JSON ones: null, bool,
//! number, string, sequence and mapping. Comments, anchors, tags and styles are
//! resolved away at parse time.

pub use super::map::Map;

/// A string scalar's text.
pub type Str = compact_str::CompactString;

/// A parsed YAML value.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Node {
    /// `null`, `~`, or a value written as nothing.
    #[default]
    Null,
    /// A boolean scalar.
    Bool(bool),
    /// An integer that fits in an `i64`.
    Int(i64),
    /// An integer above `i64::MAX` that fits in a `u64`: go-yaml resolves it to a
    /// `uint64`, which kustomize prints exactly (`12345678901234567890`); anything
    /// larger becomes a float.
    Uint(u64),
    /// A floating-point number (`.inf` and `.nan` included).
    Float(f64),
    /// Text; short strings (most names, kinds, versions, ports) are stored inline.
    Str(Str),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, keys in the order written.
    Map(Map),
}

impl Node {
    /// A string scalar.
    pub fn text(s: impl Into<Str>) -> Node {
        Node::Str(s.into())
    }

    /// An empty mapping.
    pub fn map() -> Node {
        Node::Map(Map::new())
    }

    /// The text of a string scalar; `None` for any other node, numbers included.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The mapping, if the node is one.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Node::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The mapping, if the node is one, to change in place.
    pub fn as_map_mut(&mut self) -> Option<&mut Map> {
        match self {
            Node::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The sequence, if the node is one.
    pub fn as_seq(&self) -> Option<&Vec<Node>> {
        match self {
            Node::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The sequence, if the node is one, to change in place.
    pub fn as_seq_mut(&mut self) -> Option<&mut Vec<Node>> {
        match self {
            Node::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the node is null.
    pub fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }

    /// Field of a mapping; `None` for other nodes or a missing key.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map().and_then(|m| m.get(key))
    }

    /// Field of a mapping, to change in place; `None` for other nodes or a missing key.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.as_map_mut().and_then(|m| m.get_mut(key))
    }

    /// Follows a path of mapping keys.
    pub fn get_path(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |n, k| n.get(k))
    }

    /// Follows a path of mapping keys, to change the node at its end.
    pub fn get_path_mut(&mut self, path: &[&str]) -> Option<&mut Node> {
        path.iter().try_fold(self, |n, k| n.get_mut(k))
    }

    /// Follows a path of mapping keys and list positions, to change the node at its end.
    pub fn at_steps_mut(&mut self, at: &[super::parse::PathStep]) -> Option<&mut Node> {
        use super::parse::PathStep;
        at.iter().try_fold(self, |n, step| match (n, step) {
            (Node::Map(m), PathStep::Key(k)) => m.get_mut(k.as_str()),
            (Node::Seq(items), PathStep::Index(i)) => items.get_mut(*i),
            _ => None,
        })
    }

    /// String at a path of mapping keys.
    pub fn get_str(&self, path: &[&str]) -> Option<&str> {
        self.get_path(path).and_then(Node::as_str)
    }

    /// The mapping at `path`, created (replacing null or missing values) when absent.
    /// Returns `None` when a value on the way is not a mapping.
    pub fn ensure_map(&mut self, path: &[&str]) -> Option<&mut Map> {
        let mut cur = self;
        for k in path {
            if cur.is_null() {
                *cur = Node::map();
            }
            let m = cur.as_map_mut()?;
            cur = m.entry(*k).or_insert(Node::Null);
        }
        if cur.is_null() {
            *cur = Node::map();
        }
        cur.as_map_mut()
    }

    /// A short name of the node's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "boolean",
            Node::Int(_) | Node::Uint(_) | Node::Float(_) => "number",
            Node::Str(_) => "string",
            Node::Seq(_) => "sequence",
            Node::Map(_) => "mapping",
        }
    }

    /// The scalar as text the way Go's fmt would print it (used where kustomize
    /// reads a scalar into a string field).
    pub fn scalar_string(&self) -> Option<String> {
        match self {
            // `String::from`, not `to_string()`: a `CompactString`'s `to_string()` runs
            // through `Display` and the formatting machinery, several times the cost.
            Node::Str(s) => Some(String::from(s.as_str())),
            Node::Bool(b) => Some(String::from(if *b { "true" } else { "false" })),
            Node::Int(i) => Some(i.to_string()),
            Node::Uint(u) => Some(u.to_string()),
            Node::Float(f) => Some(crate::yaml::emit::format_float(*f)),
            Node::Null => Some(String::new()),
            _ => None,
        }
    }
}

impl From<&serde_json::Value> for Node {
    /// Builds a node from JSON (handy in tests and for JSON inputs).
    fn from(v: &serde_json::Value) -> Node {
        use serde_json::Value as J;
        match v {
            J::Null => Node::Null,
            J::Bool(b) => Node::Bool(*b),
            J::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Node::Int(i),
                (None, Some(u)) => Node::Uint(u),
                _ => Node::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(s) => Node::text(s.clone()),
            J::Array(a) => Node::Seq(a.iter().map(Node::from).collect()),
            J::Object(o) => Node::Map(o.iter().map(|(k, v)| (k.clone(), Node::from(v))).collect()),
        }
    }
}

impl Node {
    /// Converts to JSON (numbers that JSON cannot hold become null).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Node::Null => J::Null,
            Node::Bool(b) => J::Bool(*b),
            Node::Int(i) => J::from(*i),
            Node::Uint(u) => J::from(*u),
            Node::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Node::Str(s) => J::String(String::from(s.as_str())),
            Node::Seq(s) => J::Array(s.iter().map(Node::to_json).collect()),
            Node::Map(m) => J::Object(
                m.iter()
                    .map(|(k, v)| (String::from(k.as_str()), v.to_json()))
                    .collect(),
            ),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Node {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnyValue".into()
    }

    fn inline_schema() -> bool {
        true
    }

    /// Any YAML value.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({})
    }
}
