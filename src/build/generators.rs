//! Generators of one kustomization: `configMapGenerator`/`secretGenerator`
//! fields and `generators:` configs, and the loading of `generators:` and
//! `transformers:` entries (files, directories of configs, inline YAML).

use super::{Accumulator, Builder, Expect};
use crate::error::{Error, Result};
use crate::kustomization::Kustomization;
use crate::kustomization::files::Place;
use crate::load::{FileKind, Loader};
use crate::provenance::StepKind;
use crate::resource::{Configured, Origin, Resource};
use crate::yaml::{self, Node};
use std::path::{Path, PathBuf};

/// A `generators:`, `transformers:` or `validators:` config, loaded and checked.
pub(super) struct PluginConfig {
    /// The config.
    pub(super) config: Node,
    /// The file it was read from (the kustomization file for inline YAML).
    pub(super) source: PathBuf,
    /// The external plugin it configures (`None`: a built-in).
    pub(super) plugin: Option<crate::plugin::Plugin>,
    /// The entry that holds it, when it is inline YAML: where its values are written.
    pub(super) inline: Option<Place>,
    /// Its `metadata.name` and `metadata.namespace` as written, for `buildMetadata`.
    pub(super) written: WrittenMeta,
}

/// A config's `metadata.name` and `metadata.namespace` as its text writes them.
/// kustomize's `buildMetadata` annotations name a transformer or generator by the
/// scalars of the config as read (`name: 0x10` is "0x10"), while the transformer itself
/// reads them as numbers made text ("16"; see kustomization/config_text.rs).
#[derive(Clone, Debug, Default)]
pub(super) struct WrittenMeta {
    pub(super) name: Option<String>,
    pub(super) namespace: Option<String>,
}

impl WrittenMeta {
    /// The metadata of `doc`, document `index` of `text` (`None` for a config that is no
    /// longer text: one a kustomization directory built). Only a value that is not a
    /// string is looked up in the text again: it is rare, and the parsed value lost how
    /// it was written.
    fn of(doc: &Node, text: Option<(&str, usize)>) -> WrittenMeta {
        let field = |key: &str| {
            let value = doc.get_path(&["metadata", key])?;
            if let Node::Str(s) = value {
                return Some(s.to_string()).filter(|s| !s.is_empty());
            }
            let written = text.and_then(|(text, index)| {
                let path = [
                    yaml::parse::PathStep::Key("metadata".into()),
                    yaml::parse::PathStep::Key(key.into()),
                ];
                yaml::locate::Located::parse(text, index)?
                    .scalar(&path)
                    .map(str::to_string)
            });
            written
                .or_else(|| value.scalar_string())
                .filter(|s| !s.is_empty())
        };
        WrittenMeta {
            name: field("name"),
            namespace: field("namespace"),
        }
    }
}

