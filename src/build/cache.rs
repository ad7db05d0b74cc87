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
//! Parsed resources are the bulk of a build's memory, and most resource
//! files are listed once: keeping each file's resources to the end of the
//! build would add a copy of nearly all input. So before the build, the
//! kustomization graph (build/graph.rs; the kustomization files it decodes are
//! the ones the build uses) counts the references to each resource file.
//! A file referenced once is parsed and handed over without being kept; one
//! referenced several times is kept until its last expected reference, which
//! gets the parsed resources themselves instead of a clone. The count only
//! steers memory: a reference it missed loads the file again.
//!
//! Entries are keyed by real path (see build/canonical.rs) and are filled
//! under a per-entry lock, so bases built in parallel that need the same file
//! wait for one load instead of each doing it (but a thread already loading
//! another entry never waits: it loads without the cache, see `lock_slot`).

use crate::error::Result;
use crate::kustomization::Kustomization;
use crate::load;
use crate::load::Loader;
use crate::resource::Resource;
use crate::transform::builtin::env::PatchParser;
use crate::transform::patch;
use crate::yaml::Node;
use foldhash::{HashMap, HashSet};
use std::cell::Cell;
use std::ffi::OsString;
use std::hash::BuildHasher;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

thread_local! {
    /// How many slots this thread has locked (see [`lock_slot`]).
    static HELD: Cell<usize> = const { Cell::new(0) };
}

/// A locked slot; the thread's count of locked slots drops with it.
pub(super) struct Held<'a, S>(MutexGuard<'a, S>);

impl<S> Drop for Held<'_, S> {
    fn drop(&mut self) {
        HELD.set(HELD.get().saturating_sub(1));
    }
}

impl<S> Deref for Held<'_, S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.0
    }
}

impl<S> DerefMut for Held<'_, S> {
    fn deref_mut(&mut self) -> &mut S {
        &mut self.0
    }
}

/// Locks a slot, waiting while another thread loads it, except when this
/// thread already holds a slot: then `None` if the slot is busy, and the
/// caller loads without the cache.
///
/// A load may run rayon (large files are parsed on all cores), and a rayon
/// thread waiting for its parallel work runs other queued work meanwhile:
/// a build step that needs a slot this very thread holds, or one held by a
/// thread that waits for a slot this one holds. Waiting then would never
/// end; a thread that holds nothing waits for a holder that never waits.
pub(super) fn lock_slot<S>(slot: &Mutex<S>) -> Option<Held<'_, S>> {
    let guard = if HELD.get() > 0 {
        match slot.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        }
    } else {
        slot.lock().unwrap_or_else(PoisonError::into_inner)
    };
    HELD.set(HELD.get() + 1);
    Some(Held(guard))
}

/// One cached value, filled on first successful load.
type Slot<T> = Arc<Mutex<Option<Arc<T>>>>;

/// Loaded values by key (a real path, or a patch's text), and (in tests) how
/// many loads each took.
struct Slots<T, K = OsString> {
    slots: Mutex<HashMap<K, Slot<T>>>,
    #[cfg(test)]
    loads: Mutex<HashMap<K, usize>>,
}

impl<T, K> Default for Slots<T, K> {
    fn default() -> Self {
        Slots {
            slots: Mutex::default(),
            #[cfg(test)]
            loads: Mutex::default(),
        }
    }
}

