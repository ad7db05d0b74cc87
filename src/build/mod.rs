//! The build pipeline: load a kustomization, recurse into its resources and
//! components, generate, transform, and hand back the final resource map.
//!
//! The order of steps follows kustomize: resources, configurations and CRDs,
//! generators, components, transformers, validators; then, once, at the top:
//! name hashes, name references, vars and the output sort.

use crate::config::TransformerConfig;
use crate::config::fieldspec::{from_table, merge_specs};
use crate::error::{Error, Result};
use crate::kustomization::Kustomization;
use crate::load::{self, LoadRestrictor};
use crate::merge::smp::MergeOptions;
use crate::openapi::Schemas;
use crate::resource::resmap::ResMap;
use crate::resource::{Configured, Origin, Resource};
use crate::transform::build_metadata::BuildMeta;
use crate::transform::union_check::{Changes, check_changes};
use crate::transform::{self, patch};
use crate::yaml::{self, Node};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    add_name_hashes(&mut acc.resmap)?;
    transform::name_reference::apply(&mut acc.resmap, &acc.config.name_reference)?;
    transform::vars::resolve(&mut acc.resmap, &acc.vars, &acc.config.var_reference)?;
    transform::annotation_strings::normalize_annotations(&mut acc.resmap);
    transform::local_config::drop_local_config(&mut acc.resmap);
    transform::sort::apply(&mut acc.resmap, top.sort_options.as_ref())
}

/// The static name of a builtin plugin kind (for annotations).
fn builtin_kind(kind: &str) -> &'static str {
    const KINDS: [&str; 15] = [
        "AnnotationsTransformer",
        "ImageTagTransformer",
        "LabelTransformer",
        "NamespaceTransformer",
        "PatchJson6902Transformer",
        "PatchStrategicMergeTransformer",
        "PatchTransformer",
        "PrefixSuffixTransformer",
        "PrefixTransformer",
        "ReplicaCountTransformer",
        "SuffixTransformer",
        "ReplacementTransformer",
        "ValueAddTransformer",
        "ConfigMapGenerator",
        "SecretGenerator",
    ];
    KINDS
        .iter()
        .find(|k| **k == kind)
        .copied()
        .unwrap_or("UnknownPlugin")
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
            .map_err(|e| e.context(file.display().to_string()))?;
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
        let mut read = |p: &str| {
            let (_, text) = files.read_text_restricted(paths, dir, p, restrictor, "patch file")?;
            Ok(String::clone(&text))
        };
        let opts = MergeOptions {
            schemas: self.schemas.unwrap_or_else(|| Schemas::builtin()),
            ..MergeOptions::kustomize()
        };
        let env = TransformEnv {
            read: &mut read,
            parsed: files,
            merge: &opts,
            file,
            warnings: &mut self.warnings,
        };
        let mut record_builtin = |rm: &mut ResMap, kind: &'static str| {
            if record {
                for r in rm.iter_mut() {
                    r.transformations.push(Configured {
                        configured_in: file.to_path_buf(),
                        kind,
                        name: None,
                        namespace: None,
                    });
                }
            }
        };
        apply_transformers(k, acc, env, &mut record_builtin)?;
        // Replacements run last among the kustomization's own transformers.
        if !k.replacements.is_empty() {
            let mut read_replacements = |p: &str| {
                let (_, text) =
                    files.read_text_restricted(paths, dir, p, restrictor, "replacements file")?;
                Ok(String::clone(&text))
            };
            use transform::replacements::{Decode, apply_entries};
            apply_entries(
                &mut acc.resmap,
                &k.replacements,
                Decode::Strict,
                &mut read_replacements,
            )?;
            record_builtin(&mut acc.resmap, "ReplacementTransformer");
        }
        for (config, source) in self.load_plugin_configs(dir, file, &k.transformers)? {
            let mut kind = String::new();
            let name = || {
                format!(
                    "transformer {} from {}",
                    config.get_str(&["kind"]).unwrap_or("?"),
                    source.display()
                )
            };
            check_changes(&mut acc.resmap, &mut self.warnings, &name, |rm, changes| {
                kind =
                    crate::plugins::run_transformer(rm, &config, &mut read, &opts, changes, dir)?;
                Ok(())
            })
            .map_err(|e| e.context(format!("running transformer from {}", source.display())))?;
            if record {
                let (_, meta) = crate::plugins::identity(&config)?;
                let kind: &'static str = builtin_kind(&kind);
                for r in acc.resmap.iter_mut() {
                    r.transformations.push(Configured {
                        configured_in: source.clone(),
                        kind,
                        name: Some(meta.name.clone()).filter(|n| !n.is_empty()),
                        namespace: Some(meta.namespace.clone()).filter(|n| !n.is_empty()),
                    });
                }
            }
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
        use crate::generate::{Behavior, GeneratorKind};
        use crate::plugins::GeneratorConfigKind;
        let (mut res, behavior, meta, builtin) = match crate::plugins::generator_config(config)? {
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
        absorb(&mut acc.resmap, res, behavior)
    }

    /// Resolves a `resources` entry: a directory to build, or a file's resources.
    fn prepare_resource(&self, dir: &Path, entry: &str) -> Result<Prepared> {
        let path = load::join_clean(dir, entry);
        if load::is_remote(entry) && !path.exists() {
            return Err(Error::msg(
                "remote resources (git or http URLs) are not supported: kbuild builds only local files",
            ));
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
                absorb(&mut acc.resmap, res, g.behavior)
                    .map_err(|e| e.context(format!("{} {:?}", kind.field(), args.name)))?;
            }
        }
        Ok(())
    }

    /// A base may not be, or contain, a directory already being built.
    fn check_cycle(&self, candidate: &Path, entry: &str) -> Result<()> {
        if let Some(pos) = self.chain.iter().position(|d| d.starts_with(candidate)) {
            let cycle: Vec<String> = self.chain[pos..]
                .iter()
                .map(|d| d.display().to_string())
                .chain(std::iter::once(candidate.display().to_string()))
                .collect();
            return Err(Error::msg(format!(
                "cycle detected: '{entry}' ({}) contains a kustomization that is already being built: {}",
                candidate.display(),
                cycle.join(" -> ")
            )));
        }
        Ok(())
    }
}

