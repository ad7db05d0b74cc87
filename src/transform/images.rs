//! `images`: change image names, tags and digests in containers.

use crate::error::{Error, Result};
use crate::fieldspec::{CreateKind, apply_specs};
use crate::kustomization::{FieldSpec, Image};
use crate::resmap::ResMap;
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

/// One compiled `images` entry.
struct Rule<'a> {
    image: &'a Image,
    pattern: Regex,
}

impl<'a> Rule<'a> {
    fn new(image: &'a Image) -> Result<Rule<'a>> {
        if image.name.is_empty() {
            return Err(Error::msg(
                "an images entry needs a 'name' (the image to change)",
            ));
        }
        // kustomize matches the name as a regular expression followed by an
        // optional tag or digest (and crashes on a name that is not a valid
        // expression). Go's `\w` is ASCII-only: spelled out here, because
        // Rust's Unicode `\w` repeated 128 times compiles to a very large
        // automaton for every images entry.
        let tail = r"(:[0-9A-Za-z_][0-9A-Za-z_.-]{0,127})?(@sha256:[a-zA-Z0-9]+)?$";
        let pattern = crate::regex_cache::compile(&format!("^{}{tail}", image.name)).map_err(|e| {
            Error::msg(format!(
                "images: name {:?} is matched as a regular expression and is not a valid one: {e}",
                image.name
            ))
        })?;
        Ok(Rule { image, pattern })
    }

    /// The new value for `value`, when the rule applies.
    fn rewrite(&self, value: &str) -> Option<String> {
        if !self.pattern.is_match(value) {
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
                    *s = v;
                }
                Ok(())
            }
            Node::Null => Ok(()),
            Node::Map(_) | Node::Seq(_) => Err(Error::msg(format!(
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
    let specs = crate::fieldspec::without_create(specs);
    for image in images {
        let rule = Rule::new(image)?;
        for res in resmap.iter_mut() {
            walk_containers(&mut res.node, &rule, 0)?;
            let gvk = res.gvk();
            apply_specs(&mut res.node, &gvk, &specs, CreateKind::Scalar, &mut |n| {
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