impl<T, K: Eq + std::hash::Hash> Slots<T, K> {
    /// The value for `key`, loading it with `load` unless an earlier load
    /// succeeded. A lock poisoned by a panic elsewhere is taken over: the
    /// map and the slots are always left consistent.
    fn get_or_load<Q>(&self, key: &Q, load: impl FnOnce() -> Result<T>) -> Result<Arc<T>>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + std::hash::Hash + ToOwned<Owned = K> + ?Sized,
    {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            match slots.get(key) {
                Some(slot) => slot.clone(),
                None => {
                    let slot = Slot::default();
                    slots.insert(key.to_owned(), slot.clone());
                    slot
                }
            }
        };
        let Some(mut value) = lock_slot(&slot) else {
            self.count_load(key);
            return load().map(Arc::new);
        };
        if let Some(v) = value.as_ref() {
            return Ok(v.clone());
        }
        self.count_load(key);
        let loaded = Arc::new(load()?);
        *value = Some(loaded.clone());
        Ok(loaded)
    }

    /// Counts a load of `key`, for the tests (a build keeps no copy of the keys).
    fn count_load<Q>(&self, key: &Q)
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + std::hash::Hash + ToOwned<Owned = K> + ?Sized,
    {
        #[cfg(test)]
        {
            *self
                .loads
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(key.to_owned())
                .or_default() += 1;
        }
        #[cfg(not(test))]
        let _ = key;
    }

    /// How many times `key` was loaded (read from disk and parsed).
    #[cfg(test)]
    fn loads<Q>(&self, key: &Q) -> usize
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + std::hash::Hash + ?Sized,
    {
        self.loads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .copied()
            .unwrap_or(0)
    }
}

/// Parsed patches by their text, kept from a text's second use on: most
/// patches are used once (an overlay's own), and keeping those would hold a
/// parse of every patch of the build to its end (+4.5% peak RSS on the large
/// generated tree). A text seen once is remembered by its hash only.
struct PatchMemo<T> {
    seen: Mutex<HashSet<u64>>,
    kept: Slots<T, String>,
}

impl<T> Default for PatchMemo<T> {
    fn default() -> Self {
        PatchMemo {
            seen: Mutex::default(),
            kept: Slots::default(),
        }
    }
}

impl<T> PatchMemo<T> {
    /// What `parse` gives for `text`: parsed now, or kept from an earlier use.
    fn get(&self, text: &str, parse: impl FnOnce() -> Result<T>) -> Result<Arc<T>> {
        let first_sight = |m: &Mutex<HashSet<u64>>| {
            // A hash collision only makes a text kept that need not be.
            let hash = foldhash::fast::FixedState::with_seed(0x0070_6174_6368).hash_one(text);
            m.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(hash)
        };
        if first_sight(&self.seen) {
            self.kept.count_load(text);
            return parse().map(Arc::new);
        }
        self.kept.get_or_load(text, parse)
    }
}

/// The resources of a file referenced several times, until the last
/// expected reference takes them.
#[derive(Default)]
struct Shared {
    resources: Option<Vec<Resource>>,
    /// Expected references still to come.
    left: usize,
}

/// The files of one build: decoded kustomization files, the resources parsed
/// from resource files, and the text of other files (patches, replacements,
/// configurations), by real path.
#[derive(Default)]
pub(crate) struct FileCache {
    kustomizations: Slots<Kustomization>,
    /// Resource files referenced more than once (see `plan`).
    shared: Mutex<HashMap<OsString, Arc<Mutex<Shared>>>>,
    /// How many `resources` entries list each base listed more than once (see
    /// `plan` and build/memo.rs).
    base_refs: std::sync::OnceLock<HashMap<OsString, usize>>,
    /// Loads of resource files, by real path (counted for the tests).
    #[cfg(test)]
    resource_loads: Mutex<HashMap<PathBuf, usize>>,
    texts: Slots<String>,
    /// Patches by their text: a patch file, or an inline patch in a component
    /// many overlays use, is parsed at most twice (see `PatchMemo`). What a
    /// parse gives depends on the text alone (the source only names it in
    /// errors, which are not kept).
    patches: PatchMemo<patch::Loaded>,
    /// JSON 6902 operations (`patchesJson6902`) by their text, likewise.
    json_ops: PatchMemo<Node>,
}

impl FileCache {
    /// The decoded kustomization file `file` (a real path), decoded by
    /// `load` on first use. It is immutable afterwards (`fix_deprecated` ran).
    pub(crate) fn kustomization(
        &self,
        file: &Path,
        load: impl FnOnce() -> Result<Kustomization>,
    ) -> Result<Arc<Kustomization>> {
        self.kustomizations.get_or_load(file.as_os_str(), load)
    }

