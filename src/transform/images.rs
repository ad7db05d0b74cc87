//! `images`: change image names, tags and digests in containers.

use crate::config::fieldspec::{CreateKind, SplitSpecs};
use crate::error::{Error, Result};
use crate::kustomization::{FieldSpec, Image};
use crate::resource::pattern::Plain;
use crate::resource::resmap::ResMap;
use crate::resource::shared::trail_of;
use crate::yaml::Node;
use crate::yaml::map::Style;
use regex::Regex;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Splits an image reference into name, tag and digest (a registry host's
/// port is not taken for a tag).
pub(crate) fn split(image: &str) -> (&str, &str, &str) {
    let slash = image.find('/').filter(|i| *i > 0).unwrap_or(0);
    let search = &image[slash..];
    let at = search.find('@').map(|i| i + slash);
    let colon = search.find(':').map(|i| i + slash);
    match (colon, at) {
        (None, None) => (image, "", ""),
        (c, Some(a)) if c.is_none_or(|c| a < c) => (&image[..a], "", &image[a + 1..]),
        (Some(c), Some(a)) => (&image[..c], &image[c + 1..a], &image[a + 1..]),
        (Some(c), None) => (&image[..c], &image[c + 1..], ""),
        (None, Some(_)) => (image, "", ""),
    }
}

/// How an `images` name is matched against an image reference.
enum NamePattern {
    /// A name without regex syntax but `.` (nearly all of them: see
    /// pattern.rs), followed by the tail that [`tag_and_digest`] checks.
    Plain(Plain),
    /// The whole expression `^{name}{TAIL}`.
    Regex(Regex),
}

/// What may follow the name: an optional tag, then an optional digest, each of the
/// characters kustomize allows there (`api/internal/image`: `[a-zA-Z0-9_.{}-]`, ASCII only;
/// `{}` for Bazel's tag templates). A tag may be empty or start with `-` or `.`: kustomize
/// matches `a:` and `a:-alpine` too, which is why a `tagSuffix` lands twice on an image
/// written without a tag (the containers walk and the field specs both match it).
const TAIL: &str = r"(:[a-zA-Z0-9_.{}-]*)?(@sha256:[a-zA-Z0-9_.{}-]*)?$";

/// Whether `c` may appear in a tag or a digest's hex part (see [`TAIL`]).
fn tag_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'{' | b'}' | b'-')
}

/// Whether `rest` matches [`TAIL`] to its end: `(:TAG)?(@sha256:HEX)?`. Neither part can
/// hold `:` or `@`, so a tag runs to the first `@` or the end: there is a single way to
/// split `rest`.
fn tag_and_digest(rest: &str) -> bool {
    let digest = |d: &str| {
        d.strip_prefix("@sha256:")
            .is_some_and(|hex| hex.bytes().all(tag_char))
    };
    match rest.strip_prefix(':') {
        Some(tagged) => {
            let end = tagged.find('@').unwrap_or(tagged.len());
            tagged.as_bytes()[..end].iter().all(|c| tag_char(*c))
                && (end == tagged.len() || digest(&tagged[end..]))
        }
        None => rest.is_empty() || digest(rest),
    }
}

/// One compiled `images` entry.
struct Rule<'a> {
    image: &'a Image,
    pattern: NamePattern,
    /// What it did so far (for the warning about an entry that changes nothing), counted
    /// by the threads that apply it.
    matched: AtomicUsize,
    changed: AtomicUsize,
}

/// How many image values an `images` entry matched, and how many of those it changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Count {
    /// Values whose name the entry matches.
    pub matched: usize,
    /// Of those, values it rewrote to something else.
    pub changed: usize,
}

