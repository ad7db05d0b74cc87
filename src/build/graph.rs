//! The kustomization graph: kustomizations, components, remote roots and files
//! as nodes; the entries of kustomization files as edges, each with its origin
//! (the kustomization file, the field, the index and the entry as written).
//!
//! It is resolved once, by one walk, and queried by everything that asks what a
//! kustomization reads:
//!
//! - before a build (`Graph::for_build`), which the build then evaluates: each
//!   kustomization's file is its node's (`kustomization_file`), each `resources` and
//!   `components` entry leads where its edge leads (`resolved`), so paths are
//!   resolved once; the graph's size decides whether the build uses the thread pool
//!   (`SMALL_BUILD`); and which resource files and bases are
//!   referenced several times, so that the build keeps their parse or their build
//!   until the last reference takes it (build/cache.rs, build/memo.rs). Only
//!   `resources` and `components` are followed, as the build follows them; other
//!   entries are recorded at their lexical path without touching the file system,
//!   so the plan costs no system call the build would not make anyway (every
//!   path it resolves lands in the build's resolved-path cache). Silent: what it
//!   cannot read, the build reports.
//! - for `kbuild deps`, `render --affected`, `diff --ref` and the pre-commit hook
//!   (`Graph::for_inputs`): every entry that may be a directory is followed,
//!   remote entries too when a [`Session`] is given, and the first problem is an
//!   error (see deps.rs).
//!
//! Which fields name files is `kustomization::files::named`, an exhaustive
//! destructuring of the model: a new field cannot escape the graph unnoticed.

use super::cache::FileCache;
use super::chain::Chain;
use crate::error::{Error, Result};
use crate::kustomization::Kustomization;
use crate::kustomization::files::{self, Field, Named, Place};
use crate::load::{self, Files, canonical::EntryType};
use crate::remote::{RemoteInput, RepoSpec, Session};
use foldhash::HashMap;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// How many nodes a build's graph has at least for the build to use the thread pool:
/// below it, starting the pool's threads costs more than it saves (a tree of a few
/// dozen small files builds in a few milliseconds on one thread).
pub(crate) const SMALL_BUILD: usize = 64;

/// A node's index in [`Graph::nodes`].
pub type NodeId = usize;

/// What a node is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A directory holding a kustomization file (of kind Component when `component`).
    Kustomization {
        /// The kustomization file.
        file: PathBuf,
        /// Whether it is a Component.
        component: bool,
    },
    /// A remote entry: a git repository (followed to its kustomization when the graph
    /// was resolved with a remote session; `commit` is what its ref resolved to), or a
    /// file URL (`commit` is `None`).
    Remote {
        /// The URL, credentials redacted.
        url: String,
        /// The commit the ref resolved to.
        commit: Option<String>,
    },
    /// A file an entry names (`exists` is false for a path that was not found, or not
    /// looked for).
    File {
        /// Whether the file was found.
        exists: bool,
    },
}

/// A node: a kustomization directory, a remote root or a file.
#[derive(Clone, Debug)]
pub struct Node {
    /// The real path (a directory for a kustomization; the lexical path of a file not
    /// found; the URL of a remote root).
    pub path: PathBuf,
    /// What it is.
    pub kind: NodeKind,
    /// False for a file of a kustomization fetched from a git repository.
    pub local: bool,
}

/// Where an edge comes from: an entry of a kustomization file.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The kustomization file (empty for the root of a build given as a URL).
    pub file: PathBuf,
    /// The kind of field.
    pub field: Field,
    /// Where in the file (`resources[2]`); its line and column are found on demand
    /// ([`Place::position`]), as only errors need them.
    pub place: Place,
    /// The entry as written.
    pub entry: String,
}

/// An entry: from the kustomization that names it to what it names.
#[derive(Clone, Debug)]
pub struct Edge {
    /// The kustomization (or remote root) holding the entry.
    pub from: NodeId,
    /// What the entry names.
    pub to: NodeId,
    /// The entry.
    pub origin: Origin,
    /// Whether the entry names a kustomization already on the path that led to it (a
    /// cycle; the build fails on it).
    pub cyclic: bool,
}

