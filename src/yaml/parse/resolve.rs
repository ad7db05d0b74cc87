//! Scalar resolution: the value kustomize reads from one YAML scalar.
//!
//! Resources are read with go-yaml v3 (YAML 1.2 core schema plus v3's extras) and
//! converted to JSON; kustomization files with go-yaml v2 (YAML 1.1 booleans) through
//! sigs.k8s.io/yaml. Both resolve plain scalars by their first byte, then through Go's
//! `strconv`; this module reproduces that without regexes, checking bytes before any
//! number parsing.

use super::timestamp::Timestamp;
use crate::yaml::Node;
use std::borrow::Cow;

/// Which go-yaml reads the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schema {
    /// Resources and patches: go-yaml v3, then JSON (timestamps become RFC 3339 strings).
    Resource,
    /// Kustomization files: go-yaml v2 via sigs.k8s.io/yaml (`yes`, `on`, `y` are booleans,
    /// timestamps stay as written).
    Kustomization,
}

/// What a scalar resolved to, before it becomes a [`Node`]; map keys need the distinction
/// (a timestamp or a `!!binary` key is not a string key to go-yaml v3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Null,
    Bool,
    Int,
    /// An integer above `i64::MAX` that fits `u64` (Go's `uint64`). [`Node`] has no unsigned
    /// variant, so the node holds the nearest `f64`.
    Uint,
    Float,
    Str,
    /// `!!binary`, base64-decoded.
    Binary,
    Timestamp,
    /// A tag go-yaml does not resolve (`!foo`, `!!map` on a scalar): the text, as a string.
    Custom,
}

/// A resolved scalar.
#[derive(Debug, PartialEq)]
pub(crate) struct Resolved {
    pub node: Node,
    pub kind: Kind,
}

impl Resolved {
    fn new(node: Node, kind: Kind) -> Resolved {
        Resolved { node, kind }
    }

    fn str(s: impl Into<crate::yaml::node::Str>, kind: Kind) -> Resolved {
        Resolved::new(Node::Str(s.into()), kind)
    }
}

/// A scalar's tag, reduced to what resolution needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TagRef<'a> {
    /// No tag, or the non-specific `!` (go-yaml treats `! 12` like `12`).
    None,
    /// A `tag:yaml.org,2002:` tag (`!!int`): its suffix.
    Core(&'a str),
    /// Any other tag.
    Other,
}

impl<'a> TagRef<'a> {
    /// Classifies a tag from its resolved handle and suffix.
    pub(crate) fn new(handle: &'a str, suffix: &'a str) -> TagRef<'a> {
        const CORE: &str = "tag:yaml.org,2002:";
        if handle.is_empty() && suffix == "!" {
            TagRef::None
        } else if handle == CORE {
            TagRef::Core(suffix)
        } else if handle.is_empty() && suffix.starts_with(CORE) {
            TagRef::Core(&suffix[CORE.len()..])
        } else {
            TagRef::Other
        }
    }
}

