//! `patches`, `patchesStrategicMerge` and `patchesJson6902`: find the
//! resources a patch targets and merge it into them.

use crate::error::{Error, Result};
use crate::kustomization::{Patch, Selector};
use crate::merge::{json6902, smp, smp::MergeOptions};
use crate::resource::Resource;
use crate::resource::budget::Budget;
use crate::resource::resmap::{ResMap, id_text};
use crate::resource::selector::Matcher;
use crate::transform::list_replace::{self, PatchSource};
use crate::transform::union_check::Changes;
use crate::yaml::Node;
use crate::yaml::map::Style;
use crate::yaml::styled::{Kind, ScalarStyle, Styled};

/// A loaded patch, ready to apply.
pub(crate) enum Loaded {
    /// Strategic-merge patches (one file may hold several documents).
    Strategic(Vec<Node>),
    /// A JSON 6902 operation list.
    Json(Node),
    /// No document at all (an empty file, only comments, blank lines or `---`).
    Empty,
}

/// The error for a patch that holds no document where one is needed.
pub(crate) fn empty_patch(source: &str) -> Error {
    Error::invalid_patch(format!("{source}: the patch is empty"))
}

/// Tells a strategic-merge patch (mappings) from a JSON 6902 one (a list of
/// operations), as kustomize does from the content.
pub(crate) fn classify(text: &str, source: &str) -> Result<Loaded> {
    let docs = crate::yaml::parse::parse_patch_stream(text, source)?;
    let docs: Vec<Node> = docs.into_iter().filter(|d| !d.is_null()).collect();
    match docs.as_slice() {
        [] => Ok(Loaded::Empty),
        // Read again as kustomize reads JSON patch operations (YAML 1.1, see `parse_ops`)
        // where that can make a difference.
        [ops @ Node::Seq(_)] if reads_otherwise_in_yaml11(ops) => {
            Ok(Loaded::Json(json6902::parse_ops(text, source)?))
        }
        [Node::Seq(_)] => Ok(Loaded::Json(docs.into_iter().next().unwrap_or(Node::Null))),
        _ if docs.iter().all(|d| matches!(d, Node::Map(_))) => Ok(Loaded::Strategic(docs)),
        _ => Err(Error::invalid_patch(format!(
            "{source}: a patch must be a strategic merge patch (a mapping per document) or a JSON 6902 patch (a list of operations)"
        ))),
    }
}