/// The resolved graph (see the module comment).
#[derive(Debug, Default)]
pub struct Graph {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Keyed by the path's bytes (real paths are clean): hashing a `Path` goes component
    /// by component, and the build looks every kustomization up here.
    by_path: HashMap<std::ffi::OsString, NodeId>,
    /// For the build (`for_build` only): what each walked kustomization's `resources`
    /// and `components` entries resolved to, by entry index.
    planned: HashMap<NodeId, Planned>,
}

/// A walked kustomization's `resources` and `components` entries, by index: what each
/// resolved to, when the walk could resolve it cleanly (`None`: remote, missing, not
/// walked; the build resolves those itself and reports what is wrong).
#[derive(Debug, Default)]
struct Planned {
    resources: Vec<Option<Target>>,
    components: Vec<Option<Target>>,
}

/// Where an entry leads, as the build uses it.
#[derive(Clone, Copy, Debug)]
struct Target {
    edge: usize,
    /// What the real path is: [`EntryType::Dir`] for a kustomization directory,
    /// [`EntryType::File`] for a regular file.
    kind: EntryType,
}

impl Graph {
    /// The nodes.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The edges, each kustomization's in entry order.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The node of `path` (a real path), if the graph has one.
    pub fn node(&self, path: &Path) -> Option<NodeId> {
        self.by_path.get(path.as_os_str()).copied()
    }

    /// The kustomization file of the kustomization in `dir` (a real path), when the walk
    /// before the build decoded it (it is then in the build's file cache).
    pub(crate) fn kustomization_file(&self, dir: &Path) -> Option<&Path> {
        let id = self.node(dir)?;
        self.planned.get(&id)?;
        match &self.nodes[id].kind {
            NodeKind::Kustomization { file, .. } if !file.as_os_str().is_empty() => Some(file),
            _ => None,
        }
    }

    /// What entry `index` of the `resources` (or, with `components`, the `components`)
    /// of the kustomization in `dir` resolved to: a kustomization directory not on a
    /// cycle, or a regular file, with its real path. `None` for an entry the build must
    /// resolve itself (remote, missing, a cycle, anything unusual): the graph is silent,
    /// the build reports.
    pub(crate) fn resolved(
        &self,
        dir: &Path,
        components: bool,
        index: usize,
    ) -> Option<(&Path, EntryType)> {
        let planned = self.planned.get(&self.node(dir)?)?;
        let list = if components {
            &planned.components
        } else {
            &planned.resources
        };
        let target = (*list.get(index)?)?;
        let edge = &self.edges[target.edge];
        if edge.cyclic {
            return None;
        }
        Some((&self.nodes[edge.to].path, target.kind))
    }

