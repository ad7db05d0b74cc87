//! The build pipeline: load a kustomization, recurse into its resources and
//! components, generate, transform, and hand back the final resource map.
//!
//! The order of steps follows kustomize: resources, configurations and CRDs,
//! generators, components, transformers, validators; then, once, at the top:
//! name hashes, name references, vars and the output sort.

use crate::config::TransformerConfig;
use crate::error::{Error, Result};
use crate::kustomization::Kustomization;
use crate::load::{self, LoadRestrictor};
use crate::merge::smp::MergeOptions;
use crate::openapi::Schemas;
use crate::resource::resmap::ResMap;
use crate::resource::{Configured, Origin, Resource};
use crate::transform::build_metadata::BuildMeta;
use crate::transform::builtin::env::Env;
use crate::transform::builtin::{Step, configs, fields};
use crate::transform::{self};
use crate::yaml::{self, Node};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Runs one built-in transformer step and, when `buildMetadata` asks for
/// transformer annotations, notes it on every resource.
fn run_step(
    step: &Step,
    rm: &mut ResMap,
    env: &mut Env,
    warnings: &mut Vec<String>,
    record: bool,
    configured_in: &Path,
) -> Result<()> {
    step.run(rm, env, warnings)?;
    if record && step.record {
        let kind = step.builtin.kind();
        for r in rm.iter_mut() {
            r.transformations.push(Configured {
                configured_in: configured_in.to_path_buf(),
                kind,
                name: step.config_name.clone(),
                namespace: step.config_namespace.clone(),
            });
        }
    }
    Ok(())
}

/// Options of a build.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub load_restrictor: LoadRestrictor,
}

/// What a kustomization (and everything below it) has produced so far.
#[derive(Debug)]
pub struct Accumulator {
    pub resmap: ResMap,
    /// Starts empty, as kustomize's accumulator does: bases' configurations and the
    /// kustomization's own (built-in plus `configurations:`) are merged in.
    pub config: TransformerConfig,
    /// Vars declared here and below, bound to their resources.
    pub vars: transform::vars::VarSet,
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            resmap: ResMap::default(),
            config: TransformerConfig::empty(),
            vars: transform::vars::VarSet::default(),
        }
    }
}

/// What a build produced: the resources and warnings about the input (kbuild's own, beyond
/// kustomize; they never change the resources). The library does not print them.
#[derive(Debug, Default)]
pub struct BuildOutput {
    pub resmap: ResMap,
    /// One line each, without a "warning:" prefix.
    pub warnings: Vec<String>,
}

/// Builds the kustomization in `dir`.
pub fn build(dir: &Path, options: &BuildOptions) -> Result<ResMap> {
    build_with_warnings(dir, options).map(|out| out.resmap)
}

/// Builds the kustomization in `dir` and returns the warnings too.
pub fn build_with_warnings(dir: &Path, options: &BuildOptions) -> Result<BuildOutput> {
    build_with_files(dir, options, &files::FileCache::default())
}

/// [`build_with_warnings`] reading files through `files`.
fn build_with_files(
    dir: &Path,
    options: &BuildOptions,
    files: &files::FileCache,
) -> Result<BuildOutput> {
    let root = load::canonical(dir, "kustomization directory")?;
    if !root.is_dir() {
        return Err(Error::msg(format!(
            "'{}' is not a directory; kbuild builds a directory holding a kustomization file",
            dir.display()
        )));
    }
    let canonical = canonical::CanonicalCache::default();
    canonical.seed(&root);
    files.plan(&canonical, &root);
    let mut builder = Builder {
        options,
        chain: Vec::new(),
        meta: None,
        schemas: None,
        builtin_loaded: false,
        warnings: Vec::new(),
        canonical: &canonical,
        files,
    };
    let mut acc = Accumulator::default();
    let kust = builder.accumulate(&root, &mut acc, Expect::Kustomization)?;
    finish(&mut acc, &kust, builder.meta.unwrap_or_default(), &root)?;
    Ok(BuildOutput {
        resmap: acc.resmap,
        warnings: builder.warnings,
    })
}

