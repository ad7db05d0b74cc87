//! `edit add`: resources, bases, components, generators, transformers, patches and
//! build metadata (labels and annotations are in `metadata`).

use super::{KustomizationFile, edit_error, string_list, top};
use crate::error::Result;
use crate::yaml::{Map, Node};
use std::collections::HashSet;
use std::path::Path;

/// A patch entry as `edit add|remove patch` flags give it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchArgs {
    /// `--path`.
    pub path: String,
    /// `--patch` (the patch text inline).
    pub patch: String,
    /// `--group`, `--version`, `--kind`, `--name`, `--namespace`,
    /// `--annotation-selector`, `--label-selector`: the target.
    pub target: [String; 7],
}

/// The target fields in the order of [`PatchArgs::target`].
const TARGET_FIELDS: [&str; 7] = [
    "group",
    "version",
    "kind",
    "name",
    "namespace",
    "annotationSelector",
    "labelSelector",
];

impl PatchArgs {
    /// The `patches` entry these flags make, as kustomize writes it (no target when
    /// every target flag is empty).
    pub(super) fn entry(&self) -> Node {
        let mut entry = Map::new();
        if !self.path.is_empty() {
            entry.insert("path", Node::text(self.path.as_str()));
        }
        if !self.patch.is_empty() {
            entry.insert("patch", Node::text(self.patch.as_str()));
        }
        let mut target = Map::new();
        for (field, value) in TARGET_FIELDS.iter().zip(&self.target) {
            if !value.is_empty() {
                target.insert(*field, Node::text(value.as_str()));
            }
        }
        if !target.is_empty() {
            entry.insert("target", Node::Map(target));
        }
        Node::Map(entry)
    }

    /// Whether an existing `patches` entry is this one (kustomize's `Patch.Equals`:
    /// path, patch text, target and options all equal; a missing target equals an
    /// empty one).
    pub(super) fn matches(&self, entry: &Node) -> bool {
        let text = |node: Option<&Node>| node.and_then(Node::scalar_string).unwrap_or_default();
        if text(entry.get("path")) != self.path || text(entry.get("patch")) != self.patch {
            return false;
        }
        if entry
            .get("options")
            .is_some_and(|o| o.as_map().is_some_and(|m| !m.is_empty()))
        {
            return false;
        }
        let target = entry.get("target");
        TARGET_FIELDS
            .iter()
            .zip(&self.target)
            .all(|(field, value)| text(target.and_then(|t| t.get(field))) == *value)
    }
}

/// Expands glob patterns relative to `dir` as Go's `filepath.Glob` does (sorted; `*`
/// does not cross `/`); a pattern that is not a valid glob is an error.
pub(super) fn glob_in(dir: &Path, pattern: &str) -> Result<Vec<String>> {
    // A path without metacharacters matches itself when it exists (Go's Glob does the
    // same), `..` included, which the glob crate does not walk.
    if !is_pattern(pattern) {
        let exists = std::fs::symlink_metadata(dir.join(pattern)).is_ok();
        return Ok(if exists {
            vec![pattern.to_string()]
        } else {
            Vec::new()
        });
    }
    let escaped_dir = glob::Pattern::escape(&dir.display().to_string());
    let full_pattern = if Path::new(pattern).is_absolute() {
        pattern.to_string()
    } else {
        format!("{escaped_dir}/{pattern}")
    };
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    let paths = glob::glob_with(&full_pattern, options)
        .map_err(|e| edit_error(format!("{pattern}: not a valid file pattern: {e}")))?;
    let mut out = Vec::new();
    for path in paths.flatten() {
        let shown = if Path::new(pattern).is_absolute() {
            path.display().to_string()
        } else {
            path.strip_prefix(dir)
                .unwrap_or(&path)
                .display()
                .to_string()
        };
        out.push(shown);
    }
    Ok(out)
}

/// Whether a pattern has glob metacharacters; a plain path that does not exist is then
/// a path, not an empty match.
fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// A remote base or resource: kustomize accepts these without looking.
fn is_remote(s: &str) -> bool {
    s.contains("://") || s.starts_with("git@") || s.starts_with("github.com/")
}

impl KustomizationFile {
    pub(super) fn dir(&self) -> &Path {
        self.path().parent().unwrap_or(Path::new("."))
    }

    /// `edit add resource PATTERN… [--no-verify]`: each pattern is expanded against the
    /// directory; a pattern matching nothing must name a directory or a remote URL
    /// (kustomize loads it to check) unless `no_verify`. Entries already listed and the
    /// kustomization file itself are skipped.
    pub fn add_resources(&mut self, args: &[String], no_verify: bool) -> Result<()> {
        if args.is_empty() {
            return Err(edit_error("must specify a resource file"));
        }
        self.add_found("resources", "resource", args, !no_verify)
    }

    /// `edit add component PATTERN…`: as `add resource`, into `components`.
    pub fn add_components(&mut self, args: &[String]) -> Result<()> {
        if args.is_empty() {
            return Err(edit_error("must specify a component file"));
        }
        self.add_found("components", "component", args, true)
    }

