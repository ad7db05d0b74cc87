//! Where every field of the output came from: the record `kbuild explain` and
//! `kbuild build --provenance` read.
//!
//! A resource built with provenance on carries a [`Provenance`]: the source it was read or
//! generated from, and the steps that changed it, oldest first, each with the leaves it
//! changed ([`diff`]: found by comparing the resource before and after the step, so every
//! transformer, patch kind and plugin is covered alike). Copies of a resource (a base shared
//! by two overlays) carry their own record, as they carry their own fields.
//!
//! The step a resource came from (read from a file, made by a generator) keeps the
//! resource as it made it ([`Step::created`]) rather than one [`Change`] per leaf: the
//! leaves are listed when a report asks ([`Provenance::links`]), and the provenance
//! document reads them beside the output's leaves without listing them at all.
//!
//! Positions are not kept while building: a record names files and document indexes, and
//! the lines and columns are found when a report is made, by reading the file again
//! ([`crate::yaml::locate::Located`]; the document of a whole build parses each file once,
//! for all its threads). A build without provenance pays one pointer and a touched mark
//! per resource.

pub mod diff;
pub mod only;
pub mod path;
pub(crate) mod writes;

use crate::yaml::Node;
pub use diff::Change;
pub use only::Only;
pub use path::{FieldPath, Part};
use std::borrow::Cow;
use std::path::PathBuf;

/// The file a step wrote its values from: a resource file, a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The file's path, or the URL of a remote file (credentials redacted).
    pub file: PathBuf,
    /// The 0-based document of a multi-document file, when known.
    pub document: Option<usize>,
    /// The kind and name of the resource as the file writes it, to find its document in
    /// a stream when the index is not known.
    pub identity: Option<(String, String)>,
    /// Which of the documents with that kind and name (0: the first): a stream may hold
    /// two, in different namespaces.
    pub nth: usize,
}

/// The entry of a kustomization file that configured a step: `patches[1]`, `images[0]`,
/// `namePrefix`, `replacements[2]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The kustomization (or transformer configuration) file.
    pub file: PathBuf,
    /// The field and index.
    pub place: crate::kustomization::files::Place,
}

/// What kind of step changed a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// Read from a resource file.
    Source,
    /// Made by a generator (`configMapGenerator`, `secretGenerator`, helm, a plugin), or
    /// replaced by one (`behavior: replace`).
    Generate,
    /// Merged into by a generator with `behavior: merge`.
    GenerateMerge,
    /// A built-in transformer from a kustomization field (`images`, `namePrefix`,
    /// `labels`, `namespace`, `replicas`, ...).
    Transform,
    /// A strategic-merge patch.
    Merge,
    /// A JSON 6902 patch.
    JsonPatch,
    /// A replacement.
    Replace,
    /// A var substituted.
    Substitute,
    /// The name hash of a generated resource.
    Hash,
    /// A name reference updated after a rename.
    NameReference,
    /// A transformer plugin (exec, container, KRM function).
    Plugin,
}

impl StepKind {
    /// The word `explain` prints and the provenance JSON holds.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Source => "source",
            StepKind::Generate => "generate",
            StepKind::GenerateMerge => "generate-merge",
            StepKind::Transform => "transform",
            StepKind::Merge => "merge",
            StepKind::JsonPatch => "json-patch",
            StepKind::Replace => "replace",
            StepKind::Substitute => "substitute",
            StepKind::Hash => "hash",
            StepKind::NameReference => "name-reference",
            StepKind::Plugin => "plugin",
        }
    }
}

/// What a step is: its kind and what configured it. One for all the resources the step
/// changed, shared by their records (a build's records hold a step for every resource a
/// transformer changed, and this was most of each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// What kind of step.
    pub kind: StepKind,
    /// The entry that configured it (`None` for the steps kustomize runs on its own: name
    /// hashes, name references).
    pub entry: Option<Entry>,
    /// The file whose text the step wrote (a patch file, the resource file for
    /// [`StepKind::Source`], a `transformers:` config), when there is one.
    pub wrote: Option<Written>,
    /// For a transformer's step, the transformer as kustomize's `transformerAnnotations`
    /// name it (`configuredBy.kind`: `PatchTransformer`, `ImageTagTransformer`, a
    /// plugin's kind), so a record can be checked against kustomize's annotation.
    pub transformer: Option<String>,
}

/// One step that changed a resource: what the step is (its [`Action`], read through the
/// step: `step.kind`) and what it changed in this resource.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// What the step is.
    pub action: std::sync::Arc<Action>,
    /// The leaves it changed, each named as it was named right after the step (empty
    /// for a step that made the resource: see `created`).
    pub changes: Vec<Change>,
    /// For the step a resource came from (read from a file, made by a generator): the
    /// resource as the step made it. The step set every leaf of it; those changes are
    /// found when a report asks ([`Step::all_changes`]), not kept one per leaf while
    /// building, which took most of the memory a record held (a path per leaf). Shared
    /// by the copies of the resource (a base two overlays list).
    pub created: Option<std::sync::Arc<Node>>,
    /// The list elements it renamed in place (a name reference, a prefix): earlier steps
    /// name their fields by the old name.
    pub renames: Vec<diff::Rename>,
}

