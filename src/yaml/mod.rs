//! YAML: parsing into [`Node`], and the emitter that reproduces kustomize's output.

pub mod de;
pub mod emit;
pub mod map;
pub mod node;
pub mod parse;

pub use map::Map;
pub use node::Node;
