//! Parses YAML text into [`Node`]s.

use super::Node;
use crate::error::Error;

/// Parses a multi-document YAML stream. `source` names the file in errors.
pub fn parse_stream(text: &str, source: &str) -> Result<Vec<Node>, Error> {
    let _ = (text, source);
    todo!("parser")
}

/// Parses a single-document file (an empty file is null).
pub fn parse_document(text: &str, source: &str) -> Result<Node, Error> {
    let _ = (text, source);
    todo!("parser")
}