impl<'a> Rule<'a> {
    fn new(image: &'a Image) -> Result<Rule<'a>> {
        if image.name.is_empty() {
            return Err(Error::invalid_config(
                "an images entry needs a 'name' (the image to change)",
            ));
        }
        // kustomize matches the name as a regular expression followed by an
        // optional tag or digest (and crashes on a name that is not a valid
        // expression).
        if let Some(plain) = Plain::parse(&image.name) {
            return Ok(Rule {
                image,
                pattern: NamePattern::Plain(plain),
                matched: AtomicUsize::new(0),
                changed: AtomicUsize::new(0),
            });
        }
        let pattern = crate::resource::regex_cache::compile(&format!("^{}{TAIL}", image.name)).map_err(|e| {
            Error::invalid_config(format!(
                "images: name {:?} is matched as a regular expression and is not a valid one: {e}",
                image.name
            ))
        })?;
        Ok(Rule {
            image,
            pattern: NamePattern::Regex(pattern),
            matched: AtomicUsize::new(0),
            changed: AtomicUsize::new(0),
        })
    }

    /// Whether the rule's name (with a tag or digest) matches `value`.
    fn matches(&self, value: &str) -> bool {
        match &self.pattern {
            NamePattern::Plain(p) => p.strip_prefix(value).is_some_and(tag_and_digest),
            NamePattern::Regex(r) => r.is_match(value),
        }
    }

    /// The new value for `value`, when the rule applies.
    fn rewrite(&self, value: &str) -> Option<String> {
        if !self.matches(value) {
            return None;
        }
        let (name, tag, digest) = split(value);
        let i = self.image;
        let name = if i.new_name.is_empty() {
            name
        } else {
            &i.new_name
        };
        // kustomize's precedence: `newTag` and `digest` replace both parts; `tagSuffix`
        // counts only without them, is appended to the tag (even an empty one: `a` becomes
        // `a:-alpine`) and drops the digest.
        let (tag, digest) = match (i.new_tag.is_empty(), i.digest.is_empty()) {
            (false, false) => (Cow::Borrowed(i.new_tag.as_str()), i.digest.as_str()),
            (false, true) => (Cow::Borrowed(i.new_tag.as_str()), ""),
            (true, false) => (Cow::Borrowed(""), i.digest.as_str()),
            (true, true) if !i.tag_suffix.is_empty() => {
                (Cow::Owned(format!("{tag}{}", i.tag_suffix)), "")
            }
            (true, true) => (Cow::Borrowed(tag), digest),
        };
        let mut out = name.to_string();
        if !tag.is_empty() {
            out.push(':');
            out.push_str(&tag);
        }
        if !digest.is_empty() {
            out.push('@');
            out.push_str(digest);
        }
        Some(out)
    }

    /// Rewrites the image `n` names if the rule matches it; whether it did.
    fn apply_to(&self, n: &mut Node) -> Result<bool> {
        match n {
            Node::Str(s) => {
                let Some(v) = self.rewrite(s) else {
                    return Ok(false);
                };
                self.matched.fetch_add(1, Ordering::Relaxed);
                if v.as_str() != &**s {
                    self.changed.fetch_add(1, Ordering::Relaxed);
                }
                *s = v.into();
                Ok(true)
            }
            Node::Null => Ok(false),
            Node::Map(_) | Node::Seq(_) => Err(Error::invalid_resource(format!(
                "expected an image string, found a {}",
                n.type_name()
            ))),
            _ => Ok(false),
        }
    }
}

/// Every `containers`/`initContainers` list anywhere in the object; whether the rule
/// rewrote an image in one.
fn walk_containers(n: &mut Node, rule: &Rule, depth: usize) -> Result<bool> {
    if depth > 200 {
        return Ok(false);
    }
    let mut hit = false;
    match n {
        Node::Map(m) => {
            for (k, v) in m.iter_mut() {
                if (k == "containers" || k == "initContainers") && matches!(v, Node::Seq(_)) {
                    if let Node::Seq(items) = v {
                        for c in items.iter_mut() {
                            let Node::Map(c) = c else { continue };
                            let Some(i) = c.get_index_of("image") else {
                                continue;
                            };
                            if let Some((_, img)) = c.get_index_mut(i)
                                && rule.apply_to(img)?
                            {
                                hit = true;
                                if c.style_at(i) == Style::Plain {
                                    // kustomize's new image is untagged (see
                                    // name_affix.rs).
                                    c.set_style_at(i, Style::Untagged);
                                }
                            }
                        }
                    }
                } else {
                    hit |= walk_containers(v, rule, depth + 1)?;
                }
            }
        }
        Node::Seq(items) => {
            for i in items.iter_mut() {
                hit |= walk_containers(i, rule, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(hit)
}

/// Applies the `images` entries in order; what each matched and changed.
pub(crate) fn apply(
    resmap: &mut ResMap,
    images: &[Image],
    specs: &[FieldSpec],
) -> Result<Vec<Count>> {
    // Only existing values are rewritten: the image fields are never created.
    let specs = crate::config::fieldspec::without_create(specs);
    let specs = SplitSpecs::new(&specs);
    let mut counts = Vec::with_capacity(images.len());
    for image in images {
        let rule = Rule::new(image)?;
        // Each resource on its own (on the thread pool for a large map), with a trail of
        // steps reused across those of one thread.
        resmap.try_for_each_mut(Vec::new, |trail, _, res| {
            let gvk = res.gvk();
            // Every resource is visited and few hold the image: only those the rule
            // rewrote are marked changed, for a build recording provenance to compare.
            res.node_mut_if(|node| {
                let mut hit = walk_containers(node, &rule, 0)?;
                let mut rewritten = Vec::new();
                specs.apply_traced(node, &gvk, CreateKind::Scalar, trail, &mut |n, at| {
                    if rule.apply_to(n)? {
                        rewritten.push(trail_of(at, None));
                    }
                    Ok(())
                })?;
                hit |= !rewritten.is_empty();
                for at in rewritten {
                    crate::merge::scalar_style::untag_plain_at(node, &at);
                }
                Ok(hit)
            })
        })?;
        counts.push(Count {
            matched: rule.matched.into_inner(),
            changed: rule.changed.into_inner(),
        });
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_references() {
        assert_eq!(split("nginx"), ("nginx", "", ""));
        assert_eq!(split("nginx:1.2"), ("nginx", "1.2", ""));
        assert_eq!(split("host:5000/nginx"), ("host:5000/nginx", "", ""));
        assert_eq!(split("host:5000/nginx:1.2"), ("host:5000/nginx", "1.2", ""));
        assert_eq!(split("nginx@sha256:abc"), ("nginx", "", "sha256:abc"));
        assert_eq!(split("nginx:1@sha256:abc"), ("nginx", "1", "sha256:abc"));
    }

    #[test]
    fn plain_names_match_as_the_regex_does() {
        let names = [
            "nginx",
            "registry.example.com/app",
            "host:5000/team/app",
            "a.b",
            ".",
            "..",
            "my_app-x",
            "é.x",
        ];
        let tails = [
            "",
            ":1.2",
            ":v1-2_3",
            ":_x",
            ":.bad",
            ":-bad",
            ":",
            ":a:b",
            ":1\n",
            "\n",
            ":é",
            "@sha256:abc09AZ",
            "@sha256:",
            "@sha256:ab-c",
            "@sha512:abc",
            "@sha256:abc@sha256:abc",
            ":1@sha256:abc",
            ":1@sha256:",
            ":1@",
            "@",
            "@sha",
            ":1.2@sha256:abc:1",
            "x",
            "/x",
            "-x",
        ];
        let long_tags = [
            ":".to_string() + &"t".repeat(128),
            ":".to_string() + &"t".repeat(129),
        ];
        let mut rng = crate::resource::pattern::TestRng(0x5851_f42d_4c95_7f2d);
        let (mut checked, mut matched) = (0, 0);
        for name in names {
            let image = Image {
                name: name.into(),
                ..Default::default()
            };
            let rule = Rule::new(&image).expect("rule");
            assert!(matches!(rule.pattern, NamePattern::Plain(_)), "{name}");
            let regex = Regex::new(&format!("^{name}{TAIL}")).expect("valid");
            let mut texts: Vec<String> = Vec::new();
            for head in [
                name.to_string(),
                name.replace('.', "x"),
                name.replace('.', "\n"),
            ] {
                texts.extend(tails.iter().map(|t| format!("{head}{t}")));
                texts.extend(long_tags.iter().map(|t| format!("{head}{t}")));
            }
            for _ in 0..600 {
                let text = format!("{}{}", rng.fill_dots(name), rng.pick(&tails));
                texts.push(rng.mutate(&text));
            }
            for text in &texts {
                let want = regex.is_match(text);
                assert_eq!(rule.matches(text), want, "{name:?} on {text:?}");
                checked += 1;
                matched += usize::from(want);
            }
        }
        // Both answers are well represented.
        assert!(
            checked > 5000 && matched > checked / 10 && matched < checked * 9 / 10,
            "{matched}/{checked}"
        );
    }

    #[test]
    fn rewrites() {
        let img = Image {
            name: "nginx".into(),
            new_tag: "2".into(),
            ..Default::default()
        };
        let r = Rule::new(&img).expect("rule");
        assert_eq!(r.rewrite("nginx:1@sha256:abc").as_deref(), Some("nginx:2"));
        assert_eq!(r.rewrite("nginx"), Some("nginx:2".to_string()));
        assert_eq!(r.rewrite("nginx-other"), None);
        assert_eq!(r.rewrite("nginx@sha256"), None);
        assert_eq!(r.rewrite("nginx:a:b"), None);
    }

    #[test]
    fn tag_suffix_counts_only_without_new_tag_or_digest() {
        let suffix = |new_tag: &str, digest: &str| Image {
            name: "nginx".into(),
            tag_suffix: "-alpine".into(),
            new_tag: new_tag.into(),
            digest: digest.into(),
            ..Default::default()
        };
        let cases = [
            (suffix("", ""), "nginx:1@sha256:abc", "nginx:1-alpine"),
            (suffix("", ""), "nginx", "nginx:-alpine"),
            (suffix("", ""), "nginx:-alpine", "nginx:-alpine-alpine"),
            (suffix("2", ""), "nginx:1", "nginx:2"),
            (suffix("", "sha256:f"), "nginx:1", "nginx@sha256:f"),
        ];
        for (image, value, want) in cases {
            let r = Rule::new(&image).expect("rule");
            assert_eq!(r.rewrite(value).as_deref(), Some(want), "{value}");
        }
    }
}
