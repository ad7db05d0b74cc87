//! The state of a build, split by who shares it: one [`BuildContext`] for the
//! whole build (files, caches, options, budget, sessions), and for each
//! kustomization being built what it starts from ([`Inherited`], a copy of the
//! including kustomization's) and what it hands back ([`Gathered`]).
//!
//! A base is built with a clone of the `Inherited` part and an empty `Gathered` one
//! (on this thread or another); its result is its accumulator, what it gathered and
//! the schema state it ends with (build/parallel.rs `Built`), taken in entry order by
//! the including kustomization: the schema state replaces its own, what was gathered
//! is appended ([`Gathered::absorb`]). Nothing else flows back.

use super::chain::Chain;
use super::openapi::SchemaRef;
use super::{Builder, Plugins, Visited, cache, depth, memo};
use crate::kustomize_version::KustomizeVersion;
use crate::load::Files;
use crate::resource::budget::Budget;
use crate::transform::build_metadata::BuildMeta;

/// What every kustomization of one build shares: read-only, or synchronised inside.
pub(super) struct BuildContext<'o> {
    /// The build's files: file system, restrictor, resolved paths, remote session.
    pub(super) files: &'o Files,
    /// The kustomize release being reproduced.
    pub(super) version: KustomizeVersion,
    /// Which plugins kustomize would run (see build/plugins.rs).
    pub(super) plugins: Plugins,
    /// How external plugins run (see the `plugin` module).
    pub(super) external: &'o crate::plugin::Options,
    /// The kustomization graph, resolved before the build: the build follows its
    /// `resources` and `components` edges (see build/graph.rs).
    pub(super) graph: &'o super::graph::Graph,
    /// Files read and parsed so far (see build/cache.rs).
    pub(super) cache: &'o cache::FileCache,
    /// Bases built so far (see build/memo.rs).
    pub(super) memo: &'o memo::Memo,
    /// How many kustomizations were built so far (see build/depth.rs).
    pub(super) builds: &'o depth::Builds,
    /// What amplifying fields may create (see resource/budget.rs).
    pub(super) budget: &'o Budget,
    /// The build's helm runs (see helm/mod.rs).
    pub(super) helm: &'o crate::helm::Session,
    /// Configurations merged so far (see `config::MergeMemo`).
    pub(super) merges: crate::config::MergeMemo,
    /// Whether resources record where their fields come from, and which (see
    /// build/provenance.rs).
    pub(super) provenance: super::provenance::Recording<'o>,
    /// The top kustomization's directory (`buildMetadata` paths are relative to it).
    pub(super) root: &'o std::path::Path,
}

/// What a kustomization's build starts from: the including kustomization's state at
/// the entry that names it. Scoped: the including kustomization's own is unchanged by
/// the base's build, except for the schema, which flows on (see [`SchemaState`]).
#[derive(Clone, Default)]
pub(super) struct Inherited {
    /// Directories being built, outermost first (for cycle detection).
    pub(super) chain: Chain,
    /// The top kustomization's `buildMetadata` (set when it is loaded).
    pub(super) meta: Option<BuildMeta>,
    /// The schema chosen so far.
    pub(super) schema: SchemaState,
    /// The namespace helm charts without one get: the nearest `namespace` of this
    /// kustomization or one including it (kustomize v5.8.0 and later; `None` before).
    pub(super) helm_namespace: Option<String>,
    /// Record the provenance of every resource, whatever `BuildOptions::provenance_only`
    /// says: set while building the kustomization a `generators:` or `transformers:` entry
    /// names, whose configurations' files are taken from their records.
    pub(super) record_everything: bool,
}

/// kustomize's schema setting, which kustomize keeps globally: the first `openapi:`
/// field met in build order applies from there on, to everything built after it. So it
/// flows through the build in order: a base starts from the including kustomization's
/// and hands back the one it ends with (build/parallel.rs rebuilds the bases built
/// ahead from a state the order would not have given them).
#[derive(Clone, Debug, Default)]
pub(super) struct SchemaState {
    /// A custom schema from an `openapi:` field.
    pub(super) schemas: Option<SchemaRef>,
    /// Whether kustomize would have loaded its built-in schema by now (see
    /// `openapi::loads_builtin_schema`): a custom schema set then goes on top of it.
    pub(super) builtin_loaded: bool,
}

impl SchemaState {
    /// Whether both select the same schema, from the same starting point.
    pub(super) fn same(&self, other: &SchemaState) -> bool {
        self.builtin_loaded == other.builtin_loaded
            && SchemaRef::same(self.schemas.as_ref(), other.schemas.as_ref())
    }

    /// The state after a base that ended with `base`: its schema, and the built-in one
    /// loaded if it was loaded here or there (a base built ahead of its turn started
    /// from an earlier state, and may not have seen what loaded it here).
    pub(super) fn continue_from(&mut self, base: SchemaState) {
        self.schemas = base.schemas;
        self.builtin_loaded |= base.builtin_loaded;
    }
}

/// What a kustomization's build gathers for the one including it.
#[derive(Clone, Default)]
pub(super) struct Gathered {
    /// Warnings so far (see [`super::BuildOutput::warnings`]), in entry order: kept
    /// with the base's result rather than in the shared context, so that bases built
    /// in parallel report them in the order a sequential build would.
    pub(super) warnings: super::warning_list::WarningList,
    /// What its entries did, for the warning about those that change nothing.
    pub(super) noops: super::noop::Noops,
    /// The kustomization directories this build has gone through.
    pub(super) visited: Visited,
}

impl Gathered {
    /// Appends what a base's build gathered.
    pub(super) fn absorb(&mut self, base: Gathered) {
        self.warnings.absorb(base.warnings);
        self.noops.extend(base.noops);
        // The smaller set goes into the larger: on a chain of bases each level
        // adds one directory, not all those below it again.
        let mut below = base.visited;
        if below.len() > self.visited.len() {
            std::mem::swap(&mut self.visited, &mut below);
        }
        self.visited.extend(below);
    }
}

impl<'o> Builder<'o> {
    /// The builder of a base of this kustomization: the shared context, this
    /// kustomization's state, nothing gathered yet.
    pub(super) fn for_base(&self) -> Builder<'o> {
        Builder {
            ctx: self.ctx,
            inh: self.inh.clone(),
            out: Gathered::default(),
        }
    }
}

/// What a finished build worked with and no longer needs: the files it parsed, the
/// graph, the bases it kept for later references and, when it recorded provenance, the
/// copy of each resource its record compared the steps with. It goes out with the
/// [`super::BuildOutput`] rather than being freed before the output is returned, so that
/// a process about to exit can skip freeing it by forgetting the output (the CLI does:
/// on a tree of 1,500 resources that is about a millisecond of one thread, between the
/// last transformer and the first byte written). Nothing in it holds an outside
/// resource: the remote and helm sessions, which remove temporary directories when
/// dropped, are not part of it.
#[derive(Default)]
#[expect(dead_code, reason = "held only to be freed with the output")]
pub(super) struct Workings {
    pub(super) cache: Option<cache::FileCache>,
    pub(super) graph: Option<super::graph::Graph>,
    pub(super) memo: Option<memo::Memo>,
    /// The copies of the resources provenance records kept (see `provenance::finished`).
    pub(super) records: Vec<crate::yaml::Node>,
}

impl std::fmt::Debug for Workings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Workings { .. }")
    }
}
