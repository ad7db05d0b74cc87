//! `edit fix`: deprecated fields rewritten as their successors, as kustomize's
//! `edit fix` does (its `FixKustomization` and `FixKustomizationPreMarshalling`):
//!
//! - `bases` → `resources`, `imageTags` → `images`: the items follow the new field's;
//! - a generator's `env` → `envs`;
//! - `helmChartInflationGenerator` → `helmCharts` (and `helmGlobals` from its homes);
//! - `patchesJson6902` and `patchesStrategicMerge` → `patches` (a strategic-merge
//!   entry naming a readable file becomes `path:`, any other its inline `patch:`);
//! - `commonLabels` → a `labels` entry with `includeSelectors: true`;
//! - `apiVersion` and `kind` added when missing;
//! - `vars` → `replacements` only when asked (`--vars`, see `vars.rs`).
//!
//! Where the successor is missing, the deprecated key is renamed in place, so the field
//! keeps its position, its comments and (for lists whose items do not change) its
//! items as written; otherwise the items are appended to the successor and the
//! deprecated field goes. Comments inside a field whose items change are lost.

use super::document::Step;
use super::{KustomizationFile, edit_error, top};
use crate::error::Result;
use crate::yaml::{Map, Node};
use std::path::PathBuf;

/// What `edit fix` did, for the command line to report.
#[derive(Debug, Default)]
pub struct Fix {
    /// The conversions made, `(deprecated, successor)`, in the order done.
    pub fixed: Vec<(&'static str, &'static str)>,
    /// Whether `vars` are left in place (fix without `--vars`).
    pub vars_left: bool,
    /// Resource files `--vars` rewrote (`$(VAR)` → `VAR_PLACEHOLDER`): path and new text.
    pub files: Vec<(PathBuf, String)>,
}

impl KustomizationFile {
    /// `edit fix [--vars]`.
    pub fn fix(&mut self, vars: bool) -> Result<Fix> {
        let mut fix = Fix::default();
        // kustomize checks this before it changes anything it writes.
        let common = self.common_labels_entry()?;
        let strategic = self.strategic_merge_patches();
        let steps = [
            (
                "bases",
                "resources",
                self.move_items(&[], "bases", "resources", None)?,
            ),
            (
                "imageTags",
                "images",
                self.move_items(&[], "imageTags", "images", None)?,
            ),
            ("env", "envs", self.fix_generator_envs()?),
            (
                "helmChartInflationGenerator",
                "helmCharts",
                self.fix_helm()?,
            ),
            (
                "patchesJson6902",
                "patches",
                self.move_items(&[], "patchesJson6902", "patches", None)?,
            ),
            (
                "patchesStrategicMerge",
                "patches",
                self.move_items(&[], "patchesStrategicMerge", "patches", strategic)?,
            ),
        ];
        fix.fixed = steps
            .into_iter()
            .filter(|(_, _, moved)| *moved)
            .map(|(from, to, _)| (from, to))
            .collect();
        if let Some(entry) = common {
            self.move_items(&[], "commonLabels", "labels", Some(vec![entry]))?;
            fix.fixed.push(("commonLabels", "labels"));
        } else if self.doc().get(&top("commonLabels")).is_some() {
            // An empty commonLabels: kustomize leaves it out when it writes the file.
            self.doc_mut().remove(&top("commonLabels"))?;
        }
        if self.doc().get(&top("vars")).is_some() {
            if vars {
                fix.files = self.convert_vars()?;
                fix.fixed.push(("vars", "replacements"));
            } else {
                fix.vars_left = true;
            }
        }
        self.add_type_meta()?;
        Ok(fix)
    }

    /// kustomize's defaults for a kustomization without `kind` or `apiVersion`.
    fn add_type_meta(&mut self) -> Result<()> {
        let text = |file: &Self, k: &str| {
            file.doc()
                .get(&top(k))
                .and_then(Node::scalar_string)
                .unwrap_or_default()
        };
        if text(self, "kind").is_empty() {
            self.set_field("kind", &Node::text("Kustomization"))?;
        }
        if text(self, "apiVersion").is_empty() {
            let version = match text(self, "kind").as_str() {
                "Component" => "kustomize.config.k8s.io/v1alpha1",
                _ => "kustomize.config.k8s.io/v1beta1",
            };
            self.set_field("apiVersion", &Node::text(version))?;
        }
        Ok(())
    }

