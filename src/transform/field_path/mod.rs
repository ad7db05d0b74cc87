//! kustomize's dotted field paths (`spec.template.spec.containers.[name=app].image`),
//! as `replacements` use them, and the two walks kustomize does over them.
//!
//! A path is split on `.`; `\.` escapes a dot, and a bracketed part keeps its
//! dots: `[name=a.b]` stays a list-entry selector, `[a.b/c]` (no `=`) becomes
//! the plain map key `a.b/c`. Each part is then one of:
//! - a map key (`spec`);
//! - a list index (`0`);
//! - a list entry selector `[key=value]` (elements whose `key` field is
//!   `value`), or `[=value]` for a list of scalars;
//! - in targets only, `*` for every element of a list;
//! - in lookups only, `-` for the last element.
//!
//! The two walks differ the way kustomize's differ, on purpose:
//! - [`FieldPath::lookup`] (a replacement's source) returns one node: list
//!   entry selectors compare values exactly and pick the first match, blank
//!   and empty parts are skipped, `*` is refused.
//! - [`PathMatcher`] (a replacement's targets, see [`walk`]) visits every
//!   node the path reaches: a selector's value is an unanchored regular
//!   expression, `*` fans out, and missing parts can be created.

mod walk;

use crate::error::{Error, Result};
use crate::yaml::Node;
use crate::yaml::parse::PathStep;
pub(crate) use walk::{NewLeaf, Options, PathMatcher};

/// A parsed field path.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldPath {
    text: String,
    parts: Vec<String>,
}

impl FieldPath {
    /// Splits `text` into parts (kustomize's "smarter path splitter").
    pub(crate) fn parse(text: &str) -> FieldPath {
        FieldPath {
            text: text.to_string(),
            parts: smart_split(text),
        }
    }

    /// Refuses a path longer than `config::fieldspec::MAX_SEGMENTS` (see there).
    pub(crate) fn check_length(&self) -> Result<()> {
        crate::config::fieldspec::check_segments(self.parts.len(), &self.text)
    }

    /// The parts after splitting.
    #[cfg(test)]
    pub(crate) fn parts(&self) -> &[String] {
        &self.parts
    }

    /// The parts as kustomize's splitter gives them to a target walk: a
    /// leading empty part is dropped when others follow (kyaml's
    /// `PathSplitter` allows a leading delimiter, so `.metadata.name`, as
    /// kubebuilder scaffolds write it, is `metadata.name`); an empty part
    /// anywhere else is kept.
    pub(crate) fn target_parts(&self) -> &[String] {
        match self.parts.split_first() {
            Some((first, rest)) if first.is_empty() && !rest.is_empty() => rest,
            _ => &self.parts,
        }
    }

    /// The node at this path, or `None` when a part is missing (or the walk
    /// reaches a null). Errors when a part cannot apply to the node it meets
    /// (a key on a list, an index on a mapping, `[key]` without `=`, `*`).
    pub(crate) fn lookup<'n>(&self, node: &'n Node) -> Result<Option<&'n Node>> {
        Ok(lookup_parts(&self.parts, node)?.map(|(n, _)| n))
    }

    /// The mapping holding the value the path reaches and the value's position in it
    /// (`None` for a list item or nothing): where kbuild keeps what it knows beside a
    /// value, the text a number was written as ([`crate::yaml::Map::typed_text`]) and
    /// its style.
    pub(crate) fn lookup_entry<'n>(&self, node: &'n Node) -> Option<(&'n crate::yaml::Map, usize)> {
        let (_, steps) = lookup_parts(&self.parts, node).ok()??;
        let (PathStep::Key(key), parents) = steps.split_last()? else {
            return None;
        };
        let parent = parents.iter().try_fold(node, |n, step| match step {
            PathStep::Key(k) => n.get(k),
            PathStep::Index(i) => n.as_seq()?.get(*i),
        })?;
        let map = parent.as_map()?;
        Some((map, map.get_index_of(key)?))
    }

    /// [`FieldPath::lookup`] of the first `n` [target parts](FieldPath::target_parts),
    /// with the keys and indexes it went through.
    pub(crate) fn lookup_prefix<'n>(
        &self,
        node: &'n Node,
        n: usize,
    ) -> Result<Option<(&'n Node, Vec<PathStep>)>> {
        let parts = self.target_parts();
        lookup_parts(&parts[..n.min(parts.len())], node)
    }

    /// Compiles the path for visiting targets.
    pub(crate) fn matcher(&self) -> PathMatcher {
        PathMatcher::new(self.target_parts())
    }

    /// Compiles the target parts from the `n`th on (the rest of a path that
    /// goes on into YAML text).
    pub(crate) fn matcher_from(&self, n: usize) -> PathMatcher {
        let parts = self.target_parts();
        PathMatcher::new(&parts[n.min(parts.len())..])
    }
}

