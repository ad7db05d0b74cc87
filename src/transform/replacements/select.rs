//! Which resources a replacement reads and writes: the source selector and the
//! targets' `select` and `reject`.
//!
//! A resource is selected through any of its ids: the current one and each one
//! it had before a rename or namespace change. kustomize keeps the previous ids
//! in build annotations, where the namespace is stored as kustomize's
//! "effective" namespace of the moment: `default` for a namespaced resource
//! without one, `_non_namespaceable_` for a cluster-scoped kind. Both show
//! through selectors (`namespace: _non_namespaceable_` selects a renamed
//! ClusterRole), in every version, so [`resource_ids`] reproduces them.
//!
//! How the id fields compare changed in kustomize v5.8.0 (#5863), for targets
//! only (a source is still compared literally):
//! - v5.5.0 ([`IdSelector`], kustomize's `ResId.IsSelectedBy`): every field the
//!   selector sets is equal; namespaces compare as effective namespaces, so
//!   `namespace: default` also selects resources without a namespace (and
//!   cluster-scoped ones).
//! - v5.8.1 ([`RegexSelector`], kustomize's `SelectorRegex`): every field the
//!   selector sets is an anchored regular expression (`^(?:…)$`) matched
//!   against the id's field as it is, so `namespace: default` no longer
//!   selects a resource without a namespace (unless one of its previous ids
//!   stored `default`). An invalid expression is an error even when no
//!   resource would be matched.

use crate::error::{Error, Result};
use crate::kustomization::Selector;
use crate::openapi::Schemas;
use crate::resource::Resource;
use crate::resource::id::ResId;
use crate::resource::pattern::Anchored;
use crate::resource::selector::LabelSelector;

/// The namespace kustomize stores for a cluster-scoped resource's previous id.
const NON_NAMESPACEABLE: &str = "_non_namespaceable_";

/// The current id and every previous one, as kustomize's `MakeResIds` reads
/// them back: previous namespaces as kustomize stored them (see the module
/// documentation).
pub(super) fn resource_ids(r: &Resource, schemas: &Schemas) -> Vec<ResId> {
    let mut ids = Vec::with_capacity(1 + r.prev_ids.len());
    ids.push(r.id());
    ids.extend(r.prev_ids.iter().map(|p| {
        let mut id = p.clone();
        let g = &id.gvk;
        if !schemas.is_namespaced(&g.group, &g.version, &g.kind) {
            id.namespace = NON_NAMESPACEABLE.into();
        } else if id.namespace.is_empty() {
            id.namespace = "default".into();
        }
        id
    }));
    ids
}

/// kustomize compares namespaces with "" read as "default". (It does so for
/// cluster-scoped kinds too: `namespace: default` selects a ClusterRole, any
/// other namespace does not.)
fn effective_namespace(ns: &str) -> &str {
    if ns.is_empty() { "default" } else { ns }
}

/// The group/version/kind/name/namespace part of a selector, compared
/// literally.
#[derive(Clone, Copy)]
pub(super) struct IdSelector<'a> {
    pub(super) group: &'a str,
    pub(super) version: &'a str,
    pub(super) kind: &'a str,
    pub(super) name: &'a str,
    pub(super) namespace: &'a str,
}

