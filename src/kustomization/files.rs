//! The files and directories a kustomization names, field by field: the one
//! answer to "which fields name files", from which the kustomization graph
//! (build/graph.rs) is resolved for the build, `kbuild deps`, `render
//! --affected`, `diff --ref` and the pre-commit hook.
//!
//! Every field of [`Kustomization`] is named in [`named`]'s destructuring, with
//! no `..`: a new field does not compile until it is listed here, either as one
//! that names files or as one that does not.

use super::{GeneratorArgs, Kustomization};
use crate::yaml::parse::PathStep;
use std::fmt;

/// The kind of field an entry comes from.
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
    /// A file of a helm chart vendored in the chart home (`helmCharts[i]`'s `name`; not
    /// from [`named`]: the graph lists a chart's files, see build/graph.rs).
    HelmChart,
}

/// Where an entry is written in its kustomization file, as a field path:
/// `resources[2]`, `patches[0].path`, `configMapGenerator[1].files[0]`,
/// `openapi.path`. Names are the file's (camelCase) keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    /// The top-level key.
    pub key: &'static str,
    /// The item of the top-level list, when the key holds one.
    pub index: Option<usize>,
    /// A key inside that item (or inside the key's mapping), and the item of its list.
    pub sub: Option<(&'static str, Option<usize>)>,
}

impl Place {
    /// The whole field `key` (`namePrefix`, `buildMetadata`).
    pub const fn field(key: &'static str) -> Place {
        Place {
            key,
            index: None,
            sub: None,
        }
    }

    /// `key[index]`.
    pub const fn item(key: &'static str, index: usize) -> Place {
        Place {
            key,
            index: Some(index),
            sub: None,
        }
    }

    /// `key[index].sub` or `key[index].sub[sub_index]`.
    pub const fn inner(
        key: &'static str,
        index: usize,
        sub: &'static str,
        sub_index: Option<usize>,
    ) -> Place {
        Place {
            key,
            index: Some(index),
            sub: Some((sub, sub_index)),
        }
    }

    /// The path of the place for [`crate::yaml::locate`].
    pub fn steps(&self) -> Vec<PathStep> {
        let mut steps = vec![PathStep::Key(self.key.to_string())];
        steps.extend(self.index.map(PathStep::Index));
        if let Some((sub, index)) = self.sub {
            steps.push(PathStep::Key(sub.to_string()));
            steps.extend(index.map(PathStep::Index));
        }
        steps
    }

    /// The 1-based line and column of the place in `text` (the kustomization file's
    /// text). The model folds deprecated lists into their replacements (`bases` into
    /// `resources`, `env` into `envs`): an index past the list as written is looked for
    /// in the deprecated one. Only for error messages: it parses `text` again (a report
    /// locating many entries parses once and asks [`Place::position_in`]).
    pub fn position(&self, text: &str) -> Option<(usize, usize)> {
        let node = crate::yaml::parse::parse_document(text, "").ok();
        let doc = crate::yaml::locate::Located::parse(text, 0);
        self.position_in(node.as_ref(), doc.as_ref())
    }

    /// [`Place::position`] from the file already parsed: `node` as
    /// [`crate::yaml::parse::parse_document`] reads the text (`None`: it does not parse),
    /// `doc` its first document as [`crate::yaml::locate::Located::parse`] reads it.
    pub fn position_in(
        &self,
        node: Option<&crate::yaml::Node>,
        doc: Option<&crate::yaml::locate::Located>,
    ) -> Option<(usize, usize)> {
        let written = |path: &[&str], index: Option<usize>, key: &str| {
            let mut n = node?.get_path(path)?;
            if let Some(i) = index {
                n = n.as_seq()?.get(i)?;
            }
            n.get(key)?.as_seq().map(Vec::len)
        };
        let mut place = *self;
        if let (Some(i), "resources") = (place.index, place.key) {
            let n = written(&[], None, "resources").unwrap_or(0);
            if i >= n {
                place = Place::item("bases", i - n);
            }
        }
        if let (Some(i), Some(("envs", Some(j)))) = (place.index, place.sub)
            && j >= written(&[place.key], Some(i), "envs").unwrap_or(0)
        {
            place.sub = Some(("env", None));
        }
        doc?.key(&place.steps())
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key)?;
        if let Some(i) = self.index {
            write!(f, "[{i}]")?;
        }
        if let Some((sub, index)) = self.sub {
            write!(f, ".{sub}")?;
            if let Some(i) = index {
                write!(f, "[{i}]")?;
            }
        }
        Ok(())
    }
}

