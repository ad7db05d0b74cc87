//! `kbuild diff`: compares two sets of resources (each a kustomization build,
//! a YAML file or standard input) resource by resource.
//!
//! Resources are paired by group, kind, namespace and name (the version is
//! left out, so an `apps/v1beta1` to `apps/v1` move shows as a change). When a
//! build renamed them (namePrefix/nameSuffix, a namespace, generator hashes),
//! the ids they had when loaded pair them instead, so comparing a base with
//! an overlay shows what the overlay did to each base resource. A plain YAML
//! side has no such history: its current ids are matched against the other
//! side's original ids.
//!
//! The module computes the result and formats it as text (colors are an
//! argument: deciding whether the output is a terminal is the binary's job)
//! or JSON.

mod explain;
pub mod generated;
mod ignore_field;
pub mod inputs;
mod markdown;
mod redact;

pub use markdown::report as markdown_report;
pub mod kubectl_dirs;

use crate::build::{BuildOptions, build};
use crate::error::{Error, Result};
use crate::resource::Resource;
use crate::resource::id::ResId;
use crate::resource::parse::parse_resources;
use crate::yaml::{Node, emit};
use ignore_field::{FieldPath, remove_field};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

/// One side of a diff: where it came from and its resources.
#[derive(Debug)]
pub struct Side {
    /// What the user named (`base`, `render.yaml`, `-`).
    pub label: String,
    /// The resources, in the order the build or file gave them.
    pub resources: Vec<Resource>,
}

/// Reads one side: `-` reads a YAML stream from `stdin`, a directory is
/// built as a kustomization, anything else is read as a YAML file.
pub fn load_side(spec: &str, options: &BuildOptions, stdin: &mut dyn Read) -> Result<Side> {
    let resources = if spec == "-" {
        let mut bytes = Vec::new();
        stdin.read_to_end(&mut bytes).map_err(|e| Error::Io {
            path: "<stdin>".into(),
            source: e,
        })?;
        parse_resources(bytes, Path::new("<stdin>"))?
    } else if !Path::new(spec).exists() && crate::remote::RepoSpec::parse(spec).is_ok() {
        // A git URL, built as `kbuild build URL` builds it.
        build(Path::new(spec), options)?.resources
    } else {
        let path = Path::new(spec);
        let meta = std::fs::metadata(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::msg(format!(
                    "'{spec}' does not exist (expected a kustomization directory, a YAML file or '-')"
                ))
            } else {
                Error::Io {
                    path: path.to_path_buf(),
                    source: e,
                }
            }
        })?;
        if meta.is_dir() {
            build(path, options)?.resources
        } else {
            parse_resources(inputs::read_named(path)?, path)?
        }
    };
    Ok(Side {
        label: spec.to_string(),
        resources,
    })
}

/// What to leave out of the comparison.
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    /// Field paths to drop from both sides before comparing, e.g.
    /// `metadata.annotations.x`. A dotted path as `kbuild diff --ignore-field` takes it.
    pub ignore_fields: Vec<String>,
    /// Compare generated names without their hash suffix (`app-config-5tb2m7h8f9`
    /// reads as `app-config`), in names and in every reference to them.
    pub ignore_hash_suffix: bool,
    /// Replace Secret `data`/`stringData` values with a short hash of each (for reports
    /// posted where others read them).
    pub redact_secrets: bool,
}

/// How a resource compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Paired, and different as compared (ignored fields left out).
    Changed,
    /// Paired, and equal as compared.
    Unchanged,
    /// Only on side B.
    Added,
    /// Only on side A.
    Removed,
}

/// One resource, or one pair of resources, of the comparison.
#[derive(Clone, Debug)]
pub struct Entry {
    /// How the resource, or pair, compares.
    pub status: Status,
    /// The resource on side A (absent when added).
    pub old: Option<ResId>,
    /// The resource on side B (absent when removed).
    pub new: Option<ResId>,
    /// YAML of the A resource as compared (ignored fields removed).
    pub old_text: String,
    /// YAML of the B resource as compared.
    pub new_text: String,
    /// Paths of the fields that differ (changed entries only), e.g.
    /// `spec.template.spec.containers[name=web].image`.
    pub paths: Vec<String>,
    /// With `--explain`: for changed fields, where the value came from (see explain.rs).
    pub why: Vec<(String, String)>,
}

