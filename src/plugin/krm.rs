//! The KRM function protocol (kyaml's `fn/runtime/runtimeutil` and `kio`), shared by exec
//! and container functions.
//!
//! The function reads one `ResourceList` (`apiVersion: config.kubernetes.io/v1`) on stdin:
//! `items` are the resources (for a generator, kustomize sends the function config itself,
//! as its only item) and `functionConfig` the config, annotated
//! `config.kubernetes.io/local-config: "true"` so that it never reaches the output. Each
//! item carries kyaml's index and id annotations (to map outputs back to inputs) and
//! kustomize's `kustomize.config.k8s.io/id`. The function prints a `ResourceList` (or a
//! plain YAML stream of resources). As in kustomize (kyaml's function filter reads
//! `results` only to write them to a results file), only the exit status decides whether
//! the function failed: `results` with `severity: error` from a function that exited 0 are
//! passed on as warnings, and those of a function that failed follow its stderr.

use super::annotations;
use crate::error::PluginProblem;
use crate::resource::Resource;
use crate::yaml::{Map, Node};

const API_VERSION: &str = "config.kubernetes.io/v1";
/// The older ResourceList apiVersion kyaml still reads.
const LEGACY_API_VERSION: &str = "config.k8s.io/v1alpha1";
const LOCAL_CONFIG: &str = "config.kubernetes.io/local-config";

/// The function config as the function sees it (and as a generator's single item).
pub(super) fn function_config(config: &Node) -> Node {
    let mut fc = config.clone();
    if let Some(a) = fc.ensure_map(&["metadata", "annotations"]) {
        a.insert(LOCAL_CONFIG, Node::text("true"));
    }
    fc
}

/// The `ResourceList` for `items`, with kyaml's reader annotations added to each.
pub(super) fn resource_list(items: Vec<Node>, function_config: Node) -> String {
    let items = items
        .into_iter()
        .enumerate()
        .map(|(i, mut item)| {
            if let Some(a) = item.ensure_map(&["metadata", "annotations"]) {
                let index = i.to_string();
                let id = (i + 1).to_string();
                for (k, v) in [
                    ("config.kubernetes.io/index", &index),
                    ("internal.config.kubernetes.io/index", &index),
                    (
                        "internal.config.kubernetes.io/annotations-migration-resource-id",
                        &index,
                    ),
                    ("internal.config.kubernetes.io/id", &id),
                    ("config.k8s.io/id", &id),
                ] {
                    a.insert(k, Node::text(v.clone()));
                }
            }
            item
        })
        .collect();
    let mut list = Map::new();
    list.insert("apiVersion", Node::text(API_VERSION));
    list.insert("kind", Node::text("ResourceList"));
    list.insert("items", Node::Seq(items));
    list.insert("functionConfig", function_config);
    let mut out = String::new();
    crate::yaml::emit::emit_document(&Node::Map(list), &mut out);
    out
}

/// What a function printed: its resources, with the bookkeeping annotations taken out,
/// and the messages of its results of severity `error`.
#[derive(Debug)]
pub(super) struct Output {
    pub resources: Vec<Resource>,
    pub error_results: Vec<String>,
}

/// What a function printed; or why its output is unusable (not UTF-8, not YAML, not
/// resources).
pub(super) fn read_output(stdout: &[u8]) -> Result<Output, PluginProblem> {
    let text = std::str::from_utf8(stdout)
        .map_err(|_| PluginProblem::BadOutput("printed output that is not UTF-8".into()))?;
    let docs = crate::yaml::parse::parse_stream(text, "the function's output")
        .map_err(|e| PluginProblem::BadOutput(format!("printed output that is not YAML: {e}")))?;
    let is_list = |d: &Node| {
        d.get_str(&["kind"]) == Some("ResourceList")
            && matches!(
                d.get_str(&["apiVersion"]),
                Some(API_VERSION | LEGACY_API_VERSION)
            )
    };
    let mut error_results = Vec::new();
    let items = match docs.as_slice() {
        [list] if is_list(list) => {
            error_results = errors_among(list.get("results"));
            match list.get("items") {
                None | Some(Node::Null) => Vec::new(),
                Some(Node::Seq(items)) => items.clone(),
                Some(other) => {
                    return Err(PluginProblem::BadOutput(format!(
                        "printed a ResourceList whose items are a {}, not a list",
                        other.type_name()
                    )));
                }
            }
        }
        _ if docs.iter().any(is_list) => {
            return Err(PluginProblem::BadOutput(
                "printed a ResourceList among other documents".into(),
            ));
        }
        _ => docs,
    };
    let resources = items
        .into_iter()
        .map(|item| {
            annotations::from_plugin(item)
                .map_err(|e| PluginProblem::BadOutput(format!("printed an invalid resource: {e}")))
        })
        .collect::<Result<_, _>>()?;
    Ok(Output {
        resources,
        error_results,
    })
}

/// The results of severity `error`, each told as `message (kind/name, field path)`.
fn errors_among(results: Option<&Node>) -> Vec<String> {
    let Some(Node::Seq(results)) = results else {
        return Vec::new();
    };
    results
        .iter()
        .filter(|r| r.get_str(&["severity"]) == Some("error"))
        .map(|r| {
            let text = |path: &[&str]| {
                r.get_path(path)
                    .and_then(Node::scalar_string)
                    .unwrap_or_default()
            };
            let mut m = text(&["message"]);
            let kind = text(&["resourceRef", "kind"]);
            let name = text(&["resourceRef", "name"]);
            let field = text(&["field", "path"]);
            let mut about = Vec::new();
            if !kind.is_empty() || !name.is_empty() {
                about.push(format!("{kind}/{name}"));
            }
            if !field.is_empty() {
                about.push(format!("field {field}"));
            }
            if !about.is_empty() {
                m.push_str(&format!(" ({})", about.join(", ")));
            }
            m
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::first_doc;

    #[test]
    fn the_list_carries_items_and_the_local_config() {
        let fc = function_config(&first_doc("kind: Fn\nmetadata:\n  name: f\n"));
        let text = resource_list(vec![first_doc("kind: A\nmetadata:\n  name: a\n")], fc);
        let list = first_doc(&text);
        assert_eq!(list.get_str(&["apiVersion"]), Some(API_VERSION));
        assert_eq!(
            list.get_str(&["functionConfig", "metadata", "annotations", LOCAL_CONFIG]),
            Some("true")
        );
        let item = &list.get("items").unwrap().as_seq().unwrap()[0];
        assert_eq!(
            item.get_str(&["metadata", "annotations", "config.kubernetes.io/index"]),
            Some("0")
        );
    }

    #[test]
    fn outputs_are_lists_or_streams_with_their_error_results() {
        let out = read_output(
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n    name: a\n    annotations:\n      config.kubernetes.io/index: '0'\n",
        )
        .unwrap()
        .resources;
        assert_eq!(out.len(), 1);
        assert!(
            out[0]
                .node()
                .get_path(&["metadata", "annotations"])
                .is_none()
        );
        let out =
            read_output(b"kind: A\nmetadata:\n  name: a\n---\nkind: B\nmetadata:\n  name: b\n")
                .unwrap()
                .resources;
        assert_eq!(out.len(), 2);
        let out = read_output(
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n- message: bad key\n  severity: error\n  resourceRef: {kind: Secret, name: s}\n- message: fine\n  severity: info\n",
        )
        .unwrap();
        assert!(out.resources.is_empty());
        assert_eq!(out.error_results, ["bad key (Secret/s)"]);
        assert!(matches!(
            read_output(b"a: [\n").unwrap_err(),
            PluginProblem::BadOutput(_)
        ));
    }
}
