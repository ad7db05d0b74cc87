//! Turning a resource's [`Provenance`] into what `kbuild explain` prints: for each field,
//! the chain of steps with the file, line and column of each, and for the whole resource
//! its YAML with each line's origin.
//!
//! Lines and columns are found here, by reading the files again: the entry in the
//! kustomization file (`patches[0]` at `overlays/prod/kustomization.yaml:7:3`), and the
//! value itself in the file that wrote it (the resource file, a strategic-merge patch),
//! where the field can be found there.

use super::written::{Block, holding, list_item, steps_in};
use crate::provenance::{FieldPath, Link, Part, Provenance, Step, StepKind, Written};
use crate::yaml::Node;
use crate::yaml::locate::{Located, Seek};
use crate::yaml::parse::PathStep;
use foldhash::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A file, line and column (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The file.
    pub file: PathBuf,
    /// 1-based line; 0 when only the file is known.
    pub line: usize,
    /// 1-based column; 0 when only the file is known.
    pub column: usize,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file.display())
        } else {
            write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
        }
    }
}

/// One step of a field's chain, located.
#[derive(Clone, Debug, PartialEq)]
pub struct LocatedStep {
    /// What the step was.
    pub kind: StepKind,
    /// The kustomization entry that configured it (`patches[0]`), if any.
    pub actor: Option<String>,
    /// The transformer, as kustomize's transformer annotations name it
    /// (`ImageTagTransformer`), for a transformer's step.
    pub transformer: Option<String>,
    /// Where that entry is written.
    pub entry_at: Option<Position>,
    /// Where the value the step wrote is written (a resource file or a patch).
    pub value_at: Option<Position>,
    /// The field the step changed (the one asked about, or one below it).
    pub field: FieldPath,
    /// The value before (`None`: there was none).
    pub before: Option<String>,
    /// The value after (`None`: removed).
    pub after: Option<String>,
}

/// How a report reads a file (`None`: it cannot be read). `Sync`: the provenance
/// document is made on several threads, each with a locator of its own.
pub type Read = dyn Fn(&Path) -> Option<String> + Sync;

/// Files read and parsed ahead, once, for the locators of several threads (each thread
/// making the provenance document has one: see [`Locator::sharing`]), which would each
/// read and parse them again otherwise.
///
/// Here and in [`Locator`], files are found by their path's bytes (`OsString`), not as a
/// `PathBuf` (which hashes and compares component by component: about 650 instructions a
/// look-up, and the document looks files up for every step it writes). The paths are
/// those of the build's records, spelt the same way each time they name a file; one
/// spelt otherwise would only be read again.
#[derive(Default)]
pub struct Files {
    texts: HashMap<OsString, Option<String>>,
    docs: Vec<Vec<Option<Located>>>,
    files: HashMap<OsString, usize>,
    /// The kustomization files among them, as the build's parser reads them (see
    /// [`Locator`]'s own).
    kustomizations: HashMap<OsString, Option<Node>>,
}

impl Files {
    /// Reads and parses `paths` (on all cores).
    pub fn read(paths: &[&Path], read: &Read) -> Files {
        use rayon::prelude::*;
        type Parsed = (Option<String>, Vec<Option<Located>>, Option<Option<Node>>);
        let parsed: Vec<Parsed> = paths
            .par_iter()
            .map(|p| {
                let text = read(p);
                let docs = text.as_deref().map(Located::parse_all).unwrap_or_default();
                let kustomization = p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| crate::kustomization::FILE_NAMES.contains(&n))
                    .then(|| {
                        let text = text.as_deref()?;
                        crate::yaml::parse::parse_document(text, "").ok()
                    });
                (text, docs, kustomization)
            })
            .collect();
        let mut files = Files::default();
        for (path, (text, docs, kustomization)) in paths.iter().zip(parsed) {
            if let Some(node) = kustomization {
                files
                    .kustomizations
                    .insert(path.as_os_str().to_owned(), node);
            }
            files.texts.insert(path.as_os_str().to_owned(), text);
            files
                .files
                .insert(path.as_os_str().to_owned(), files.docs.len());
            files.docs.push(docs);
        }
        files
    }
}

