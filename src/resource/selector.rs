//! Resource selection: kustomize's `target` selectors (GVK, name and
//! namespace as anchored regular expressions) and Kubernetes label selectors.

use crate::error::{Error, Result};
use crate::kustomization::Selector;
use crate::resource::Resource;
use crate::resource::pattern::Anchored;

/// A compiled `target`.
pub struct Matcher {
    group: Option<Anchored>,
    version: Option<Anchored>,
    kind: Option<Anchored>,
    name: Option<Anchored>,
    namespace: Option<Anchored>,
    labels: Option<LabelSelector>,
    annotations: Option<LabelSelector>,
}

fn anchored(field: &str, pattern: &str) -> Result<Option<Anchored>> {
    if pattern.is_empty() {
        return Ok(None);
    }
    // Most targets are plain names (`Deployment`, `app-web`): those are
    // matched without building a regex (see pattern.rs).
    Anchored::new(pattern).map(Some).map_err(|e| {
        Error::invalid_config(format!(
            "target {field} {pattern:?} is not a valid regular expression: {e}"
        ))
    })
}

fn matches(re: &Option<Anchored>, s: &str) -> bool {
    re.as_ref().is_none_or(|r| r.is_match(s))
}

impl Matcher {
    /// Compiles a `target`: GVK, name and namespace as anchored regular expressions,
    /// label and annotation selectors parsed; an invalid one is an error.
    pub fn new(s: &Selector) -> Result<Matcher> {
        Ok(Matcher {
            group: anchored("group", &s.group)?,
            version: anchored("version", &s.version)?,
            kind: anchored("kind", &s.kind)?,
            name: anchored("name", &s.name)?,
            namespace: anchored("namespace", &s.namespace)?,
            labels: nonempty(&s.label_selector)
                .map(LabelSelector::parse)
                .transpose()
                .map_err(|e| e.context("in target labelSelector"))?,
            annotations: nonempty(&s.annotation_selector)
                .map(LabelSelector::parse)
                .transpose()
                .map_err(|e| e.context("in target annotationSelector"))?,
        })
    }

    /// Whether the resource is selected: namespace and name may match the
    /// original or the current id, as in kustomize. Runs for every resource a
    /// target is matched against, so the ids are read without copying them.
    pub fn selects(&self, r: &Resource) -> bool {
        let [group, version, kind, namespace, name] = r.id_key();
        if !(matches(&self.kind, &kind)
            && matches(&self.group, &group)
            && matches(&self.version, &version))
        {
            return false;
        }
        let (orig_namespace, orig_name) = match r.prev_ids.first() {
            Some(orig) => (orig.effective_namespace(), orig.name.as_str()),
            None => (&*namespace, &*name),
        };
        if !matches(&self.namespace, orig_namespace) && !matches(&self.namespace, &namespace) {
            return false;
        }
        if !matches(&self.name, orig_name) && !matches(&self.name, &name) {
            return false;
        }
        if let Some(ls) = &self.labels
            && !ls.matches_map(r.node().get_path(&["metadata", "labels"]))
        {
            return false;
        }
        if let Some(a) = &self.annotations
            && !a.matches_map(r.node().get_path(&["metadata", "annotations"]))
        {
            return false;
        }
        true
    }
}

fn nonempty(s: &str) -> Option<&str> {
    if s.trim().is_empty() { None } else { Some(s) }
}

