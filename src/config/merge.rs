//! How kustomize merges transformer configurations (`TransformerConfig.Merge`).
//!
//! Two quirks decide which field specs a build ends up with, and kbuild follows both:
//!
//! - An incoming field spec counts as "already there" when an existing one has the same path
//!   and a GVK that the incoming one *selects* (kustomize's `effectivelyEquals`). So a generic
//!   `metadata/name` arriving after `Foo metadata/name` is dropped, while `Foo metadata/name`
//!   arriving after the generic one is added. When the two disagree on `create`, the merge
//!   fails ("conflicting fieldspecs").
//! - After every merge, each list is sorted by GVK in kustomize's legacy type order, which puts
//!   kind-specific specs before generic ones (an empty kind sorts last).
//!
//! A kustomization's configuration is the built-in one merged with its `configurations:`
//! files; that is then merged into what its bases brought (an empty configuration for a
//! kustomization without bases). So with no base, a `configurations:` entry for
//! `Foo metadata/name` replaces the built-in generic `namePrefix` spec (only `Foo` objects get
//! the prefix), and with a base it is added to it (`Foo` objects get it twice) — both checked
//! with `kubectl kustomize`.

use crate::config::name_reference_specs::NameRefSpec;
use crate::error::{Error, Result};
use crate::kustomization::FieldSpec;
// kustomize ranks GVKs by the same kind lists as its legacy output order.
use crate::config::legacy_order::{
    LEGACY_ORDER_FIRST as ORDER_FIRST, LEGACY_ORDER_LAST as ORDER_LAST,
};
use std::cmp::Ordering;
use std::collections::HashMap;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

fn type_order(kind: &str) -> i32 {
    if let Some(i) = ORDER_FIRST.iter().position(|k| *k == kind) {
        return i as i32 - ORDER_FIRST.len() as i32;
    }
    ORDER_LAST
        .iter()
        .position(|k| *k == kind)
        .map_or(0, |i| i as i32 + 1)
}

/// kustomize's `Gvk.IsLessThan`: type order, then the GVK's text `Kind.Version.Group` with
/// empty parts written `[noKind]`, `[noVer]`, `[noGrp]` (so an empty kind sorts after every
/// capitalized one).
#[derive(PartialEq, Eq)]
struct GvkKey<'a> {
    order: i32,
    /// Kind, version and group, empty ones replaced as in the text.
    parts: [&'a str; 3],
}

impl<'a> GvkKey<'a> {
    fn new((g, v, k): (&'a str, &'a str, &'a str)) -> Self {
        let or = |s: &'a str, none: &'static str| if s.is_empty() { none } else { s };
        GvkKey {
            order: type_order(k),
            parts: [or(k, "[noKind]"), or(v, "[noVer]"), or(g, "[noGrp]")],
        }
    }

    /// The bytes of the text `Kind.Version.Group`, without building it.
    fn text(&self) -> impl Iterator<Item = u8> + '_ {
        let [k, v, g] = self.parts;
        k.bytes()
            .chain(std::iter::once(b'.'))
            .chain(v.bytes())
            .chain(std::iter::once(b'.'))
            .chain(g.bytes())
    }
}

impl Ord for GvkKey<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        // The text is compared as a whole, as Go compares the joined string: comparing
        // part by part would differ when one part is a prefix of the other.
        self.order.cmp(&other.order).then_with(|| {
            for (a, b) in self.parts.iter().zip(&other.parts) {
                if a == b {
                    continue;
                }
                if a.starts_with(b) || b.starts_with(a) {
                    // The shorter part's '.' meets a byte of the longer part.
                    return self.text().cmp(other.text());
                }
                // The first differing byte lies inside both parts.
                return a.cmp(b);
            }
            Ordering::Equal
        })
    }
}