/// Reads files for a report (each once) and finds positions in them.
pub struct Locator<'f> {
    read: &'f Read,
    /// Files read and parsed ahead, shared with other locators (see [`Files`]).
    shared: Option<&'f Files>,
    texts: HashMap<OsString, Option<String>>,
    /// Each file's documents, parsed once (a report asks for a position per field), by
    /// the file's index in `files`.
    docs: Vec<Vec<Option<Located>>>,
    /// The index in `docs` of each file parsed.
    files: HashMap<OsString, usize>,
    /// Each kustomization file as the build's parser reads it (`None`: it does not
    /// parse), read once: where an entry is written depends on the lists as written
    /// (see [`crate::kustomization::files::Place::position_in`]).
    kustomizations: HashMap<OsString, Option<Node>>,
    /// The documents of each literal block [`Locator::embedded`] looked into, parsed once,
    /// with the block's first line and indentation, by the file's index and the block's
    /// line.
    blocks: HashMap<(usize, usize), Option<Block>>,
    /// Where each kustomization entry is written, found once.
    /// (By file, then entry: looked up for every resource's steps, without a copy of
    /// the file's path each time.)
    entries: HashMap<OsString, HashMap<crate::kustomization::files::Place, Option<(usize, usize)>>>,
}

impl<'f> Locator<'f> {
    /// A locator reading files with `read` (`None`: not readable; only the file is named).
    pub fn new(read: &'f Read) -> Locator<'f> {
        Locator {
            read,
            shared: None,
            texts: HashMap::default(),
            docs: Vec::new(),
            files: HashMap::default(),
            kustomizations: HashMap::default(),
            blocks: HashMap::default(),
            entries: HashMap::default(),
        }
    }

    /// A locator that finds the files of `files` there (and reads others itself).
    pub fn sharing(read: &'f Read, files: &'f Files) -> Locator<'f> {
        Locator {
            shared: Some(files),
            ..Locator::new(read)
        }
    }

    /// The documents of the file at `index` (see [`Locator::file_index`]).
    fn docs_at(&self, index: usize) -> Option<&Vec<Option<Located>>> {
        let shared = self.shared.map_or(0, |f| f.docs.len());
        match self.shared {
            Some(f) if index < shared => f.docs.get(index),
            _ => self.docs.get(index - shared),
        }
    }

    /// The index of `file`'s documents, when parsed.
    fn cached_index(&self, file: &Path) -> Option<usize> {
        let shared = self.shared.map_or(0, |f| f.docs.len());
        self.shared
            .and_then(|f| f.files.get(file.as_os_str()).copied())
            .or_else(|| self.files.get(file.as_os_str()).map(|i| i + shared))
    }

    /// The text of `file`, when read.
    fn cached_text(&self, file: &Path) -> Option<&str> {
        self.shared
            .and_then(|f| f.texts.get(file.as_os_str()))
            .or_else(|| self.texts.get(file.as_os_str()))
            .and_then(Option::as_deref)
    }

    fn text(&mut self, file: &Path) -> Option<&str> {
        if let Some(text) = self.shared.and_then(|f| f.texts.get(file.as_os_str())) {
            return text.as_deref();
        }
        let read = self.read;
        self.texts
            .entry(file.as_os_str().to_owned())
            .or_insert_with(|| read(file))
            .as_deref()
    }

    /// The chain of `field` (and the fields below it) in `p`, oldest first, located.
    pub fn chain(&mut self, p: &Provenance, field: &FieldPath) -> Vec<LocatedStep> {
        p.chain(field)
            .into_iter()
            .map(|link| self.locate(&link))
            .collect()
    }

    /// One link with its positions.
    pub fn locate(&mut self, link: &Link<'_>) -> LocatedStep {
        let prepared = self.prepare(link.step);
        self.locate_prepared(&prepared, link)
    }

    /// What locating the fields a step changed needs of the step itself, found once for
    /// all of them (a source step changed every field of its resource): where its entry
    /// is written, and the documents of the file it wrote to look for a field in.
    pub fn prepare(&mut self, step: &Step) -> Prepared {
        let entry_at = step.entry.as_ref().map(|e| {
            let pos = self.entry_position(&e.file, e.place);
            at(e.file.clone(), pos)
        });
        // A JSON 6902 patch writes its values under `value` of an operation, not at the
        // field's path; the entry's position says which patch it was.
        let wrote = step
            .wrote
            .as_ref()
            // A generator's config (a `generators:` file) writes what it generates in
            // fields of its own (`literals`, `files`), not at the resource's paths: the
            // value is looked for by what it is (see `locate_prepared`), never by its path
            // (the config's own `kind: ConfigMapGenerator` is not where a ConfigMap's kind
            // came from).
            .filter(|_| {
                !matches!(
                    step.kind,
                    StepKind::JsonPatch | StepKind::Generate | StepKind::GenerateMerge
                )
            })
            .map(|w| self.documents_of(w, step.kind));
        Prepared { entry_at, wrote }
    }

