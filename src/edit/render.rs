//! New text for an edited document, written in the style of the lines around it:
//! scalars quoted as kustomize's writer quotes them (the emitter of `kbuild build`),
//! nested values indented by the file's own step, lists indented under their key or not
//! as the file already writes them.

use crate::yaml::{Map, Node};

/// How a file indents nested values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// Columns a nested mapping's keys sit right of their parent key.
    pub(crate) step: usize,
    /// Columns list dashes sit right of their key: 0 for kustomize's own style
    /// (`key:\n- a`), 2 for `key:\n  - a`.
    pub(crate) seq_offset: usize,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            step: 2,
            seq_offset: 0,
        }
    }
}

/// A scalar (or empty collection) as kustomize would write it after `key: `, its
/// continuation lines (block scalars, long folded strings) indented for a key at `col`.
pub(crate) fn render_scalar(value: &Node, col: usize) -> String {
    let mut map = Map::new();
    map.insert("k", value.clone());
    let mut out = String::new();
    crate::yaml::emit::emit_document(&Node::Map(map), &mut out);
    let body = out.strip_prefix("k:").unwrap_or(&out);
    let body = body.strip_prefix(' ').unwrap_or(body);
    let body = body.strip_suffix('\n').unwrap_or(body);
    indent_continuation(body, col)
}

/// A mapping key as kustomize would write it.
pub(crate) fn render_key(key: &str) -> String {
    let mut map = Map::new();
    map.insert(key, Node::Null);
    let mut out = String::new();
    crate::yaml::emit::emit_document(&Node::Map(map), &mut out);
    out.strip_suffix(": null\n").unwrap_or(key).to_string()
}

/// What follows `key:` for a key at column `col`: ` value` for a scalar, or a line
/// break and the nested block. No final line break.
pub(crate) fn render_after_key(value: &Node, col: usize, layout: &Layout) -> String {
    let nested = match value {
        Node::Map(_) => col + layout.step,
        _ => col + layout.seq_offset,
    };
    block(value, nested, false, layout).unwrap_or_else(|| format!(" {}", render_scalar(value, col)))
}

/// What follows `- ` for a list item whose dash is at column `dash`. No final line
/// break.
pub(crate) fn render_item(value: &Node, dash: usize, layout: &Layout) -> String {
    block(value, dash + 2, true, layout).unwrap_or_else(|| render_scalar(value, dash))
}

/// A non-empty collection's entries (or items, each with its dash), one a line at
/// column `col`; with `inline`, the first stays on the current line (after a dash).
/// `None` for a scalar or an empty collection.
fn block(value: &Node, col: usize, inline: bool, layout: &Layout) -> Option<String> {
    let mut out = String::new();
    let new_line = |out: &mut String, i: usize| {
        if i > 0 || !inline {
            out.push('\n');
            out.push_str(&" ".repeat(col));
        }
    };
    match value {
        Node::Map(m) if !m.is_empty() => {
            for (i, (k, v)) in m.iter().enumerate() {
                new_line(&mut out, i);
                out.push_str(&render_key(k));
                out.push(':');
                out.push_str(&render_after_key(v, col, layout));
            }
        }
        Node::Seq(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                new_line(&mut out, i);
                out.push_str("- ");
                out.push_str(&render_item(item, col, layout));
            }
        }
        _ => return None,
    }
    Some(out)
}

fn indent_continuation(text: &str, col: usize) -> String {
    if col == 0 || !text.contains('\n') {
        return text.to_string();
    }
    let pad = " ".repeat(col);
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str(&pad);
            }
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, Node)]) -> Node {
        let mut m = Map::new();
        for (k, v) in pairs {
            m.insert(*k, v.clone());
        }
        Node::Map(m)
    }

    #[test]
    fn scalars_are_quoted_as_kustomize_writes_them() {
        assert_eq!(render_scalar(&Node::text("web"), 0), "web");
        assert_eq!(render_scalar(&Node::text("1.0"), 0), "\"1.0\"");
        assert_eq!(render_scalar(&Node::text("yes"), 0), "\"yes\"");
        assert_eq!(render_scalar(&Node::text("-p"), 0), "-p");
        assert_eq!(render_scalar(&Node::Int(3), 0), "3");
        assert_eq!(render_scalar(&Node::text("a\nb"), 2), "|-\n    a\n    b");
    }

    #[test]
    fn nested_values_follow_the_layout() {
        let value = map(&[
            ("name", Node::text("web")),
            ("list", Node::Seq(vec![Node::text("a")])),
        ]);
        let flat = Layout::default();
        assert_eq!(
            render_after_key(&value, 0, &flat),
            "\n  name: web\n  list:\n  - a"
        );
        let indented = Layout {
            step: 4,
            seq_offset: 4,
        };
        assert_eq!(
            render_after_key(&value, 0, &indented),
            "\n    name: web\n    list:\n        - a"
        );
        assert_eq!(
            render_item(&value, 2, &flat),
            "name: web\n    list:\n    - a"
        );
    }
}
