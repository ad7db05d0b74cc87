//! The name reference transformer (kustomize's `nameReference`): when a
//! resource is renamed or moved to another namespace, the fields of other
//! resources that refer to it by name follow.
//!
//! It runs once, at the top of the build, after every rename. A referrer
//! field (a [`NameRefSpec`] field spec) holding a name that some resource of
//! the entry's kind *had* (one of its previous ids, so never-renamed
//! resources are not candidates) gets that resource's current name.
//! kustomize's way of choosing among candidates is kept exactly:
//!
//! 1. Only resources the referrer can see: all when the referrer is
//!    cluster-scoped; otherwise cluster-scoped ones, those in its namespace
//!    ("" and "default" being the same), and, for a RoleBinding, those in the
//!    namespace of one of its ServiceAccount subjects.
//! 2. A mapping reference (`subjects`, webhook services) with a `namespace`
//!    field only matches resources originally in that namespace, or, when
//!    the referrer sees none, resources now in it.
//! 3. A previous name equals the reference; a previous id is of the entry's
//!    kind; for `roleRef/name`, of the roleRef's kind and apiGroup; and the
//!    candidate is in the referrer's namespace unless either is
//!    cluster-scoped or the candidate is a ServiceAccount.
//! 4. If several remain, those renamed with the same name prefixes and
//!    suffixes as the referrer (one list ending the other), first counting
//!    an empty list as matching any, then, if several remain, strictly. None
//!    left: the reference stays. Several left with different names (and,
//!    for mappings, namespaces): the build fails with "found multiple
//!    possible referrals".
//!
//! A mapping reference also gets the candidate's namespace, unless that is
//! empty. kustomize ignores a reference's own `kind` (a `User` subject named
//! like a renamed ServiceAccount follows it too); so does kbuild.

use crate::config::fieldspec::{CreateKind, scope_of, walk};
use crate::config::name_reference_specs::NameRefSpec;
use crate::error::{Error, Result};
use crate::kustomization::FieldSpec;
use crate::openapi;
use crate::provenance::diff::KeyPath;
use crate::resource::Resource;
use crate::resource::id::{Gvk, ResId};
use crate::resource::resmap::ResMap;
use crate::yaml::{Map, Node};
use compact_str::CompactString;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;
use std::sync::OnceLock;

/// Updates every name reference in `resmap` to renamed resources.
pub(crate) fn apply(resmap: &mut ResMap, specs: &[NameRefSpec]) -> Result<()> {
    let filters = Filters::new(specs);
    // No resource refers to any (a stream of ConfigMaps): nothing to index. The index
    // holds a copy of every resource's ids, the largest allocation of such a build.
    let refers = |res: &Resource| !filters.selecting(&orig_gvk(&res.id(), res)).is_empty();
    if !resmap.iter().any(refers) {
        return Ok(());
    }
    let targets = resmap.map_each(Target::new);
    let index = Index::new(&targets);
    resmap.try_for_each_mut(
        || (),
        |(), i, res| {
            let mine = filters.selecting(&index.targets[i].orig_gvk);
            if mine.is_empty() {
                return Ok(());
            }
            let referrer = Referrer::new(i, res, &index)?;
            // Each walk writes only along its spec's path: a record compares only those
            // after this step.
            res.node_mut_within(|node, mut within| {
                for f in mine.into_iter().map(|f| &filters.all[f]) {
                    let path = f.path.get_or_init(|| f.spec.segments());
                    if let Some(within) = within.as_deref_mut() {
                        within.push(KeyPath::clone(f.scope.get_or_init(|| scope_of(path))));
                    }
                    walk(node, path, false, CreateKind::Scalar, &mut |n| {
                        referrer.set(n, f)
                    })
                    .map_err(|e| {
                        e.context(format!(
                            "updating name reference in '{}' field of {}",
                            f.spec.path, index.targets[i].id
                        ))
                    })?;
                }
                Ok(())
            })
        },
    )?;
    Ok(())
}

/// One referrer field spec of one table entry.
struct Filter<'a> {
    /// The table entry: the kind referred to.
    target: &'a NameRefSpec,
    spec: &'a FieldSpec,
    /// The spec's path split, when first needed: most specs select no resource of a build.
    path: OnceLock<Vec<Cow<'a, str>>>,
    /// What a walk of the path writes along (see `scope_of`), when first needed.
    scope: OnceLock<KeyPath>,
    /// A `roleRef/name` field: the roleRef's kind and apiGroup narrow the search.
    role_ref: bool,
}

