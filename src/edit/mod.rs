//! `kbuild edit`: kustomize's `edit` commands on the kustomization file of a
//! directory, changing only the lines each command must.
//!
//! The commands mean what kustomize's mean (the same arguments, the same checks, the
//! same kustomization afterwards as far as a build can tell), but where kustomize reads
//! the file into its struct and writes the whole struct back — losing comments inside
//! fields, re-sorting images, moving `bases` into `resources` — kbuild splices the text
//! ([`document`]): comments, key order, quoting and blank lines stay. The file is written
//! atomically (a temporary file renamed over it, its mode kept), or not at all when the
//! command fails.

mod add;
mod create;
pub mod document;
mod file;
mod fix;
mod generator;
mod image;
mod metadata;
mod rebuild;
mod remove;
mod render;
pub mod rewrite;
mod set;
mod vars;

pub use add::PatchArgs;
pub use create::{CreateArgs, create};
pub use document::{Document, Step};
pub use file::{KustomizationFile, write_file};
pub use fix::Fix;
pub use generator::{Generator, GeneratorFlags};
pub use image::ImageArg;
pub use metadata::Metadata;
pub use metadata::parse_pairs;
pub use rebuild::{Verified, build_change, verify};

use crate::error::{Error, Result};

/// A command's problem with its arguments or with what the file holds.
pub(crate) fn edit_error(msg: impl Into<String>) -> Error {
    Error::Edit(msg.into())
}

/// The top-level fields of a kustomization, in the order kustomize writes them; a
/// field `edit` adds goes before the first present field that comes after it here,
/// so new fields land where kustomize would put them.
const FIELD_ORDER: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "sortOptions",
    "resources",
    "bases",
    "namePrefix",
    "nameSuffix",
    "namespace",
    "crds",
    "commonLabels",
    "labels",
    "commonAnnotations",
    "patchesStrategicMerge",
    "patchesJson6902",
    "patches",
    "configMapGenerator",
    "secretGenerator",
    "helmCharts",
    "helmChartInflationGenerator",
    "helmGlobals",
    "generatorOptions",
    "vars",
    "images",
    "replacements",
    "replicas",
    "configurations",
    "generators",
    "transformers",
    "validators",
    "components",
    "openapi",
    "buildMetadata",
];

fn top(field: &str) -> [Step; 1] {
    [Step::key(field)]
}

/// The strings of a top-level list field (`resources`, `components`, …).
fn string_list(file: &KustomizationFile, field: &str) -> Vec<String> {
    file.doc()
        .get(&top(field))
        .and_then(|n| n.as_seq())
        .map(|items| items.iter().filter_map(|i| i.scalar_string()).collect())
        .unwrap_or_default()
}

/// Removes every item of the top-level list `field` for which `drop` holds; the field
/// goes when it ends up empty (kustomize omits empty fields). All in one edit of the
/// text: one by one, each removal parsed the file again.
fn remove_items(
    file: &mut KustomizationFile,
    field: &str,
    mut drop: impl FnMut(&crate::yaml::Node) -> bool,
) -> Result<usize> {
    let Some(items) = file.doc().get(&top(field)).and_then(|n| n.as_seq()) else {
        return Ok(0);
    };
    let total = items.len();
    let doomed: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| drop(item))
        .map(|(i, _)| i)
        .collect();
    file.doc_mut().remove_items(&top(field), &doomed)?;
    if doomed.len() == total && total > 0 {
        file.doc_mut().remove(&top(field))?;
    }
    Ok(doomed.len())
}