    /// Takes from the kustomization graph which resource files and bases a build of
    /// `top` references several times (see the module comment).
    pub(crate) fn plan(&self, graph: &super::graph::Graph, top: super::graph::NodeId) {
        let (files, bases) = graph.shared_references(top);
        let _ = self.base_refs.set(bases);
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        for (real, left) in files {
            let slot = Shared {
                resources: None,
                left,
            };
            shared.insert(real, Arc::new(Mutex::new(slot)));
        }
    }

    /// How many `resources` entries list the base `dir` (a real path), when
    /// more than one does.
    pub(crate) fn base_refs(&self, dir: &Path) -> usize {
        self.base_refs
            .get()
            .and_then(|refs| refs.get(dir.as_os_str()).copied())
            .unwrap_or(0)
    }

    /// The resources of the resource file `real`, parsed by `load` unless an
    /// earlier reference to a file referenced several times parsed them.
    pub(crate) fn resources(
        &self,
        real: &Path,
        load: impl FnOnce() -> Result<Vec<Resource>>,
    ) -> Result<Vec<Resource>> {
        let shared = self
            .shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(real.as_os_str())
            .cloned();
        let Some(shared) = shared else {
            return self.load_resources(real, load);
        };
        let Some(mut shared) = lock_slot(&shared) else {
            return self.load_resources(real, load);
        };
        if shared.left == 0 {
            // More references than counted.
            return self.load_resources(real, load);
        }
        let resources = match shared.resources.take() {
            Some(r) => r,
            None => self.load_resources(real, load)?,
        };
        shared.left -= 1;
        if shared.left > 0 {
            shared.resources = Some(resources.clone());
        }
        Ok(resources)
    }

    fn load_resources(
        &self,
        real: &Path,
        load: impl FnOnce() -> Result<Vec<Resource>>,
    ) -> Result<Vec<Resource>> {
        #[cfg(test)]
        {
            *self
                .resource_loads
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(real.to_path_buf())
                .or_default() += 1;
        }
        #[cfg(not(test))]
        let _ = real;
        load()
    }

    /// The text of the file `real`, read by `load` on first use.
    pub(crate) fn text(
        &self,
        real: &Path,
        load: impl FnOnce() -> Result<String>,
    ) -> Result<Arc<String>> {
        self.texts.get_or_load(real.as_os_str(), load)
    }

    /// The text of the file `entry` names, read under `ldr`'s restrictor; read
    /// and decoded once per build.
    pub(crate) fn read_text(
        &self,
        ldr: &Loader,
        entry: &str,
        what: &str,
    ) -> Result<(PathBuf, Arc<String>)> {
        if load::is_remote_file(entry) {
            // kustomize fetches a file URL wherever a file is named.
            // Kept by the URL as written, named without its credentials (the name
            // reaches error messages).
            let url = PathBuf::from(entry);
            let name = PathBuf::from(crate::remote::git::redact(entry));
            let text = self.text(&url, || {
                crate::yaml::utf8(ldr.fetch(entry)?.to_vec(), &name)
            })?;
            return Ok((name, text));
        }
        let (real, kind) = ldr.resolve_file(entry, what)?;
        let text = self.text(&real, || {
            crate::yaml::utf8(ldr.read_resolved(&real, kind)?, &real)
        })?;
        Ok((real, text))
    }

    /// How many times `real` was loaded, whatever it holds.
    #[cfg(test)]
    pub(crate) fn loads(&self, real: &Path) -> usize {
        let resources = self
            .resource_loads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(real)
            .copied()
            .unwrap_or(0);
        self.kustomizations.loads(real.as_os_str()) + resources + self.texts.loads(real.as_os_str())
    }
}

impl PatchParser for FileCache {
    /// `patch::classify(text, source)`, parsed at most twice per text.
    fn patch(&self, text: &str, source: &str) -> Result<Arc<patch::Loaded>> {
        self.patches.get(text, || patch::classify(text, source))
    }

