//! The resource map: resources in accumulation order, with id lookups.

use crate::error::{Error, Result};
use crate::resource::id::ResId;
use crate::resource::{IdKey, Resource};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

/// Ids are hashed on every append, at every level of a tree: a fast hasher (the keys are
/// the build's own resources, not an attacker's).
type FastState = foldhash::fast::FixedState;

/// Resources from which the per-resource helpers of [`ResMap`] ([`ResMap::map_each`],
/// [`ResMap::try_for_each_mut`], [`ResMap::for_each_mut`]) run on the thread pool: a build
/// this large has started the pool's threads already, and each resource's share is worth
/// a hand-over.
const PARALLEL_RESOURCES: usize = 64;

/// An ordered collection of resources.
#[derive(Clone, Debug, Default)]
pub struct ResMap {
    /// The resources in order: accumulation order during a build, output order after it.
    pub resources: Vec<Resource>,
}

/// Key under which kustomize considers two ids the same ("" namespace equals
/// "default").
fn id_key(id: &ResId) -> (String, String, String, String, String) {
    (
        id.gvk.group.to_string(),
        id.gvk.version.to_string(),
        id.gvk.kind.to_string(),
        id.effective_namespace().to_string(),
        id.name.to_string(),
    )
}

/// kustomize's compact id text used in its messages (`Kind.version.group/name.namespace`).
pub fn id_text(id: &ResId) -> String {
    let or = |s: &str, d: &str| {
        if s.is_empty() {
            d.to_string()
        } else {
            s.to_string()
        }
    };
    format!(
        "{}.{}.{}/{}.{}",
        id.gvk.kind,
        or(&id.gvk.version, "[noVer]"),
        or(&id.gvk.group, "[noGrp]"),
        id.name,
        or(&id.namespace, "[noNs]")
    )
}

impl ResMap {
    /// An empty resource map.
    pub fn new() -> ResMap {
        ResMap::default()
    }

    /// The number of resources.
    pub fn len(&self) -> usize {
        self.resources.len()
    }

