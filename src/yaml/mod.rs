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

/// Decodes file bytes as text, as go-yaml's reader does: UTF-8 (a leading BOM dropped),
/// or UTF-16 when the file starts with a UTF-16 byte-order mark (Windows editors save
/// "Unicode" that way; kustomize v5.5.0 and v5.8.1 read such files).
pub fn utf8(bytes: Vec<u8>, path: &std::path::Path) -> crate::error::Result<String> {
    let not_text = |at: usize, encoding: &str| {
        crate::error::Error::msg(format!(
            "{}: not valid {encoding} (at byte {at})",
            path.display()
        ))
    };
    let utf16 = match bytes.get(..2) {
        Some([0xff, 0xfe]) => Some(u16::from_le_bytes as fn([u8; 2]) -> u16),
        Some([0xfe, 0xff]) => Some(u16::from_be_bytes as fn([u8; 2]) -> u16),
        _ => None,
    };
    if let Some(unit) = utf16 {
        let units = bytes[2..].chunks(2).map(|c| match c {
            [a, b] => Ok(unit([*a, *b])),
            _ => Err(()),
        });
        let mut text = String::with_capacity(bytes.len() / 2);
        for (i, u) in char::decode_utf16(units.map_while(Result::ok)).enumerate() {
            text.push(u.map_err(|_| not_text(2 + 2 * i, "UTF-16"))?);
        }
        if !bytes.len().is_multiple_of(2) {
            return Err(not_text(bytes.len() - 1, "UTF-16"));
        }
        return Ok(text);
    }
    let mut s =
        String::from_utf8(bytes).map_err(|e| not_text(e.utf8_error().valid_up_to(), "UTF-8"))?;
    if s.starts_with('\u{feff}') {
        s.drain(..3);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::utf8;
    use std::path::Path;

    fn encoded(text: &str, bom: [u8; 2], unit: fn(u16) -> [u8; 2]) -> Vec<u8> {
        let mut bytes = bom.to_vec();
        bytes.extend(text.encode_utf16().flat_map(unit));
        bytes
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_text() {
        let text = "a: \"é😀\"\n";
        let le = encoded(text, [0xff, 0xfe], u16::to_le_bytes);
        let be = encoded(text, [0xfe, 0xff], u16::to_be_bytes);
        assert_eq!(utf8(le.clone(), Path::new("f")).unwrap(), text);
        assert_eq!(utf8(be, Path::new("f")).unwrap(), text);
        let mut odd = le;
        odd.push(b'x');
        let err = utf8(odd, Path::new("f")).unwrap_err().to_string();
        assert!(err.contains("not valid UTF-16"), "{err}");
        let lone = vec![0xff, 0xfe, 0x00, 0xd8, b'a', 0];
        assert!(utf8(lone, Path::new("f")).is_err());
        let bom8 = [&[0xef, 0xbb, 0xbf][..], text.as_bytes()].concat();
        assert_eq!(utf8(bom8, Path::new("f")).unwrap(), text);
    }
}