/// Whether `node`, read as YAML 1.2 (go-yaml v3), holds a string YAML 1.1 reads as
/// another type (`y`, `on`) or a timestamp (which YAML 1.1 leaves as written).
fn reads_otherwise_in_yaml11(node: &Node) -> bool {
    match node {
        Node::Str(s) => {
            let b = s.as_bytes();
            crate::yaml::parse::is_yaml11_non_string(s)
                || (b.len() > 4 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-')
        }
        Node::Map(m) => m.values().any(reads_otherwise_in_yaml11),
        Node::Seq(items) => items.iter().any(reads_otherwise_in_yaml11),
        _ => false,
    }
}

/// The labels and annotations of strategic-merge patches as kustomize holds them, where
/// it rewrites them from string maps of their text before merging: `targeted` (a patch
/// with a `target`: `resWrangler.ApplySmPatch` runs `CopyMergeMetaDataFieldsFrom`), a
/// label or annotation written `null`, `~` or nothing becomes that text (`"null"`, `"~"`,
/// `""`) instead of deleting it, and a number the string it was written as. A
/// `patchesStrategicMerge` file is loaded as a resource, whose annotations (not labels)
/// kustomize rewrites the same way. In both cases an annotation is a string from then
/// on, so a later JSON patch sees `1e3`, not 1000. `None` when nothing
/// changes (the common case: the patch's text is read a second time only when needed).
pub(crate) fn metadata_as_text(docs: &[Node], text: &str, targeted: bool) -> Option<Vec<Node>> {
    const FIELDS: [&str; 2] = ["labels", "annotations"];
    let untyped = |n: &Node| {
        matches!(
            n,
            Node::Null | Node::Bool(_) | Node::Int(_) | Node::Uint(_) | Node::Float(_)
        )
    };
    let typed_text = |m: &crate::yaml::map::Map| {
        (0..m.len()).any(|i| {
            m.style_at(i) == Style::PlainText
                && matches!(m.get_index(i), Some((_, Node::Str(t))) if crate::merge::scalar_style::untagged_text_matters(t))
        })
    };
    let needed = |doc: &Node| {
        let ann = doc
            .get_path(&["metadata", "annotations"])
            .and_then(Node::as_map);
        ann.is_some_and(|m| typed_text(m) || m.values().any(Node::is_null))
            || (targeted
                && FIELDS.iter().any(|f| {
                    doc.get_path(&["metadata", f])
                        .and_then(Node::as_map)
                        .is_some_and(|m| m.values().any(untyped))
                }))
    };
    if !docs.iter().any(needed) {
        return None;
    }
    let written = crate::yaml::parse::parse_styled_patch_docs(text, "patch").unwrap_or_default();
    // A `patchesStrategicMerge` file's labels stay the patch's own nodes.
    let fields = if targeted { &FIELDS[..] } else { &FIELDS[1..] };
    let mut docs = docs.to_vec();
    for (n, doc) in docs.iter_mut().enumerate() {
        for &field in fields {
            let spelled = written
                .get(n)
                .and_then(|w| styled_field(w, &["metadata", field]));
            let Some(Node::Map(map)) = doc.get_path_mut(&["metadata", field]) else {
                continue;
            };
            for i in 0..map.len() {
                if map.style_at(i) == Style::PlainText {
                    map.set_style_at(i, Style::Plain);
                }
                let Some((key, value)) = map.get_index_mut(i) else {
                    continue;
                };
                if untyped(value)
                    && let Some(Kind::Scalar(t)) = spelled
                        .and_then(|w| styled_field(w, &[key.as_str()]))
                        .map(|n| &n.kind)
                {
                    *value = Node::text(t.clone());
                }
            }
        }
    }
    Some(docs)
}

/// The value at `path` (mapping keys) of a go-yaml v3 node; the last of repeated keys.
fn styled_field<'a>(
    node: &'a crate::yaml::styled::Styled,
    path: &[&str],
) -> Option<&'a crate::yaml::styled::Styled> {
    let Some((first, rest)) = path.split_first() else {
        return Some(node);
    };
    let crate::yaml::styled::Kind::Map(pairs) = &node.kind else {
        return None;
    };
    let value = pairs.iter().rev().find_map(|(k, v)| {
        matches!(&k.kind, crate::yaml::styled::Kind::Scalar(t) if t == first).then_some(v)
    })?;
    styled_field(value, rest)
}