/// The table's field specs, found by the kind of the resources they select.
struct Filters<'a> {
    all: Vec<Filter<'a>>,
    by_kind: HashMap<&'a str, Vec<usize>>,
    any_kind: Vec<usize>,
}

impl<'a> Filters<'a> {
    fn new(specs: &'a [NameRefSpec]) -> Filters<'a> {
        let mut f = Filters {
            all: Vec::new(),
            by_kind: HashMap::new(),
            any_kind: Vec::new(),
        };
        for entry in specs {
            for spec in &entry.field_specs {
                let n = f.all.len();
                match spec.kind.as_str() {
                    "" => f.any_kind.push(n),
                    kind => f.by_kind.entry(kind).or_default().push(n),
                }
                f.all.push(Filter {
                    target: entry,
                    spec,
                    path: OnceLock::new(),
                    scope: OnceLock::new(),
                    role_ref: spec.path.ends_with("roleRef/name"),
                });
            }
        }
        f
    }

    /// The filters for a resource, in table order; kustomize selects
    /// referrers by their original id.
    fn selecting(&self, gvk: &Gvk) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .by_kind
            .get(gvk.kind.as_str())
            .into_iter()
            .flatten()
            .copied()
            .collect();
        v.extend(&self.any_kind);
        v.sort_unstable();
        v.retain(|&n| self.all[n].spec.selects(gvk));
        v
    }
}

/// What the transformer reads of a resource, taken once up front: while it
/// runs, only referrer fields change, never names or namespaces.
struct Target {
    id: ResId,
    cluster_scoped: bool,
    /// Kinds of the previous ids. kustomize rebuilds previous ids from the
    /// current apiVersion and the previous kinds, so does kbuild.
    prev_kinds: Vec<String>,
    /// Names of the previous ids, each once.
    prev_names: Vec<CompactString>,
    /// The GVK of the original id (same rule).
    orig_gvk: Gvk,
    /// Effective namespace of the original id; `None` when cluster-scoped.
    orig_namespace: Option<String>,
    prefixes: Vec<String>,
    suffixes: Vec<String>,
}

/// The kind `res` (whose current id is `id`) had first, in its current group and version:
/// what selects the name reference specs that apply to it.
fn orig_gvk(id: &ResId, res: &Resource) -> Gvk {
    let orig = res.prev_ids.first().unwrap_or(id);
    Gvk {
        group: id.gvk.group.clone(),
        version: id.gvk.version.clone(),
        kind: orig.gvk.kind.clone(),
    }
}

impl Target {
    fn new(res: &Resource) -> Target {
        let id = res.id();
        let prev_kinds: Vec<String> = res
            .prev_ids
            .iter()
            .map(|p| p.gvk.kind.to_string())
            .collect();
        let mut prev_names: Vec<CompactString> =
            res.prev_ids.iter().map(|p| p.name.clone()).collect();
        prev_names.sort_unstable();
        prev_names.dedup();
        let orig = res.prev_ids.first().unwrap_or(&id);
        let orig_gvk = orig_gvk(&id, res);
        let orig_namespace =
            openapi::is_namespaced(&orig_gvk.group, &orig_gvk.version, &orig_gvk.kind)
                .then(|| orig.effective_namespace().to_string());
        Target {
            cluster_scoped: !openapi::is_namespaced(&id.gvk.group, &id.gvk.version, &id.gvk.kind),
            id,
            prev_kinds,
            prev_names,
            orig_gvk,
            orig_namespace,
            prefixes: res.name_prefixes.clone(),
            suffixes: res.name_suffixes.clone(),
        }
    }

    /// Whether a previous id is selected by `sel` (empty parts match any).
    fn was_a(&self, group: &str, version: &str, kind: &str) -> bool {
        self.id.gvk.selected_by(group, version, "")
            && self.prev_kinds.iter().any(|k| kind.is_empty() || k == kind)
    }

    /// The current effective namespace; `None` when cluster-scoped.
    fn namespace(&self) -> Option<&str> {
        (!self.cluster_scoped).then(|| self.id.effective_namespace())
    }

