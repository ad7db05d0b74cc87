//! The build pipeline: load a kustomization, recurse into its resources and
//! components, generate, transform, and hand back the final resource map.
//!
//! The order of steps follows kustomize: resources, configurations and CRDs,
//! generators, components, transformers, validators; then, once, at the top:
//! name hashes, name references, vars and the output sort.

use crate::config::TransformerConfig;
use crate::error::{Context, EntryContext, Error, Result};
use crate::kustomization::Kustomization;
use crate::kustomization::files::{Field, Place};
use crate::kustomize_version::KustomizeVersion;
use crate::load::{self, FileSystem, Files, LoadRestrictor, Loader};
use crate::merge::smp::MergeOptions;
use crate::openapi::Schemas;
use crate::provenance::StepKind;
use crate::remote::redact;
use crate::resource::Configured;
use crate::resource::budget::Budget;
use crate::resource::resmap::ResMap;
use crate::resource::shared;
use crate::transform::build_metadata::BuildMeta;
use crate::transform::builtin::env::Env;
use crate::transform::builtin::{Builtin, Step, configs, fields};
pub use crate::transform::sort::Reorder;
use crate::transform::{self};
use crate::yaml;
pub use plugins::Plugins;
use std::path::Path;
use std::sync::Arc;

/// Runs one built-in transformer step (noting what an entry of the kustomization file
/// `configured_in` did) and, when `buildMetadata` asks for transformer annotations, notes
/// it on every resource.
fn run_step(
    step: &Step,
    rm: &mut ResMap,
    env: &mut Env,
    out: &mut state::Gathered,
    meta: BuildMeta,
    configured_in: &Path,
    record: provenance::Recording<'_>,
) -> Result<()> {
    let root = env.dir;
    let mut warnings = Vec::new();
    let effect = provenance::recorded(
        record,
        rm,
        || provenance::about_step(step, configured_in, root),
        |rm| step.run(rm, env, &mut warnings),
    );
    out.warnings.extend(warnings);
    let effect = effect?;
    if let Some(place) = step.entry {
        out.noops.note(configured_in, place, effect);
    }
    if meta.any() {
        // With any `buildMetadata` option, kustomize writes its origin or transformer
        // annotation into every resource after each transformer, and it does so by
        // rebuilding the annotation mapping from strings: annotation values shared
        // between fields (see resource/shared.rs) are shared no more.
        let annotations = shared::keys(&["metadata", "annotations"]);
        for r in rm.iter_mut() {
            r.shared.forget_under(&annotations);
            crate::merge::scalar_style::annotations_as_strings(r.node_mut());
        }
    }
    if meta.any() && step.record {
        let kind = step.builtin.kind();
        let by = || Configured {
            configured_in: configured_in.to_path_buf(),
            api_version: "builtin".into(),
            kind: kind.into(),
            name: step.config_name.clone(),
            namespace: step.config_namespace.clone(),
        };
        for r in rm.iter_mut() {
            // kustomize's AddTransformerAnnotation: a resource without an origin (one a
            // JSON patch took away with its annotations) gets the transformer as its
            // origin, and no transformation entry for it.
            if r.origin.is_none() {
                r.origin = Some(Box::new(crate::resource::Origin::Generated(by())));
            } else if meta.transformers {
                r.transformations.push(by());
            }
        }
    }
    Ok(())
}