/// One requirement of a label selector.
#[derive(Debug, PartialEq)]
enum Req {
    Eq(String, String),
    NotEq(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// A Kubernetes label selector (`a=b,c!=d,e in (x,y),f notin (z),g,!h`).
#[derive(Debug, PartialEq)]
pub struct LabelSelector {
    reqs: Vec<Req>,
}

impl LabelSelector {
    /// Parses comma-separated requirements: `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
    /// `k notin (a,b)`, `k`, `!k`.
    pub fn parse(text: &str) -> Result<LabelSelector> {
        let bad = |why: &str| Error::invalid_config(format!("invalid selector {text:?}: {why}"));
        let mut reqs = Vec::new();
        for part in split_top_level(text) {
            let part = part.trim();
            if part.is_empty() {
                return Err(bad("empty requirement"));
            }
            let req = if let Some(key) = part.strip_prefix('!') {
                Req::NotExists(key.trim().to_string())
            } else if let Some((k, v)) = part.split_once("!=") {
                Req::NotEq(k.trim().to_string(), v.trim().to_string())
            } else if let Some((k, v)) = part.split_once("==") {
                Req::Eq(k.trim().to_string(), v.trim().to_string())
            } else if let Some((k, v)) = part.split_once('=') {
                Req::Eq(k.trim().to_string(), v.trim().to_string())
            } else if let Some((k, set)) = split_set_op(part, " notin ") {
                Req::NotIn(
                    k,
                    parse_set(set).ok_or_else(|| bad("expected (v1,v2) after notin"))?,
                )
            } else if let Some((k, set)) = split_set_op(part, " in ") {
                Req::In(
                    k,
                    parse_set(set).ok_or_else(|| bad("expected (v1,v2) after in"))?,
                )
            } else {
                Req::Exists(part.to_string())
            };
            let key = match &req {
                Req::Eq(k, _)
                | Req::NotEq(k, _)
                | Req::In(k, _)
                | Req::NotIn(k, _)
                | Req::Exists(k)
                | Req::NotExists(k) => k,
            };
            if key.is_empty() || key.contains(char::is_whitespace) {
                return Err(bad(&format!("invalid key {key:?}")));
            }
            reqs.push(req);
        }
        Ok(LabelSelector { reqs })
    }

    /// Whether labels given as key/value pairs satisfy every requirement.
    pub fn matches(&self, labels: &[(String, String)]) -> bool {
        self.matches_with(|k| {
            labels
                .iter()
                .find(|(lk, _)| lk == k)
                .map(|(_, v)| std::borrow::Cow::Borrowed(v.as_str()))
        })
    }

    /// Whether the labels (or annotations) mapping `map` of an object satisfies
    /// the selector, read in place: values as text, a non-scalar as "".
    pub fn matches_map(&self, map: Option<&crate::yaml::Node>) -> bool {
        let map = map.and_then(crate::yaml::Node::as_map);
        self.matches_with(|k| {
            map.and_then(|m| m.get(k)).map(|v| match v {
                crate::yaml::Node::Str(s) => std::borrow::Cow::Borrowed(s.as_str()),
                v => std::borrow::Cow::Owned(v.scalar_string().unwrap_or_default()),
            })
        })
    }

    fn matches_with<'v>(&self, get: impl Fn(&str) -> Option<std::borrow::Cow<'v, str>>) -> bool {
        self.reqs.iter().all(|r| match r {
            Req::Eq(k, v) => get(k).is_some_and(|x| x == v.as_str()),
            Req::NotEq(k, v) => get(k).is_none_or(|x| x != v.as_str()),
            Req::In(k, set) => get(k).is_some_and(|x| set.iter().any(|s| *s == *x)),
            Req::NotIn(k, set) => get(k).is_none_or(|x| !set.iter().any(|s| *s == *x)),
            Req::Exists(k) => get(k).is_some(),
            Req::NotExists(k) => get(k).is_none(),
        })
    }
}

/// Splits on commas outside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn split_set_op<'a>(part: &'a str, op: &str) -> Option<(String, &'a str)> {
    let i = part.find(op)?;
    Some((part[..i].trim().to_string(), part[i + op.len()..].trim()))
}

fn parse_set(s: &str) -> Option<Vec<String>> {
    let inner = s.strip_prefix('(')?.strip_suffix(')')?;
    Some(
        inner
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn label_selectors() {
        let s = LabelSelector::parse("app=web,tier in (a, b),!legacy,env").expect("parses");
        assert!(s.matches(&l(&[("app", "web"), ("tier", "b"), ("env", "x")])));
        assert!(!s.matches(&l(&[("app", "web"), ("tier", "c"), ("env", "x")])));
        assert!(!s.matches(&l(&[
            ("app", "web"),
            ("tier", "a"),
            ("env", "x"),
            ("legacy", "")
        ])));
        let n = LabelSelector::parse("a!=b,c notin (d)").expect("parses");
        assert!(n.matches(&l(&[])));
        assert!(!n.matches(&l(&[("c", "d")])));
        assert!(LabelSelector::parse("a=b,").is_err());
    }
}