    /// Whether both were renamed with the same prefixes and suffixes, one
    /// list being the end of the other; with `allow_empty`, a list that is
    /// empty on either side matches anything.
    fn same_affixes(&self, other: &Target, allow_empty: bool) -> bool {
        affixes_match(&self.prefixes, &other.prefixes, allow_empty)
            && affixes_match(&self.suffixes, &other.suffixes, allow_empty)
    }
}

fn affixes_match(a: &[String], b: &[String], allow_empty: bool) -> bool {
    (allow_empty && (a.is_empty() || b.is_empty())) || same_ending(a, b)
}

/// Whether the shorter list ends the longer one (two empty lists do; an
/// empty and a non-empty one do not).
fn same_ending(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.is_empty();
    }
    long.ends_with(short)
}

/// All resources, and the lookups the transformer needs, built once. The lookups are
/// keyed by the targets' own names and namespaces (a copy of each cost an allocation,
/// about a millisecond on one thread for 1,500 resources).
struct Index<'t> {
    targets: &'t [Target],
    /// The resources that had each name.
    by_prev_name: HashMap<&'t str, HadName<'t>>,
    /// For each original effective namespace, the (cluster-scoped, current
    /// namespace) pairs of the resources originally there.
    orig_namespaces: HashMap<&'t str, HashSet<(bool, &'t str)>>,
}

impl<'t> Index<'t> {
    fn new(targets: &'t [Target]) -> Index<'t> {
        let mut by_prev_name: HashMap<&str, HadName> = HashMap::new();
        let mut orig_namespaces: HashMap<&str, HashSet<(bool, &str)>> = HashMap::new();
        for (i, t) in targets.iter().enumerate() {
            for name in &t.prev_names {
                by_prev_name.entry(name.as_str()).or_default().add(i, t);
            }
            if let Some(ns) = &t.orig_namespace {
                orig_namespaces
                    .entry(ns.as_str())
                    .or_default()
                    .insert((t.cluster_scoped, t.id.namespace.as_str()));
            }
        }
        Index {
            targets,
            by_prev_name,
            orig_namespaces,
        }
    }
}

/// Positions (in resource order) of the resources that had one name, also
/// split by scope so that a namespaced referrer only looks at those it may
/// see: with many bases reusing names, the full list can be long.
#[derive(Default)]
struct HadName<'t> {
    all: Vec<usize>,
    cluster_scoped: Vec<usize>,
    /// By current effective namespace.
    by_namespace: HashMap<&'t str, Vec<usize>>,
}

impl<'t> HadName<'t> {
    fn add(&mut self, i: usize, t: &'t Target) {
        self.all.push(i);
        match t.namespace() {
            None => self.cluster_scoped.push(i),
            Some(ns) => self.by_namespace.entry(ns).or_default().push(i),
        }
    }

    /// Those a referrer may see (see `Referrer::sees`), in resource order.
    fn visible_to(&self, r: &Referrer) -> Cow<'_, [usize]> {
        if r.me.cluster_scoped {
            return Cow::Borrowed(&self.all);
        }
        let in_ns = |ns: &str| self.by_namespace.get(ns).map_or(&[][..], Vec::as_slice);
        let own = in_ns(r.me.id.effective_namespace());
        if self.cluster_scoped.is_empty() && r.subject_namespaces.is_empty() {
            return Cow::Borrowed(own);
        }
        let mut v = self.cluster_scoped.clone();
        v.extend_from_slice(own);
        for ns in &r.subject_namespaces {
            v.extend_from_slice(in_ns(effective(ns)));
        }
        v.sort_unstable();
        v.dedup();
        Cow::Owned(v)
    }
}

/// A resource whose fields may hold names, with what the search needs to
/// know about it.
struct Referrer<'i> {
    index: &'i Index<'i>,
    me: &'i Target,
    /// Namespaces of a RoleBinding's ServiceAccount subjects: resources
    /// there are visible to it as well.
    subject_namespaces: HashSet<String>,
    /// The roleRef's (apiGroup, kind), when it has both.
    role_ref: Option<Gvk>,
}

