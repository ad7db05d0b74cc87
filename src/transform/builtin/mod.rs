//! kustomize's built-in transformers as one enum, applied by one function.
//!
//! kustomize has one path for built-in transformers: each kustomization field
//! (`namespace`, `patches`, `images`, …) becomes the same built-in config a
//! `transformers:` entry would give, and both are run alike. kbuild does the
//! same: [`fields`] turns a kustomization's fields into [`Step`]s in kustomize's
//! order, [`configs`] turns `transformers:` config documents into steps, and
//! [`Step::run`] applies any of them. The two front ends differ only where
//! kustomize's do (a config's `fieldSpecs` replace the defaults; a config is
//! decoded leniently), and in how kbuild names the step in warnings and errors.

pub(crate) mod configs;
pub(crate) mod env;
pub(crate) mod fields;
pub(crate) mod noop;
pub(crate) mod patch_entry;

use crate::error::Result;
use crate::kustomization::{FieldSpec, Image, Patch, ReplacementField, Replica, StringMap};
use crate::resource::resmap::ResMap;
use crate::transform::union_check::{Changes, check_changes};
use crate::transform::{self, namespace, replacements};
use env::Env;
use noop::Effect;
use std::borrow::Cow;

/// Field specs, borrowed from the transformer configuration when a
/// kustomization field uses them as they are.
pub(crate) type Specs<'a> = Cow<'a, [FieldSpec]>;

/// One built-in transformer with its typed configuration.
#[derive(Debug)]
pub(crate) enum Builtin<'a> {
    /// `PatchStrategicMergeTransformer`: file paths or inline patches.
    PatchStrategicMerge(Cow<'a, [String]>),
    /// `PatchTransformer`: one patch, strategic merge or JSON 6902.
    Patch(Cow<'a, Patch>),
    /// `PatchJson6902Transformer`: one JSON 6902 patch with a target.
    PatchJson6902(Cow<'a, Patch>),
    /// `NamespaceTransformer`.
    Namespace {
        /// The namespace to set.
        namespace: Cow<'a, str>,
        /// Where namespaces are set.
        specs: Specs<'a>,
        /// `unsetOnly`, `setRoleBindingSubjects`.
        options: namespace::Options,
    },
    /// `PrefixTransformer`, `SuffixTransformer`, `PrefixSuffixTransformer`.
    PrefixSuffix {
        /// Which of the three (for transformer annotations).
        kind: &'static str,
        /// Prepended to names.
        prefix: Cow<'a, str>,
        /// Appended to names.
        suffix: Cow<'a, str>,
        /// The name fields.
        specs: Specs<'a>,
    },
    /// `LabelTransformer`.
    Labels {
        /// The labels.
        labels: Cow<'a, StringMap>,
        /// Where they go.
        specs: Specs<'a>,
    },
    /// `AnnotationsTransformer`.
    Annotations {
        /// The annotations.
        annotations: Cow<'a, StringMap>,
        /// Where they go.
        specs: Specs<'a>,
    },
    /// `ReplicaCountTransformer`.
    ReplicaCount {
        /// The resource name and count.
        replica: Cow<'a, Replica>,
        /// The replica fields.
        specs: Specs<'a>,
    },
    /// `ImageTagTransformer`.
    ImageTag {
        /// The image and its new name, tag or digest.
        image: Cow<'a, Image>,
        /// The image fields.
        specs: Specs<'a>,
    },
    /// `ReplacementTransformer`.
    Replacement {
        /// Inline replacements or `path:` entries.
        entries: Cow<'a, [ReplacementField]>,
        /// Strict for the kustomization field, lenient for configs (as kustomize).
        decode: replacements::Decode,
    },
    /// `HashTransformer`: content hashes appended to generated names now.
    Hash,
    /// `ValueAddTransformer`: a value written into fields of selected resources.
    ValueAdd(Box<transform::value_add::Config>),
}

impl Builtin<'_> {
    /// kustomize's kind name, as transformer annotations and errors show it.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Builtin::PatchStrategicMerge(_) => "PatchStrategicMergeTransformer",
            Builtin::Patch(_) => "PatchTransformer",
            Builtin::PatchJson6902(_) => "PatchJson6902Transformer",
            Builtin::Namespace { .. } => "NamespaceTransformer",
            Builtin::PrefixSuffix { kind, .. } => kind,
            Builtin::Labels { .. } => "LabelTransformer",
            Builtin::Annotations { .. } => "AnnotationsTransformer",
            Builtin::ReplicaCount { .. } => "ReplicaCountTransformer",
            Builtin::ImageTag { .. } => "ImageTagTransformer",
            Builtin::Replacement { .. } => "ReplacementTransformer",
            Builtin::Hash => "HashTransformer",
            Builtin::ValueAdd(_) => "ValueAddTransformer",
        }
    }

    /// Whether the transformer says which resources it changes (patches do,
    /// through `changes`); any other may change any resource.
    fn notes_changes(&self) -> bool {
        matches!(
            self,
            Builtin::PatchStrategicMerge(_) | Builtin::Patch(_) | Builtin::PatchJson6902(_)
        )
    }

    /// Applies the transformer to `rm`; what it did (see [`noop`]).
    /// Patches note the resources they change in `changes`.
    pub(crate) fn apply(
        &self,
        rm: &mut ResMap,
        env: &mut Env,
        changes: &mut Changes,
    ) -> Result<Effect> {
        let changed = |yes: bool, why: &dyn Fn() -> String| {
            if yes {
                Effect::Changed
            } else {
                Effect::Nothing(why())
            }
        };
        match self {
            Builtin::PatchStrategicMerge(entries) => {
                for entry in entries.iter() {
                    patch_entry::apply_strategic_merge_entry(rm, entry, env, changes)?;
                }
                Ok(Effect::Changed)
            }
            Builtin::Patch(p) => {
                patch_entry::apply_patch_entry(rm, p, env, changes)?;
                Ok(noop::of_patch(changes.any(), p.target.as_ref(), rm))
            }
            Builtin::PatchJson6902(p) => {
                // A PatchJson6902Transformer config's target is checked when it is read.
                patch_entry::apply_json6902_entry(rm, p, "a patchesJson6902 entry", env, changes)?;
                Ok(noop::of_patch(changes.any(), p.target.as_ref(), rm))
            }
            Builtin::Namespace {
                namespace,
                specs,
                options,
            } => {
                let options = namespace::Options {
                    skip_helm_generated: env.version.namespace_for_helm_charts(),
                    ..*options
                };
                namespace::apply(rm, namespace, specs, options)?;
                Ok(Effect::Changed)
            }
            Builtin::PrefixSuffix {
                prefix,
                suffix,
                specs,
                ..
            } => {
                transform::name_affix::apply(rm, prefix, suffix, specs)?;
                Ok(Effect::Changed)
            }
            Builtin::Labels { labels, specs } => {
                charge_pairs(env, labels, rm, "labels (commonLabels, labels)")?;
                let set = transform::labels::set_pairs(rm, labels, specs)?;
                Ok(changed(set, &|| noop::pairs_unchanged("label", labels, rm)))
            }
            Builtin::Annotations { annotations, specs } => {
                charge_pairs(env, annotations, rm, "commonAnnotations")?;
                let set = transform::annotations::add(rm, annotations, specs)?;
                Ok(changed(set, &|| {
                    noop::pairs_unchanged("annotation", annotations, rm)
                }))
            }
            Builtin::ReplicaCount { replica, specs } => {
                let set =
                    transform::replicas::apply(rm, std::slice::from_ref(replica.as_ref()), specs)?;
                Ok(changed(set, &|| {
                    format!(
                        "every resource named '{}' has {} replicas already, so it changes nothing",
                        replica.name, replica.count
                    )
                }))
            }
            Builtin::ImageTag { image, specs } => {
                let counts =
                    transform::images::apply(rm, std::slice::from_ref(image.as_ref()), specs)?;
                Ok(noop::of_image(
                    image,
                    counts.first().copied().unwrap_or_default(),
                ))
            }
            Builtin::Replacement { entries, decode } => {
                let ctx = replacements::Ctx {
                    version: env.version,
                    schemas: env.merge.schemas,
                    budget: env.budget,
                };
                let targets = replacements::apply_entries(
                    rm,
                    entries,
                    *decode,
                    ctx,
                    &mut env.reader("replacements file"),
                )?;
                Ok(noop::of_replacements(entries, &targets))
            }
            Builtin::Hash => {
                transform::name_hash::apply(rm, false)?;
                Ok(Effect::Changed)
            }
            Builtin::ValueAdd(config) => {
                let dir = env.dir;
                let value_add = config
                    .as_ref()
                    .clone()
                    .resolve(dir, &mut env.reader("targetFilePath file"))?;
                transform::value_add::apply(rm, &value_add)?;
                Ok(Effect::Changed)
            }
        }
    }
}

