//! Who wrote a text whose type is checked only when the resource is printed: a
//! replacement keeps a typed field's tag beside a text it cannot read (`Style::Kept`), or
//! creates an untagged field holding `.inf`, and kustomize fails only when it turns the
//! resource into JSON, at the end of the build or before a JSON patch (a later replacement
//! may still write a text that reads). The failure is found far from the write; the
//! resource keeps, for each such field, the error context of the replacement entry that
//! wrote it, so the error still points at that entry's line and column (the check itself:
//! `transform::deferred_check`).
//!
//! A list item has no style to keep a tag in (`Style::Kept` is a mapping entry's): the
//! record keeps it instead, and a later replacement into the item reads its text under
//! that tag (`abc`, then `5`, into `ports: [80]` prints `5`), as kustomize's node does.

use crate::error::Context;
use crate::yaml::map::KeptTag;
use crate::yaml::parse::PathStep;

/// The writes of texts checked later, per field (see the module's comment).
#[derive(Clone, Debug, Default)]
pub struct Writers(Vec<Writer>);

#[derive(Clone, Debug)]
struct Writer {
    /// The field's path.
    at: Vec<PathStep>,
    /// For a list item, the tag kustomize's node kept beside the text.
    item_tag: Option<KeptTag>,
    /// The text written.
    text: String,
    /// The contexts of an error made where the write happened, innermost first.
    contexts: Vec<Context>,
    /// Whether the step that ran the write has added its own context (the entry's
    /// position in its kustomization file).
    settled: bool,
}

impl Writers {
    /// Records that a write with the error contexts `contexts` (innermost first) put
    /// `text` into the field at `at` (a list item's kept beside `item_tag`); it replaces
    /// an earlier write of the field.
    pub(crate) fn note(
        &mut self,
        at: &[PathStep],
        text: String,
        item_tag: Option<KeptTag>,
        contexts: Vec<Context>,
    ) {
        self.0.retain(|w| w.at != at);
        self.0.push(Writer {
            at: at.to_vec(),
            item_tag,
            text,
            contexts,
            settled: false,
        });
    }

    /// The tag kept beside the list item at `at`, while it holds the text written there.
    pub(crate) fn item_tag(&self, at: &[PathStep], text: &str) -> Option<KeptTag> {
        self.0
            .iter()
            .find(|w| w.item_tag.is_some() && w.at == at && w.text == text)?
            .item_tag
    }

    /// The step that ran the writes recorded since it started adds its context to each:
    /// `outer` is given a write's contexts, and says what the step would have wrapped an
    /// error of that write in, innermost first.
    pub(crate) fn settle(&mut self, outer: impl Fn(&[Context]) -> Vec<Context>) {
        for w in self.0.iter_mut().filter(|w| !w.settled) {
            let more = outer(&w.contexts);
            w.contexts.extend(more);
            w.settled = true;
        }
    }

    /// The list items written with a kept tag: path, text, tag and field name.
    pub(crate) fn kept_items(&self) -> Vec<(Vec<PathStep>, String, KeptTag, String)> {
        self.0
            .iter()
            .filter_map(|w| Some((w.at.clone(), w.text.clone(), w.item_tag?, field_of(&w.at))))
            .collect()
    }

    /// The contexts of the write that put `text` into `field`, innermost first.
    pub(crate) fn contexts_of(&self, field: &str, text: &str) -> Option<&[Context]> {
        // Only on the error path: the field names are made here, not kept.
        let w = self
            .0
            .iter()
            .find(|w| w.text == text && field_of(&w.at) == field)?;
        Some(&w.contexts)
    }
}

/// The field at `at` as the errors name it (`spec.ports.0.port`).
fn field_of(at: &[PathStep]) -> String {
    let steps: Vec<String> = at
        .iter()
        .map(|s| match s {
            PathStep::Key(k) => k.clone(),
            PathStep::Index(i) => i.to_string(),
        })
        .collect();
    steps.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(w: &Writers, field: &str, text: &str) -> Option<Vec<String>> {
        let contexts = w.contexts_of(field, text)?;
        Some(contexts.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn the_last_write_of_a_field_is_kept_and_settled_once() {
        let mut w = Writers::default();
        let at = |s: &str| vec![Context::Text(s.to_string())];
        let path = |k: &str| vec![PathStep::Key("spec".into()), PathStep::Key(k.into())];
        w.note(&path("x"), "abc".into(), None, at("first"));
        w.settle(|_| at("base"));
        w.note(&path("x"), "abc2".into(), None, at("second"));
        w.note(&path("y"), "def".into(), None, at("third"));
        // A step settles only what it wrote.
        w.settle(|_| at("overlay"));
        assert_eq!(texts(&w, "spec.x", "abc"), None);
        assert_eq!(
            texts(&w, "spec.x", "abc2"),
            Some(vec!["second".into(), "overlay".into()])
        );
        assert_eq!(
            texts(&w, "spec.y", "def"),
            Some(vec!["third".into(), "overlay".into()])
        );
        // A text other than the one written (a patch changed it since) is not the write's.
        assert_eq!(texts(&w, "spec.y", "other"), None);
        // A list item's tag is the record's, while the item holds the text written.
        let item = [PathStep::Key("ports".into()), PathStep::Index(0)];
        w.note(&item, "abc".into(), Some(KeptTag::Int), at("fourth"));
        assert_eq!(w.item_tag(&item, "abc"), Some(KeptTag::Int));
        assert_eq!(w.item_tag(&item, "5"), None);
        assert_eq!(w.item_tag(&path("x"), "abc2"), None);
    }
}