impl Builder<'_> {
    /// `configMapGenerator` and `secretGenerator`: new resources, or merged
    /// into / replacing existing ones according to `behavior`.
    pub(super) fn run_generators(
        &mut self,
        ldr: &Loader,
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
        let count: usize = lists.iter().map(|(_, list, _)| list.len()).sum();
        let mut index =
            (count >= crate::generate::behavior::INDEX_FROM).then(|| acc.resmap.any_id_index());
        let files = self.ctx.files;
        for (kind, list, builtin) in lists {
            for (i, args) in list.iter().enumerate() {
                let key = kind.field();
                let mut read = |p: &str| {
                    ldr.read(p, "generator file").map(|(_, b)| b).map_err(|e| {
                        // The generator's entry that names the file.
                        let named = crate::kustomization::files::named(k);
                        let place = named.iter().find(|n| {
                            n.place.key == key && n.place.index == Some(i) && n.path == p
                        });
                        match place {
                            Some(n) => super::entry_error(files, file, n.place, p, e),
                            None => e,
                        }
                    })
                };
                let g = generate(kind, args, k.generator_options.as_ref(), &mut read)?;
                self.out.warnings.extend(g.warnings.iter().map(|w| {
                    format!(
                        "{} {:?} in {}: {w}",
                        kind.field(),
                        args.name,
                        file.display()
                    )
                }));
                self.ctx
                    .budget
                    .charge(crate::resource::budget::node_bytes(&g.node), kind.field())?;
                let mut res = Resource::new(g.node)?;
                res.needs_hash = g.hash_suffix;
                if self.inh.meta.unwrap_or_default().any() {
                    res.origin = Some(Box::new(Origin::Generated(Configured {
                        configured_in: file.to_path_buf(),
                        api_version: "builtin".into(),
                        kind: builtin.into(),
                        name: None,
                        namespace: None,
                    })));
                }
                let replaced = (self.recording().on()
                    && g.behavior == crate::generate::Behavior::Replace)
                    .then(|| res.id());
                super::provenance::recorded(
                    self.recording(),
                    &mut acc.resmap,
                    || {
                        let kind = match g.behavior {
                            crate::generate::Behavior::Merge => StepKind::GenerateMerge,
                            _ => StepKind::Generate,
                        };
                        super::provenance::About::entry(
                            kind,
                            file,
                            crate::kustomization::files::Place::item(key, i),
                        )
                    },
                    |rm| crate::generate::behavior::absorb(rm, index.as_mut(), res, g.behavior),
                )
                .map_err(|e| e.context(format!("{} {:?}", kind.field(), args.name)))?;
                if let Some(id) = replaced {
                    let place = crate::kustomization::files::Place::item(key, i);
                    super::provenance::replaced(&mut acc.resmap, &id, file, place);
                }
            }
        }
        Ok(())
    }

    /// A remote `generators:`/`transformers:` entry: a file over http(s) (read into the
    /// build's text cache), else a kustomization in a git repository (its directory).
    fn fetch_plugin_config(
        &self,
        ldr: &Loader,
        entry: &str,
    ) -> Result<(Option<FileKind>, Option<PathBuf>)> {
        let fetched = if crate::load::is_remote_file(entry) {
            Some(self.ctx.cache.read_text(ldr, entry, "plugin config"))
        } else {
            None
        };
        if let Some(Ok(_)) = fetched {
            return Ok((Some(FileKind::File), None));
        }
        match ldr.remote_base(entry) {
            Ok(Some(dir)) => Ok((Some(FileKind::Dir), Some(dir))),
            Ok(None) => match fetched {
                Some(Err(file_error)) => Err(file_error),
                _ => Ok((Some(FileKind::File), None)),
            },
            Err(e) => Err(match fetched {
                Some(Err(file_error)) => crate::load::tried_as_file(e, &file_error),
                _ => e,
            }),
        }
    }

    /// The config documents of `generators:`/`transformers:`/`validators:` entries:
    /// files, directories holding a kustomization (its output are the configs), or
    /// inline YAML. Each comes with the file that configured it and, for an external
    /// plugin, the plugin found and configured (as kustomize, before any runs). A config
    /// that may not run (see build/plugins.rs) or a plugin that cannot be loaded is an
    /// error.
    pub(super) fn load_plugin_configs(
        &mut self,
        ldr: &Loader,
        file: &Path,
        key: &'static str,
        entries: &[String],
    ) -> Result<Vec<PluginConfig>> {
        let mut out = Vec::new();
        // For each config in `out`, the index of the inline entry it was written in.
        let mut inline_at: Vec<Option<usize>> = Vec::new();
        // kustomize takes the entries it can read as inline YAML first, then the files
        // and directories, each group in list order: an inline config runs (or
        // generates) before a file's, wherever it is listed.
        let (texts, paths): (Vec<_>, Vec<_>) = entries
            .iter()
            .map(|e| {
                let inline = e.contains('\n');
                // A remote entry is fetched in the files' turn, as a file URL first, then
                // as a git repository (kustomize loads it as it loads a resource).
                let remote = !inline
                    && (crate::load::is_remote_file(e)
                        || crate::remote::RepoSpec::parse(e).is_ok());
                let kind = if inline || remote {
                    None
                } else {
                    ldr.kind_of(e)
                };
                (e, inline, remote, kind)
            })
            .partition(|(_, _, remote, kind)| !remote && kind.is_none());
        for (entry, inline, remote, kind) in texts.into_iter().chain(paths) {
            let index = entries.iter().position(|x| std::ptr::eq(x, entry));
            self.load_plugin_config(ldr, file, (entry, inline, remote, kind), &mut out)
                .map_err(|e| {
                    // The entry that names the config (inline YAML is its own place).
                    match index {
                        Some(i) if !inline => {
                            super::entry_error(self.ctx.files, file, Place::item(key, i), entry, e)
                        }
                        _ => e,
                    }
                })?;
            inline_at.resize(out.len(), index.filter(|_| inline));
        }
        let mut loaded = Vec::with_capacity(out.len());
        for ((config, source, written), inline) in out.into_iter().zip(inline_at) {
            // An inline config's source is the kustomization, which the context names.
            let ctx = |e: Error| {
                if source == file {
                    e
                } else {
                    e.context(format!("in plugin config {}", source.display()))
                }
            };
            super::plugins::check_config(&config, self.ctx.plugins).map_err(ctx)?;
            let mut external = if super::plugins::is_builtin(&config) {
                None
            } else {
                let mut read = |p: &str| ldr.read(p, "argsFromFile").map(|(_, b)| b);
                Some(
                    crate::plugin::Plugin::load(
                        &config,
                        ldr.root(),
                        self.ctx.external,
                        self.ctx.version,
                        &mut read,
                    )
                    .map_err(ctx)?,
                )
            };
            if let Some(p) = external.as_mut() {
                p.name_as_written(written.name.clone(), written.namespace.clone());
            }
            if let Some(w) = external.as_ref().and_then(|p| p.warning()) {
                self.out.warnings.push(if source == file {
                    format!("{w} (in {})", file.display())
                } else {
                    format!("{w} (plugin config {})", source.display())
                });
            }
            loaded.push(PluginConfig {
                config,
                source,
                plugin: external,
                inline: inline.map(|i| Place::item(key, i)),
                written,
            });
        }
        Ok(loaded)
    }

    /// One `generators:`/`transformers:`/`validators:` entry of [`Self::load_plugin_configs`]:
    /// its configs added to `out`.
    fn load_plugin_config(
        &mut self,
        ldr: &Loader,
        file: &Path,
        (entry, inline, remote, kind): (&String, bool, bool, Option<FileKind>),
        out: &mut Vec<(Node, PathBuf, WrittenMeta)>,
    ) -> Result<()> {
        let (kind, remote_dir) = if remote {
            self.fetch_plugin_config(ldr, entry)?
        } else {
            (kind, None)
        };
        let exists = kind.is_some();
        if kind == Some(FileKind::Dir) {
            let real = match remote_dir {
                Some(dir) => dir,
                None => ldr.resolve(entry, "plugin config directory")?.0,
            };
            ldr.check_base(&real, entry)?;
            self.check_cycle(&real, entry)?;
            let mut sub = Accumulator::default();
            // The configurations' files are taken from their records below: recorded
            // whatever resources the build records.
            let everything = std::mem::replace(&mut self.inh.record_everything, true);
            let built = self.accumulate(&ldr.child(real.clone()), &mut sub, Expect::Kustomization);
            self.inh.record_everything = everything;
            built?;
            for r in sub.resmap.resources {
                // The config's file: from its origin (tracked with buildMetadata) or its
                // provenance record (with recording on), else the directory.
                let recorded = || {
                    let first = r.provenance.as_deref()?.steps.first()?;
                    (first.kind == crate::provenance::StepKind::Source)
                        .then(|| first.wrote.as_ref().map(|w| w.file.clone()))
                        .flatten()
                };
                let src = match r.origin.as_deref() {
                    Some(Origin::File(p)) => p.clone(),
                    _ => recorded().unwrap_or_else(|| real.clone()),
                };
                let written = WrittenMeta::of(r.node(), None);
                out.push((r.into_node(), src, written));
            }
            return Ok(());
        }
        let (text, src) = if !exists {
            (entry.clone(), file.to_path_buf())
        } else {
            let (real, text) = self.ctx.cache.read_text(ldr, entry, "plugin config")?;
            (String::clone(&text), real)
        };
        let docs = yaml::parse::parse_stream(&text, &src.display().to_string())?;
        if docs.iter().all(Node::is_null) && !exists && !inline {
            return Err(Error::NotFound {
                what: "plugin config".to_string(),
                path: entry.into(),
            });
        }
        out.extend(
            docs.into_iter()
                .enumerate()
                .filter(|(_, d)| !d.is_null())
                .map(|(i, d)| {
                    let written = WrittenMeta::of(&d, Some((&text, i)));
                    (d, src.clone(), written)
                }),
        );
        Ok(())
    }

    /// An external generator plugin: its resources absorbed with the behavior each asks for.
    pub(super) fn run_plugin_generator(
        &mut self,
        plugin: &crate::plugin::Plugin,
        source: &Path,
        acc: &mut Accumulator,
    ) -> Result<()> {
        let origin = self.inh.meta.unwrap_or_default().any();
        let generated = plugin.generate(self.ctx.external, self.ctx.budget)?;
        // Many resources from one plugin: look ids up in an index, as for builtin generators.
        let mut index = (generated.len() >= crate::generate::behavior::INDEX_FROM)
            .then(|| acc.resmap.any_id_index());
        let field = plugin.budget_field();
        for (mut res, behavior) in generated {
            self.ctx
                .budget
                .charge(crate::resource::budget::node_bytes(res.node()), &field)?;
            if origin {
                res.origin = Some(Box::new(Origin::Generated(plugin.configured(source))));
            }
            crate::generate::behavior::absorb(&mut acc.resmap, index.as_mut(), res, behavior)?;
        }
        Ok(())
    }

    /// A ConfigMapGenerator/SecretGenerator config from `generators:`.
    pub(super) fn run_generator_config(
        &mut self,
        ldr: &Loader,
        config: &Node,
        source: &Path,
        written: &WrittenMeta,
        acc: &mut Accumulator,
    ) -> Result<()> {
        use crate::generate::configs::GeneratorConfigKind;
        use crate::generate::{Behavior, GeneratorKind};
        if config.get_str(&["kind"]) == Some("HelmChartInflationGenerator") {
            return self.run_helm_config(ldr, config, source, acc);
        }
        let (mut res, behavior, builtin) = match crate::generate::configs::generator_config(config)?
        {
            GeneratorConfigKind::Data(kind, args) => {
                let mut read = |p: &str| ldr.read(p, "generator file").map(|(_, b)| b);
                // `generatorOptions` belongs to the kustomization's own
                // generator fields; a builtin config under `generators:` gets
                // only the options it carries itself.
                let g = crate::generate::generate(kind, &args, None, &mut read)?;
                self.out.warnings.extend(g.warnings.iter().map(|w| {
                    format!(
                        "{} {:?} in {}: {w}",
                        kind.field(),
                        args.name,
                        source.display()
                    )
                }));
                let mut res = Resource::new(g.node)?;
                res.needs_hash = g.hash_suffix;
                let builtin = match kind {
                    GeneratorKind::ConfigMap => "ConfigMapGenerator",
                    GeneratorKind::Secret => "SecretGenerator",
                };
                (res, g.behavior, builtin)
            }
            GeneratorConfigKind::Resource(node) => (
                Resource::new(node)?,
                Behavior::Unspecified,
                "IAMPolicyGenerator",
            ),
        };
        if self.inh.meta.unwrap_or_default().any() {
            res.origin = Some(Box::new(Origin::Generated(Configured {
                configured_in: source.to_path_buf(),
                api_version: "builtin".into(),
                kind: builtin.into(),
                name: written.name.clone(),
                namespace: written.namespace.clone(),
            })));
        }
        crate::generate::behavior::absorb(&mut acc.resmap, None, res, behavior)
    }
}
