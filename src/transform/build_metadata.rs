//! `buildMetadata`: origin and transformer annotations, and the managed-by
//! label.
//!
//! As in kustomize, the top kustomization's `buildMetadata` governs the whole
//! build (bases and components included), and paths are written relative to
//! the top kustomization's directory. The managed-by label is also what kustomize's
//! deprecated `--enable-managedby-label` flag asks for.

use crate::error::{Error, Result};
use crate::kustomize_version::KustomizeVersion;
use crate::resource::resmap::ResMap;
use crate::resource::shared;
use crate::resource::{Configured, Origin};
use crate::yaml::Node;
use std::path::{Component, Path, PathBuf};

pub const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";
pub const TRANSFORMATIONS_ANNOTATION: &str = "alpha.config.kubernetes.io/transformations";
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";

/// Which `buildMetadata` options are on.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildMeta {
    pub origin: bool,
    pub transformers: bool,
    pub managed_by: bool,
}

impl BuildMeta {
    /// Whether any option is on (kustomize then tracks origins through the whole build).
    pub fn any(&self) -> bool {
        self.origin || self.transformers || self.managed_by
    }

    pub fn parse(options: &[String]) -> Result<BuildMeta> {
        let mut m = BuildMeta::default();
        for o in options {
            match o.as_str() {
                "originAnnotations" => m.origin = true,
                "transformerAnnotations" => m.transformers = true,
                "managedByLabel" => m.managed_by = true,
                other => {
                    return Err(Error::invalid_config(format!(
                        "buildMetadata: unknown option {other:?}; expected originAnnotations, transformerAnnotations or managedByLabel"
                    )));
                }
            }
        }
        Ok(m)
    }
}

/// `to` relative to the directory `from` (both absolute), with `/` separators.
pub fn relative(from: &Path, to: &Path) -> String {
    let f: Vec<Component> = from.components().collect();
    let t: Vec<Component> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c.as_os_str());
    }
    out.to_string_lossy().replace('\\', "/")
}

fn configured_text(c: &Configured, root: &Path, indent: &str) -> String {
    let mut s = format!(
        "configuredIn: {}\n{indent}configuredBy:\n{indent}  apiVersion: {}\n{indent}  kind: {}\n",
        relative(root, &c.configured_in),
        c.api_version,
        c.kind
    );
    if let Some(n) = &c.name {
        s.push_str(&format!("{indent}  name: {n}\n"));
    }
    if let Some(n) = &c.namespace {
        s.push_str(&format!("{indent}  namespace: {n}\n"));
    }
    s
}

/// Writes the annotations the options ask for (the label is [`add_managed_by_label`]'s).
pub fn annotate(resmap: &mut ResMap, meta: BuildMeta, root: &Path) {
    for res in resmap.iter_mut() {
        if meta.origin {
            let text = match res.origin.as_deref() {
                Some(Origin::File(p)) => Some(format!("path: {}\n", relative(root, p))),
                Some(Origin::Generated(c)) => Some(configured_text(c, root, "")),
                None => None,
            };
            if let Some(t) = text {
                res.set_annotation(ORIGIN_ANNOTATION, Some(&t));
            }
        }
        if meta.transformers && !res.transformations.is_empty() {
            let text: String = res
                .transformations
                .iter()
                .map(|c| format!("- {}", configured_text(c, root, "  ")))
                .collect();
            res.set_annotation(TRANSFORMATIONS_ANNOTATION, Some(&text));
        }
    }
}

/// Sets `app.kubernetes.io/managed-by: kustomize-<version>` on every resource, for
/// `buildMetadata: [managedByLabel]` or `--enable-managedby-label`. kustomize does it last,
/// after the output sort (`krusty.Kustomizer.Run`): vars never see the label, and a var
/// whose `fieldref` names it fails as in kustomize.
pub fn add_managed_by_label(resmap: &mut ResMap, version: KustomizeVersion) {
    for res in resmap.iter_mut() {
        if let Some(labels) = res.node.ensure_map(&["metadata", "labels"])
            && let Some(old) = labels.insert(
                MANAGED_BY_LABEL.to_string(),
                Node::text(version.managed_by_value().to_string()),
            )
        {
            // kustomize's LabelTransformer writes into the existing value node, which
            // selectors may share (see resource/shared.rs).
            let at = shared::keys(&["metadata", "labels", MANAGED_BY_LABEL]);
            res.shared.write_through(&mut res.node, &at, &old);
        }
    }
}