/// The record of one resource.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Provenance {
    /// The steps, oldest first; the first is where the resource came from.
    pub steps: Vec<Step>,
    /// The resource as the last recorded step left it, for the build to compare the next
    /// step's result with: kept here, a step that leaves a resource alone costs one
    /// comparison, where copying every resource before each step cost a copy, the
    /// comparison and freeing the copy.
    pub(crate) seen: Node,
    /// The fields the step running now wrote, whatever their value (see `writes.rs`),
    /// taken when the step is recorded.
    pub(crate) written: Vec<FieldPath>,
}

/// One step in the chain of one field, as a report lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Link<'p> {
    /// The step.
    pub step: &'p Step,
    /// What it did to the field (made when asked for, for the step that made the
    /// resource: see [`Step::created`]).
    pub change: Cow<'p, Change>,
}

impl std::ops::Deref for Step {
    type Target = Action;

    fn deref(&self) -> &Action {
        &self.action
    }
}

impl Step {
    /// The leaves the step changed, each named as it was named right after the step:
    /// for the step that made the resource, every leaf of it, in document order.
    pub fn all_changes(&self) -> Cow<'_, [Change]> {
        match &self.created {
            Some(node) => Cow::Owned(diff::created(node)),
            None => Cow::Borrowed(&self.changes),
        }
    }
}

impl Provenance {
    /// Adds a step, when it changed anything.
    pub fn record(&mut self, step: Step) {
        if !step.changes.is_empty() || step.created.is_some() {
            self.steps.push(step);
        }
    }

    /// Adds a step whatever it changed: a generator that replaced the resource is its
    /// origin even when the content came out equal.
    pub fn record_always(&mut self, step: Step) {
        self.steps.push(step);
    }

    /// The steps that changed `field` or a field below it, oldest first, each with its
    /// change.
    pub fn chain(&self, field: &FieldPath) -> Vec<Link<'_>> {
        self.links()
            .into_iter()
            .filter(|(path, _, _)| path.starts_with(field))
            .map(|(_, _, link)| link)
            .collect()
    }

    /// Every change of every step, oldest first, with the path of its field as the
    /// resource names it now (an element a later step renamed is under its new name;
    /// the change keeps the name it had then, by which its file writes it).
    /// Each comes with the index of its step.
    pub fn links(&self) -> Vec<(Cow<'_, FieldPath>, usize, Link<'_>)> {
        let mut by_step = Vec::with_capacity(self.steps.len());
        // The renames of each step after the one at hand, in the order they were made.
        let mut later: Vec<&[diff::Rename]> = Vec::new();
        for (i, step) in self.steps.iter().enumerate().rev() {
            let links: Vec<_> = match &step.created {
                // Made by the step: every leaf, found now (see `Step::created`).
                Some(node) => diff::created(node)
                    .into_iter()
                    .map(|change| {
                        let path = Cow::Owned(renamed(&change.path, &later).into_owned());
                        let change = Cow::Owned(change);
                        (path, i, Link { step, change })
                    })
                    .collect(),
                None => step
                    .changes
                    .iter()
                    .map(|change| {
                        let path = renamed(&change.path, &later);
                        (
                            path,
                            i,
                            Link {
                                step,
                                change: Cow::Borrowed(change),
                            },
                        )
                    })
                    .collect(),
            };
            by_step.push(links);
            if !step.renames.is_empty() {
                later.insert(0, &step.renames);
            }
        }
        by_step.into_iter().rev().flatten().collect()
    }

    /// Where the resource itself comes from, as kustomize's `config.kubernetes.io/origin`
    /// says it: the file it was read from, or the generator that made it, or the last
    /// generator that replaced it (`behavior: replace`; one that merges into it leaves the
    /// origin as it was).
    pub fn origin(&self) -> Option<&Step> {
        let first = self.steps.first()?;
        match first.kind {
            StepKind::Generate => self.steps.iter().rfind(|s| s.kind == StepKind::Generate),
            _ => Some(first),
        }
    }

    /// The last step that set each field (exactly that leaf): [`Self::last`] of every
    /// field at once, for the cost of one.
    pub fn lasts(&self) -> std::collections::HashMap<Cow<'_, FieldPath>, Link<'_>> {
        // Oldest first: a later step's link replaces an earlier one's.
        self.links()
            .into_iter()
            .map(|(path, _, link)| (path, link))
            .collect()
    }

    /// The last step that set `field` (exactly that leaf), if any did.
    pub fn last(&self, field: &FieldPath) -> Option<Link<'_>> {
        self.links()
            .into_iter()
            .rev()
            .find(|(path, _, _)| path.as_ref() == field)
            .map(|(_, _, link)| link)
    }
}

