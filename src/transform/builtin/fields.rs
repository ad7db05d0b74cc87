//! The first front end: a kustomization's transformer fields as built-in
//! transformer steps, in the order kustomize runs them (its
//! `kusttarget_configplugin.go` list): patchesStrategicMerge, patches,
//! namespace, namePrefix, nameSuffix, labels, commonLabels,
//! commonAnnotations, patchesJson6902, replicas, images; then replacements,
//! which kustomize runs after the kustomization's other built-in transformers.

use super::patch_entry::{patch_context, patch_name};
use super::{Builtin, Step};
use crate::config::TransformerConfig;
use crate::config::fieldspec::{from_table, merge_specs};
use crate::kustomization::Kustomization;
use crate::kustomization::files::Place;
use crate::transform::{namespace, replacements};
use std::borrow::Cow;
use std::path::Path;

/// A step for a kustomization field: recorded, not checked for union fields
/// unless `warn_as` is set.
fn step(builtin: Builtin<'_>) -> Step<'_> {
    Step {
        builtin,
        warn_as: None,
        context: None,
        record: true,
        config_name: None,
        config_namespace: None,
        entry: None,
    }
}

/// A step for the entry at `place`: the build checks it for changing nothing (steps
/// that always change something report so), and provenance names it.
fn entry_step(builtin: Builtin<'_>, place: Place) -> Step<'_> {
    Step {
        entry: Some(place),
        ..step(builtin)
    }
}

/// A whole top-level field (`commonLabels`) as a place.
const fn field(key: &'static str) -> Place {
    Place::field(key)
}

/// The built-in transformers the fields of `k` (the file `file`) ask for, with
/// the field specs of `cfg`.
pub(crate) fn steps<'a>(
    k: &'a Kustomization,
    cfg: &'a TransformerConfig,
    file: &Path,
) -> Vec<Step<'a>> {
    let kfile = file.display();
    let mut out = Vec::new();
    let psm = &k.patches_strategic_merge;
    for (i, entry) in psm.iter().enumerate() {
        // kustomize runs the list as one transformer: one annotation at the end.
        out.push(Step {
            warn_as: Some(patch_name(&kfile, "patchesStrategicMerge", i, entry)),
            record: i + 1 == psm.len(),
            ..entry_step(
                Builtin::PatchStrategicMerge(Cow::Borrowed(std::slice::from_ref(entry))),
                Place::item("patchesStrategicMerge", i),
            )
        });
    }
    for (i, p) in k.patches.iter().enumerate() {
        out.push(Step {
            warn_as: Some(patch_name(&kfile, "patches", i, &p.path)),
            context: Some(patch_context("patches", p)),
            ..entry_step(Builtin::Patch(Cow::Borrowed(p)), Place::item("patches", i))
        });
    }
    if let Some(ns) = k.namespace.as_deref().filter(|s| !s.is_empty()) {
        out.push(entry_step(
            Builtin::Namespace {
                namespace: Cow::Borrowed(ns),
                specs: Cow::Owned(namespace::kustomization_specs(&cfg.namespace)),
                options: Default::default(),
            },
            field("namespace"),
        ));
    }
    if let Some(prefix) = k.name_prefix.as_deref().filter(|s| !s.is_empty()) {
        out.push(entry_step(
            Builtin::PrefixSuffix {
                kind: "PrefixTransformer",
                prefix: Cow::Borrowed(prefix),
                suffix: Cow::Borrowed(""),
                specs: Cow::Borrowed(&cfg.name_prefix),
            },
            field("namePrefix"),
        ));
    }
    if let Some(suffix) = k.name_suffix.as_deref().filter(|s| !s.is_empty()) {
        out.push(entry_step(
            Builtin::PrefixSuffix {
                kind: "SuffixTransformer",
                prefix: Cow::Borrowed(""),
                suffix: Cow::Borrowed(suffix),
                specs: Cow::Borrowed(&cfg.name_suffix),
            },
            field("nameSuffix"),
        ));
    }
    for (i, label) in k.labels.iter().enumerate() {
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
        out.push(entry_step(
            Builtin::Labels {
                labels: Cow::Borrowed(&label.pairs),
                specs: Cow::Owned(specs),
            },
            Place::item("labels", i),
        ));
    }
    // As kustomize configures them: no label transformer when `labels` and
    // `commonLabels` are both empty; otherwise the `commonLabels` one always runs,
    // even empty (it shows in `transformerAnnotations`).
    let common_labels = k.common_labels.as_ref().filter(|l| !l.is_empty());
    if !k.labels.is_empty() || common_labels.is_some() {
        out.push(Step {
            entry: common_labels.map(|_| field("commonLabels")),
            ..step(Builtin::Labels {
                labels: common_labels.map_or_else(Default::default, Cow::Borrowed),
                specs: Cow::Borrowed(&cfg.common_labels),
            })
        });
    }
    if let Some(annotations) = k.common_annotations.as_ref().filter(|a| !a.is_empty()) {
        out.push(entry_step(
            Builtin::Annotations {
                annotations: Cow::Borrowed(annotations),
                specs: Cow::Borrowed(&cfg.common_annotations),
            },
            field("commonAnnotations"),
        ));
    }
    for (i, p) in k.patches_json6902.iter().enumerate() {
        out.push(Step {
            warn_as: Some(patch_name(&kfile, "patchesJson6902", i, &p.path)),
            context: Some(patch_context("patchesJson6902", p)),
            ..entry_step(
                Builtin::PatchJson6902(Cow::Borrowed(p)),
                Place::item("patchesJson6902", i),
            )
        });
    }
    for (i, r) in k.replicas.iter().enumerate() {
        out.push(entry_step(
            Builtin::ReplicaCount {
                replica: Cow::Borrowed(r),
                specs: Cow::Borrowed(&cfg.replicas),
            },
            Place::item("replicas", i),
        ));
    }
    for (i, image) in k.images.iter().enumerate() {
        out.push(entry_step(
            Builtin::ImageTag {
                image: Cow::Borrowed(image),
                specs: Cow::Borrowed(&cfg.images),
            },
            Place::item("images", i),
        ));
    }
    if !k.replacements.is_empty() {
        // Its parts say where they are written (see noop::of_replacements).
        out.push(entry_step(
            Builtin::Replacement {
                entries: Cow::Borrowed(&k.replacements),
                decode: replacements::Decode::Strict,
            },
            field("replacements"),
        ));
    }
    out
}