impl PartialOrd for GvkKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Sorts `items` stably by the GVK `gvk` gives, computing each key once; a list that is
/// already in order (the usual case: bases bring sorted lists) is left alone.
fn sort_by_gvk<T>(items: &mut [T], gvk: impl Fn(&T) -> (&str, &str, &str)) {
    let keys: Vec<GvkKey> = items.iter().map(|t| GvkKey::new(gvk(t))).collect();
    if keys.windows(2).all(|w| w[0] <= w[1]) {
        return;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    drop(keys);
    // Apply the permutation in place, cycle by cycle.
    for start in 0..order.len() {
        let mut cur = start;
        while order[cur] != start {
            let next = order[cur];
            items.swap(cur, next);
            order[cur] = cur;
            cur = next;
        }
        order[cur] = cur;
    }
}

/// Whether `sel`'s GVK (empty parts match anything) selects `fs`'s.
fn selects(sel: &FieldSpec, fs: &FieldSpec) -> bool {
    (sel.group.is_empty() || sel.group == fs.group)
        && (sel.version.is_empty() || sel.version == fs.version)
        && (sel.kind.is_empty() || sel.kind == fs.kind)
}

fn spec_gvk(fs: &FieldSpec) -> (&str, &str, &str) {
    (&fs.group, &fs.version, &fs.kind)
}

/// Merges `incoming` into `base` as kustomize's `FsSlice.MergeAll` does; `section` names the
/// configuration section in errors.
pub(crate) fn merge_field_specs(
    base: &mut Vec<FieldSpec>,
    incoming: &[FieldSpec],
    section: &str,
) -> Result<()> {
    if base.as_slice() == incoming {
        // Bases usually bring the same lists: skip the quadratic merge.
        return Ok(());
    }
    // Specs by path, in list order: the first one the incoming spec selects is "there".
    // Positions below `base.len()` are in `base`, the others are incoming specs added.
    let mut by_path: FastMap<&str, Vec<usize>> = FastMap::default();
    for (i, b) in base.iter().enumerate() {
        by_path.entry(b.path.as_str()).or_default().push(i);
    }
    let mut added: Vec<&FieldSpec> = Vec::new();
    for fs in incoming {
        let same_path = by_path.entry(fs.path.as_str()).or_default();
        let spec = |i: usize| base.get(i).unwrap_or_else(|| added[i - base.len()]);
        match same_path.iter().map(|&i| spec(i)).find(|b| selects(fs, b)) {
            Some(b) if b.create != fs.create => return Err(conflict(section, b, fs)),
            Some(_) => {}
            None => {
                same_path.push(base.len() + added.len());
                added.push(fs);
            }
        }
    }
    let added: Vec<FieldSpec> = added.into_iter().cloned().collect();
    base.extend(added);
    sort_field_specs(base);
    Ok(())
}

fn describe(fs: &FieldSpec) -> String {
    let gvk = [fs.group.as_str(), fs.version.as_str(), fs.kind.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("/");
    let gvk = if gvk.is_empty() {
        "any kind".to_string()
    } else {
        gvk
    };
    format!("'{}' for {gvk} (create: {})", fs.path, fs.create)
}

fn conflict(section: &str, existing: &FieldSpec, incoming: &FieldSpec) -> Error {
    Error::invalid_config(format!(
        "conflicting field specs in transformer configuration '{section}': {} and {} cover the \
         same field but disagree on 'create'; make them agree",
        describe(existing),
        describe(incoming)
    ))
}

/// Sorts field specs by GVK in kustomize's order (stable, so specs of one GVK keep theirs).
pub(crate) fn sort_field_specs(specs: &mut [FieldSpec]) {
    sort_by_gvk(specs, spec_gvk);
}

/// Merges name reference entries as kustomize does: an entry for the same GVK (exactly)
/// gains the referrers it lacks (merged like field specs), others are added; then sorted.
pub(crate) fn merge_name_references(
    base: &mut Vec<NameRefSpec>,
    incoming: &[NameRefSpec],
) -> Result<()> {
    if base.as_slice() == incoming {
        return Ok(());
    }
    for e in incoming {
        let same =
            |b: &&mut NameRefSpec| b.group == e.group && b.version == e.version && b.kind == e.kind;
        match base.iter_mut().find(same) {
            Some(b) => merge_field_specs(&mut b.field_specs, &e.field_specs, "nameReference")?,
            None => {
                let mut e = e.clone();
                sort_field_specs(&mut e.field_specs);
                base.push(e);
            }
        }
    }
    sort_by_gvk(base, |e| (&e.group, &e.version, &e.kind));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs(kind: &str, path: &str, create: bool) -> FieldSpec {
        FieldSpec {
            kind: kind.into(),
            path: path.into(),
            create,
            ..FieldSpec::default()
        }
    }

    #[test]
    fn a_generic_spec_after_a_specific_one_is_already_there() {
        let mut base = vec![fs("Foo", "metadata/name", false)];
        merge_field_specs(&mut base, &[fs("", "metadata/name", false)], "namePrefix").unwrap();
        assert_eq!(base, vec![fs("Foo", "metadata/name", false)]);
    }

    #[test]
    fn a_specific_spec_after_a_generic_one_is_added_and_sorted_first() {
        let mut base = vec![fs("", "metadata/name", false)];
        merge_field_specs(
            &mut base,
            &[fs("Foo", "metadata/name", false)],
            "namePrefix",
        )
        .unwrap();
        assert_eq!(
            base,
            vec![
                fs("Foo", "metadata/name", false),
                fs("", "metadata/name", false)
            ]
        );
    }

    #[test]
    fn create_disagreement_is_an_error() {
        let mut base = vec![fs("Foo", "metadata/name", true)];
        let err = merge_field_specs(&mut base, &[fs("", "metadata/name", false)], "namePrefix")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("conflicting field specs in transformer configuration 'namePrefix'"),
            "{err}"
        );
    }

    #[test]
    fn gvk_text_is_compared_as_a_whole() {
        // "Foo.v1.[noGrp]" < "Foo.v1-x.[noGrp]" is false: '.' (0x2e) > '-' (0x2d).
        let key = |v| GvkKey::new(("", v, "Foo"));
        assert!(key("v1-x") < key("v1"));
        assert!(key("v1") < key("v1beta1"));
        assert!(key("v1") < key("v2"));
        assert_eq!(key("v1").cmp(&key("v1")), Ordering::Equal);
        let kind = |k| GvkKey::new(("", "v1", k));
        assert!(kind("Zed") < kind(""));
    }

    #[test]
    fn legacy_type_order() {
        let mut v = vec![
            fs("", "a", false),
            fs("Zed", "a", false),
            fs("Service", "a", false),
            fs("ValidatingWebhookConfiguration", "a", false),
            fs("Namespace", "a", false),
        ];
        sort_field_specs(&mut v);
        let kinds: Vec<_> = v.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(
            kinds,
            vec![
                "Namespace",
                "Service",
                "Zed",
                "",
                "ValidatingWebhookConfiguration"
            ]
        );
    }
}