    /// How many kustomizations and files the walk met: a build this small is evaluated
    /// on one thread (starting the pool costs more than it saves).
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Adds the node of `path` unless it is there; whether it was added.
    fn add(&mut self, path: &Path, kind: NodeKind, local: bool) -> (NodeId, bool) {
        if let Some(&id) = self.by_path.get(path.as_os_str()) {
            return (id, false);
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            path: path.to_path_buf(),
            kind,
            local,
        });
        self.by_path.insert(path.as_os_str().to_owned(), id);
        (id, true)
    }

    /// The local files a build reads: kustomization files and the files entries name
    /// (those not found at their lexical path), in path order.
    pub fn input_files(&self) -> BTreeSet<PathBuf> {
        self.nodes
            .iter()
            .filter(|n| n.local)
            .filter_map(|n| match &n.kind {
                NodeKind::Kustomization { file, .. } => Some(file.clone()),
                NodeKind::File { .. } => Some(n.path.clone()),
                NodeKind::Remote { .. } => None,
            })
            .collect()
    }

    /// The remote entries: git repositories with their commits, file URLs; sorted.
    pub fn remote_inputs(&self) -> Vec<RemoteInput> {
        let set: BTreeSet<RemoteInput> = self
            .nodes
            .iter()
            .filter_map(|n| match &n.kind {
                NodeKind::Remote { url, commit } => Some(RemoteInput {
                    url: url.clone(),
                    commit: commit.clone(),
                }),
                _ => None,
            })
            .collect();
        set.into_iter().collect()
    }

    /// How many times a build evaluates each node's entries: once for a
    /// kustomization (a base listed several times is built once, build/memo.rs);
    /// for a component, once per evaluation of each kustomization that lists it.
    /// Cycles count nothing (the build fails on them).
    fn evaluations(&self, top: NodeId) -> Vec<usize> {
        let followed = |e: &Edge| {
            !e.cyclic
                && matches!(e.origin.field, Field::Resources | Field::Components)
                && matches!(self.nodes[e.to].kind, NodeKind::Kustomization { .. })
        };
        // Kahn's order over the followed edges: a node's count is complete when every
        // edge into it is counted. Nodes on a cycle are never complete, and count 0.
        let mut into = vec![0usize; self.nodes.len()];
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        for (i, e) in self.edges.iter().enumerate() {
            if followed(e) {
                into[e.to] += 1;
                out[e.from].push(i);
            }
        }
        let mut evals = vec![0usize; self.nodes.len()];
        if let Some(top) = evals.get_mut(top) {
            *top = 1;
        }
        let mut ready: Vec<NodeId> = (0..self.nodes.len()).filter(|&n| into[n] == 0).collect();
        while let Some(n) = ready.pop() {
            for &i in &out[n] {
                let e = &self.edges[i];
                // Saturating: components listed by components on many levels multiply.
                let more = match e.origin.field {
                    // Built once, whatever lists it (when anything evaluated lists it).
                    Field::Resources => usize::from(evals[n] > 0 && evals[e.to] == 0),
                    _ => evals[n],
                };
                evals[e.to] = evals[e.to].saturating_add(more);
                into[e.to] -= 1;
                if into[e.to] == 0 {
                    ready.push(e.to);
                }
            }
        }
        evals
    }

    /// How many `resources` entries a build of `top` evaluates for each node (resource
    /// files and bases), by real path; only paths referenced more than once.
    /// Resource files and bases come apart: `(files, bases)`.
    pub(crate) fn shared_references(
        &self,
        top: NodeId,
    ) -> (HashMap<OsString, usize>, HashMap<OsString, usize>) {
        let evals = self.evaluations(top);
        // Counted by node (one per real path), and only those counted twice or more
        // keyed by their path: a map keyed by every path of a large tree took a
        // millisecond on one thread before the build could start.
        let mut refs = vec![0usize; self.nodes.len()];
        for e in &self.edges {
            let counted = match self.nodes[e.to].kind {
                NodeKind::File { exists } => exists,
                NodeKind::Kustomization { .. } => !e.cyclic,
                NodeKind::Remote { .. } => false,
            };
            if e.origin.field == Field::Resources && counted && evals[e.from] > 0 {
                refs[e.to] = refs[e.to].saturating_add(evals[e.from]);
            }
        }
        let mut files: HashMap<OsString, usize> = HashMap::default();
        let mut bases: HashMap<OsString, usize> = HashMap::default();
        for (node, n) in self.nodes.iter().zip(refs).filter(|(_, n)| *n > 1) {
            let into = match node.kind {
                NodeKind::File { .. } => &mut files,
                _ => &mut bases,
            };
            into.insert(node.path.clone().into_os_string(), n);
        }
        (files, bases)
    }

    /// Resolves the graph a build of `root` (a real path) follows (see the module
    /// comment), decoding kustomization files into `cache`.
    pub(crate) fn for_build(files: &Files, cache: &FileCache, root: &Path) -> (Graph, NodeId) {
        let walk = BuildWalk {
            files,
            cache,
            graph: Mutex::default(),
        };
        walk.kustomization(root, &Chain::default());
        let graph = walk
            .graph
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let top = graph.node(root).unwrap_or(0);
        (graph, top)
    }

    /// Resolves everything a build of `dir` may read, for `deps` (see deps.rs): `dir`
    /// is a real directory, or a git URL when `remote` is given.
    pub(crate) fn for_inputs(dir: &Path, remote: Option<&Session>) -> Result<Graph> {
        let mut walk = InputsWalk {
            graph: Graph::default(),
            remote,
        };
        match dir
            .to_str()
            .filter(|d| remote.is_some() && RepoSpec::parse(d).is_ok())
        {
            // A git URL as the root, read as the build reads it (kustomize's loader tries
            // the repo-spec parse before the file system).
            Some(url) => {
                let origin = Origin {
                    file: PathBuf::new(),
                    field: Field::Resources,
                    place: Place::item("resources", 0),
                    entry: url.to_string(),
                };
                // A placeholder holding the entry: neither a local input nor a remote one
                // (the checkout it leads to is).
                let (root, _) =
                    walk.graph
                        .add(Path::new(url), NodeKind::File { exists: false }, false);
                walk.file_or_dir(root, Path::new(""), &origin)?
            }
            None => {
                walk.kustomization(dir)?;
            }
        }
        Ok(walk.graph)
    }
}

