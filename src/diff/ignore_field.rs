//! `kbuild diff --ignore-field PATH`: the field paths it takes (`a.b[name=x].c`, with
//! `[N]`, `[field=value]` and `[*]` selectors) and their removal from both sides before
//! they are compared.

use crate::error::{Error, Result};
use crate::yaml::Node;

/// One step of a field path: a key, then optional element selectors.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Segment {
    key: String,
    selectors: Vec<Selector>,
}

#[derive(Clone, Debug, PartialEq)]
enum Selector {
    /// `[3]`
    Index(usize),
    /// `[name=web]`
    Field(String, String),
    /// `[*]`
    All,
}

/// A parsed `--ignore-field` path.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FieldPath(pub(super) Vec<Segment>);

impl FieldPath {
    /// Parses `a.b[name=x].c`. Keys are separated by dots; brackets select
    /// sequence elements by index, by a field's value, or all (`[*]`).
    pub(super) fn parse(text: &str) -> Result<FieldPath> {
        let bad = |why: &str| Error::invalid_config(format!("invalid field path '{text}': {why}"));
        let mut segments = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            let mut seg = Segment {
                key: rest[..end].to_string(),
                selectors: Vec::new(),
            };
            rest = &rest[end..];
            while let Some(inner) = rest.strip_prefix('[') {
                let close = inner.find(']').ok_or_else(|| bad("missing ']'"))?;
                let sel = &inner[..close];
                seg.selectors.push(if sel == "*" {
                    Selector::All
                } else if let Some((k, v)) = sel.split_once('=') {
                    Selector::Field(k.to_string(), v.to_string())
                } else {
                    Selector::Index(
                        sel.parse()
                            .map_err(|_| bad("a selector is [N], [field=value] or [*]"))?,
                    )
                });
                rest = &inner[close + 1..];
            }
            if seg.key.is_empty() && seg.selectors.is_empty() {
                return Err(bad("empty key"));
            }
            segments.push(seg);
            match rest.strip_prefix('.') {
                Some("") => return Err(bad("ends with '.'")),
                Some(r) => rest = r,
                None if rest.is_empty() => {}
                None => return Err(bad("expected '.' after ']'")),
            }
        }
        if segments.is_empty() {
            return Err(bad("empty path"));
        }
        Ok(FieldPath(segments))
    }
}

/// Removes the field at `path` (every match of it). Keys may themselves
/// contain dots (`metadata.annotations.kubernetes.io/change-cause`): at each
/// mapping the longest run of segments that names an existing key wins. A
/// sequence met before the path ends is crossed into every element.
pub(super) fn remove_field(node: &mut Node, path: &[Segment]) {
    if path.is_empty() {
        return;
    }
    match node {
        Node::Seq(items) => items.iter_mut().for_each(|n| remove_field(n, path)),
        Node::Map(map) => {
            for k in (1..=path.len()).rev() {
                // Only the last segment of a joined key may carry selectors.
                if path[..k - 1].iter().any(|s| !s.selectors.is_empty()) {
                    continue;
                }
                let key = path[..k]
                    .iter()
                    .map(|s| s.key.as_str())
                    .collect::<Vec<_>>()
                    .join(".");
                if !map.contains_key(&key) {
                    continue;
                }
                let rest = &path[k..];
                let selectors = &path[k - 1].selectors;
                if selectors.is_empty() {
                    if rest.is_empty() {
                        map.shift_remove(&key);
                    } else if let Some(child) = map.get_mut(&key) {
                        let was_empty = is_empty_map(child);
                        remove_field(child, rest);
                        // A mapping the removal emptied goes too: ignoring the only
                        // annotation must not leave `annotations: {}` to differ.
                        if !was_empty && is_empty_map(child) {
                            map.shift_remove(&key);
                        }
                    }
                } else if let Some(child) = map.get_mut(&key) {
                    remove_selected(child, selectors, rest);
                }
                return;
            }
        }
        _ => {}
    }
}

fn is_empty_map(node: &Node) -> bool {
    matches!(node, Node::Map(m) if m.is_empty())
}

/// Applies element selectors to a sequence, then removes `rest` in each
/// selected element (or the elements themselves when `rest` is empty).
fn remove_selected(node: &mut Node, selectors: &[Selector], rest: &[Segment]) {
    let Some((first, more)) = selectors.split_first() else {
        remove_field(node, rest);
        return;
    };
    let Node::Seq(items) = node else { return };
    let selected = |i: usize, n: &Node| match first {
        Selector::All => true,
        Selector::Index(k) => i == *k,
        Selector::Field(f, v) => {
            n.get(f).and_then(Node::scalar_string).as_deref() == Some(v.as_str())
        }
    };
    if more.is_empty() && rest.is_empty() {
        let mut i = 0;
        items.retain(|n| {
            let keep = !selected(i, n);
            i += 1;
            keep
        });
        return;
    }
    for (i, n) in items.iter_mut().enumerate() {
        if selected(i, n) {
            remove_selected(n, more, rest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn node(text: &str) -> Node {
        parse_stream(text, "t").unwrap().remove(0)
    }

    fn yaml(node: &Node) -> String {
        super::super::yaml(node)
    }

    #[test]
    fn field_paths_parse() {
        let p = FieldPath::parse("spec.containers[name=web].env[0]").unwrap();
        assert_eq!(p.0.len(), 3);
        assert_eq!(
            p.0[1].selectors,
            vec![Selector::Field("name".into(), "web".into())]
        );
        assert_eq!(p.0[2].selectors, vec![Selector::Index(0)]);
        for bad in ["", "a.", "a[", "a[x]", "a[0]b", ".a"] {
            assert!(FieldPath::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn remove_field_handles_dotted_keys_and_sequences() {
        let mut n = node(
            "metadata:\n  annotations:\n    kubernetes.io/change-cause: x\n    keep: z\nspec:\n  containers:\n  - name: a\n    image: i\n  - name: b\n    image: j\n",
        );
        for p in [
            "metadata.annotations.kubernetes.io/change-cause",
            "spec.containers.image",
        ] {
            remove_field(&mut n, &FieldPath::parse(p).unwrap().0);
        }
        assert_eq!(
            yaml(&n),
            "metadata:\n  annotations:\n    keep: z\nspec:\n  containers:\n  - name: a\n  - name: b\n"
        );
        remove_field(
            &mut n,
            &FieldPath::parse("spec.containers[name=a]").unwrap().0,
        );
        assert_eq!(
            yaml(&n),
            "metadata:\n  annotations:\n    keep: z\nspec:\n  containers:\n  - name: b\n"
        );
    }

    #[test]
    fn a_mapping_emptied_by_the_removal_goes_too() {
        let mut n = node("metadata:\n  annotations:\n    x: \"1\"\n  name: a\n  labels: {}\n");
        remove_field(
            &mut n,
            &FieldPath::parse("metadata.annotations.x").unwrap().0,
        );
        remove_field(&mut n, &FieldPath::parse("metadata.labels.y").unwrap().0);
        // `labels: {}` was empty before: it stays, as written.
        assert_eq!(yaml(&n), "metadata:\n  labels: {}\n  name: a\n");
    }
}
