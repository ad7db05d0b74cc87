//! `kbuild create`: a new kustomization file, as kustomize's `create` writes it.

use super::add::expand_patterns;
use super::document::Document;
use super::edit_error;
use super::file::NAMES;
use super::metadata::{Metadata, parse_pairs};
use crate::error::{Error, Result};
use crate::load::{FileKind, FileSystem};
use crate::yaml::{Map, Node};
use std::path::{Path, PathBuf};

/// The flags of `kbuild create` (empty when not given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateArgs {
    /// `--resources`: comma-separated files, directories, URLs or glob patterns.
    pub resources: String,
    /// `--namespace`.
    pub namespace: String,
    /// `--nameprefix`.
    pub name_prefix: String,
    /// `--namesuffix`.
    pub name_suffix: String,
    /// `--labels`: `k:v,k:v` for `commonLabels`.
    pub labels: String,
    /// `--annotations`: `k:v,k:v` for `commonAnnotations`.
    pub annotations: String,
    /// `--autodetect`: list the resource files of the directory too.
    pub autodetect: bool,
    /// `--recursive`: autodetect in subdirectories too (a subdirectory with a
    /// kustomization is listed itself, not searched).
    pub recursive: bool,
}

/// Writes `kustomization.yaml` in `dir`; an existing kustomization file is an error.
/// Returns the file's path and text and what kbuild had to say on the way.
pub fn create(dir: &Path, args: &CreateArgs) -> Result<(PathBuf, String, Vec<String>)> {
    let mut notes = Vec::new();
    let mut resources = Vec::new();
    if !args.resources.is_empty() {
        let patterns: Vec<String> = args.resources.split(',').map(str::to_string).collect();
        resources = expand_patterns(dir, &patterns, true, true, &mut notes)?;
    }
    if NAMES
        .iter()
        .any(|n| std::fs::symlink_metadata(dir.join(n)).is_ok())
    {
        return Err(edit_error("kustomization file already exists"));
    }
    if args.autodetect {
        for found in detect_resources(dir, args.recursive)? {
            if !resources.contains(&found) {
                resources.push(found);
            }
        }
    }
    let annotations = pairs(&args.annotations, Metadata::Annotation)?;
    let labels = pairs(&args.labels, Metadata::Label)?;

    let mut doc = Document::parse(String::new(), "kustomization.yaml")?;
    let mut field = |key: &str, value: Node| doc.insert_entry(&[], key, &value);
    // kustomize's `create` reads the new (empty) file as every edit does, which fills
    // in `apiVersion` and `kind`; the rest follows kustomize's field order.
    field("apiVersion", Node::text("kustomize.config.k8s.io/v1beta1"))?;
    field("kind", Node::text("Kustomization"))?;
    if !resources.is_empty() {
        let items = resources.into_iter().map(Node::text).collect();
        field("resources", Node::Seq(items))?;
    }
    for (key, value) in [
        ("namePrefix", &args.name_prefix),
        ("nameSuffix", &args.name_suffix),
        ("namespace", &args.namespace),
    ] {
        if !value.is_empty() {
            field(key, Node::text(value.as_str()))?;
        }
    }
    for (key, map) in [("commonLabels", labels), ("commonAnnotations", annotations)] {
        if !map.is_empty() {
            field(key, Node::Map(map))?;
        }
    }
    let path = dir.join("kustomization.yaml");
    let text = doc.text().to_string();
    write_new(&path, &text)?;
    Ok((path, text, notes))
}

/// `k:v,k:v` as kustomize's `ConvertToMap` reads it, keys sorted as kustomize writes
/// a map.
fn pairs(arg: &str, kind: Metadata) -> Result<Map> {
    if arg.is_empty() {
        return Ok(Map::new());
    }
    let list: Vec<String> = arg.split(',').map(str::to_string).collect();
    let mut map: Map = parse_pairs(&list, kind)?
        .into_iter()
        .map(|(k, v)| (k, Node::text(v)))
        .collect();
    map.sort_keys();
    Ok(map)
}

/// Creates `path` only if it does not exist (no race with another writer).
fn write_new(path: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => edit_error("kustomization file already exists"),
            _ => io(e),
        })?;
    file.write_all(text.as_bytes()).map_err(io)
}

/// kustomize's `--autodetect`: a walk of `dir` in name order. A file that reads as
/// Kubernetes resources (an empty one does) is listed; with `recursive`, a
/// subdirectory holding a kustomization file is listed and not entered, any other is
/// searched. A file that cannot be read stops the walk with an error, as in kustomize;
/// FIFOs, sockets and devices are skipped rather than read (reading a FIFO would
/// block).
fn detect_resources(dir: &Path, recursive: bool) -> Result<Vec<String>> {
    let mut found = Vec::new();
    walk(dir, Path::new(""), recursive, &mut found)?;
    Ok(found)
}

fn walk(dir: &Path, rel: &Path, recursive: bool, found: &mut Vec<String>) -> Result<()> {
    let here = dir.join(rel);
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let mut entries = crate::load::RealFs
        .read_dir(&here)
        .map_err(|e| io(&here, e))?;
    // Go's directory walk visits names in byte order.
    entries.sort_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
    for (name, kind) in entries {
        let path = rel.join(&name);
        let full = dir.join(&path);
        let shown = path.display().to_string();
        match kind {
            FileKind::Dir if !recursive => {}
            FileKind::Dir => {
                if NAMES.iter().any(|n| full.join(n).exists()) {
                    found.push(shown);
                } else {
                    walk(dir, &path, recursive, found)?;
                }
            }
            FileKind::Other => {}
            FileKind::File | FileKind::Symlink => {
                let bytes = std::fs::read(&full).map_err(|e| io(&full, e))?;
                if crate::resource::parse::parse_resources(bytes, &full).is_ok() {
                    found.push(shown);
                }
            }
        }
    }
    Ok(())
}
