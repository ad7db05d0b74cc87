//! The localizer: one kustomization at a time, each field that names a file or a
//! kustomization (the fields kustomize v5.8.1's `localizeNativeFields` and
//! `localizeBuiltinPlugins` handle), its entries copied into the destination and the
//! references rewritten.
//!
//! Beyond kustomize, which re-marshals every kustomization file (its fields sorted, its
//! comments gone), kbuild edits each file in place with `kbuild edit`'s editor: only the
//! references that change are rewritten, so the localized tree diffs cleanly against
//! its source.

use super::layout;
use super::plugins;
use crate::edit::document::{Document, Step};
use crate::error::{Error, Result};
use crate::load::{FileKind, Loader, is_remote_file};
use crate::remote::RepoSpec;
use crate::yaml::Node;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// How deep kustomizations may nest (a cycle of local bases stops here, and the
/// verification build then names the cycle).
const MAX_DEPTH: usize = 200;

/// What one localize run has learned and produced.
pub(super) struct Walk {
    /// The scope (a real directory): local kustomizations must be inside it.
    pub(super) scope: PathBuf,
    /// The destination as it will be named (absolute): nothing may be read from it.
    pub(super) dest: PathBuf,
    /// Every file to write, relative to the destination.
    pub(super) out: BTreeMap<PathBuf, Vec<u8>>,
    /// Directories to create even if empty (a copied chart home's).
    pub(super) dirs: BTreeSet<PathBuf>,
    /// The kustomizations localized, by their place in the destination.
    done: BTreeSet<PathBuf>,
}

/// A kustomization being localized.
pub(super) struct Root<'f> {
    pub(super) ldr: Loader<'f>,
    /// Its directory in the destination (relative).
    pub(super) dst: PathBuf,
    /// A local kustomization (not in a git checkout): the scope and destination rules
    /// apply to it.
    pub(super) local: bool,
}

/// One reference to rewrite: where, and its new text.
type Edit = (Vec<Step>, String);

impl Walk {
    pub(super) fn new(scope: PathBuf, dest: PathBuf) -> Walk {
        Walk {
            scope,
            dest,
            out: BTreeMap::new(),
            dirs: BTreeSet::new(),
            done: BTreeSet::new(),
        }
    }

