//! Label and annotation values that kustomize shares between fields of a resource.
//!
//! kustomize's LabelTransformer and AnnotationsTransformer (behind `commonLabels`,
//! `labels`, `commonAnnotations` and their `transformers:` configs) make one YAML node
//! per resource and key, and put that very node into every field where they add the key
//! (kyaml's `FieldSetter` appends the value node it is given, it does not copy it). So
//! `commonLabels: {track: old}` on a Deployment that had no `track` leaves one node in
//! `metadata.labels`, `spec.selector.matchLabels` and `spec.template.metadata.labels`.
//! Where the key was already there, kustomize copies the value into the existing node
//! instead, and that field shares nothing.
//!
//! A later writer that changes one of the fields *in place* changes the node, and so
//! all of them: another label transformer (a `labels` entry without `includeSelectors`,
//! in the same kustomization or an overlay), a strategic-merge patch, a replacement. A
//! selector is immutable on a Deployment, so kbuild must reproduce this. Writers that
//! put new nodes in place end the sharing: a JSON patch (kustomize re-reads the whole
//! resource from JSON), a strategic-merge patch that replaces or deletes a mapping or a
//! list on the way (`$patch: replace`, a list without merge key), a replacement whose
//! target is a mapping, a generator's `behavior: merge` or `replace` (the generated
//! resource takes the old one's labels and annotations as new mappings), and, for
//! annotations only, kustomize's rewrite of the annotation mapping after every
//! transformer when the top kustomization has `buildMetadata`. YAML anchors in the
//! input share nothing: kustomize copies them apart when it reads a resource.
//!
//! kbuild's tree owns its values, so a resource records which fields hold one shared
//! value ([`Shared`]), and the writers above call [`Shared::write_through`] after
//! changing one of them, or end the sharing. Known gaps, for want of a case that
//! needs them: a strategic-merge patch that merges a list with a merge key on the way
//! to a shared field ends the sharing here (kyaml keeps the element's node, possibly
//! at another position); a replacement whose one field path reaches two fields of a
//! group writes through after both, not after each (visible only with
//! `options.delimiter`).

use crate::yaml::Node;
use crate::yaml::node::Str;
use crate::yaml::parse::PathStep;

/// One step of a field's path from the resource's root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A mapping key.
    Key(Str),
    /// A position in a sequence.
    Index(usize),
}

/// A step borrowed from a walk in progress (walks keep a stack of these and make a
/// [`Trail`] only for the fields they record).
#[derive(Clone, Copy, Debug)]
pub enum StepRef<'a> {
    /// A mapping key.
    Key(&'a str),
    /// A position in a sequence.
    Index(usize),
}

/// A field's path from the resource's root.
pub type Trail = Vec<Step>;

/// An owned copy of a walk's path, with `key` appended when given.
pub fn trail_of(steps: &[StepRef<'_>], key: Option<&str>) -> Trail {
    let mut t = Vec::with_capacity(steps.len() + usize::from(key.is_some()));
    t.extend(steps.iter().map(|s| match *s {
        StepRef::Key(k) => Step::Key(Str::from(k)),
        StepRef::Index(i) => Step::Index(i),
    }));
    if let Some(k) = key {
        t.push(Step::Key(Str::from(k)));
    }
    t
}

/// The field at `trail` of `node`, named as provenance names it (list elements by a
/// distinct `name`, else by position); `None` when `node` does not have it.
pub fn field_path(node: &Node, trail: &[Step]) -> Option<crate::provenance::FieldPath> {
    use crate::provenance::{FieldPath, Part};
    let parts = trail
        .iter()
        .map(|s| match s {
            Step::Key(k) => Part::Key(k.clone()),
            Step::Index(i) => Part::Index(*i),
        })
        .collect();
    FieldPath(parts).canonical(node)
}

/// An owned copy of a path as the replacement walk keeps it.
pub fn trail_of_path(steps: &[PathStep]) -> Trail {
    steps
        .iter()
        .map(|s| match s {
            PathStep::Key(k) => Step::Key(Str::from(k.as_str())),
            PathStep::Index(i) => Step::Index(*i),
        })
        .collect()
}

/// The path of mapping keys `keys`.
pub fn keys(keys: &[&str]) -> Trail {
    keys.iter().map(|k| Step::Key(Str::from(*k))).collect()
}

/// Groups of fields of one resource that hold one value in kustomize (each group has
/// at least two fields; a field is in at most one group).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shared {
    groups: Vec<Vec<Trail>>,
}