/// Applies one strategic-merge patch to one resource, keeping its name, kind
/// and namespace unless the patch may change them. The patch is a copy the
/// merge may edit.
pub(crate) fn apply_smp(
    res: &mut Resource,
    patch: Node,
    opts: &MergeOptions,
    allow_name: bool,
    allow_kind: bool,
    source: Option<(&PatchSource, usize)>,
) -> Result<()> {
    let (name, ns, kind) = (
        res.node().get_path(&["metadata", "name"]).cloned(),
        res.node().get_path(&["metadata", "namespace"]).cloned(),
        res.node().get("kind").cloned(),
    );
    if allow_name || allow_kind {
        res.store_prev_id();
    }
    let gvk = res.gvk();
    let schema = opts.schemas.lookup(&gvk.group, &gvk.version, &gvk.kind);
    res.drop_empty_nulls(schema);
    if res.untagged {
        crate::merge::scalar_style::quote_untagged_yaml11_non_strings(res.node_mut());
    }
    // A patch writes into label and annotation values kustomize shares between fields
    // in place, so into all of them (see resource/shared.rs).
    let plan = (!res.shared.is_empty()).then(|| res.shared.plan_patch(res.node(), &patch));
    // A kind the schema knows nothing of (a custom resource, by default): the lists the
    // patch replaces whole, for the warning about those its CRD declares keys for.
    let replaced = match source {
        Some(_) if schema.is_none() => list_replace::find(res.node(), &patch, opts.schemas),
        _ => Vec::new(),
    };
    let bookkeeping = BuildMetaMarks::place(res, None);
    // What the patch writes, for the resource's provenance (see provenance/writes.rs).
    let noted = res.provenance.is_some().then(|| patch.clone());
    let overwritten = crate::merge::scalar_style::overwritten_scalars(res.node(), &patch, schema);
    smp::apply_owned(res.node_mut(), patch, schema, opts)?;
    bookkeeping.take(res);
    crate::merge::scalar_style::quote_plain_yaml11_non_strings_but(res.node_mut(), &overwritten);
    if let Some((source, doc)) = source {
        list_replace::note(res, replaced, source, doc);
    }
    if let Some(plan) = plan {
        let (node, shared) = res.node_mut_with_shared();
        shared.finish_patch(node, plan);
    }
    if res.node().is_null() || res.node().as_map().is_some_and(|m| m.is_empty()) {
        return Ok(());
    }
    if !allow_kind && let (Some(k), Some(m)) = (kind, res.node_mut().as_map_mut()) {
        m.insert("kind".to_string(), k);
    }
    restore_meta(res, "name", if allow_name { None } else { name });
    // kustomize sets the namespace back to what it was, and setting an empty one
    // removes the field: a patch cannot add a namespace (not even `default`), and a
    // patched resource loses a `namespace: ""` or `namespace: null` it had.
    let empty = match &ns {
        None | Some(Node::Null) => true,
        Some(n) => n.as_str().is_some_and(str::is_empty),
    };
    if empty {
        if let Some(Node::Map(meta)) = res.node_mut().get_mut("metadata") {
            meta.shift_remove("namespace");
        }
    } else {
        restore_meta(res, "namespace", ns);
    }
    if let Some(patch) = noted {
        res.note_written(|node| crate::provenance::writes::merged(node, &patch));
    }
    Ok(())
}

fn restore_meta(res: &mut Resource, field: &str, value: Option<Node>) {
    let Some(v) = value else { return };
    if let Some(meta) = res.node_mut().ensure_map(&["metadata"]) {
        meta.insert(field.to_string(), v);
    }
}

/// Gives a patch the identity fields of `target` (name and kind only where
/// the patch may not change them).
fn retarget(patch: &mut Node, target: &Node, allow_name: bool, allow_kind: bool) {
    let Some(pm) = patch.as_map_mut() else { return };
    // kustomize's resWrangler.ApplySmPatch gives the copy the target's group and
    // version whatever the options, and the patch's kind (put back afterwards unless
    // allowKindChange): a kind change keeps the target's apiVersion, so a patch turning
    // a Deployment and a Service into kind X makes an apps/v1 X and a v1 X.
    let gvk: &[&str] = if allow_kind {
        &["apiVersion"]
    } else {
        &["apiVersion", "kind"]
    };
    for key in gvk.iter().copied() {
        match target.get(key) {
            Some(v) => {
                pm.insert(key.to_string(), v.clone());
            }
            None => {
                pm.shift_remove(key);
            }
        }
    }
    if let Some(meta) = patch.ensure_map(&["metadata"]) {
        let keys: &[&str] = if allow_name {
            &["namespace"]
        } else {
            &["name", "namespace"]
        };
        for key in keys.iter().copied() {
            match target.get_path(&["metadata", key]) {
                Some(v) => {
                    meta.insert(key.to_string(), v.clone());
                }
                None => {
                    meta.shift_remove(key);
                }
            }
        }
    }
}

