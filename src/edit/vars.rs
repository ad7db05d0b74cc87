//! `edit fix --vars`: `vars` converted to `replacements`, as kustomize's
//! `ConvertVarsToReplacements` does it. Each var becomes a replacement whose source is
//! the var's object and field; its targets are every string field, in the files the
//! kustomization touches, that holds `$(NAME)`; and those files get `NAME_PLACEHOLDER`
//! in place of `$(NAME)` (the replacement writes the value over it at build time).
//!
//! The files touched are the kustomization's `resources` (a directory's own
//! kustomization searched the same way, its paths taken from its directory) and the
//! `path`s of its `patches`. A field holding more than the reference must split at one
//! character on both sides of it (`a/$(NAME)/b`): the target then replaces that part
//! (`options: {delimiter, index}`), anything else is kustomize's error.

use super::document::Step;
use super::file::NAMES;
use super::{KustomizationFile, edit_error, string_list, top};
use crate::error::Result;
use crate::kustomization::{Kustomization, Patch, Selector, Var};
use crate::yaml::{Map, Node};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The files a kustomization touches, with the patch entry of each patch file.
#[derive(Default)]
struct Touched {
    files: Vec<String>,
    patches: HashMap<String, Patch>,
    /// Directories searched already (a kustomization that lists itself, or a cycle).
    seen: HashSet<PathBuf>,
}

impl KustomizationFile {
    /// Converts `vars` to `replacements` (appended after any the file has; kustomize
    /// drops those, which would change the build) and removes `vars`. Returns the
    /// resource files to rewrite, with their new text.
    pub(super) fn convert_vars(&mut self) -> Result<Vec<(PathBuf, String)>> {
        let vars: Vec<Var> = decode(self.doc().get(&top("vars")), "vars")?;
        let patches: Vec<Patch> = decode(self.doc().get(&top("patches")), "patches")?;
        let dir = self.dir().to_path_buf();
        let mut touched = Touched::default();
        touched
            .seen
            .insert(std::fs::canonicalize(&dir).unwrap_or(dir.clone()));
        let resources = string_list(self, "resources");
        files_touched(&dir, "", &resources, &patches, &mut touched)?;

        // The files as they stand after the vars converted so far.
        let mut texts: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut original: HashMap<String, String> = HashMap::new();
        for file in &touched.files {
            let text = std::fs::read_to_string(dir.join(file)).ok();
            if let Some(t) = &text {
                original.insert(file.clone(), t.clone());
            }
            texts.insert(file.clone(), text);
        }
        let mut replacements = Vec::new();
        for var in &vars {
            let reference = format!("$({})", var.name);
            let mut targets = Vec::new();
            for file in &touched.files {
                let Some(Some(text)) = texts.get(file) else {
                    continue;
                };
                let name = dir.join(file).display().to_string();
                let Ok(docs) = crate::yaml::parse::parse_resource_stream(text, &name) else {
                    continue;
                };
                for (doc, _) in docs.iter().filter(|(d, _)| !d.is_null()) {
                    let mut found = Vec::new();
                    find_reference(doc, &reference, &mut Vec::new(), &mut found)
                        .map_err(|msg| edit_error(format!("error with {file}: {msg}")))?;
                    let patch = touched.patches.get(file);
                    for (field_path, options) in found {
                        targets.push(target(doc, patch, field_path, options));
                    }
                }
            }
            let placeholder = format!("{}_PLACEHOLDER", var.name);
            for text in texts.values_mut().flatten() {
                *text = text.replace(&reference, &placeholder);
            }
            if targets.is_empty() {
                // kustomize writes a replacement without targets, which no build
                // accepts; a var nothing references changes nothing when it goes.
                self.note(format!(
                    "var {} is referenced in none of the files the kustomization touches: dropped, no replacement written",
                    var.name
                ));
                continue;
            }
            let mut replacement = Map::new();
            replacement.insert("source", source(var));
            replacement.insert("targets", Node::Seq(targets));
            replacements.push(Node::Map(replacement));
        }
        self.append_all("replacements", &replacements)?;
        self.doc_mut().remove(&[Step::key("vars")])?;
        let mut changed = Vec::new();
        for (file, text) in texts {
            if let Some(text) = text
                && original.get(&file) != Some(&text)
            {
                changed.push((dir.join(&file), text));
            }
        }
        Ok(changed)
    }
}