/// Resolves a scalar's text. `plain` is false for quoted and block scalars, which are
/// strings unless explicitly tagged. The error is go-yaml's message for a tag the value
/// does not fit (`!!int abc`) or bad `!!binary` data.
pub(crate) fn resolve(
    text: Cow<'_, str>,
    plain: bool,
    tag: TagRef<'_>,
    schema: Schema,
) -> Result<Resolved, String> {
    let want = match tag {
        TagRef::None if plain => return Ok(resolve_plain(text, schema, true)),
        TagRef::None | TagRef::Core("str") => return Ok(Resolved::str(text, Kind::Str)),
        TagRef::Core("binary") => {
            let bytes = decode_base64(&text)
                .ok_or_else(|| "!!binary value contains invalid base64 data".to_string())?;
            return Ok(Resolved::str(lossy_utf8_like_go(&bytes), Kind::Binary));
        }
        TagRef::Core(t @ ("null" | "bool" | "int" | "float" | "timestamp")) => t,
        TagRef::Core(_) | TagRef::Other => return Ok(Resolved::str(text, Kind::Custom)),
    };
    let r = resolve_plain(Cow::Borrowed(&text), schema, want == "timestamp");
    let fits = match (want, r.kind) {
        ("null", Kind::Null)
        | ("bool", Kind::Bool)
        | ("int", Kind::Int | Kind::Uint)
        | ("float", Kind::Float)
        | ("timestamp", Kind::Timestamp) => true,
        ("float", Kind::Int) => {
            // go-yaml turns an integer under `!!float` into a float.
            if let Node::Int(i) = r.node {
                return Ok(Resolved::new(Node::Float(i as f64), Kind::Float));
            }
            false
        }
        // go-yaml v3 refuses a uint64 under `!!float` ("cannot decode !!int ... as a !!float").
        ("float", Kind::Uint) => false,
        _ => false,
    };
    if fits {
        Ok(r)
    } else {
        Err(format!(
            "cannot decode !!{} `{}` as a !!{want}",
            kind_tag(r.kind),
            text
        ))
    }
}

fn kind_tag(kind: Kind) -> &'static str {
    match kind {
        Kind::Null => "null",
        Kind::Bool => "bool",
        Kind::Int | Kind::Uint => "int",
        Kind::Float => "float",
        Kind::Timestamp => "timestamp",
        Kind::Str | Kind::Binary | Kind::Custom => "str",
    }
}

/// The kind go-yaml v3 resolves an untagged plain scalar to.
pub(crate) fn plain_kind(text: &str) -> Kind {
    resolve_plain(Cow::Borrowed(text), Schema::Resource, true).kind
}

/// Resolves an untagged plain scalar: go-yaml's `resolve("", text)`, dispatching on the
/// first byte as its `resolveTable` does.
fn resolve_plain(text: Cow<'_, str>, schema: Schema, timestamps: bool) -> Resolved {
    let s: &str = &text;
    let Some(&first) = s.as_bytes().first() else {
        return Resolved::new(Node::Null, Kind::Null);
    };
    let resolved = match first {
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => {
            resolve_word(s, schema)
        }
        b'.' => special_float(s)
            .or_else(|| go_parse_float(s).map(|f| Resolved::new(Node::Float(f), Kind::Float))),
        b'+' | b'-' | b'0'..=b'9' => special_float(s).or_else(|| {
            let ts = timestamps && first.is_ascii_digit();
            match ts.then(|| Timestamp::parse(s)).flatten() {
                Some(t) => Some(timestamp(s, t, schema)),
                None => resolve_number(s, schema),
            }
        }),
        _ => None,
    };
    resolved.unwrap_or_else(|| Resolved::str(text, Kind::Str))
}

/// Whether an untagged plain scalar certainly resolves to a string, decided from its
/// first byte (and the word tables) without building anything; `false` means "maybe not".
pub(crate) fn plain_is_string(s: &str, schema: Schema) -> bool {
    match s.as_bytes().first() {
        None | Some(b'.' | b'+' | b'-' | b'0'..=b'9') => false,
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => {
            resolve_word(s, schema).is_none()
        }
        Some(_) => true,
    }
}

/// The words go-yaml's `resolveMap` holds. v3 knows YAML 1.2's booleans only; v2 also
/// YAML 1.1's `y`, `yes`, `on`, `n`, `no`, `off`.
fn resolve_word(s: &str, schema: Schema) -> Option<Resolved> {
    let b = match s {
        "~" | "null" | "Null" | "NULL" => return Some(Resolved::new(Node::Null, Kind::Null)),
        "true" | "True" | "TRUE" => true,
        "false" | "False" | "FALSE" => false,
        _ if schema == Schema::Resource => return None,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => true,
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => false,
        _ => return None,
    };
    Some(Resolved::new(Node::Bool(b), Kind::Bool))
}