fn remote_kind(url: &str) -> NodeKind {
    NodeKind::Remote {
        url: crate::remote::git::redact(url),
        commit: None,
    }
}

fn origin(file: &Path, named: &Named<'_>) -> Origin {
    Origin {
        file: file.to_path_buf(),
        field: named.field,
        place: named.place,
        entry: named.path.to_string(),
    }
}

/// The walk before a build.
struct BuildWalk<'a> {
    files: &'a Files,
    cache: &'a FileCache,
    graph: Mutex<Graph>,
}

/// What a `resources` or `components` entry resolved to.
enum Resolved {
    Dir(PathBuf),
    File(PathBuf, EntryType),
    Missing(PathBuf),
    Remote,
}

impl BuildWalk<'_> {
    fn graph(&self) -> std::sync::MutexGuard<'_, Graph> {
        self.graph.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn kustomization(&self, dir: &Path, chain: &Chain) {
        // A cycle: the build stops there with an error; so does a tree too deep.
        if chain.len() >= super::depth::MAX_DEPTH || chain.reaches(dir) {
            return;
        }
        super::depth::grow_past(chain.len(), || self.kustomization_here(dir, chain))
    }

    /// [`Self::kustomization`] on this stack segment.
    fn kustomization_here(&self, dir: &Path, chain: &Chain) {
        let paths = self.files.paths();
        let Ok(file) = paths.kustomization_file(dir, self.files.restrictor()) else {
            return;
        };
        let Ok(k) = self.cache.kustomization(&file.path, || {
            crate::load::read_kustomization_file(self.files, &file)
        }) else {
            return;
        };
        let kind = NodeKind::Kustomization {
            file: file.path.clone(),
            component: k.is_component(),
        };
        let from = {
            let mut graph = self.graph();
            let (id, _) = graph.add(dir, kind.clone(), true);
            // A directory first met as another entry's target is a kustomization.
            graph.nodes[id].kind = kind;
            id
        };
        let chain = chain.with(dir.to_path_buf());
        let named = files::named(&k);
        let resolve = |n: &Named<'_>| self.resolve(dir, n);
        // Paths are resolved on all cores only when there are many of them: a small
        // build never starts the thread pool for its plan.
        const MANY: usize = 64;
        let resolved: Vec<Option<Resolved>> = if named.len() >= MANY {
            named.par_iter().map(resolve).collect()
        } else {
            named.iter().map(resolve).collect()
        };
        let mut follow = Vec::new();
        let mut planned = Planned {
            resources: vec![None; k.resources.len()],
            components: vec![None; k.components.len()],
        };
        {
            let mut graph = self.graph();
            for (n, r) in named.iter().zip(resolved) {
                let kind = match &r {
                    Some(Resolved::Dir(_)) => Some(EntryType::Dir),
                    Some(Resolved::File(_, EntryType::File)) => Some(EntryType::File),
                    _ => None,
                };
                let slot = match (n.place.key, n.place.index, n.place.sub) {
                    ("resources", Some(i), None) => planned.resources.get_mut(i),
                    ("components", Some(i), None) => planned.components.get_mut(i),
                    _ => None,
                };
                if let (Some(slot), Some(kind)) = (slot, kind) {
                    *slot = Some(Target {
                        edge: graph.edges.len(),
                        kind,
                    });
                }
                let (to, new, cyclic) = match r {
                    Some(Resolved::Dir(real)) => {
                        let cyclic = chain.reaches(&real);
                        let kind = NodeKind::Kustomization {
                            file: PathBuf::new(),
                            component: n.field == Field::Components,
                        };
                        let (to, new) = graph.add(&real, kind, true);
                        if new && !cyclic {
                            follow.push(real);
                        }
                        (to, new, cyclic)
                    }
                    Some(Resolved::File(real, _)) => {
                        let (to, new) = graph.add(&real, NodeKind::File { exists: true }, true);
                        (to, new, false)
                    }
                    Some(Resolved::Missing(path)) => {
                        let (to, new) = graph.add(&path, NodeKind::File { exists: false }, true);
                        (to, new, false)
                    }
                    Some(Resolved::Remote) => {
                        let (to, new) = graph.add(Path::new(n.path), remote_kind(n.path), false);
                        (to, new, false)
                    }
                    None => continue,
                };
                let _ = new;
                graph.edges.push(Edge {
                    from,
                    to,
                    origin: origin(&file.path, n),
                    cyclic,
                });
            }
            graph.planned.insert(from, planned);
        }
        // In parallel once the graph is big enough for the pool to pay, or from the
        // start for a kustomization with several bases (an aggregate of overlays): its
        // walk reads and decodes every kustomization file below, and the build starts the
        // pool for those bases anyway (1 ms of the 17 ms the small bench tree took).
        // An overlay with one or two bases never starts it here.
        const MANY_BASES: usize = 4;
        if follow.len() >= MANY_BASES || follow.len() >= 2 && self.graph().len() >= SMALL_BUILD {
            follow
                .par_iter()
                .for_each(|real| self.kustomization(real, &chain));
        } else {
            for real in &follow {
                self.kustomization(real, &chain);
            }
        }
    }

    /// Where an entry leads: resolved for `resources` and `components` (what the
    /// build resolves too), the lexical path for others.
    fn resolve(&self, dir: &Path, n: &Named<'_>) -> Option<Resolved> {
        let follows = matches!(n.field, Field::Resources | Field::Components);
        if follows && load::is_remote(n.path) || load::is_remote_file(n.path) {
            return Some(Resolved::Remote);
        }
        let joined = load::join_clean(dir, n.path);
        if !follows {
            return Some(Resolved::Missing(joined));
        }
        let what = match n.field {
            Field::Components => "component",
            _ => "resource",
        };
        match self.files.paths().resolve(&joined, what) {
            Ok((real, EntryType::Dir)) => Some(Resolved::Dir(real)),
            Ok((real, kind)) if n.field == Field::Resources => Some(Resolved::File(real, kind)),
            Ok(_) => None,
            Err(_) => Some(Resolved::Missing(joined)),
        }
    }
}