/// Charges writing `pairs` into every resource of `rm` (once each: the few fields a
/// resource gets them in are not counted) to the output budget, before any is
/// written: a large value copied into many resources fails at once instead of
/// filling memory.
fn charge_pairs(env: &Env, pairs: &StringMap, rm: &ResMap, field: &str) -> Result<()> {
    let bytes: u64 = pairs.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum();
    env.budget
        .charge(bytes.saturating_mul(rm.len() as u64), field)
}

/// A built-in transformer as a kustomization runs it: how to name it in
/// warnings and errors, and whether to check what it changes.
pub(crate) struct Step<'a> {
    /// The transformer.
    pub builtin: Builtin<'a>,
    /// Names the step in warnings about union fields it leaves with two members set;
    /// `None`: the step is not checked (kustomization fields other than patches,
    /// as kbuild has always done).
    pub warn_as: Option<String>,
    /// Context for its errors.
    pub context: Option<String>,
    /// Whether a transformer annotation is recorded after it (`buildMetadata:
    /// [transformerAnnotations]`): false for all but the last of a
    /// `patchesStrategicMerge` list, which kustomize runs as one transformer.
    pub record: bool,
    /// The config's `metadata.name` and `metadata.namespace`, for transformer
    /// annotations (none for kustomization fields).
    pub config_name: Option<String>,
    /// See `config_name`.
    pub config_namespace: Option<String>,
    /// The kustomization entry the step comes from (`images[2]`), when the build may warn
    /// that it changes nothing (see [`noop`]); `None` for `transformers:` configs and
    /// the fields that always change something.
    pub entry: Option<crate::kustomization::files::Place>,
}

impl Step<'_> {
    /// Runs the step over `rm`, adding union-field warnings to `warnings`; what it did.
    pub(crate) fn run(
        &self,
        rm: &mut ResMap,
        env: &mut Env,
        warnings: &mut Vec<String>,
    ) -> Result<Effect> {
        env.step.clone_from(&self.warn_as);
        let result = match &self.warn_as {
            Some(name) => {
                let mut effect = Effect::Changed;
                check_changes(rm, warnings, &|| name.clone(), |rm, changes| {
                    if !self.builtin.notes_changes() {
                        changes.will_change_all(rm);
                    }
                    effect = self.builtin.apply(rm, env, changes)?;
                    Ok(())
                })
                .map(|()| effect)
            }
            None => self.builtin.apply(rm, env, &mut Changes::default()),
        };
        match &self.context {
            Some(context) => result.map_err(|e| e.context(context.clone())),
            None => result,
        }
    }
}
