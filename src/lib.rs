//! kbuild: renders Kubernetes configuration the way `kustomize build` does.

pub mod error;
pub mod generate;
pub mod kustomization;
pub mod yaml;

pub use error::{Error, Result};
