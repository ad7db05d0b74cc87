//! Building the `resources` of a kustomization in parallel: files are read
//! and parsed, and bases (directories) are built, on all cores.
//!
//! The result must be what building the bases one after another gives, down
//! to which error is reported. Bases are independent except for one piece of
//! builder state: the schema an `openapi:` field selects applies from the
//! kustomization that sets it on, to everything built after it (kustomize
//! keeps it globally). So a base built in parallel is kept only when the
//! schema it started from is the one the sequential order would have given
//! it; the bases after one that changed the schema are built again, in
//! order, by the caller.
//!
//! The same holds for whether kustomize would have loaded its built-in schema when a base
//! sets a custom one (`SchemaState::builtin_loaded`): a base that set a schema starting from
//! another value than the sequential order gives is built again too.

use super::memo::Key;
use super::state::{Gathered, SchemaState};
use super::{Accumulator, Builder, Expect, Prepared, SchemaRef};
use crate::error::Result;
use crate::load::Loader;
use crate::load::canonical::EntryType;
use rayon::prelude::*;

/// A base built ahead of its turn (or kept for another reference, see memo.rs).
#[derive(Clone)]
pub(super) struct Built {
    pub(super) acc: Accumulator,
    /// The schema state the base's build ends with (see build/state.rs).
    pub(super) schema: SchemaState,
    /// What the base's build gathered: warnings (reported in entry order), the
    /// kustomization directories it went through.
    pub(super) out: Gathered,
    /// The directory, for building it again in order when needed.
    pub(super) dir: std::path::PathBuf,
    changed_schemas: bool,
}

impl Builder<'_> {
    /// Reads every `resources` entry of the kustomization in `dir`, building
    /// bases, in parallel; results come in entry order.
    pub(super) fn prepare_resources(
        &self,
        ldr: &Loader,
        entries: &[String],
    ) -> Vec<Result<Prepared>> {
        let prepare = |(i, entry): (usize, &String)| match self.prepare_resource(ldr, i, entry)? {
            Prepared::Dir(real) => self
                .build_base(real, entry)
                .map(|b| Prepared::Built(Box::new(b))),
            other => Ok(other),
        };
        let mut prepared: Vec<Result<Prepared>> = if self.worth_parallel(ldr, entries) {
            entries.par_iter().enumerate().map(prepare).collect()
        } else {
            entries.iter().enumerate().map(prepare).collect()
        };
        // After a base that changed the schema, later bases were built with
        // the wrong one: hand them back as directories to build in order.
        let mut changed = false;
        // `builtin_loaded` as the sequential order has it before each entry.
        let mut loaded = self.inh.schema.builtin_loaded;
        for p in prepared.iter_mut() {
            match p {
                Ok(Prepared::Built(b))
                    if changed
                        || (b.changed_schemas && loaded != self.inh.schema.builtin_loaded) =>
                {
                    let dir = std::mem::take(&mut b.dir);
                    *p = Ok(Prepared::Dir(dir));
                    changed = true;
                }
                Ok(Prepared::Built(b)) => {
                    changed = b.changed_schemas;
                    loaded |= b.schema.builtin_loaded;
                }
                Ok(Prepared::Resources(resources)) => {
                    loaded |= resources.iter().any(|r| {
                        let gvk = r.gvk();
                        crate::openapi::loads_builtin_schema(&gvk.group, &gvk.version, &gvk.kind)
                    });
                }
                // The sequential order stops at the first error.
                Err(_) => break,
                _ => {}
            }
        }
        prepared
    }

    /// Whether `entries` are worth handing to the thread pool: two or more of them with
    /// a base among them, or many files, in a build big enough (by its graph) for the
    /// pool to pay. Otherwise they are read in order on this thread, and a small build
    /// never starts the pool (starting its threads costs more than reading a few small
    /// files).
    fn worth_parallel(&self, ldr: &Loader, entries: &[String]) -> bool {
        const MANY_FILES: usize = 8;
        if entries.len() < 2 || self.ctx.graph.len() < super::graph::SMALL_BUILD {
            return false;
        }
        if entries.len() >= MANY_FILES {
            return true;
        }
        (0..entries.len()).any(|i| {
            // An entry the graph did not resolve fails (or is fetched) the same way in
            // either order.
            !matches!(
                self.ctx.graph.resolved(ldr.root(), false, i),
                Some((_, EntryType::File))
            )
        })
    }

    /// Builds one base with a copy of this builder's state, or copies the
    /// build of an earlier reference to it (see memo.rs).
    pub(super) fn build_base(&self, real: std::path::PathBuf, entry: &str) -> Result<Built> {
        self.check_cycle(&real, entry)?;
        let expected = self.ctx.cache.base_refs(&real);
        if expected < 2 {
            return self.build_base_anew(real);
        }
        let slot = self.ctx.memo.slot(Key {
            dir: real.clone(),
            schema: self.inh.schema.clone(),
            helm_namespace: self.inh.helm_namespace.clone(),
            record_everything: self.inh.record_everything,
        });
        let Some(mut slot) = super::cache::lock_slot(&slot) else {
            return self.build_base_anew(real);
        };
        if let Some(built) = slot.take(&self.inh.chain) {
            return Ok(built);
        }
        if let Some(error) = slot.failure() {
            return Err(error);
        }
        if slot.done() {
            return self.build_base_anew(real);
        }
        match self.build_base_anew(real) {
            Ok(built) => {
                slot.keep(&built, expected - 1);
                Ok(built)
            }
            Err(error) => {
                slot.fail(&error);
                Err(error)
            }
        }
    }

    /// Builds one base with a copy of this builder's state.
    fn build_base_anew(&self, real: std::path::PathBuf) -> Result<Built> {
        let mut builder = self.for_base();
        let mut acc = Accumulator::default();
        builder.accumulate(
            &self.ctx.files.at(real.clone()),
            &mut acc,
            Expect::Kustomization,
        )?;
        let changed_schemas = !SchemaRef::same(
            self.inh.schema.schemas.as_ref(),
            builder.inh.schema.schemas.as_ref(),
        );
        Ok(Built {
            acc,
            schema: builder.inh.schema,
            out: builder.out,
            dir: real,
            changed_schemas,
        })
    }
}
