//! kbuild: renders Kubernetes configuration the way `kustomize build` does.
//!
//! The modules read like the pipeline: `kustomization` (the file model),
//! `load` (files, restrictor), `generate` (ConfigMaps and Secrets),
//! `transform` and `merge` (transformers and patches), `yaml` (parsing and
//! the kustomize-identical emitter), tied together by `build`.

// Input must never make the library panic: no unwrap/expect outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod apply;
pub mod build;
pub mod build_metadata;
pub mod builtin_specs;
pub mod config;
pub mod config_merge;
pub mod deps;
pub mod diff;
pub mod error;
pub mod fieldpath;
pub mod fieldspec;
pub mod generate;
pub mod inputs;
pub mod kustomization;
pub mod load;
pub mod merge;
pub mod openapi;
pub mod output;
pub mod pattern;
pub mod plugins;
pub mod regex_cache;
pub mod render;
pub mod resid;
pub mod resmap;
pub mod resource;
pub mod selector;
pub mod transform;
pub mod yaml;

pub use error::{Error, Result};
