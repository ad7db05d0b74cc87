//! Transformers: one function per kustomize transformer over the resource map.

pub mod annotation_strings;
pub mod annotations;
pub mod build_metadata;
pub mod builtin;
pub mod field_path;
pub mod images;
pub mod labels;
pub mod list_replace;
pub mod local_config;
pub mod name_affix;
pub mod name_hash;
pub mod name_reference;
pub mod namespace;
pub mod patch;
pub mod replacements;
pub mod replicas;
pub mod sort;
pub mod union_check;
pub mod value_add;
pub mod vars;