    /// Moves the items of the list `old` of the mapping at `parent` to the end of the
    /// list `new` (`items` when given, else `old`'s items as they are), then removes
    /// `old`. When `new` is missing, `old` is renamed to it instead, and only the items
    /// that change are rewritten. Returns whether `old` was there.
    fn move_items(
        &mut self,
        parent: &[Step],
        old: &str,
        new: &str,
        items: Option<Vec<Node>>,
    ) -> Result<bool> {
        let at = |k: &str| {
            let mut p = parent.to_vec();
            p.push(Step::key(k));
            p
        };
        let Some(old_value) = self.doc().get(&at(old)).cloned() else {
            return Ok(false);
        };
        let items = match items {
            Some(items) => items,
            None => match old_value {
                Node::Seq(items) => items,
                Node::Null => Vec::new(),
                other => vec![other],
            },
        };
        match self.doc().get(&at(new)).cloned() {
            None if items.is_empty() => self.doc_mut().remove(&at(old))?,
            None => {
                self.doc_mut().rename_key(parent, old, new)?;
                self.rewrite_list(&at(new), &items)?;
            }
            Some(Node::Null) => {
                self.doc_mut().set(&at(new), &Node::Seq(items))?;
                self.doc_mut().remove(&at(old))?;
            }
            Some(Node::Seq(_)) => {
                self.doc_mut().append_items(&at(new), &items)?;
                self.doc_mut().remove(&at(old))?;
            }
            Some(other) => {
                return Err(edit_error(format!(
                    "{}: {new} is a {}, not a list; fix the file and run the command again",
                    self.path().display(),
                    other.type_name()
                )));
            }
        }
        Ok(true)
    }

    /// Makes the value at `path` the list `items`, rewriting only the items that differ
    /// when it is a list of the same length already.
    fn rewrite_list(&mut self, path: &[Step], items: &[Node]) -> Result<()> {
        let current = self.doc().get(path).cloned();
        match current {
            Some(Node::Seq(now)) if now.len() == items.len() => {
                let changed: Vec<(usize, Node)> = now
                    .iter()
                    .zip(items)
                    .enumerate()
                    .filter(|(_, (was, item))| was != item)
                    .map(|(i, (_, item))| (i, item.clone()))
                    .collect();
                // A mapping cannot be spliced into a flow list (`[a.yaml, b.yaml]`): such a
                // list is written again whole.
                let collections = changed
                    .iter()
                    .any(|(_, item)| matches!(item, Node::Map(_) | Node::Seq(_)));
                if collections && !self.doc().is_block_seq(path) {
                    return self.doc_mut().set(path, &Node::Seq(items.to_vec()));
                }
                self.doc_mut().set_items(path, &changed)
            }
            _ => self.doc_mut().set(path, &Node::Seq(items.to_vec())),
        }
    }

    /// `env` of each generator entry → `envs` (appended to it). Returns whether any
    /// entry had one.
    fn fix_generator_envs(&mut self) -> Result<bool> {
        let mut any = false;
        for field in ["configMapGenerator", "secretGenerator"] {
            let count = self
                .doc()
                .get(&top(field))
                .and_then(Node::as_seq)
                .map_or(0, Vec::len);
            for i in 0..count {
                let entry = [Step::key(field), Step::Index(i)];
                let env = self
                    .doc()
                    .get(&entry)
                    .and_then(|e| e.get("env"))
                    .and_then(Node::scalar_string);
                let Some(env) = env else { continue };
                any = true;
                let items = (!env.is_empty()).then(|| vec![Node::text(env)]);
                self.move_items(&entry, "env", "envs", Some(items.unwrap_or_default()))?;
            }
        }
        Ok(any)
    }

