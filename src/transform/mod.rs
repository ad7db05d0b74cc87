//! Transformers: one function per kustomize transformer over the resource map.

pub mod annotations;
pub mod annotation_strings;
pub mod labels;
pub mod local_config;
pub mod name_affix;
pub mod name_reference;
mod name_reference_specs;
pub mod images;
pub mod namespace;
pub mod patch;
pub mod replicas;
pub mod sort;
pub mod union_check;
