//! `images`: change image names, tags and digests in containers.

use crate::config::fieldspec::{CreateKind, SplitSpecs};
use crate::error::{Error, Result};
use crate::kustomization::{FieldSpec, Image};
use crate::resource::pattern::Plain;
use crate::resource::resmap::ResMap;
use crate::yaml::Node;
use regex::Regex;

/// Splits an image reference into name, tag and digest (a registry host's
/// port is not taken for a tag).
pub fn split(image: &str) -> (&str, &str, &str) {
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

/// What may follow the name: an optional tag (Go's `\w` is ASCII-only:
/// spelled out here, because Rust's Unicode `\w` repeated 128 times compiles
/// to a very large automaton for every images entry), then an optional digest.
const TAIL: &str = r"(:[0-9A-Za-z_][0-9A-Za-z_.-]{0,127})?(@sha256:[a-zA-Z0-9]+)?$";

/// Whether `rest` matches [`TAIL`] to its end: `(:TAG)?(@sha256:HEX)?`. A tag
/// cannot hold `@`, so it runs to the first `@` or the end: there is a single
/// way to split `rest`.
fn tag_and_digest(rest: &str) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let digest = |d: &str| {
        d.strip_prefix("@sha256:")
            .is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|c| c.is_ascii_alphanumeric()))
    };
    match rest.strip_prefix(':') {
        Some(tagged) => {
            let end = tagged.find('@').unwrap_or(tagged.len());
            let tag = &tagged.as_bytes()[..end];
            let tag_ok = tag.first().is_some_and(|c| word(*c))
                && tag.len() <= 128
                && tag[1..]
                    .iter()
                    .all(|c| word(*c) || *c == b'.' || *c == b'-');
            tag_ok && (end == tagged.len() || digest(&tagged[end..]))
        }
        None => rest.is_empty() || digest(rest),
    }
}

/// One compiled `images` entry.
struct Rule<'a> {
    image: &'a Image,
    pattern: NamePattern,
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
        let (tag, digest) = match (i.new_tag.is_empty(), i.digest.is_empty()) {
            (false, false) => (i.new_tag.as_str(), i.digest.as_str()),
            (false, true) => (i.new_tag.as_str(), ""),
            (true, false) => ("", i.digest.as_str()),
            (true, true) => (tag, digest),
        };
        let mut out = name.to_string();
        if !tag.is_empty() {
            out.push(':');
            out.push_str(tag);
        }
        if !digest.is_empty() {
            out.push('@');
            out.push_str(digest);
        }
        Some(out)
    }

    fn apply_to(&self, n: &mut Node) -> Result<()> {
        match n {
            Node::Str(s) => {
                if let Some(v) = self.rewrite(s) {
                    *s = v.into();
                }
                Ok(())
            }
            Node::Null => Ok(()),
            Node::Map(_) | Node::Seq(_) => Err(Error::invalid_resource(format!(
                "expected an image string, found a {}",
                n.type_name()
            ))),
            _ => Ok(()),
        }
    }
}

/// Every `containers`/`initContainers` list anywhere in the object.
fn walk_containers(n: &mut Node, rule: &Rule, depth: usize) -> Result<()> {
    if depth > 200 {
        return Ok(());
    }
    match n {
        Node::Map(m) => {
            for (k, v) in m.iter_mut() {
                if (k == "containers" || k == "initContainers") && matches!(v, Node::Seq(_)) {
                    if let Node::Seq(items) = v {
                        for c in items.iter_mut() {
                            if let Some(img) = c.get_mut("image") {
                                rule.apply_to(img)?;
                            }
                        }
                    }
                } else {
                    walk_containers(v, rule, depth + 1)?;
                }
            }
            Ok(())
        }
        Node::Seq(items) => items
            .iter_mut()
            .try_for_each(|i| walk_containers(i, rule, depth + 1)),
        _ => Ok(()),
    }
}

/// Applies the `images` entries in order.
pub fn apply(resmap: &mut ResMap, images: &[Image], specs: &[FieldSpec]) -> Result<()> {
    // Only existing values are rewritten: the image fields are never created.
    let specs = crate::config::fieldspec::without_create(specs);
    let specs = SplitSpecs::new(&specs);
    for image in images {
        let rule = Rule::new(image)?;
        for res in resmap.iter_mut() {
            walk_containers(&mut res.node, &rule, 0)?;
            let gvk = res.gvk();
            specs.apply(&mut res.node, &gvk, CreateKind::Scalar, &mut |n| {
                rule.apply_to(n)
            })?;
        }
    }
    Ok(())
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
}
