//! The kustomization file an `edit` command changes: found as kustomize finds it,
//! checked before and after the change, written atomically.

use super::document::{Document, Step};
use super::{FIELD_ORDER, edit_error};
use crate::error::{Error, Result};
use crate::yaml::Node;
use std::path::{Path, PathBuf};

/// The names kustomize recognises, in its order.
pub(super) const NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// A kustomization file open for editing.
#[derive(Debug)]
pub struct KustomizationFile {
    path: PathBuf,
    original: String,
    doc: Document,
    notes: Vec<String>,
}

impl KustomizationFile {
    /// Opens the kustomization file of `dir`; errors when there is none, more than one,
    /// or when it is not a valid kustomization (with its line and column).
    pub fn open(dir: &Path) -> Result<KustomizationFile> {
        let found: Vec<PathBuf> = NAMES
            .iter()
            .map(|n| dir.join(n))
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect();
        let path = match found.as_slice() {
            [] => {
                return Err(edit_error(format!(
                    "no kustomization file in {}: expected one of {}; create one with `kbuild create`",
                    dir.display(),
                    NAMES.join(", ")
                )));
            }
            [one] => one.clone(),
            many => {
                let names: Vec<String> = many.iter().map(|p| p.display().to_string()).collect();
                return Err(edit_error(format!(
                    "found more than one kustomization file: {}; keep one",
                    names.join(", ")
                )));
            }
        };
        if path.is_dir() {
            return Err(edit_error(format!("{} should be a file", path.display())));
        }
        let bytes = std::fs::read(&path).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
        let text = String::from_utf8(bytes)
            .map_err(|_| edit_error(format!("{}: not UTF-8 text", path.display())))?;
        let source = path.display().to_string();
        check(&path, &text)?;
        let doc = Document::parse(text.clone(), &source)?;
        if !matches!(doc.value(), Node::Map(_) | Node::Null) {
            return Err(edit_error(format!(
                "{source}: a kustomization is a mapping of fields, not a {}",
                doc.value().type_name()
            )));
        }
        Ok(KustomizationFile {
            path,
            original: text,
            doc,
            notes: Vec::new(),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The document as edited so far.
    pub fn doc(&self) -> &Document {
        &self.doc
    }

    pub(super) fn doc_mut(&mut self) -> &mut Document {
        &mut self.doc
    }

    /// What the commands had to say without failing ("resource x already in
    /// kustomization file"), as kustomize logs it.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    pub(super) fn note(&mut self, msg: String) {
        self.notes.push(msg);
    }

    /// Whether the text changed.
    pub fn changed(&self) -> bool {
        self.doc.text() != self.original
    }

    /// A unified diff of the change (empty when nothing changed).
    pub fn diff(&self) -> String {
        if !self.changed() {
            return String::new();
        }
        let name = self.path.display().to_string();
        crate::diff::unified_diff(
            &self.original,
            self.doc.text(),
            &format!("a/{name}"),
            &format!("b/{name}"),
        )
    }

    /// Sets the top-level field `field` to `value`, adding it where kustomize's field
    /// order puts it when missing.
    pub(super) fn set_field(&mut self, field: &str, value: &Node) -> Result<()> {
        if self.doc.get(&[Step::key(field)]).is_some() {
            return self.doc.set(&[Step::key(field)], value);
        }
        match self.neighbour_field(field) {
            Some((true, after)) => self.doc.insert_entry_after(&[], field, value, &after),
            Some((false, before)) => self.doc.insert_entry_before(&[], field, value, &before),
            None => self.doc.insert_entry(&[], field, value),
        }
    }

    /// Appends `item` to the top-level list `field`.
    pub(super) fn append(&mut self, field: &str, item: &Node) -> Result<()> {
        match self.doc.get(&[Step::key(field)]) {
            None | Some(Node::Null) => self.set_field(field, &Node::Seq(vec![item.clone()])),
            Some(Node::Seq(_)) => self.doc.append(&[Step::key(field)], item),
            Some(other) => Err(edit_error(format!(
                "{}: {field} is a {}, not a list; fix the file and run the command again",
                self.path.display(),
                other.type_name()
            ))),
        }
    }

    /// Appends `items` to the top-level list `field`: what [`Self::append`] of each, in
    /// order, gives, in one edit of the text.
    pub(super) fn append_all(&mut self, field: &str, items: &[Node]) -> Result<()> {
        let Some((first, rest)) = items.split_first() else {
            return Ok(());
        };
        if let None | Some(Node::Null) = self.doc.get(&[Step::key(field)]) {
            self.append(field, first)?;
            return self.doc.append_items(&[Step::key(field)], rest);
        }
        match self.doc.get(&[Step::key(field)]) {
            Some(Node::Seq(_)) => self.doc.append_items(&[Step::key(field)], items),
            _ => self.append(field, first),
        }
    }

    /// Where a new top-level field goes: after the field written last in the file among
    /// those kustomize's order puts before it (`(true, name)`), else before the first
    /// field kustomize puts after it (`(false, name)`); `None`: at the end. So a new
    /// `namePrefix` follows `resources` wherever the file has it, and the file's own
    /// order is never rearranged.
    fn neighbour_field(&self, field: &str) -> Option<(bool, String)> {
        let at = FIELD_ORDER.iter().position(|f| *f == field)?;
        let map = self.doc.value().as_map()?;
        let position = |name: &str| map.keys().position(|k| k.as_str() == name);
        let earlier = FIELD_ORDER[..at]
            .iter()
            .filter_map(|f| position(f).map(|p| (p, *f)))
            .max();
        if let Some((_, name)) = earlier {
            return Some((true, name.to_string()));
        }
        FIELD_ORDER[at + 1..]
            .iter()
            .filter_map(|f| position(f).map(|p| (p, *f)))
            .min()
            .map(|(_, name)| (false, name.to_string()))
    }

    /// Checks the edited text is still a valid kustomization, then writes it over the
    /// file ([`write_file`]).
    pub fn save(&self, cleanup: &crate::output::Cleanup) -> Result<()> {
        if !self.changed() {
            return Ok(());
        }
        check(&self.path, self.doc.text())?;
        write_file(&self.path, self.doc.text(), cleanup)
    }
}

/// Writes `text` over the existing file `path`: to a temporary file beside it, renamed
/// over it, with the file's mode and owner; through a symlink to the file it names. A
/// read-only file is an error, not overwritten.
pub fn write_file(path: &Path, text: &str, cleanup: &crate::output::Cleanup) -> Result<()> {
    crate::output::write_file_atomic(path, text.as_bytes(), cleanup)
}

/// The text must read as a kustomization (the same checks as a build's, except that
/// an empty one is fine: `edit` may start from, or leave, a file with no fields).
fn check(path: &Path, text: &str) -> Result<()> {
    let node = crate::yaml::parse::parse_document(text, &path.display().to_string())?;
    if crate::kustomization::empty::is_empty(&node) {
        return Ok(());
    }
    crate::kustomization::decode::decode(path.to_path_buf(), text.as_bytes().to_vec()).map(|_| ())
}