/// The result of a comparison.
#[derive(Clone, Debug)]
pub struct DiffResult {
    /// Side A's label, as the user named it.
    pub old_label: String,
    /// Side B's label, as the user named it.
    pub new_label: String,
    /// Pairs in side A's order, then resources only in B, in B's order.
    pub entries: Vec<Entry>,
}

/// Counts per status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Pairs that differ.
    pub changed: usize,
    /// Resources only on side B.
    pub added: usize,
    /// Resources only on side A.
    pub removed: usize,
    /// Pairs that are equal as compared.
    pub unchanged: usize,
}

/// Compares two sides.
pub fn diff(old: &Side, new: &Side, options: &DiffOptions) -> Result<DiffResult> {
    let paths = options
        .ignore_fields
        .iter()
        .map(|p| FieldPath::parse(p))
        .collect::<Result<Vec<_>>>()?;
    let pairs = pair(&old.resources, &new.resources, options.ignore_hash_suffix);
    let hashed = if options.ignore_hash_suffix {
        hashed_names(old.resources.iter().chain(&new.resources))
    } else {
        HashMap::new()
    };
    let prepare = |r: &Resource| {
        let mut node = r.node().clone();
        if options.redact_secrets {
            redact::redact_secret(&mut node);
        }
        for p in &paths {
            remove_field(&mut node, &p.0);
        }
        if !hashed.is_empty() {
            replace_names(&mut node, &hashed);
        }
        node
    };
    let mut entries = Vec::new();
    let mut new_paired = vec![false; new.resources.len()];
    for (i, res) in old.resources.iter().enumerate() {
        let a = prepare(res);
        let entry = match pairs[i] {
            Some(j) => {
                new_paired[j] = true;
                let b = prepare(&new.resources[j]);
                let mut changed = Vec::new();
                changed_paths(Some(&a), Some(&b), &mut String::new(), &mut changed);
                Entry {
                    status: if changed.is_empty() {
                        Status::Unchanged
                    } else {
                        Status::Changed
                    },
                    old: Some(res.id()),
                    new: Some(new.resources[j].id()),
                    old_text: yaml(&a),
                    new_text: yaml(&b),
                    paths: changed,
                    why: Vec::new(),
                }
            }
            None => Entry {
                status: Status::Removed,
                old: Some(res.id()),
                new: None,
                old_text: yaml(&a),
                new_text: String::new(),
                paths: Vec::new(),
                why: Vec::new(),
            },
        };
        entries.push(entry);
    }
    for (j, res) in new.resources.iter().enumerate() {
        if !new_paired[j] {
            entries.push(Entry {
                status: Status::Added,
                old: None,
                new: Some(res.id()),
                old_text: String::new(),
                new_text: yaml(&prepare(res)),
                paths: Vec::new(),
                why: Vec::new(),
            });
        }
    }
    Ok(DiffResult {
        old_label: old.label.clone(),
        new_label: new.label.clone(),
        entries,
    })
}

fn yaml(node: &Node) -> String {
    let mut s = String::new();
    emit::emit_document(node, &mut s);
    s
}

// ---------------------------------------------------------------------------
// Pairing

/// Pairing key: group, kind, namespace ("" is "default") and name. The
/// version is left out on purpose.
type Key = (String, String, String, String);

fn key(id: &ResId) -> Key {
    (
        id.gvk.group.to_string(),
        id.gvk.kind.to_string(),
        id.effective_namespace().to_string(),
        id.name.to_string(),
    )
}

/// The ids a resource had, current first, then original, then the others.
fn all_ids(r: &Resource) -> Vec<ResId> {
    let mut ids = vec![r.id(), r.orig_id()];
    ids.extend(r.prev_ids.iter().cloned());
    ids
}

