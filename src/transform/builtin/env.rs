//! What built-in transformers need from the kustomization that runs them:
//! a way to read files named in their config (under the load restrictor), the
//! merge options (schemas), and, within a build, a cache of parsed patches.

use crate::error::Result;
use crate::kustomize_version::KustomizeVersion;
use crate::merge::smp::MergeOptions;
use crate::transform::patch;
use crate::yaml::Node;
use std::sync::Arc;

/// Parses patch texts; a build's implementation parses each text once.
pub(crate) trait PatchParser: Sync {
    /// `patch::classify(text, source)`.
    fn patch(&self, text: &str, source: &str) -> Result<Arc<patch::Loaded>>;
    /// `json6902::parse_ops(text, source)`.
    fn json_ops(&self, text: &str, source: &str) -> Result<Arc<Node>>;
}

/// The surroundings of one transformer run.
pub(crate) struct Env<'a> {
    /// The kustomization's directory (ValueAddTransformer's default value is its name).
    pub dir: &'a std::path::Path,
    /// Reads a file relative to the kustomization, under the load restrictor;
    /// the second argument says what the file is, for errors ("patch file").
    pub read: &'a mut dyn FnMut(&str, &str) -> Result<String>,
    /// Parses patch texts.
    pub parsed: &'a dyn PatchParser,
    /// Merge keys and strategies for strategic merges.
    pub merge: &'a MergeOptions<'a>,
    /// The kustomize release being reproduced (see its named switches).
    pub version: KustomizeVersion,
    /// The build's output budget (see resource/budget.rs).
    pub budget: &'a crate::resource::budget::Budget,
    /// The step being run, as warnings name it (see `Step::warn_as`).
    pub step: Option<String>,
    /// With `buildMetadata`: the texts of kustomize's bookkeeping annotations, which a
    /// JSON patch sees (see transform/patch.rs).
    pub build_meta: Option<crate::transform::build_metadata::Texts<'a>>,
}

impl Env<'_> {
    /// A reader of files of one kind (`what`), as the transformer functions take it.
    pub(crate) fn reader<'s>(
        &'s mut self,
        what: &'s str,
    ) -> impl FnMut(&str) -> Result<String> + 's {
        move |path| (self.read)(path, what)
    }
}
