//! Secret values kept out of diffs meant for pull-request comments: each value of a
//! Secret's `data` and `stringData` becomes `<redacted sha256:XXXXXXXX>`, a short hash of
//! the value, so a changed secret still shows as a changed line without showing either
//! value.

use crate::yaml::Node;
use sha2::{Digest, Sha256};

/// Redacts `node` in place when it is a core Secret.
pub(super) fn redact_secret(node: &mut Node) {
    let is_secret =
        node.get_str(&["kind"]) == Some("Secret") && node.get_str(&["apiVersion"]) == Some("v1");
    if !is_secret {
        return;
    }
    let Node::Map(map) = node else { return };
    for field in ["data", "stringData"] {
        if let Some(Node::Map(values)) = map.get_mut(field) {
            for (_, value) in values.iter_mut() {
                let text = value.scalar_string().unwrap_or_default();
                let digest = Sha256::digest(text.as_bytes());
                let short: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
                *value = Node::text(format!("<redacted sha256:{short}>"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_values_become_hashes_and_other_kinds_stay() {
        let parse = |t: &str| crate::yaml::parse::parse_document(t, "t").unwrap();
        let mut s =
            parse("apiVersion: v1\nkind: Secret\ndata:\n  a: c2VjcmV0\nstringData:\n  b: pw\n");
        redact_secret(&mut s);
        let text = crate::yaml::emit::emit_stream_refs(&[&s]);
        assert!(
            !text.contains("c2VjcmV0") && !text.contains(": pw"),
            "{text}"
        );
        assert!(text.contains("a: <redacted sha256:"), "{text}");
        let mut c = parse("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: plain\n");
        redact_secret(&mut c);
        assert!(crate::yaml::emit::emit_stream_refs(&[&c]).contains("a: plain"));
    }
}
