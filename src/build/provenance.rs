//! Recording provenance while building (`BuildOptions::provenance`): each step of the
//! build runs through [`recorded`], which compares each resource the step touched before
//! and after it and adds what changed to the resource's record (see src/provenance/).
//!
//! A step touches a resource by changing its object through [`Resource::node_mut`] (or
//! replacing it, or making a new resource): the object is private to the resource, so no
//! step can change it unseen, and a resource no step touched is not compared (a step such
//! as a patch or a replacement changes a few of the build's resources). The mark costs a
//! store when provenance is off.
//!
//! Each record keeps the resource as it last saw it (`Provenance::seen`), and a step's
//! changes are what differs from that after the step: resources are followed by their
//! record, not by their index or id, as a step may delete a resource (`$patch: delete`),
//! add one (a generator, a plugin) or change its name, kind and namespace; a copy of a
//! resource copies its record (and its mark). A resource a step adds without a record gets
//! one, whose first step keeps the resource as that step made it (`Step::created`: every
//! leaf set by that step, found when a report asks, not listed one change per leaf).
//!
//! With `BuildOptions::provenance_only`, a resource gets a record only when the filter
//! admits it as it first appears; one it does not admit is marked (`Resource::unrecorded`)
//! and never recorded, even if a later step makes it look admissible (see
//! provenance/only.rs).

use crate::error::Result;
use crate::kustomization::files::Place;
use crate::provenance::{Action, Entry, Only, Provenance, Step, StepKind, Written, diff};
use crate::resource::resmap::ResMap;
use crate::resource::{Resource, Touched};
use crate::transform::builtin::{Builtin, Step as BuiltinStep};
use std::path::Path;
use std::sync::Arc;

/// Whether a build records provenance, and of which resources.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Recording<'o> {
    on: bool,
    /// The filter of `BuildOptions::provenance_only`: `None` records every resource.
    only: Option<&'o Only>,
}

impl<'o> Recording<'o> {
    /// What `options` ask to record.
    pub(super) fn of(options: &'o super::BuildOptions) -> Recording<'o> {
        Recording {
            on: options.provenance,
            only: options
                .provenance_only
                .as_ref()
                .filter(|_| options.provenance),
        }
    }

    /// Whether anything is recorded.
    pub(super) fn on(self) -> bool {
        self.on
    }

    /// The same, recording every resource: for what the build reads to configure
    /// plugins (the file a configuration came from is taken from its record).
    pub(super) fn everything(self) -> Recording<'o> {
        Recording { only: None, ..self }
    }

    /// Whether `r`, which has no record, gets one now: it is admitted when it first
    /// appears, and a resource turned away once stays so.
    fn admits(self, r: &mut Resource) -> bool {
        if r.unrecorded {
            return false;
        }
        let admitted = self.only.is_none_or(|only| only.admits(r.node()));
        r.unrecorded = !admitted;
        admitted
    }
}

/// What a step is, for its record; the changes are found by comparing.
#[derive(Clone, Debug)]
pub(super) struct About {
    pub(super) kind: StepKind,
    pub(super) entry: Option<Entry>,
    pub(super) wrote: Option<Written>,
    pub(super) transformer: Option<String>,
}

impl About {
    /// A step configured by the entry `place` of the kustomization file `file`.
    pub(super) fn entry(kind: StepKind, file: &Path, place: Place) -> About {
        About {
            kind,
            entry: Some(Entry {
                file: file.to_path_buf(),
                place,
            }),
            wrote: None,
            transformer: None,
        }
    }

    /// A step configured by a file of its own (a `transformers:` or `generators:` config).
    pub(super) fn config(kind: StepKind, file: &Path) -> About {
        About {
            kind,
            entry: None,
            wrote: Some(Written {
                file: file.to_path_buf(),
                document: None,
                identity: None,
                nth: 0,
            }),
            transformer: None,
        }
    }

    /// A transformer plugin configured by `file`.
    pub(super) fn plugin(plugin: &crate::plugin::Plugin, file: &Path) -> About {
        About {
            transformer: Some(plugin.configured(file).kind.to_string()),
            ..About::config(StepKind::Plugin, file)
        }
    }

    /// A step kustomize runs on its own, at the end (name hashes, name references, vars).
    pub(super) fn by_kustomize(kind: StepKind) -> About {
        About {
            kind,
            entry: None,
            wrote: None,
            transformer: None,
        }
    }