    /// [`Locator::locate`] of a link of the step `prepared` was made from.
    pub fn locate_prepared(&mut self, prepared: &Prepared, link: &Link<'_>) -> LocatedStep {
        let step = link.step;
        let change = &link.change;
        let value_at = self
            .value_at(
                prepared,
                step,
                &change.path,
                change.before.as_deref(),
                change.after.as_deref(),
            )
            .map(|(file, pos)| at(file.to_path_buf(), pos));
        LocatedStep {
            kind: step.kind,
            actor: step.entry.as_ref().map(|e| e.place.to_string()),
            transformer: step.transformer.clone(),
            entry_at: prepared.entry_at.clone(),
            value_at,
            field: link.change.path.clone(),
            before: link.change.before.as_deref().map(String::from),
            after: link.change.after.as_deref().map(String::from),
        }
    }

    /// Where the value `step` set in `field` (`after`, replacing `before`) is written: the
    /// file (the step's own, or its entry's: borrowed from the step, as the provenance
    /// document asks this for every field) and, when found, the line and column.
    pub fn value_at<'s>(
        &mut self,
        prepared: &Prepared,
        step: &'s Step,
        field: &FieldPath,
        before: Option<&str>,
        after: Option<&str>,
    ) -> Option<(&'s Path, Option<(usize, usize)>)> {
        let mut value_at = step
            .wrote
            .as_ref()
            .map(|w| (w.file.as_path(), self.value_position(w, prepared, field)));
        if let Some(after) = after
            && value_at.is_none_or(|(_, pos)| pos.is_none_or(|(line, _)| line == 0))
            && step.kind != StepKind::Source
        {
            let generated = matches!(step.kind, StepKind::Generate | StepKind::GenerateMerge);
            // A label or annotation a generator puts on what it makes: its options (the
            // entry's or config's `options`, the kustomization's `generatorOptions`),
            // rather than a literal that happens to hold the value.
            let from_options = (generated && option_field(field).is_some())
                .then(|| {
                    let (file, base) = match (&step.entry, &step.wrote) {
                        (Some(e), _) => (e.file.as_path(), e.place.steps()),
                        (None, Some(w)) => (w.file.as_path(), Vec::new()),
                        (None, None) => return None,
                    };
                    let pos = self.generator_option(file, base, field)?;
                    Some((file, pos))
                })
                .flatten();
            let written = match (&step.entry, &step.wrote) {
                _ if from_options.is_some() => from_options,
                // A JSON 6902 patch written inline, as a literal block (`patches[0].patch:
                // |`): the operation's value, inside the block.
                (Some(e), w)
                    if step.kind == StepKind::JsonPatch
                        && w.as_ref().is_none_or(|w| w.file == e.file) =>
                {
                    let mut inside = e.place.steps();
                    inside.push(PathStep::Key("patch".into()));
                    self.embedded_value(&e.file, &[inside, e.place.steps()], after, before)
                        .map(|p| (e.file.as_path(), p))
                }
                // A JSON 6902 patch file, or a transformer config's operations: the
                // operation's value (inside a `patch: |` block or a `jsonOp` text).
                (_, Some(w)) if step.kind == StepKind::JsonPatch => self
                    .embedded_value(&w.file, &[keys(&["patch"])], after, before)
                    .or_else(|| self.json_op_value(&w.file, after, before))
                    .or_else(|| self.written_in(&w.file, None, field, after, before))
                    .or_else(|| self.json_op_text(&w.file))
                    .map(|p| (w.file.as_path(), p)),
                // A generator's config file: the scalar that holds the value.
                (None, Some(w)) if generated => {
                    let own_kind = matches!(
                        field.0.as_slice(),
                        [Part::Key(k)] if matches!(k.as_str(), "apiVersion" | "kind")
                    );
                    self.written_in(&w.file, None, field, after, before)
                        // What the config does not write itself (the kind and
                        // apiVersion of what it generates): the config, by its kind. A
                        // value from a file the config names (an env file) is not there:
                        // only the config is known.
                        .or_else(|| own_kind.then(|| self.config_kind(&w.file)).flatten())
                        .map(|p| (w.file.as_path(), p))
                }
                // A strategic merge patch written inline, as a literal block: the field
                // in it (`patches[0].patch: |`, a PatchTransformer config's `patch: |`).
                (Some(e), w)
                    if step.kind == StepKind::Merge
                        && w.as_ref().is_none_or(|w| w.file == e.file) =>
                {
                    let mut inside = e.place.steps();
                    inside.push(PathStep::Key("patch".into()));
                    self.embedded(&e.file, &[inside, e.place.steps()], field, after)
                        .map(|p| (e.file.as_path(), p))
                }
                (None, Some(w)) if step.kind == StepKind::Merge => self
                    .embedded(&w.file, &[keys(&["patch"])], field, after)
                    .map(|p| (w.file.as_path(), p)),
                // An item of a kustomization list (`images[0]`, `replicas[1]`,
                // `configMapGenerator[0]`): the scalar of the item that holds the value.
                (Some(e), _) if e.place.index.is_some() => self
                    .written_in(&e.file, Some(e.place), field, after, before)
                    .map(|p| (e.file.as_path(), p)),
                _ => None,
            };
            if let Some((file, pos)) = written {
                value_at = Some((file, Some(pos)));
            }
        }
        value_at
    }

    /// Where the entry `place` of the kustomization file `file` is written: a whole field
    /// holding one value (`namePrefix: prod-`) at the value, an item of a list where the
    /// item starts.
    fn entry_position(
        &mut self,
        file: &Path,
        place: crate::kustomization::files::Place,
    ) -> Option<(usize, usize)> {
        if let Some(pos) = self
            .entries
            .get(file.as_os_str())
            .and_then(|e| e.get(&place))
        {
            return *pos;
        }
        let pos = self.entry_position_in(file, place);
        self.entries
            .entry(file.as_os_str().to_owned())
            .or_default()
            .insert(place, pos);
        pos
    }

    /// [`Locator::entry_position`], not cached: from the file's first document (parsed
    /// once for every entry of the file) and the file as the build reads it.
    fn entry_position_in(
        &mut self,
        file: &Path,
        place: crate::kustomization::files::Place,
    ) -> Option<(usize, usize)> {
        self.text(file)?;
        let doc = self.documents(file).first().and_then(Option::as_ref);
        let scalar = (place.index.is_none() && place.sub.is_none())
            .then_some(doc)
            .flatten()
            .and_then(|doc| {
                let key = [PathStep::Key(place.key.to_string())];
                doc.scalar(&key).and_then(|_| doc.value(&key))
            });
        if scalar.is_some() {
            return scalar;
        }
        let shared = self
            .shared
            .and_then(|f| f.kustomizations.get(file.as_os_str()));
        if shared.is_none() && !self.kustomizations.contains_key(file.as_os_str()) {
            let node = self
                .text(file)
                .and_then(|t| crate::yaml::parse::parse_document(t, "").ok());
            self.kustomizations
                .insert(file.as_os_str().to_owned(), node);
        }
        let node = match shared {
            Some(node) => node.as_ref(),
            None => self
                .kustomizations
                .get(file.as_os_str())
                .and_then(Option::as_ref),
        };
        let doc = self
            .cached_index(file)
            .and_then(|i| self.docs_at(i))
            .and_then(|d| d.first())
            .and_then(Option::as_ref);
        place.position_in(node, doc)
    }

    /// Where `after` (a value a step set, `before` the one it replaced) is written in
    /// `file`: below the entry `place` of a kustomization file, or anywhere in a patch
    /// file (see [`holding`] for which scalar). A literal whose key is the field's
    /// (`data.MODE` from `MODE=prod`) goes first: two literals may have the same value.
    fn written_in(
        &mut self,
        file: &Path,
        place: Option<crate::kustomization::files::Place>,
        field: &FieldPath,
        after: &str,
        before: Option<&str>,
    ) -> Option<(usize, usize)> {
        let own_key = match field.0.last() {
            Some(Part::Key(k)) => Some(k.as_str()),
            _ => None,
        };
        let steps = place.map(|p| p.steps()).unwrap_or_default();
        let docs = self.documents(file);
        let docs = if place.is_some() {
            docs.get(..1).unwrap_or_default()
        } else {
            docs
        };
        let scalars: Vec<(&str, (usize, usize))> = docs
            .iter()
            .flatten()
            .flat_map(|doc| doc.values_under(&steps))
            .collect();
        holding(&scalars, own_key, after, before)
    }

    /// Where `field` is written in a YAML document held by a literal block scalar of
    /// `file` (`patch: |`), the first of `blocks` that is one: the block's lines are the
    /// document's, indented.
    ///
    /// A label or annotation value kustomize shares between fields (a label and its
    /// selector copy, see resource/shared.rs) is written through all of them, so the
    /// field may hold a value the patch writes at another of them (kyaml's merge walks
    /// keys in sorted order: the selector's is written last). When the field's own scalar
    /// in the patch is not `after`, a scalar of the patch that is, under another label
    /// or annotation key, is where the value comes from.
    fn embedded(
        &mut self,
        file: &Path,
        blocks: &[Vec<PathStep>],
        field: &FieldPath,
        after: &str,
    ) -> Option<(usize, usize)> {
        let block = self.block(file, blocks)?;
        let (l, c) = block.docs.iter().flatten().find_map(|doc| {
            let own = steps_in(doc, Vec::new(), field)
                .and_then(|steps| Some((doc.scalar(&steps), doc.value(&steps)?)));
            match own {
                Some((text, at)) if text.is_none_or(|t| t == after) || !shares_values(field) => {
                    Some(at)
                }
                // Written through a value shared with another label or annotation.
                _ if shares_values(field) => SHARING_MAPS
                    .iter()
                    .flat_map(|path| doc.values_under(&keys(path)))
                    .find(|(text, _)| *text == after)
                    .map(|(_, at)| at)
                    .or(own.map(|(_, at)| at)),
                _ => None,
            }
        })?;
        Some((block.header + l, block.indent + c))
    }

    /// The first of `blocks` in `file` that is a literal block scalar, parsed (once).
    fn block(&mut self, file: &Path, blocks: &[Vec<PathStep>]) -> Option<&Block> {
        let index = self.file_index(file);
        let docs = self.docs_at(index)?;
        let (content, (line, column)) = docs.iter().flatten().find_map(|doc| {
            blocks
                .iter()
                .find_map(|block| Some((doc.scalar(block)?, doc.value(block)?)))
        })?;
        if !self.blocks.contains_key(&(index, line)) {
            let content = content.to_string();
            let block = self
                .cached_text(file)
                .and_then(|text| Block::parse(text, line, column, &content));
            self.blocks.insert((index, line), block);
        }
        self.blocks.get(&(index, line))?.as_ref()
    }

    /// Where a generator's option writes the label or annotation `field`
    /// (`metadata.labels.app`): below `base` (a kustomization's generator entry, or
    /// nothing for a config file) in `options`, else in the kustomization's
    /// `generatorOptions`.
    fn generator_option(
        &mut self,
        file: &Path,
        base: Vec<PathStep>,
        field: &FieldPath,
    ) -> Option<(usize, usize)> {
        let (which, key) = option_field(field)?;
        let mut own = base;
        own.extend(keys(&["options", which, key]));
        let shared = keys(&["generatorOptions", which, key]);
        self.documents(file)
            .iter()
            .flatten()
            .find_map(|doc| doc.value(&own).or_else(|| doc.value(&shared)))
    }

    /// Where a value a JSON 6902 patch wrote is written in a block of `file` holding the
    /// operations as YAML (`patch: |`), the first of `blocks` that is one (see
    /// [`Locator::written_in`] for which scalar holds it).
    fn embedded_value(
        &mut self,
        file: &Path,
        blocks: &[Vec<PathStep>],
        after: &str,
        before: Option<&str>,
    ) -> Option<(usize, usize)> {
        let block = self.block(file, blocks)?;
        let scalars: Vec<(&str, (usize, usize))> = block
            .docs
            .iter()
            .flatten()
            .flat_map(|doc| doc.values_under(&[]))
            .collect();
        let (l, c) = holding(&scalars, None, after, before)?;
        Some((block.header + l, block.indent + c))
    }

    /// Where a value is written inside a PatchJson6902Transformer's `jsonOp` text, when
    /// the text is a quoted scalar on one line without escapes (`jsonOp: '[{"op": ...}]'`):
    /// its characters are then the JSON's, at a fixed offset.
    fn json_op_value(
        &mut self,
        file: &Path,
        after: &str,
        before: Option<&str>,
    ) -> Option<(usize, usize)> {
        let key = keys(&["jsonOp"]);
        let (content, (line, column)) = self
            .documents(file)
            .iter()
            .flatten()
            .find_map(|doc| Some((doc.scalar(&key)?.to_string(), doc.value(&key)?)))?;
        let text = self.text(file)?;
        let raw = text
            .lines()
            .nth(line.checked_sub(1)?)?
            .get(column.checked_sub(1)?..)?;
        let quote = raw.chars().next().filter(|q| matches!(q, '\'' | '"'))?;
        // The quoted text must be the content itself: no escape changed its length.
        if raw.get(1..1 + content.len())? != content
            || raw
                .get(1 + content.len()..)
                .is_none_or(|rest| !rest.starts_with(quote))
            || content.contains('\n')
        {
            return None;
        }
        let docs = Located::parse_all(&content);
        let scalars: Vec<(&str, (usize, usize))> = docs
            .iter()
            .flatten()
            .flat_map(|doc| doc.values_under(&[]))
            .collect();
        let (_, c) = holding(&scalars, None, after, before)?;
        Some((line, column + c))
    }

    /// Where the first config of `file` (a `generators:` config) says its kind
    /// (`kind: ConfigMapGenerator`).
    fn config_kind(&mut self, file: &Path) -> Option<(usize, usize)> {
        let key = keys(&["kind"]);
        self.documents(file)
            .iter()
            .flatten()
            .find_map(|doc| doc.value(&key))
    }

    /// Where a PatchJson6902Transformer config writes its operations as one JSON text
    /// (`jsonOp: '[{"op": "add", ...}]'`): a value set from it is written in that text.
    fn json_op_text(&mut self, file: &Path) -> Option<(usize, usize)> {
        let key = keys(&["jsonOp"]);
        self.documents(file)
            .iter()
            .flatten()
            .find_map(|doc| doc.scalar(&key).and_then(|_| doc.value(&key)))
    }

    /// Every document of `file` (by index; `None` for one that does not parse), parsed
    /// on first use.
    fn documents(&mut self, file: &Path) -> &[Option<Located>] {
        let index = self.file_index(file);
        self.docs_at(index).map_or(&[], Vec::as_slice)
    }

    /// The index in `docs` of `file`'s documents, parsed on first use.
    fn file_index(&mut self, file: &Path) -> usize {
        if let Some(index) = self.cached_index(file) {
            return index;
        }
        let docs = match self.text(file) {
            Some(text) => Located::parse_all(text),
            None => Vec::new(),
        };
        self.docs.push(docs);
        let index = self.docs.len() - 1;
        self.files.insert(file.as_os_str().to_owned(), index);
        index + self.shared.map_or(0, |f| f.docs.len())
    }

    /// The documents of `w`'s file a field it wrote may be in: the document `w` names
    /// (or, when it names none, each whose kind and name are the resource's as read).
    fn documents_of(&mut self, w: &Written, kind: StepKind) -> (usize, Vec<usize>) {
        let index = self.file_index(&w.file);
        let docs = self.docs_at(index).map_or(&[][..], Vec::as_slice);
        let range = match w.document {
            Some(i) if i < docs.len() => i..i + 1,
            Some(_) => 0..0,
            None => 0..docs.len(),
        };
        let (kind_key, name_key) = (keys(&["kind"]), keys(&["metadata", "name"]));
        let chosen: Vec<usize> = range
            .clone()
            .filter(|&i| {
                docs[i].as_ref().is_some_and(|doc| match &w.identity {
                    Some((kind, name)) => {
                        doc.scalar(&kind_key) == Some(kind.as_str())
                            && doc.scalar(&name_key) == Some(name.as_str())
                    }
                    None => true,
                })
            })
            .collect();
        // Two documents of one kind and name: the one the resource was read from.
        let chosen = match chosen.get(w.nth) {
            Some(&i) if w.identity.is_some() && chosen.len() > 1 => vec![i],
            _ => chosen,
        };
        // A patch's document names what it patches by its kind and name as the patch
        // was applied (that one first), or by a name it had before (a base's prefix
        // came after it), or names nothing the target is called (`patches` with a
        // `target`): then the file's other documents, in turn.
        if kind == StepKind::Merge {
            let rest: Vec<usize> = range
                .filter(|i| docs[*i].is_some() && !chosen.contains(i))
                .collect();
            return (index, chosen.into_iter().chain(rest).collect());
        }
        (index, chosen)
    }

    /// Where `field` is written in `w` (in the first of the documents `prepared` chose
    /// that has it); else only the file.
    fn value_position(
        &self,
        w: &Written,
        prepared: &Prepared,
        field: &FieldPath,
    ) -> Option<(usize, usize)> {
        prepared.wrote.as_ref().and_then(|(index, chosen)| {
            let docs = self.docs_at(*index)?;
            chosen
                .iter()
                .find_map(|&i| {
                    let doc = docs.get(i)?.as_ref()?;
                    doc.seek_value(seeks(field))
                })
                .or_else(|| {
                    // A resource read from an item of a List (`kind: List`, `items:`).
                    let (kind, name) = w.identity.as_ref()?;
                    docs.iter().flatten().find_map(|doc| {
                        let item = list_item(doc, kind, name)?;
                        doc.value(&steps_in(doc, item, field)?)
                    })
                })
        })
    }
}

