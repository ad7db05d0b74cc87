//! What `kubectl apply` (client-side) would do to live objects, computed offline.
//!
//! For each configuration object, kubectl compares three versions: the last applied
//! configuration (the live object's `kubectl.kubernetes.io/last-applied-configuration`
//! annotation), the new configuration, and the live object. The patch it sends
//! ([`crate::merge::strategic::create_three_way_patch`]) sets the configuration's fields,
//! deletes fields that were in the last applied configuration and are gone from the new
//! one, and leaves alone the fields it never managed (`replicas` set by an autoscaler,
//! server defaults). The annotation itself is rewritten to the new configuration.
//!
//! Facts followed from kubectl (`apply.go`, `GetModifiedConfiguration`):
//! - the annotation holds the configuration without the annotation, as Go's
//!   `json.Encoder` writes it: compact, keys sorted, `<`, `>` and `&` escaped, a final
//!   newline;
//! - an object without the annotation is patched as if never applied (kubectl warns and
//!   adds the annotation);
//! - kinds kubectl has no Go type for (custom resources) get a JSON merge patch: maps merge,
//!   lists are replaced; kbuild computes it as a strategic patch without schema, which has
//!   the same effect;
//! - an object whose patch is `{}` is "unchanged"; `--prune` deletes live objects that match
//!   the selector, carry the annotation and are not in the configuration.

use std::collections::{HashMap, HashSet};

use crate::error::Error;
use crate::merge::strategic::{apply_patch, create_three_way_patch, three_way_conflicts};
use crate::openapi::{Schemas, TypeRef, split_api_version};
use crate::resource::selector::LabelSelector;
use crate::yaml::{Map, Node};

/// The annotation `kubectl apply` records the applied configuration in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What apply does to one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Not live: created from the configuration.
    Created,
    /// Patched.
    Configured,
    /// The patch is empty.
    Unchanged,
    /// Live, selected by `--prune`, not in the configuration: deleted.
    Pruned,
}

impl Action {
    /// The word kubectl prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Configured => "configured",
            Action::Unchanged => "unchanged",
            Action::Pruned => "pruned",
        }
    }
}

/// The outcome for one object.
#[derive(Clone, Debug)]
pub struct Applied {
    /// How kubectl names the object: `deployment.apps/web` (namespace not included).
    pub name: String,
    /// The namespace, if the object has one.
    pub namespace: Option<String>,
    /// What apply does to the object: created, configured, unchanged or pruned.
    pub action: Action,
    /// The live object after apply (`None` when pruned).
    pub result: Option<Node>,
    /// The strategic merge patch sent (`None` when created or pruned).
    pub patch: Option<Node>,
}

/// The outcome of a dry run: objects in configuration order, then pruned ones in live
/// order, and warnings (e.g. a live object without the annotation).
#[derive(Clone, Debug, Default)]
pub struct ApplyReport {
    /// One outcome per object: configuration order, then pruned objects in live order.
    pub objects: Vec<Applied>,
    /// One line each: live objects without the last-applied annotation, live changes
    /// the configuration overwrites.
    pub warnings: Vec<String>,
}

/// Options of a dry run.
#[derive(Debug, Default)]
pub struct ApplyOptions {
    /// `--prune -l SELECTOR`: delete live objects that match, carry the annotation and are
    /// not in the configuration.
    pub prune: Option<LabelSelector>,
}

/// Reads `kubectl get -o yaml` output: resources, or `List` documents whose `items` are.
pub fn expand_lists(docs: Vec<Node>) -> Result<Vec<Node>, Error> {
    let mut out = Vec::new();
    for doc in docs {
        let kind = doc.get_str(&["kind"]).unwrap_or("");
        if kind == "List" || (kind.ends_with("List") && doc.get("items").is_some()) {
            match doc.get("items") {
                Some(Node::Seq(items)) => out.extend(items.iter().cloned()),
                Some(Node::Null) | None => {}
                Some(other) => {
                    return Err(Error::invalid_resource(format!(
                        "a {kind}'s items must be a sequence, not a {}",
                        other.type_name()
                    )));
                }
            }
        } else {
            out.push(doc);
        }
    }
    Ok(out)
}

/// One object's identity: (group, kind, namespace, name), with a namespaced kind's empty
/// namespace read as `default`, as kubectl does without `-n`.
type Key = (String, String, String, String);