/// A field of the kustomization read into kbuild's model (the file was checked when
/// it was opened, so this fails only on a field kbuild's edit made).
fn decode<T: serde::de::DeserializeOwned + Default>(node: Option<&Node>, field: &str) -> Result<T> {
    match node {
        None | Some(Node::Null) => Ok(T::default()),
        Some(node) => {
            crate::yaml::de::from_node(node).map_err(|e| edit_error(format!("{field}: {e}")))
        }
    }
}

/// kustomize's `filesTouchedByKustomize`: each resource (`prefix`ed by the directory
/// of the kustomization listing it), after the files of the kustomization in it when
/// it is a directory; then the patch files.
fn files_touched(
    dir: &Path,
    prefix: &str,
    resources: &[String],
    patches: &[Patch],
    touched: &mut Touched,
) -> Result<()> {
    for resource in resources {
        let path = join(prefix, resource);
        let full = dir.join(&path);
        let fresh = std::fs::canonicalize(&full).is_ok_and(|real| touched.seen.insert(real));
        if fresh && full.is_dir() {
            // kustomize reads every kustomization file name the directory holds, in the
            // order its listing gives (byte order), with Go's lenient decoding.
            let mut names: Vec<&str> = NAMES.to_vec();
            names.sort_unstable();
            for name in names {
                let Ok(text) = std::fs::read_to_string(full.join(name)) else {
                    continue;
                };
                let source = full.join(name).display().to_string();
                let node = crate::yaml::parse::parse_document(&text, &source)?;
                let sub: Kustomization = if node.is_null() {
                    Kustomization::default()
                } else {
                    crate::yaml::de::from_node_lenient(&node)
                        .map_err(|e| edit_error(format!("{source}: {e}")))?
                };
                files_touched(dir, &path, &sub.resources, &sub.patches, touched)?;
            }
        }
        touched.files.push(path);
    }
    for patch in patches.iter().filter(|p| !p.path.is_empty()) {
        let path = join(prefix, &patch.path);
        touched.files.push(path.clone());
        touched.patches.insert(path, patch.clone());
    }
    Ok(())
}

/// Go's `path.Join` of two slash paths: cleaned, `..` kept only at the start.
fn join(prefix: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in prefix.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (
        prefix.starts_with('/') || (prefix.is_empty() && path.starts_with('/')),
        joined.is_empty(),
    ) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// kustomize's `findVarName`: the field paths of the string values holding
/// `reference`, with the options each target needs. List indexes are path steps;
/// a key with a dot is written `[key]`.
fn find_reference(
    node: &Node,
    reference: &str,
    path: &mut Vec<String>,
    found: &mut Vec<(String, Option<(String, usize)>)>,
) -> std::result::Result<(), String> {
    match node {
        Node::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                find_reference(item, reference, path, found)?;
                path.pop();
            }
        }
        Node::Map(map) => {
            for (key, value) in map.iter() {
                let key = key.as_str().trim();
                path.push(if key.contains('.') {
                    format!("[{key}]")
                } else {
                    key.to_string()
                });
                find_reference(value, reference, path, found)?;
                path.pop();
            }
        }
        Node::Str(value) if value.contains(reference) => {
            found.push((path.join("."), field_options(value, reference)?));
        }
        _ => {}
    }
    Ok(())
}

/// kustomize's `constructFieldOptions`: none when the value is the reference alone;
/// else the character next to it (after it when it starts the value, before it
/// otherwise, and then the same on both sides) and the place of the reference among
/// the parts that character splits the value into.
fn field_options(
    value: &str,
    reference: &str,
) -> std::result::Result<Option<(String, usize)>, String> {
    if value == reference {
        return Ok(None);
    }
    let at = value.find(reference).unwrap_or(0);
    let (before, after) = (&value[..at], &value[at + reference.len()..]);
    let pre = before.chars().next_back();
    let post = after.chars().next();
    let (delimiter, index) = match (pre, post) {
        (None, Some(post)) => (post, 0),
        (Some(pre), None) => (pre, value.split(pre).count() - 1),
        (Some(pre), Some(post)) if pre == post => {
            let index = value
                .split(pre)
                .position(|part| part == reference)
                .ok_or_else(|| format!("internal error: could not get index of var {reference}"))?;
            (pre, index)
        }
        _ => {
            return Err(format!(
                "cannot convert all vars to replacements; {reference} is not delimited"
            ));
        }
    };
    Ok(Some((delimiter.to_string(), index)))
}

