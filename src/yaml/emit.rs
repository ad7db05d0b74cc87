//! Writes nodes as YAML exactly as `kustomize build` prints them.

use super::Node;

/// Formats a float the way kustomize's JSON->YAML round trip prints it.
pub fn format_float(f: f64) -> String {
    format!("{f}")
}

/// Appends one document (without the `---` separator) to `out`.
pub fn emit_document(node: &Node, out: &mut String) {
    let _ = (node, out);
    todo!("emitter")
}

/// The stream for a list of documents.
pub fn emit_stream_refs(docs: &[&Node]) -> String {
    let _ = docs;
    todo!("emitter")
}

/// The stream for owned documents.
pub fn emit_stream(docs: &[Node]) -> String {
    let refs: Vec<&Node> = docs.iter().collect();
    emit_stream_refs(&refs)
}
