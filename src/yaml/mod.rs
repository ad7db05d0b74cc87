//! YAML: parsing into [`Node`], and the emitter that reproduces kustomize's output;
//! JSON text as Go writes it ([`gojson`]); YAML text kept with its presentation and
//! written back as go-yaml v3 does ([`styled`]).

pub mod de;
pub mod emit;
pub mod gojson;
pub mod locate;
pub mod map;
pub mod node;
pub mod parse;
pub mod styled;

pub use map::Map;
pub use node::Node;

/// Decodes file bytes as UTF-8 text (a leading BOM is dropped).
pub fn utf8(bytes: Vec<u8>, path: &std::path::Path) -> crate::error::Result<String> {
    let mut s = String::from_utf8(bytes).map_err(|e| {
        crate::error::Error::msg(format!(
            "{}: not valid UTF-8 (at byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    if s.starts_with('\u{feff}') {
        s.drain(..3);
    }
    Ok(s)
}
