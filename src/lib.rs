//! kbuild: renders Kubernetes configuration the way `kustomize build` does.

pub mod error;
pub mod kustomization;
pub mod merge;
pub mod openapi;
pub mod yaml;

pub use error::{Error, Result};