/// For each resource of `old`, the index of its partner in `new`. Passes run
/// from the most to the least certain, each over what is still unpaired:
/// current ids; original ids; any id either side ever had (a plain YAML side
/// against a build); and, with `strip_hash`, names without a hash suffix.
fn pair(old: &[Resource], new: &[Resource], strip_hash: bool) -> Vec<Option<usize>> {
    let mut result = vec![None; old.len()];
    let mut taken = vec![false; new.len()];
    let current = |r: &Resource| vec![key(&r.id())];
    let original = |r: &Resource| vec![key(&r.orig_id())];
    let any = |r: &Resource| all_ids(r).iter().map(key).collect();
    pair_pass(old, new, &mut result, &mut taken, &current);
    pair_pass(old, new, &mut result, &mut taken, &original);
    pair_pass(old, new, &mut result, &mut taken, &any);
    if strip_hash {
        let stripped = |r: &Resource| {
            all_ids(r)
                .iter()
                .map(|id| {
                    let mut k = key(id);
                    k.3 = strip_hash_suffix(&k.3).to_string();
                    k
                })
                .collect()
        };
        pair_pass(old, new, &mut result, &mut taken, &stripped);
    }
    result
}

fn pair_pass(
    old: &[Resource],
    new: &[Resource],
    result: &mut [Option<usize>],
    taken: &mut [bool],
    keys: &dyn Fn(&Resource) -> Vec<Key>,
) {
    let mut index: HashMap<Key, VecDeque<usize>> = HashMap::new();
    for (j, r) in new.iter().enumerate() {
        if !taken[j] {
            for k in keys(r) {
                let slot = index.entry(k).or_default();
                if slot.back() != Some(&j) {
                    slot.push_back(j);
                }
            }
        }
    }
    for (i, r) in old.iter().enumerate() {
        if result[i].is_some() {
            continue;
        }
        'keys: for k in keys(r) {
            if let Some(candidates) = index.get_mut(&k) {
                while let Some(j) = candidates.pop_front() {
                    if !taken[j] {
                        taken[j] = true;
                        result[i] = Some(j);
                        break 'keys;
                    }
                }
            }
        }
    }
}

/// Drops a kustomize name hash (`-` and ten characters of its alphabet) from
/// the end of a name.
pub fn strip_hash_suffix(name: &str) -> &str {
    // kustomize encodes the hash so that it has no vowels and no look-alike
    // characters: only these sixteen can appear.
    const ALPHABET: &[u8] = b"bcdfghkmt2456789";
    let bytes = name.as_bytes();
    if bytes.len() > 11
        && bytes[bytes.len() - 11] == b'-'
        && bytes[bytes.len() - 10..]
            .iter()
            .all(|c| ALPHABET.contains(c))
    {
        &name[..name.len() - 11]
    } else {
        name
    }
}

/// Names of ConfigMaps and Secrets that end in a hash, mapped to the name
/// without it.
fn hashed_names<'r>(resources: impl Iterator<Item = &'r Resource>) -> HashMap<String, String> {
    resources
        .filter(|r| matches!(r.kind().as_str(), "ConfigMap" | "Secret"))
        .filter_map(|r| {
            let name = r.name();
            let stripped = strip_hash_suffix(&name);
            (stripped.len() != name.len()).then(|| (name.clone(), stripped.to_string()))
        })
        .collect()
}

/// Replaces every string that is a key of `names` (a name itself and every reference to
/// it) with its value: hashed names with plain ones, old names with new ones.
fn replace_names(node: &mut Node, names: &HashMap<String, String>) {
    match node {
        Node::Str(s) => {
            if let Some(new) = names.get(s.as_str()) {
                *s = new.as_str().into();
            }
        }
        Node::Seq(items) => items.iter_mut().for_each(|n| replace_names(n, names)),
        Node::Map(m) => m.values_mut().for_each(|n| replace_names(n, names)),
        _ => {}
    }
}

