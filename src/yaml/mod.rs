//! YAML: parsing into [`Node`], and the emitter that reproduces kustomize's output.

pub mod de;
pub mod emit;
pub mod node;
pub mod parse;

pub use node::{Map, Node};