/// Steps done once, at the top of the build.
fn finish(acc: &mut Accumulator, top: &Kustomization, meta: BuildMeta, root: &Path) -> Result<()> {
    crate::transform::build_metadata::annotate(&mut acc.resmap, meta, root);
    transform::name_hash::apply(&mut acc.resmap, true)?;
    transform::name_reference::apply(&mut acc.resmap, &acc.config.name_reference)?;
    transform::vars::resolve(&mut acc.resmap, &acc.vars, &acc.config.var_reference)?;
    transform::annotation_strings::normalize_annotations(&mut acc.resmap);
    transform::local_config::drop_local_config(&mut acc.resmap);
    transform::sort::apply(&mut acc.resmap, top.sort_options.as_ref())
}

/// A `resources` entry after reading.
enum Prepared {
    Dir(PathBuf),
    Resources(Vec<Resource>),
    /// A base already built (see build/parallel.rs).
    Built(Box<parallel::Built>),
}

use crate::load::canonical;
mod cache;
use cache as files;
mod parallel;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Kustomization,
    Component,
}

struct Builder<'o> {
    options: &'o BuildOptions,
    /// Directories being built, outermost first (for cycle detection).
    chain: Vec<PathBuf>,
    /// The top kustomization's `buildMetadata` (set when it is loaded).
    meta: Option<BuildMeta>,
    /// A custom schema from an `openapi:` field. Like kustomize's global
    /// schema setting, it applies from the kustomization that sets it on.
    schemas: Option<&'static Schemas>,
    /// Whether kustomize would have loaded its built-in schema by now (see
    /// `openapi::loads_builtin_schema`): a custom schema set then goes on top of it.
    builtin_loaded: bool,
    /// Warnings so far (see [`BuildOutput::warnings`]).
    warnings: Vec<String>,
    /// Real paths of directories resolved so far (see build/canonical.rs).
    canonical: &'o canonical::CanonicalCache,
    /// Files read and parsed so far (see build/files.rs).
    files: &'o files::FileCache,
}

