//! The provenance of a build as JSON: what `kbuild build --provenance FILE` writes and
//! `kbuild explain --output json` prints. The schema is versioned (`schema` below) and
//! documented in docs/src/reference/provenance.md; fields are only ever added within a
//! version.
//!
//! ```json
//! {"schema": "kbuild.dev/provenance/v1",
//!  "resources": [{"resource": "Deployment/prod-web",
//!    "id": {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "", "name": "prod-web"},
//!    "fields": [{"path": "spec.replicas", "value": "3",
//!      "chain": [{"step": "source", "file": "base/deploy.yaml", "line": 6, "column": 13, "after": "1"},
//!                {"step": "merge", "entry": "patches[0]", "entryFile": "prod/kustomization.yaml",
//!                 "entryLine": 4, "entryColumn": 3, "file": "prod/replicas.yaml", "line": 6,
//!                 "column": 13, "before": "1", "after": "3"}]}]}]}
//! ```

use super::report::{Files, LocatedStep, Locator, Prepared, Read};
use crate::provenance::{FieldPath, Link, Provenance, diff};
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use crate::yaml::Node;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::io::Write;

/// The schema's name and version.
pub const SCHEMA: &str = "kbuild.dev/provenance/v1";

/// The whole build: every resource, every leaf field with its chain, as the pretty-printed
/// document `build --provenance` writes, written to `out` as it is made, with the files
/// the positions are found in read by `read`. Serialized resource by resource from typed
/// records (each made, written and dropped in turn): the document of a large build is
/// many times the size of its YAML, and neither a tree of JSON values for all of it nor
/// its whole text is ever held (the text of the medium bench tree's is 24 MB).
///
/// The resources are made on all cores, a batch at a time: each thread has a locator of
/// its own (one that finds a position caches the file it read) and takes a run of
/// neighbouring resources of the batch (those mostly come from the same files), each
/// resource written into the thread's buffer; the buffers are written in order. The
/// bytes are those serde_json's pretty printer writes for the whole document (see
/// `Pretty`): each resource is written straight from its record and the located
/// positions, at its depth, without a typed copy of it or a string per value.
pub fn write_document(resmap: &ResMap, read: &Read, out: &mut dyn Write) -> std::io::Result<()> {
    let names = super::select::Names::of(resmap);
    // serde_json writes a pretty document in many small pieces (each key, quote and
    // indent): a buffer of a known type takes them without a dynamic call each.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    out.write_all(b"{\n  \"schema\": ")?;
    serde_json::to_writer(&mut out, SCHEMA).map_err(std::io::Error::from)?;
    out.write_all(b",\n  \"resources\": [")?;
    let resources: Vec<&Resource> = resmap.iter().collect();
    let files = Files::read(&files_of(&resources), read);
    let threads = rayon::current_num_threads().max(1);
    // Each thread's locator, buffer and a text to print paths in, kept from batch to
    // batch.
    let mut workers: Vec<(Locator<'_>, Vec<u8>, String, Steps)> = (0..threads)
        .map(|_| {
            let loc = Locator::sharing(read, &files);
            (loc, Vec::new(), String::new(), Steps::default())
        })
        .collect();
    for (b, batch) in resources.chunks(BATCH * threads).enumerate() {
        let run = batch.len().div_ceil(threads);
        workers
            .par_iter_mut()
            .zip(batch.par_chunks(run))
            .enumerate()
            .for_each(|(t, ((loc, buf, text, steps), run))| {
                buf.clear();
                for (i, r) in run.iter().enumerate() {
                    // Every element but the document's first follows a comma.
                    if b > 0 || t > 0 || i > 0 {
                        buf.push(b',');
                    }
                    // Two levels deep: in the document's `resources`.
                    buf.extend_from_slice(b"\n    ");
                    let out = &mut Pretty { out: buf, text };
                    write_resource(&names, r, None, loc, steps, out, 2);
                }
            });
        for (_, buf, _, _) in &workers {
            out.write_all(buf)?;
        }
    }
    if !resources.is_empty() {
        out.write_all(b"\n  ")?;
    }
    out.write_all(b"]\n}\n")?;
    out.flush()
}

/// The files the steps of `resources` wrote and were configured in: where their
/// positions are, each once.
fn files_of<'r>(resources: &[&'r Resource]) -> Vec<&'r std::path::Path> {
    // Keyed by the path's bytes: hashing a `Path` goes component by component, which on
    // the medium bench tree's 1,542 resources took milliseconds (the build's paths are
    // clean, so one file has one spelling).
    let mut seen: foldhash::HashSet<&std::ffi::OsStr> = foldhash::HashSet::default();
    let steps = resources
        .iter()
        .filter_map(|r| r.provenance.as_deref())
        .flat_map(|p| &p.steps);
    let mut files = Vec::new();
    for step in steps {
        let entry = step.entry.as_ref().map(|e| e.file.as_path());
        let wrote = step.wrote.as_ref().map(|w| w.file.as_path());
        for file in entry.into_iter().chain(wrote) {
            if seen.insert(file.as_os_str()) {
                files.push(file);
            }
        }
    }
    files
}