/// What a strategic-merge patch does to a shared field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PatchEffect {
    /// The patch does not reach it.
    Untouched,
    /// The patch writes a scalar into it, in place.
    Set,
    /// The patch removes it, or replaces a mapping or list on the way.
    Ends,
}

/// What [`Shared::plan_patch`] saw before a strategic-merge patch: each group's value
/// and what the patch does to each of its fields.
pub struct PatchPlan {
    groups: Vec<(Option<Node>, Vec<PatchEffect>)>,
}

impl Shared {
    /// Whether no fields are shared (true of nearly every resource: the checks below
    /// cost nothing then).
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Records that `fields` (two or more) now hold one value; they leave any group
    /// they were in.
    pub fn add(&mut self, fields: Vec<Trail>) {
        if fields.len() < 2 {
            return;
        }
        self.retain(|t| !fields.contains(t));
        self.groups.push(fields);
    }

    /// Ends the sharing of every field.
    pub fn clear(&mut self) {
        self.groups.clear();
    }

    /// Ends the sharing of the fields at or below `prefix` (a writer replaced the node
    /// there with a new one).
    pub fn forget_under(&mut self, prefix: &[Step]) {
        if self.is_empty() {
            return;
        }
        self.retain(|t| !starts_with(t, prefix));
    }

    /// After a writer changed the field `at` in place (it held `old`), gives the
    /// fields sharing its value the new value. A field that holds neither `old` nor the
    /// new value (which the same writer may have put there already) was replaced by a
    /// writer that does not share, or is gone: it leaves the group.
    pub fn write_through(&mut self, node: &mut Node, at: &[Step], old: &Node) {
        let Some(g) = self.groups.iter().position(|g| g.iter().any(|t| t == at)) else {
            return;
        };
        let Some(value) = get(node, at).cloned() else {
            return;
        };
        self.groups[g].retain(|t| {
            if t == at {
                return true;
            }
            match get_mut(node, t) {
                Some(n) if *n == value => true,
                Some(n) if n == old => {
                    n.clone_from(&value);
                    true
                }
                _ => false,
            }
        });
        if self.groups[g].len() < 2 {
            self.groups.swap_remove(g);
        }
    }

    /// Before a strategic-merge patch of the resource `node`: what `patch` will do to
    /// each shared field. Pass the plan to [`Shared::finish_patch`] after merging.
    pub fn plan_patch(&self, node: &Node, patch: &Node) -> PatchPlan {
        PatchPlan {
            groups: self
                .groups
                .iter()
                .map(|g| {
                    let before = g.iter().find_map(|t| get(node, t)).cloned();
                    (before, g.iter().map(|t| patch_effect(patch, t)).collect())
                })
                .collect(),
        }
    }

    /// After a strategic-merge patch: fields the patch removed or replaced leave their
    /// group; where it wrote into a shared field, the others take that value. kyaml's
    /// merge walks mapping keys in sorted order, so when the patch writes several
    /// fields of a group, the one last in that order is the value left.
    pub fn finish_patch(&mut self, node: &mut Node, plan: PatchPlan) {
        let mut groups = Vec::with_capacity(self.groups.len());
        for (fields, (before, effects)) in std::mem::take(&mut self.groups)
            .into_iter()
            .zip(plan.groups)
        {
            if effects.iter().all(|e| *e == PatchEffect::Untouched) {
                groups.push(fields);
                continue;
            }
            let value = fields
                .iter()
                .zip(&effects)
                .filter(|(_, e)| **e == PatchEffect::Set)
                .map(|(t, _)| t)
                .max_by(|a, b| walk_order(a, b))
                .and_then(|t| get(node, t))
                .cloned();
            let mut kept = Vec::with_capacity(fields.len());
            for (t, e) in fields.into_iter().zip(effects) {
                let keep = match e {
                    PatchEffect::Ends => false,
                    PatchEffect::Set => true,
                    PatchEffect::Untouched => before.is_some() && get(node, &t) == before.as_ref(),
                };
                if keep {
                    kept.push(t);
                }
            }
            if let Some(v) = &value {
                for t in &kept {
                    if let Some(n) = get_mut(node, t) {
                        n.clone_from(v);
                    }
                }
            }
            if kept.len() >= 2 {
                groups.push(kept);
            }
        }
        self.groups = groups;
    }

