//! libyaml's escapes in double-quoted scalars (`yaml_emitter_write_double_quoted_scalar`).
//!
//! go-yaml v2 and v3 escape a character the same way, though they differ on which characters
//! they escape (v2's misplaced BOM test), so both emitters write escapes with this function.

/// Writes the escape of `c` through `put`, one character at a time: a backslash, then YAML's
/// short form (`\n`, `\t`, `\L`…) or `\x`, `\u` or `\U` and the code point in upper-case hex.
pub(in crate::yaml) fn write_escape(c: char, mut put: impl FnMut(char)) {
    put('\\');
    if let Some(short) = short_escape(c) {
        put(short);
        return;
    }
    let v = u32::from(c);
    let (letter, digits) = match v {
        0..=0xFF => ('x', 2),
        0x100..=0xFFFF => ('u', 4),
        _ => ('U', 8),
    };
    put(letter);
    for k in (0..digits).rev() {
        let digit = (v >> (4 * k)) & 0xF;
        put(char::from_digit(digit, 16).map_or('0', |d| d.to_ascii_uppercase()));
    }
}

/// The letter of `c`'s one-letter escape, if it has one.
fn short_escape(c: char) -> Option<char> {
    Some(match c {
        '\0' => '0',
        '\u{7}' => 'a',
        '\u{8}' => 'b',
        '\t' => 't',
        '\n' => 'n',
        '\u{b}' => 'v',
        '\u{c}' => 'f',
        '\r' => 'r',
        '\u{1b}' => 'e',
        '"' => '"',
        '\\' => '\\',
        '\u{85}' => 'N',
        '\u{A0}' => '_',
        '\u{2028}' => 'L',
        '\u{2029}' => 'P',
        _ => return None,
    })
}