/// Resources each thread makes at a time: the buffers of a batch are held until written
/// (the text of a resource's provenance is about ten times its YAML).
const BATCH: usize = 16;

/// One resource: its leaf fields (only those at or below `only`, when given), as the
/// document holds it.
pub fn resource(
    resmap: &ResMap,
    r: &Resource,
    only: Option<&FieldPath>,
    loc: &mut Locator<'_>,
) -> Value {
    let names = super::select::Names::of(resmap);
    let (mut out, mut text) = (Vec::new(), String::new());
    write_resource(
        &names,
        r,
        only,
        loc,
        &mut Steps::default(),
        &mut Pretty::new(&mut out, &mut text),
        0,
    );
    serde_json::from_slice(&out).unwrap_or(Value::Null)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StepOut {
    step: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transformer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<String>,
}

/// Writes one resource of the document, its opening brace where `out` is and its members
/// at `depth + 1`: `resource`, `id`, `origin`, and `fields`, each leaf with its `path`,
/// `value` and `chain` (the members of each step in [`StepOut`]'s order, as `explain
/// --output json` prints a chain).
fn write_resource(
    names: &super::select::Names,
    r: &Resource,
    only: Option<&FieldPath>,
    loc: &mut Locator<'_>,
    steps: &mut Steps,
    out: &mut Pretty<'_>,
    depth: usize,
) {
    let id = r.id();
    let empty = Provenance::default();
    let p = r.provenance.as_deref().unwrap_or(&empty);
    // Each field's links, found in one pass over the record (asking the record per field
    // is quadratic in the size of the resource).
    let mut links: foldhash::HashMap<Cow<'_, FieldPath>, Vec<(usize, Link<'_>)>> =
        foldhash::HashMap::default();
    // The links of the step the resource came from (every leaf it had then) are not
    // made one per leaf when no step renamed a list element (nearly always): the leaf at
    // the same path in what it made is read beside each leaf of the resource.
    let made = p.steps.first().and_then(|s| {
        let node = s.created.as_ref()?;
        p.steps
            .iter()
            .all(|s| s.renames.is_empty())
            .then_some((s, node))
    });
    match made {
        Some(_) => {
            let changes = p.steps.iter().skip(1).map(|s| s.changes.len()).sum();
            links.reserve(changes);
            for (i, step) in p.steps.iter().enumerate().skip(1) {
                for change in &step.changes {
                    let link = Link {
                        step,
                        change: Cow::Borrowed(change),
                    };
                    links
                        .entry(Cow::Borrowed(&change.path))
                        .or_default()
                        .push((i, link));
                }
            }
        }
        None => {
            for (path, i, link) in p.links() {
                links.entry(path).or_default().push((i, link));
            }
        }
    }
    out.open(b'{');
    let mut first = true;
    out.member(depth + 1, &mut first, "resource");
    out.string(&names.spelling(r));
    out.member(depth + 1, &mut first, "id");
    out.open(b'{');
    let mut in_id = true;
    for (key, value) in [
        ("group", id.gvk.group.as_str()),
        ("version", id.gvk.version.as_str()),
        ("kind", id.gvk.kind.as_str()),
        ("namespace", id.namespace.as_str()),
        ("name", id.name.as_str()),
    ] {
        out.member(depth + 2, &mut in_id, key);
        out.string(value);
    }
    out.close(depth + 1, b'}', in_id);
    out.member(depth + 1, &mut first, "origin");
    match p.origin() {
        Some(step) => origin(step, out, depth + 1),
        None => out.raw(b"null"),
    }
    out.member(depth + 1, &mut first, "fields");
    out.open(b'[');
    let mut no_fields = true;
    // What locating needs of the steps only this resource has, found once for all the
    // fields each changed (see `Steps` for the shared ones).
    let mut own: Vec<Option<Prepared>> = p.steps.iter().map(|_| None).collect();
    let mut field = |path: &FieldPath, value: &str, made_leaf: Option<&Node>| {
        if only.is_some_and(|o| !path.starts_with(o)) {
            return;
        }
        let later = match links.is_empty() {
            true => &[][..],
            false => links.get(path).map_or(&[][..], Vec::as_slice),
        };
        let (d, mut in_field) = (depth + 2, true);
        out.element(d, &mut no_fields);
        out.open(b'{');
        out.member(d + 1, &mut in_field, "path");
        out.path(path);
        out.member(d + 1, &mut in_field, "value");
        out.string(value);
        out.member(d + 1, &mut in_field, "chain");
        out.open(b'[');
        let mut no_steps = true;
        // The step the resource came from, when the leaf was there then: set from
        // nothing to the value it made.
        if let Some(((step, _), leaf)) = made.zip(made_leaf) {
            let made_text = leaf_text(leaf);
            let at = steps.prepared(&mut own[0], step, loc);
            let value_at = loc.value_at(at, step, path, None, Some(&made_text));
            out.element(d + 2, &mut no_steps);
            write_step(out, d + 2, step, at, value_at, None, Some(&made_text));
        }
        for (i, link) in later {
            let at = steps.prepared(&mut own[*i], link.step, loc);
            let change = &link.change;
            let (before, after) = (change.before.as_deref(), change.after.as_deref());
            let value_at = loc.value_at(at, link.step, &change.path, before, after);
            out.element(d + 2, &mut no_steps);
            write_step(out, d + 2, link.step, at, value_at, before, after);
        }
        out.close(d + 1, b']', no_steps);
        out.close(d, b'}', in_field);
    };
    match made {
        Some((_, node)) => diff::each_leaf_beside(r.node(), node, &mut |path, value, leaf| {
            field(path, &value, leaf)
        }),
        None => diff::each_leaf(r.node(), &mut |path, value| field(path, &value, None)),
    }
    out.close(depth + 1, b']', no_fields);
    out.close(depth, b'}', first);
}

