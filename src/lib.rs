//! kbuild renders Kubernetes configuration the way `kustomize build` does.
//!
//! The library surface, for a Rust user:
//! - build a kustomization: [`build()`], [`build_with_warnings`], [`build_in`]
//!   (any [`FileSystem`], such as the in-memory [`MemFs`]) with [`BuildOptions`];
//! - the result: a [`ResMap`] of [`Resource`]s, printed by [`output::render`]
//!   byte-identically to kustomize;
//! - the merge engine on its own: [`merge`] (strategic merge as kustomize and as
//!   Kubernetes do it, JSON 6902, three-way merge);
//! - YAML parsing and kustomize's emitter: [`yaml`];
//! - errors: [`Error`], matched by [`ErrorKind`], with hints and positions as data;
//! - the tools behind the command line: [`diff`], [`render`], [`deps`],
//!   [`kubectl_apply`], [`crd_openapi`] (`kbuild openapi from-crds`); the clone cache
//!   of remote bases: [`remote::cache`].
//!
//! Inside, the modules read as the pipeline (ARCHITECTURE.md has the diagram):
//! `load` (files, the load restrictor; `remote` fetches git and http entries) → `kustomization` (the file model) →
//! `build` (the recursion and the order of stages) → `generate` (ConfigMaps,
//! Secrets) and `transform` (built-in transformers, patches, name references,
//! vars, sort) → `config` (field specs) → `merge` and `resource` → `yaml`.

// Input must never make the library panic: no unwrap/expect outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

pub mod build;
mod cache_dir;
mod config;
pub mod crd_openapi;
pub mod deps;
pub mod diff;
pub mod edit;
pub mod error;
mod generate;
pub mod helm;
pub mod kubectl_apply;
pub mod kustomization;
pub mod kustomize_version;
pub mod load;
pub mod localize;
pub mod merge;
pub mod openapi;
pub mod output;
pub mod plugin;
pub mod progress;
pub mod refs;
pub mod remote;
pub mod render;
pub mod resource;
mod transform;
pub mod yaml;

pub use build::{BuildOptions, BuildOutput, build, build_in, build_with_warnings};
pub use error::{Error, ErrorKind, Result};
pub use kustomize_version::KustomizeVersion;
pub use load::{FileSystem, LoadRestrictor, MemFs, RealFs};
pub use resource::Resource;
pub use resource::id::{Gvk, ResId};
pub use resource::resmap::ResMap;