/// Runs an external transformer plugin and, when `buildMetadata` asks for transformer
/// annotations, notes it on every resource. Out of line: `accumulate_body` recurses
/// through every base, and its frame stays small.
#[inline(never)]
fn run_plugin_transformer(
    plugin: &crate::plugin::Plugin,
    rm: &mut ResMap,
    options: &crate::plugin::Options,
    meta: BuildMeta,
    configured_in: &Path,
    budget: &Budget,
) -> Result<()> {
    // What the plugin adds counts against the output budget, as a builtin
    // transformer's copies do (what the plugin may print is bounded by what is left of
    // it, see plugin/process.rs).
    let bytes = |rm: &ResMap| -> u64 {
        rm.iter()
            .map(|r| crate::resource::budget::node_bytes(r.node()))
            .sum()
    };
    let before = bytes(rm);
    plugin.transform(rm, options, budget)?;
    budget.charge(bytes(rm).saturating_sub(before), &plugin.budget_field())?;
    if meta.transformers {
        let by = plugin.configured(configured_in);
        rm.iter_mut()
            .for_each(|r| r.transformations.push(by.clone()));
    }
    Ok(())
}

/// Options of a build: what `kustomize build`'s flags say.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Whether files outside a kustomization's directory may be read (kustomize's
    /// `--load-restrictor`; default: only files in or below it).
    pub load_restrictor: LoadRestrictor,
    /// The kustomize release whose output to reproduce (default: the newest supported).
    pub kustomize_version: KustomizeVersion,
    /// The output order when the top kustomization has no `sortOptions` (kustomize's
    /// deprecated `--reorder`).
    pub reorder: Reorder,
    /// Label every resource `app.kubernetes.io/managed-by`, as `buildMetadata:
    /// [managedByLabel]` does (kustomize's deprecated `--enable-managedby-label`).
    pub add_managed_by_label: bool,
    /// Which plugins kustomize would run (`--enable-helm`, `--enable-alpha-plugins`): helm
    /// charts are inflated with either, external plugins only with the second.
    pub plugins: Plugins,
    /// How helm charts are inflated (the `--helm-*` flags, the chart cache).
    pub helm: crate::helm::HelmOptions,
    /// How external plugins run (`--enable-exec`, the container flags, `--plugin-timeout`,
    /// `--allow-plugin`); they run at all only with `plugins.enable_alpha_plugins`.
    pub external: crate::plugin::Options,
    /// How remote entries are fetched (`--remote-cache-dir`, `--offline`).
    pub remote: crate::remote::RemoteOptions,
    /// How many bytes the fields that copy or expand values (`commonAnnotations`,
    /// `labels`, replacements, vars, generators) may create in one build, in total;
    /// past it the build fails naming the field (`None`: 256 MiB, see resource/budget.rs).
    pub max_output_bytes: Option<u64>,
    /// Merge keys beyond kustomize's (`--crd-merge-keys`, `--merge-key`; none by default):
    /// see build/crd_schema.rs.
    pub merge_keys: crate::openapi::crd::MergeKeyOptions,
    /// Record where every field comes from (`kbuild explain`, `build --provenance`): each
    /// resource's [`crate::resource::Resource::provenance`]. Off by default: it costs a
    /// copy of each resource per step.
    pub provenance: bool,
    /// With `provenance`, record only the resources that may become the one this filter
    /// names (`kbuild explain RESOURCE`); the others have no record. A resource whose
    /// kind or name a step rewrote beyond an affix has none either: a report on it needs
    /// a build recording everything (`None`, the default). See provenance/only.rs.
    pub provenance_only: Option<crate::provenance::Only>,
}

/// What a kustomization (and everything below it) has produced so far.
#[derive(Clone, Debug)]
pub struct Accumulator {
    /// The resources accumulated so far, in the order kustomize accumulates them.
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
    /// The built resources, in output order (after `sortOptions`).
    pub resmap: ResMap,
    /// One line each, without a "warning:" prefix.
    pub warnings: Vec<String>,
    /// The remote entries the build fetched (or found in the clone cache).
    pub remote_inputs: Vec<crate::remote::RemoteInput>,
    /// Freed with the output (see `state::Workings`).
    workings: state::Workings,
}

/// Builds the kustomization in `dir`.
pub fn build(dir: &Path, options: &BuildOptions) -> Result<ResMap> {
    build_with_warnings(dir, options).map(|out| out.resmap)
}