/// The walk for `deps`: everything a build may read, the first problem an error.
struct InputsWalk<'r> {
    graph: Graph,
    /// Resolves git entries, when remote inputs are asked for.
    remote: Option<&'r Session>,
}

impl InputsWalk<'_> {
    /// Whether `path` is inside a git checkout (a file of it is no local input).
    fn local(&self, path: &Path) -> bool {
        self.remote
            .is_none_or(|r| r.clone_containing(path).is_none())
    }

    /// Walks the kustomization in `dir` (a real path) unless it was walked.
    fn kustomization(&mut self, dir: &Path) -> Result<NodeId> {
        if let Some(id) = self.graph.node(dir)
            && matches!(self.graph.nodes[id].kind, NodeKind::Kustomization { .. })
        {
            return Ok(id);
        }
        let (file, k) = load::read_kustomization(dir)?;
        let local = self.local(&file);
        let kind = NodeKind::Kustomization {
            file: file.clone(),
            component: k.is_component(),
        };
        let (id, _) = self.graph.add(dir, kind, local);
        self.body(id, dir, &file, &k)
            .map_err(|e| e.context(format!("in {}", file.display())))?;
        Ok(id)
    }

    fn body(&mut self, from: NodeId, dir: &Path, file: &Path, k: &Kustomization) -> Result<()> {
        for named in files::named(k) {
            let origin = origin(file, &named);
            if named.may_be_dir() {
                self.file_or_dir(from, dir, &origin)?;
            } else {
                self.file(from, dir, origin);
            }
        }
        self.helm_charts(from, dir, file, k);
        Ok(())
    }

    fn edge(&mut self, from: NodeId, to: NodeId, origin: Origin) {
        self.graph.edges.push(Edge {
            from,
            to,
            origin,
            cyclic: false,
        });
    }

    /// The files of the helm charts vendored in the chart home (`<chartHome>/<name>`, or
    /// `<chartHome>/<name>-<version>/<name>` for a chart with a version and a repo). A chart
    /// that would be pulled names no local input.
    fn helm_charts(&mut self, from: NodeId, dir: &Path, file: &Path, k: &Kustomization) {
        use crate::kustomization::helm::charts_and_globals;
        let (charts, globals) = charts_and_globals(
            &k.helm_charts,
            k.helm_globals.as_ref(),
            &k.helm_chart_inflation_generator,
        );
        let home = if globals.chart_home.is_empty() {
            "charts"
        } else {
            &globals.chart_home
        };
        let home = load::join_clean(dir, home);
        for (i, c) in charts.iter().enumerate() {
            let mut chart = home.clone();
            if !c.version.is_empty() && !c.repo.is_empty() {
                chart.push(format!("{}-{}", c.name, c.version));
            }
            chart.push(&c.name);
            for entry in walkdir::WalkDir::new(&chart).into_iter().flatten() {
                if entry.file_type().is_file() {
                    let path = entry.path();
                    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                    let local = self.local(&path);
                    let (to, _) = self
                        .graph
                        .add(&path, NodeKind::File { exists: true }, local);
                    let origin = Origin {
                        file: file.to_path_buf(),
                        field: Field::HelmChart,
                        place: Place::inner("helmCharts", i, "name", None),
                        entry: c.name.clone(),
                    };
                    self.edge(from, to, origin);
                }
            }
        }
    }

    /// A resource-like entry: a file, or a directory that is walked in turn.
    fn file_or_dir(&mut self, from: NodeId, dir: &Path, origin: &Origin) -> Result<()> {
        let entry = origin.entry.as_str();
        if let Ok(spec) = RepoSpec::parse(entry) {
            let Some(remote) = self.remote else {
                return Ok(());
            };
            // As the build: an http(s) entry that is a file is a file, unless the
            // repository it may name is at hand already.
            if load::is_remote_file(entry)
                && !remote.cached_immutable(&spec)
                && remote.get_file(entry).is_ok()
            {
                self.file(from, dir, origin.clone());
                return Ok(());
            }
            let checkout = remote.checkout(&spec)?;
            let url = crate::remote::git::redact(entry);
            let kind = NodeKind::Remote {
                url: url.clone(),
                commit: Some(checkout.commit.clone()),
            };
            let (root, _) = self.graph.add(
                Path::new(&format!("{url}\0{}", checkout.commit)),
                kind,
                false,
            );
            self.edge(from, root, origin.clone());
            let base = load::join_clean(&checkout.dir, &spec.kust_root);
            // As the build: the path must stay in the checkout after symlinks, so that
            // a repository cannot make `deps` read a kustomization of this machine.
            let real = load::canonical(&base, "directory")?;
            in_checkout(&real, &checkout.dir, entry)?;
            let to = self
                .kustomization(&real)
                .map_err(|e| e.context(format!("following '{url}'")))?;
            self.edge(root, to, origin.clone());
            return Ok(());
        }
        if load::is_remote_file(entry) {
            self.file(from, dir, origin.clone());
            return Ok(());
        }
        let joined = load::join_clean(dir, entry);
        if joined.is_dir() {
            let real = load::canonical(&joined, "directory")?;
            // A base of a remote kustomization stays in its checkout (the build's
            // `check_base`).
            if let Some(repo) = self.remote.and_then(|r| r.clone_containing(dir)) {
                in_checkout(&real, &repo, entry)?;
            }
            let to = self
                .kustomization(&real)
                .map_err(|e| e.context(format!("following '{entry}'")))?;
            self.edge(from, to, origin.clone());
            return Ok(());
        }
        self.file(from, dir, origin.clone());
        Ok(())
    }

    fn file(&mut self, from: NodeId, dir: &Path, origin: Origin) {
        let entry = origin.entry.as_str();
        if load::is_remote_file(entry) {
            // A URL names no local input; listed as it is, not fetched.
            if self.remote.is_some() {
                let (to, _) = self.graph.add(Path::new(entry), remote_kind(entry), false);
                self.edge(from, to, origin);
            }
            return;
        }
        let joined = load::join_clean(dir, entry);
        let (path, exists) = match std::fs::canonicalize(&joined) {
            Ok(real) => (real, true),
            Err(_) => (joined, false),
        };
        let local = self.local(&path);
        let (to, _) = self.graph.add(&path, NodeKind::File { exists }, local);
        self.edge(from, to, origin);
    }
}