/// Applies a JSON 6902 patch to every resource the selector picks, noting
/// each in `changes`; `build_meta` with `buildMetadata` (see [`BuildMetaMarks`]).
pub(crate) fn apply_json(
    resmap: &mut ResMap,
    ops: &Node,
    target: &Selector,
    budget: &Budget,
    build_meta: Option<&crate::transform::build_metadata::Texts>,
    changes: &mut Changes,
) -> Result<()> {
    let m = Matcher::new(target)?;
    // A patch applies to every target: its values are copied as often (see resource/budget.rs).
    let bytes = crate::resource::budget::node_bytes(ops);
    for (i, res) in resmap.iter_mut().enumerate().filter(|(_, r)| m.selects(r)) {
        budget.charge(bytes, "patches")?;
        changes.will_change(i, res);
        res.store_prev_id();
        if res.untagged {
            // kustomize's JSON of an untagged node is the type its text reads as.
            crate::transform::deferred_check::resolve(
                res,
                crate::transform::deferred_check::Resolving::BeforeJsonPatch,
            )
            .map_err(|e| e.context(format!("applying JSON patch to {}", res.id())))?;
            res.untagged = false;
        }
        crate::merge::scalar_style::annotations_before_json_patch(res.node_mut());
        let internal = InternalAnnotations::place(res);
        let bookkeeping = BuildMetaMarks::place(res, build_meta);
        json6902::apply_within(res.node_mut(), ops, budget)
            .map_err(|e| e.context(format!("applying JSON patch to {}", res.id())))?;
        bookkeeping.take(res);
        internal.take(res);
        // kustomize reads the patched resource back from JSON: new nodes everywhere,
        // nothing shared any more.
        res.shared.clear();
        crate::merge::scalar_style::after_json_patch(res.node_mut());
        res.keys_from_json = true;
        // kustomize makes a new resource of the patched JSON, which needs a kind and a
        // name (a number will do); an empty string counts as missing.
        for (path, what) in [
            (&["kind"][..], "kind"),
            (&["metadata", "name"][..], "metadata.name"),
        ] {
            let missing = match res.node().get_path(path) {
                None | Some(Node::Null) => true,
                Some(Node::Str(s)) => s.is_empty(),
                Some(_) => false,
            };
            if missing {
                return Err(Error::invalid_patch(format!(
                    "the JSON patch leaves {} without {what}; a resource needs one",
                    res.orig_id()
                )));
            }
        }
        res.note_written(|node| crate::provenance::writes::json_ops(node, ops));
    }
    Ok(())
}

/// kustomize keeps its bookkeeping of a resource in `internal.config.kubernetes.io/`
/// annotations while it builds, and its JSON 6902 patch stores the resource's current id
/// there first (`StorePreviousId`): so every resource a JSON patch sees has an annotation
/// mapping, holding at least `previousKinds`, `previousNames` and `previousNamespaces`.
/// `add /metadata/annotations/k` works on a resource written without annotations,
/// `remove /metadata/annotations` too, and a `copy` or `test` of the whole mapping sees
/// those entries. kbuild keeps the same facts beside the resource; these stand in for
/// them while the patch runs. Afterwards kustomize puts back the internal entries it had
/// (whatever the patch did to them) and drops them all when it prints.
struct InternalAnnotations {
    /// Whether the resource had an annotation mapping before.
    had_annotations: bool,
}

impl InternalAnnotations {
    fn place(res: &mut Resource) -> InternalAnnotations {
        let had_annotations = matches!(
            res.node().get_path(&["metadata", "annotations"]),
            Some(Node::Map(_))
        );
        let entries = crate::resource::build_annotations::of(res);
        if !had_annotations && let Some(Node::Map(meta)) = res.node_mut().get_mut("metadata") {
            // A null or scalar `annotations` is replaced as kustomize's SetAnnotations does.
            meta.insert("annotations", Node::map());
        }
        if let Some(Node::Map(ann)) = res.node_mut().get_path_mut(&["metadata", "annotations"]) {
            for (key, value) in entries {
                ann.insert(key, Node::text(value));
            }
        }
        InternalAnnotations { had_annotations }
    }

