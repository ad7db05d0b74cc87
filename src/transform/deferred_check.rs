//! The values kustomize holds untagged, or as a text beside a kept tag, typed as go-yaml
//! reads them when kustomize turns a resource into JSON (to print it, before a JSON 6902
//! patch, and where the vars' pass reads them): a text the type cannot read fails there,
//! in the context of the replacement entry that wrote it (`resource::deferred`).

use crate::error::{Context, Result};
use crate::merge::scalar_style;
use crate::resource::Resource;
use crate::yaml::Node;

/// When [`resolve`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resolving {
    /// At the end of the build, as the resource is printed: an error is the write's.
    Printing,
    /// The same, for the kept tags alone, as the vars' pass reads them.
    KeptForVars,
    /// Before a JSON patch, which is the step that fails: the write is named in one line.
    BeforeJsonPatch,
}

/// Types the values kustomize keeps untagged or with a kept tag, as it does when it
/// prints the resource or turns it into JSON ([`scalar_style::resolve_untagged`]). A
/// text the type cannot read fails, naming the replacement entry that wrote it.
pub(crate) fn resolve(res: &mut Resource, when: Resolving) -> Result<()> {
    let items = resolve_kept_items(res);
    let resolved = items.and_then(|()| {
        if when == Resolving::KeptForVars {
            scalar_style::resolve_kept_tags(res.node_mut())
        } else {
            scalar_style::resolve_untagged(res.node_mut())
        }
    });
    resolved.map_err(|u| {
        let Some(contexts) = res.writers.contexts_of(&u.field, &u.text) else {
            return u.error.context(res.id().to_string());
        };
        if when != Resolving::BeforeJsonPatch {
            return contexts.iter().fold(u.error, |e, c| e.within(c.clone()));
        }
        // The patch's own entry stays the error's position; the write is a note
        // (outermost first: `file:4:3: replacements[0], targets[0], target ...`).
        let entry = contexts.iter().any(|c| matches!(c, Context::Entry(_)));
        let write: Vec<String> = contexts
            .iter()
            .rev()
            .filter(|c| !(entry && matches!(c, Context::Item { .. })))
            .map(ToString::to_string)
            .collect();
        u.error
            .context(format!("the text was written by {}", write.join(", ")))
    })
}

/// The list items holding a text beside a kept tag, read as that tag (see
/// `resource::deferred`).
fn resolve_kept_items(res: &mut Resource) -> std::result::Result<(), scalar_style::Unreadable> {
    for (at, text, tag, field) in res.writers.kept_items() {
        let Some(node) = res.node_mut().at_steps_mut(&at) else {
            continue;
        };
        if !matches!(node, Node::Str(t) if **t == *text) {
            continue;
        }
        if let Some(typed) = scalar_style::read_as_printed(&text, Some(tag.name()), || field)? {
            *node = typed;
        }
    }
    Ok(())
}