/// A replacement target for a field of `doc`. A field of a patch file (unless the
/// patch may change both name and kind) targets what the patch targets: the
/// resources it applies to may have other ids than the patch names.
fn target(
    doc: &Node,
    patch: Option<&Patch>,
    field_path: String,
    options: Option<(String, usize)>,
) -> Node {
    let meta = |path: &[&str]| doc.get_str(path).unwrap_or_default().to_string();
    let select = match patch {
        Some(patch)
            if !(patch.option("allowNameChange", true)
                && patch.option("allowKindChange", true)) =>
        {
            let mut selector = patch.target.clone().unwrap_or_default();
            if patch.option("allowNameChange", true) {
                selector.name = meta(&["metadata", "name"]);
            }
            if patch.option("allowKindChange", true) {
                selector.kind = meta(&["kind"]);
            }
            let namespace = meta(&["metadata", "namespace"]);
            if !namespace.is_empty() {
                selector.namespace = namespace;
            }
            selector
        }
        _ => {
            let (group, version) = split_api_version(&meta(&["apiVersion"]));
            Selector {
                group,
                version,
                kind: meta(&["kind"]),
                name: meta(&["metadata", "name"]),
                namespace: meta(&["metadata", "namespace"]),
                ..Selector::default()
            }
        }
    };
    // kustomize writes the fields of each object in alphabetical order.
    let mut entry = Map::new();
    entry.insert("fieldPaths", Node::Seq(vec![Node::text(field_path)]));
    if let Some((delimiter, index)) = options {
        let mut opts = Map::new();
        opts.insert("delimiter", Node::text(delimiter));
        if index != 0 {
            opts.insert("index", Node::Int(index as i64));
        }
        entry.insert("options", Node::Map(opts));
    }
    entry.insert("select", selector_node(&select));
    Node::Map(entry)
}

fn selector_node(s: &Selector) -> Node {
    texts(&[
        ("annotationSelector", &s.annotation_selector),
        ("group", &s.group),
        ("kind", &s.kind),
        ("labelSelector", &s.label_selector),
        ("name", &s.name),
        ("namespace", &s.namespace),
        ("version", &s.version),
    ])
}

/// kustomize's `copySourceFromVars`: the var's object by `apiVersion` (its `group` and
/// `version` fields are not read), kind, name and namespace, and its field.
fn source(var: &Var) -> Node {
    let (group, version) = split_api_version(&var.objref.api_version);
    let field_path = var
        .fieldref
        .as_ref()
        .map(|f| f.field_path.clone())
        .unwrap_or_default();
    texts(&[
        ("fieldPath", &field_path),
        ("group", &group),
        ("kind", &var.objref.kind),
        ("name", &var.objref.name),
        ("namespace", &var.objref.namespace),
        ("version", &version),
    ])
}

/// A mapping of the non-empty strings among `fields`, in their order.
fn texts(fields: &[(&str, &String)]) -> Node {
    let mut map = Map::new();
    for (key, value) in fields {
        if !value.is_empty() {
            map.insert(*key, Node::text(value.as_str()));
        }
    }
    Node::Map(map)
}

/// `group/version`, or a version alone.
fn split_api_version(api_version: &str) -> (String, String) {
    match api_version.split_once('/') {
        Some((group, version)) => (group.to_string(), version.to_string()),
        None => (String::new(), api_version.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_as_go_joins_them() {
        assert_eq!(join("", "./pod.yaml"), "pod.yaml");
        assert_eq!(join("base", "pod.yaml"), "base/pod.yaml");
        assert_eq!(join("base", "../common/x.yaml"), "common/x.yaml");
        assert_eq!(join("", "../x"), "../x");
        assert_eq!(join("a", ".."), ".");
    }

    #[test]
    fn a_reference_inside_a_value_needs_the_same_character_around_it() {
        let r = "$(X)";
        assert_eq!(field_options("$(X)", r), Ok(None));
        assert_eq!(field_options("$(X)/path", r), Ok(Some(("/".into(), 0))));
        assert_eq!(field_options("path/$(X)", r), Ok(Some(("/".into(), 1))));
        assert_eq!(
            field_options("my/path/$(X)/secret/path", r),
            Ok(Some(("/".into(), 2)))
        );
        assert!(field_options("var$(X)/path", r).is_err());
    }
}