    /// Localizes the kustomization `r` and, through it, everything it names.
    pub(super) fn kustomization<'f>(&mut self, r: &Root<'f>, depth: usize) -> Result<()> {
        if !self.done.insert(r.dst.clone()) {
            return Ok(());
        }
        if depth > MAX_DEPTH {
            return Err(Error::msg(format!(
                "localize: kustomizations nest deeper than {MAX_DEPTH} at '{}' (a cycle?)",
                r.ldr.root().display()
            )));
        }
        let kf = r.ldr.kustomization_file()?;
        let bytes = r.ldr.read_resolved(&kf.real, kf.kind)?;
        // kustomize refuses what it cannot decode (an unknown field) before copying.
        crate::kustomization::decode::decode(kf.path.clone(), bytes.clone())?;
        let text = crate::yaml::utf8(bytes, &kf.path)?;
        let mut doc = Document::parse(text, &kf.path.display().to_string())?;
        let edits = self
            .fields(r, doc.value(), depth)
            .map_err(|e| e.context(format!("localizing '{}'", kf.path.display())))?;
        for (path, new) in edits {
            doc.set(&path, &Node::text(new))?;
        }
        let name = kf.path.file_name().unwrap_or_default();
        self.out
            .insert(r.dst.join(name), doc.text().as_bytes().to_vec());
        Ok(())
    }

    /// The rewrites of every field of the kustomization `k` that names files.
    fn fields<'f>(&mut self, r: &Root<'f>, k: &Node, depth: usize) -> Result<Vec<Edit>> {
        let mut edits = Vec::new();
        let each = |field: &str, f: &mut dyn FnMut(&str, Vec<Step>) -> Result<()>| {
            for (i, entry) in strings(k.get(field)) {
                f(entry, vec![Step::key(field), Step::Index(i)])?;
            }
            Ok::<(), Error>(())
        };
        let mut found: Vec<(Vec<Step>, String, Kind)> = Vec::new();
        if let Some(p) = k
            .get("openapi")
            .and_then(|o| o.get("path"))
            .and_then(Node::as_str)
        {
            found.push((
                vec![Step::key("openapi"), Step::key("path")],
                p.into(),
                Kind::File,
            ));
        }
        for (field, kind) in [
            ("bases", Kind::Root),
            ("components", Kind::Root),
            ("resources", Kind::Resource),
            ("configurations", Kind::File),
            ("crds", Kind::File),
            ("patchesStrategicMerge", Kind::MaybeInline),
            ("generators", Kind::Plugin),
            ("transformers", Kind::Plugin),
            ("validators", Kind::Plugin),
        ] {
            each(field, &mut |entry, path| {
                found.push((path, entry.to_string(), kind));
                Ok(())
            })?;
        }
        for (field, key) in [
            ("patches", "path"),
            ("patchesJson6902", "path"),
            ("replacements", "path"),
            ("helmCharts", "valuesFile"),
            ("helmChartInflationGenerator", "values"),
        ] {
            for (i, item) in items(k.get(field)) {
                if let Some(p) = item.get(key).and_then(Node::as_str) {
                    let path = vec![Step::key(field), Step::Index(i), Step::key(key)];
                    found.push((path, p.into(), Kind::File));
                }
            }
        }
        for (i, chart) in items(k.get("helmCharts")) {
            for (j, p) in strings(chart.get("additionalValuesFiles")) {
                let path = vec![
                    Step::key("helmCharts"),
                    Step::Index(i),
                    Step::key("additionalValuesFiles"),
                    Step::Index(j),
                ];
                found.push((path, p.into(), Kind::File));
            }
        }
        for field in ["configMapGenerator", "secretGenerator"] {
            for (i, g) in items(k.get(field)) {
                let at = |key: &str| vec![Step::key(field), Step::Index(i), Step::key(key)];
                if let Some(p) = g.get("env").and_then(Node::as_str) {
                    found.push((at("env"), p.into(), Kind::File));
                }
                for (key, kind) in [("envs", Kind::File), ("files", Kind::FileSource)] {
                    for (j, p) in strings(g.get(key)) {
                        let mut path = at(key);
                        path.push(Step::Index(j));
                        found.push((path, p.into(), kind));
                    }
                }
            }
        }
        for (path, entry, kind) in found {
            let new = self.entry(r, &entry, kind, depth)?;
            if new != entry {
                edits.push((path, new));
            }
        }
        edits.extend(self.chart_homes(r, k)?);
        Ok(edits)
    }

    /// The new text of one entry.
    fn entry<'f>(&mut self, r: &Root<'f>, entry: &str, kind: Kind, depth: usize) -> Result<String> {
        match kind {
            Kind::File => self.file(r, entry),
            Kind::Root => self.root(r, entry, depth),
            Kind::Resource => self.resource(r, entry, depth),
            Kind::MaybeInline if entry.contains('\n') => Ok(entry.to_string()),
            Kind::MaybeInline => self.file(r, entry),
            Kind::FileSource => self.file_source(r, entry),
            Kind::Plugin => self.plugin(r, entry, depth),
        }
    }

    /// A generator's `files` entry: `path` or `key=path`.
    pub(super) fn file_source<'f>(&mut self, r: &Root<'f>, entry: &str) -> Result<String> {
        match entry.split_once('=') {
            Some((key, path)) => {
                let new = self
                    .file(r, path)
                    .map_err(|e| e.context(format!("invalid file source '{entry}'")))?;
                Ok(format!("{key}={new}"))
            }
            None => self.file(r, entry),
        }
    }

    /// A file entry: a local file (copied to the same place relative to its
    /// kustomization, its path cleaned) or a file over http(s) (fetched into
    /// `localized-files/<host>/<path>`).
    pub(super) fn file<'f>(&mut self, r: &Root<'f>, entry: &str) -> Result<String> {
        if entry.is_empty() {
            return Ok(String::new());
        }
        let (loc, bytes) = if is_remote_file(entry) {
            self.refuse_existing_files_dir(r, "file", entry)?;
            let (_, bytes) = r.ldr.read(entry, "file")?;
            (layout::remote_file(entry), bytes)
        } else {
            let (real, kind) = r.ldr.resolve_file(entry, "file").map_err(|e| match &e {
                // kustomize's localize reads under LoadRestrictionsRootOnly whatever the
                // build allows: the restrictor's hint (a build flag) does not apply.
                Error::Restricted(x) => outside_root(entry, &x.real, &x.root),
                _ => e,
            })?;
            if r.local && real.parent().is_some_and(|d| d.starts_with(&self.dest)) {
                return Err(Error::msg(format!(
                    "file '{entry}' at '{}' enters localize destination '{}'",
                    real.display(),
                    self.dest.display()
                )));
            }
            let bytes = r.ldr.read_resolved(&real, kind)?;
            let Ok(loc) = real.strip_prefix(r.ldr.root()) else {
                return Err(outside_root(entry, &real, r.ldr.root()));
            };
            (loc.to_path_buf(), bytes)
        };
        self.out.insert(r.dst.join(&loc), bytes);
        Ok(path_text(&loc))
    }

    /// A `resources` entry: a file (local, or over http(s) when its body holds
    /// resources), else a kustomization (a local directory or a git repository), as
    /// kustomize tries them.
    fn resource<'f>(&mut self, r: &Root<'f>, entry: &str, depth: usize) -> Result<String> {
        let is_url = is_remote_file(entry);
        let repo = RepoSpec::parse(entry).is_ok();
        if !is_url && (!repo || r.ldr.kind_of(entry) == Some(FileKind::File)) {
            return match r.ldr.kind_of(entry) {
                Some(FileKind::Dir) => self.root(r, entry, depth),
                _ => self.file(r, entry),
            };
        }
        let mut file_error = None;
        if is_url {
            match r.ldr.read(entry, "resource") {
                Ok((name, bytes)) => match crate::resource::parse::parse_resources(bytes, &name) {
                    Ok(_) => return self.file(r, entry),
                    Err(e) => file_error = Some(e),
                },
                Err(e) => file_error = Some(e),
            }
        }
        match (repo, file_error) {
            (true, None) => self.root(r, entry, depth),
            (true, Some(f)) => self.root(r, entry, depth).map_err(|e| {
                Error::msg(format!(
                    "could not localize path '{}' as file: {}; could not localize path '{}' as directory: {}",
                    crate::remote::redact(entry),
                    f.report(),
                    crate::remote::redact(entry),
                    e.report()
                ))
            }),
            (false, Some(f)) => Err(f),
            (false, None) => self.file(r, entry),
        }
    }

    /// A kustomization entry (`bases`, `components`, a directory in `resources`): a
    /// local directory, copied to the same place relative to the one naming it, or a
    /// git repository at a ref, under `localized-files/<host>/<repo>/<ref>/<path>`.
    pub(super) fn root<'f>(&mut self, r: &Root<'f>, entry: &str, depth: usize) -> Result<String> {
        if entry.is_empty() {
            return Ok(String::new());
        }
        let (child, loc) = match RepoSpec::parse(entry) {
            Ok(spec) => {
                if spec.git_ref.is_empty() {
                    return Err(missing_ref(entry));
                }
                self.refuse_existing_files_dir(r, "root", entry)?;
                let not_dir = || Error::msg(format!("'{entry}' is not a git repository"));
                let real = r.ldr.remote_base(entry)?.ok_or_else(not_dir)?;
                let checkout = r.ldr.files().remote().clone_containing(&real);
                let checkout = checkout.ok_or_else(not_dir)?;
                let in_repo = real.strip_prefix(&checkout).unwrap_or(Path::new(""));
                let loc = layout::remote_root(&spec, in_repo)?;
                let child = Root {
                    ldr: r.ldr.child(real),
                    dst: r.dst.join(&loc),
                    local: false,
                };
                (child, loc)
            }
            Err(_) => {
                let (real, kind) = r.ldr.resolve(entry, "kustomization directory")?;
                if kind != crate::load::canonical::EntryType::Dir {
                    return Err(Error::msg(format!(
                        "'{entry}' ({}) is not a directory",
                        real.display()
                    )));
                }
                if r.local {
                    self.check_local_root(&real)?;
                } else {
                    r.ldr.check_base(&real, entry)?;
                }
                let loc = layout::relative(r.ldr.root(), &real);
                let dst = layout::join_inside(&r.dst, &loc).ok_or_else(|| {
                    Error::msg(format!(
                        "root '{}' would be copied above the localize destination",
                        real.display()
                    ))
                })?;
                let child = Root {
                    ldr: r.ldr.child(real),
                    dst,
                    local: r.local,
                };
                (child, loc)
            }
        };
        self.kustomization(&child, depth + 1).map_err(|e| {
            e.context(format!(
                "unable to localize root '{}'",
                crate::remote::redact(entry)
            ))
        })?;
        Ok(path_text(&loc))
    }

    /// kustomize's refusals for a local kustomization: outside the scope, or in the
    /// destination.
    fn check_local_root(&self, real: &Path) -> Result<()> {
        if !real.starts_with(&self.scope) {
            return Err(Error::msg(format!(
                "root '{}' outside localize scope '{}'",
                real.display(),
                self.scope.display()
            )));
        }
        if real.starts_with(&self.dest) {
            return Err(Error::msg(format!(
                "root '{}' references into localize destination '{}'",
                real.display(),
                self.dest.display()
            )));
        }
        Ok(())
    }

    /// kustomize refuses to localize a remote entry of a kustomization whose directory
    /// already has a `localized-files` (it would mix with what is copied there).
    fn refuse_existing_files_dir<'f>(&self, r: &Root<'f>, what: &str, entry: &str) -> Result<()> {
        if r.ldr.kind_of(layout::LOCALIZE_DIR).is_some() {
            return Err(Error::msg(format!(
                "{} already contains {} needed to store {what} '{}'",
                r.ldr.root().display(),
                layout::LOCALIZE_DIR,
                crate::remote::redact(entry)
            )));
        }
        Ok(())
    }

    /// A `generators`/`transformers`/`validators` entry: inline configs and config
    /// files have their builtin plugins' file fields localized; a directory is a
    /// kustomization of configs.
    fn plugin<'f>(&mut self, r: &Root<'f>, entry: &str, depth: usize) -> Result<String> {
        if entry.contains('\n') {
            return plugins::localize_text(self, r, entry, "inline plugin config");
        }
        if !is_remote_file(entry) && r.ldr.kind_of(entry) == Some(FileKind::Dir) {
            return self.root(r, entry, depth);
        }
        let new = self.file(r, entry)?;
        let at = r.dst.join(&new);
        if let Some(bytes) = self.out.get(&at).cloned() {
            let text = crate::yaml::utf8(bytes, Path::new(entry))?;
            let localized = plugins::localize_text(self, r, &text, entry)?;
            self.out.insert(at, localized.into_bytes());
        }
        Ok(new)
    }

    /// `helmGlobals.chartHome`, and the default `charts` when `helmCharts` is used
    /// without it, copied whole (kustomize's `copyChartHome`: helm reads the whole
    /// chart).
    fn chart_homes<'f>(&mut self, r: &Root<'f>, k: &Node) -> Result<Vec<Edit>> {
        let mut edits = Vec::new();
        let home = k
            .get("helmGlobals")
            .and_then(|g| g.get("chartHome"))
            .and_then(Node::as_str);
        let charts = !items(k.get("helmCharts")).is_empty();
        match home {
            Some(h) if !h.is_empty() => {
                let new = self.copy_chart_home(r, h)?;
                if new != h {
                    edits.push((vec![Step::key("helmGlobals"), Step::key("chartHome")], new));
                }
            }
            _ if charts => {
                self.copy_chart_home(r, "charts")?;
            }
            _ => {}
        }
        for (i, g) in items(k.get("helmChartInflationGenerator")) {
            match g.get("chartHome").and_then(Node::as_str) {
                Some(h) if !h.is_empty() => {
                    let new = self.copy_chart_home(r, h)?;
                    if new != h {
                        let path = vec![
                            Step::key("helmChartInflationGenerator"),
                            Step::Index(i),
                            Step::key("chartHome"),
                        ];
                        edits.push((path, new));
                    }
                }
                _ => {
                    self.copy_chart_home(r, "charts")?;
                }
            }
        }
        Ok(edits)
    }

    /// Copies the chart home `home` (when it exists) to the same place in the
    /// destination; symbolic links inside it are left out, as kustomize does.
    pub(super) fn copy_chart_home<'f>(&mut self, r: &Root<'f>, home: &str) -> Result<String> {
        if Path::new(home).is_absolute() {
            return Err(Error::msg(format!(
                "unable to copy home '{home}': absolute path '{home}' not handled in alpha"
            )));
        }
        if r.ldr.kind_of(home).is_none() {
            return Ok(home.to_string());
        }
        let (real, _) = r.ldr.resolve(home, "chart home")?;
        r.ldr.check(&real, home)?;
        let loc = real
            .strip_prefix(r.ldr.root())
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let dst = r.dst.join(&loc);
        for item in walkdir::WalkDir::new(&real).follow_links(false) {
            let item =
                item.map_err(|e| Error::msg(format!("unable to copy chart home '{home}': {e}")))?;
            let Ok(rel) = item.path().strip_prefix(&real) else {
                continue;
            };
            let ty = item.file_type();
            if ty.is_dir() {
                self.dirs.insert(dst.join(rel));
            } else if ty.is_file() {
                let bytes = crate::load::read_file(item.path())?;
                self.out.insert(dst.join(rel), bytes);
            }
        }
        Ok(if home == path_text(&loc) {
            home.to_string()
        } else {
            path_text(&loc)
        })
    }
}