/// kustomize's `yaml.Lookup` (`PathGetter`): the node at `parts` and the keys
/// and indexes that lead there.
fn lookup_parts<'n>(parts: &[String], node: &'n Node) -> Result<Option<(&'n Node, Vec<PathStep>)>> {
    // kustomize's lookup trims the parts and drops empty ones.
    let parts: Vec<&str> = parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    let mut cur = node;
    let mut steps = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let at = || parts[..i].join(".");
        let next = match lookup_part(part) {
            LookupPart::Index(idx) => elements(cur, &at, part)?
                .get(idx)
                .map(|n| (n, PathStep::Index(idx))),
            LookupPart::Last => {
                let items = elements(cur, &at, part)?;
                items.last().map(|n| (n, PathStep::Index(items.len() - 1)))
            }
            LookupPart::Entry(key, value) => elements(cur, &at, part)?
                .iter()
                .enumerate()
                .find(|(_, e)| entry_text(e, &key).is_some_and(|t| t == value))
                .map(|(j, n)| (n, PathStep::Index(j))),
            LookupPart::Field(name) => match cur {
                Node::Null => None,
                Node::Map(m) => m.get(name).map(|n| (n, PathStep::Key(name.to_string()))),
                other => return Err(wrong_kind(&at(), part, "a mapping", other)),
            },
            LookupPart::Bad(msg) => {
                return Err(Error::invalid_config(format!(
                    "field path part '{part}': {msg}"
                )));
            }
        };
        match next {
            Some((n, step)) => {
                cur = n;
                steps.push(step);
            }
            None => return Ok(None),
        }
    }
    Ok(Some((cur, steps)))
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Splits on unescaped dots, keeping bracketed parts whole. A bracketed part
/// holding `=` keeps its brackets (a list entry selector); one without `=`
/// that had to be rejoined loses them (a map key with dots). A part that is
/// bracketed without containing a dot keeps its brackets whatever it holds,
/// as in kustomize (so `[foo]` is a malformed selector, not the key `foo`).
fn smart_split(path: &str) -> Vec<String> {
    let raw = split_escaped(path, '.');
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let part = &raw[i];
        if part.starts_with('[') && !part.ends_with(']') {
            let mut joined = part.clone();
            while i + 1 < raw.len() {
                i += 1;
                joined.push('.');
                joined.push_str(&raw[i]);
                if raw[i].ends_with(']') {
                    break;
                }
            }
            if joined.contains('=') {
                out.push(joined);
            } else {
                out.push(joined.trim_matches(|c| c == '[' || c == ']').to_string());
            }
        } else {
            out.push(part.clone());
        }
        i += 1;
    }
    out
}

/// Splits on `delim`, a backslash right before it escaping it.
pub(crate) fn split_escaped(path: &str, delim: char) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in path.split(delim) {
        match out.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push(delim);
                last.push_str(piece);
            }
            _ => out.push(piece.to_string()),
        }
    }
    out
}

/// A part as the source lookup reads it.
enum LookupPart<'p> {
    Index(usize),
    Last,
    Entry(String, String),
    Field(&'p str),
    Bad(String),
}

fn lookup_part(part: &str) -> LookupPart<'_> {
    if let Some(idx) = go_atoi(part) {
        return match usize::try_from(idx) {
            Ok(i) => LookupPart::Index(i),
            Err(_) => LookupPart::Bad(format!("array index {idx} cannot be negative")),
        };
    }
    if part == "-" {
        return LookupPart::Last;
    }
    if part == "*" {
        return LookupPart::Bad(
            "the wildcard '*' selects several values; a replacement source needs one".into(),
        );
    }
    if is_list_entry(part) {
        return match split_entry(part) {
            Some((k, v)) => LookupPart::Entry(k.to_string(), v.to_string()),
            None => LookupPart::Bad(NO_EQUALS.into()),
        };
    }
    LookupPart::Field(part)
}

pub(super) const NO_EQUALS: &str = "a list entry selector must look like [fieldName=fieldValue] (or [=value] for a list of scalars)";

/// Go's `strconv.Atoi`: optional sign and decimal digits, within 64 bits.
pub(crate) fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

pub(super) fn is_list_entry(part: &str) -> bool {
    part.starts_with('[') && part.ends_with(']') && part.len() >= 2
}

/// `[key=value]` into key and value (split at the first `=`).
pub(super) fn split_entry(part: &str) -> Option<(&str, &str)> {
    part.strip_prefix('[')?.strip_suffix(']')?.split_once('=')
}

