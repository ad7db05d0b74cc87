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
    /// Resolves `resources` entry `index`, `entry`: a directory to build, or a file's
    /// resources. The path is the graph's when it resolved it (see build/graph.rs).
    pub(super) fn prepare_resource(
        &self,
        ldr: &Loader,
        index: usize,
        entry: &str,
    ) -> Result<Prepared> {
        if let Some(prepared) = self.prepare_remote_resource(ldr, entry)? {
            return Ok(prepared);
        }
        let (real, kind) = match self.ctx.graph.resolved(ldr.root(), false, index) {
            Some((real, kind)) => (real.to_path_buf(), kind),
            None => ldr.resolve(entry, "resource")?,
        };
        if kind == EntryType::Dir {
            ldr.check_base(&real, entry)?;
            return Ok(Prepared::Dir(real));
        }
        // Per reference: another kustomization may have read the file already.
        ldr.check(&real, entry)?;
        let mut resources = self.ctx.cache.resources(&real, || {
            let bytes = ldr.read_resolved(&real, kind)?;
            // Resource files count against the output budget like everything else the
            // output is made of, so that it bounds the whole output (and the memory a
            // build holds): the file's size, once per read.
            self.ctx.budget.charge(bytes.len() as u64, "resources")?;
            crate::resource::parse::parse_resources(bytes, &real)
        })?;
        if self.inh.meta.unwrap_or_default().any() {
            for r in &mut resources {
                r.origin = Some(Box::new(Origin::File(real.clone())));
            }
        }
        super::provenance::read_from(self.recording(), &mut resources, &real);
        Ok(Prepared::Resources(resources))
    }

    /// A `resources` entry that is remote, as kustomize tries it: a file first (an
    /// http(s) URL is fetched; a 2xx body that parses is the file), then a base in a git
    /// repository; `None` for a local path. A git repository already in the clone cache
    /// at an immutable ref is taken without asking the network whether the URL is a file.
    fn prepare_remote_resource(&self, ldr: &Loader, entry: &str) -> Result<Option<Prepared>> {
        let is_file_url = load::is_remote_file(entry);
        let repo = crate::remote::RepoSpec::parse(entry).ok();
        // A local file comes first, as kustomize reads an entry as a file before anything
        // else (a local directory named like a repository does not: kustomize clones).
        let local_file = || ldr.kind_of(entry) == Some(crate::load::FileKind::File);
        if !is_file_url && (repo.is_none() || local_file()) {
            return Ok(None);
        }
        if let Some(spec) = &repo
            && ldr.files().remote().cached_immutable(spec)
        {
            return Ok(ldr.remote_base(entry)?.map(Prepared::Dir));
        }
        let mut file_error = None;
        if is_file_url {
            // Named without its credentials: the name reaches error messages.
            let url = std::path::PathBuf::from(crate::remote::git::redact(entry));
            let url = url.as_path();
            match ldr.fetch(entry) {
                Ok(body) => match self
                    .ctx
                    .budget
                    .charge(body.len() as u64, "resources")
                    .and_then(|()| crate::resource::parse::parse_resources(body.to_vec(), url))
                {
                    Ok(mut resources) => {
                        if self.inh.meta.unwrap_or_default().any() {
                            for r in &mut resources {
                                r.origin = Some(Box::new(Origin::Url {
                                    dir: ldr.root().to_path_buf(),
                                    entry: entry.to_string(),
                                }));
                            }
                        }
                        super::provenance::read_from(self.recording(), &mut resources, url);
                        return Ok(Some(Prepared::Resources(resources)));
                    }
                    Err(e) => file_error = Some(e),
                },
                // An http error status for a URL that cannot be a repository ends it, as
                // in kustomize.
                Err(e) if repo.is_none() => return Err(e),
                Err(e) => file_error = Some(e),
            }
        }
        match ldr.remote_base(entry) {
            Ok(Some(dir)) => Ok(Some(Prepared::Dir(dir))),
            // A body that is not YAML says more than the failed clone (kustomize).
            Err(e) => match file_error {
                Some(f) if f.kind() == crate::error::ErrorKind::Yaml => Err(f),
                Some(f) => Err(load::tried_as_file(e, &f)),
                None => Err(e),
            },
            Ok(None) => Err(file_error.unwrap_or_else(|| {
                Error::msg(format!(
                    "'{}' is neither a file nor a git repository",
                    crate::remote::git::redact(entry)
                ))
            })),
        }
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
                append(loaded, resources);
            }
            Prepared::Built(built) => {
                let built = *built;
                // The schema state flows on from the base; what it gathered is appended.
                self.inh.schema.continue_from(built.schema);
                self.out.absorb(built.out);
                acc.config.merge_with(&built.acc.config, &self.ctx.merges)?;
                transform::vars::absorb(&mut acc.vars, built.acc.vars)?;
                append(loaded, built.acc.resmap.resources);
            }
        }
        Ok(())
    }

    /// Notes resources loaded before any `openapi:` schema was set (see `builtin_loaded`).
    pub(super) fn note_loaded(&mut self, resources: &[Resource]) {
        let schema = &mut self.inh.schema;
        if schema.schemas.is_none() && !schema.builtin_loaded {
            schema.builtin_loaded = resources.iter().any(|r| {
                let gvk = r.gvk();
                crate::openapi::loads_builtin_schema(&gvk.group, &gvk.version, &gvk.kind)
            });
        }
    }

    /// Builds `components` entry `index`, `entry`, into `acc`; the path is the graph's
    /// when it resolved it (see build/graph.rs).
    pub(super) fn accumulate_component(
        &mut self,
        ldr: &Loader,
        index: usize,
        entry: &str,
        acc: &mut Accumulator,
    ) -> Result<()> {
        // An entry that may name a git repository is the build's to resolve: kustomize
        // tries the repository before the file system.
        let planned = match crate::remote::RepoSpec::parse(entry) {
            Ok(_) => None,
            Err(_) => self.ctx.graph.resolved(ldr.root(), true, index),
        };
        let (real, kind) = match planned {
            Some((real, kind)) => (real.to_path_buf(), kind),
            None => match ldr.remote_base(entry)? {
                Some(dir) => (dir, EntryType::Dir),
                None => ldr.resolve(entry, "component")?,
            },
        };
        ldr.check_base(&real, entry)?;
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
        config.merge_with(&acc.config, &self.ctx.merges)?;
        acc.config = config;
        Ok(())
    }
}

/// Appends `more` to `loaded`, taking `more`'s vector over when `loaded` is empty (the
/// usual case for a kustomization with one big resource file): no second vector of
/// the resources at once.
fn append(loaded: &mut Vec<Resource>, more: Vec<Resource>) {
    if loaded.is_empty() {
        *loaded = more;
    } else {
        loaded.extend(more);
    }
}
