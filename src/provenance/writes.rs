//! The fields a step wrote, whatever their value: what a comparison cannot see.
//!
//! A step is recorded by comparing each resource before and after it ([`super::diff`]),
//! so a patch or a label that writes the value a field already had leaves no trace, and
//! `explain` would credit the field to whoever wrote it first: changing that source then
//! changes nothing in the output (the patch writes its own value over it). The
//! transformers that write values as their configuration says (strategic merge and JSON
//! 6902 patches, labels and annotations) note which fields they wrote (found here, noted
//! with `Resource::note_written`) in the resource's record only (nothing when provenance
//! is off), as does a generator with `behavior: merge` or `replace` for what it
//! generated; the step's record then adds a change from the value to itself for each
//! field noted that the comparison did not find changed.

use super::diff::{collect, is_leaf};
use super::path::{FieldPath, MERGE_KEYS, Part, element_parts};
use crate::yaml::Node;

/// The leaves of `result` (a resource after a strategic merge patch, or after a generator
/// merged into it) that `patch` (the patch, or what the generator made) wrote:
/// each scalar of the patch, at the place the merge put it; a list of scalars the patch
/// gives is written whole. Directives (`$patch`, `$setElementOrder/...`), deletions
/// (`null`) and the resource's identity (`apiVersion`, `kind`, `metadata.name`,
/// `metadata.namespace`, which a patch names its target by) are not writes.
pub(crate) fn merged(result: &Node, patch: &Node) -> Vec<FieldPath> {
    let mut out = Vec::new();
    let mut at = FieldPath::default();
    merged_in(&mut at, result, patch, &mut out);
    out
}

fn merged_in(at: &mut FieldPath, node: &Node, patch: &Node, out: &mut Vec<FieldPath>) {
    match (node, patch) {
        (Node::Map(m), Node::Map(p)) => {
            for (k, pv) in p.iter() {
                if k.starts_with('$') || identity(at, k) {
                    continue;
                }
                if let Some(v) = m.get(k) {
                    at.0.push(Part::Key(k.clone()));
                    merged_in(at, v, pv, out);
                    at.0.pop();
                }
            }
        }
        (Node::Seq(items), Node::Seq(given)) => {
            let parts = element_parts(items);
            if given.iter().all(|g| g.as_map().is_some()) {
                for g in given {
                    if let Some(i) = paired(items, g) {
                        at.0.push(parts[i].clone());
                        merged_in(at, &items[i], g, out);
                        at.0.pop();
                    }
                }
            } else {
                // A list of scalars is replaced by the patch's.
                for (part, item) in parts.into_iter().zip(items) {
                    at.0.push(part);
                    leaves_of(at, item, out);
                    at.0.pop();
                }
            }
        }
        (_, Node::Null) => {}
        // Only a value the patch holds: one the merge did not take (a kustomize quirk)
        // is not the patch's.
        (node, _) if is_leaf(node) && node == patch => out.push(at.clone()),
        _ => {}
    }
}

/// The leaves of `result` (a resource after a JSON 6902 patch) that the operations
/// `ops` wrote: everything below the `path` of an `add`, `replace` or `copy`.
pub(crate) fn json_ops(result: &Node, ops: &Node) -> Vec<FieldPath> {
    let mut out = Vec::new();
    for op in ops.as_seq().into_iter().flatten() {
        if !matches!(op.get_str(&["op"]), Some("add" | "replace" | "copy")) {
            continue;
        }
        let Some(pointer) = op.get_str(&["path"]) else {
            continue;
        };
        let mut at = FieldPath::default();
        if let Some(node) = follow(result, pointer, &mut at) {
            leaves_of(&mut at, node, &mut out);
        }
    }
    out
}

/// The field `field` of the elements at `indices` of the list under the top-level key
/// `list` in `result` (the ServiceAccount subjects whose namespace the namespace
/// transformer set), named as provenance names list elements.
pub(crate) fn element_fields(
    result: &Node,
    list: &str,
    indices: &[usize],
    field: &str,
) -> Vec<FieldPath> {
    let Some(Node::Seq(items)) = result.get(list) else {
        return Vec::new();
    };
    let parts = element_parts(items);
    indices
        .iter()
        .filter_map(|&i| {
            let part = parts.get(i)?.clone();
            Some(FieldPath(vec![
                Part::Key(list.into()),
                part,
                Part::Key(field.into()),
            ]))
        })
        .collect()
}