    /// The action, to be shared by the steps of every resource the step changed.
    fn action(self) -> Arc<Action> {
        Arc::new(Action {
            kind: self.kind,
            entry: self.entry,
            wrote: self.wrote,
            transformer: self.transformer,
        })
    }
}

/// A step of `action` that changed `changes`.
fn step(action: &Arc<Action>, changes: Vec<diff::Change>) -> Step {
    Step {
        action: Arc::clone(action),
        changes,
        created: None,
        renames: Vec::new(),
    }
}

/// Runs `f` over `rm`; with `on`, records in each resource what `f` changed in it.
pub(super) fn recorded<T>(
    on: Recording<'_>,
    rm: &mut ResMap,
    about: impl FnOnce() -> About,
    f: impl FnOnce(&mut ResMap) -> Result<T>,
) -> Result<T> {
    let before = snapshot(on, rm);
    let out = f(rm)?;
    record(before, rm, about);
    Ok(out)
}

/// Whether a step's changes are to be recorded (`None` when provenance is off), for
/// [`record`] after it: for steps that need more than the resource map. Each record keeps
/// the resource as it last saw it, so nothing is copied before a step.
pub(super) fn snapshot<'o>(on: Recording<'o>, _rm: &ResMap) -> Option<Before<'o>> {
    on.on().then_some(Before(on))
}

/// See [`snapshot`].
pub(super) struct Before<'o>(Recording<'o>);

/// Records in each resource of `rm` what changed since its record last saw it; a
/// resource without a record is new, made by this step. Only the resources the step
/// touched (changed through [`Resource::node_mut`], or made anew) are compared: a
/// resource nothing touched is as its record last saw it.
pub(super) fn record(before: Option<Before<'_>>, rm: &mut ResMap, about: impl FnOnce() -> About) {
    let Some(Before(recording)) = before else {
        return;
    };
    let action = about().action();
    // Each resource's record on its own: on the thread pool for a large map (comparing
    // a resource with its record is most of what recording costs).
    rm.for_each_mut(|r| {
        if r.provenance.is_none() && !recording.admits(r) {
            r.take_touched();
            return;
        }
        let (touched, node, provenance) = r.take_touched();
        match provenance.as_deref_mut() {
            Some(_) if touched == Touched::No => {}
            Some(p) => {
                // One pass over the resource (or over the paths the step wrote along): a
                // resource touched but left as it was costs that alone; what changed is
                // copied into the record's copy as it is found.
                let (mut changes, renames, reordered) = match &touched {
                    Touched::Within(paths) => {
                        diff::changes_syncing_within(&mut p.seen, node, paths)
                    }
                    _ => diff::changes_syncing(&mut p.seen, node),
                };
                let written = std::mem::take(&mut p.written);
                diff::written_unchanged(&mut changes, written, node);
                if !changes.is_empty() {
                    if reordered {
                        diff::sync(&mut p.seen, node);
                    }
                    let mut step = step(&action, changes);
                    // A patch file may hold patches for several resources: this one's is
                    // the document with its kind and name, when there is one (an action
                    // of its own: patches change few resources).
                    if step.kind == StepKind::Merge
                        && step.wrote.as_ref().is_some_and(|w| w.identity.is_none())
                    {
                        let text =
                            |path: &[&str]| node.get_str(path).unwrap_or_default().to_string();
                        let mut own = (*step.action).clone();
                        if let Some(w) = own.wrote.as_mut() {
                            w.identity = Some((text(&["kind"]), text(&["metadata", "name"])));
                        }
                        step.action = Arc::new(own);
                    }
                    p.record(Step { renames, ..step });
                }
            }
            None => {
                let mut p = Provenance {
                    seen: node.clone(),
                    ..Provenance::default()
                };
                p.record(Step {
                    created: Some(Arc::new(node.clone())),
                    ..step(&action, Vec::new())
                });
                *provenance = Some(Box::new(p));
            }
        }
    });
}

/// The build is over: no step follows, so the copy of each resource its record kept to
/// compare the next step with is no longer needed. The copies are returned, to be freed
/// with the build's output (see `state::Workings`): freeing a copy of the whole output
/// node by node took 1.6 ms of the medium bench tree's build on two threads, which a
/// process about to exit skips.
pub(super) fn finished(rm: &mut ResMap) -> Vec<crate::yaml::Node> {
    rm.iter_mut()
        .filter_map(|r| r.provenance.as_deref_mut())
        .map(|p| std::mem::take(&mut p.seen))
        .collect()
}

