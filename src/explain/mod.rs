//! `kbuild explain`, `kbuild build --provenance` and `kbuild diff --explain`: reports made
//! from the provenance records a build keeps (src/provenance/) — where each field of the
//! output came from, located in the files (`report`), which resource a user means
//! (`select`), and the JSON document (`json`).

pub mod json;
pub mod report;
pub mod select;
mod written;

use crate::provenance::{FieldPath, Part};

/// Reads a path as a user writes it: kustomize's syntax, with the `.` before a bracket
/// optional (`containers[name=web]` as well as `containers.[name=web]`), and a bare
/// number a list index.
pub fn field(text: &str) -> FieldPath {
    let mut parts = Vec::new();
    for raw in crate::transform::field_path::FieldPath::parse(text).target_parts() {
        let mut rest = raw.as_str();
        // `containers[name=web]`: a key and a selector in one part.
        if let Some(open) = rest.find('[').filter(|&i| i > 0 && rest.ends_with(']')) {
            parts.push(Part::Key(rest[..open].into()));
            rest = &rest[open..];
        }
        parts.push(part(rest));
    }
    FieldPath(parts)
}

fn part(text: &str) -> Part {
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        if let Some((k, v)) = inner.split_once('=') {
            return Part::entry(k, v);
        }
        return Part::Key(inner.into());
    }
    match text.parse::<usize>() {
        Ok(i) if !text.starts_with('+') => Part::Index(i),
        _ => Part::Key(text.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(parts: &[&str]) -> FieldPath {
        FieldPath(parts.iter().map(|p| Part::Key((*p).into())).collect())
    }

    #[test]
    fn reads_what_it_prints_and_what_users_write() {
        let p = field("spec.template.spec.containers[name=web].image");
        assert_eq!(
            p.to_string(),
            "spec.template.spec.containers.[name=web].image"
        );
        assert_eq!(field(&p.to_string()), p);
        let a = keys(&["metadata", "annotations", "config.kubernetes.io/origin"]);
        assert_eq!(
            a.to_string(),
            "metadata.annotations.[config.kubernetes.io/origin]"
        );
        assert_eq!(field(&a.to_string()), a);
        assert_eq!(field("spec.ports.0.port").0[2], Part::Index(0));
    }
}
