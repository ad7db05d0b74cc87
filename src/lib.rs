//! kbuild renders Kubernetes configuration the way `kustomize build` does.
//!
//! ```
//! use kbuild::{BuildOptions, MemFs, build_in, output};
//! use std::path::Path;
//! use std::sync::Arc;
//!
//! let fs = MemFs::new()
//!     .file("/app/kustomization.yaml", "namePrefix: prod-\nresources:\n- cm.yaml\n")
//!     .file(
//!         "/app/cm.yaml",
//!         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  debug: no\n",
//!     );
//! let built = build_in(Arc::new(fs), Path::new("/app"), &BuildOptions::default())?;
//! // Byte for byte what `kustomize build /app` prints (`no` quoted, as kustomize does).
//! assert_eq!(
//!     output::render(&built.resmap),
//!     "apiVersion: v1\ndata:\n  debug: \"no\"\nkind: ConfigMap\nmetadata:\n  name: prod-settings\n",
//! );
//! assert!(built.warnings.is_empty());
//! # Ok::<(), kbuild::Error>(())
//! ```
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
//! # Stability
//!
//! kbuild is at 0.x: the stable part of the surface is the list of re-exports at the top
//! of this crate (`build`, `build_in`, `build_with_warnings`, `BuildOptions`,
//! `BuildOutput`, `Error`, `ErrorKind`, `Result`, `KustomizeVersion`, `ResMap`,
//! `Resource`, `ResId`, `Gvk`, `LoadRestrictor`, `FileSystem`, `MemFs`, `RealFs`) and
//! [`output::render`]; within 0.x a breaking change to them comes with a minor version
//! and a note in the changelog. [`Error`] and [`ErrorKind`] are `#[non_exhaustive]`: new
//! kinds of failure may appear in any release, and an error's text is for people, not for
//! matching. Everything else reachable through the public modules (the pipeline's
//! stages, the tools behind the command line) is public so the binary and the tests can
//! use it, and may change in any release.
//!
//! # Threads and global state
//!
//! A build keeps everything it needs in its own context: builds on several threads do
//! not meet (tests/concurrent_builds.rs runs eight at once, each with its own schema and
//! options, against their sequential outputs). What is shared process-wide is read-only
//! or a pure cache (the built-in OpenAPI and transformer tables, compiled regular
//! expressions, merged transformer configurations keyed by their content). The
//! temporaries and programs a build may leave behind if the process is killed are
//! recorded in the [`output::Cleanup`] the caller gives it in the options
//! (`BuildOptions::remote`, `helm`, `external`), which a signal handler can empty; a
//! caller without one leaves the default.
//!
//! # Platforms
//!
//! Unix only (Linux, tested; macOS and the BSDs, built): kbuild relies on process groups
//! to stop plugins, helm and git whole, on file modes and owners when it replaces files,
//! and on `openat`-style lookups to check a path without following a symbolic link. On
//! any other target the crate does not compile, with a message that says so.
//!
//! Inside, the modules read as the pipeline (ARCHITECTURE.md has the diagram):
//! `load` (files, the load restrictor; `remote` fetches git and http entries) → `kustomization` (the file model) →
//! `build` (the recursion and the order of stages) → `generate` (ConfigMaps,
//! Secrets) and `transform` (built-in transformers, patches, name references,
//! vars, sort) → `config` (field specs) → `merge` and `resource` → `yaml`.

// Input must never make the library panic: no unwrap/expect outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

#[cfg(not(unix))]
compile_error!(
    "kbuild supports Unix systems only (Linux, macOS, the BSDs): it stops plugins, helm and \
     git by process group, keeps file modes and owners, and checks paths with openat-style \
     lookups, none of which it implements for this target"
);

pub mod build;
mod cache_dir;
mod config;
pub mod crd_openapi;
pub mod deps;
pub mod diff;
pub mod edit;
pub mod error;
pub mod explain;
mod generate;
mod go_path;
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
pub mod provenance;
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
