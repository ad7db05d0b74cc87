//! Transformer configuration: the field specs each transformer uses, built
//! in, extended by `configurations:` files.
//!
//! As in kustomize, a kustomization's configuration is the built-in one plus
//! its own `configurations` plus those of every base and component below it.

pub(crate) mod builtin_specs;
pub(crate) mod crd;
pub(crate) mod fieldspec;
pub(crate) mod legacy_order;
pub(crate) mod merge;
pub(crate) mod name_reference_specs;
pub(crate) mod var_reference_specs;

use crate::config::fieldspec::{from_table, merge_specs};
use crate::config::merge::{merge_field_specs, merge_name_references};
use crate::config::name_reference_specs::{self as name_reference, NameRefSpec};
use crate::error::{Error, Result};
use crate::kustomization::FieldSpec;
use crate::kustomize_version::KustomizeVersion;
use crate::yaml::Node;
use serde::Deserialize;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

/// The field specs of a [`TransformerConfig`], per transformer.
#[derive(Clone, Debug, Default, PartialEq, Hash)]
pub struct TransformerSpecs {
    pub name_prefix: Vec<FieldSpec>,
    pub name_suffix: Vec<FieldSpec>,
    pub namespace: Vec<FieldSpec>,
    pub common_labels: Vec<FieldSpec>,
    pub template_labels: Vec<FieldSpec>,
    /// Extra fields of the `labels:` field's transformer (the `labels` section of a
    /// configuration file; none built in).
    pub labels: Vec<FieldSpec>,
    pub common_annotations: Vec<FieldSpec>,
    pub images: Vec<FieldSpec>,
    pub replicas: Vec<FieldSpec>,
    pub var_reference: Vec<FieldSpec>,
    /// Which fields refer to which kinds by name.
    pub name_reference: Vec<NameRefSpec>,
}

/// Field specs per transformer: a shared, immutable value (cloning is cheap) that
/// changes by copy on write.
///
/// Every kustomization merges configurations (its bases', its own, after each component
/// again into an empty one), and kustomize's merge compares every spec with the others
/// and sorts. The same few configurations meet again and again in a tree, so merge
/// results are remembered by the content hashes of both sides.
#[derive(Clone, Debug)]
pub struct TransformerConfig {
    specs: Arc<TransformerSpecs>,
    /// Content hash of `specs`, computed when first needed.
    hash: OnceLock<u64>,
}

impl Deref for TransformerConfig {
    type Target = TransformerSpecs;
    fn deref(&self) -> &TransformerSpecs {
        &self.specs
    }
}

impl DerefMut for TransformerConfig {
    fn deref_mut(&mut self) -> &mut TransformerSpecs {
        self.hash = OnceLock::new();
        Arc::make_mut(&mut self.specs)
    }
}

impl From<TransformerSpecs> for TransformerConfig {
    fn from(specs: TransformerSpecs) -> Self {
        TransformerConfig {
            specs: Arc::new(specs),
            hash: OnceLock::new(),
        }
    }
}

/// A configuration whose content hash is already known.
fn hashed(specs: Arc<TransformerSpecs>, hash: u64) -> TransformerConfig {
    TransformerConfig {
        specs,
        hash: OnceLock::from(hash),
    }
}

fn hash_specs(specs: &TransformerSpecs) -> u64 {
    // Only compared within one process: a fast fixed hasher will do.
    foldhash::fast::FixedState::default().hash_one(specs)
}

// Hashed once here, so every clone knows its hash.
static BUILTIN: LazyLock<TransformerConfig> = LazyLock::new(|| {
    let specs = TransformerSpecs::builtin();
    let h = hash_specs(&specs);
    hashed(Arc::new(specs), h)
});
/// Before kustomize v5.7.0 the `images` field specs did not reach image volumes.
static BUILTIN_BEFORE_IMAGE_VOLUMES: LazyLock<TransformerConfig> = LazyLock::new(|| {
    let mut specs = TransformerSpecs::builtin();
    specs
        .images
        .retain(|s| !builtin_specs::IMAGE_VOLUMES.iter().any(|v| v.3 == s.path));
    let h = hash_specs(&specs);
    hashed(Arc::new(specs), h)
});
static EMPTY: LazyLock<TransformerConfig> = LazyLock::new(|| {
    let specs = TransformerSpecs::default();
    let h = hash_specs(&specs);
    hashed(Arc::new(specs), h)
});

/// Merge results (and their content hashes) by the content hashes of (into, from), for
/// one build: a tree merges the same few configurations (the built-in one into what
/// bases brought) at every kustomization. It lives in the build's context, not in the
/// process: it ends with the build.
#[derive(Default)]
pub(crate) struct MergeMemo(Mutex<HashMap<(u64, u64), Merged, foldhash::fast::FixedState>>);

/// A merge's result and its content hash.
type Merged = (Arc<TransformerSpecs>, u64);

impl TransformerConfig {
    /// The built-in configuration of a kustomize release.
    pub fn builtin(version: KustomizeVersion) -> Self {
        if version.images_in_image_volumes() {
            BUILTIN.clone()
        } else {
            BUILTIN_BEFORE_IMAGE_VOLUMES.clone()
        }
    }
}