/// Which candidates a reference may resolve to.
#[derive(Clone, Copy)]
enum Pool<'a> {
    /// Every resource the referrer sees.
    Visible,
    /// Those originally in this namespace.
    OrigNamespace(&'a str),
    /// Those now in this namespace.
    Namespace(&'a str),
}

impl<'i> Referrer<'i> {
    fn new(i: usize, res: &Resource, index: &'i Index<'i>) -> Result<Referrer<'i>> {
        let me = &index.targets[i];
        let subject_namespaces = if me.cluster_scoped {
            HashSet::new()
        } else {
            subject_namespaces(res, me)?
        };
        Ok(Referrer {
            index,
            me,
            subject_namespaces,
            role_ref: role_ref_gvk(res.node()),
        })
    }

    /// Whether a resource with this scope and (raw) namespace is visible.
    fn sees(&self, cluster_scoped: bool, namespace: &str) -> bool {
        self.me.cluster_scoped
            || cluster_scoped
            || effective(namespace) == self.me.id.effective_namespace()
            || self.subject_namespaces.contains(namespace)
    }

    fn in_pool(&self, t: &Target, pool: Pool) -> bool {
        self.sees(t.cluster_scoped, &t.id.namespace)
            && match pool {
                Pool::Visible => true,
                Pool::OrigNamespace(ns) => t.orig_namespace.as_deref() == Some(ns),
                Pool::Namespace(ns) => t.namespace() == Some(ns),
            }
    }

    /// Whether a name reference can point at `t` at all: kustomize lets a
    /// namespaced referrer reach ServiceAccounts and cluster-scoped
    /// resources anywhere, anything else only in its own namespace.
    fn may_refer_to(&self, t: &Target) -> bool {
        self.me.cluster_scoped
            || t.cluster_scoped
            || t.id.gvk.kind == "ServiceAccount"
            || t.id.effective_namespace() == self.me.id.effective_namespace()
    }

    /// Applies the filter to a node its path reached.
    fn set(&self, node: &mut Node, f: &Filter) -> Result<()> {
        match node {
            Node::Null => Ok(()),
            Node::Map(m) => self.set_mapping(m, f),
            Node::Seq(items) => {
                for item in items {
                    match item {
                        Node::Null => {}
                        Node::Map(m) => self.set_mapping(m, f)?,
                        Node::Seq(_) => {
                            return Err(Error::invalid_config(
                                "expected names or mappings with a name in the list, found a list",
                            ));
                        }
                        scalar => self.set_scalar(scalar, f)?,
                    }
                }
                Ok(())
            }
            scalar => self.set_scalar(scalar, f),
        }
    }

    /// A field holding a name.
    fn set_scalar(&self, node: &mut Node, f: &Filter) -> Result<()> {
        let Some(old) = node.scalar_string() else {
            return Ok(());
        };
        let Some(t) = self.select(&old, f, Pool::Visible, false)? else {
            return Ok(());
        };
        if t.id.name != old {
            *node = Node::text(t.id.name.clone());
        }
        Ok(())
    }

    /// A mapping with a `name` and maybe a `namespace` (role-binding
    /// subjects, webhook services): both follow the referral.
    fn set_mapping(&self, m: &mut Map, f: &Filter) -> Result<()> {
        let Some(name) = m.get("name") else {
            return Err(Error::invalid_config(format!(
                "expected a 'name' field in the mappings at '{}' (a name reference field spec must lead to names or to mappings holding one)",
                f.spec.path
            )));
        };
        let old = name.scalar_string().unwrap_or_default();
        let namespace = m
            .get("namespace")
            .map(|n| n.scalar_string().unwrap_or_default());
        let pool = match namespace.as_deref() {
            None => Pool::Visible,
            Some(ns) if self.sees_orig_namespace(ns) => Pool::OrigNamespace(ns),
            Some(ns) => Pool::Namespace(ns),
        };
        let Some(t) = self.select(&old, f, pool, true)? else {
            return Ok(());
        };
        if t.id.name == old && t.id.namespace.is_empty() {
            return Ok(());
        }
        m.insert("name".to_string(), Node::text(t.id.name.clone()));
        // An empty namespace stands for any, so it does not replace one
        // (such as "default") written in the reference.
        if !t.id.namespace.is_empty() {
            m.insert("namespace".to_string(), Node::text(t.id.namespace.clone()));
        }
        Ok(())
    }

    /// Whether the referrer sees a resource originally in namespace `ns`.
    fn sees_orig_namespace(&self, ns: &str) -> bool {
        self.index
            .orig_namespaces
            .get(ns)
            .is_some_and(|set| set.iter().any(|(cs, cur)| self.sees(*cs, cur)))
    }

    /// kustomize's choice of referral for the name `old` (see the module
    /// comment); `by_namespace_too` when the reference takes the namespace as
    /// well, so candidates differing only in namespace are not the same.
    fn select(
        &self,
        old: &str,
        f: &Filter,
        pool: Pool,
        by_namespace_too: bool,
    ) -> Result<Option<&'i Target>> {
        let index = self.index;
        let Some(had_name) = index.by_prev_name.get(old) else {
            return Ok(None);
        };
        let role_ref = if f.role_ref {
            self.role_ref.as_ref()
        } else {
            None
        };
        let candidates: Vec<&Target> = had_name
            .visible_to(self)
            .iter()
            .map(|&c| &index.targets[c])
            .filter(|t| {
                self.in_pool(t, pool)
                    && t.was_a(&f.target.group, &f.target.version, &f.target.kind)
                    && role_ref.is_none_or(|g| t.was_a(&g.group, &g.version, &g.kind))
                    && self.may_refer_to(t)
            })
            .collect();
        if candidates.len() == 1 {
            return Ok(Some(candidates[0]));
        }
        // First leniently (an empty list matches any), then, if that leaves
        // several, strictly, as kustomize v5.5.0 does.
        let mut candidates: Vec<&Target> = candidates
            .into_iter()
            .filter(|t| t.same_affixes(self.me, true))
            .collect();
        if candidates.len() > 1 {
            candidates.retain(|t| t.same_affixes(self.me, false));
        }
        if candidates.len() == 1 {
            return Ok(Some(candidates[0]));
        }
        let Some(first) = candidates.first() else {
            return Ok(None);
        };
        let same = |t: &&Target| {
            t.id.name == first.id.name
                && (!by_namespace_too || t.id.namespace == first.id.namespace)
        };
        if candidates.iter().all(same) {
            return Ok(Some(first));
        }
        let ids: Vec<String> = candidates.iter().map(|t| t.id.to_string()).collect();
        let fix = if by_namespace_too {
            "add the namespace to the reference or give them distinct names"
        } else {
            "give them distinct names (e.g. different name prefixes)"
        };
        // A context, not a plain message, so the field walk does not prefix it.
        Err(Error::no_match(
            candidates.len(),
            format!("they were all once named '{old}': {fix}"),
        )
        .context(format!(
            "found multiple possible referrals for '{old}': {}",
            ids.join(", ")
        )))
    }
}

