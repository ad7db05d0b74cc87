//! A kustomization's `resources` and `components`: files parsed into
//! resources, bases built into accumulators, components built into the
//! including kustomization's accumulator.

use super::{Accumulator, Builder, Expect, parallel};
use crate::config::TransformerConfig;
use crate::error::{Error, Result};
use crate::load::canonical::EntryType;
use crate::load::{self, Loader};
use crate::resource::{Origin, Resource};
use crate::transform;
use std::path::PathBuf;

/// A `resources` entry after reading.
pub(super) enum Prepared {
    Dir(PathBuf),
    Resources(Vec<Resource>),
    /// A base already built (see build/parallel.rs).
    Built(Box<parallel::Built>),
}

impl Builder<'_> {
    /// Resolves a `resources` entry: a directory to build, or a file's resources.
    pub(super) fn prepare_resource(&self, ldr: &Loader, entry: &str) -> Result<Prepared> {
        if load::is_remote(entry) && ldr.kind_of(entry).is_none() {
            return Err(Error::Unsupported {
                what: "remote resources (git or http URLs) are not supported: kbuild builds only local files".into(),
                hint: Some("clone the repository and list the local path under 'resources'".into()),
            });
        }
        let (real, kind) = ldr.resolve(entry, "resource")?;
        if kind == EntryType::Dir {
            return Ok(Prepared::Dir(real));
        }
        // Per reference: another kustomization may have read the file already.
        ldr.check(&real, entry)?;
        let mut resources = self.cache.resources(&real, || {
            crate::resource::parse::parse_resources(ldr.read_resolved(&real, kind)?, &real)
        })?;
        if self.meta.unwrap_or_default().origin {
            for r in &mut resources {
                r.origin = Some(Origin::File(real.clone()));
            }
        }
        Ok(Prepared::Resources(resources))
    }

    pub(super) fn accumulate_resource(
        &mut self,
        entry: &str,
        prepared: Result<Prepared>,
        acc: &mut Accumulator,
        loaded: &mut Vec<Resource>,
    ) -> Result<()> {
        match prepared? {
            Prepared::Dir(real) => {
                // A base built in order: with a copy of this builder's state,
                // taken back below, as for one built ahead.
                let built = self.build_base(real, entry)?;
                return self.accumulate_resource(
                    entry,
                    Ok(Prepared::Built(Box::new(built))),
                    acc,
                    loaded,
                );
            }
            Prepared::Resources(resources) => {
                self.note_loaded(&resources);
                loaded.extend(resources);
            }
            Prepared::Built(built) => {
                let built = *built;
                self.schemas = built.schemas;
                self.builtin_loaded |= built.builtin_loaded;
                self.warnings.extend(built.warnings);
                // The smaller set goes into the larger: on a chain of bases each level
                // adds one directory, not all those below it again.
                let mut below = built.visited;
                if below.len() > self.visited.len() {
                    std::mem::swap(&mut self.visited, &mut below);
                }
                self.visited.extend(below);
                acc.config.merge(&built.acc.config)?;
                transform::vars::absorb(&mut acc.vars, built.acc.vars)?;
                loaded.extend(built.acc.resmap.resources);
            }
        }
        Ok(())
    }

    /// Notes resources loaded before any `openapi:` schema was set (see `builtin_loaded`).
    pub(super) fn note_loaded(&mut self, resources: &[Resource]) {
        if self.schemas.is_none() && !self.builtin_loaded {
            self.builtin_loaded = resources.iter().any(|r| {
                let gvk = r.gvk();
                crate::openapi::loads_builtin_schema(&gvk.group, &gvk.version, &gvk.kind)
            });
        }
    }

    pub(super) fn accumulate_component(
        &mut self,
        ldr: &Loader,
        entry: &str,
        acc: &mut Accumulator,
    ) -> Result<()> {
        let (real, kind) = ldr.resolve(entry, "component")?;
        if kind != EntryType::Dir {
            return Err(Error::invalid_config(format!(
                "component '{entry}' is not a directory holding a kustomization file of kind Component"
            )));
        }
        self.check_cycle(&real, entry)?;
        self.accumulate(&ldr.child(real), acc, Expect::Component)?;
        // kustomize hands the including kustomization a fresh accumulator after a
        // component, with the configuration merged into an empty one again: a spec that a
        // more specific one now covers drops out (see `config_merge`).
        let mut config = TransformerConfig::empty();
        config.merge(&acc.config)?;
        acc.config = config;
        Ok(())
    }
}
