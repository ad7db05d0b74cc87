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
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The entries seen so far: those that changed nothing (in the order found, with why) and
/// those that changed something. Each entry once: a base built once is taken by every
/// kustomization that names it, and in a stacked diamond of bases (each level naming the
/// next twice) a list that kept repeats would double per level. Keyed by the path's bytes:
/// hashing a `Path` goes component by component, and every step notes itself here.
#[derive(Clone, Debug, Default)]
pub(super) struct Noops {
    nothing: Vec<(PathBuf, Place, String)>,
    nothing_seen: HashSet<(OsString, Place)>,
    changed: HashSet<(OsString, Place)>,
}

impl Noops {
    /// Notes what the entry at `place` of the kustomization file `file` did.
    pub(super) fn note(&mut self, file: &Path, place: Place, effect: Effect) {
        match effect {
            Effect::Changed => self.changed(file, place),
            Effect::Nothing(why) => self.nothing(file.to_path_buf(), place, why),
            Effect::Parts(parts) => {
                for (place, why) in parts {
                    match why {
                        Some(why) => self.nothing(file.to_path_buf(), place, why),
                        None => self.changed(file, place),
                    }
                }
            }
        }
    }

    fn changed(&mut self, file: &Path, place: Place) {
        self.changed.insert((file.as_os_str().to_owned(), place));
    }

    fn nothing(&mut self, file: PathBuf, place: Place, why: String) {
        if self
            .nothing_seen
            .insert((file.as_os_str().to_owned(), place))
        {
            self.nothing.push((file, place, why));
        }
    }

    /// Takes what a base's build noted.
    pub(super) fn extend(&mut self, other: Noops) {
        for (file, place, why) in other.nothing {
            self.nothing(file, place, why);
        }
        self.changed.extend(other.changed);
    }

    /// The warnings: `FILE:LINE:COL: FIELD[i]: why`, once per entry; files in the order
    /// found, each file's entries in the order they are written.
    pub(super) fn warnings(self, files: &Files) -> Vec<String> {
        use rayon::prelude::*;
        if self.nothing.is_empty() {
            return Vec::new();
        }
        let mut seen = HashSet::default();
        let reported: Vec<(PathBuf, Place, String)> = self
            .nothing
            .into_iter()
            .filter(|(file, place, _)| {
                !self
                    .changed
                    .contains(&(file.as_os_str().to_owned(), *place))
                    && seen.insert((file.clone(), *place))
                    && files.remote().clone_containing(file).is_none()
            })
            .collect();
        // Each file read once and parsed once each way (as a node, and with positions),
        // the files on all cores: a parse with positions of a kustomization file takes
        // tens of microseconds, and this runs after the build, on its way to the output.
        let mut order: HashMap<&Path, usize> = HashMap::default();
        let mut paths: Vec<&Path> = Vec::new();
        for (file, _, _) in &reported {
            order.entry(file).or_insert_with(|| {
                paths.push(file);
                paths.len() - 1
            });
        }
        let parsed: Vec<_> = paths
            .par_iter()
            .map(|file| {
                let text = files
                    .fs()
                    .read(file)
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())?;
                let node = crate::yaml::parse::parse_document(&text, "").ok();
                let doc = crate::yaml::locate::Located::parse(&text, 0);
                Some((node, doc))
            })
            .collect();
        // (file's index, line, column, text)
        let mut out = Vec::new();
        for (file, place, why) in &reported {
            let index = order[file.as_path()];
            let pos = parsed[index]
                .as_ref()
                .and_then(|(node, doc)| place.position_in(node.as_ref(), doc.as_ref()));
            let at = match pos {
                Some((line, col)) => format!("{}:{line}:{col}", file.display()),
                None => file.display().to_string(),
            };
            out.push((index, pos, format!("{at}: {place}: {why}")));
        }
        out.sort_by_key(|(index, pos, _)| (*index, *pos));
        out.into_iter().map(|(_, _, text)| text).collect()
    }
}