impl Builder<'_> {
    /// Builds `dir` into `acc` (a fresh accumulator for a kustomization, the
    /// including one's for a component) and returns its kustomization.
    fn accumulate(
        &mut self,
        dir: &Path,
        acc: &mut Accumulator,
        expect: Expect,
    ) -> Result<Arc<Kustomization>> {
        let (file, kind) = self.canonical.kustomization_file(dir)?;
        let k = self
            .files
            .kustomization(&file, || load::read_kustomization_file(&file, kind))?;
        let ctx = |e: Error| e.context(format!("in {}", file.display()));
        crate::kustomization::decode::check_type_meta(&k)
            .map_err(|e| e.context(format!("in {}", file.display())))?;
        match (expect, k.is_component()) {
            (Expect::Kustomization, true) if !self.chain.is_empty() => {
                return Err(Error::msg(format!(
                    "{} is a Component; list it under 'components', not 'resources'",
                    file.display()
                )));
            }
            (Expect::Component, false) => {
                return Err(Error::msg(format!(
                    "{} is a {}, but only kind Component may be listed under 'components'",
                    file.display(),
                    k.kind.as_deref().unwrap_or("Kustomization")
                )));
            }
            _ => {}
        }
        crate::kustomization::decode::check_supported(&k).map_err(ctx)?;
        if self.meta.is_none() {
            self.meta = Some(BuildMeta::parse(&k.build_metadata).map_err(ctx)?);
        }
        if let (None, Some(openapi)) = (self.schemas, &k.openapi) {
            self.schemas = Some(
                load_openapi(
                    dir,
                    openapi,
                    self.options.load_restrictor,
                    self.builtin_loaded,
                )
                .map_err(ctx)?,
            );
        }
        self.chain.push(dir.to_path_buf());
        let result = self.accumulate_body(dir, &file, &k, acc);
        self.chain.pop();
        result.map_err(ctx)?;
        Ok(k)
    }

    fn accumulate_body(
        &mut self,
        dir: &Path,
        file: &Path,
        k: &Kustomization,
        acc: &mut Accumulator,
    ) -> Result<()> {
        // Files are read and parsed, and bases built, in parallel (see
        // build/parallel.rs); the results are taken in order.
        let prepared = self.prepare_resources(dir, &k.resources);
        // Collected first and appended at once: the duplicate-id check is
        // one pass per kustomization, not one per file.
        let mut loaded = Vec::new();
        for (entry, p) in k.resources.iter().zip(prepared) {
            self.accumulate_resource(entry, p, acc, &mut loaded)
                .map_err(|e| e.context(format!("accumulating resources from '{entry}'")))?;
        }
        acc.resmap.append_all(loaded)?;
        // As in kustomize: the built-in configuration plus this kustomization's files is
        // merged into what its bases brought, then what its `crds:` files say.
        let mut own = TransformerConfig::default();
        for entry in &k.configurations {
            let (real, text) = self.files.read_text_restricted(
                self.canonical,
                dir,
                entry,
                self.options.load_restrictor,
                "configuration file",
            )?;
            let source = real.display().to_string();
            let node = yaml::parse::parse_document(&text, &source)?;
            own.add_file(&node, &source)?;
        }
        acc.config.merge(&own)?;
        for entry in &k.crds {
            let (_, text) = self.files.read_text_restricted(
                self.canonical,
                dir,
                entry,
                self.options.load_restrictor,
                "crds file",
            )?;
            let specs = crate::config::crd::crd_field_specs_from_text(&text, entry)?;
            acc.config.merge(&crate::config::crd::crd_config(&specs)?)?;
        }
        self.run_generators(dir, file, k, acc)?;
        for (config, source) in self.load_plugin_configs(dir, file, &k.generators)? {
            self.run_generator_config(dir, &config, &source, k, acc)
                .map_err(|e| e.context(format!("running generator from {}", source.display())))?;
        }
        for entry in &k.components {
            self.accumulate_component(dir, entry, acc)
                .map_err(|e| e.context(format!("accumulating components from '{entry}'")))?;
        }
        let record = self.meta.unwrap_or_default().transformers;
        let restrictor = self.options.load_restrictor;
        let (paths, files) = (self.canonical, self.files);
        let mut read = |p: &str, what: &str| {
            let (_, text) = files.read_text_restricted(paths, dir, p, restrictor, what)?;
            Ok(String::clone(&text))
        };
        let opts = MergeOptions {
            schemas: self.schemas.unwrap_or_else(|| Schemas::builtin()),
            ..MergeOptions::kustomize()
        };
        let mut env = Env {
            dir,
            read: &mut read,
            parsed: files,
            merge: &opts,
        };
        // The kustomization's own fields, then its `transformers:` configs: one
        // path for both, as in kustomize.
        for step in fields::steps(k, &acc.config, file) {
            run_step(
                &step,
                &mut acc.resmap,
                &mut env,
                &mut self.warnings,
                record,
                file,
            )?;
        }
        for (config, source) in self.load_plugin_configs(dir, file, &k.transformers)? {
            let step = configs::step(&config, &source)
                .map_err(|e| e.context(format!("running transformer from {}", source.display())))?;
            run_step(
                &step,
                &mut acc.resmap,
                &mut env,
                &mut self.warnings,
                record,
                &source,
            )?;
        }
        transform::vars::declare(&mut acc.resmap, &mut acc.vars, &k.vars, file)
    }

    /// The config documents of `generators:`/`transformers:` entries: files,
    /// directories holding a kustomization (its output are the configs), or
    /// inline YAML. Each comes with the file that configured it.
    fn load_plugin_configs(
        &mut self,
        dir: &Path,
        file: &Path,
        entries: &[String],
    ) -> Result<Vec<(Node, PathBuf)>> {
        let mut out = Vec::new();
        for entry in entries {
            let path = load::join_clean(dir, entry);
            if !entry.contains('\n') && path.is_dir() {
                let real = load::canonical(&path, "plugin config directory")?;
                self.check_cycle(&real, entry)?;
                let mut sub = Accumulator::default();
                self.accumulate(&real, &mut sub, Expect::Kustomization)?;
                for r in sub.resmap.resources {
                    let src = match &r.origin {
                        Some(Origin::File(p)) => p.clone(),
                        _ => real.clone(),
                    };
                    out.push((r.node, src));
                }
                continue;
            }
            let (text, src) = if entry.contains('\n') || !path.exists() {
                (entry.clone(), file.to_path_buf())
            } else {
                let (real, text) = self.files.read_text_restricted(
                    self.canonical,
                    dir,
                    entry,
                    self.options.load_restrictor,
                    "plugin config",
                )?;
                (String::clone(&text), real)
            };
            let docs = yaml::parse::parse_stream(&text, &src.display().to_string())?;
            if docs.iter().all(Node::is_null) && !path.exists() && !entry.contains('\n') {
                return Err(Error::msg(format!(
                    "plugin config '{entry}' does not exist"
                )));
            }
            out.extend(
                docs.into_iter()
                    .filter(|d| !d.is_null())
                    .map(|d| (d, src.clone())),
            );
        }
        Ok(out)
    }

    /// A ConfigMapGenerator/SecretGenerator config from `generators:`.
    fn run_generator_config(
        &self,
        dir: &Path,
        config: &Node,
        source: &Path,
        k: &Kustomization,
        acc: &mut Accumulator,
    ) -> Result<()> {
        use crate::generate::configs::GeneratorConfigKind;
        use crate::generate::{Behavior, GeneratorKind};
        let (mut res, behavior, meta, builtin) =
            match crate::generate::configs::generator_config(config)? {
                GeneratorConfigKind::Data(kind, args, meta) => {
                    let restrictor = self.options.load_restrictor;
                    let mut read = |p: &str| {
                        self.canonical
                            .read_restricted(dir, p, restrictor, "generator file")
                            .map(|(_, b)| b)
                    };
                    let g = crate::generate::generate(
                        kind,
                        &args,
                        k.generator_options.as_ref(),
                        &mut read,
                    )?;
                    let mut res = Resource::new(g.node)?;
                    res.needs_hash = g.hash_suffix;
                    let builtin = match kind {
                        GeneratorKind::ConfigMap => "ConfigMapGenerator",
                        GeneratorKind::Secret => "SecretGenerator",
                    };
                    (res, g.behavior, meta, builtin)
                }
                GeneratorConfigKind::Resource(node, meta) => (
                    Resource::new(node)?,
                    Behavior::Unspecified,
                    meta,
                    "IAMPolicyGenerator",
                ),
            };
        if self.meta.unwrap_or_default().origin {
            res.origin = Some(Origin::Generated(Configured {
                configured_in: source.to_path_buf(),
                kind: builtin,
                name: Some(meta.name).filter(|n| !n.is_empty()),
                namespace: Some(meta.namespace).filter(|n| !n.is_empty()),
            }));
        }
        crate::generate::behavior::absorb(&mut acc.resmap, res, behavior)
    }

    /// Resolves a `resources` entry: a directory to build, or a file's resources.
    fn prepare_resource(&self, dir: &Path, entry: &str) -> Result<Prepared> {
        let path = load::join_clean(dir, entry);
        if load::is_remote(entry) && !path.exists() {
            return Err(Error::Unsupported {
                what: "remote resources (git or http URLs) are not supported: kbuild builds only local files".into(),
                hint: Some("clone the repository and list the local path under 'resources'".into()),
            });
        }
        let (real, kind) = self.canonical.resolve(&path, "resource")?;
        if kind == canonical::EntryType::Dir {
            return Ok(Prepared::Dir(real));
        }
        // Per reference: another kustomization may have read the file already.
        load::check_restrictor(dir, &real, entry, self.options.load_restrictor)?;
        let mut resources = self.files.resources(&real, || {
            crate::resource::parse::parse_resources(canonical::read(&real, kind)?, &real)
        })?;
        if self.meta.unwrap_or_default().origin {
            for r in &mut resources {
                r.origin = Some(Origin::File(real.clone()));
            }
        }
        Ok(Prepared::Resources(resources))
    }

    fn accumulate_resource(
        &mut self,
        entry: &str,
        prepared: Result<Prepared>,
        acc: &mut Accumulator,
        loaded: &mut Vec<Resource>,
    ) -> Result<()> {
        match prepared? {
            Prepared::Dir(real) => {
                self.check_cycle(&real, entry)?;
                let mut sub = Accumulator::default();
                self.accumulate(&real, &mut sub, Expect::Kustomization)?;
                acc.config.merge(&sub.config)?;
                transform::vars::absorb(&mut acc.vars, sub.vars)?;
                loaded.extend(sub.resmap.resources);
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
                acc.config.merge(&built.acc.config)?;
                transform::vars::absorb(&mut acc.vars, built.acc.vars)?;
                loaded.extend(built.acc.resmap.resources);
            }
        }
        Ok(())
    }

    /// Notes resources loaded before any `openapi:` schema was set (see `builtin_loaded`).
    fn note_loaded(&mut self, resources: &[Resource]) {
        if self.schemas.is_none() && !self.builtin_loaded {
            self.builtin_loaded = resources.iter().any(|r| {
                let gvk = r.gvk();
                crate::openapi::loads_builtin_schema(&gvk.group, &gvk.version, &gvk.kind)
            });
        }
    }

    fn accumulate_component(
        &mut self,
        dir: &Path,
        entry: &str,
        acc: &mut Accumulator,
    ) -> Result<()> {
        let path = load::join_clean(dir, entry);
        let (real, kind) = self.canonical.resolve(&path, "component")?;
        if kind != canonical::EntryType::Dir {
            return Err(Error::msg(format!(
                "component '{entry}' is not a directory holding a kustomization file of kind Component"
            )));
        }
        self.check_cycle(&real, entry)?;
        self.accumulate(&real, acc, Expect::Component)?;
        // kustomize hands the including kustomization a fresh accumulator after a
        // component, with the configuration merged into an empty one again: a spec that a
        // more specific one now covers drops out (see `config_merge`).
        let mut config = TransformerConfig::empty();
        config.merge(&acc.config)?;
        acc.config = config;
        Ok(())
    }

    /// `configMapGenerator` and `secretGenerator`: new resources, or merged
    /// into / replacing existing ones according to `behavior`.
    fn run_generators(
        &self,
        dir: &Path,
        file: &Path,
        k: &Kustomization,
        acc: &mut Accumulator,
    ) -> Result<()> {
        use crate::generate::{GeneratorKind, generate};
        let lists = [
            (
                GeneratorKind::ConfigMap,
                &k.config_map_generator,
                "ConfigMapGenerator",
            ),
            (
                GeneratorKind::Secret,
                &k.secret_generator,
                "SecretGenerator",
            ),
        ];
        let restrictor = self.options.load_restrictor;
        for (kind, list, builtin) in lists {
            for args in list {
                let mut read = |p: &str| {
                    self.canonical
                        .read_restricted(dir, p, restrictor, "generator file")
                        .map(|(_, b)| b)
                };
                let g = generate(kind, args, k.generator_options.as_ref(), &mut read)?;
                let mut res = Resource::new(g.node)?;
                res.needs_hash = g.hash_suffix;
                if self.meta.unwrap_or_default().origin {
                    res.origin = Some(Origin::Generated(Configured {
                        configured_in: file.to_path_buf(),
                        kind: builtin,
                        name: None,
                        namespace: None,
                    }));
                }
                crate::generate::behavior::absorb(&mut acc.resmap, res, g.behavior)
                    .map_err(|e| e.context(format!("{} {:?}", kind.field(), args.name)))?;
            }
        }
        Ok(())
    }

    /// A base may not be, or contain, a directory already being built.
    fn check_cycle(&self, candidate: &Path, entry: &str) -> Result<()> {
        if let Some(pos) = self.chain.iter().position(|d| d.starts_with(candidate)) {
            let mut chain = self.chain[pos..].to_vec();
            chain.push(candidate.to_path_buf());
            return Err(Error::Cycle(Box::new(crate::error::Cycle {
                entry: entry.to_string(),
                dir: candidate.to_path_buf(),
                chain,
            })));
        }
        Ok(())
    }
}