/// Collects the paths where `a` and `b` differ. A field present on one side
/// only is reported at its own path, not below.
fn changed_paths(a: Option<&Node>, b: Option<&Node>, path: &mut String, out: &mut Vec<String>) {
    match (a, b) {
        (Some(Node::Map(x)), Some(Node::Map(y))) => {
            let mut keys: Vec<&crate::yaml::map::Key> = x.keys().collect();
            keys.extend(y.keys().filter(|k| !x.contains_key(k)));
            for k in keys {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                changed_paths(x.get(k), y.get(k), path, out);
                path.truncate(len);
            }
        }
        (Some(Node::Seq(x)), Some(Node::Seq(y))) => match (names(x), names(y)) {
            // Lists of named items (containers, ports, env): pair by name,
            // so inserting one does not report every later element.
            (Some(nx), Some(ny)) => {
                let order = nx
                    .iter()
                    .map(|(n, _)| *n)
                    .chain(ny.iter().map(|(n, _)| *n).filter(|n| !nx.contains_key(n)));
                for name in order.collect::<Vec<_>>() {
                    let len = path.len();
                    let _ = write!(path, "[name={name}]");
                    changed_paths(named(&nx, x, name), named(&ny, y, name), path, out);
                    path.truncate(len);
                }
            }
            _ => {
                for i in 0..x.len().max(y.len()) {
                    let len = path.len();
                    let _ = write!(path, "[{i}]");
                    changed_paths(x.get(i), y.get(i), path, out);
                    path.truncate(len);
                }
            }
        },
        (x, y) if x == y => {}
        _ => out.push(if path.is_empty() {
            ".".to_string()
        } else {
            path.clone()
        }),
    }
}

/// The element called `name`.
fn named<'n>(index: &NameIndex<'_>, items: &'n [Node], name: &str) -> Option<&'n Node> {
    index.get(name).map(|&i| &items[i])
}

/// The elements of a list by `name`, in list order, with their indexes.
type NameIndex<'n> = indexmap::IndexMap<&'n str, usize, foldhash::fast::RandomState>;

