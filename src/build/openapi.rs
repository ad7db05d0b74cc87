//! The schema a kustomization's `openapi:` field selects, which gives merge
//! keys and strategies to strategic merges from that kustomization on.

use crate::error::{Error, Result};
use crate::load::Loader;
use crate::openapi::Schemas;
use std::sync::Arc;

/// A selected schema: a built-in one, or one read from a file.
#[derive(Clone, Debug)]
pub(super) enum SchemaRef {
    Builtin(&'static Schemas),
    Custom(Arc<Schemas>),
}

impl SchemaRef {
    /// The schemas.
    pub(super) fn get(&self) -> &Schemas {
        match self {
            SchemaRef::Builtin(s) => s,
            SchemaRef::Custom(s) => s,
        }
    }

    /// The selection's identity: the address of the schemas.
    pub(super) fn id(&self) -> usize {
        self.get() as *const Schemas as usize
    }

    /// Whether two selections are the same one (not merely equal).
    pub(super) fn same(a: Option<&SchemaRef>, b: Option<&SchemaRef>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(SchemaRef::Builtin(a)), Some(SchemaRef::Builtin(b))) => std::ptr::eq(*a, *b),
            (Some(SchemaRef::Custom(a)), Some(SchemaRef::Custom(b))) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// The schema the `openapi:` field of the kustomization at `ldr` selects;
/// `over_builtin`: kustomize has loaded its built-in schema already, and a
/// custom one goes on top of it.
pub(super) fn load(
    ldr: &Loader,
    openapi: &indexmap::IndexMap<String, String>,
    over_builtin: bool,
) -> Result<SchemaRef> {
    let version = openapi.get("version").filter(|v| !v.is_empty());
    let path = openapi.get("path").filter(|v| !v.is_empty());
    if let Some(key) = openapi.keys().find(|k| *k != "version" && *k != "path") {
        return Err(Error::invalid_config(format!(
            "openapi: unknown field {key:?}; expected 'path' or 'version'"
        )));
    }
    match (version, path) {
        (Some(_), Some(_)) => Err(Error::invalid_config(
            "openapi: both 'version' (a built-in schema) and 'path' (a custom schema) are set; use one",
        )),
        (Some(v), None) => Schemas::builtin_version(v).map(SchemaRef::Builtin),
        (None, Some(p)) => {
            let (real, bytes) = ldr.read(p, "openapi schema")?;
            let text = crate::yaml::utf8(bytes, &real)?;
            let schemas = Schemas::from_openapi_text_layered(
                &text,
                &real.display().to_string(),
                over_builtin,
            )?;
            Ok(SchemaRef::Custom(Arc::new(schemas)))
        }
        (None, None) => Ok(SchemaRef::Builtin(Schemas::builtin())),
    }
}
