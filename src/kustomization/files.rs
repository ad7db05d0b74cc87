//! The files and directories a kustomization names, field by field: one
//! answer to "which fields name files" for the build's read planner and for
//! `kbuild deps` (the build itself reads them stage by stage).

use super::{GeneratorArgs, Kustomization};

/// The field an entry comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `resources` (and the deprecated `bases`).
    Resources,
    /// `components`.
    Components,
    /// `generators`, `transformers`, `validators`: config files or directories.
    Plugins,
    /// Patch files: `patches`, `patchesStrategicMerge`, `patchesJson6902`.
    Patches,
    /// `replacements` entries with a `path`.
    Replacements,
    /// `crds`, `configurations`, `openapi.path`.
    Config,
    /// Generator `files` and `envs`.
    GeneratorInputs,
    /// A helm chart's `valuesFile` and `additionalValuesFiles` (the deprecated `values`).
    HelmValues,
}

/// An entry naming a file (or, for [`Named::may_be_dir`], a directory holding a kustomization).
#[derive(Clone, Copy, Debug)]
pub struct Named<'a> {
    /// Which field names it.
    pub field: Field,
    /// The path as written, relative to the kustomization's directory.
    pub path: &'a str,
}

impl Named<'_> {
    /// Whether the entry may be a directory holding a kustomization (or component).
    pub fn may_be_dir(&self) -> bool {
        matches!(
            self.field,
            Field::Resources | Field::Components | Field::Plugins
        )
    }
}

/// Every local path `k` names, in field order. Inline YAML (plugin configs,
/// strategic-merge patches) is left out: kustomize takes an entry with a line
/// break as text, never as a path.
pub fn named(k: &Kustomization) -> Vec<Named<'_>> {
    let mut v = Vec::new();
    for entry in k.resources.iter().chain(&k.bases) {
        v.push(Named {
            field: Field::Resources,
            path: entry,
        });
    }
    v.extend(k.components.iter().map(|e| Named {
        field: Field::Components,
        path: e,
    }));
    let plugins = k
        .generators
        .iter()
        .chain(&k.transformers)
        .chain(&k.validators);
    v.extend(plugins.filter(|e| !e.contains('\n')).map(|e| Named {
        field: Field::Plugins,
        path: e,
    }));
    let psm = k
        .patches_strategic_merge
        .iter()
        .filter(|e| !e.contains('\n'));
    let patch_paths = k
        .patches
        .iter()
        .chain(&k.patches_json6902)
        .map(|p| &p.path)
        .filter(|p| !p.is_empty());
    v.extend(psm.chain(patch_paths).map(|e| Named {
        field: Field::Patches,
        path: e,
    }));
    v.extend(
        k.replacements
            .iter()
            .filter(|r| !r.path.is_empty())
            .map(|r| Named {
                field: Field::Replacements,
                path: &r.path,
            }),
    );
    let openapi = k.openapi.as_ref().and_then(|o| o.get("path"));
    v.extend(
        k.crds
            .iter()
            .chain(&k.configurations)
            .chain(openapi)
            .map(|e| Named {
                field: Field::Config,
                path: e,
            }),
    );
    for g in k.config_map_generator.iter().chain(&k.secret_generator) {
        v.extend(generator_inputs(g).map(|e| Named {
            field: Field::GeneratorInputs,
            path: e,
        }));
    }
    let helm_values = k
        .helm_charts
        .iter()
        .flat_map(|c| std::iter::once(&c.values_file).chain(&c.additional_values_files));
    let old_helm_values = k.helm_chart_inflation_generator.iter().map(|c| &c.values);
    v.extend(
        helm_values
            .chain(old_helm_values)
            .filter(|p| !p.is_empty())
            .map(|e| Named {
                field: Field::HelmValues,
                path: e,
            }),
    );
    v
}

/// The files a ConfigMap or Secret generator reads: `files` (`key=path` or
/// `path`) and `envs` (and the deprecated `env`).
fn generator_inputs(g: &GeneratorArgs) -> impl Iterator<Item = &str> {
    let files = g
        .files
        .iter()
        .map(|entry| entry.split_once('=').map_or(entry.as_str(), |(_, p)| p));
    let envs = g
        .envs
        .iter()
        .chain(std::iter::once(&g.env))
        .filter(|e| !e.is_empty())
        .map(String::as_str);
    files.chain(envs)
}