/// The `name` of each element, when every element is a mapping with a distinct string
/// name; with each element's index. Hashed: a list of 100,000 named elements is compared
/// in linear time (a scan per name took a minute for 40,000 containers).
fn names(items: &[Node]) -> Option<NameIndex<'_>> {
    let mut out = NameIndex::with_capacity_and_hasher(items.len(), Default::default());
    for (i, n) in items.iter().enumerate() {
        let name = n.get("name").and_then(Node::as_str)?;
        if out.insert(name, i).is_some() {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

// ---------------------------------------------------------------------------
// Output

/// ANSI styles for the text output.
#[derive(Clone, Copy)]
struct Style {
    color: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// `apps/v1 Deployment ns/name -> ns2/name2` when the pair was renamed.
fn pair_title(e: &Entry) -> String {
    match (&e.old, &e.new) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) if a.gvk == b.gvk => {
            let mut short = String::new();
            if !b.namespace.is_empty() {
                short = format!("{}/", b.namespace);
            }
            short.push_str(&b.name);
            format!("{a} -> {short}")
        }
        (Some(a), Some(b)) => format!("{a} -> {b}"),
        (Some(a), None) | (None, Some(a)) => a.to_string(),
        (None, None) => String::new(),
    }
}

impl DiffResult {
    /// Counts per status.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for e in &self.entries {
            match e.status {
                Status::Changed => s.changed += 1,
                Status::Unchanged => s.unchanged += 1,
                Status::Added => s.added += 1,
                Status::Removed => s.removed += 1,
            }
        }
        s
    }

    /// Whether anything differs (diff(1)'s exit status 1).
    pub fn has_differences(&self) -> bool {
        self.entries.iter().any(|e| e.status != Status::Unchanged)
    }

    /// The human-readable report: a header and a unified diff per changed
    /// resource, the added and removed resources with their content (a diff
    /// against nothing), and the summary line. With `stat`, one line per
    /// changed, added or removed resource instead of the diffs.
    pub fn to_text(&self, color: bool, stat: bool) -> String {
        let st = Style { color };
        let budget = Budget::new();
        let mut out = String::new();
        for e in self.entries.iter().filter(|e| e.status == Status::Changed) {
            let n = e.paths.len();
            let fields = format!("{n} field{}", if n == 1 { "" } else { "s" });
            if stat {
                let _ = writeln!(out, "{} {} ({fields})", st.paint("33", "~"), pair_title(e));
                continue;
            }
            let _ = writeln!(
                out,
                "{}",
                st.paint("1", &format!("~ {} ({fields})", pair_title(e)))
            );
            for (path, why) in &e.why {
                let _ = writeln!(out, "  {}", st.paint("2", &format!("{path} <- {why}")));
            }
            out.push_str(&self.unified(e, st, &budget));
        }
        let added = self.entries.iter().filter(|e| e.status == Status::Added);
        let removed = self.entries.iter().filter(|e| e.status == Status::Removed);
        for (e, sign, code) in added
            .map(|e| (e, "+", "32"))
            .chain(removed.map(|e| (e, "-", "31")))
        {
            let _ = writeln!(
                out,
                "{}",
                st.paint(code, &format!("{sign} {}", pair_title(e)))
            );
            if !stat {
                out.push_str(&self.unified(e, st, &budget));
            }
        }
        let s = self.summary();
        let _ = writeln!(
            out,
            "{} changed, {} added, {} removed, {} unchanged",
            s.changed, s.added, s.removed, s.unchanged
        );
        out
    }

    fn unified(&self, e: &Entry, st: Style, budget: &Budget) -> String {
        // The side a resource is missing from is /dev/null, as in diff(1).
        let head = |label: &str, id: &Option<ResId>| match id {
            Some(id) => format!("{label}: {id}"),
            None => "/dev/null".to_string(),
        };
        let text = unified_diff_until(
            &e.old_text,
            &e.new_text,
            &head(&self.old_label, &e.old),
            &head(&self.new_label, &e.new),
            budget.next_deadline(),
        );
        if !st.color {
            return text;
        }
        let mut out = String::with_capacity(text.len() + 64);
        for line in text.split_inclusive('\n') {
            let body = line.strip_suffix('\n').unwrap_or(line);
            let code = if body.starts_with("+++") || body.starts_with("---") {
                "1"
            } else if body.starts_with('+') {
                "32"
            } else if body.starts_with('-') {
                "31"
            } else if body.starts_with("@@") {
                "36"
            } else {
                ""
            };
            if code.is_empty() {
                out.push_str(line);
            } else {
                out.push_str(&st.paint(code, body));
                out.push('\n');
            }
        }
        out
    }

    /// The machine-readable report.
    pub fn to_json(&self) -> serde_json::Value {
        let budget = Budget::new();
        let id = |id: &Option<ResId>| match id {
            Some(id) => serde_json::json!({
                "apiVersion": id.gvk.api_version(),
                "kind": id.gvk.kind,
                "namespace": id.namespace,
                "name": id.name,
            }),
            None => serde_json::Value::Null,
        };
        let resources: Vec<serde_json::Value> = self
            .entries
            .iter()
            .map(|e| {
                let mut entry = serde_json::json!({
                    "status": e.status,
                    "old": id(&e.old),
                    "new": id(&e.new),
                    "changedFields": e.paths,
                    // The same unified diff as the text report (empty when unchanged).
                    "diff": self.unified(e, Style { color: false }, &budget),
                });
                // With --explain only: where each changed field came from.
                if !e.why.is_empty() {
                    entry["explain"] = e
                        .why
                        .iter()
                        .map(|(path, why)| serde_json::json!({"path": path, "from": why}))
                        .collect();
                }
                entry
            })
            .collect();
        serde_json::json!({
            "old": self.old_label,
            "new": self.new_label,
            "summary": self.summary(),
            "resources": resources,
        })
    }
}

/// How long one text diff (a resource's, or an edited file's) may search for the smallest
/// diff.
const DIFF_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long the text diffs of one report may search in all: past it, each changed region
/// shows as removed and added lines at once. Each resource's diff may take
/// [`DIFF_TIMEOUT`], so without it a stream of many large resources changed throughout
/// (50 ConfigMaps of 4,000 changed keys took 13.6 s; ten times as many, two minutes)
/// would take that long for each.
const REPORT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The search time left to the text diffs of one report.
struct Budget {
    end: std::time::Instant,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            end: std::time::Instant::now() + REPORT_TIMEOUT,
        }
    }

    /// When the next text diff must stop searching.
    fn next_deadline(&self) -> std::time::Instant {
        (std::time::Instant::now() + DIFF_TIMEOUT).min(self.end)
    }
}

/// A unified diff of two texts with three lines of context, `---`/`+++`
/// headers named `old_name` and `new_name`; empty when they are equal.
pub fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let deadline = std::time::Instant::now() + DIFF_TIMEOUT;
    unified_diff_until(old, new, old_name, new_name, deadline)
}