impl<'a> IdSelector<'a> {
    pub(super) fn of(s: &'a Selector) -> IdSelector<'a> {
        IdSelector {
            group: &s.group,
            version: &s.version,
            kind: &s.kind,
            name: &s.name,
            namespace: &s.namespace,
        }
    }

    fn fields(&self) -> [(&'static str, &'a str); 5] {
        [
            ("group", self.group),
            ("version", self.version),
            ("kind", self.kind),
            ("name", self.name),
            ("namespace", self.namespace),
        ]
    }

    pub(super) fn is_empty(&self) -> bool {
        self.fields().iter().all(|(_, v)| v.is_empty())
    }

    /// kustomize's `ResId.IsSelectedBy`: every field the selector sets is
    /// equal; namespaces compare as kustomize's "effective" namespaces.
    pub(super) fn selects(&self, id: &ResId) -> bool {
        let eq = |want: &str, have: &str| want.is_empty() || want == have;
        eq(self.name, &id.name)
            && eq(self.group, &id.gvk.group)
            && eq(self.version, &id.gvk.version)
            && eq(self.kind, &id.gvk.kind)
            && (self.namespace.is_empty()
                || effective_namespace(self.namespace) == effective_namespace(&id.namespace))
    }

    pub(super) fn describe(&self) -> String {
        let parts: Vec<String> = self
            .fields()
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        if parts.is_empty() {
            "{} (everything)".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// The id part of a selector as anchored regular expressions (kustomize
/// v5.8.0's `SelectorRegex`); an empty field matches anything.
pub(super) struct RegexSelector {
    group: Option<Anchored>,
    version: Option<Anchored>,
    kind: Option<Anchored>,
    name: Option<Anchored>,
    namespace: Option<Anchored>,
}

impl RegexSelector {
    /// Compiles the five fields; `what` names the selector in errors
    /// (`select`, `reject[1]`).
    pub(super) fn new(s: &Selector, what: &str) -> Result<RegexSelector> {
        let compile = |field: &str, pattern: &str| -> Result<Option<Anchored>> {
            if pattern.is_empty() {
                return Ok(None);
            }
            Anchored::new(pattern).map(Some).map_err(|e| {
                Error::invalid_config(format!(
                    "{what}.{field} {pattern:?} is not a valid regular expression: {}",
                    crate::transform::field_path::regex_error(&e)
                ))
            })
        };
        Ok(RegexSelector {
            group: compile("group", &s.group)?,
            version: compile("version", &s.version)?,
            kind: compile("kind", &s.kind)?,
            name: compile("name", &s.name)?,
            namespace: compile("namespace", &s.namespace)?,
        })
    }

    fn is_empty(&self) -> bool {
        [
            &self.group,
            &self.version,
            &self.kind,
            &self.name,
            &self.namespace,
        ]
        .iter()
        .all(|f| f.is_none())
    }

    /// Every field that is set matches the id's field as written (the
    /// namespace too: "" is not "default" here).
    fn selects(&self, id: &ResId) -> bool {
        let m = |re: &Option<Anchored>, s: &str| re.as_ref().is_none_or(|r| r.is_match(s));
        m(&self.group, &id.gvk.group)
            && m(&self.version, &id.gvk.version)
            && m(&self.kind, &id.gvk.kind)
            && m(&self.name, &id.name)
            && m(&self.namespace, &id.namespace)
    }
}

/// The id part of a target's `select` or `reject` entry, compared the way the
/// kustomize version being reproduced compares it.
enum IdMatcher<'t> {
    Literal(IdSelector<'t>),
    Regex(RegexSelector),
}

impl IdMatcher<'_> {
    fn new<'t>(s: &'t Selector, regex: bool, what: &str) -> Result<IdMatcher<'t>> {
        Ok(if regex {
            IdMatcher::Regex(RegexSelector::new(s, what)?)
        } else {
            IdMatcher::Literal(IdSelector::of(s))
        })
    }

    fn is_empty(&self) -> bool {
        match self {
            IdMatcher::Literal(s) => s.is_empty(),
            IdMatcher::Regex(s) => s.is_empty(),
        }
    }

    fn selects(&self, id: &ResId) -> bool {
        match self {
            IdMatcher::Literal(s) => s.selects(id),
            IdMatcher::Regex(s) => s.selects(id),
        }
    }
}

/// A target's selectors, compiled.
pub(super) struct TargetMatcher<'t> {
    select: IdMatcher<'t>,
    labels: Option<LabelSelector>,
    annotations: Option<LabelSelector>,
    /// Rejects by id (those that set any id field).
    reject_ids: Vec<IdMatcher<'t>>,
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
        .is_none_or(|l| l.matches_map(r.node().get_path(&["metadata", "labels"])))
        && annotations
            .as_ref()
            .is_none_or(|a| a.matches_map(r.node().get_path(&["metadata", "annotations"])))
}