/// Builds the kustomization in `dir` and returns the warnings too.
pub fn build_with_warnings(dir: &Path, options: &BuildOptions) -> Result<BuildOutput> {
    build_in(load::fs::real(), dir, options)
}

/// Builds the kustomization in `dir` of the file system `fs` (for example a
/// [`load::MemFs`]).
pub fn build_in(
    fs: Arc<dyn FileSystem>,
    dir: &Path,
    options: &BuildOptions,
) -> Result<BuildOutput> {
    let remote = Arc::new(crate::remote::Session::new(options.remote.clone()));
    let files = Files::with_remote(fs, options.load_restrictor, remote);
    if options.merge_keys.is_active() {
        return crd_schema::build(&files, dir, options);
    }
    let cache = cache::FileCache::default();
    let mut out = build_with_cache(&files, dir, options, &cache, None)?.0;
    out.workings.cache = Some(cache);
    Ok(out)
}

/// [`build_in`] keeping parsed files in `cache`, starting from the schema `preset` (instead
/// of kustomize's built-in one) when given; also returns the top kustomization.
fn build_with_cache(
    files: &Files,
    dir: &Path,
    options: &BuildOptions,
    cache: &cache::FileCache,
    preset: Option<SchemaRef>,
) -> Result<(BuildOutput, Arc<Kustomization>)> {
    let ldr = files.root(dir)?;
    let (graph, top) = graph::Graph::for_build(files, cache, ldr.root());
    cache.plan(&graph, top);
    let helm = crate::helm::Session::new(options.helm.clone());
    let memo = memo::Memo::default();
    let ctx = state::BuildContext {
        files,
        graph: &graph,
        version: options.kustomize_version,
        plugins: options.plugins,
        external: &options.external,
        cache,
        memo: &memo,
        builds: &depth::Builds::default(),
        budget: &Budget::new(
            options
                .max_output_bytes
                .unwrap_or(crate::resource::budget::DEFAULT_MAX_OUTPUT_BYTES),
        ),
        helm: &helm,
        merges: crate::config::MergeMemo::default(),
        provenance: provenance::Recording::of(options),
        root: ldr.root(),
    };
    let mut builder = Builder {
        ctx: &ctx,
        inh: state::Inherited {
            schema: state::SchemaState {
                schemas: preset,
                builtin_loaded: false,
            },
            ..Default::default()
        },
        out: state::Gathered::default(),
    };
    let mut acc = Accumulator::default();
    let kust = builder.accumulate(&ldr, &mut acc, Expect::Kustomization)?;
    let meta = builder.inh.meta.unwrap_or_default();
    let budget = ctx.budget;
    let mut warnings = builder.out.warnings.lines();
    let noops = builder.out.noops;
    // The origin annotations come first, before names change (kustomize's order); they
    // need the remote session to name the repositories of remote bases.
    // Recorded as the top kustomization's `buildMetadata` field, whose options they are.
    let about = || match graph.kustomization_file(ldr.root()) {
        Some(file) => {
            provenance::About::entry(StepKind::Transform, file, Place::field("buildMetadata"))
        }
        None => provenance::About::by_kustomize(StepKind::Transform),
    };
    provenance::recorded(ctx.provenance, &mut acc.resmap, about, |rm| {
        crate::transform::build_metadata::annotate(rm, meta, ldr.root(), files.remote());
        Ok(())
    })?;
    finish(&mut acc, &kust, meta, options, budget, &mut warnings)?;
    let extra = crate::openapi::crd::read_crd_files(&options.merge_keys.crd_files)?;
    let extra: Vec<yaml::Node> = extra.into_iter().map(|(crd, _)| crd).collect();
    transform::list_replace::warn(&acc.resmap, &extra, &mut warnings);
    warnings.extend(noops.warnings(files));
    let records = if ctx.provenance.on() {
        provenance::finished(&mut acc.resmap)
    } else {
        Vec::new()
    };
    let out = BuildOutput {
        resmap: acc.resmap,
        warnings,
        remote_inputs: files.remote().inputs(),
        workings: state::Workings {
            cache: None,
            graph: Some(graph),
            memo: Some(memo),
            records,
        },
    };
    Ok((out, kust))
}