/// The elements of a list (a null reads as an empty list).
fn elements<'n>(node: &'n Node, at: &dyn Fn() -> String, part: &str) -> Result<&'n [Node]> {
    match node {
        Node::Seq(items) => Ok(items),
        Node::Null => Ok(&[]),
        other => Err(wrong_kind(&at(), part, "a list", other)),
    }
}

/// The text a list entry selector compares: the element's `key` field for a
/// mapping element, the element itself for `[=value]`. Only scalars have text.
pub(super) fn entry_text(elem: &Node, key: &str) -> Option<String> {
    let n = if key.is_empty() {
        elem
    } else {
        elem.as_map()?.get(key)?
    };
    match n {
        Node::Seq(_) | Node::Map(_) => None,
        scalar => scalar.scalar_string(),
    }
}

fn wrong_kind(at: &str, part: &str, want: &str, found: &Node) -> Error {
    wrong_kind_named(at, part, want, found.type_name())
}

/// "cannot apply 'x' at 'a.b': expected a mapping, found a list".
pub(super) fn wrong_kind_named(at: &str, part: &str, want: &str, found: &str) -> Error {
    let at = if at.is_empty() {
        "the top of the object".to_string()
    } else {
        format!("'{at}'")
    };
    Error::invalid_config(format!(
        "cannot apply '{part}' at {at}: expected {want}, found a {found}"
    ))
}

/// A pattern's error without Go's `error parsing regexp: ` prefix.
pub(crate) fn regex_error(e: &crate::resource::go_regex::RegexError) -> String {
    e.0.trim_start_matches("error parsing regexp: ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> Vec<String> {
        FieldPath::parse(s).parts().to_vec()
    }

    use crate::yaml::parse::first_doc as yaml;

    #[test]
    fn splits_like_kustomize() {
        assert_eq!(parts("spec.replicas"), ["spec", "replicas"]);
        assert_eq!(
            parts("spec.data.[name=first].key"),
            ["spec", "data", "[name=first]", "key"]
        );
        assert_eq!(
            parts("spec.data.[.name=.first].key"),
            ["spec", "data", "[.name=.first]", "key"]
        );
        assert_eq!(
            parts("spec.data.[name=f.i.r.s.t.].key"),
            ["spec", "data", "[name=f.i.r.s.t.]", "key"]
        );
        assert_eq!(parts(r"spec\.replicas"), ["spec.replicas"]);
        assert_eq!(
            parts("spec.data.[name=f.i.[r.s.t..key"),
            ["spec", "data", "[name=f.i.[r.s.t..key"]
        );
        assert_eq!(
            parts("metadata.annotations.[a.b.c/d.e.f-g.]"),
            ["metadata", "annotations", "a.b.c/d.e.f-g."]
        );
        assert_eq!(
            parts("metadata.annotations.[foo]"),
            ["metadata", "annotations", "[foo]"]
        );
        assert_eq!(parts(""), [""]);
    }

    #[test]
    fn lookup_reads_one_node() {
        let n = yaml(
            "spec:\n  c:\n  - name: a\n    image: x\n  - name: ab\n    image: y\n  args: [p, q]\n",
        );
        let get = |p: &str| FieldPath::parse(p).lookup(&n).map(|o| o.cloned());
        assert_eq!(
            get("spec.c.[name=ab].image").ok().flatten(),
            Some(Node::Str("y".into()))
        );
        // Exact comparison in lookups: "a" does not select "ab".
        assert_eq!(
            get("spec.c.[name=a].image").ok().flatten(),
            Some(Node::Str("x".into()))
        );
        assert_eq!(get("spec.c.[name=b].image").ok().flatten(), None);
        assert_eq!(
            get("spec.c.1.image").ok().flatten(),
            Some(Node::Str("y".into()))
        );
        assert_eq!(
            get("spec.c.-.name").ok().flatten(),
            Some(Node::Str("ab".into()))
        );
        assert_eq!(
            get("spec.args.[=q]").ok().flatten(),
            Some(Node::Str("q".into()))
        );
        assert_eq!(
            get(" spec..c.0.name").ok().flatten(),
            Some(Node::Str("a".into()))
        );
        assert_eq!(get("spec.c.9.name").ok().flatten(), None);
        assert_eq!(get("spec.missing.x").ok().flatten(), None);
        assert!(get("spec.c.image").is_err());
        assert!(get("spec.c.*.image").is_err());
        assert!(get("spec.c.-1.image").is_err());
        assert!(get("spec.c.[name].image").is_err());
    }
}