impl TransformerSpecs {
    /// kustomize's built-in field specs.
    fn builtin() -> Self {
        let mut common_labels = from_table(&builtin_specs::selector_labels());
        merge_specs(
            &mut common_labels,
            &from_table(builtin_specs::METADATA_LABELS),
        );
        TransformerSpecs {
            name_prefix: from_table(builtin_specs::NAME),
            name_suffix: from_table(builtin_specs::NAME),
            namespace: Vec::new(),
            common_labels,
            template_labels: from_table(builtin_specs::METADATA_LABELS),
            labels: Vec::new(),
            common_annotations: from_table(builtin_specs::ANNOTATIONS),
            images: from_table(builtin_specs::IMAGES),
            replicas: from_table(builtin_specs::REPLICAS),
            var_reference: from_table(crate::config::var_reference_specs::VAR_REFERENCE),
            name_reference: name_reference::builtin(),
        }
    }
}

/// A `configurations:` file.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConfigFile {
    #[serde(default)]
    name_prefix: Vec<FieldSpec>,
    #[serde(default)]
    name_suffix: Vec<FieldSpec>,
    #[serde(default)]
    namespace: Vec<FieldSpec>,
    #[serde(default)]
    common_labels: Vec<FieldSpec>,
    #[serde(default)]
    template_labels: Vec<FieldSpec>,
    #[serde(default)]
    labels: Vec<FieldSpec>,
    #[serde(default)]
    common_annotations: Vec<FieldSpec>,
    #[serde(default)]
    images: Vec<FieldSpec>,
    #[serde(default)]
    replicas: Vec<FieldSpec>,
    #[serde(default)]
    var_reference: Vec<FieldSpec>,
    #[serde(default)]
    name_reference: Vec<NameRefSpec>,
}

impl TransformerConfig {
    /// Adds the field specs of a configuration file's content (read leniently,
    /// as kustomize does: unknown sections are ignored).
    pub fn add_file(&mut self, node: &Node, source: &str) -> Result<()> {
        if node.is_null() {
            return Ok(());
        }
        let f: ConfigFile = crate::yaml::de::from_node_lenient(node).map_err(|e| {
            Error::invalid_config(format!("{source}: invalid transformer configuration: {e}"))
        })?;
        let other: TransformerConfig = TransformerSpecs {
            name_prefix: f.name_prefix,
            name_suffix: f.name_suffix,
            namespace: f.namespace,
            common_labels: f.common_labels,
            template_labels: f.template_labels,
            labels: f.labels,
            common_annotations: f.common_annotations,
            images: f.images,
            replicas: f.replicas,
            var_reference: f.var_reference,
            name_reference: f.name_reference,
        }
        .into();
        self.merge(&other)
            .map_err(|e| e.context(source.to_string()))?;
        Ok(())
    }

    /// A configuration without any field spec (what a kustomization starts from before
    /// its bases' and its own configurations are merged in).
    pub fn empty() -> Self {
        EMPTY.clone()
    }

    fn content_hash(&self) -> u64 {
        *self.hash.get_or_init(|| hash_specs(&self.specs))
    }

    /// Adds everything `other` has that this one lacks, the way kustomize merges
    /// configurations (see [`crate::config::merge`]); fails on conflicting field specs.
    pub fn merge(&mut self, other: &TransformerConfig) -> Result<()> {
        self.merge_in(other, None)
    }

    /// [`Self::merge`], taking the result from `memo` when these two configurations
    /// were merged before in this build.
    pub(crate) fn merge_with(&mut self, other: &TransformerConfig, memo: &MergeMemo) -> Result<()> {
        self.merge_in(other, Some(memo))
    }

    fn merge_in(&mut self, other: &TransformerConfig, memo: Option<&MergeMemo>) -> Result<()> {
        if Arc::ptr_eq(&self.specs, &other.specs) {
            // Merging a configuration into itself changes nothing.
            return Ok(());
        }
        let key = (self.content_hash(), other.content_hash());
        let known = memo.and_then(|m| m.0.lock().ok().and_then(|m| m.get(&key).cloned()));
        if let Some((specs, hash)) = known {
            *self = hashed(specs, hash);
            return Ok(());
        }
        let mut merged = (*self.specs).clone();
        merged.merge(other)?;
        let hash = hash_specs(&merged);
        let merged = Arc::new(merged);
        if let Some(Ok(mut m)) = memo.map(|m| m.0.lock()) {
            m.insert(key, (merged.clone(), hash));
        }
        *self = hashed(merged, hash);
        Ok(())
    }
}

impl TransformerSpecs {
    fn merge(&mut self, other: &TransformerSpecs) -> Result<()> {
        let sections: [(&mut Vec<FieldSpec>, &Vec<FieldSpec>, &str); 10] = [
            (&mut self.name_prefix, &other.name_prefix, "namePrefix"),
            (&mut self.name_suffix, &other.name_suffix, "nameSuffix"),
            (&mut self.namespace, &other.namespace, "namespace"),
            (
                &mut self.common_labels,
                &other.common_labels,
                "commonLabels",
            ),
            (
                &mut self.template_labels,
                &other.template_labels,
                "templateLabels",
            ),
            (&mut self.labels, &other.labels, "labels"),
            (
                &mut self.common_annotations,
                &other.common_annotations,
                "commonAnnotations",
            ),
            (&mut self.images, &other.images, "images"),
            (&mut self.replicas, &other.replicas, "replicas"),
            (
                &mut self.var_reference,
                &other.var_reference,
                "varReference",
            ),
        ];
        for (mine, theirs, section) in sections {
            merge_field_specs(mine, theirs, section)?;
        }
        merge_name_references(&mut self.name_reference, &other.name_reference)
    }
}