    /// `helmChartInflationGenerator` → `helmCharts`, its `chartHome`/`helmHome` (the
    /// last given) → `helmGlobals` unless that is set. kustomize keeps only the fields
    /// `helmCharts` has: `chartRepoName`, `helmBin`, `releaseNamespace` and
    /// `extraArgs` go (a build ignores them too).
    fn fix_helm(&mut self) -> Result<bool> {
        const OLD: &str = "helmChartInflationGenerator";
        let Some(old) = self.doc().get(&top(OLD)).cloned() else {
            return Ok(false);
        };
        let entries = old.as_seq().cloned().unwrap_or_default();
        let mut charts = Vec::new();
        let mut globals = Map::new();
        for entry in &entries {
            charts.push(helm_chart(entry));
            // kustomize's order of fields in helmGlobals: chartHome, configHome.
            for (from, to) in [("helmHome", "configHome"), ("chartHome", "chartHome")] {
                if let Some(v) = entry.get(from).and_then(Node::scalar_string)
                    && !v.is_empty()
                {
                    globals.insert(to, Node::text(v));
                }
            }
        }
        globals.sort_keys();
        let helm_globals = self.doc().get(&top("helmGlobals"));
        if helm_globals.is_none_or(Node::is_null) && !globals.is_empty() {
            self.set_field("helmGlobals", &Node::Map(globals))?;
        }
        let dropped: Vec<&str> = ["chartRepoName", "helmBin", "releaseNamespace", "extraArgs"]
            .into_iter()
            .filter(|f| entries.iter().any(|e| e.get(f).is_some()))
            .collect();
        if !dropped.is_empty() {
            self.note(format!(
                "{OLD}: {} dropped (helmCharts has no such fields)",
                dropped.join(", ")
            ));
        }
        self.move_items(&[], OLD, "helmCharts", Some(charts))
    }

    /// The `patches` entries of `patchesStrategicMerge`: a path when the file can be
    /// read (from the kustomization's directory, as kustomize reads it from the
    /// current one), else the text as an inline patch.
    fn strategic_merge_patches(&self) -> Option<Vec<Node>> {
        let items = self
            .doc()
            .get(&top("patchesStrategicMerge"))?
            .as_seq()
            .cloned()
            .unwrap_or_default();
        let entries = items
            .iter()
            .map(|item| {
                let text = item.scalar_string().unwrap_or_default();
                let is_file = !text.is_empty() && std::fs::read(self.dir().join(&text)).is_ok();
                let mut entry = Map::new();
                entry.insert(if is_file { "path" } else { "patch" }, Node::text(text));
                Node::Map(entry)
            })
            .collect();
        Some(entries)
    }

    /// The `labels` entry `commonLabels` becomes (`None` when it has no labels); a
    /// label that a `labels` entry has too is kustomize's error.
    fn common_labels_entry(&self) -> Result<Option<Node>> {
        let Some(Node::Map(common)) = self.doc().get(&top("commonLabels")) else {
            return Ok(None);
        };
        if common.is_empty() {
            return Ok(None);
        }
        let labels = self.doc().get(&top("labels")).and_then(Node::as_seq);
        for entry in labels.into_iter().flatten() {
            let pairs = entry.get("pairs").and_then(Node::as_map);
            if let Some(key) = pairs
                .into_iter()
                .flat_map(|p| p.keys())
                .find(|k| common.contains_key(k.as_str()))
            {
                return Err(edit_error(format!(
                    "label name '{}' exists in both commonLabels and labels",
                    key.as_str()
                )));
            }
        }
        let mut entry = Map::new();
        entry.insert("includeSelectors", Node::Bool(true));
        entry.insert("pairs", Node::Map(common.clone()));
        Ok(Some(Node::Map(entry)))
    }
}

/// A `helmChartInflationGenerator` entry as a `helmCharts` entry (fields in the
/// order kustomize writes them, alphabetical).
fn helm_chart(old: &Node) -> Node {
    let mut chart = Map::new();
    for (from, to) in [
        ("chartName", "name"),
        ("releaseName", "releaseName"),
        ("chartRepoUrl", "repo"),
        ("values", "valuesFile"),
        ("valuesLocal", "valuesInline"),
        ("valuesMerge", "valuesMerge"),
        ("chartVersion", "version"),
    ] {
        match old.get(from) {
            None | Some(Node::Null) => {}
            Some(Node::Map(m)) if m.is_empty() => {}
            Some(v) if v.as_str() == Some("") => {}
            Some(v) => {
                chart.insert(to, v.clone());
            }
        }
    }
    Node::Map(chart)
}
