//! Lists of a custom resource that strategic-merge patches replaced whole, remembered on the
//! resource until the end of the build, where the CRDs in the output say which of them
//! declare keys (`x-kubernetes-list-type: map`) and deserve a warning (see
//! `transform/list_replace.rs`).

use crate::yaml::Node;
use std::sync::Arc;

/// One list a patch replaced.
#[derive(Clone, Debug)]
pub struct ReplacedList {
    /// The fields leading to the list from the resource's top.
    pub path: Vec<String>,
    /// The resource's list before the patch.
    pub before: Node,
    /// The patch's list, which took its place.
    pub patch_list: Node,
    /// The patch, named as warnings name it ("patches\[0\] 'p.yaml' of …/kustomization.yaml").
    pub patch: Arc<str>,
    /// The patch file as the kustomization names it, its text and which of its documents
    /// did it (for the line of the list); `None` for an inline patch.
    pub file: Option<(Arc<str>, Arc<str>, usize)>,
}

/// The lists patches replaced in one resource; nothing allocated until there is one (a
/// resource's size counts: a build holds many).
#[derive(Clone, Debug, Default)]
pub struct ReplacedLists(Option<Box<[ReplacedList]>>);

impl ReplacedLists {
    /// Notes a replaced list (rare: a copy of the few noted so far is fine).
    pub fn push(&mut self, list: ReplacedList) {
        let mut all = self.0.take().map(Vec::from).unwrap_or_default();
        all.push(list);
        self.0 = Some(all.into_boxed_slice());
    }

    /// The lists noted, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &ReplacedList> {
        self.0.iter().flat_map(|v| v.iter())
    }

    /// Whether none was noted.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
}