/// What [`Locator::prepare`] finds of one step.
pub struct Prepared {
    /// Where the step's entry is written.
    entry_at: Option<Position>,
    /// The file the step wrote (its index in the locator's `docs`), and the documents of
    /// it a field may be in; `None` for a JSON 6902 patch, whose file is only named.
    wrote: Option<(usize, Vec<usize>)>,
}

impl Prepared {
    /// Where the step's entry is written, when it has one.
    pub fn entry_at(&self) -> Option<&Position> {
        self.entry_at.as_ref()
    }
}

fn at(file: PathBuf, pos: Option<(usize, usize)>) -> Position {
    let (line, column) = pos.unwrap_or((0, 0));
    Position { file, line, column }
}

pub(super) fn keys(k: &[&str]) -> Vec<PathStep> {
    k.iter().map(|k| PathStep::Key((*k).to_string())).collect()
}

/// The label or annotation a generator's options may write: `metadata.labels.KEY` or
/// `metadata.annotations.KEY`, as (`labels`, KEY).
fn option_field(field: &FieldPath) -> Option<(&'static str, &str)> {
    match field.0.as_slice() {
        [Part::Key(m), Part::Key(which), Part::Key(key)] if m.as_str() == "metadata" => {
            let which = match which.as_str() {
                "labels" => "labels",
                "annotations" => "annotations",
                _ => return None,
            };
            Some((which, key.as_str()))
        }
        _ => None,
    }
}