    /// Whether the map holds no resource.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty()
    }

    /// The resources in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Resource> {
        self.resources.iter()
    }

    /// The resources in order, for changing them in place.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Resource> {
        self.resources.iter_mut()
    }

    /// Whether the per-resource helpers run on the thread pool.
    fn on_pool(&self) -> bool {
        self.resources.len() >= PARALLEL_RESOURCES
    }

    /// `f` of every resource, in resource order, made on the thread pool for a map of
    /// [`PARALLEL_RESOURCES`] or more.
    pub(crate) fn map_each<R: Send>(&self, f: impl Fn(&Resource) -> R + Sync + Send) -> Vec<R> {
        if self.on_pool() {
            use rayon::prelude::*;
            self.resources.par_iter().map(f).collect()
        } else {
            self.resources.iter().map(f).collect()
        }
    }

    /// Runs `f` on every resource (with its position and a working state from `init`,
    /// one per thread), on the thread pool for a map of [`PARALLEL_RESOURCES`] or more: for
    /// steps that change each resource on its own. The results are in resource order; the
    /// error is the first resource's, as one thread running them in order would find it.
    pub(crate) fn try_for_each_mut<S, R: Send>(
        &mut self,
        init: impl Fn() -> S + Sync + Send,
        f: impl Fn(&mut S, usize, &mut Resource) -> Result<R> + Sync + Send,
    ) -> Result<Vec<R>> {
        if !self.on_pool() {
            let mut state = init();
            return self
                .resources
                .iter_mut()
                .enumerate()
                .map(|(i, r)| f(&mut state, i, r))
                .collect();
        }
        use rayon::prelude::*;
        let results: Vec<Result<R>> = self
            .resources
            .par_iter_mut()
            .enumerate()
            .map_init(init, |state, (i, r)| f(state, i, r))
            .collect();
        results.into_iter().collect()
    }

    /// [`ResMap::try_for_each_mut`] for a step that cannot fail and needs no working state.
    pub(crate) fn for_each_mut(&mut self, f: impl Fn(&mut Resource) + Sync + Send) {
        if !self.on_pool() {
            self.resources.iter_mut().for_each(f);
        } else {
            use rayon::prelude::*;
            self.resources.par_iter_mut().for_each(f);
        }
    }

    /// Appends resources, refusing any whose current id is already present
    /// (among the existing ones or the new ones).
    pub fn append_all(&mut self, new: Vec<Resource>) -> Result<()> {
        let mut seen: HashSet<IdKey, FastState> = HashSet::with_capacity_and_hasher(
            self.resources.len() + new.len(),
            FastState::default(),
        );
        seen.extend(self.resources.iter().map(Resource::id_key));
        for r in &new {
            if !seen.insert(r.id_key()) {
                let id = id_text(&r.id());
                return Err(Error::duplicate_id(
                    id.clone(),
                    format!(
                        "may not add resource with an already registered id: {id} (two resources have the same kind, namespace and name)"
                    ),
                ));
            }
        }
        drop(seen);
        self.resources.extend(new);
        Ok(())
    }

    /// Where the first resource of `new` whose id is taken ([`ResMap::append_all`]'s
    /// refusal) clashes: the index in `new` of the earlier holder (`None`: one already in
    /// the map), and its own index in `new`. None: [`ResMap::extend_checked`] may append.
    pub fn first_clash(&self, new: &[Resource]) -> Option<(Option<usize>, usize)> {
        // Only resources of the map named like one of `new` can clash: their names are
        // read first (one lookup each), and only those get a whole id. This runs for every
        // entry appended to a growing map, where a key for every resource in it made
        // accumulating quadratic in id reads.
        // A name that is not a plain string (`name: 123`) has a text a string can equal:
        // then every resource is looked at.
        let mut names: Option<HashSet<&str, FastState>> = Some(HashSet::with_capacity_and_hasher(
            new.len(),
            FastState::default(),
        ));
        for r in new {
            match (&mut names, r.name_text()) {
                (Some(set), Some(name)) => {
                    set.insert(name);
                }
                _ => {
                    names = None;
                    break;
                }
            }
        }
        let may_clash = |r: &Resource| match (&names, r.name_text()) {
            (Some(names), Some(name)) => names.contains(name),
            _ => true,
        };
        #[derive(Clone, Copy)]
        enum Holder {
            Map(usize),
            New(usize),
        }
        let in_map: Vec<usize> = (0..self.resources.len())
            .filter(|&i| may_clash(&self.resources[i]))
            .collect();
        let mut seen = SeenIds::with_capacity(in_map.len() + new.len(), |h: Holder| match h {
            Holder::Map(i) => self.resources[i].id_key(),
            Holder::New(i) => new[i].id_key(),
        });
        for i in in_map {
            seen.holder_or_insert(&self.resources[i].id_key(), Holder::Map(i));
        }
        for (i, r) in new.iter().enumerate() {
            match seen.holder_or_insert(&r.id_key(), Holder::New(i)) {
                Some(Holder::Map(_)) => return Some((None, i)),
                Some(Holder::New(j)) => return Some((Some(j), i)),
                None => {}
            }
        }
        None
    }

    /// Appends resources [`ResMap::first_clash`] found no clash in.
    pub fn extend_checked(&mut self, new: Vec<Resource>) {
        if self.resources.is_empty() {
            // Taken as it is: a copy held both lists at once (a file of 800,000 objects
            // made 211 MB of resources twice over).
            self.resources = new;
        } else {
            self.resources.extend(new);
        }
    }

    /// The first pair of resources that share a current id, if any.
    pub fn find_conflict(&self) -> Option<(usize, usize)> {
        let mut seen =
            SeenIds::with_capacity(self.resources.len(), |i: usize| self.resources[i].id_key());
        for (i, r) in self.resources.iter().enumerate() {
            if let Some(j) = seen.holder_or_insert(&r.id_key(), i) {
                return Some((j, i));
            }
        }
        None
    }

    /// Refuses two resources with the same current id, as kustomize does wherever it
    /// rebuilds its resource list (`Append`: "may not add resource with an already
    /// registered id"); `when` says where that is, and what led there.
    pub fn refuse_clash(&self, when: &str) -> crate::error::Result<()> {
        let Some((a, b)) = self.find_conflict() else {
            return Ok(());
        };
        let (a, b) = (&self.resources[a], &self.resources[b]);
        let id = id_text(&a.id());
        let (oa, ob) = (a.orig_id(), b.orig_id());
        let holders = if oa == ob {
            format!("two resources, both originally {oa}, have it")
        } else {
            format!("{oa} and {ob} both have it")
        };
        Err(crate::error::Error::duplicate_id(
            id.clone(),
            format!(
                "may not add resource with an already registered id: {id}: {holders} {when}; give one of them another name, namespace or kind"
            ),
        ))
    }

    /// An index of [`Self::find_by_any_id`]'s answers, for many lookups in a row (each
    /// generator of a kustomization looks its id up: a scan each was quadratic).
    pub fn any_id_index(&self) -> AnyIdIndex {
        let mut index = AnyIdIndex::default();
        for (i, r) in self.resources.iter().enumerate() {
            index.add(i, r);
        }
        index
    }

    /// Positions of resources whose current or any previous id equals `id`
    /// (kustomize equality: "" and "default" namespaces are the same).
    pub fn find_by_any_id(&self, id: &ResId) -> Vec<usize> {
        self.resources
            .iter()
            .enumerate()
            .filter(|(_, r)| r.has_id(id) || r.prev_ids.iter().any(|p| p.equals(id)))
            .map(|(i, _)| i)
            .collect()
    }
}