fn key_of(node: &Node, what: &str) -> Result<Key, Error> {
    let api_version = node.get_str(&["apiVersion"]).unwrap_or("");
    let kind = node.get_str(&["kind"]).unwrap_or("");
    let name = node.get_str(&["metadata", "name"]).unwrap_or("");
    if kind.is_empty() || api_version.is_empty() || name.is_empty() {
        return Err(Error::invalid_resource(format!(
            "{what}: an object lacks apiVersion, kind or metadata.name: {}",
            short(node)
        )));
    }
    let (group, version) = split_api_version(api_version);
    let mut namespace = node
        .get_str(&["metadata", "namespace"])
        .unwrap_or("")
        .to_string();
    let namespaced = Schemas::builtin().is_namespaced(group, version, kind);
    if !namespaced {
        namespace.clear();
    } else if namespace.is_empty() {
        namespace = "default".into();
    }
    Ok((group.into(), kind.into(), namespace, name.into()))
}

/// A few fields of an object, for messages.
fn short(node: &Node) -> String {
    let text = node.to_json().to_string();
    if text.chars().count() > 120 {
        format!("{}…", text.chars().take(120).collect::<String>())
    } else {
        text
    }
}

/// kubectl's name of an object: lower-case kind, `.group` when there is one, `/name`.
pub fn display_name(key: &Key) -> String {
    let (group, kind, _, name) = key;
    if group.is_empty() {
        format!("{}/{name}", kind.to_lowercase())
    } else {
        format!("{}.{group}/{name}", kind.to_lowercase())
    }
}

fn schema_for(node: &Node) -> Option<TypeRef<'static>> {
    let api_version = node.get_str(&["apiVersion"])?;
    let kind = node.get_str(&["kind"])?;
    Schemas::builtin().lookup_api_version(api_version, kind)
}

/// Computes what `kubectl apply` would do: `live` as `kubectl get -o yaml` prints it
/// (see [`expand_lists`]), `config` the objects to apply.
pub fn dry_run(
    live: &[Node],
    config: &[Node],
    options: &ApplyOptions,
) -> Result<ApplyReport, Error> {
    let mut live_index: HashMap<Key, usize> = HashMap::new();
    for (i, node) in live.iter().enumerate() {
        let key = key_of(node, "live objects")?;
        if live_index.insert(key.clone(), i).is_some() {
            let id = display_name(&key);
            return Err(Error::duplicate_id(
                id.clone(),
                format!("live objects: {id} is listed twice"),
            ));
        }
    }
    let mut report = ApplyReport::default();
    let mut configured: HashSet<Key> = HashSet::new();
    for node in config {
        let key = key_of(node, "configuration")?;
        if !configured.insert(key.clone()) {
            let id = display_name(&key);
            return Err(Error::duplicate_id(
                id.clone(),
                format!("configuration: {id} is given twice"),
            ));
        }
        let current = live_index.get(&key).map(|&i| &live[i]);
        let applied = apply_one(&key, node, current, &mut report.warnings)?;
        report.objects.push(applied);
    }
    if let Some(selector) = &options.prune {
        for node in live {
            let key = key_of(node, "live objects")?;
            if configured.contains(&key) || last_applied_text(node).is_none() {
                continue;
            }
            if selector.matches(&labels(node)) {
                report.objects.push(Applied {
                    name: display_name(&key),
                    namespace: (!key.2.is_empty()).then(|| key.2.clone()),
                    action: Action::Pruned,
                    result: None,
                    patch: None,
                });
            }
        }
    }
    Ok(report)
}

fn labels(node: &Node) -> Vec<(String, String)> {
    node.get_path(&["metadata", "labels"])
        .and_then(Node::as_map)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.to_string(), v.scalar_string()?)))
                .collect()
        })
        .unwrap_or_default()
}

fn last_applied_text(node: &Node) -> Option<&Node> {
    node.get_path(&["metadata", "annotations", LAST_APPLIED])
}