/// An entry naming a file (or, for [`Named::may_be_dir`], a directory holding a kustomization).
#[derive(Clone, Copy, Debug)]
pub struct Named<'a> {
    /// Which kind of field names it.
    pub field: Field,
    /// Where it is written.
    pub place: Place,
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
pub fn named<'a>(k: &'a Kustomization) -> Vec<Named<'a>> {
    // Exhaustive on purpose (no `..`): see the module comment.
    let Kustomization {
        api_version: _,
        kind: _,
        deprecation_notices: _,
        metadata: _,
        openapi,
        name_prefix: _,
        name_suffix: _,
        namespace: _,
        common_labels: _,
        labels: _,
        common_annotations: _,
        patches_strategic_merge,
        patches_json6902,
        patches,
        images: _,
        image_tags: _,
        replacements,
        replicas: _,
        vars: _,
        sort_options: _,
        resources,
        components,
        crds,
        bases,
        config_map_generator,
        secret_generator,
        // `chartHome` names the directory charts are looked for in; `deps` lists the
        // chart files themselves (see build/graph.rs).
        helm_globals: _,
        helm_charts,
        helm_chart_inflation_generator,
        generator_options: _,
        configurations,
        generators,
        transformers,
        validators,
        build_metadata: _,
    } = k;
    let mut v = Vec::new();
    list(&mut v, Field::Resources, "resources", resources);
    // Folded into `resources` after decoding; listed in case a model was not.
    list(&mut v, Field::Resources, "bases", bases);
    list(&mut v, Field::Components, "components", components);
    list(&mut v, Field::Plugins, "generators", generators);
    list(&mut v, Field::Plugins, "transformers", transformers);
    list(&mut v, Field::Plugins, "validators", validators);
    list(
        &mut v,
        Field::Patches,
        "patchesStrategicMerge",
        patches_strategic_merge,
    );
    let mut push = |field: Field, place: Place, path: &'a str| {
        if !path.is_empty() {
            v.push(Named { field, place, path });
        }
    };
    for (key, list) in [("patches", patches), ("patchesJson6902", patches_json6902)] {
        for (i, p) in list.iter().enumerate() {
            push(Field::Patches, Place::inner(key, i, "path", None), &p.path);
        }
    }
    for (i, r) in replacements.iter().enumerate() {
        push(
            Field::Replacements,
            Place::inner("replacements", i, "path", None),
            &r.path,
        );
    }
    for (i, e) in crds.iter().enumerate() {
        push(Field::Config, Place::item("crds", i), e);
    }
    for (i, e) in configurations.iter().enumerate() {
        push(Field::Config, Place::item("configurations", i), e);
    }
    if let Some(path) = openapi.as_ref().and_then(|o| o.get("path")) {
        let place = Place {
            key: "openapi",
            index: None,
            sub: Some(("path", None)),
        };
        push(Field::Config, place, path);
    }
    for (key, list) in [
        ("configMapGenerator", config_map_generator),
        ("secretGenerator", secret_generator),
    ] {
        for (i, g) in list.iter().enumerate() {
            for (sub, j, path) in generator_inputs(g) {
                push(Field::GeneratorInputs, Place::inner(key, i, sub, j), path);
            }
        }
    }
    for (i, c) in helm_charts.iter().enumerate() {
        let place = Place::inner("helmCharts", i, "valuesFile", None);
        push(Field::HelmValues, place, &c.values_file);
        for (j, f) in c.additional_values_files.iter().enumerate() {
            let place = Place::inner("helmCharts", i, "additionalValuesFiles", Some(j));
            push(Field::HelmValues, place, f);
        }
    }
    for (i, c) in helm_chart_inflation_generator.iter().enumerate() {
        let place = Place::inner("helmChartInflationGenerator", i, "values", None);
        push(Field::HelmValues, place, &c.values);
    }
    v
}

/// The entries of the list `key` (but inline YAML: an entry with a line break where
/// the field takes text).
fn list<'a>(v: &mut Vec<Named<'a>>, field: Field, key: &'static str, entries: &'a [String]) {
    for (i, path) in entries.iter().enumerate() {
        // Only plugin configs and strategic-merge patches may be inline YAML.
        let inline = matches!(field, Field::Plugins | Field::Patches) && path.contains('\n');
        if !inline {
            v.push(Named {
                field,
                place: Place::item(key, i),
                path,
            });
        }
    }
}

/// The files a ConfigMap or Secret generator reads: `files` (`key=path` or
/// `path`) and `envs` (and the deprecated `env`), with the key and index of each.
fn generator_inputs(
    g: &GeneratorArgs,
) -> impl Iterator<Item = (&'static str, Option<usize>, &str)> {
    let files = g.files.iter().enumerate().map(|(i, entry)| {
        let path = entry.split_once('=').map_or(entry.as_str(), |(_, p)| p);
        ("files", Some(i), path)
    });
    let envs = g
        .envs
        .iter()
        .enumerate()
        .map(|(i, e)| ("envs", Some(i), e.as_str()));
    let env = std::iter::once(("env", None, g.env.as_str()));
    files
        .chain(envs)
        .chain(env)
        .filter(|(_, _, p)| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_written_as_field_paths_and_found_in_the_text() {
        let text = "resources:\n- a.yaml\n- b.yaml\nbases:\n- ../base\n\
                    configMapGenerator:\n- name: x\n  files: [k=f.txt]\n  env: e.env\n";
        let (_, k) = crate::kustomization::decode::decode(
            "kustomization.yaml".into(),
            text.as_bytes().to_vec(),
        )
        .unwrap();
        let named = named(&k);
        let shown: Vec<String> = named
            .iter()
            .map(|n| {
                let (l, c) = n.place.position(text).unwrap();
                format!("{}:{l}:{c}={}", n.place, n.path)
            })
            .collect();
        assert_eq!(
            shown,
            [
                "resources[0]:2:3=a.yaml",
                "resources[1]:3:3=b.yaml",
                "resources[2]:5:3=../base",
                "configMapGenerator[0].files[0]:8:11=f.txt",
                "configMapGenerator[0].envs[0]:9:3=e.env",
            ]
        );
    }
}
