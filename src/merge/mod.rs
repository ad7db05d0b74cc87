//! The field-merge engine, usable on its own.
//!
//! - [`smp`]: strategic merge patches exactly as kustomize v5.5.0 applies them (kyaml's
//!   `merge2` walker, schema-driven, new list elements prepended), quirks included. Entry
//!   points: [`apply`] (kustomize's settings) and [`apply_with`] ([`MergeOptions`]).
//! - [`directive`]: reading the `$patch` directive.
//! - [`merge3`]: three-way merges (update a vendored package, keep local edits).
//! - [`scalar_style`]: the quoted style a scalar keeps, and how each operation changes it.
//! - [`json6902`]: RFC 6902 JSON patches as kustomize's JSON patch library applies them.
//!
//! Schemas come from [`crate::openapi`].

mod assoc;
pub mod directive;
mod index;
pub mod json6902;
pub mod merge3;
pub mod scalar_style;
pub mod smp;
pub mod strategic;

pub use directive::{Directive, take_directive};
pub use smp::{ListIncrease, MergeOptions, apply, apply_with};