/// Starts the records of resources read from `file` (or fetched from its URL).
pub(super) fn read_from(on: Recording<'_>, resources: &mut [Resource], file: &Path) {
    if !on.on() {
        return;
    }
    // How many resources of each kind and name came before, to tell apart two documents
    // of one kind and name (in different namespaces).
    let mut seen: foldhash::HashMap<(String, String), usize> = foldhash::HashMap::default();
    for r in resources {
        let id = (r.kind(), r.name());
        let slot = seen.entry(id.clone()).or_default();
        let nth = *slot;
        *slot += 1;
        if !on.admits(r) {
            r.take_touched();
            continue;
        }
        let identity = Some(id);
        // The record starts from the object as read: nothing touched it since.
        let (_, node, provenance) = r.take_touched();
        let mut p = Provenance {
            seen: node.clone(),
            ..Provenance::default()
        };
        // One action for each resource: each has its own identity.
        let action = Arc::new(Action {
            kind: StepKind::Source,
            entry: None,
            wrote: Some(Written {
                file: file.to_path_buf(),
                document: None,
                identity,
                nth,
            }),
            transformer: None,
        });
        p.record(Step {
            action,
            changes: Vec::new(),
            created: Some(Arc::new(node.clone())),
            renames: Vec::new(),
        });
        *provenance = Some(Box::new(p));
    }
}

/// A built-in transformer step of a kustomization (or configured by `configured_in`, a
/// transformer config file), whose files are read from `root` (the kustomization's
/// directory, also for a config file elsewhere, as kustomize loads them).
pub(super) fn about_step(step: &BuiltinStep<'_>, configured_in: &Path, root: &Path) -> About {
    let kind = match &step.builtin {
        Builtin::PatchStrategicMerge(_) => StepKind::Merge,
        Builtin::PatchJson6902(_) => StepKind::JsonPatch,
        Builtin::Patch(p) => {
            // A `patches:` entry is a strategic merge unless its text is a list of
            // operations.
            if p.patch.trim_start().starts_with(['-', '[']) {
                StepKind::JsonPatch
            } else {
                StepKind::Merge
            }
        }
        Builtin::Replacement { .. } => StepKind::Replace,
        Builtin::Hash => StepKind::Hash,
        _ => StepKind::Transform,
    };
    let file = |path: &str| Written {
        file: root.join(path),
        document: None,
        identity: None,
        nth: 0,
    };
    let wrote = match &step.builtin {
        Builtin::Patch(p) if !p.path.is_empty() => Some(file(&p.path)),
        Builtin::PatchJson6902(p) if !p.path.is_empty() => Some(file(&p.path)),
        // An entry is a file's path, or the patch itself (several lines).
        Builtin::PatchStrategicMerge(entries) => match entries.as_ref() {
            [one] if !one.contains('\n') => Some(file(one)),
            _ => None,
        },
        _ => None,
    };
    // A `transformers:` config (no kustomization entry) is where the values it writes
    // are written: the document of that kind and name in the config file.
    let wrote = wrote.or_else(|| {
        step.entry.is_none().then(|| Written {
            file: configured_in.to_path_buf(),
            document: None,
            identity: step
                .config_name
                .clone()
                .map(|name| (step.builtin.kind().to_string(), name)),
            nth: 0,
        })
    });
    About {
        kind,
        entry: step.entry.map(|place| Entry {
            file: configured_in.to_path_buf(),
            place,
        }),
        wrote,
        transformer: Some(step.builtin.kind().to_string()),
    }
}

/// Notes that the generator at `place` of `file` replaced the resource `id` (`behavior:
/// replace`), when the comparison found nothing to record: the content came out equal, but
/// the generator is the resource's origin now, as in kustomize's annotation.
pub(super) fn replaced(
    rm: &mut ResMap,
    id: &crate::resource::id::ResId,
    file: &Path,
    place: Place,
) {
    let about = About::entry(StepKind::Generate, file, place);
    for r in rm
        .iter_mut()
        .filter(|r| r.prev_ids.first().unwrap_or(&r.id()) == id || &r.id() == id)
    {
        if let Some(p) = r.provenance.as_deref_mut()
            && p.steps
                .last()
                .is_none_or(|s| s.kind != StepKind::Generate || s.entry != about.entry)
        {
            p.record_always(step(&about.clone().action(), Vec::new()));
        }
    }
}