/// `e`, an error about the entry `entry` written at `place` of the kustomization file
/// `file`, with the entry's line and column (the file is read and parsed again: this
/// runs only for an error).
pub(crate) fn entry_error(
    files: &Files,
    file: &Path,
    place: Place,
    entry: &str,
    e: Error,
) -> Error {
    e.at_entry(entry_context(files, file, place, entry))
}

/// The context of an error about the entry `entry` at `place` of `file` (see
/// [`entry_error`]).
fn entry_context(files: &Files, file: &Path, place: Place, entry: &str) -> EntryContext {
    let pos = files
        .fs()
        .read(file)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| place.position(&text));
    EntryContext {
        file: file.to_path_buf(),
        pos,
        field: place.to_string(),
        entry: redact(entry),
    }
}

/// A field that is one step (`replacements`) names the item an error is about in an
/// item context (see `transform::replacements::load`), which gives the item's place.
fn item_place<'c>(contexts: impl IntoIterator<Item = &'c Context>) -> Option<Place> {
    contexts.into_iter().find_map(|c| match c {
        Context::Item { key, index, .. } => Some(Place::item(key, *index)),
        _ => None,
    })
}

/// Steps done once, at the top of the build.
fn finish(
    acc: &mut Accumulator,
    top: &Kustomization,
    meta: BuildMeta,
    options: &BuildOptions,
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<()> {
    use crate::transform::build_metadata;
    let on = provenance::Recording::of(options);
    let rm = &mut acc.resmap;
    let about = |kind| move || provenance::About::by_kustomize(kind);
    provenance::recorded(on, rm, about(StepKind::Hash), |rm| {
        transform::name_hash::apply(rm, true)
    })?;
    provenance::recorded(on, rm, about(StepKind::NameReference), |rm| {
        transform::name_reference::apply(rm, &acc.config.name_reference)
    })?;
    provenance::recorded(on, rm, about(StepKind::Substitute), |rm| {
        transform::vars::resolve(rm, &acc.vars, &acc.config.var_reference, budget, warnings)
    })?;
    // Untagged values (fields replacements created) take the type their text reads as
    // when kustomize prints the resource.
    for res in acc.resmap.iter_mut().filter(|r| r.untagged) {
        crate::transform::deferred_check::resolve(
            res,
            crate::transform::deferred_check::Resolving::Printing,
        )?;
        res.untagged = false;
    }
    transform::annotation_strings::normalize_annotations(&mut acc.resmap);
    transform::local_config::drop_local_config(&mut acc.resmap);
    // kustomize makes a new resource list of what is left (IgnoreLocal), and crashes
    // there on two resources with one id, in v5.5.0 and v5.8.1 alike: a JSON 6902
    // rename in the top kustomization is the way to get there.
    acc.resmap.refuse_clash(
        "at the end of the build (kustomize crashes there: it makes a new resource list of what is not local config)",
    )?;
    let sort_options = top.sort_options.as_ref();
    transform::sort::apply(&mut acc.resmap, sort_options, options.reorder, warnings)?;
    // The option labels resources as `buildMetadata` does, but, unlike it, does not make
    // kustomize track origins through the build (`meta.any()` stays as the file says).
    if meta.managed_by || options.add_managed_by_label {
        build_metadata::add_managed_by_label(&mut acc.resmap, options.kustomize_version);
    }
    printable::check(&acc.resmap)
}

mod cache;
mod chain;
mod crd_schema;
pub mod graph;

/// The kustomization directories a build went through, each once: a set, because
/// a base shared by two overlays is in both overlays' sets, and a list of each
/// level's would double per level of a stacked diamond. Keyed by the path's bytes
/// (real paths are clean): hashing a `Path` goes component by component.
type Visited = foldhash::HashSet<std::ffi::OsString>;
mod depth;
mod generators;
mod helm;
mod memo;
mod noop;
mod openapi;
mod parallel;
mod plugins;
mod printable;
mod provenance;
mod resources;
mod state;
mod warning_list;

use openapi::SchemaRef;
use resources::Prepared;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Kustomization,
    Component,
}

