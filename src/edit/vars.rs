//! `edit fix --vars`: `vars` converted to `replacements`.

use super::{KustomizationFile, edit_error};
use crate::error::Result;
use std::path::PathBuf;

impl KustomizationFile {
    /// Converts `vars` to `replacements`; returns the resource files to rewrite.
    pub(super) fn convert_vars(&mut self) -> Result<Vec<(PathBuf, String)>> {
        Err(edit_error("edit fix --vars is not built yet"))
    }
}