    /// Takes the stand-ins out of the annotations (copies the patch made elsewhere stay,
    /// as in kustomize's output).
    fn take(self, res: &mut Resource) {
        let Some(Node::Map(ann)) = res.node_mut().get_path_mut(&["metadata", "annotations"]) else {
            return;
        };
        ann.retain(|k, _| !k.starts_with(crate::resource::build_annotations::INTERNAL));
        drop_made_annotations(res, self.had_annotations);
    }
}

/// Takes out the annotation mapping a stand-in made (`had`: the resource had one before)
/// when nothing is left in it.
fn drop_made_annotations(res: &mut Resource, had: bool) {
    if !had
        && res
            .node()
            .get_path(&["metadata", "annotations"])
            .and_then(Node::as_map)
            .is_some_and(|ann| ann.is_empty())
        && let Some(Node::Map(meta)) = res.node_mut().get_mut("metadata")
    {
        meta.shift_remove("annotations");
    }
}

/// kustomize keeps a resource's origin and its list of transformations as annotations
/// while it builds (`config.kubernetes.io/origin`,
/// `alpha.config.kubernetes.io/transformations`); kbuild keeps them beside the resource
/// and writes them at the end. A patch (JSON 6902, or strategic merge with
/// `annotations: null` or `$patch: replace`) that replaces or removes the annotations
/// drops them in kustomize, which then takes the next transformer for the resource's
/// origin. These marks stand in for them while the patch runs, so that what the patch
/// removes is known. A JSON patch can also copy them (`copy` from `/metadata/annotations`):
/// there the marks are the texts kustomize's annotations hold at that point (the
/// transformations so far), which the copy keeps.
struct BuildMetaMarks {
    /// The texts placed for the origin and the transformations, when the resource has them.
    origin: Option<String>,
    transformations: Option<String>,
    /// Whether the resource had an annotation mapping before the marks were placed.
    had_annotations: bool,
}

impl BuildMetaMarks {
    /// What stands in where no copy can be made (a strategic merge).
    const MARK: &'static str = "kbuild: build metadata";

    fn place(
        res: &mut Resource,
        texts: Option<&crate::transform::build_metadata::Texts>,
    ) -> BuildMetaMarks {
        use crate::transform::build_metadata::{ORIGIN_ANNOTATION, TRANSFORMATIONS_ANNOTATION};
        let text = |made: Option<String>| made.unwrap_or_else(|| Self::MARK.to_string());
        let origin = res
            .origin
            .is_some()
            .then(|| text(texts.and_then(|t| t.origin(res.origin.as_deref()))));
        let transformations = (!res.transformations.is_empty())
            .then(|| text(texts.and_then(|t| t.transformations(&res.transformations))));
        let had_annotations = res.node().get_path(&["metadata", "annotations"]).is_some();
        if (origin.is_some() || transformations.is_some())
            && let Some(ann) = res.node_mut().ensure_map(&["metadata", "annotations"])
        {
            for (key, placed) in [
                (ORIGIN_ANNOTATION, &origin),
                (TRANSFORMATIONS_ANNOTATION, &transformations),
            ] {
                if let Some(placed) = placed
                    && !ann.contains_key(key)
                {
                    ann.insert(key, Node::text(placed.as_str()));
                }
            }
        }
        BuildMetaMarks {
            origin,
            transformations,
            had_annotations,
        }
    }

