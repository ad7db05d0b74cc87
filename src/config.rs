//! Transformer configuration: the field specs each transformer uses, built
//! in, extended by `configurations:` files.
//!
//! As in kustomize, a kustomization's configuration is the built-in one plus
//! its own `configurations` plus those of every base and component below it.

use crate::builtin_specs;
use crate::error::{Error, Result};
use crate::config_merge::{merge_field_specs, merge_name_references};
use crate::fieldspec::{from_table, merge_specs};
use crate::kustomization::FieldSpec;
use crate::transform::name_reference::{self, NameRefSpec};
use crate::yaml::Node;
use serde::Deserialize;

/// Field specs per transformer.
#[derive(Clone, Debug)]
pub struct TransformerConfig {
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

impl Default for TransformerConfig {
    fn default() -> Self {
        let mut common_labels = from_table(&builtin_specs::selector_labels());
        merge_specs(&mut common_labels, &from_table(builtin_specs::METADATA_LABELS));
        TransformerConfig {
            name_prefix: from_table(builtin_specs::NAME),
            name_suffix: from_table(builtin_specs::NAME),
            namespace: Vec::new(),
            common_labels,
            template_labels: from_table(builtin_specs::METADATA_LABELS),
            labels: Vec::new(),
            common_annotations: from_table(builtin_specs::ANNOTATIONS),
            images: from_table(builtin_specs::IMAGES),
            replicas: from_table(builtin_specs::REPLICAS),
            var_reference: from_table(crate::transform::var_reference_specs::VAR_REFERENCE),
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
        let f: ConfigFile = crate::yaml::de::from_node_lenient(node)
            .map_err(|e| Error::msg(format!("{source}: invalid transformer configuration: {e}")))?;
        let other = TransformerConfig {
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
        };
        self.merge(&other).map_err(|e| e.context(source.to_string()))?;
        Ok(())
    }

    /// A configuration without any field spec (what a kustomization starts from before
    /// its bases' and its own configurations are merged in).
    pub fn empty() -> Self {
        TransformerConfig {
            name_prefix: Vec::new(),
            name_suffix: Vec::new(),
            namespace: Vec::new(),
            common_labels: Vec::new(),
            template_labels: Vec::new(),
            labels: Vec::new(),
            common_annotations: Vec::new(),
            images: Vec::new(),
            replicas: Vec::new(),
            var_reference: Vec::new(),
            name_reference: Vec::new(),
        }
    }

    /// Adds everything `other` has that this one lacks, the way kustomize merges
    /// configurations (see [`crate::config_merge`]); fails on conflicting field specs.
    pub fn merge(&mut self, other: &TransformerConfig) -> Result<()> {
        let sections: [(&mut Vec<FieldSpec>, &Vec<FieldSpec>, &str); 10] = [
            (&mut self.name_prefix, &other.name_prefix, "namePrefix"),
            (&mut self.name_suffix, &other.name_suffix, "nameSuffix"),
            (&mut self.namespace, &other.namespace, "namespace"),
            (&mut self.common_labels, &other.common_labels, "commonLabels"),
            (&mut self.template_labels, &other.template_labels, "templateLabels"),
            (&mut self.labels, &other.labels, "labels"),
            (&mut self.common_annotations, &other.common_annotations, "commonAnnotations"),
            (&mut self.images, &other.images, "images"),
            (&mut self.replicas, &other.replicas, "replicas"),
            (&mut self.var_reference, &other.var_reference, "varReference"),
        ];
        for (mine, theirs, section) in sections {
            merge_field_specs(mine, theirs, section)?;
        }
        merge_name_references(&mut self.name_reference, &other.name_reference)
    }
}
