//! `commonLabels` and `labels`: set label pairs at the field specs' paths.

use crate::config::fieldspec::{CreateKind, SplitSpecs};
use crate::error::Result;
use crate::kustomization::{FieldSpec, StringMap};
use crate::resource::resmap::ResMap;
use crate::resource::shared::{StepRef, Trail, trail_of};
use crate::yaml::Node;
use std::ops::Range;

/// Writes every pair into the mapping at each selected field spec (kustomize's
/// LabelTransformer and AnnotationsTransformer do the same walk).
///
/// Where a key is new in two fields or more of a resource, kustomize puts one shared
/// value node in all of them; a later write into one changes them all. Those fields are
/// recorded in the resource's [`crate::resource::shared::Shared`], and writing a key
/// that is already there writes through to the fields sharing its value.
///
/// Whether any field was added or got another value (for the warning about an entry that
/// changes nothing).
pub(crate) fn set_pairs(
    resmap: &mut ResMap,
    pairs: &StringMap,
    specs: &[FieldSpec],
) -> Result<bool> {
    if pairs.is_empty() {
        return Ok(false);
    }
    let specs = SplitSpecs::new(specs);
    // Working space reused across resources (one per thread): most create each key in one
    // field only, and those need no trail of their own.
    let changed = resmap.try_for_each_mut(
        || (Vec::new(), Writes::default()),
        |(trail, writes), _, res| {
            let gvk = res.gvk();
            writes.clear(!res.shared.is_empty());
            writes.every = res.provenance.is_some().then(Vec::new);
            // The walk writes only along the specs' paths: a record compares only those
            // after this step.
            res.node_mut_within(|node, within| {
                if let Some(within) = within {
                    specs.scope(&gvk, within);
                }
                specs.apply_traced(node, &gvk, CreateKind::Map, trail, &mut |target, at| {
                    set_in_map(target, pairs, at, writes)
                })
            })
            .map_err(|e| e.context(format!("in {}", res.id())))?;
            for (at, old) in &writes.rewritten {
                let (node, shared) = res.node_mut_with_shared();
                shared.write_through(node, at, old);
            }
            if let Some(every) = writes.every.take().filter(|e| !e.is_empty()) {
                res.note_written(|node| {
                    every
                        .iter()
                        .filter_map(|t| crate::resource::shared::field_path(node, t))
                        .collect()
                });
            }
            if writes.created.len() >= 2 {
                for i in 0..pairs.len() {
                    if let Some(fields) = writes.shared_fields(i) {
                        res.shared.add(fields);
                    }
                }
            }
            Ok(writes.changed)
        },
    )?;
    Ok(changed.into_iter().any(|c| c))
}

/// What one resource's walk wrote.
#[derive(Default)]
struct Writes<'a> {
    /// Whether the resource shares values, so rewrites matter.
    track_rewrites: bool,
    /// Fields added: the index of their pair, and where their path is in `steps`.
    created: Vec<(usize, Range<usize>)>,
    /// The paths of the fields added, one after the other.
    steps: Vec<StepRef<'a>>,
    /// Fields that were there, with the value they held.
    rewritten: Vec<(Trail, Node)>,
    /// Whether any field of the resource was added or changed.
    changed: bool,
    /// Every field written over (a key the mapping had), whatever its value, when the
    /// resource records its provenance: a label written with the value it had is still
    /// this step's, and the record's comparison does not see it (it sees the keys added).
    every: Option<Vec<Trail>>,
}

impl<'a> Writes<'a> {
    fn clear(&mut self, track_rewrites: bool) {
        self.track_rewrites = track_rewrites;
        self.changed = false;
        self.created.clear();
        self.steps.clear();
        self.rewritten.clear();
    }

    /// The fields the walk added for pair `i`, when there are several: kustomize
    /// put one value node in all of them.
    fn shared_fields(&self, i: usize) -> Option<Vec<Trail>> {
        let of_pair = || self.created.iter().filter(move |(k, _)| *k == i);
        (of_pair().nth(1).is_some()).then(|| {
            of_pair()
                .map(|(_, r)| trail_of(&self.steps[r.clone()], None))
                .collect()
        })
    }
}

fn set_in_map<'a>(
    target: &mut Node,
    pairs: &'a StringMap,
    at: &[StepRef<'a>],
    writes: &mut Writes<'a>,
) -> Result<()> {
    if target.is_null() {
        *target = Node::map();
    }
    let Node::Map(m) = target else {
        return Err(crate::Error::invalid_resource(format!(
            "expected a mapping to hold labels or annotations, found a {}",
            target.type_name()
        )));
    };
    for (i, (k, v)) in pairs.iter().enumerate() {
        let old = m.insert(k.clone(), Node::text(v.clone()));
        writes.changed |= old.as_ref().is_none_or(|o| o.as_str() != Some(v.as_str()));
        // A key the field did not have is a change the record's comparison finds: only
        // one written over needs noting (it may hold the value it had).
        if let Some(every) = writes.every.as_mut()
            && old.is_some()
        {
            every.push(trail_of(at, Some(k)));
        }
        match old {
            None => {
                let start = writes.steps.len();
                writes.steps.extend_from_slice(at);
                writes.steps.push(StepRef::Key(k));
                writes.created.push((i, start..writes.steps.len()));
            }
            Some(old) if writes.track_rewrites => {
                writes.rewritten.push((trail_of(at, Some(k)), old));
            }
            Some(_) => {}
        }
    }
    Ok(())
}
