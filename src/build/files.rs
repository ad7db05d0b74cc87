//! Files read during one build, each read and parsed at most once.
//!
//! A component used by many overlays, a base listed by several
//! kustomizations, a patch file applied to many targets: kustomize reads and
//! parses such a file again at every reference. Here the first reference
//! reads and parses it and keeps the result behind an `Arc`; later references
//! get the same value (resources are cloned, because the build mutates them).
//!
//! Only the read and the parse are shared. Everything that depends on the
//! reference stays per reference, in the caller: resolving the path as
//! written, the load restrictor (a file another kustomization could read may
//! still be outside this one's root), the "is a directory" check, and the
//! error context. A failed load is not remembered: the next reference loads
//! again and fails with the same error, so errors and their order are those
//! of a build without the cache.
//!
//! Entries are keyed by real path (see build/canonical.rs) and are filled
//! under a per-entry lock, so bases built in parallel that need the same file
//! wait for one load instead of each doing it.

use super::canonical::{self, CanonicalCache};
use crate::error::Result;
use crate::kustomization::Kustomization;
use crate::load::{self, LoadRestrictor};
use crate::resource::Resource;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// One cached value, filled on first successful load.
type Slot<T> = Arc<Mutex<Option<Arc<T>>>>;

/// Loaded values by real path, and how many loads each took.
struct Slots<T> {
    slots: Mutex<HashMap<PathBuf, Slot<T>>>,
    loads: Mutex<HashMap<PathBuf, usize>>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots {
            slots: Mutex::default(),
            loads: Mutex::default(),
        }
    }
}

impl<T> Slots<T> {
    /// The value for `key`, loading it with `load` unless an earlier load
    /// succeeded. A lock poisoned by a panic elsewhere is taken over: the
    /// map and the slots are always left consistent.
    fn get_or_load(&self, key: &Path, load: impl FnOnce() -> Result<T>) -> Result<Arc<T>> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            match slots.get(key) {
                Some(slot) => slot.clone(),
                None => {
                    let slot = Slot::default();
                    slots.insert(key.to_path_buf(), slot.clone());
                    slot
                }
            }
        };
        let mut value = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = value.as_ref() {
            return Ok(v.clone());
        }
        *self
            .loads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key.to_path_buf())
            .or_default() += 1;
        let loaded = Arc::new(load()?);
        *value = Some(loaded.clone());
        Ok(loaded)
    }

    /// How many times `key` was loaded (read from disk and parsed).
    #[cfg(test)]
    fn loads(&self, key: &Path) -> usize {
        self.loads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .copied()
            .unwrap_or(0)
    }
}

/// The files of one build: decoded kustomization files, the resources parsed
/// from resource files, and the text of other files (patches, replacements,
/// configurations), by real path.
#[derive(Default)]
pub(super) struct FileCache {
    kustomizations: Slots<Kustomization>,
    resources: Slots<Vec<Resource>>,
    texts: Slots<String>,
}

impl FileCache {
    /// The decoded kustomization file `file` (a real path), decoded by
    /// `load` on first use. It is immutable afterwards (`fix_deprecated` ran).
    pub(super) fn kustomization(
        &self,
        file: &Path,
        load: impl FnOnce() -> Result<Kustomization>,
    ) -> Result<Arc<Kustomization>> {
        self.kustomizations.get_or_load(file, load)
    }

    /// The resources of the resource file `real`, parsed by `load` on first
    /// use, for the caller to clone.
    pub(super) fn resources(
        &self,
        real: &Path,
        load: impl FnOnce() -> Result<Vec<Resource>>,
    ) -> Result<Arc<Vec<Resource>>> {
        self.resources.get_or_load(real, load)
    }

    /// The text of the file `real`, read by `load` on first use.
    pub(super) fn text(
        &self,
        real: &Path,
        load: impl FnOnce() -> Result<String>,
    ) -> Result<Arc<String>> {
        self.texts.get_or_load(real, load)
    }

    /// `CanonicalCache::read_restricted` as text: `rel` (relative to the
    /// kustomization directory `root`) resolved and checked against the load
    /// restrictor for this reference, its text read once per build.
    pub(super) fn read_text_restricted(
        &self,
        paths: &CanonicalCache,
        root: &Path,
        rel: &str,
        restrictor: LoadRestrictor,
        what: &str,
    ) -> Result<(PathBuf, Arc<String>)> {
        let (real, kind) = paths.resolve_restricted(root, rel, restrictor, what)?;
        let text = self.text(&real, || load::utf8(canonical::read(&real, kind)?, &real))?;
        Ok((real, text))
    }

    /// How many times `real` was loaded, whatever it holds.
    #[cfg(test)]
    pub(super) fn loads(&self, real: &Path) -> usize {
        self.kustomizations.loads(real) + self.resources.loads(real) + self.texts.loads(real)
    }
}
