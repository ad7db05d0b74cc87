//! Transformer configuration: the field specs each transformer uses, built
//! in, extended by `configurations:` files.
//!
//! As in kustomize, a kustomization's configuration is the built-in one plus
//! its own `configurations` plus those of every base and component below it.

use crate::builtin_specs;
use crate::error::{Error, Result};
use crate::fieldspec::{from_table, merge_specs};
use crate::kustomization::FieldSpec;
use crate::transform::name_reference::{self, NameRefSpec};
use crate::yaml::Node;
use serde::Deserialize;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, LazyLock};

/// A transformer configuration: the built-in field specs, shared, until a
/// `configurations:` file extends them (then this config gets its own copy).
///
/// Reads and writes go through `Deref`/`DerefMut` to [`TransformerSpecs`]:
/// every kustomization of a build starts from the built-in config, and
/// cloning its few thousand specs per kustomization was a good part of
/// the build time.
#[derive(Clone, Debug)]
pub struct TransformerConfig {
    specs: Arc<TransformerSpecs>,
    /// Whether anything (a `configurations:` file here or in a base) may
    /// have changed the specs; a config that nothing extended adds nothing
    /// when merged into another, since every config starts as the built-in one.
    extended: bool,
}

impl Deref for TransformerConfig {
    type Target = TransformerSpecs;
    fn deref(&self) -> &TransformerSpecs {
        &self.specs
    }
}

impl DerefMut for TransformerConfig {
    fn deref_mut(&mut self) -> &mut TransformerSpecs {
        self.extended = true;
        Arc::make_mut(&mut self.specs)
    }
}

/// Field specs per transformer.
#[derive(Clone, Debug)]
pub struct TransformerSpecs {
    pub name_prefix: Vec<FieldSpec>,
    pub name_suffix: Vec<FieldSpec>,
    pub namespace: Vec<FieldSpec>,
    pub common_labels: Vec<FieldSpec>,
    pub template_labels: Vec<FieldSpec>,
    pub common_annotations: Vec<FieldSpec>,
    pub images: Vec<FieldSpec>,
    pub replicas: Vec<FieldSpec>,
    pub var_reference: Vec<FieldSpec>,
    /// Which fields refer to which kinds by name.
    pub name_reference: Vec<NameRefSpec>,
}

impl Default for TransformerConfig {
    fn default() -> Self {
        // Every kustomization of a build starts from the built-in config:
        // build it once.
        static BUILTIN: LazyLock<Arc<TransformerSpecs>> =
            LazyLock::new(|| Arc::new(TransformerSpecs::builtin()));
        TransformerConfig {
            specs: Arc::clone(&BUILTIN),
            extended: false,
        }
    }
}

impl TransformerSpecs {
    /// The built-in field specs of kustomize.
    fn builtin() -> TransformerSpecs {
        let mut common_labels = from_table(&builtin_specs::selector_labels());
        merge_specs(&mut common_labels, &from_table(builtin_specs::METADATA_LABELS));
        TransformerSpecs {
            name_prefix: from_table(builtin_specs::NAME),
            name_suffix: from_table(builtin_specs::NAME),
            namespace: Vec::new(),
            common_labels,
            template_labels: from_table(builtin_specs::METADATA_LABELS),
            common_annotations: from_table(builtin_specs::ANNOTATIONS),
            images: from_table(builtin_specs::IMAGES),
            replicas: from_table(builtin_specs::REPLICAS),
            var_reference: Vec::new(),
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
        let f: ConfigFile = crate::yaml::de::from_node_lenient(node)
            .map_err(|e| Error::msg(format!("{source}: invalid transformer configuration: {e}")))?;
        let this: &mut TransformerSpecs = self;
        merge_specs(&mut this.name_prefix, &f.name_prefix);
        merge_specs(&mut this.name_suffix, &f.name_suffix);
        merge_specs(&mut this.namespace, &f.namespace);
        merge_specs(&mut this.common_labels, &f.common_labels);
        merge_specs(&mut this.template_labels, &f.template_labels);
        merge_specs(&mut this.common_annotations, &f.common_annotations);
        merge_specs(&mut this.images, &f.images);
        merge_specs(&mut this.replicas, &f.replicas);
        merge_specs(&mut this.var_reference, &f.var_reference);
        name_reference::merge(&mut this.name_reference, &f.name_reference);
        Ok(())
    }

    /// Adds everything `other` has that this one lacks.
    pub fn merge(&mut self, other: &TransformerConfig) {
        // `self` holds at least the built-in specs, so merging a config
        // nothing extended changes nothing (a test checks the built-in
        // config merged into itself is unchanged): skip the quadratic
        // comparisons, done once per base.
        if !other.extended || Arc::ptr_eq(&self.specs, &other.specs) {
            return;
        }
        let this: &mut TransformerSpecs = self;
        merge_specs(&mut this.name_prefix, &other.name_prefix);
        merge_specs(&mut this.name_suffix, &other.name_suffix);
        merge_specs(&mut this.namespace, &other.namespace);
        merge_specs(&mut this.common_labels, &other.common_labels);
        merge_specs(&mut this.template_labels, &other.template_labels);
        merge_specs(&mut this.common_annotations, &other.common_annotations);
        merge_specs(&mut this.images, &other.images);
        merge_specs(&mut this.replicas, &other.replicas);
        merge_specs(&mut this.var_reference, &other.var_reference);
        name_reference::merge(&mut this.name_reference, &other.name_reference);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `merge` skips configs nothing extended; that is only right if merging
    /// the built-in config into itself changes nothing.
    #[test]
    fn builtin_merged_into_itself_is_unchanged() {
        let builtin = TransformerSpecs::builtin();
        let mut merged = TransformerConfig {
            specs: Arc::new(TransformerSpecs::builtin()),
            extended: true,
        };
        let other = TransformerConfig {
            specs: Arc::new(TransformerSpecs::builtin()),
            extended: true,
        };
        merged.merge(&other);
        assert_eq!(format!("{:?}", merged.name_reference), format!("{:?}", builtin.name_reference));
        for (a, b) in [
            (&merged.name_prefix, &builtin.name_prefix),
            (&merged.name_suffix, &builtin.name_suffix),
            (&merged.namespace, &builtin.namespace),
            (&merged.common_labels, &builtin.common_labels),
            (&merged.template_labels, &builtin.template_labels),
            (&merged.common_annotations, &builtin.common_annotations),
            (&merged.images, &builtin.images),
            (&merged.replicas, &builtin.replicas),
            (&merged.var_reference, &builtin.var_reference),
        ] {
            assert_eq!(a, b);
        }
    }
}