/// What an entry names.
#[derive(Clone, Copy)]
enum Kind {
    File,
    Root,
    Resource,
    /// A strategic-merge patch: inline YAML or a file.
    MaybeInline,
    FileSource,
    Plugin,
}

/// The error for a repository entry without `ref=` (kustomize needs a fixed version).
pub(super) fn missing_ref(entry: &str) -> Error {
    Error::msg(format!(
        "localize remote root '{}' missing ref query string parameter",
        crate::remote::redact(entry)
    ))
}

/// The refusal of a file outside the directory of the kustomization naming it.
fn outside_root(entry: &str, real: &Path, root: &Path) -> Error {
    Error::msg(format!(
        "file '{entry}' at '{}' is outside its kustomization's directory '{}'; localize copies only files in or below it",
        real.display(),
        root.display()
    ))
}

/// The string items of a sequence, with their indices.
fn strings(node: Option<&Node>) -> Vec<(usize, &str)> {
    node.and_then(Node::as_seq)
        .map(|s| {
            s.iter()
                .enumerate()
                .filter_map(|(i, n)| n.as_str().map(|t| (i, t)))
                .collect()
        })
        .unwrap_or_default()
}

/// The items of a sequence, with their indices.
fn items(node: Option<&Node>) -> Vec<(usize, &Node)> {
    node.and_then(Node::as_seq)
        .map(|s| s.iter().enumerate().collect())
        .unwrap_or_default()
}

/// A relative path as a kustomization writes it ('/'-separated).
fn path_text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}
