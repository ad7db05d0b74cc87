//! The render manifest, `OUTDIR/.kbuild-render.json`: which files of the output directory
//! `kbuild render` wrote, and for which kustomization. It is what lets `render --all`
//! remove the render of a kustomization that was deleted or moved while never touching a
//! file someone put there by hand. It is committed with the renders, sorted, one entry a
//! line, so its diffs read like the renders' own.

use crate::error::{Error, Result};
use crate::output;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The manifest's file name in the output directory.
pub const FILE_NAME: &str = ".kbuild-render.json";

/// The format's version; a manifest of another version is refused, not guessed at.
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    #[serde(rename = "kbuild-render")]
    version: u32,
    /// Render file (relative to the output directory) → kustomization directory (as
    /// `render` names it: relative to where it ran).
    renders: BTreeMap<String, String>,
}

/// The renders recorded in an output directory.
#[derive(Debug)]
pub struct Manifest {
    path: PathBuf,
    renders: BTreeMap<String, String>,
    /// Whether the file exists.
    pub exists: bool,
    changed: bool,
}

impl Manifest {
    /// Reads `out`'s manifest; none yet is an empty one. A manifest that does not parse,
    /// or names a path outside `out`, is an error: kbuild then cannot tell its files from
    /// anyone else's, and removes nothing.
    pub fn load(out: &Path) -> Result<Manifest> {
        let path = out.join(FILE_NAME);
        let corrupt = |why: String| {
            Error::Output(format!(
                "{}: {why}; it is not a kbuild render manifest kbuild can use. Delete it and run kbuild render again (renders of kustomizations deleted before then are no longer recognised as kbuild's and stay)",
                path.display()
            ))
        };
        let mut manifest = Manifest {
            path: path.clone(),
            renders: BTreeMap::new(),
            exists: false,
            changed: false,
        };
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(manifest),
            Err(e) => return Err(Error::Io { path, source: e }),
            Ok(m) if !m.is_file() => return Err(corrupt("not a regular file".into())),
            Ok(_) => {}
        }
        let bytes = std::fs::read(&path).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
        // The parser's message only: it quotes no content of the file.
        let file: ManifestFile = serde_json::from_slice(&bytes).map_err(|e| {
            corrupt(format!(
                "line {} column {}: {}",
                e.line(),
                e.column(),
                kind(&e)
            ))
        })?;
        if file.version != VERSION {
            return Err(corrupt(format!(
                "format version {} (this kbuild writes version {VERSION})",
                file.version
            )));
        }
        for name in file.renders.keys() {
            if !is_render_name(name) {
                return Err(corrupt(format!(
                    "entry '{}' is not a .yaml file below the output directory",
                    name.escape_debug()
                )));
            }
        }
        manifest.renders = file.renders;
        manifest.exists = true;
        Ok(manifest)
    }

    /// Whether `file` (a path below the output directory) is recorded.
    pub fn owns(&self, out: &Path, file: &Path) -> bool {
        key(out, file).is_some_and(|k| self.renders.contains_key(&k))
    }

    /// Records `file` as the render of `dir`. A path that is not UTF-8 cannot be written
    /// in the JSON file and is not recorded (so never removed by kbuild).
    pub fn record(&mut self, out: &Path, file: &Path, dir: &Path) {
        let (Some(k), Some(d)) = (key(out, file), dir.to_str()) else {
            return;
        };
        if self.renders.get(&k).map(String::as_str) != Some(d) {
            self.renders.insert(k, d.to_string());
            self.changed = true;
        }
    }

    /// Forgets `file`.
    pub fn forget(&mut self, out: &Path, file: &Path) {
        if let Some(k) = key(out, file) {
            self.changed |= self.renders.remove(&k).is_some();
        }
    }

    /// The recorded renders: file (under `out`) and its kustomization directory.
    pub fn renders(&self, out: &Path) -> Vec<(PathBuf, PathBuf)> {
        self.renders
            .iter()
            .map(|(f, d)| (out.join(f), PathBuf::from(d)))
            .collect()
    }

    /// Writes the manifest when it changed (or does not exist yet and records anything).
    pub fn save(&self, out: &Path, cleanup: &output::Cleanup) -> Result<()> {
        if !self.changed && (self.exists || self.renders.is_empty()) {
            return Ok(());
        }
        output::confined(out, &self.path)?;
        let file = ManifestFile {
            version: VERSION,
            renders: self.renders.clone(),
        };
        let mut text = serde_json::to_string_pretty(&file)
            .map_err(|e| Error::Output(format!("{}: {e}", self.path.display())))?;
        text.push('\n');
        output::write_file_atomic(&self.path, text.as_bytes(), cleanup)
    }
}

/// `file`'s manifest key: its path below `out`, `/`-separated.
fn key(out: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(out).ok()?;
    let parts: Option<Vec<&str>> = rel
        .components()
        .map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    Some(parts?.join("/"))
}

/// A manifest entry must name a `.yaml` file strictly below the output directory.
fn is_render_name(name: &str) -> bool {
    let path = Path::new(name);
    name.ends_with(".yaml")
        && !name.contains('\0')
        && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// What kind of JSON error, without serde's quoting of the offending text.
fn kind(e: &serde_json::Error) -> &'static str {
    use serde_json::error::Category;
    match e.classify() {
        Category::Io => "unreadable",
        Category::Syntax => "not valid JSON",
        Category::Data => "not the manifest's fields",
        Category::Eof => "cut short",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path();
        let mut m = Manifest::load(out).unwrap();
        assert!(!m.exists);
        m.record(out, &out.join("apps/web.yaml"), Path::new("apps/web"));
        m.save(out, &output::Cleanup::new()).unwrap();
        let again = Manifest::load(out).unwrap();
        assert!(again.owns(out, &out.join("apps/web.yaml")));
        assert!(!again.owns(out, &out.join("apps/api.yaml")));
        for bad in [
            "{",
            "[]",
            r#"{"kbuild-render": 2, "renders": {}}"#,
            r#"{"kbuild-render": 1, "renders": {"../x.yaml": "x"}}"#,
            r#"{"kbuild-render": 1, "renders": {"/etc/x.yaml": "x"}}"#,
            r#"{"kbuild-render": 1, "renders": {"x.txt": "x"}}"#,
        ] {
            std::fs::write(out.join(FILE_NAME), bad).unwrap();
            let err = Manifest::load(out).unwrap_err().to_string();
            assert!(err.contains("Delete it"), "{bad}: {err}");
        }
    }
}