impl LocatedStep {
    /// One line saying where the value came from: the position of a value as read, else
    /// the entry and its position (with the written file's position for a patch), else
    /// the step's kind. Paths are shown by `show`.
    pub fn summary(&self, show: &dyn Fn(&Position) -> String) -> String {
        let value_at = self.value_at.as_ref().map(show);
        let entry_at = self.entry_at.as_ref().map(show);
        match (self.kind, &self.actor, entry_at, value_at) {
            (StepKind::Source, _, _, Some(v)) => v,
            (StepKind::Merge, Some(actor), Some(e), Some(v)) => format!("{actor} {e} ({v})"),
            (_, Some(actor), Some(e), _) => format!("{actor} {e}"),
            (kind, _, _, Some(v)) => format!("{} {v}", kind.as_str()),
            (kind, _, _, None) => kind.as_str().to_string(),
        }
    }
}

/// `at` with its file relative to `base` when below it.
pub fn relative(at: &Position, base: &Path) -> String {
    match at.file.strip_prefix(base) {
        Ok(rel) => Position {
            file: rel.to_path_buf(),
            ..at.clone()
        }
        .to_string(),
        Err(_) => at.to_string(),
    }
}

/// The last step that changed `field` or a field below it in the resource `node` (whose
/// record is `p`), located: what `kbuild diff --explain` prints for a changed field.
/// `field` may name list elements by any key (`ports[containerPort=80]`): it is read
/// against `node`.
pub fn why(
    node: &Node,
    p: &Provenance,
    field: &FieldPath,
    loc: &mut Locator<'_>,
) -> Option<LocatedStep> {
    let field = field.canonical(node).unwrap_or_else(|| field.clone());
    let chain = p.chain(&field);
    chain.last().map(|link| loc.locate(link))
}