fn special_float(s: &str) -> Option<Resolved> {
    let f = match s {
        ".nan" | ".NaN" | ".NAN" => f64::NAN,
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => f64::INFINITY,
        "-.inf" | "-.Inf" | "-.INF" => f64::NEG_INFINITY,
        _ => return None,
    };
    Some(Resolved::new(Node::Float(f), Kind::Float))
}

fn timestamp(s: &str, t: Timestamp, schema: Schema) -> Resolved {
    match schema {
        // v3 decodes to time.Time, which encoding/json prints as RFC 3339.
        Schema::Resource => Resolved::str(t.to_rfc3339(), Kind::Timestamp),
        // v2 keeps timestamps decoded into interface{} as the original string.
        Schema::Kustomization => Resolved::str(s, Kind::Timestamp),
    }
}

/// go-yaml's integer and float rules for scalars starting with a sign or digit:
/// underscores are dropped, then Go's `ParseInt(_, 0, 64)` (decimal, `0x`, `0o`, `0b`,
/// and a leading `0` for octal), `ParseUint`, the YAML float syntax, and finally the
/// `0b`/`0o` prefixes followed by a sign (`0o-17` is -15 in v3).
fn resolve_number(s: &str, schema: Schema) -> Option<Resolved> {
    let plain: Cow<'_, str> = if s.contains('_') {
        Cow::Owned(s.replace('_', ""))
    } else {
        Cow::Borrowed(s)
    };
    let p: &str = &plain;
    if let Some(i) = parse_int_base0(p) {
        return Some(int(i));
    }
    if let Some(u) = parse_uint_base0(p) {
        return Some(uint(u));
    }
    if is_yaml_float(p) {
        // Go's ParseFloat fails on overflow (the value stays a string); Rust returns inf.
        if let Some(f) = p.parse::<f64>().ok().filter(|f| f.is_finite()) {
            return Some(Resolved::new(Node::Float(f), Kind::Float));
        }
    }
    let prefixed = |prefix: &str, radix: u32, with_uint: bool| -> Option<Resolved> {
        if let Some(rest) = p.strip_prefix(prefix) {
            if let Some(i) = parse_int_radix(rest, radix) {
                return Some(int(i));
            }
            return parse_uint_radix(rest, radix)
                .filter(|_| with_uint)
                .map(uint);
        }
        let rest = p.strip_prefix('-')?.strip_prefix(prefix)?;
        parse_int_radix(&format!("-{rest}"), radix).map(int)
    };
    prefixed("0b", 2, true).or_else(|| match schema {
        Schema::Resource => prefixed("0o", 8, true),
        Schema::Kustomization => None,
    })
}

fn int(i: i64) -> Resolved {
    Resolved::new(Node::Int(i), Kind::Int)
}