    /// `json6902::parse_ops(text, source)`, parsed at most twice per text.
    fn json_ops(&self, text: &str, source: &str) -> Result<Arc<Node>> {
        self.json_ops
            .get(text, || crate::merge::json6902::parse_ops(text, source))
    }
}

#[cfg(test)]
mod tests {
    use super::super::BuildOptions;
    use super::*;
    use crate::load::{Files, LoadRestrictor};

    /// Builds `dir` on the real file system, keeping parsed files in `cache`.
    fn build_with_files(
        dir: &Path,
        options: &BuildOptions,
        cache: &FileCache,
    ) -> Result<super::super::BuildOutput> {
        let files = Files::new(crate::load::fs::real(), options.load_restrictor);
        super::super::build_with_cache(&files, dir, options, cache, None).map(|(out, _)| out)
    }

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n";

    /// Three overlays of one base, each with the same component, which
    /// applies the same patch file twice: every file is read once.
    #[test]
    fn each_file_is_read_once() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let overlay = |p: &str| {
            format!(
                "namePrefix: {p}-\nresources:\n- ../base\n- ../shared.yaml\ncomponents:\n- ../comp\n"
            )
        };
        let (a, b, c) = (overlay("a"), overlay("b"), overlay("c"));
        write(
            &root,
            &[
                (
                    "top/kustomization.yaml",
                    "resources:\n- ../a\n- ../b\n- ../c\n",
                ),
                ("a/kustomization.yaml", &a),
                ("b/kustomization.yaml", &b),
                ("c/kustomization.yaml", &c),
                ("base/kustomization.yaml", "resources:\n- deployment.yaml\n"),
                ("base/deployment.yaml", DEPLOYMENT),
                (
                    "shared.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n",
                ),
                (
                    "comp/kustomization.yaml",
                    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n\
                     resources:\n- sa.yaml\npatches:\n\
                     - path: patch.yaml\n  target:\n    kind: Deployment\n\
                     - path: patch.yaml\n  target:\n    kind: ServiceAccount\n\
                     - patch: |-\n    - op: add\n      path: /metadata/labels\n      value: {inline: x}\n\
                     \x20 target:\n    kind: ConfigMap\n",
                ),
                (
                    "comp/sa.yaml",
                    "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n",
                ),
                (
                    "comp/patch.yaml",
                    "- op: add\n  path: /metadata/annotations\n  value:\n    patched: \"yes\"\n",
                ),
            ],
        );
        let options = BuildOptions {
            load_restrictor: LoadRestrictor::None,
            ..Default::default()
        };
        let files = FileCache::default();
        let out = build_with_files(&root.join("top"), &options, &files).unwrap();
        let patched = out
            .resmap
            .iter()
            .filter(|r| r.node().get_str(&["metadata", "annotations", "patched"]) == Some("yes"))
            .count();
        // Three Deployments, three ServiceAccounts patched; three ConfigMaps.
        assert_eq!((out.resmap.len(), patched), (9, 6));
        let labelled = out
            .resmap
            .iter()
            .filter(|r| r.node().get_str(&["metadata", "labels", "inline"]) == Some("x"))
            .count();
        assert_eq!(labelled, 3);
        // The patch file (used six times) and the inline patch (three times)
        // are each parsed twice: on first sight, and when seen again.
        let loads = files.patches.kept.loads.lock().unwrap();
        assert_eq!(loads.len(), 2);
        assert!(loads.values().all(|n| *n == 2), "{loads:?}");
        for file in [
            "a/kustomization.yaml",
            "base/kustomization.yaml",
            "base/deployment.yaml",
            "shared.yaml",
            "comp/kustomization.yaml",
            "comp/sa.yaml",
            "comp/patch.yaml",
        ] {
            assert_eq!(files.loads(&root.join(file)), 1, "{file}");
        }
        // Nothing is kept of files referenced several times after their last use.
        let shared = files.shared.lock().unwrap();
        assert!(shared.values().all(|s| {
            let s = s.lock().unwrap();
            s.left == 0 && s.resources.is_none()
        }));
    }

    /// Overlays built in parallel share two files large enough to be parsed
    /// on all cores: a thread parsing one runs other queued work meanwhile,
    /// which may need the other file, held by a thread in the same state.
    /// The build must finish (see `lock_slot`) with every overlay's resources.
    #[test]
    fn shared_large_files_in_parallel_builds() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let big = |name: &str| {
            let value = "x".repeat(300_000);
            (0..4)
                .map(|i| {
                    format!(
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}-{i}\ndata:\n  v: {value}\n"
                    )
                })
                .collect::<Vec<_>>()
                .join("---\n")
        };
        let (big1, big2) = (big("one"), big("two"));
        let overlays: Vec<(String, String)> = (0..6)
            .map(|n| {
                (
                    format!("o{n}/kustomization.yaml"),
                    format!("namePrefix: o{n}-\nresources:\n- ../big1.yaml\n- ../big2.yaml\n"),
                )
            })
            .collect();
        let top = (0..6).map(|n| format!("- ../o{n}\n")).collect::<String>();
        let mut files: Vec<(&str, &str)> = vec![("big1.yaml", &big1), ("big2.yaml", &big2)];
        let top = format!("resources:\n{top}");
        files.push(("top/kustomization.yaml", &top));
        files.extend(overlays.iter().map(|(p, t)| (p.as_str(), t.as_str())));
        write(&root, &files);
        let options = BuildOptions {
            load_restrictor: LoadRestrictor::None,
            ..Default::default()
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let cache = FileCache::default();
        let out = pool
            .install(|| build_with_files(&root.join("top"), &options, &cache))
            .unwrap();
        assert_eq!(out.resmap.len(), 48);
        for file in ["big1.yaml", "big2.yaml"] {
            let loads = cache.loads(&root.join(file));
            assert!((1..=6).contains(&loads), "{file}: {loads}");
        }
    }

    /// A file one kustomization may read and another may not: the second
    /// reference is refused although the first one loaded the file.
    #[test]
    fn load_restrictor_applies_per_reference() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        for (field, sub) in [
            (
                "resources",
                "namePrefix: sub-\nresources:\n- ../deployment.yaml\n",
            ),
            (
                "patches",
                "resources:\n- ../deployment.yaml\npatches:\n- path: ../patch.yaml\n",
            ),
        ] {
            let top = root.join(field);
            let top_k = match field {
                "resources" => "resources:\n- deployment.yaml\n- sub\n",
                _ => "resources:\n- sub\npatches:\n- path: patch.yaml\n",
            };
            write(
                &top,
                &[
                    ("kustomization.yaml", top_k),
                    ("deployment.yaml", DEPLOYMENT),
                    ("patch.yaml", DEPLOYMENT),
                    ("sub/kustomization.yaml", sub),
                ],
            );
            let files = FileCache::default();
            let restricted = BuildOptions::default();
            let err = build_with_files(&top, &restricted, &files)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("security: file '../deployment.yaml'"),
                "{field}: {err}"
            );
            let options = BuildOptions {
                load_restrictor: LoadRestrictor::None,
                ..Default::default()
            };
            let files = FileCache::default();
            build_with_files(&top, &options, &files).unwrap();
            assert_eq!(files.loads(&top.join("deployment.yaml")), 1, "{field}");
        }
        // The patch file alone outside the sub-kustomization's root.
        let top = root.join("patch-only");
        write(
            &top,
            &[
                (
                    "kustomization.yaml",
                    "resources:\n- sub\npatches:\n- path: patch.yaml\n",
                ),
                ("patch.yaml", DEPLOYMENT),
                (
                    "sub/kustomization.yaml",
                    "resources:\n- deployment.yaml\npatches:\n- path: ../patch.yaml\n",
                ),
                ("sub/deployment.yaml", DEPLOYMENT),
            ],
        );
        let err = build_with_files(&top, &BuildOptions::default(), &FileCache::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("security: file '../patch.yaml'"), "{err}");
    }
}