/// Adds a generated resource, or folds it into the existing resource with
/// the same id (current or previous) when its behavior is merge or replace.
fn absorb(resmap: &mut ResMap, res: Resource, behavior: crate::generate::Behavior) -> Result<()> {
    use crate::generate::{Behavior as B, merge};
    let id = res.id();
    let hits = resmap.find_by_any_id(&id);
    match hits.as_slice() {
        [] => match behavior {
            B::Merge | B::Replace => Err(Error::msg(format!(
                "behavior {} needs an existing {} to act on, but there is none (the generator must have the same name and namespace as a resource from a base)",
                if behavior == B::Merge {
                    "merge"
                } else {
                    "replace"
                },
                id
            ))),
            _ => {
                // No resource has this id (current or previous): nothing to conflict with.
                resmap.resources.push(res);
                Ok(())
            }
        },
        [i] => {
            let old = &mut resmap.resources[*i];
            merge::merge_into(&mut old.node, &res.node, behavior)?;
            old.needs_hash = merge::merged_hash_suffix(old.needs_hash, res.needs_hash);
            if behavior == B::Replace && res.origin.is_some() {
                old.origin = res.origin;
            }
            Ok(())
        }
        _ => Err(Error::msg(format!(
            "several resources could take the generated {}: {}",
            id,
            hits.iter()
                .map(|i| resmap.resources[*i].id().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Appends the generator hash to the names of generated resources.
fn add_name_hashes(resmap: &mut ResMap) -> Result<()> {
    for res in resmap.iter_mut().filter(|r| r.needs_hash) {
        let hash = crate::generate::hash::name_hash(&res.node)?;
        res.store_prev_id();
        let name = format!("{}-{hash}", res.name());
        res.set_name(&name);
        res.needs_hash = false;
    }
    Ok(())
}

/// Called after each builtin transformer with its kind (for transformer
/// annotations).
type Record<'a> = &'a mut dyn FnMut(&mut ResMap, &'static str);

/// What transformers need from the kustomization's surroundings.
struct TransformEnv<'a> {
    /// Reads a file relative to the kustomization, under the load restrictor.
    read: &'a mut dyn FnMut(&str) -> Result<String>,
    /// Patches parsed so far (see build/files.rs).
    parsed: &'a files::FileCache,
    merge: &'a MergeOptions<'a>,
    /// The kustomization file (names patches in warnings).
    file: &'a Path,
    warnings: &'a mut Vec<String>,
}

/// The built-in transformers of one kustomization, in kustomize's order.
fn apply_transformers(
    k: &Kustomization,
    acc: &mut Accumulator,
    env: TransformEnv,
    record: Record,
) -> Result<()> {
    let cfg = &acc.config;
    let rm = &mut acc.resmap;
    let TransformEnv {
        read,
        parsed,
        merge,
        file,
        warnings,
    } = env;
    let kfile = file.display();
    if !k.patches_strategic_merge.is_empty() {
        for (i, entry) in k.patches_strategic_merge.iter().enumerate() {
            let name = || patch_name(&kfile, "patchesStrategicMerge", i, entry);
            check_changes(rm, warnings, &name, |rm, changes| {
                strategic_merge_entry_with(rm, entry, (read, Some(parsed)), merge, changes)
            })?;
        }
        record(rm, "PatchStrategicMergeTransformer");
    }
    for (i, p) in k.patches.iter().enumerate() {
        let name = || patch_name(&kfile, "patches", i, &p.path);
        check_changes(rm, warnings, &name, |rm, changes| {
            patch_entry_with(rm, p, (read, Some(parsed)), merge, changes)
        })
        .map_err(|e| e.context(patch_context("patches", p)))?;
        record(rm, "PatchTransformer");
    }
    if let Some(ns) = k.namespace.as_ref().filter(|s| !s.is_empty()) {
        let specs = transform::namespace::kustomization_specs(&cfg.namespace);
        transform::namespace::apply(rm, ns, &specs, Default::default())?;
        record(rm, "NamespaceTransformer");
    }
    if let Some(prefix) = k.name_prefix.as_ref().filter(|s| !s.is_empty()) {
        transform::name_affix::apply(rm, prefix, "", &cfg.name_prefix)?;
        record(rm, "PrefixTransformer");
    }
    if let Some(suffix) = k.name_suffix.as_ref().filter(|s| !s.is_empty()) {
        transform::name_affix::apply(rm, "", suffix, &cfg.name_suffix)?;
        record(rm, "SuffixTransformer");
    }
    for label in &k.labels {
        let mut specs = label.fields.clone();
        if label.include_selectors {
            merge_specs(&mut specs, &cfg.common_labels);
        } else {
            if label.include_templates {
                merge_specs(&mut specs, &cfg.template_labels);
            }
            merge_specs(
                &mut specs,
                &from_table(&[("", "", "", "metadata/labels", true)]),
            );
        }
        // The `labels` section of configuration files, for every `labels:` entry.
        merge_specs(&mut specs, &cfg.labels);
        transform::labels::set_pairs(rm, &label.pairs, &specs)?;
        record(rm, "LabelTransformer");
    }
    if let Some(labels) = &k.common_labels {
        transform::labels::set_pairs(rm, labels, &cfg.common_labels)?;
        record(rm, "LabelTransformer");
    }
    if let Some(ann) = &k.common_annotations {
        transform::annotations::add(rm, ann, &cfg.common_annotations)?;
        record(rm, "AnnotationsTransformer");
    }
    for (i, p) in k.patches_json6902.iter().enumerate() {
        let name = || patch_name(&kfile, "patchesJson6902", i, &p.path);
        check_changes(rm, warnings, &name, |rm, changes| {
            apply_json6902_entry(rm, p, read, parsed, changes)
        })
        .map_err(|e| e.context(patch_context("patchesJson6902", p)))?;
        record(rm, "PatchJson6902Transformer");
    }
    for r in &k.replicas {
        transform::replicas::apply(rm, std::slice::from_ref(r), &cfg.replicas)?;
        record(rm, "ReplicaCountTransformer");
    }
    for i in &k.images {
        transform::images::apply(rm, std::slice::from_ref(i), &cfg.images)?;
        record(rm, "ImageTagTransformer");
    }
    Ok(())
}

/// Names a patch in warnings: "patches[1] 'patch.yaml' of /dir/kustomization.yaml".
fn patch_name(kfile: &dyn std::fmt::Display, field: &str, index: usize, path: &str) -> String {
    let inline = path.is_empty() || path.contains('\n');
    let what = if inline {
        "(inline)".to_string()
    } else {
        format!("'{path}'")
    };
    format!("{field}[{index}] {what} of {kfile}")
}

/// "patches entry 'file.yaml'" / "patches entry with an inline patch".
fn patch_context(field: &str, p: &crate::kustomization::Patch) -> String {
    if p.path.is_empty() {
        format!("applying {field} entry with an inline patch")
    } else {
        format!("applying {field} entry '{}'", p.path)
    }
}

/// A `patchesStrategicMerge` entry is a file path or an inline patch.
fn strategic_merge_entry(
    entry: &str,
    read: &mut dyn FnMut(&str) -> Result<String>,
) -> Result<(String, String)> {
    let looks_inline = entry.contains('\n') || entry.trim_start().starts_with('{');
    if looks_inline {
        return Ok((entry.to_string(), "(inline patch)".to_string()));
    }
    match read(entry) {
        Ok(text) => Ok((text, format!("'{entry}'"))),
        Err(e) => {
            // Not a readable file: kustomize then tries the text as a patch.
            match crate::yaml::parse::parse_stream(entry, "inline patch") {
                Ok(docs) if docs.iter().any(|d| matches!(d, Node::Map(_))) => {
                    Ok((entry.to_string(), "(inline patch)".to_string()))
                }
                _ => Err(e),
            }
        }
    }
}

/// Reads a patch file; parses patches once per build when there is a cache.
type PatchFiles<'a, 'b> = (
    &'a mut dyn FnMut(&str) -> Result<String>,
    Option<&'b files::FileCache>,
);

/// `patch::classify`, through the build's cache when there is one.
fn parse_patch(
    parsed: Option<&files::FileCache>,
    text: &str,
    source: &str,
) -> Result<Arc<patch::Loaded>> {
    match parsed {
        Some(files) => files.patch(text, source),
        None => patch::classify(text, source).map(Arc::new),
    }
}

/// One `patchesStrategicMerge` entry (a file or an inline patch).
pub(crate) fn apply_strategic_merge_entry(
    rm: &mut ResMap,
    entry: &str,
    read: &mut dyn FnMut(&str) -> Result<String>,
    merge: &MergeOptions,
    changes: &mut Changes,
) -> Result<()> {
    strategic_merge_entry_with(rm, entry, (read, None), merge, changes)
}

/// [`apply_strategic_merge_entry`] with the build's files.
fn strategic_merge_entry_with(
    rm: &mut ResMap,
    entry: &str,
    (read, parsed): PatchFiles,
    merge: &MergeOptions,
    changes: &mut Changes,
) -> Result<()> {
    let (text, source) = strategic_merge_entry(entry, read)?;
    let docs = parse_patch(parsed, &text, &source)?;
    let patch::Loaded::Strategic(docs) = &*docs else {
        return Err(Error::msg(format!(
            "patchesStrategicMerge entry {source} is a JSON 6902 patch; list it under 'patches' with a target"
        )));
    };
    patch::apply_strategic(rm, docs, None, merge, (false, false), changes)
        .map_err(|e| e.context(format!("applying patchesStrategicMerge entry {source}")))
}

/// One `patches` entry: strategic merge or JSON 6902, told apart by content.
pub(crate) fn apply_patch_entry(
    rm: &mut ResMap,
    p: &crate::kustomization::Patch,
    read: &mut dyn FnMut(&str) -> Result<String>,
    merge: &MergeOptions,
    changes: &mut Changes,
) -> Result<()> {
    patch_entry_with(rm, p, (read, None), merge, changes)
}

/// [`apply_patch_entry`] with the build's files.
fn patch_entry_with(
    rm: &mut ResMap,
    p: &crate::kustomization::Patch,
    (read, parsed): PatchFiles,
    merge: &MergeOptions,
    changes: &mut Changes,
) -> Result<()> {
    let (mut text, source) = patch::entry_text(p, read)?;
    if p.path.is_empty() {
        // kustomize trims an inline `patches` string (not a patch file, not
        // patchesJson6902), so a block scalar ending the patch loses its
        // final newline: `x: |\n  a: b\n` sets `x` to "a: b".
        text = text.trim().to_string();
    }
    let allow_name = p.options.get("allowNameChange").copied().unwrap_or(false);
    let allow_kind = p.options.get("allowKindChange").copied().unwrap_or(false);
    match &*parse_patch(parsed, &text, &source)? {
        patch::Loaded::Strategic(docs) => patch::apply_strategic(
            rm,
            docs,
            p.target.as_ref(),
            merge,
            (allow_name, allow_kind),
            changes,
        ),
        patch::Loaded::Json(ops) => {
            let target = p.target.as_ref().ok_or_else(|| {
                Error::msg(
                    "a JSON 6902 patch needs a 'target' to say which resources it applies to",
                )
            })?;
            patch::apply_json(rm, ops, target, changes)
        }
    }
}

/// One `patchesJson6902` entry (always with a target).
fn apply_json6902_entry(
    rm: &mut ResMap,
    p: &crate::kustomization::Patch,
    read: &mut dyn FnMut(&str) -> Result<String>,
    parsed: &files::FileCache,
    changes: &mut Changes,
) -> Result<()> {
    let (text, source) = patch::entry_text(p, read)?;
    let ops = parsed.json_ops(&text, &source)?;
    let target = p
        .target
        .as_ref()
        .ok_or_else(|| Error::msg("a patchesJson6902 entry needs a 'target'"))?;
    patch::apply_json(rm, &ops, target, changes)
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