fn uint(u: u64) -> Resolved {
    match i64::try_from(u) {
        Ok(i) => int(i),
        Err(_) => Resolved::new(Node::Uint(u), Kind::Uint),
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)` for text without underscores.
fn parse_int_base0(s: &str) -> Option<i64> {
    let (neg, rest) = split_sign(s);
    let (radix, digits) = split_radix_prefix(rest);
    let magnitude = parse_digits(digits, radix)?;
    signed(neg, magnitude)
}

/// Go's `strconv.ParseUint(s, 0, 64)`: no sign allowed.
fn parse_uint_base0(s: &str) -> Option<u64> {
    let (radix, digits) = split_radix_prefix(s);
    parse_digits(digits, radix)
}

/// Go's `strconv.ParseInt(s, radix, 64)`: optional sign, no prefix.
fn parse_int_radix(s: &str, radix: u32) -> Option<i64> {
    let (neg, digits) = split_sign(s);
    signed(neg, parse_digits(digits, radix)?)
}

/// Go's `strconv.ParseUint(s, radix, 64)`.
fn parse_uint_radix(s: &str, radix: u32) -> Option<u64> {
    parse_digits(s, radix)
}

fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn split_radix_prefix(s: &str) -> (u32, &str) {
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        match b[1] {
            b'x' | b'X' => return (16, &s[2..]),
            b'o' | b'O' => return (8, &s[2..]),
            b'b' | b'B' => return (2, &s[2..]),
            _ => return (8, &s[1..]),
        }
    }
    (10, s)
}

/// Non-empty digits of `radix`, without sign or underscores, as a `u64`.
fn parse_digits(digits: &str, radix: u32) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.bytes().try_fold(0u64, |acc, c| {
        let d = char::from(c).to_digit(radix)?;
        acc.checked_mul(u64::from(radix))?.checked_add(u64::from(d))
    })
}

fn signed(neg: bool, magnitude: u64) -> Option<i64> {
    if neg {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// go-yaml's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseFloat(s, 64)` for a scalar starting with `.` (go-yaml passes those
/// unmodified): `.digits[e[sign]digits]`, where an underscore may stand between two
/// digits. Overflow is an error in Go, so it is `None` here.
fn go_parse_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let underscores_ok = b.iter().enumerate().all(|(i, &c)| {
        c != b'_'
            || (i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    });
    if !underscores_ok {
        return None;
    }
    let plain = s.replace('_', "");
    if !plain.starts_with('.') || !is_yaml_float(&plain) {
        return None;
    }
    plain.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Go's `base64.StdEncoding.DecodeString`, which go-yaml uses for `!!binary`: line breaks
/// are skipped, padding is required, trailing bits may be non-zero.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !matches!(c, b'\r' | b'\n'))
        .collect();
    if !clean.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    let quads = clean.len() / 4;
    for (n, quad) in clean.chunks_exact(4).enumerate() {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && n + 1 != quads) {
            return None;
        }
        let mut acc = 0u32;
        for &c in &quad[..4 - pad] {
            acc = acc << 6 | value(c)?;
        }
        acc <<= 6 * pad as u32;
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    Some(out)
}

/// Bytes as text the way Go's encoding/json writes a string: each byte that is not part
/// of valid UTF-8 becomes U+FFFD on its own.
fn lossy_utf8_like_go(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push(char::REPLACEMENT_CHARACTER);
                bytes = &rest[1..];
            }
        }
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`, which sigs.k8s.io/yaml uses to turn a
/// float map key of a kustomization file into a string (`1000000.0` -> `1e+06`).
pub(crate) fn format_float_key(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let v = f as f32;
    let sign = if v.is_sign_negative() { "-" } else { "" };
    // Shortest round-trip digits of the f32, as "d.ddde±x".
    let sci = format!("{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}{rest}e{esign}{:02}", exp.abs());
    }
    let point = exp + 1; // digits before the decimal point
    let text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v3(s: &str) -> Node {
        resolve(Cow::Borrowed(s), true, TagRef::None, Schema::Resource)
            .unwrap()
            .node
    }

    fn v2(s: &str) -> Node {
        resolve(Cow::Borrowed(s), true, TagRef::None, Schema::Kustomization)
            .unwrap()
            .node
    }

    fn tagged(tag: &str, s: &str, plain: bool) -> Result<Node, String> {
        resolve(Cow::Borrowed(s), plain, TagRef::Core(tag), Schema::Resource).map(|r| r.node)
    }

    fn s(x: &str) -> Node {
        Node::Str(x.into())
    }

    // Every expectation below is what `kubectl kustomize` (kustomize v5.5.0) printed for an
    // unquoted value in a resource (or reported in its error dump of the decoded map).

    #[test]
    fn integers_above_i64_stay_exact_up_to_u64_max() {
        // kubectl kustomize prints these back digit for digit; past u64 they are floats.
        assert_eq!(v3("12345678901234567890"), Node::Uint(12345678901234567890));
        assert_eq!(v3("0xFFFFFFFFFFFFFFFF"), Node::Uint(u64::MAX));
        assert_eq!(v3("9223372036854775807"), Node::Int(i64::MAX));
        assert_eq!(
            v3("18446744073709551616"),
            Node::Float(18446744073709551616.0)
        );
        assert_eq!(
            v3("-9223372036854775809"),
            Node::Float(-9223372036854775809.0)
        );
        let tagged_float = resolve(
            Cow::Borrowed("18446744073709551615"),
            false,
            TagRef::Core("float"),
            Schema::Resource,
        );
        assert!(tagged_float.is_err());
    }

    #[test]
    fn null_and_bool_words_resource() {
        for x in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(v3(x), Node::Null, "{x}");
        }
        for x in ["true", "True", "TRUE"] {
            assert_eq!(v3(x), Node::Bool(true));
        }
        for x in ["false", "False", "FALSE"] {
            assert_eq!(v3(x), Node::Bool(false));
        }
        // YAML 1.1 words are strings to go-yaml v3: printed "yes", "on", "y", "Y", ...
        for x in [
            "yes", "no", "on", "off", "y", "Y", "n", "Yes", "Off", "tRue", "nULL",
        ] {
            assert_eq!(v3(x), s(x), "{x}");
        }
    }

    #[test]
    fn bool_words_kustomization_are_yaml_1_1() {
        // kustomize rejected `commonAnnotations: {a: yes}` (and y, Y, n, on, off, no, True,
        // TRUE) with "cannot unmarshal bool into ... of type string"; `tRue` was accepted.
        for x in [
            "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE",
        ] {
            assert_eq!(v2(x), Node::Bool(true), "{x}");
        }
        for x in [
            "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
        ] {
            assert_eq!(v2(x), Node::Bool(false), "{x}");
        }
        assert_eq!(v2("tRue"), s("tRue"));
        assert_eq!(v2("~"), Node::Null);
    }

    #[test]
    fn integers() {
        let cases: &[(&str, i64)] = &[
            ("0", 0),
            ("-0", 0),
            ("00", 0),
            ("012", 10), // YAML 1.1 octal, still read by v3
            ("-012", -10),
            ("0755", 493),
            ("007", 7),
            ("0o17", 15),
            ("0O17", 15),
            ("-0o17", -15),
            ("0o-17", -15), // v3 strips "0o" and parses the rest with a sign
            ("0x1F", 31),
            ("0X1F", 31),
            ("+0x1F", 31),
            ("-0x1F", -31),
            ("0b101", 5),
            ("0B101", 5),
            ("-0b1", -1),
            ("0b-1", -1),
            ("+0b1", 1),
            ("+0o7", 7),
            ("1_000", 1000),
            ("1__0", 10),
            ("1_", 1),
            ("0_1", 1),
            ("0b1_0", 2),
            ("0x_1F", 31),
            ("+1", 1),
            ("+12", 12),
            ("-1", -1),
            ("100", 100),
            ("123456789012", 123456789012),
            ("9007199254740993", 9007199254740993),
            ("-9223372036854775808", i64::MIN),
            ("-0x8000000000000000", i64::MIN),
            (
                "-0b1000000000000000000000000000000000000000000000000000000000000000",
                i64::MIN,
            ),
        ];
        for &(x, want) in cases {
            assert_eq!(v3(x), Node::Int(want), "{x}");
        }
    }

    #[test]
    fn floats() {
        let cases: &[(&str, f64)] = &[
            ("1.0", 1.0),
            ("1.20", 1.2),
            (".5", 0.5),
            ("+.5", 0.5),
            ("-.5", -0.5),
            ("1.", 1.0),
            ("0.", 0.0),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1e+3", 1000.0),
            ("1.5E+3", 1500.0),
            ("-.5e2", -50.0),
            ("1.e2", 100.0),
            ("0e0", 0.0),
            ("1e-06", 1e-6),
            ("0.000001", 1e-6),
            ("3.14159265358979323846", std::f64::consts::PI),
            ("1.5e10", 1.5e10),
            ("1.5e1_0", 1.5e10),
            ("1e1_0", 1e10),
            ("1_000.5", 1000.5),
            ("1.5_0", 1.5),
            (".5_0", 0.5),
            ("08", 8.0), // not octal, so Go's float parser takes it
            ("09", 9.0),
            ("019", 19.0),
            ("1.0e-400", 0.0),
        ];
        for &(x, want) in cases {
            assert_eq!(v3(x), Node::Float(want), "{x}");
        }
        assert!(matches!(v3("-0.0"), Node::Float(f) if f == 0.0 && f.is_sign_negative()));
        assert_eq!(v3(".inf"), Node::Float(f64::INFINITY));
        assert_eq!(v3(".Inf"), Node::Float(f64::INFINITY));
        assert_eq!(v3("+.inf"), Node::Float(f64::INFINITY));
        assert_eq!(v3("-.inf"), Node::Float(f64::NEG_INFINITY));
        assert!(matches!(v3(".NaN"), Node::Float(f) if f.is_nan()));
    }

    #[test]
    fn strings_that_look_numeric() {
        for x in [
            "1e",
            "12e",
            "0o",
            "0x",
            "0b",
            "0x_",
            "_1",
            ".e5",
            "._5",
            "1e400",
            "inf",
            "NaN",
            "Infinity",
            "0x1.8p1",
            "12:30",
            "1:2:3",
            "190:20:30",
            "1:20",
            "v1.0",
            "1.5.3",
            "=",
            "<<",
            "x:y",
            "-x",
            "?x",
            "+",
            "-",
            ".",
            "1-2",
            "0O-17",
            "2024-13-01",
        ] {
            assert_eq!(v3(x), s(x), "{x}");
        }
    }

    #[test]
    fn octal_with_sign_after_prefix_is_v3_only() {
        assert_eq!(v2("0o-17"), s("0o-17"));
        assert_eq!(v2("0o17"), Node::Int(15));
        assert_eq!(v2("0b-1"), Node::Int(-1));
    }

    #[test]
    fn timestamps() {
        assert_eq!(v3("2024-01-01"), s("2024-01-01T00:00:00Z"));
        assert_eq!(v3("2024-1-1"), s("2024-01-01T00:00:00Z"));
        assert_eq!(v3("2024-01-01 10:00:00"), s("2024-01-01T10:00:00Z"));
        // Kustomization files keep them as written (kubectl printed "2024-01-01").
        assert_eq!(v2("2024-01-01"), s("2024-01-01"));
        assert_eq!(v2("2024-01-01T10:00:00Z"), s("2024-01-01T10:00:00Z"));
    }

    #[test]
    fn quoted_scalars_are_strings() {
        for x in ["012", "true", "null", "", "1e3", "2024-01-01"] {
            let r = resolve(Cow::Borrowed(x), false, TagRef::None, Schema::Resource).unwrap();
            assert_eq!(r.node, s(x));
        }
    }

    #[test]
    fn core_tags() {
        // kubectl: `!!str 123` -> "123", `!!int "42"` -> 42, `!!int 0x10` -> 16,
        // `!!float 1` -> 1, `!!float "1.5"` -> 1.5, `!!float 0x10` -> 16, `!!bool "true"` -> true,
        // `!!bool True` -> true, `!!null ""` -> null, `!!str` (empty) -> "",
        // `!!timestamp 2024-01-01` -> "2024-01-01T00:00:00Z", `!!float .inf` -> +Inf.
        assert_eq!(tagged("str", "123", true), Ok(s("123")));
        assert_eq!(tagged("str", "", true), Ok(s("")));
        assert_eq!(tagged("int", "42", false), Ok(Node::Int(42)));
        assert_eq!(tagged("int", "0x10", true), Ok(Node::Int(16)));
        assert_eq!(tagged("float", "1", true), Ok(Node::Float(1.0)));
        assert_eq!(tagged("float", "1.5", false), Ok(Node::Float(1.5)));
        assert_eq!(tagged("float", "0x10", true), Ok(Node::Float(16.0)));
        assert_eq!(
            tagged("float", ".inf", true),
            Ok(Node::Float(f64::INFINITY))
        );
        assert_eq!(tagged("bool", "true", false), Ok(Node::Bool(true)));
        assert_eq!(tagged("bool", "True", true), Ok(Node::Bool(true)));
        assert_eq!(tagged("null", "", false), Ok(Node::Null));
        assert_eq!(
            tagged("timestamp", "2024-01-01", true),
            Ok(s("2024-01-01T00:00:00Z"))
        );
        let big = tagged("int", "12345678901234567890", true).unwrap();
        assert_eq!(big, Node::Uint(12345678901234567890));
    }

    #[test]
    fn core_tag_mismatches_are_errors() {
        // The messages kubectl printed.
        let cases = [
            ("int", "1.5", "cannot decode !!float `1.5` as a !!int"),
            ("int", "abc", "cannot decode !!str `abc` as a !!int"),
            (
                "int",
                "2024-01-01",
                "cannot decode !!str `2024-01-01` as a !!int",
            ),
            ("bool", "yes", "cannot decode !!str `yes` as a !!bool"),
            ("float", "abc", "cannot decode !!str `abc` as a !!float"),
            ("null", "x", "cannot decode !!str `x` as a !!null"),
            (
                "timestamp",
                "2024-13-01",
                "cannot decode !!str `2024-13-01` as a !!timestamp",
            ),
        ];
        for (tag, x, msg) in cases {
            assert_eq!(tagged(tag, x, true), Err(msg.to_string()), "!!{tag} {x}");
        }
    }

    #[test]
    fn binary() {
        assert_eq!(tagged("binary", "aGVsbG8=", true), Ok(s("hello")));
        assert_eq!(tagged("binary", "aGVs\nbG8=\n", false), Ok(s("hello")));
        assert_eq!(tagged("binary", "", true), Ok(s("")));
        // \xff is not UTF-8; encoding/json writes U+FFFD.
        assert_eq!(tagged("binary", "/w==", true), Ok(s("\u{fffd}")));
        assert_eq!(tagged("binary", "4oI=", true), Ok(s("\u{fffd}\u{fffd}")));
        for bad in ["aGVsbG8", "aGV sbG8=", "aG=sbG8=", "a===", "aGVsbG8=aGVs"] {
            assert_eq!(
                tagged("binary", bad, true),
                Err("!!binary value contains invalid base64 data".to_string()),
                "{bad}"
            );
        }
    }

    #[test]
    fn other_tags_keep_the_text() {
        // kubectl: `!foo 12` -> "12", `!foo bar` -> bar; `! 12` -> 12 (non-specific tag).
        let r = resolve(Cow::Borrowed("12"), true, TagRef::Other, Schema::Resource).unwrap();
        assert_eq!(r, Resolved::str("12", Kind::Custom));
        let r = resolve(
            Cow::Borrowed("12"),
            true,
            TagRef::new("", "!"),
            Schema::Resource,
        );
        assert_eq!(r.unwrap().node, Node::Int(12));
        assert_eq!(
            TagRef::new("", "tag:yaml.org,2002:int"),
            TagRef::Core("int")
        );
        assert_eq!(TagRef::new("!", "foo"), TagRef::Other);
    }

    #[test]
    fn float_keys_like_go() {
        // sigs.k8s.io/yaml: strconv.FormatFloat(f, 'g', -1, 32); kubectl showed a
        // kustomization key 1000000.0 becoming "1e+06".
        let cases = [
            (1.5, "1.5"),
            (1.1, "1.1"),
            (0.1, "0.1"),
            (1000.0, "1000"),
            (100000.0, "100000"),
            (1000000.0, "1e+06"),
            (1.5e10, "1.5e+10"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (std::f64::consts::PI, "3.1415927"),
            (-2.5, "-2.5"),
            (-0.0, "-0"),
            (0.0, "0"),
            (f64::INFINITY, ".inf"),
            (f64::NEG_INFINITY, "-.inf"),
        ];
        for (f, want) in cases {
            assert_eq!(format_float_key(f), want, "{f}");
        }
    }
}