/// The node a JSON pointer leads to in `node` (`-` is the last element: where an `add`
/// put it), with its path as provenance names it in `at`.
fn follow<'n>(node: &'n Node, pointer: &str, at: &mut FieldPath) -> Option<&'n Node> {
    let mut here = node;
    for raw in pointer.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        here = match here {
            Node::Map(m) => {
                let next = m.get(&token)?;
                at.0.push(Part::Key(token.as_str().into()));
                next
            }
            Node::Seq(items) => {
                let i = match token.as_str() {
                    "-" => items.len().checked_sub(1)?,
                    t => t.parse().ok()?,
                };
                let next = items.get(i)?;
                at.0.push(element_parts(items).swap_remove(i));
                next
            }
            _ => return None,
        };
    }
    Some(here)
}

/// The element of `items` a patch's element `given` merges into: the one that agrees
/// with it on every key strategic merge may pair elements by (a key one has and the other
/// has not is a disagreement: kustomize does not merge a Service port patch without a
/// `protocol` into the port that has one, TestPatchPortHasNoProtocol). `None` when
/// `given` has none of the keys, or no element agrees: then nothing is credited to the
/// patch, and the field stays with whoever wrote it before.
fn paired(items: &[Node], given: &Node) -> Option<usize> {
    let keys = || {
        std::iter::once("name")
            .chain(MERGE_KEYS)
            .chain(std::iter::once("protocol"))
    };
    if !keys().any(|k| k != "protocol" && given.get(k).is_some()) {
        return None;
    }
    items
        .iter()
        .position(|item| keys().all(|k| item.get(k) == given.get(k)))
}

/// Whether `key` below `at` is a field a patch names its target by.
fn identity(at: &FieldPath, key: &str) -> bool {
    match at.0.as_slice() {
        [] => matches!(key, "apiVersion" | "kind"),
        [Part::Key(m)] if m.as_str() == "metadata" => matches!(key, "name" | "namespace"),
        _ => false,
    }
}

/// Every leaf at or below `node` (at `at`).
fn leaves_of(at: &mut FieldPath, node: &Node, out: &mut Vec<FieldPath>) {
    collect(at, node, &mut |path, _| out.push(path.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Node {
        crate::yaml::parse::parse_document(text, "t").expect("yaml")
    }

    fn shown(paths: Vec<FieldPath>) -> Vec<String> {
        paths.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_merge_patch_writes_its_scalars_where_the_merge_put_them() {
        let result = doc(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  labels: {a: x}\nspec:\n  ports:\n  - port: 443\n  - port: 80\n    protocol: TCP\n  args: [a, b]\n",
        );
        let patch = doc(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  labels: {a: x}\nspec:\n  ports:\n  - port: 80\n    protocol: TCP\n  - $patch: delete\n    port: 9\n  args: [a, b]\n  gone: null\n",
        );
        assert_eq!(
            shown(merged(&result, &patch)),
            [
                "metadata.labels.a",
                "spec.ports.1.port",
                "spec.ports.1.protocol",
                "spec.args.0",
                "spec.args.1"
            ]
        );
    }

    #[test]
    fn element_fields_name_the_elements_as_provenance_does() {
        let result = doc(
            "subjects:\n- {kind: ServiceAccount, name: default, namespace: foo}\n- {kind: User, name: u}\n",
        );
        assert_eq!(
            shown(element_fields(&result, "subjects", &[0, 5], "namespace")),
            ["subjects.[name=default].namespace"]
        );
        assert!(element_fields(&result, "roleRef", &[0], "namespace").is_empty());
    }

    #[test]
    fn a_json_patch_writes_what_is_below_its_paths() {
        let result = doc("spec:\n  c:\n  - name: web\n    image: x\n  r: 3\n");
        let ops = doc(
            "- op: replace\n  path: /spec/c/0\n  value: {name: web, image: x}\n- op: remove\n  path: /spec/q\n- op: add\n  path: /spec/r\n  value: 3\n",
        );
        assert_eq!(
            shown(json_ops(&result, &ops)),
            [
                "spec.c.[name=web].name",
                "spec.c.[name=web].image",
                "spec.r"
            ]
        );
    }
}
