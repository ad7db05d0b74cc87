//! Patch entries (`patches`, `patchesStrategicMerge`, `patchesJson6902` and
//! the Patch*Transformer configs): finding the patch text (a file or inline),
//! telling strategic merge from JSON 6902, and applying it to its targets.

use super::env::Env;
use crate::error::{Error, Result};
use crate::kustomization::Patch;
use crate::resource::resmap::ResMap;
use crate::transform::list_replace::PatchSource;
use crate::transform::patch;
use crate::transform::union_check::Changes;
use crate::yaml::Node;

/// Names a patch in warnings: "patches[1] 'patch.yaml' of /dir/kustomization.yaml".
pub(crate) fn patch_name(
    kfile: &dyn std::fmt::Display,
    field: &str,
    index: usize,
    path: &str,
) -> String {
    let inline = path.is_empty() || path.contains('\n');
    let what = if inline {
        "(inline)".to_string()
    } else {
        format!("'{path}'")
    };
    format!("{field}[{index}] {what} of {kfile}")
}

/// "patches entry 'file.yaml'" / "patches entry with an inline patch".
pub(crate) fn patch_context(field: &str, p: &Patch) -> String {
    if p.path.is_empty() {
        format!("applying {field} entry with an inline patch")
    } else {
        format!("applying {field} entry '{}'", p.path)
    }
}

/// A `patchesStrategicMerge` entry is a file path or an inline patch.
fn strategic_merge_text(
    entry: &str,
    read: &mut dyn FnMut(&str) -> Result<String>,
) -> Result<(String, String)> {
    let looks_inline = entry.contains('\n') || entry.trim_start().starts_with('{');
    if looks_inline {
        return Ok((entry.to_string(), "(inline patch)".to_string()));
    }
    match read(entry) {
        Ok(text) => Ok((text, format!("'{entry}'"))),
        Err(e) => {
            // Not a readable file: kustomize then tries the text as a patch.
            match crate::yaml::parse::parse_stream(entry, "inline patch") {
                Ok(docs) if docs.iter().any(|d| matches!(d, Node::Map(_))) => {
                    Ok((entry.to_string(), "(inline patch)".to_string()))
                }
                _ => Err(e),
            }
        }
    }
}

/// One `patchesStrategicMerge` entry (a file or an inline patch).
pub(crate) fn apply_strategic_merge_entry(
    rm: &mut ResMap,
    entry: &str,
    env: &mut Env,
    changes: &mut Changes,
) -> Result<()> {
    let (text, source) = strategic_merge_text(entry, &mut env.reader("patch file"))?;
    let loaded = env.parsed.patch(&text, &source)?;
    let docs = match &*loaded {
        patch::Loaded::Strategic(docs) => docs,
        // Empty patch files are still errors here in every version: kustomize
        // v5.7.0 made only `patches` ignore them.
        patch::Loaded::Empty => return Err(patch::empty_patch(&source)),
        patch::Loaded::Json(_) => {
            return Err(Error::invalid_patch(format!(
                "patchesStrategicMerge entry {source} is a JSON 6902 patch; list it under 'patches' with a target"
            )));
        }
    };
    let inline = source == "(inline patch)";
    let patch_source = env.step.as_deref().map(|name| PatchSource {
        name,
        file: (!inline).then_some(entry),
        text: &text,
    });
    // patchesStrategicMerge has always gone on after a `$patch: delete` document.
    let options = patch::StrategicOptions {
        continue_after_delete: true,
        source: patch_source.as_ref(),
        text: Some(&text),
        ..Default::default()
    };
    let as_text = patch::metadata_as_text(docs, &text, false);
    let docs = as_text.as_deref().unwrap_or(docs);
    patch::apply_strategic(rm, docs, None, env.merge, options, env.budget, changes)
        .map_err(|e| e.context(format!("applying patchesStrategicMerge entry {source}")))?;
    // kustomize rebuilds its resource list after each patchesStrategicMerge document;
    // a clash an earlier step left (a JSON 6902 rename) fails there.
    rm.refuse_clash(
        "after this patchesStrategicMerge entry (kustomize rebuilds its resource list after each)",
    )
}

/// One `patches` entry: strategic merge or JSON 6902, told apart by content.
pub(crate) fn apply_patch_entry(
    rm: &mut ResMap,
    p: &Patch,
    env: &mut Env,
    changes: &mut Changes,
) -> Result<()> {
    let (mut text, source) = patch::entry_text(p, &mut env.reader("patch file"))?;
    if p.path.is_empty() {
        // kustomize trims an inline `patches` string (not a patch file, not
        // patchesJson6902), so a block scalar ending the patch loses its
        // final newline: `x: |\n  a: b\n` sets `x` to "a: b". A blank one is
        // then missing, in every version.
        text = text.trim().to_string();
        if text.is_empty() {
            return Err(patch::empty_patch(&source));
        }
    }
    let typed = env.version.patch_options_are_typed();
    let patch_source = env.step.as_deref().map(|name| PatchSource {
        name,
        file: (!p.path.is_empty()).then_some(p.path.as_str()),
        text: &text,
    });
    let options = patch::StrategicOptions {
        allow_name: p.option("allowNameChange", typed),
        allow_kind: p.option("allowKindChange", typed),
        continue_after_delete: env.version.patches_continue_after_delete(),
        source: patch_source.as_ref(),
        text: Some(&text),
    };
    match &*env.parsed.patch(&text, &source)? {
        patch::Loaded::Empty if env.version.ignores_empty_patches() => Ok(()),
        patch::Loaded::Empty => Err(Error::invalid_patch(format!(
            "{source}: the patch is empty; kustomize v5.5.0 refuses empty patch files \
             (v5.7.0 and later ignore them: --kustomize-version v5.8.1)"
        ))),
        patch::Loaded::Strategic(docs) => {
            let as_text =
                (p.target.as_ref()).and_then(|_| patch::metadata_as_text(docs, &text, true));
            patch::apply_strategic(
                rm,
                as_text.as_deref().unwrap_or(docs),
                p.target.as_ref(),
                env.merge,
                options,
                env.budget,
                changes,
            )
        }
        patch::Loaded::Json(ops) => {
            let target = p.target.as_ref().ok_or_else(|| {
                Error::invalid_patch(
                    "a JSON 6902 patch needs a 'target' to say which resources it applies to",
                )
            })?;
            patch::apply_json(
                rm,
                ops,
                target,
                env.budget,
                env.build_meta.as_ref(),
                changes,
            )
        }
    }
}

/// One `patchesJson6902` entry or PatchJson6902Transformer config (always
/// JSON 6902, with a target; `what` names it in the missing-target error).
pub(crate) fn apply_json6902_entry(
    rm: &mut ResMap,
    p: &Patch,
    what: &str,
    env: &mut Env,
    changes: &mut Changes,
) -> Result<()> {
    let target = p
        .target
        .as_ref()
        .ok_or_else(|| Error::invalid_patch(format!("{what} needs a 'target'")))?;
    // kustomize's PatchJson6902Transformer refuses a target without a name when it is
    // configured, before it reads the patch (v5.5.0 and v5.8.1 alike; `patches:` entries
    // run through PatchTransformer, which selects by any field).
    if target.name.is_empty() {
        return Err(Error::invalid_patch(format!(
            "{what}: must specify the target name"
        )));
    }
    let (text, source) = patch::entry_text(p, &mut env.reader("patch file"))?;
    let ops = env.parsed.json_ops(&text, &source)?;
    patch::apply_json(
        rm,
        &ops,
        target,
        env.budget,
        env.build_meta.as_ref(),
        changes,
    )
}
