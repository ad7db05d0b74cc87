//! Where a value is written in parsed YAML, for the positions [`super::report`] finds:
//! the literal blocks that hold a document (`patch: |`), the scalar among several that
//! holds a value a step set, an item of a `List`, a field's steps in a document.

use super::report::keys;
use crate::provenance::{FieldPath, Part};
use crate::yaml::locate::Located;
use crate::yaml::parse::PathStep;

/// A literal block scalar holding YAML (`patch: |`), parsed: its text keeps the file's
/// lines, indented.
pub(super) struct Block {
    /// The line of its indicator (`|`): the block's first line is the next.
    pub(super) header: usize,
    /// The indentation of its lines.
    pub(super) indent: usize,
    pub(super) docs: Vec<Option<Located>>,
}

impl Block {
    /// The block whose value (`content`) the parser placed at `line`:`column` of `text`:
    /// at its indicator or at its first line. `None` for a scalar of another style.
    pub(super) fn parse(text: &str, line: usize, column: usize, content: &str) -> Option<Block> {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .get(line.checked_sub(1)?)?
            .get(column.checked_sub(1)?..)?;
        let header = if at.starts_with('|') {
            line
        } else {
            let above = lines.get(line.checked_sub(2)?)?.trim_end();
            let indicator = above.rsplit(' ').next()?;
            (indicator.starts_with('|') && indicator.len() <= 3).then_some(line - 1)?
        };
        // The block's indentation: that of its first line that is not blank.
        let indent = lines
            .iter()
            .skip(header)
            .find(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start_matches(' ').len())?;
        Some(Block {
            header,
            indent,
            docs: Located::parse_all(content),
        })
    }
}

/// Which of `scalars` (with their positions) holds `after`, a value a step set in a
/// field whose key is `own_key` (`before`: the value it replaced): a generator literal
/// `key=value` of the field's own key, else the scalar equal to it, else (when the
/// field has no key of its own) any literal with the value, else the longest scalar that
/// is part of it and was not part of the old value (an image's new tag in `nginx:1.27`).
pub(super) fn holding(
    scalars: &[(&str, (usize, usize))],
    own_key: Option<&str>,
    after: &str,
    before: Option<&str>,
) -> Option<(usize, usize)> {
    let keyed = scalars.iter().find(|(s, _)| {
        s.split_once('=')
            .is_some_and(|(k, v)| Some(k.trim()) == own_key && v == after)
    });
    let exact = || scalars.iter().find(|(s, _)| *s == after);
    // A literal of another key does not hold the value, whatever its value (an env
    // file's `ENVIRONMENT=prod` beside a literal `DEPLOY_ENV=prod`); when the field
    // has no key of its own, any literal with the value.
    let literal = || {
        scalars
            .iter()
            .find(|(s, _)| own_key.is_none() && s.split_once('=').is_some_and(|(_, v)| v == after))
    };
    let part = || {
        scalars
            .iter()
            .filter(|(s, _)| {
                !s.is_empty() && after.contains(s) && before.is_none_or(|b| !b.contains(s))
            })
            .max_by_key(|(s, _)| s.len())
    };
    keyed
        .or_else(exact)
        .or_else(literal)
        .or_else(part)
        .map(|(_, p)| *p)
}

/// The path of the element of `doc`'s `items` list with this kind and name.
pub(super) fn list_item(doc: &Located, kind: &str, name: &str) -> Option<Vec<PathStep>> {
    // The items are looked at in turn until one is missing (the document is finite).
    (0..)
        .map_while(|i| {
            let item = vec![PathStep::Key("items".into()), PathStep::Index(i)];
            doc.value(&item)?;
            Some(item)
        })
        .find(|item| {
            let scalar = |k: &[&str]| {
                let mut path = item.clone();
                path.extend(keys(k));
                doc.scalar(&path).map(str::to_string)
            };
            scalar(&["kind"]).as_deref() == Some(kind)
                && scalar(&["metadata", "name"]).as_deref() == Some(name)
        })
}

/// `field` as key and index steps in `doc` below `prefix`, a selector `[name=web]`
/// resolved to the element of that name; `None` when the document does not have it.
pub(super) fn steps_in(
    doc: &Located,
    prefix: Vec<PathStep>,
    field: &FieldPath,
) -> Option<Vec<PathStep>> {
    let mut steps: Vec<PathStep> = prefix;
    steps.reserve(field.0.len());
    for part in &field.0 {
        let step = match part {
            Part::Key(k) => PathStep::Key(k.to_string()),
            Part::Index(i) => PathStep::Index(*i),
            Part::Entry(e) => {
                let (k, v) = &**e;
                // The elements are looked at in turn until one is missing (the document
                // is finite).
                let mut index = None;
                for i in 0.. {
                    let mut probe = steps.clone();
                    probe.push(PathStep::Index(i));
                    doc.value(&probe)?;
                    probe.push(PathStep::Key(k.to_string()));
                    if doc.scalar(&probe) == Some(v.as_str()) {
                        index = Some(i);
                        break;
                    }
                }
                PathStep::Index(index?)
            }
        };
        steps.push(step);
    }
    Some(steps)
}