/// What locating needs of a step ([`Locator::prepare`]) whose action several resources'
/// steps share (a transformer's, at each level: labels, annotations, namespace, prefix),
/// found once for all of them, by the action's address (an action lives as long as the
/// records, which the document only reads). A step of its own (where a resource was
/// read from, each with its own action) is prepared in the resource's `own` slot and
/// dropped with it: kept here, those cost more memory than they saved time.
#[derive(Default)]
struct Steps(foldhash::HashMap<usize, Prepared>);

impl Steps {
    fn prepared<'a>(
        &'a mut self,
        own: &'a mut Option<Prepared>,
        step: &crate::provenance::Step,
        loc: &mut Locator<'_>,
    ) -> &'a Prepared {
        if std::sync::Arc::strong_count(&step.action) > 1 {
            let key = std::sync::Arc::as_ptr(&step.action) as usize;
            self.0.entry(key).or_insert_with(|| loc.prepare(step))
        } else {
            own.get_or_insert_with(|| loc.prepare(step))
        }
    }
}

/// One step of a field's chain, as [`step_out`] makes it: the step's entry, where it is
/// written, where the value is written, the values.
fn write_step(
    out: &mut Pretty<'_>,
    depth: usize,
    step: &crate::provenance::Step,
    prepared: &Prepared,
    value_at: Option<(&std::path::Path, Option<(usize, usize)>)>,
    before: Option<&str>,
    after: Option<&str>,
) {
    let d = depth + 1;
    let mut first = true;
    out.open(b'{');
    out.member(d, &mut first, "step");
    out.string(step.kind.as_str());
    if let Some(entry) = &step.entry {
        out.member(d, &mut first, "entry");
        out.display(&entry.place);
    }
    if let Some(transformer) = &step.transformer {
        out.member(d, &mut first, "transformer");
        out.string(transformer);
    }
    let known = |pos: Option<(usize, usize)>| pos.filter(|(line, _)| *line > 0);
    if let Some(at) = prepared.entry_at() {
        out.member(d, &mut first, "entryFile");
        out.file(&at.file);
        if let Some((line, column)) = known(Some((at.line, at.column))) {
            out.member(d, &mut first, "entryLine");
            out.number(line);
            out.member(d, &mut first, "entryColumn");
            out.number(column);
        }
    }
    if let Some((file, pos)) = value_at {
        out.member(d, &mut first, "file");
        out.file(file);
        if let Some((line, column)) = known(pos) {
            out.member(d, &mut first, "line");
            out.number(line);
            out.member(d, &mut first, "column");
            out.number(column);
        }
    }
    for (key, value) in [("before", before), ("after", after)] {
        if let Some(value) = value {
            out.member(d, &mut first, key);
            out.string(value);
        }
    }
    out.close(depth, b'}', first);
}