/// The schema an `openapi:` field selects.
fn load_openapi(
    dir: &Path,
    openapi: &indexmap::IndexMap<String, String>,
    restrictor: LoadRestrictor,
    over_builtin: bool,
) -> Result<&'static Schemas> {
    let version = openapi.get("version").filter(|v| !v.is_empty());
    let path = openapi.get("path").filter(|v| !v.is_empty());
    if let Some(key) = openapi.keys().find(|k| *k != "version" && *k != "path") {
        return Err(Error::msg(format!(
            "openapi: unknown field {key:?}; expected 'path' or 'version'"
        )));
    }
    match (version, path) {
        (Some(_), Some(_)) => Err(Error::msg(
            "openapi: both 'version' (a built-in schema) and 'path' (a custom schema) are set; use one",
        )),
        (Some(v), None) => Schemas::builtin_version(v),
        (None, Some(p)) => {
            let (real, bytes) = load::read_restricted(dir, p, restrictor, "openapi schema")?;
            let text = crate::yaml::utf8(bytes, &real)?;
            let schemas = Schemas::from_openapi_text_layered(
                &text,
                &real.display().to_string(),
                over_builtin,
            )?;
            // Schemas live for the whole (short) process; leaking one per
            // kustomization that sets `openapi` keeps merge options simple.
            Ok(Box::leak(Box::new(schemas)))
        }
        (None, None) => Ok(Schemas::builtin()),
    }
}