/// `path` after the renames `later` (each step's, in the order they were made). Within
/// a step, an element renamed inside a renamed element (a longer `from`, written with
/// the outer element's new name) is renamed too, but of the renames at one depth only
/// one applies: elements that moved by one place each (`ports.0` to `ports.1`, `ports.1`
/// to `ports.2`) are renamed at once, not one after the other.
fn renamed<'p>(path: &'p FieldPath, later: &[&[diff::Rename]]) -> Cow<'p, FieldPath> {
    let mut path = Cow::Borrowed(path);
    for renames in later {
        let mut depths: Vec<usize> = Vec::new();
        for rename in renames.iter() {
            let depth = rename.from.0.len();
            if !depths.contains(&depth) && path.starts_with(&rename.from) {
                path.to_mut().0.splice(..depth, rename.to.0.iter().cloned());
                depths.push(depth);
            }
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> FieldPath {
        FieldPath(
            text.split('.')
                .map(|p| match p.parse() {
                    Ok(i) => Part::Index(i),
                    Err(_) => Part::Key(p.into()),
                })
                .collect(),
        )
    }

    #[test]
    fn a_step_moves_elements_at_one_depth_at_once() {
        // Each element moved one place down: ports.0 is ports.1 now, not ports.2.
        let shift = [
            diff::Rename {
                from: path("ports.0"),
                to: path("ports.1"),
            },
            diff::Rename {
                from: path("ports.1"),
                to: path("ports.2"),
            },
        ];
        let port = path("ports.0.port");
        assert_eq!(renamed(&port, &[&shift]).to_string(), "ports.1.port");
        // An element renamed inside a renamed one (its `from` names the outer one's new
        // place) follows both.
        let nested = [
            diff::Rename {
                from: path("c.0"),
                to: path("c.1"),
            },
            diff::Rename {
                from: path("c.1.ports.0"),
                to: path("c.1.ports.1"),
            },
        ];
        let port = path("c.0.ports.0.port");
        assert_eq!(renamed(&port, &[&nested]).to_string(), "c.1.ports.1.port");
    }

    fn doc(text: &str) -> Node {
        crate::yaml::parse::parse_document(text, "t").expect("yaml")
    }

    #[test]
    fn a_chain_lists_the_steps_that_changed_a_field_oldest_first() {
        let read = doc("spec:\n  replicas: 1\n  template: {}\n");
        let patched = doc("spec:\n  replicas: 3\n  template: {}\n");
        let mut p = Provenance::default();
        p.record(Step {
            action: std::sync::Arc::new(Action {
                kind: StepKind::Source,
                entry: None,
                wrote: Some(Written {
                    file: "base/deploy.yaml".into(),
                    document: Some(0),
                    identity: None,
                    nth: 0,
                }),
                transformer: None,
            }),
            changes: Vec::new(),
            created: Some(std::sync::Arc::new(read.clone())),
            renames: Vec::new(),
        });
        p.record(Step {
            action: std::sync::Arc::new(Action {
                kind: StepKind::Merge,
                entry: Some(Entry {
                    file: "prod/kustomization.yaml".into(),
                    place: crate::kustomization::files::Place::item("patches", 0),
                }),
                wrote: Some(Written {
                    file: "prod/replicas.yaml".into(),
                    document: Some(0),
                    identity: None,
                    nth: 0,
                }),
                transformer: None,
            }),
            changes: diff::changes(&read, &patched),
            created: None,
            renames: Vec::new(),
        });
        // A step that changed nothing is not recorded.
        p.record(Step {
            action: std::sync::Arc::new(Action {
                kind: StepKind::Transform,
                entry: None,
                wrote: None,
                transformer: None,
            }),
            changes: diff::changes(&patched, &patched),
            created: None,
            renames: Vec::new(),
        });
        assert_eq!(p.steps.len(), 2);
        let field = FieldPath(vec![Part::Key("spec".into()), Part::Key("replicas".into())]);
        let chain = p.chain(&field);
        assert_eq!(chain.len(), 2);
        assert_eq!(chain[0].step.kind, StepKind::Source);
        assert_eq!(chain[1].change.before.as_deref(), Some("1"));
        assert_eq!(chain[1].change.after.as_deref(), Some("3"));
        assert_eq!(p.last(&field).map(|l| l.step.kind), Some(StepKind::Merge));
        let template = FieldPath(vec![Part::Key("spec".into()), Part::Key("template".into())]);
        assert_eq!(
            p.last(&template).map(|l| l.step.kind),
            Some(StepKind::Source)
        );
    }
}