/// [`unified_diff`], searching for the smallest diff until `deadline`.
fn unified_diff_until(
    old: &str,
    new: &str,
    old_name: &str,
    new_name: &str,
    deadline: std::time::Instant,
) -> String {
    if old == new {
        return String::new();
    }
    // Myers' algorithm takes time quadratic in the differing lines: two large
    // resources that differ everywhere (a 30 MB ConfigMap) would take hours. Past the
    // deadline the diff is still correct, only less minimal.
    similar::TextDiff::configure()
        .deadline(deadline)
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn side(label: &str, text: &str) -> Side {
        Side {
            label: label.to_string(),
            resources: parse_resources(text.as_bytes().to_vec(), Path::new(label)).unwrap(),
        }
    }

    fn node(text: &str) -> Node {
        parse_stream(text, "t").unwrap().remove(0)
    }

    #[test]
    fn changed_paths_pair_named_elements() {
        let a = node("spec:\n  containers:\n  - name: a\n    image: x\n  replicas: 1\n");
        let b =
            node("spec:\n  containers:\n  - name: z\n  - name: a\n    image: y\n  replicas: 1\n");
        let mut out = Vec::new();
        changed_paths(Some(&a), Some(&b), &mut String::new(), &mut out);
        assert_eq!(
            out,
            ["spec.containers[name=a].image", "spec.containers[name=z]"]
        );
    }

    #[test]
    fn strips_only_kustomize_hashes() {
        assert_eq!(strip_hash_suffix("app-config-5tb2m7h8f9"), "app-config");
        assert_eq!(
            strip_hash_suffix("app-config-abcdefghij"),
            "app-config-abcdefghij"
        );
        assert_eq!(strip_hash_suffix("-5tb2m7h8f9"), "-5tb2m7h8f9");
    }

    #[test]
    fn pairs_renamed_generated_names_when_asked() {
        let a = side(
            "a",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-5tb2m7h8f9\ndata:\n  k: v\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  volumes:\n  - name: v\n    configMap:\n      name: c-5tb2m7h8f9\n",
        );
        let b = side(
            "b",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-8d9k2hg5m7\ndata:\n  k: w\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  volumes:\n  - name: v\n    configMap:\n      name: c-8d9k2hg5m7\n",
        );
        let plain = diff(&a, &b, &DiffOptions::default()).unwrap();
        assert_eq!(
            plain.summary(),
            Summary {
                changed: 1,
                added: 1,
                removed: 1,
                unchanged: 0
            }
        );
        let opts = DiffOptions {
            ignore_hash_suffix: true,
            ..Default::default()
        };
        let stripped = diff(&a, &b, &opts).unwrap();
        assert_eq!(
            stripped.summary(),
            Summary {
                changed: 1,
                added: 0,
                removed: 0,
                unchanged: 1
            }
        );
        assert_eq!(stripped.entries[0].paths, ["data.k"]);
    }

    #[test]
    fn version_is_not_part_of_the_pairing_key() {
        let a = side(
            "a",
            "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata:\n  name: d\n",
        );
        let b = side(
            "b",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n",
        );
        let r = diff(&a, &b, &DiffOptions::default()).unwrap();
        assert_eq!(r.entries.len(), 1);
        assert_eq!(r.entries[0].paths, ["apiVersion"]);
    }

    /// Once a report's search time is spent, a diff shows the changed region whole at
    /// once (common first and last lines still as context): no search at all.
    #[test]
    fn a_spent_budget_shows_changed_regions_whole() {
        let old: String = (0..2_000).map(|i| format!("k{i}: a{i}\n")).collect();
        let new: String = (0..2_000).map(|i| format!("k{i}: b{i}\n")).collect();
        let (old, new) = (format!("top\n{old}end\n"), format!("top\n{new}end\n"));
        let spent = std::time::Instant::now();
        let diff = unified_diff_until(&old, &new, "a", "b", spent);
        let lines: Vec<&str> = diff.lines().collect();
        assert_eq!(lines[2], "@@ -1,2002 +1,2002 @@");
        assert_eq!(lines[3], " top");
        assert!(lines[4..2004].iter().all(|l| l.starts_with("-k")));
        assert!(lines[2004..4004].iter().all(|l| l.starts_with("+k")));
        assert_eq!(lines[4004], " end");
    }
}
