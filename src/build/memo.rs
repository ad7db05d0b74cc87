//! Bases built once per build: a base that several kustomizations list (a
//! diamond: two overlays of one base, both under one aggregate) is built the
//! first time and copied for the other references, instead of being built
//! again along every path — which, on trees of stacked diamonds, is
//! exponential in the depth.
//!
//! A base's build depends on the directory and on two pieces of builder state
//! it starts from (the `openapi:` schema chosen so far and whether kustomize
//! would have loaded its built-in schema), so those are the key. It also
//! depends on the chain of kustomizations being built, but only through the
//! cycle check: a copy is used only when none of the directories the base's
//! build went through would be a cycle under the current chain; otherwise the
//! base is built again and fails as it would have. A failed build is kept as
//! its error (unless the error is a cycle, which depends on the chain): the
//! resources of a kustomization are all prepared before the first error is
//! reported, so without it a failing base under stacked diamonds would be
//! built once per path. Builds are kept only for bases the plan
//! (build/cache.rs) expects to be listed more than once; the last expected
//! reference takes the kept build itself.

use super::SchemaRef;
use super::chain::Chain;
use super::parallel::Built;
use super::state::SchemaState;
use foldhash::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// What a base's build depends on besides its files.
#[derive(Clone, Debug)]
pub(super) struct Key {
    pub(super) dir: PathBuf,
    pub(super) schema: SchemaState,
    /// The namespace its helm charts inherit (kustomize v5.8.0 and later).
    pub(super) helm_namespace: Option<String>,
    /// Whether it records every resource's provenance (see `Inherited::record_everything`).
    pub(super) record_everything: bool,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.dir == other.dir
            && self.helm_namespace == other.helm_namespace
            && self.record_everything == other.record_everything
            && self.schema.same(&other.schema)
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.dir.hash(state);
        self.schema.builtin_loaded.hash(state);
        self.helm_namespace.hash(state);
        self.record_everything.hash(state);
        self.schema.schemas.as_ref().map(SchemaRef::id).hash(state);
    }
}

/// One base's kept build and how many more references the plan expects.
#[derive(Default)]
pub(super) struct Slot {
    built: Option<Built>,
    /// The first build's error: later references fail the same way (a base
    /// that fails under one path fails under every path with the same key,
    /// cycles aside, which are built again).
    failed: Option<crate::error::Error>,
    left: usize,
    /// A build was kept (and maybe taken since): later references build anew.
    done: bool,
}

impl Slot {
    /// A copy of the kept build, if there is one and its build went through no
    /// directory that `chain` makes a cycle; the last expected reference
    /// takes the kept build itself.
    pub(super) fn take(&mut self, chain: &Chain) -> Option<Built> {
        let built = self.built.as_ref()?;
        if built
            .out
            .visited
            .iter()
            .any(|v| chain.reaches(Path::new(v)))
        {
            return None;
        }
        if self.left <= 1 {
            self.left = 0;
            return self.built.take();
        }
        self.left -= 1;
        Some(built.clone())
    }

    /// The error the first build of the base gave, if it failed.
    pub(super) fn failure(&self) -> Option<crate::error::Error> {
        self.failed.as_ref().map(crate::error::Error::duplicate)
    }

    /// Notes that the base failed to build with `error`.
    pub(super) fn fail(&mut self, error: &crate::error::Error) {
        if error.kind() != crate::error::ErrorKind::Cycle {
            self.failed = Some(error.duplicate());
        }
    }

    /// Whether an earlier reference built the base already.
    pub(super) fn done(&self) -> bool {
        self.done
    }

    /// Keeps a copy of `built` for `left` more references.
    pub(super) fn keep(&mut self, built: &Built, left: usize) {
        self.done = true;
        if left > 0 {
            self.built = Some(built.clone());
            self.left = left;
        }
    }
}

/// The bases built so far in one build.
#[derive(Default)]
pub(super) struct Memo {
    slots: Mutex<HashMap<Key, Arc<Mutex<Slot>>>>,
}

impl Memo {
    /// The slot of the base built under `key`. Its lock is held while the
    /// base is built, so that references built in parallel wait for one
    /// build (through `cache::lock_slot`, which never waits when that could
    /// deadlock: the caller then builds without the memo).
    pub(super) fn slot(&self, key: Key) -> Arc<Mutex<Slot>> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots.entry(key).or_default().clone()
    }
}