/// The builder of one kustomization: the build's shared context, and this
/// kustomization's own state (see build/state.rs).
struct Builder<'o> {
    ctx: &'o state::BuildContext<'o>,
    inh: state::Inherited,
    out: state::Gathered,
}

impl<'o> Builder<'o> {
    /// What this kustomization's build records (see build/provenance.rs).
    fn recording(&self) -> provenance::Recording<'o> {
        if self.inh.record_everything {
            self.ctx.provenance.everything()
        } else {
            self.ctx.provenance
        }
    }

    /// Builds `dir` into `acc` (a fresh accumulator for a kustomization, the
    /// including one's for a component) and returns its kustomization.
    fn accumulate(
        &mut self,
        ldr: &Loader,
        acc: &mut Accumulator,
        expect: Expect,
    ) -> Result<Arc<Kustomization>> {
        self.ctx.builds.count(ldr.root())?;
        depth::nested(self.inh.chain.len(), ldr.root(), || {
            self.accumulate_here(ldr, acc, expect)
        })
    }

    /// [`Self::accumulate`] on this stack segment.
    fn accumulate_here(
        &mut self,
        ldr: &Loader,
        acc: &mut Accumulator,
        expect: Expect,
    ) -> Result<Arc<Kustomization>> {
        let files = self.ctx.files;
        // The kustomization file the graph found (and decoded into the cache), or, for
        // one the walk did not reach or could not read, found and read here, where what
        // is wrong is reported.
        let file = match self.ctx.graph.kustomization_file(ldr.root()) {
            Some(file) => file.to_path_buf(),
            None => ldr.kustomization_file()?.path,
        };
        let k = self.ctx.cache.kustomization(&file, || {
            load::read_kustomization_file(files, &ldr.kustomization_file()?)
        })?;
        let ctx = |e: Error| e.in_file(&file);
        // kustomize prints these as it loads the file, before anything is built from it.
        self.out
            .warnings
            .extend(k.deprecation_notices.iter().cloned());
        match (expect, k.is_component()) {
            (Expect::Kustomization, true) if !self.inh.chain.is_empty() => {
                return Err(Error::invalid_config(format!(
                    "{} is a Component; list it under 'components', not 'resources'",
                    file.display()
                )));
            }
            (Expect::Component, false) => {
                return Err(Error::invalid_config(format!(
                    "{} is a {}, but only kind Component may be listed under 'components'",
                    file.display(),
                    k.kind.as_deref().unwrap_or("Kustomization")
                )));
            }
            _ => {}
        }
        crate::kustomization::by_version::check(&k, self.ctx.version).map_err(ctx)?;
        if self.inh.meta.is_none() {
            self.inh.meta = Some(BuildMeta::parse(&k.build_metadata).map_err(ctx)?);
        }
        let schema = &mut self.inh.schema;
        if let (None, Some(field)) = (&schema.schemas, &k.openapi) {
            schema.schemas = Some(openapi::load(ldr, field, schema.builtin_loaded).map_err(ctx)?);
        }
        self.out.visited.insert(ldr.root().as_os_str().to_owned());
        let outer = self.inh.chain.clone();
        self.inh.chain = outer.with(ldr.root().to_path_buf());
        // Charts here and in every base and component below get this kustomization's
        // namespace, or else the one it inherited.
        let inherited = self.inh.helm_namespace.clone();
        if self.ctx.version.namespace_for_helm_charts()
            && let Some(ns) = k.namespace.as_deref().filter(|ns| !ns.is_empty())
        {
            self.inh.helm_namespace = Some(ns.to_string());
        }
        let result = self.accumulate_body(ldr, &file, &k, acc);
        self.inh.helm_namespace = inherited;
        self.inh.chain = outer;
        result.map_err(ctx)?;
        Ok(k)
    }

    fn accumulate_body(
        &mut self,
        ldr: &Loader,
        file: &Path,
        k: &Kustomization,
        acc: &mut Accumulator,
    ) -> Result<()> {
        // Files are read and parsed, and bases built, in parallel (see
        // build/parallel.rs); the results are taken in order.
        let prepared = self.prepare_resources(ldr, &k.resources);
        // Collected first and appended at once: the duplicate-id check is
        // one pass per kustomization, not one per file.
        let mut loaded = Vec::new();
        // Where each entry's resources start in `loaded`, to name the entries of a clash.
        let mut starts = Vec::with_capacity(k.resources.len());
        for (i, (entry, p)) in k.resources.iter().zip(prepared).enumerate() {
            starts.push(loaded.len());
            self.accumulate_resource(entry, p, acc, &mut loaded)
                .map_err(|e| {
                    entry_error(self.ctx.files, file, Place::item("resources", i), entry, e)
                })?;
        }
        if let Some((earlier, later)) = acc.resmap.first_clash(&loaded) {
            let entry_of = |i: usize| &k.resources[starts.partition_point(|&s| s <= i) - 1];
            let id = crate::resource::resmap::id_text(&loaded[later].id());
            let holders = match earlier {
                Some(e) if entry_of(e) == entry_of(later) => {
                    format!("'{}' holds it twice", entry_of(later))
                }
                Some(e) => format!("'{}' and '{}' both hold it", entry_of(e), entry_of(later)),
                None => format!("'{}' adds it again", entry_of(later)),
            };
            return Err(Error::duplicate_id(
                id.clone(),
                format!(
                    "may not add resource with an already registered id: {id}: {holders} (the same kind, namespace and name); remove one, or give one another name or namespace"
                ),
            ));
        }
        acc.resmap.extend_checked(loaded);
        // As in kustomize: the built-in configuration plus this kustomization's files is
        // merged into what its bases brought, then what its `crds:` files say.
        let mut own = TransformerConfig::builtin(self.ctx.version);
        for (i, entry) in k.configurations.iter().enumerate() {
            let place = Place::item("configurations", i);
            let (real, text) = self
                .ctx
                .cache
                .read_text(ldr, entry, "configuration file")
                .map_err(|e| entry_error(self.ctx.files, file, place, entry, e))?;
            let source = real.display().to_string();
            let node = yaml::parse::parse_document(&text, &source)?;
            own.add_file(&node, &source)?;
        }
        acc.config.merge_with(&own, &self.ctx.merges)?;
        for (i, entry) in k.crds.iter().enumerate() {
            let (_, text) = self
                .ctx
                .cache
                .read_text(ldr, entry, "crds file")
                .map_err(|e| entry_error(self.ctx.files, file, Place::item("crds", i), entry, e))?;
            let specs = crate::config::crd::crd_field_specs_from_text(&text, entry)?;
            acc.config
                .merge_with(&crate::config::crd::crd_config(&specs)?, &self.ctx.merges)?;
        }
        // As in kustomize, every generator is configured before any runs: helm charts and
        // `generators:` configs fail (see build/plugins.rs) before a ConfigMap is generated.
        let charts = self.configure_helm_charts(ldr, file, k)?;
        let generator_configs = self.load_plugin_configs(ldr, file, "generators", &k.generators)?;
        self.run_generators(ldr, file, k, acc)?;
        // Generated resources start their provenance records as each generator runs (a
        // resource without a record would be taken for one the next step made).
        let on = self.recording();
        let before = provenance::snapshot(on, &acc.resmap).filter(|_| !charts.is_empty());
        self.run_helm_charts(&charts, file, acc)?;
        let helm_charts = crate::kustomization::files::Place {
            key: "helmCharts",
            index: None,
            sub: None,
        };
        provenance::record(before, &mut acc.resmap, || {
            provenance::About::entry(StepKind::Generate, file, helm_charts)
        });
        for generators::PluginConfig {
            config,
            source,
            plugin: external,
            inline,
            written,
        } in generator_configs
        {
            let before = provenance::snapshot(on, &acc.resmap);
            match &external {
                Some(plugin) => self.run_plugin_generator(plugin, &source, acc),
                None => self.run_generator_config(ldr, &config, &source, &written, acc),
            }
            .map_err(|e| e.context(format!("running generator from {}", source.display())))?;
            let merges = config.get_str(&["behavior"]) == Some("merge");
            provenance::record(before, &mut acc.resmap, || {
                let kind = if merges {
                    StepKind::GenerateMerge
                } else {
                    StepKind::Generate
                };
                // Inline YAML is written in its entry of the kustomization file.
                match inline {
                    Some(place) => provenance::About::entry(kind, file, place),
                    None => provenance::About::config(kind, &source),
                }
            });
        }
        for (i, entry) in k.components.iter().enumerate() {
            self.accumulate_component(ldr, i, entry, acc).map_err(|e| {
                entry_error(self.ctx.files, file, Place::item("components", i), entry, e)
            })?;
        }
        // Out of line, as the frame of this function is on the stack once per base.
        self.run_transformers(ldr, file, k, acc)?;
        self.run_validators(ldr, file, k, acc)?;
        transform::vars::declare(&mut acc.resmap, &mut acc.vars, &k.vars, file)
    }

    /// The kustomization's own fields as transformers, then its `transformers:` configs
    /// (builtin or plugins): one path for both, as in kustomize.
    #[inline(never)]
    fn run_transformers(
        &mut self,
        ldr: &Loader,
        file: &Path,
        k: &Kustomization,
        acc: &mut Accumulator,
    ) -> Result<()> {
        let meta = self.inh.meta.unwrap_or_default();
        let cache = self.ctx.cache;
        let files = self.ctx.files;
        let mut read = |p: &str, what: &str| {
            let (_, text) = cache.read_text(ldr, p, what).map_err(|e| {
                // A patch or replacements file: the entry that names it (the first, if several do).
                let named = crate::kustomization::files::named(k);
                match named
                    .iter()
                    .find(|n| n.field == Field::Patches && n.path == p)
                {
                    Some(n) => entry_error(files, file, n.place, p, e),
                    None => e,
                }
            })?;
            Ok(String::clone(&text))
        };
        let schemas = self.inh.schema.schemas.clone();
        let opts = MergeOptions {
            schemas: match &schemas {
                Some(chosen) => chosen.get(),
                None => Schemas::builtin(),
            },
            ..MergeOptions::kustomize()
        };
        let mut env = Env {
            dir: ldr.root(),
            read: &mut read,
            parsed: cache,
            merge: &opts,
            version: self.ctx.version,
            budget: self.ctx.budget,
            step: None,
            build_meta: meta.any().then(|| {
                crate::transform::build_metadata::Texts::new(self.ctx.root, self.ctx.files.remote())
            }),
        };
        let steps = fields::steps(k, &acc.config, file);
        let rm = &mut acc.resmap;
        let recording = self.recording();
        for step in &steps {
            run_step(step, rm, &mut env, &mut self.out, meta, file, recording).map_err(|e| {
                match step.entry {
                    // An error about the entry (a replicas name that matches nothing, a
                    // replacement source that selects nothing) starts at the entry's line,
                    // unless it already names an entry (the patch file it could not read).
                    Some(place) if !e.contexts().iter().any(|c| matches!(c, Context::Entry(_))) => {
                        let place = item_place(e.contexts()).unwrap_or(place);
                        entry_error(files, file, place, "", e)
                    }
                    _ => e,
                }
            })?;
            // Texts the step left to be checked when the resource is printed: an error
            // there points at the entry, as an error of the step would. (Only
            // replacements leave such texts.)
            let replacing = matches!(step.builtin, Builtin::Replacement { .. });
            for res in rm.iter_mut().filter(|r| replacing && r.untagged) {
                res.writers.settle(|contexts| {
                    let Some(place) = item_place(contexts).or(step.entry) else {
                        return vec![Context::In(file.to_path_buf())];
                    };
                    vec![Context::Entry(Box::new(entry_context(
                        files, file, place, "",
                    )))]
                });
            }
        }
        let external = self.ctx.external;
        for generators::PluginConfig {
            config,
            source,
            plugin,
            written,
            ..
        } in self.load_plugin_configs(ldr, file, "transformers", &k.transformers)?
        {
            let ctx =
                |e: Error| e.context(format!("running transformer from {}", source.display()));
            match plugin {
                Some(plugin) => provenance::recorded(
                    self.recording(),
                    rm,
                    || provenance::About::plugin(&plugin, &source),
                    |rm| {
                        run_plugin_transformer(
                            &plugin,
                            rm,
                            external,
                            meta,
                            &source,
                            self.ctx.budget,
                        )
                    },
                )
                .map_err(ctx)?,
                None => {
                    let mut step = configs::step(&config, &source).map_err(ctx)?;
                    // The annotations name the config as written (see `WrittenMeta`).
                    step.config_name = written.name;
                    step.config_namespace = written.namespace;
                    let recording = self.recording();
                    run_step(&step, rm, &mut env, &mut self.out, meta, &source, recording)?;
                    // As in the kustomization's own steps (above), and as an error of
                    // the config reads.
                    let replacing = matches!(step.builtin, Builtin::Replacement { .. });
                    for res in rm.iter_mut().filter(|r| replacing && r.untagged) {
                        res.writers.settle(|_| {
                            vec![
                                Context::Text(format!(
                                    "running transformer from {}",
                                    source.display()
                                )),
                                Context::In(file.to_path_buf()),
                            ]
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The `validators:` configs: plugins that may fail the build, not change it.
    #[inline(never)]
    fn run_validators(
        &mut self,
        ldr: &Loader,
        file: &Path,
        k: &Kustomization,
        acc: &mut Accumulator,
    ) -> Result<()> {
        let external = self.ctx.external;
        for generators::PluginConfig {
            config,
            source,
            plugin,
            ..
        } in self.load_plugin_configs(ldr, file, "validators", &k.validators)?
        {
            let Some(plugin) = plugin else {
                // kustomize would run a builtin transformer as a validator and fail if it
                // changed anything.
                let kind = config.get_str(&["kind"]).unwrap_or_default();
                return Err(Error::Unsupported {
                    what: format!(
                        "validators: kbuild does not run a builtin transformer ({kind}) as a validator"
                    ),
                    hint: Some("run the validator on kbuild's output instead".into()),
                });
            };
            plugin
                .validate(&acc.resmap, external, self.ctx.budget)
                .map_err(|e| e.context(format!("running validator from {}", source.display())))?;
        }
        Ok(())
    }

    /// A base may not be, or contain, a directory already being built.
    fn check_cycle(&self, candidate: &Path, entry: &str) -> Result<()> {
        if let Some(mut chain) = self.inh.chain.cycle_with(candidate) {
            chain.push(candidate.to_path_buf());
            return Err(Error::Cycle(Box::new(crate::error::Cycle {
                // A remote entry's credentials are not printed.
                entry: redact(entry),
                dir: candidate.to_path_buf(),
                chain,
            })));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
