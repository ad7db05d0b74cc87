//! `namePrefix` and `nameSuffix`.

use crate::config::fieldspec::{CreateKind, SplitSpecs};
use crate::error::Result;
use crate::kustomization::FieldSpec;
use crate::resource::resmap::ResMap;
use crate::resource::shared::trail_of;
use crate::yaml::Node;

/// Kinds kustomize never renames with a prefix or suffix (group, kind).
const SKIPPED: [(&str, &str); 3] = [
    ("", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("", "Namespace"),
];

/// Prepends `prefix` and appends `suffix` to the names at the field specs.
pub(crate) fn apply(
    resmap: &mut ResMap,
    prefix: &str,
    suffix: &str,
    specs: &[FieldSpec],
) -> Result<()> {
    if prefix.is_empty() && suffix.is_empty() {
        return Ok(());
    }
    let split = SplitSpecs::new(specs);
    // Each resource on its own (on the thread pool for a large map), with a trail of
    // steps reused across those of one thread.
    resmap.try_for_each_mut(Vec::new, |trail, _, res| {
        // kustomize decides on the original id.
        let orig = res.orig_id();
        let skip = SKIPPED
            .iter()
            .any(|(g, k)| orig.gvk.kind == *k && (g.is_empty() || orig.gvk.group == *g));
        if skip {
            return Ok(());
        }
        let gvk = orig.gvk.clone();
        if specs
            .iter()
            .any(|fs| fs.selects(&gvk) && fs.path == "metadata/name")
        {
            res.store_prev_id();
            if !prefix.is_empty() {
                res.name_prefixes.push(prefix.to_string());
            }
            if !suffix.is_empty() {
                res.name_suffixes.push(suffix.to_string());
            }
        }
        let mut res_untagged = false;
        // The walk writes only along the specs' paths: a record compares only those after
        // this step.
        res.node_mut_within(|node, within| {
            if let Some(within) = within {
                split.scope(&gvk, within);
            }
            let mut renamed = Vec::new();
            split.apply_traced(node, &gvk, CreateKind::Scalar, trail, &mut |n, at| {
                if let Some(s) = n.scalar_string()
                    && !n.is_null()
                {
                    let name = format!("{prefix}{s}{suffix}");
                    res_untagged |= crate::merge::scalar_style::untagged_text_matters(&name);
                    *n = Node::text(name);
                    renamed.push(trail_of(at, None));
                }
                Ok(())
            })?;
            // A plain name becomes untagged (kustomize's `SetScalar`): a later
            // replacement of `7` into it prints `7`.
            for at in renamed {
                crate::merge::scalar_style::untag_plain_at(node, &at);
            }
            Ok::<(), crate::Error>(())
        })?;
        res.untagged |= res_untagged;
        Ok(())
    })?;
    Ok(())
}
