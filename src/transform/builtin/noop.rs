//! What a kustomization entry did to the resources, for kbuild's warning about entries that
//! change nothing (an `images:` entry naming an image no container has, a patch whose target
//! matches no resource, ...). kustomize accepts these silently; the output stays
//! kustomize's, and the build reports them (see build/noop.rs for which ones and when).
//!
//! Each transformer says what it found while it runs, so no resource is compared or copied
//! to find out.

use crate::kustomization::Selector;
use crate::kustomization::files::Place;
use crate::resource::resmap::ResMap;
use crate::resource::selector::Matcher;

/// What one step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Effect {
    /// It changed at least one resource, or it does not say.
    Changed,
    /// It changed nothing; why, as the warning says it ("its target ... matches no
    /// resource").
    Nothing(String),
    /// Its parts, each where it is written (`replacements[0].targets[1]`), with why it
    /// changed nothing, or `None` when it changed something.
    Parts(Vec<(Place, Option<String>)>),
}

/// A selector as kustomize's users write it: `kind=Deployment, name=web`.
pub(crate) fn describe(s: &Selector) -> String {
    let mut parts = Vec::new();
    for (key, value) in [
        ("group", &s.group),
        ("version", &s.version),
        ("kind", &s.kind),
        ("name", &s.name),
        ("namespace", &s.namespace),
        ("labelSelector", &s.label_selector),
        ("annotationSelector", &s.annotation_selector),
    ] {
        if !value.is_empty() {
            parts.push(format!("{key}={value}"));
        }
    }
    if parts.is_empty() {
        "any resource".to_string()
    } else {
        parts.join(", ")
    }
}

/// The effect of a patch with `target` that noted no resource as changed (`noted`: whether
/// it noted any). The resources are as they were before it, so the target is matched
/// again to tell "matches nothing" from "the patch is empty".
pub(crate) fn of_patch(noted: bool, target: Option<&Selector>, rm: &ResMap) -> Effect {
    let Some(target) = target else {
        // Without a target a patch names its resource, and kustomize fails when none
        // has that name: applied, it changed it.
        return Effect::Changed;
    };
    if noted {
        return Effect::Changed;
    }
    let Ok(m) = Matcher::new(target) else {
        return Effect::Changed;
    };
    if rm.iter().any(|r| m.selects(r)) {
        return Effect::Nothing("the patch is empty: it changes nothing".into());
    }
    Effect::Nothing(format!(
        "its target ({}) matches no resource, so the patch changes nothing",
        describe(target)
    ))
}

/// Why a `labels`/`commonLabels`/`commonAnnotations` entry that set no new value changed
/// nothing (`what`: "label" or "annotation").
pub(crate) fn pairs_unchanged(
    what: &str,
    pairs: &crate::kustomization::StringMap,
    rm: &ResMap,
) -> String {
    if pairs.is_empty() {
        return format!("it has no {what}s, so it changes nothing");
    }
    if rm.is_empty() {
        return format!("there is no resource to set the {what}s in, so it changes nothing");
    }
    let shown: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "every resource has {} already, so it changes nothing",
        shown.join(", ")
    )
}

/// The effect of an `images` entry that matched `count`.
pub(crate) fn of_image(
    image: &crate::kustomization::Image,
    count: crate::transform::images::Count,
) -> Effect {
    if count.changed > 0 {
        return Effect::Changed;
    }
    if count.matched == 0 {
        return Effect::Nothing(format!(
            "no container image or image field is named '{}' (tags and digests aside), so it changes nothing",
            image.name
        ));
    }
    let s = if count.matched == 1 { "" } else { "s" };
    Effect::Nothing(format!(
        "the {} image{s} named '{}' {} what it sets already, so it changes nothing",
        count.matched,
        image.name,
        if count.matched == 1 { "is" } else { "are" }
    ))
}

/// The effect of a `replacements` step whose targets did as `targets` says.
pub(crate) fn of_replacements(
    entries: &[crate::kustomization::ReplacementField],
    targets: &[crate::transform::replacements::TargetUse],
) -> Effect {
    let parts = targets
        .iter()
        .map(|u| {
            let (entry, item) = u.at;
            let target = u.target;
            let why = |text: String| (!u.selected).then_some(text);
            match item {
                // Inline: the target's own place in the kustomization file.
                None => (
                    Place::inner("replacements", entry, "targets", Some(target)),
                    why("selects no resource, so it changes nothing".to_string()),
                ),
                // From a file: the entry naming the file, and where in it.
                Some(j) => {
                    let file = entries.get(entry).map_or("", |e| e.path.as_str());
                    (
                        Place::item("replacements", entry),
                        why(format!(
                            "targets[{target}] of replacement {j} in '{file}' selects no resource, so it changes nothing"
                        )),
                    )
                }
            }
        })
        .collect();
    Effect::Parts(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kustomization::{Image, ReplacementField};
    use crate::transform::images::Count;
    use crate::transform::replacements::TargetUse;

    #[test]
    fn selectors_read_as_written() {
        let s = Selector {
            kind: "Deployment".into(),
            name: "web".into(),
            label_selector: "app=web".into(),
            ..Default::default()
        };
        assert_eq!(
            describe(&s),
            "kind=Deployment, name=web, labelSelector=app=web"
        );
        assert_eq!(describe(&Selector::default()), "any resource");
    }

    #[test]
    fn an_image_entry_is_a_noop_only_when_it_changed_no_value() {
        let image = Image {
            name: "web".into(),
            new_tag: "2".into(),
            ..Default::default()
        };
        let count = |matched, changed| Count { matched, changed };
        assert_eq!(of_image(&image, count(3, 1)), Effect::Changed);
        let Effect::Nothing(none) = of_image(&image, count(0, 0)) else {
            panic!("a no-op")
        };
        assert!(none.starts_with("no container image or image field is named 'web'"));
        let Effect::Nothing(same) = of_image(&image, count(2, 0)) else {
            panic!("a no-op")
        };
        assert!(same.starts_with("the 2 images named 'web' are what it sets already"));
    }

    #[test]
    fn replacement_targets_are_placed_inline_or_on_their_file_entry() {
        let entries = vec![
            ReplacementField::default(),
            ReplacementField {
                path: "r.yaml".into(),
                ..Default::default()
            },
        ];
        let used = |at, target, selected| TargetUse {
            at,
            target,
            selected,
        };
        let Effect::Parts(parts) = of_replacements(
            &entries,
            &[
                used((0, None), 0, true),
                used((0, None), 1, false),
                used((1, Some(2)), 0, false),
            ],
        ) else {
            panic!("parts")
        };
        let shown: Vec<(String, Option<String>)> = parts
            .into_iter()
            .map(|(place, why)| (place.to_string(), why))
            .collect();
        assert_eq!(shown[0], ("replacements[0].targets[0]".into(), None));
        assert_eq!(shown[1].0, "replacements[0].targets[1]");
        assert_eq!(shown[2].0, "replacements[1]");
        assert_eq!(
            shown[2].1.as_deref(),
            Some(
                "targets[0] of replacement 2 in 'r.yaml' selects no resource, so it changes nothing"
            )
        );
    }
}