    fn retain(&mut self, mut keep: impl FnMut(&Trail) -> bool) {
        for g in &mut self.groups {
            g.retain(&mut keep);
        }
        self.groups.retain(|g| g.len() >= 2);
    }
}

fn starts_with(t: &[Step], prefix: &[Step]) -> bool {
    t.len() >= prefix.len() && t.iter().zip(prefix).all(|(a, b)| a == b)
}

/// The node at `t`.
fn get<'n>(node: &'n Node, t: &[Step]) -> Option<&'n Node> {
    t.iter().try_fold(node, |n, s| match s {
        Step::Key(k) => n.get(k),
        Step::Index(i) => n.as_seq().and_then(|items| items.get(*i)),
    })
}

/// The node at `t`, to change in place.
fn get_mut<'n>(node: &'n mut Node, t: &[Step]) -> Option<&'n mut Node> {
    t.iter().try_fold(node, |n, s| match s {
        Step::Key(k) => n.get_mut(k),
        Step::Index(i) => n.as_seq_mut().and_then(|items| items.get_mut(*i)),
    })
}

/// The order in which kyaml's merge reaches two fields: mapping keys sorted as bytes.
fn walk_order(a: &Trail, b: &Trail) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (Step::Key(x), Step::Key(y)) => x.as_bytes().cmp(y.as_bytes()),
            (Step::Index(x), Step::Index(y)) => x.cmp(y),
            (Step::Key(_), Step::Index(_)) => std::cmp::Ordering::Greater,
            (Step::Index(_), Step::Key(_)) => std::cmp::Ordering::Less,
        };
        if o.is_ne() {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// What a strategic-merge patch does to the field at `t`, following kyaml's merge:
/// mappings merge in place (so a scalar the patch gives is written into the existing
/// node), `$patch: replace` and `$patch: delete` put new nodes in place or none, a
/// `null` removes the field, and lists are merged or replaced element by element; a
/// patch that reaches into a list on the way is taken to end the sharing (kbuild does
/// not follow elements that move).
fn patch_effect(patch: &Node, t: &[Step]) -> PatchEffect {
    let mut cur = patch;
    for step in t {
        let (Node::Map(m), Step::Key(k)) = (cur, step) else {
            return PatchEffect::Ends;
        };
        if matches!(
            m.get("$patch").and_then(Node::as_str),
            Some("replace" | "delete")
        ) {
            return PatchEffect::Ends;
        }
        match m.get(k) {
            None => return PatchEffect::Untouched,
            Some(v) => cur = v,
        }
    }
    match cur {
        Node::Null | Node::Map(_) | Node::Seq(_) => PatchEffect::Ends,
        _ => PatchEffect::Set,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::yaml::parse::first_doc as yaml;

    fn trail(path: &str) -> Trail {
        path.split('/')
            .map(|s| match s.parse() {
                Ok(i) => Step::Index(i),
                Err(_) => Step::Key(Str::from(s)),
            })
            .collect()
    }

    fn deployment() -> (Node, Shared) {
        let node = yaml(
            "metadata: {labels: {track: old}}\nspec:\n  selector: {matchLabels: {track: old}}\n  template: {metadata: {labels: {track: old}}}\n",
        );
        let mut shared = Shared::default();
        shared.add(vec![
            trail("metadata/labels/track"),
            trail("spec/selector/matchLabels/track"),
            trail("spec/template/metadata/labels/track"),
        ]);
        (node, shared)
    }

    fn value<'n>(node: &'n Node, path: &str) -> Option<&'n str> {
        get(node, &trail(path)).and_then(Node::as_str)
    }

    #[test]
    fn a_write_reaches_every_field_of_the_group() {
        let (mut node, mut shared) = deployment();
        let at = trail("metadata/labels/track");
        *get_mut(&mut node, &at).unwrap() = Node::text("new");
        shared.write_through(&mut node, &at, &Node::text("old"));
        assert_eq!(value(&node, "spec/selector/matchLabels/track"), Some("new"));
        assert_eq!(
            value(&node, "spec/template/metadata/labels/track"),
            Some("new")
        );
        assert!(!shared.is_empty());
    }

    #[test]
    fn a_field_changed_behind_the_groups_back_leaves_it() {
        let (mut node, mut shared) = deployment();
        *get_mut(&mut node, &trail("spec/template/metadata/labels/track")).unwrap() =
            Node::text("other");
        let at = trail("metadata/labels/track");
        *get_mut(&mut node, &at).unwrap() = Node::text("new");
        shared.write_through(&mut node, &at, &Node::text("old"));
        assert_eq!(value(&node, "spec/selector/matchLabels/track"), Some("new"));
        assert_eq!(
            value(&node, "spec/template/metadata/labels/track"),
            Some("other")
        );
        assert_eq!(shared.groups[0].len(), 2);
    }

    #[test]
    fn a_field_the_writer_already_changed_stays() {
        let (mut node, mut shared) = deployment();
        for path in ["metadata/labels/track", "spec/selector/matchLabels/track"] {
            *get_mut(&mut node, &trail(path)).unwrap() = Node::text("new");
        }
        let at = trail("metadata/labels/track");
        shared.write_through(&mut node, &at, &Node::text("old"));
        assert_eq!(
            value(&node, "spec/template/metadata/labels/track"),
            Some("new")
        );
        assert_eq!(shared.groups[0].len(), 3);
    }

    #[test]
    fn forgetting_a_subtree_dissolves_groups_left_with_one_field() {
        let (_, mut shared) = deployment();
        shared.forget_under(&trail("spec"));
        assert!(shared.is_empty());
    }

    #[test]
    fn patch_effects_follow_kyaml() {
        let p = yaml(
            "metadata:\n  labels: {track: new, gone: null}\nspec:\n  template:\n    metadata:\n      labels: {$patch: replace, a: b}\n  list: [x]\n",
        );
        let e = |path: &str| patch_effect(&p, &trail(path));
        assert_eq!(e("metadata/labels/track"), PatchEffect::Set);
        assert_eq!(e("metadata/labels/gone"), PatchEffect::Ends);
        assert_eq!(e("metadata/labels/other"), PatchEffect::Untouched);
        assert_eq!(e("spec/selector/matchLabels/track"), PatchEffect::Untouched);
        assert_eq!(e("spec/template/metadata/labels/track"), PatchEffect::Ends);
        assert_eq!(e("spec/list/0/track"), PatchEffect::Ends);
    }

    #[test]
    fn the_last_field_a_patch_writes_in_walk_order_wins() {
        let (mut node, mut shared) = deployment();
        let p =
            yaml("metadata: {labels: {track: m}}\nspec: {selector: {matchLabels: {track: s}}}\n");
        let plan = shared.plan_patch(&node, &p);
        *get_mut(&mut node, &trail("metadata/labels/track")).unwrap() = Node::text("m");
        *get_mut(&mut node, &trail("spec/selector/matchLabels/track")).unwrap() = Node::text("s");
        shared.finish_patch(&mut node, plan);
        for path in [
            "metadata/labels/track",
            "spec/selector/matchLabels/track",
            "spec/template/metadata/labels/track",
        ] {
            assert_eq!(value(&node, path), Some("s"), "{path}");
        }
    }
}