/// Positions of resources by their current and previous ids (see
/// [`ResMap::any_id_index`]); kept up to date by the caller with [`AnyIdIndex::add`]
/// as it appends resources, as long as no resource changes its id meanwhile.
#[derive(Default)]
pub struct AnyIdIndex {
    positions: HashMap<(String, String, String, String, String), Vec<usize>, FastState>,
}

impl AnyIdIndex {
    /// Notes the resource `r` at position `i` (after those already noted).
    pub fn add(&mut self, i: usize, r: &Resource) {
        for id in std::iter::once(r.id()).chain(r.prev_ids.iter().cloned()) {
            let at = self.positions.entry(id_key(&id)).or_default();
            // A previous id equal to the current one (or another previous one)
            // names the same resource once.
            if at.last() != Some(&i) {
                at.push(i);
            }
        }
    }

    /// [`ResMap::find_by_any_id`], in position order.
    pub fn find(&self, id: &ResId) -> &[usize] {
        self.positions.get(&id_key(id)).map_or(&[], Vec::as_slice)
    }
}

/// The ids met so far, each held as a handle (a resource's index) that `key_of` reads the
/// id from again: a table of whole ids cost 136 bytes a resource (about 150 MB, and twice
/// that while it grew, for a file of 800,000 objects). Sized once, for every id to come.
struct SeenIds<H, K> {
    table: hashbrown::HashTable<H>,
    key_of: K,
    state: FastState,
}

impl<'r, H: Copy, K: Fn(H) -> IdKey<'r>> SeenIds<H, K> {
    fn with_capacity(capacity: usize, key_of: K) -> Self {
        SeenIds {
            table: hashbrown::HashTable::with_capacity(capacity),
            key_of,
            state: FastState::default(),
        }
    }

    /// The holder of `key` when it was met before; else `holder` is kept for it.
    fn holder_or_insert(&mut self, key: &IdKey<'_>, holder: H) -> Option<H> {
        let hash = self.state.hash_one(key);
        let key_of = &self.key_of;
        if let Some(&earlier) = self.table.find(hash, |&o| key_of(o) == *key) {
            return Some(earlier);
        }
        let state = &self.state;
        self.table
            .insert_unique(hash, holder, |&o| state.hash_one(key_of(o)));
        None
    }
}
