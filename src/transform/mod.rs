//! Transformers: one function per kustomize transformer over the resource map.

pub mod annotation_strings;
pub mod annotations;
pub mod images;
pub mod labels;
pub mod local_config;
pub mod name_affix;
pub mod name_reference;
mod name_reference_specs;
pub mod namespace;
pub mod patch;
pub mod replacements;
pub mod replicas;
pub mod sort;
pub mod union_check;
pub(crate) mod var_reference_specs;
pub mod vars;