fn apply_one(
    key: &Key,
    config: &Node,
    current: Option<&Node>,
    warnings: &mut Vec<String>,
) -> Result<Applied, Error> {
    let name = display_name(key);
    let namespace = (!key.2.is_empty()).then(|| key.2.clone());
    let mut config = config.clone();
    // kubectl's resource builder puts namespaced objects into the default namespace first.
    if !key.2.is_empty()
        && config.get_str(&["metadata", "namespace"]).is_none()
        && let Some(metadata) = config.ensure_map(&["metadata"])
    {
        metadata.insert("namespace", Node::text(key.2.clone()));
    }
    let config = &config;
    let modified = with_last_applied(config)?;
    let Some(current) = current else {
        return Ok(Applied {
            name,
            namespace,
            action: Action::Created,
            result: Some(modified),
            patch: None,
        });
    };
    let original = match last_applied_text(current) {
        None => {
            warnings.push(format!(
                "{name} is missing the {LAST_APPLIED} annotation: treated as never applied (kubectl adds the annotation)"
            ));
            Node::map()
        }
        Some(value) => parse_last_applied(value, current, &name)?,
    };
    let schema = schema_for(current).or_else(|| schema_for(config));
    let patch = create_three_way_patch(&original, &modified, current, schema)
        .map_err(|e| e.context(format!("{name}: computing the patch")))?;
    let unchanged = patch.as_map().is_none_or(Map::is_empty);
    // kubectl apply overwrites (`--overwrite=true`); a preview says when that loses a change
    // made on the live object since the last apply (what `--overwrite=false` refuses).
    // The annotation itself always differs (the recorded configuration does not hold it).
    let mut checked = patch.clone();
    if let Some(annotations) = checked
        .get_path_mut(&["metadata", "annotations"])
        .and_then(Node::as_map_mut)
    {
        annotations.shift_remove(LAST_APPLIED);
    }
    let was_applied = last_applied_text(current).is_some();
    if !unchanged
        && was_applied
        && three_way_conflicts(&original, current, &checked, schema).unwrap_or(false)
    {
        warnings.push(format!(
            "{name}: the configuration overwrites changes made to the live object since the last apply"
        ));
    }
    let result = if unchanged {
        current.clone()
    } else {
        let mut result = apply_patch(current, &patch, schema)
            .map_err(|e| e.context(format!("{name}: applying the patch")))?;
        strip_directives(&mut result);
        result
    };
    Ok(Applied {
        name,
        namespace,
        action: if unchanged {
            Action::Unchanged
        } else {
            Action::Configured
        },
        result: Some(result),
        patch: Some(patch),
    })
}

/// Removes patch directives that apimachinery leaves in values the live object did not
/// have (`$retainKeys` and the parallel lists in a new mapping): the API server drops them
/// as unknown fields when it decodes the object.
fn strip_directives(node: &mut Node) {
    match node {
        Node::Map(m) => {
            m.retain(|k, _| {
                !(k == "$patch"
                    || k == "$retainKeys"
                    || k.starts_with("$setElementOrder/")
                    || k.starts_with("$deleteFromPrimitiveList/"))
            });
            m.values_mut().for_each(strip_directives);
        }
        Node::Seq(items) => items.iter_mut().for_each(strip_directives),
        _ => {}
    }
}

/// Reads the annotation: JSON of an object of the same kind and name.
fn parse_last_applied(value: &Node, current: &Node, name: &str) -> Result<Node, Error> {
    let bad = |why: String| {
        Error::invalid_resource(format!(
            "{name}: malformed {LAST_APPLIED} annotation: {why}"
        ))
    };
    let text = value
        .as_str()
        .ok_or_else(|| bad(format!("a {}, not a string", value.type_name())))?;
    if text.trim().is_empty() {
        return Ok(Node::map());
    }
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(format!("invalid JSON: {e}")))?;
    let node = Node::from(&json);
    if !matches!(node, Node::Map(_)) {
        return Err(bad(format!("a JSON {}, not an object", node.type_name())));
    }
    for field in ["kind", "apiVersion"] {
        let recorded = node.get_str(&[field]);
        let live = current.get_str(&[field]);
        if field == "apiVersion" {
            // The version may differ (the server converts); the group may not.
            let group = |v: Option<&str>| v.map(|v| split_api_version(v).0.to_string());
            if recorded.is_some() && group(recorded) != group(live) {
                return Err(bad(format!(
                    "it records apiVersion {} but the live object is {}",
                    recorded.unwrap_or(""),
                    live.unwrap_or("")
                )));
            }
        } else if recorded.is_some() && recorded != live {
            return Err(bad(format!(
                "it records kind {} but the live object is a {}",
                recorded.unwrap_or(""),
                live.unwrap_or("")
            )));
        }
    }
    Ok(node)
}

/// The configuration with the annotation set to itself (kubectl's
/// `GetModifiedConfiguration`).
pub fn with_last_applied(config: &Node) -> Result<Node, Error> {
    // kubectl sets the annotations to what they are without this one: an empty mapping
    // when there are no others, which shows as `"annotations":{}` in the recorded JSON.
    let mut bare = config.clone();
    let annotations = bare
        .ensure_map(&["metadata", "annotations"])
        .ok_or_else(|| {
            Error::invalid_resource("configuration: metadata.annotations is not a mapping")
        })?;
    annotations.shift_remove(LAST_APPLIED);
    // kubectl writes the annotation with Go's encoder, as the name hash does.
    let mut text = crate::yaml::gojson::to_string(&bare, crate::yaml::gojson::Numbers::AsIs)?;
    text.push('\n');
    let mut modified = config.clone();
    let annotations = modified
        .ensure_map(&["metadata", "annotations"])
        .ok_or_else(|| {
            Error::invalid_resource("configuration: metadata.annotations is not a mapping")
        })?;
    annotations.insert(LAST_APPLIED, Node::text(text));
    Ok(modified)
}

#[cfg(test)]
mod tests;