/// A leaf's value as [`diff::text`] writes it, without a copy of a string's.
fn leaf_text(leaf: &Node) -> Cow<'_, str> {
    match leaf {
        Node::Str(s) => Cow::Borrowed(s.as_str()),
        other => Cow::Owned(diff::text(other)),
    }
}

/// JSON as serde_json's pretty printer writes it (two spaces an indent, `"key": value`,
/// an empty object or list as `{}` or `[]`), written by hand: the provenance document is
/// many times the size of the build's YAML, and a typed copy of each record serialized
/// through serde cost a string per value and a dynamic call per token. Strings are
/// escaped as serde_json escapes them (the same bytes).
pub(crate) struct Pretty<'o> {
    out: &'o mut Vec<u8>,
    /// A text to print paths and entries in before they are escaped.
    text: &'o mut String,
}

impl<'o> Pretty<'o> {
    fn new(out: &'o mut Vec<u8>, text: &'o mut String) -> Pretty<'o> {
        Pretty { out, text }
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    fn newline(&mut self, depth: usize) {
        // A newline and the indentation of the deepest member the document has (a
        // field's step), cut to `depth`.
        const LINE: &[u8] = b"\n                ";
        match LINE.get(..1 + 2 * depth) {
            Some(line) => self.out.extend_from_slice(line),
            None => {
                self.out.push(b'\n');
                for _ in 0..depth {
                    self.out.extend_from_slice(b"  ");
                }
            }
        }
    }

    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
    }

    /// Closes an object or list at `depth` (`empty`: nothing was written in it).
    fn close(&mut self, depth: usize, bracket: u8, empty: bool) {
        if !empty {
            self.newline(depth);
        }
        self.out.push(bracket);
    }

    /// Starts the member `key` of an object (`first`: none was written yet).
    /// (Keys are the schema's names: nothing in them to escape.)
    fn member(&mut self, depth: usize, first: &mut bool, key: &'static str) {
        debug_assert!(!needs_escape(key.as_bytes()));
        self.element(depth, first);
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\": ");
    }

    /// Starts an element of a list.
    fn element(&mut self, depth: usize, first: &mut bool) {
        if !std::mem::take(first) {
            self.out.push(b',');
        }
        self.newline(depth);
    }

    fn number(&mut self, n: usize) {
        // itoa rather than `write!`: the document writes a line and a column for nearly
        // every step, and the formatting machinery cost five times as much per number.
        self.out
            .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }

    fn string(&mut self, s: &str) {
        if !needs_escape(s.as_bytes()) {
            self.out.reserve(s.len() + 2);
            self.out.push(b'"');
            self.out.extend_from_slice(s.as_bytes());
            self.out.push(b'"');
        } else {
            // Writing into a vector cannot fail.
            let _ = serde_json::to_writer(&mut *self.out, s);
        }
    }

    /// The string `write` writes, made in the scratch text (writing into a string cannot
    /// fail).
    fn written(&mut self, write: impl FnOnce(&mut String) -> std::fmt::Result) {
        let mut text = std::mem::take(self.text);
        text.clear();
        let _ = write(&mut text);
        self.string(&text);
        *self.text = text;
    }

    fn display(&mut self, value: &dyn std::fmt::Display) {
        use std::fmt::Write as _;
        self.written(|text| write!(text, "{value}"));
    }

    fn path(&mut self, path: &FieldPath) {
        self.written(|text| path.write_to(text));
    }

    /// A path as the document writes it (as `Path::display`, without its lossy
    /// conversion for the usual UTF-8 path).
    fn file(&mut self, path: &std::path::Path) {
        match path.to_str() {
            Some(s) => self.string(s),
            None => self.display(&path.display()),
        }
    }
}

