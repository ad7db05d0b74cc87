//! kbuild's warning about kustomization entries that change nothing, which kustomize
//! accepts silently: an `images` entry naming an image no container has (or setting what
//! every matching image has already), a `replicas` count every named resource has
//! already, a `labels`/`commonLabels`/`commonAnnotations` entry every resource has
//! already, a patch (`patches`, `patchesJson6902`) whose target matches no resource, a
//! replacement target that selects none.
//!
//! What each step did comes from the step itself (transform/builtin/noop.rs). An entry is
//! reported only when it changed nothing in *every* evaluation: a component included by
//! two kustomizations runs its entries twice, and an entry that changes something in one
//! of them is not a no-op. Entries of kustomizations fetched from git repositories (remote
//! bases) are not reported: the user cannot fix them in their own files, and `--strict`
//! must not fail a build on someone else's base.
//!
//! Positions come as an error's do ([`Place::position`] over the kustomization file's
//! text), and only for the entries reported.

use crate::kustomization::files::Place;
use crate::load::Files;
use crate::transform::builtin::noop::Effect;
use foldhash::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The entries seen so far: those that changed nothing (in the order found, with why) and
/// those that changed something.
#[derive(Clone, Debug, Default)]
pub(super) struct Noops {
    nothing: Vec<(PathBuf, Place, String)>,
    /// A list, made a set only when there is something to warn about: every step of every
    /// kustomization notes itself here, and hashing its path (component by component) cost
    /// more than the rest of the bookkeeping.
    changed: Vec<(PathBuf, Place)>,
}

impl Noops {
    /// Notes what the entry at `place` of the kustomization file `file` did.
    pub(super) fn note(&mut self, file: &Path, place: Place, effect: Effect) {
        match effect {
            Effect::Changed => self.changed.push((file.to_path_buf(), place)),
            Effect::Nothing(why) => self.nothing.push((file.to_path_buf(), place, why)),
            Effect::Parts(parts) => {
                for (place, why) in parts {
                    match why {
                        Some(why) => self.nothing.push((file.to_path_buf(), place, why)),
                        None => self.changed.push((file.to_path_buf(), place)),
                    }
                }
            }
        }
    }

    /// Takes what a base's build noted.
    pub(super) fn extend(&mut self, other: Noops) {
        self.nothing.extend(other.nothing);
        self.changed.extend(other.changed);
    }

    /// The warnings: `FILE:LINE:COL: FIELD[i]: why`, once per entry; files in the order
    /// found, each file's entries in the order they are written.
    pub(super) fn warnings(self, files: &Files) -> Vec<String> {
        if self.nothing.is_empty() {
            return Vec::new();
        }
        let changed: HashSet<(PathBuf, Place)> = self.changed.into_iter().collect();
        let mut texts: HashMap<PathBuf, Option<String>> = HashMap::default();
        let mut seen = HashSet::default();
        // (file's index, line, column, text)
        let mut out = Vec::new();
        let mut order: HashMap<PathBuf, usize> = HashMap::default();
        for (file, place, why) in self.nothing {
            let key = (file, place);
            if changed.contains(&key) || !seen.insert(key.clone()) {
                continue;
            }
            let (file, place) = key;
            if files.remote().clone_containing(&file).is_some() {
                continue;
            }
            let text = texts.entry(file.clone()).or_insert_with(|| {
                files
                    .fs()
                    .read(&file)
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
            });
            let pos = text.as_deref().and_then(|t| place.position(t));
            let at = match pos {
                Some((line, col)) => format!("{}:{line}:{col}", file.display()),
                None => file.display().to_string(),
            };
            let next = order.len();
            let index = *order.entry(file).or_insert(next);
            out.push((index, pos, format!("{at}: {place}: {why}")));
        }
        out.sort_by_key(|(index, pos, _)| (*index, *pos));
        out.into_iter().map(|(_, _, text)| text).collect()
    }
}