/// The resource's YAML as kbuild prints it, each line paired with the origin of the
/// field written on it: the last step that set it (`source` for a value as read).
pub fn annotated(
    node: &Node,
    p: &Provenance,
    loc: &mut Locator<'_>,
) -> Vec<(String, Option<LocatedStep>)> {
    let text = crate::yaml::emit::emit_stream_refs(&[node]);
    let mut lines: Vec<(String, Option<LocatedStep>)> =
        text.lines().map(|l| (l.to_string(), None)).collect();
    let Some(doc) = Located::parse(&text, 0) else {
        return lines;
    };
    // Every link of the record at once: looking each leaf up with `Provenance::last`
    // listed them all again per leaf (a tenth of the explain of one Deployment of the
    // medium bench tree, on one thread).
    let lasts = p.lasts();
    for (path, _) in crate::provenance::diff::leaves(node) {
        let Some(link) = lasts.get(&path) else {
            continue;
        };
        let Some((line, _)) = doc.seek_value(seeks(&path)) else {
            continue;
        };
        if let Some(slot) = lines.get_mut(line.saturating_sub(1)) {
            slot.1 = Some(loc.locate(link));
        }
    }
    lines
}

/// `field` as the steps of [`Located::seek_value`]: one walk from the top, an element
/// named by a selector (`[name=web]`) found on the way (probing each element from the
/// top again cost a millisecond of `explain`'s report on a Deployment).
fn seeks(field: &FieldPath) -> impl Iterator<Item = Seek<'_>> {
    field.0.iter().map(|part| match part {
        Part::Key(k) => Seek::Key(k),
        Part::Index(i) => Seek::Index(*i),
        Part::Entry(e) => Seek::Named(&e.0, &e.1),
    })
}