    /// Adds what the patterns expand to (remote URLs allowed) to `field`, skipping the
    /// kustomization file itself and entries already listed.
    fn add_found(&mut self, field: &str, what: &str, args: &[String], verify: bool) -> Result<()> {
        let found = self.expand(args, verify, true)?;
        let own = self
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().to_string());
        let found: Vec<String> = found
            .into_iter()
            .filter(|item| Some(item) != own.as_ref())
            .collect();
        self.add_unique(field, found, what)
    }

    /// `edit add generator|transformer PATTERN…`: files matching the patterns (a pattern
    /// matching nothing is skipped, with a note) into `generators`/`transformers`.
    pub fn add_plugin_files(&mut self, field: &str, args: &[String]) -> Result<()> {
        let what = if field == "generators" {
            "generator"
        } else {
            "transformer"
        };
        if args.is_empty() {
            return Err(edit_error(format!(
                "must specify a yaml file which contains a {what} plugin resource"
            )));
        }
        let found = self.expand(args, false, false)?;
        self.add_unique(field, found, what)
    }

    /// `edit add base DIR[,DIR…]`: each must exist and not be listed yet (errors, unlike
    /// `add resource`); they go into `resources`.
    pub fn add_bases(&mut self, args: &[String]) -> Result<()> {
        let [arg] = args else {
            return Err(edit_error("must specify a base directory"));
        };
        let listed: HashSet<String> = self.resources_and_bases().into_iter().collect();
        for path in arg.split(',') {
            if !self.dir().join(path).exists() {
                return Err(edit_error(format!("{path} does not exist")));
            }
            if listed.contains(path) {
                return Err(edit_error(format!(
                    "base {path} already in kustomization file"
                )));
            }
        }
        let paths: Vec<Node> = arg.split(',').map(Node::text).collect();
        self.append_all("resources", &paths)
    }

    /// `edit add buildmetadata a,b`: options already listed are an error.
    pub fn add_build_metadata(&mut self, args: &[String]) -> Result<()> {
        let opts = super::set::build_metadata_args(args)?;
        let current = string_list(self, "buildMetadata");
        if let Some(dup) = opts.iter().find(|o| current.contains(o)) {
            return Err(edit_error(format!(
                "buildMetadata option {dup} already in kustomization file"
            )));
        }
        let opts: Vec<Node> = opts.into_iter().map(Node::text).collect();
        self.append_all("buildMetadata", &opts)
    }

    /// `edit add patch --path P | --patch TEXT [target flags]`: appends the entry unless
    /// an equal one is listed.
    pub fn add_patch(&mut self, args: &PatchArgs) -> Result<()> {
        if !args.patch.is_empty() && !args.path.is_empty() {
            return Err(edit_error("patch and path can't be set at the same time"));
        }
        if args.patch.is_empty() && args.path.is_empty() {
            return Err(edit_error("must provide either patch or path"));
        }
        let listed = self
            .doc()
            .get(&top("patches"))
            .and_then(Node::as_seq)
            .cloned();
        if listed.is_some_and(|l| l.iter().any(|p| args.matches(p))) {
            let what = if args.path.is_empty() {
                &args.patch
            } else {
                &args.path
            };
            self.note(format!("patch {what} already in kustomization file"));
            return Ok(());
        }
        self.append("patches", &args.entry())
    }

    /// `resources` and the deprecated `bases`, which kustomize reads as one list.
    fn resources_and_bases(&self) -> Vec<String> {
        let mut all = string_list(self, "resources");
        all.extend(string_list(self, "bases"));
        all
    }

    /// Appends the `items` not listed yet (nor earlier in `items`), with a note for each
    /// one that is; in one edit of the text.
    fn add_unique(&mut self, field: &str, items: Vec<String>, what: &str) -> Result<()> {
        let listed = if field == "resources" {
            self.resources_and_bases()
        } else {
            string_list(self, field)
        };
        let mut listed: HashSet<String> = listed.into_iter().collect();
        let mut new = Vec::new();
        for item in items {
            if listed.contains(&item) {
                self.note(format!("{what} {item} already in kustomization file"));
            } else {
                listed.insert(item.clone());
                new.push(Node::text(item));
            }
        }
        self.append_all(field, &new)
    }

    /// [`expand_patterns`] in the kustomization's directory, its notes kept.
    fn expand(
        &mut self,
        patterns: &[String],
        verify: bool,
        remote_ok: bool,
    ) -> Result<Vec<String>> {
        let mut notes = Vec::new();
        let found = expand_patterns(self.dir(), patterns, verify, remote_ok, &mut notes);
        for note in notes {
            self.note(note);
        }
        found
    }
}

/// Expands the patterns in `dir`. `verify`: a pattern matching no file must name a
/// directory (or a remote URL, when `remote_ok`), else it is an error; without
/// `verify` it is taken as written (`no_verify`) or skipped with a note (plugin
/// files).
pub(super) fn expand_patterns(
    dir: &Path,
    patterns: &[String],
    verify: bool,
    remote_ok: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for pattern in patterns {
        let matched = glob_in(dir, pattern)?;
        if !matched.is_empty() {
            out.extend(matched);
            continue;
        }
        if !remote_ok {
            notes.push(format!("{pattern} has no match"));
            continue;
        }
        if !verify || (remote_ok && is_remote(pattern)) {
            out.push(pattern.clone());
            continue;
        }
        if !is_pattern(pattern) && dir.join(pattern).is_dir() {
            out.push(pattern.clone());
            continue;
        }
        return Err(edit_error(format!(
            "{pattern} has no match: no file or directory matches it in {}",
            dir.display()
        )));
    }
    Ok(out)
}