    /// Removes the marks; what the patch removed is forgotten.
    fn take(self, res: &mut Resource) {
        use crate::transform::build_metadata::{ORIGIN_ANNOTATION, TRANSFORMATIONS_ANNOTATION};
        if self.origin.is_none() && self.transformations.is_none() {
            return;
        }
        let mut kept = [false; 2];
        if let Some(Node::Map(ann)) = res.node_mut().get_path_mut(&["metadata", "annotations"]) {
            for (i, (key, placed)) in [
                (ORIGIN_ANNOTATION, &self.origin),
                (TRANSFORMATIONS_ANNOTATION, &self.transformations),
            ]
            .into_iter()
            .enumerate()
            {
                if placed.is_some() && ann.get(key).and_then(Node::as_str) == placed.as_deref() {
                    ann.shift_remove(key);
                    kept[i] = true;
                }
            }
        }
        drop_made_annotations(res, self.had_annotations);
        if self.origin.is_some() && !kept[0] {
            res.origin = None;
        }
        if self.transformations.is_some() && !kept[1] {
            res.transformations.clear();
        }
    }
}

/// The one resource a target-less strategic-merge patch applies to: any
/// resource whose current or previous id equals the patch's id.
fn find_unique(resmap: &ResMap, patch: &Node) -> Result<usize> {
    // The id needs only the identity fields: copy those, not the whole patch (the whole
    // patch only to word the error when they are missing).
    let pres = Resource::new(identity_of(patch))
        .or_else(|_| Resource::new(patch.clone()))
        .map_err(|e| e.context("a patch without a target must name its resource"))?;
    let id = pres.id();
    let hits = resmap.find_by_any_id(&id);
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(Error::no_match(
            0,
            format!(
                "no resource matches the patch for {} ({}){}",
                id,
                id_text(&id),
                closest_hint(resmap, &id)
            ),
        )),
        _ => Err(Error::no_match(
            hits.len(),
            format!(
                "the patch for {} matches {} resources: {}; give it a target",
                id,
                hits.len(),
                hits.iter()
                    .map(|i| resmap.resources[*i].id().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The fields of a patch its id is made of (`apiVersion`, `kind`, `metadata.name` and
/// `metadata.namespace`), as a mapping.
fn identity_of(patch: &Node) -> Node {
    let mut out = crate::yaml::Map::new();
    for key in ["apiVersion", "kind"] {
        if let Some(v) = patch.get(key) {
            out.insert(key, v.clone());
        }
    }
    if let Some(meta) = patch.get("metadata").and_then(Node::as_map) {
        let mut m = crate::yaml::Map::new();
        for key in ["name", "namespace"] {
            if let Some(v) = meta.get(key) {
                m.insert(key, v.clone());
            }
        }
        out.insert("metadata", Node::Map(m));
    }
    Node::Map(out)
}

/// " (closest: ...)" listing resources of the same kind, or nearest names.
fn closest_hint(resmap: &ResMap, id: &crate::resource::id::ResId) -> String {
    let mut cands: Vec<(usize, String)> = resmap
        .iter()
        .map(|r| {
            let rid = r.id();
            let mut d = crate::yaml::de::edit_distance(&rid.name, &id.name);
            if rid.gvk.kind != id.gvk.kind {
                d += 10;
            }
            if rid.effective_namespace() != id.effective_namespace() {
                d += 3;
            }
            (d, rid.to_string())
        })
        .collect();
    cands.sort();
    let names: Vec<String> = cands.into_iter().take(3).map(|(_, s)| s).collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("; closest resources: {}", names.join(", "))
    }
}

/// How a strategic-merge patch entry may change its resources.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StrategicOptions<'a> {
    /// `options.allowNameChange`.
    pub allow_name: bool,
    /// `options.allowKindChange`.
    pub allow_kind: bool,
    /// Whether documents may follow a `$patch: delete` document of the same file
    /// (see `KustomizeVersion::patches_continue_after_delete`).
    pub continue_after_delete: bool,
    /// The patch, for the note on lists it replaces whole (see `list_replace`).
    pub source: Option<&'a PatchSource<'a>>,
    /// The patch's text, read again for the spelling of numbers that land on quoted
    /// values (see [`spell_typed_over_quoted`]).
    pub text: Option<&'a str>,
}

/// A number, boolean or timestamp of a strategic-merge patch that replaces a quoted
/// value: kyaml's merge gives the patch's node the quoted style, so kustomize prints the
/// text the patch wrote (`3.0`, `0o14`, `1.0e+3`, `False`, `2024-01-01`) as a string,
/// where kbuild's node holds only the value. With `written` (the patch document as
/// go-yaml reads it) such values of `patch` become the string of their text; without,
/// only whether there is one is told. Mappings are followed; lists are not (their items
/// are matched by merge keys, and kbuild keeps no style for items).
fn spell_typed_over_quoted(dest: &Node, patch: &mut Node, written: Option<&Styled>) -> bool {
    let (Node::Map(d), Node::Map(p)) = (dest, patch) else {
        return false;
    };
    let mut found = false;
    // Numbers and booleans turned into their text: the text is kept beside the string
    // (`Map::quoted_typed_text`), as kyaml keeps the tag, for vars.
    let mut tagged = Vec::new();
    for (key, value) in p.iter_mut() {
        let Some(at) = d.get_index_of(key) else {
            continue;
        };
        let here = written.and_then(|w| styled_field(w, &[key.as_str()]));
        if matches!(value, Node::Map(_)) {
            if let Some((_, inner)) = d.get_index(at) {
                found |= spell_typed_over_quoted(inner, value, here);
                if found && written.is_none() {
                    return true;
                }
            }
            continue;
        }
        let typed = match value {
            Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_) => true,
            // A timestamp, as kbuild reads one (`2024-01-01T00:00:00Z`).
            Node::Str(s) => {
                s.len() > 4
                    && s.as_bytes()[..4].iter().all(u8::is_ascii_digit)
                    && s.as_bytes()[4] == b'-'
            }
            _ => false,
        };
        if !typed || !d.style_at(at).is_quoted() {
            continue;
        }
        found = true;
        if written.is_none() {
            return true;
        }
        if let Some(Styled {
            tag,
            style,
            kind: Kind::Scalar(t),
        }) = here
            && style.scalar == ScalarStyle::Plain
            && matches!(tag.as_str(), "!!int" | "!!float" | "!!bool" | "!!timestamp")
        {
            *value = Node::text(t.clone());
            if tag != "!!timestamp" {
                tagged.push((key.clone(), t.clone()));
            }
        }
    }
    for (key, text) in tagged {
        p.set_typed_text(&key, &text);
    }
    found
}

/// Applies strategic-merge patches: each to the resource it names, or all of
/// them to every resource `target` selects; each resource patched is noted in
/// `changes`.
pub(crate) fn apply_strategic(
    resmap: &mut ResMap,
    patches: &[Node],
    target: Option<&Selector>,
    opts: &MergeOptions,
    options: StrategicOptions<'_>,
    budget: &Budget,
    changes: &mut Changes,
) -> Result<()> {
    let StrategicOptions {
        allow_name,
        allow_kind,
        continue_after_delete,
        source,
        text,
    } = options;
    // The patch's documents as written, read on first need.
    let mut written: Option<Vec<Styled>> = None;
    let mut spell = |res: &Node, patch: &mut Node, doc: usize| {
        let Some(text) = text else { return };
        if !spell_typed_over_quoted(res, patch, None) {
            return;
        }
        let docs = written.get_or_insert_with(|| {
            crate::yaml::parse::parse_styled_patch_docs(text, "patch").unwrap_or_default()
        });
        if let Some(w) = docs.get(doc) {
            spell_typed_over_quoted(res, patch, Some(w));
        }
    };
    match target {
        Some(t) => {
            if patches.len() > 1 {
                return Err(Error::invalid_patch(
                    "a patches entry with a target may hold only one strategic merge patch document",
                ));
            }
            let m = Matcher::new(t)?;
            // The patch is copied into every target (see resource/budget.rs).
            let bytes: u64 = patches
                .iter()
                .map(crate::resource::budget::node_bytes)
                .sum();
            for (i, res) in resmap.iter_mut().enumerate().filter(|(_, r)| m.selects(r)) {
                budget.charge(bytes, "patches")?;
                changes.will_change(i, res);
                for (doc, p) in patches.iter().enumerate() {
                    // kustomize points a targeted patch at each resource: the
                    // copy takes the resource's apiVersion, kind, name and
                    // namespace.
                    let mut p = p.clone();
                    retarget(&mut p, res.node(), allow_name, allow_kind);
                    spell(res.node(), &mut p, doc);
                    apply_smp(
                        res,
                        p,
                        opts,
                        allow_name,
                        allow_kind,
                        source.map(|s| (s, doc)),
                    )
                    .map_err(|e| e.context(format!("patching {}", res.id())))?;
                }
            }
            drop_deleted(resmap, changes);
            // kustomize rebuilds its resource list after a targeted strategic merge patch
            // (whatever it selected), so two resources with one id fail there: a rename
            // onto another's id (allowNameChange/allowKindChange), or a clash an earlier
            // step (a JSON 6902 rename) left, which nothing checked since.
            resmap.refuse_clash(
                "after this strategic merge patch (kustomize rebuilds its resource list after every targeted one)",
            )?;
        }
        None => {
            let mut deleted = false;
            for (doc, p) in patches.iter().enumerate() {
                if deleted && !continue_after_delete {
                    // kustomize v5.5.0 crashes here (it looks up the next
                    // document's target among resources one containing a
                    // deletion has emptied); refuse the input instead.
                    return Err(Error::invalid_patch(
                        "a patch file that deletes a resource ($patch: delete) may not hold further patch documents \
                         in kustomize v5.5.0 (it crashes); put each deletion in its own patches entry, \
                         or build as kustomize v5.7.0 and later do (--kustomize-version v5.8.1)",
                    ));
                }
                let i = find_unique(resmap, p)?;
                let res = &mut resmap.resources[i];
                changes.will_change(i, res);
                let source = source.map(|s| (s, doc));
                let mut p = p.clone();
                spell(res.node(), &mut p, doc);
                apply_smp(res, p, opts, allow_name, allow_kind, source)
                    .map_err(|e| e.context(format!("patching {}", res.id())))?;
                // A deletion takes its resource out before the next document
                // looks for its own: a later document naming it finds nothing.
                if is_empty(resmap.resources[i].node()) {
                    let kept: Vec<bool> = (0..resmap.resources.len()).map(|j| j != i).collect();
                    changes.removed(&kept);
                    resmap.resources.remove(i);
                    deleted = true;
                }
            }
        }
    }
    Ok(())
}

/// Takes out the resources a `$patch: delete` has emptied.
fn drop_deleted(resmap: &mut ResMap, changes: &mut Changes) {
    let kept: Vec<bool> = resmap.iter().map(|r| !is_empty(r.node())).collect();
    if kept.contains(&false) {
        changes.removed(&kept);
        resmap.resources.retain(|r| !is_empty(r.node()));
    }
}

/// Reads a `patches`/`patchesJson6902` entry's content (`path` or inline).
pub(crate) fn entry_text(
    p: &Patch,
    read: &mut dyn FnMut(&str) -> Result<String>,
) -> Result<(String, String)> {
    match (p.path.is_empty(), p.patch.is_empty()) {
        (true, true) => Err(Error::invalid_patch(
            "a patch needs either 'path' or 'patch'",
        )),
        (false, false) => Err(Error::invalid_patch(
            "a patch may not set both 'path' and 'patch'",
        )),
        (false, true) => Ok((read(&p.path)?, p.path.clone())),
        (true, false) => Ok((p.patch.clone(), "inline patch".to_string())),
    }
}

/// A resource a `$patch: delete` has emptied.
fn is_empty(n: &Node) -> bool {
    n.is_null() || n.as_map().is_some_and(|m| m.is_empty())
}