/// The mappings of a patch whose values kustomize may share with other fields (see
/// resource/shared.rs): labels, annotations and selectors.
const SHARING_MAPS: &[&[&str]] = &[
    &["metadata", "labels"],
    &["metadata", "annotations"],
    &["spec", "selector", "matchLabels"],
    &["spec", "selector"],
    &["spec", "template", "metadata", "labels"],
    &["spec", "template", "metadata", "annotations"],
];

/// Whether `field` is a label or annotation value, of the kinds kustomize may share
/// between fields (`metadata.labels.app`, `spec.selector.matchLabels.app`).
fn shares_values(field: &FieldPath) -> bool {
    field.0.iter().rev().nth(1).is_some_and(|p| {
        matches!(p, Part::Key(k) if matches!(k.as_str(), "labels" | "annotations" | "matchLabels" | "selector"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::field;
    use crate::kustomization::files::Place;
    use crate::provenance::{Action, Entry, Step, diff};

    const DEPLOY: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.0
";
    const PATCH: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
";
    const KUST: &str = "resources:\n- ../base\npatches:\n- path: replicas.yaml\n";

    fn files(p: &Path) -> Option<String> {
        match p.to_str()? {
            "base/deploy.yaml" => Some(DEPLOY.into()),
            "prod/replicas.yaml" => Some(PATCH.into()),
            "prod/kustomization.yaml" => Some(KUST.into()),
            _ => None,
        }
    }

    fn record() -> (Node, Provenance) {
        let read = crate::yaml::parse::parse_document(DEPLOY, "d").expect("yaml");
        let mut out = read.clone();
        if let Some(v) = out.get_path_mut(&["spec", "replicas"]) {
            *v = Node::Int(3);
        }
        let mut p = Provenance::default();
        p.record(Step {
            action: std::sync::Arc::new(Action {
                kind: StepKind::Source,
                entry: None,
                wrote: Some(Written {
                    file: "base/deploy.yaml".into(),
                    document: None,
                    identity: Some(("Deployment".into(), "web".into())),
                    nth: 0,
                }),
                transformer: None,
            }),
            changes: Vec::new(),
            created: Some(std::sync::Arc::new(read.clone())),
            renames: Vec::new(),
        });
        p.record(Step {
            action: std::sync::Arc::new(Action {
                kind: StepKind::Merge,
                entry: Some(Entry {
                    file: "prod/kustomization.yaml".into(),
                    place: Place::item("patches", 0),
                }),
                wrote: Some(Written {
                    file: "prod/replicas.yaml".into(),
                    document: Some(0),
                    identity: None,
                    nth: 0,
                }),
                transformer: None,
            }),
            changes: diff::changes(&read, &out),
            created: None,
            renames: Vec::new(),
        });
        (out, p)
    }

    #[test]
    fn a_field_chain_names_files_lines_and_columns() {
        let (_, p) = record();
        let read = files;
        let mut loc = Locator::new(&read);
        let chain = loc.chain(&p, &field("spec.replicas"));
        let shown: Vec<String> = chain
            .iter()
            .map(|s| {
                format!(
                    "{} {} {} {}",
                    s.kind.as_str(),
                    s.entry_at.as_ref().map_or("-".into(), |e| e.to_string()),
                    s.value_at.as_ref().map_or("-".into(), |e| e.to_string()),
                    s.after.as_deref().unwrap_or("-")
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "source - base/deploy.yaml:6:13 1",
                "merge prod/kustomization.yaml:4:3 prod/replicas.yaml:6:13 3"
            ]
        );
        let image = loc.chain(&p, &field("spec.template.spec.containers[name=web].image"));
        assert_eq!(
            image[0]
                .value_at
                .as_ref()
                .map(ToString::to_string)
                .as_deref(),
            Some("base/deploy.yaml:11:16")
        );
    }

    #[test]
    fn each_output_line_gets_its_last_step() {
        let (out, p) = record();
        let read = files;
        let mut loc = Locator::new(&read);
        let lines = annotated(&out, &p, &mut loc);
        let replicas = lines
            .iter()
            .find(|(l, _)| l.trim() == "replicas: 3")
            .and_then(|(_, s)| s.as_ref())
            .expect("annotated");
        assert_eq!(replicas.kind, StepKind::Merge);
        let kind = lines
            .iter()
            .find(|(l, _)| l.starts_with("kind:"))
            .and_then(|(_, s)| s.as_ref())
            .expect("annotated");
        assert_eq!(kind.kind, StepKind::Source);
    }
}
