//! Generators of one kustomization: `configMapGenerator`/`secretGenerator`
//! fields and `generators:` configs, and the loading of `generators:` and
//! `transformers:` entries (files, directories of configs, inline YAML).

use super::{Accumulator, Builder, Expect};
use crate::error::{Error, Result};
use crate::kustomization::Kustomization;
use crate::load::{FileKind, Loader};
use crate::resource::{Configured, Origin, Resource};
use crate::yaml::{self, Node};
use std::path::{Path, PathBuf};

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
        for (kind, list, builtin) in lists {
            for args in list {
                let mut read = |p: &str| ldr.read(p, "generator file").map(|(_, b)| b);
                let g = generate(kind, args, k.generator_options.as_ref(), &mut read)?;
                self.warnings.extend(g.warnings.iter().map(|w| {
                    format!(
                        "{} {:?} in {}: {w}",
                        kind.field(),
                        args.name,
                        file.display()
                    )
                }));
                self.budget
                    .charge(crate::resource::budget::node_bytes(&g.node), kind.field())?;
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
                crate::generate::behavior::absorb(&mut acc.resmap, index.as_mut(), res, g.behavior)
                    .map_err(|e| e.context(format!("{} {:?}", kind.field(), args.name)))?;
            }
        }
        Ok(())
    }

    /// The config documents of `generators:`/`transformers:`/`validators:` entries:
    /// files, directories holding a kustomization (its output are the configs), or
    /// inline YAML. Each comes with the file that configured it. A config kbuild cannot
    /// run (an external plugin, a helm chart) is an error (see build/plugins.rs).
    pub(super) fn load_plugin_configs(
        &mut self,
        ldr: &Loader,
        file: &Path,
        entries: &[String],
    ) -> Result<Vec<(Node, PathBuf)>> {
        let mut out = Vec::new();
        // kustomize takes the entries it can read as inline YAML first, then the files
        // and directories, each group in list order: an inline config runs (or
        // generates) before a file's, wherever it is listed.
        let (texts, paths): (Vec<_>, Vec<_>) = entries
            .iter()
            .map(|e| {
                let inline = e.contains('\n');
                (e, inline, if inline { None } else { ldr.kind_of(e) })
            })
            .partition(|(_, _, kind)| kind.is_none());
        for (entry, inline, kind) in texts.into_iter().chain(paths) {
            if !inline && crate::load::is_remote_file(entry) {
                // kustomize fetches it (and fails offline) before trying anything else.
                return Err(crate::load::remote_file(entry, "plugin config"));
            }
            let exists = kind.is_some();
            if kind == Some(FileKind::Dir) {
                let (real, _) = ldr.resolve(entry, "plugin config directory")?;
                self.check_cycle(&real, entry)?;
                let mut sub = Accumulator::default();
                self.accumulate(&ldr.child(real.clone()), &mut sub, Expect::Kustomization)?;
                for r in sub.resmap.resources {
                    let src = match &r.origin {
                        Some(Origin::File(p)) => p.clone(),
                        _ => real.clone(),
                    };
                    out.push((r.node, src));
                }
                continue;
            }
            let (text, src) = if !exists {
                (entry.clone(), file.to_path_buf())
            } else {
                let (real, text) = self.cache.read_text(ldr, entry, "plugin config")?;
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
                    .filter(|d| !d.is_null())
                    .map(|d| (d, src.clone())),
            );
        }
        for (config, source) in &out {
            super::plugins::check_config(config, self.plugins).map_err(|e| {
                // An inline config's source is the kustomization, which the context names.
                if source == file {
                    e
                } else {
                    e.context(format!("in plugin config {}", source.display()))
                }
            })?;
        }
        Ok(out)
    }

    /// A ConfigMapGenerator/SecretGenerator config from `generators:`.
    pub(super) fn run_generator_config(
        &mut self,
        ldr: &Loader,
        config: &Node,
        source: &Path,
        acc: &mut Accumulator,
    ) -> Result<()> {
        use crate::generate::configs::GeneratorConfigKind;
        use crate::generate::{Behavior, GeneratorKind};
        if config.get_str(&["kind"]) == Some("HelmChartInflationGenerator") {
            return self.run_helm_config(ldr, config, source, acc);
        }
        let (mut res, behavior, meta, builtin) =
            match crate::generate::configs::generator_config(config)? {
                GeneratorConfigKind::Data(kind, args, meta) => {
                    let mut read = |p: &str| ldr.read(p, "generator file").map(|(_, b)| b);
                    // `generatorOptions` belongs to the kustomization's own
                    // generator fields; a builtin config under `generators:` gets
                    // only the options it carries itself.
                    let g = crate::generate::generate(kind, &args, None, &mut read)?;
                    self.warnings.extend(g.warnings.iter().map(|w| {
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
        crate::generate::behavior::absorb(&mut acc.resmap, None, res, behavior)
    }
}
