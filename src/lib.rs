//! kbuild: renders Kubernetes configuration the way `kustomize build` does.
//!
//! The modules read like the pipeline: `kustomization` (the file model),
//! `load` (files, restrictor), `generate` (ConfigMaps and Secrets),
//! `transform` and `merge` (transformers and patches), `yaml` (parsing and
//! the kustomize-identical emitter), tied together by `build`.

// Input must never make the library panic: no unwrap/expect outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod build;
pub mod config;
pub mod deps;
pub mod diff;
pub mod error;
pub mod generate;
pub mod kubectl_apply;
pub mod kustomization;
pub mod load;
pub mod merge;
pub mod openapi;
pub mod output;
pub mod render;
pub mod resource;
pub mod transform;
pub mod yaml;

pub use error::{Error, Result};