/// Refuses `real`, which `entry` of a kustomization in the checkout `repo` resolved to,
/// when it is outside that checkout.
fn in_checkout(real: &Path, repo: &Path, entry: &str) -> Result<()> {
    if real.starts_with(repo) {
        return Ok(());
    }
    Err(Error::msg(format!(
        "security: bases in kustomizations found in cloned git repos must be within the repo, but base '{}' ({}) is outside '{}'",
        crate::remote::git::redact(entry),
        real.display(),
        repo.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{LoadRestrictor, MemFs};
    use std::sync::Arc;

    /// Three overlays of one base, each with the same component, which lists a
    /// resource file: the component is evaluated three times, the base once.
    #[test]
    fn references_count_evaluations() {
        let overlay =
            |p: &str| format!("namePrefix: {p}-\nresources:\n- ../base\ncomponents:\n- ../comp\n");
        let fs = MemFs::new()
            .file(
                "/t/top/kustomization.yaml",
                "resources:\n- ../a\n- ../b\n- ../c\n",
            )
            .file("/t/a/kustomization.yaml", overlay("a"))
            .file("/t/b/kustomization.yaml", overlay("b"))
            .file("/t/c/kustomization.yaml", overlay("c"))
            .file(
                "/t/base/kustomization.yaml",
                "resources:\n- d.yaml\n- missing.yaml\n",
            )
            .file("/t/base/d.yaml", "kind: X\n")
            .file(
                "/t/comp/kustomization.yaml",
                "kind: Component\nresources:\n- sa.yaml\npatches:\n- path: p.yaml\n",
            )
            .file("/t/comp/sa.yaml", "kind: Y\n");
        let files = Files::new(Arc::new(fs), LoadRestrictor::None);
        let cache = FileCache::default();
        let (graph, top) = Graph::for_build(&files, &cache, Path::new("/t/top"));
        let (shared_files, bases) = graph.shared_references(top);
        let files: Vec<_> = shared_files.into_iter().collect();
        assert_eq!(files, [(OsString::from("/t/comp/sa.yaml"), 3)]);
        assert_eq!(bases.get(std::ffi::OsStr::new("/t/base")), Some(&3));
        // Every entry is an edge with its origin; the patch is at its lexical path.
        let patch = graph
            .edges()
            .iter()
            .find(|e| e.origin.field == Field::Patches)
            .unwrap();
        assert_eq!(patch.origin.place.to_string(), "patches[0].path");
        assert_eq!(graph.nodes()[patch.to].path, Path::new("/t/comp/p.yaml"));
        assert_eq!(
            graph.nodes()[patch.to].kind,
            NodeKind::File { exists: false }
        );
        let missing = graph.node(Path::new("/t/base/missing.yaml")).unwrap();
        assert_eq!(
            graph.nodes()[missing].kind,
            NodeKind::File { exists: false }
        );
    }

    /// What the build takes from the graph: each walked kustomization's file, and where
    /// its `resources` and `components` entries lead; nothing for what the build must
    /// resolve (and report) itself.
    #[test]
    fn the_build_follows_resolved_entries() {
        let fs = MemFs::new()
            .file(
                "/t/top/kustomization.yaml",
                "resources:\n- ../base\n- d.yaml\n- missing.yaml\n- https://example.com/x.yaml\ncomponents:\n- ../comp\n- ../comp/c.yaml\n",
            )
            .file("/t/top/d.yaml", "kind: X\n")
            .file("/t/base/kustomization.yaml", "resources:\n- ../top\n")
            .file("/t/comp/kustomization.yaml", "kind: Component\n")
            .file("/t/comp/c.yaml", "kind: Y\n");
        let files = Files::new(Arc::new(fs), LoadRestrictor::None);
        let (graph, _) = Graph::for_build(&files, &FileCache::default(), Path::new("/t/top"));
        let top = Path::new("/t/top");
        assert_eq!(
            graph.kustomization_file(top),
            Some(Path::new("/t/top/kustomization.yaml"))
        );
        let resolved = |components, i| graph.resolved(top, components, i);
        assert_eq!(
            resolved(false, 0),
            Some((Path::new("/t/base"), EntryType::Dir))
        );
        assert_eq!(
            resolved(false, 1),
            Some((Path::new("/t/top/d.yaml"), EntryType::File))
        );
        assert_eq!(resolved(false, 2), None);
        assert_eq!(resolved(false, 3), None);
        assert_eq!(
            resolved(true, 0),
            Some((Path::new("/t/comp"), EntryType::Dir))
        );
        // A file listed as a component is the build's to refuse.
        assert_eq!(resolved(true, 1), None);
        // The base's entry back to the top is a cycle: the build reports it.
        assert_eq!(graph.resolved(Path::new("/t/base"), false, 0), None);
        assert!(graph.len() < SMALL_BUILD);
    }

    #[test]
    fn a_cycle_is_an_edge_not_followed() {
        let fs = MemFs::new()
            .file("/t/a/kustomization.yaml", "resources:\n- ../b\n")
            .file("/t/b/kustomization.yaml", "resources:\n- ../a\n");
        let files = Files::new(Arc::new(fs), LoadRestrictor::None);
        let (graph, top) = Graph::for_build(&files, &FileCache::default(), Path::new("/t/a"));
        let cyclic: Vec<_> = graph.edges().iter().filter(|e| e.cyclic).collect();
        assert_eq!(cyclic.len(), 1);
        assert_eq!(cyclic[0].origin.file, Path::new("/t/b/kustomization.yaml"));
        assert!(graph.shared_references(top).1.is_empty());
    }
}