impl<'t> TargetMatcher<'t> {
    /// Compiles `select` and `reject`: id fields as regular expressions when
    /// `regex` is set (every one of them first, as kustomize does), then the
    /// label and annotation selectors.
    pub(super) fn new(
        select: &'t Selector,
        reject: &'t [Selector],
        regex: bool,
    ) -> Result<TargetMatcher<'t>> {
        let select_ids = IdMatcher::new(select, regex, "select")?;
        let mut reject_ids = Vec::new();
        for (i, r) in reject.iter().enumerate() {
            let id = IdMatcher::new(r, regex, &format!("reject[{i}]"))?;
            if !id.is_empty() {
                reject_ids.push(id);
            }
        }
        let mut reject_meta = Vec::new();
        for (i, r) in reject.iter().enumerate() {
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
            select: select_ids,
            labels: parse_selector(&select.label_selector, "select.labelSelector")?,
            annotations: parse_selector(&select.annotation_selector, "select.annotationSelector")?,
            reject_ids,
            reject_meta,
        })
    }

    /// Whether the resource, with the ids [`resource_ids`] gives, is a target:
    /// its labels and annotations match `select` and no `reject` matches them,
    /// no `reject` matches any of its ids, and `select` matches one of them.
    pub(super) fn selects(&self, r: &Resource, ids: &[ResId]) -> bool {
        if !meta_matches(r, &self.labels, &self.annotations) {
            return false;
        }
        if self.reject_meta.iter().any(|(l, a)| meta_matches(r, l, a)) {
            return false;
        }
        ids.iter().any(|id| self.select.selects(id))
            && !ids
                .iter()
                .any(|id| self.reject_ids.iter().any(|rj| rj.selects(id)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(kind: &str, ns: &str, name: &str) -> ResId {
        ResId {
            gvk: crate::resource::id::Gvk::from_api_version("v1", kind),
            namespace: ns.into(),
            name: name.into(),
        }
    }

    fn sel(kind: &str, ns: &str, name: &str) -> Selector {
        Selector {
            kind: kind.into(),
            namespace: ns.into(),
            name: name.into(),
            ..Selector::default()
        }
    }

    #[test]
    fn literal_namespaces_compare_like_kustomize() {
        let lit = |ns: &str, id_ns: &str, kind: &str| {
            let s = sel("", ns, "");
            IdSelector::of(&s).selects(&id(kind, id_ns, "x"))
        };
        assert!(lit("default", "", "ConfigMap"));
        assert!(lit("a", "a", "ConfigMap"));
        assert!(!lit("a", "b", "ConfigMap"));
        assert!(lit("default", "", "Namespace"));
        assert!(!lit("a", "", "Namespace"));
        assert!(lit("", "", "Namespace"));
    }

    #[test]
    fn regex_fields_are_anchored_and_namespaces_literal() {
        let re = |kind: &str, ns: &str, name: &str, id: &ResId| {
            RegexSelector::new(&sel(kind, ns, name), "select")
                .map(|s| s.selects(id))
                .unwrap_or(false)
        };
        let cm = id("ConfigMap", "", "cm1");
        assert!(re("Deployment|ConfigMap", "", "", &cm));
        assert!(!re("Config", "", "", &cm));
        assert!(re("", "", "c.1", &cm));
        assert!(re("", "", ".*1", &cm));
        assert!(!re("", "", "cm", &cm));
        // "" is not "default" to a regex.
        assert!(!re("", "default", "", &cm));
        assert!(re("", ".*", "", &cm));
        assert!(re("", "default", "", &id("ConfigMap", "default", "x")));
    }

    #[test]
    fn invalid_regexes_are_errors_naming_the_field() {
        let err = RegexSelector::new(&sel("", "", "nons("), "reject[0]")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "reject[0].name \"nons(\" is not a valid regular expression: missing closing ): `^(?:nons()$`"
            )
        );
    }
}