/// A namespace as kustomize compares them ("" is "default").
fn effective(namespace: &str) -> &str {
    if namespace.is_empty() {
        "default"
    } else {
        namespace
    }
}

/// The namespaces of a RoleBinding's ServiceAccount subjects.
fn subject_namespaces(res: &Resource, me: &Target) -> Result<HashSet<String>> {
    let mut out = HashSet::new();
    if me.id.gvk.kind != "RoleBinding" {
        return Ok(out);
    }
    let Some(Node::Seq(subjects)) = res.node().get("subjects") else {
        return Ok(out);
    };
    for s in subjects {
        let (Some(ns), Some(kind)) = (s.get("namespace"), s.get("kind")) else {
            continue;
        };
        if kind.as_str() != Some("ServiceAccount") {
            continue;
        }
        match ns {
            Node::Str(ns) => {
                out.insert(ns.to_string());
            }
            other => {
                return Err(Error::invalid_resource(format!(
                    "a ServiceAccount subject of {} has a {} namespace; write the namespace as a string",
                    me.id,
                    other.type_name()
                )));
            }
        }
    }
    Ok(out)
}

/// The roleRef's apiGroup and kind, when both are there.
fn role_ref_gvk(node: &Node) -> Option<Gvk> {
    let role_ref = node.get("roleRef")?;
    Some(Gvk {
        group: role_ref
            .get("apiGroup")?
            .scalar_string()
            .unwrap_or_default()
            .into(),
        version: Default::default(),
        kind: role_ref
            .get("kind")?
            .scalar_string()
            .unwrap_or_default()
            .into(),
    })
}

#[cfg(test)]
#[path = "name_reference_tests.rs"]
mod tests;
