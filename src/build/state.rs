//! The state of a build, split by who shares it: one [`BuildContext`] for the
//! whole build (files, caches, options, budget, sessions), and for each
//! kustomization being built what it starts from ([`Inherited`], a copy of the
//! including kustomization's) and what it hands back ([`Gathered`]).
//!
//! A base built on another thread gets a clone of the `Inherited` part and an
//! empty `Gathered` one; when its turn comes, [`Builder::take_back`] folds what it
//! gathered, and the schema it leaves set, into the including kustomization's state.
//! Nothing is copied or merged field by field elsewhere.

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
}

/// What a kustomization's build starts from: the including kustomization's state at
/// the entry that names it.
#[derive(Clone, Default)]
pub(super) struct Inherited {
    /// Directories being built, outermost first (for cycle detection).
    pub(super) chain: Chain,
    /// The top kustomization's `buildMetadata` (set when it is loaded).
    pub(super) meta: Option<BuildMeta>,
    /// A custom schema from an `openapi:` field. Like kustomize's global
    /// schema setting, it applies from the kustomization that sets it on.
    pub(super) schemas: Option<SchemaRef>,
    /// Whether kustomize would have loaded its built-in schema by now (see
    /// `openapi::loads_builtin_schema`): a custom schema set then goes on top of it.
    pub(super) builtin_loaded: bool,
    /// The namespace helm charts without one get: the nearest `namespace` of this
    /// kustomization or one including it (kustomize v5.8.0 and later; `None` before).
    pub(super) helm_namespace: Option<String>,
}

/// What a kustomization's build gathers for the one including it.
#[derive(Clone, Default)]
pub(super) struct Gathered {
    /// Warnings so far (see [`super::BuildOutput::warnings`]), in entry order.
    pub(super) warnings: Vec<String>,
    /// What its entries did, for the warning about those that change nothing.
    pub(super) noops: super::noop::Noops,
    /// The kustomization directories this build has gone through.
    pub(super) visited: Visited,
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

    /// Takes back what a base's build (with [`Self::for_base`]) left: its warnings and
    /// the directories it went through, and the schema state it ends with, which
    /// applies to everything built after it (kustomize keeps the schema globally).
    pub(super) fn take_back(&mut self, inh: Inherited, out: Gathered) {
        self.inh.schemas = inh.schemas;
        self.inh.builtin_loaded |= inh.builtin_loaded;
        self.out.warnings.extend(out.warnings);
        self.out.noops.extend(out.noops);
        // The smaller set goes into the larger: on a chain of bases each level
        // adds one directory, not all those below it again.
        let mut below = out.visited;
        if below.len() > self.out.visited.len() {
            std::mem::swap(&mut self.out.visited, &mut below);
        }
        self.out.visited.extend(below);
    }
}