/// Whether a JSON string of `bytes` needs an escape (a control character, `"` or `\\`).
/// Every byte is looked at, without stopping at the first to escape: a loop the compiler
/// vectorises (the document writes about a million strings, most of them paths and values
/// of a few dozen bytes; stopping early cost 40% more).
fn needs_escape(bytes: &[u8]) -> bool {
    bytes.iter().fold(false, |any, &b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    })
}

/// A resource's origin (see [`Provenance::origin`]): its kind and file.
fn origin(step: &crate::provenance::Step, out: &mut Pretty<'_>, depth: usize) {
    let file = step
        .entry
        .as_ref()
        .map(|e| &e.file)
        .or(step.wrote.as_ref().map(|w| &w.file));
    let mut first = true;
    out.open(b'{');
    out.member(depth + 1, &mut first, "step");
    out.string(step.kind.as_str());
    if let Some(entry) = &step.entry {
        out.member(depth + 1, &mut first, "entry");
        out.display(&entry.place);
    }
    if let Some(file) = file {
        out.member(depth + 1, &mut first, "file");
        // As `Path::display` writes it, as before.
        out.display(&file.display());
    }
    out.close(depth, b'}', first);
}

fn step_out(s: &LocatedStep) -> StepOut {
    let known = |at: &Option<super::report::Position>| {
        at.as_ref()
            .filter(|a| a.line > 0)
            .map(|a| (a.line, a.column))
    };
    StepOut {
        step: s.kind.as_str(),
        entry: s.actor.clone(),
        transformer: s.transformer.clone(),
        entry_file: s.entry_at.as_ref().map(|a| shown(&a.file)),
        entry_line: known(&s.entry_at).map(|p| p.0),
        entry_column: known(&s.entry_at).map(|p| p.1),
        file: s.value_at.as_ref().map(|a| shown(&a.file)),
        line: known(&s.value_at).map(|p| p.0),
        column: known(&s.value_at).map(|p| p.1),
        before: s.before.clone(),
        after: s.after.clone(),
    }
}

/// A path as the document writes it (as `Path::display`, without its lossy conversion
/// for the usual UTF-8 path: this runs for every step of every field).
fn shown(path: &std::path::Path) -> String {
    path.to_str()
        .map_or_else(|| path.display().to_string(), str::to_owned)
}

/// One step of a chain.
pub fn step(s: &LocatedStep) -> Value {
    serde_json::to_value(step_out(s)).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_escape_finds_every_byte_to_escape_anywhere() {
        for b in 0..=255u8 {
            for len in [1, 7, 8, 9, 16, 17] {
                for at in 0..len {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    let want = b < 0x20 || b == b'"' || b == b'\\';
                    assert_eq!(needs_escape(&bytes), want, "{b:#x} at {at} of {len}");
                }
            }
        }
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        for text in [
            "plain",
            "q\"uote",
            "back\\slash",
            "line\nfeed\t\r",
            "\u{1}\u{1f}\u{7f}",
            "é/ü",
            "",
            "/tmp/kb/medium/envs/prod/kustomization.yaml",
            "sixteen bytes ok\u{1f}",
            "0123456789abcdef\"x",
            "0123456789\\",
            "\u{7f}\u{80}\u{ff} and more than eight",
            "\u{a0}\u{c0}\u{c1}\u{df}\u{e0}\u{9f}\u{2028}!",
        ] {
            let (mut out, mut scratch) = (Vec::new(), String::new());
            Pretty::new(&mut out, &mut scratch).string(text);
            let want = serde_json::to_string(text).expect("prints");
            assert_eq!(String::from_utf8_lossy(&out), want, "{text:?}");
        }
    }

    #[test]
    fn a_build_without_resources_is_an_empty_list() {
        let mut out = Vec::new();
        let read = |_: &std::path::Path| None;
        write_document(&ResMap::default(), &read, &mut out).expect("writes");
        let whole = serde_json::json!({"schema": SCHEMA, "resources": []});
        let want = format!(
            "{}\n",
            serde_json::to_string_pretty(&whole).expect("prints")
        );
        assert_eq!(String::from_utf8_lossy(&out), want);
    }
}
