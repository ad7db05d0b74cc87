//! Transformers: one function per kustomize transformer over the resource map.

pub(crate) mod annotation_strings;
pub(crate) mod annotations;
pub(crate) mod build_metadata;
pub(crate) mod builtin;
pub(crate) mod deferred_check;
pub(crate) mod field_path;
pub(crate) mod images;
pub(crate) mod labels;
pub(crate) mod list_replace;
pub(crate) mod local_config;
pub(crate) mod name_affix;
pub(crate) mod name_hash;
pub(crate) mod name_reference;
pub(crate) mod namespace;
pub(crate) mod patch;
pub(crate) mod replacements;
pub(crate) mod replicas;
pub(crate) mod sort;
pub(crate) mod union_check;
pub(crate) mod value_add;
pub(crate) mod vars;
