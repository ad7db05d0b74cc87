//! kbuild: renders Kubernetes configuration the way `kustomize build` does.

pub mod error;
pub mod generate;
pub mod kustomization;
pub mod yaml;

pub use error::{Error, Result};
pub mod resid;
pub mod resmap;
pub mod resource;
pub mod builtin_specs;
pub mod config;
pub mod fieldspec;
pub mod openapi;
pub mod transform;
pub mod load;
pub mod build;
pub mod build_metadata;
pub mod output;
pub mod selector;
