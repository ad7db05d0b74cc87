//! Writing into YAML or JSON text held in a string field (kustomize v5.8.0,
//! `setValueInStructuredData`): a target path such as
//! `data.[config.json].server.port` goes on inside the text of
//! `data.config.json`.
//!
//! What kustomize does, measured against v5.8.1 and reproduced here:
//! - Before the ordinary walk, it looks for the first prefix of the path
//!   (looked up as a source path is: `[name=x]` exact and first match only,
//!   no `*`) that reaches a scalar with more of the path after it and whose
//!   text parses as YAML. JSON is YAML, and so is nearly any string.
//! - The rest of the path is walked in the parsed text (the target walk,
//!   `options.create` included). A scalar found there gets the value's text
//!   and keeps its tag and style; anything else is replaced by the value.
//!   `options.delimiter` and `index` do not apply there.
//! - The text is written back: as JSON when it starts (after blanks) with `{`
//!   or `[`, through Go's `encoding/json` (keys sorted, `<`, `>`, `&`
//!   escaped, numbers as Go formats them), indented by two spaces when the
//!   original holds both a line break and two spaces in a row, compact
//!   otherwise; as YAML otherwise, through go-yaml v3's encoder (see
//!   [`crate::yaml::styled::emit`]), trimmed.
//! - Any failure on the way (no such field, a value JSON cannot hold, such
//!   as a text in a number's place: `!!int abc`) silently gives up, and the
//!   ordinary walk runs instead. That walk now also goes on into scalars, but
//!   in a parsed copy it then drops (see `field_path::walk`): so a path that
//!   exists there but could not be written leaves the text unchanged and
//!   reports nothing. kustomize does that; kbuild follows it.
//! - A null field holding the text (`key: null`) takes the new text but,
//!   being a null, still prints `null`: nothing changes. A null written as
//!   nothing (`key:`) is an empty text, which the walk fails on.
//!
//! kbuild keeps no comments, anchors or aliases of such text: rewriting YAML
//! text that holds comments, or text with anchors, is an error rather than a
//! silent difference from kustomize (JSON text has neither).

use super::value::Value;
use crate::error::{Error, Result};
use crate::resource::Resource;
use crate::transform::field_path::{FieldPath, NewLeaf, Options};
use crate::yaml::Node;
use crate::yaml::gojson::{self, Numbers};
use crate::yaml::parse::PathStep;
use crate::yaml::styled::{Kind, Parsed, Styled};

/// Tries to put `value` at `path` inside text held by one of the resource's
/// string fields. `Ok(false)`: the path does not lead into such text, or
/// kustomize would give up on it (the ordinary walk runs then).
pub(super) fn set(
    res: &mut Resource,
    path: &FieldPath,
    value: &Value,
    create: Option<NewLeaf>,
) -> Result<bool> {
    let Some(found) = find_text(res, path)? else {
        return Ok(false);
    };
    let Some(mut doc) = found.parsed.root else {
        // An empty text: the walk fails on it.
        return Ok(false);
    };
    let opts = Options {
        create,
        into_text: true,
        empty_nulls: &[],
        trail: false,
    };
    let mut put = |t: &mut Styled, _created: bool, _: &[PathStep]| {
        match &mut t.kind {
            Kind::Scalar(text) => *text = value.text().to_string(),
            _ => *t = value.to_styled(),
        }
        Ok(())
    };
    let visited = path
        .matcher_from(found.at)
        .visit(&mut doc, opts, &mut put, &mut |_| Ok(()));
    match visited {
        Ok(0) => return Ok(false),
        Ok(_) => {}
        Err(e @ Error::Unsupported { .. }) => return Err(e),
        Err(_) => return Ok(false),
    }
    let Some(text) = write_back(&doc, &found.text, found.parsed.has_comments)? else {
        return Ok(false);
    };
    if let Some(Node::Str(s)) = node_at_mut(res.node_mut(), &found.steps) {
        *s = text.into();
    }
    // A null field keeps printing null (see the module documentation).
    Ok(true)
}

/// The scalar a path goes on into, and its text parsed.
struct Found {
    /// How many target parts lead to the scalar.
    at: usize,
    steps: Vec<PathStep>,
    text: String,
    parsed: Parsed,
}

/// kustomize's search for the scalar: the first prefix of the path that
/// reaches a scalar with more parts after it and whose text parses.
fn find_text(res: &Resource, path: &FieldPath) -> Result<Option<Found>> {
    let parts = path.target_parts().len();
    if parts < 2 {
        return Ok(None);
    }
    for at in 1..parts {
        // A prefix that is missing or fails to look up makes every longer
        // one do the same: kustomize's search goes on, finding nothing.
        let Ok(Some((node, steps))) = path.lookup_prefix(res.node(), at) else {
            return Ok(None);
        };
        let text = match node {
            Node::Map(_) | Node::Seq(_) => continue,
            Node::Str(s) => s.to_string(),
            Node::Null if res.empty_nulls.contains(&steps) => String::new(),
            Node::Null => "null".to_string(),
            // A number or boolean parses as one, and no path part applies to
            // it: kustomize gives up on the text and walks as usual.
            _ => return Ok(None),
        };
        match crate::yaml::parse::parse_styled(&text, &format!("the text at '{path}'")) {
            Ok(parsed) => {
                return Ok(Some(Found {
                    at,
                    steps,
                    text,
                    parsed,
                }));
            }
            Err(e @ Error::Unsupported { .. }) => return Err(e),
            // Not YAML: kustomize tries the longer prefixes, which all fail
            // on this scalar.
            Err(_) => return Ok(None),
        }
    }
    Ok(None)
}

/// The changed text as kustomize writes it back (`serializeStructuredData`);
/// `None` when JSON cannot hold the value.
fn write_back(doc: &Styled, original: &str, has_comments: bool) -> Result<Option<String>> {
    let trimmed = original.trim();
    if trimmed.starts_with(['{', '[']) {
        let Ok(value) = doc.decoded() else {
            return Ok(None);
        };
        let pretty = original.contains('\n') && original.contains("  ");
        let json = if pretty {
            gojson::to_string_indent(&value, Numbers::AsIs, "  ")
        } else {
            gojson::to_string(&value, Numbers::AsIs)
        };
        return Ok(json.ok());
    }
    if has_comments {
        return Err(Error::Unsupported {
            what: "the YAML text a replacement writes into holds comments, which kustomize \
                   v5.8.1 writes back and kbuild does not keep"
                .into(),
            hint: Some(
                "move the comments out of the text, or write the value into it by hand".into(),
            ),
        });
    }
    Ok(Some(
        crate::yaml::styled::emit::to_string(doc).trim().to_string(),
    ))
}

fn node_at_mut<'n>(node: &'n mut Node, steps: &[PathStep]) -> Option<&'n mut Node> {
    let mut cur = node;
    for step in steps {
        cur = match (cur, step) {
            (Node::Map(m), PathStep::Key(k)) => m.get_mut(k.as_str())?,
            (Node::Seq(items), PathStep::Index(i)) => items.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}
