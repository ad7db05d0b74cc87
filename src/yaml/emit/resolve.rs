//! Would go-yaml v2 read this string, written plain, as something other than a string?
//!
//! kustomize's last step is go-yaml v2's `Marshal`, which double-quotes a string whenever its
//! YAML 1.1 resolver would give the plain form another type (`yes`, `012`, `1e3`, `2024-01-01`,
//! `~`, …) and also when it looks like a YAML 1.1 base-60 float (`1:20`). This module reproduces
//! that resolver, including the parts that lean on Go's `strconv` and `time.Parse`, because the
//! exact edges (`08` is a float, `0x` followed by 17 digits is a string, `2024-02-30` is a string)
//! show in kustomize's output.

use std::borrow::Cow;

/// True when go-yaml v2 must quote `s` because a plain `s` would not read back as this string.
#[inline]
pub(super) fn needs_quotes(s: &str) -> bool {
    // Only these first bytes lead v2's resolver anywhere but `!!str` (and a base-60 float
    // starts with a sign or a digit); most strings are settled here.
    match s.as_bytes().first() {
        None => true,
        Some(
            b'y'
            | b'Y'
            | b'n'
            | b'N'
            | b't'
            | b'T'
            | b'f'
            | b'F'
            | b'o'
            | b'O'
            | b'~'
            | b'.'
            | b'+'
            | b'-'
            | b'0'..=b'9',
        ) => resolves_to_non_string_or_base60(s),
        Some(_) => false,
    }
}

/// The rest of [`needs_quotes`], out of line: the gate above is the hot part.
#[inline(never)]
fn resolves_to_non_string_or_base60(s: &str) -> bool {
    resolves_to_non_string(s) || is_base60_float(s)
}

/// go-yaml v2 `resolve("", s)` returns a tag other than `!!str`.
fn resolves_to_non_string(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return true; // the empty scalar is null
    };
    match first {
        // v2 resolves by the first byte's "hint"; only these hints lead anywhere but `!!str`.
        // The table's words are at most five bytes long.
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => {
            b.len() <= 5 && in_resolve_map(s)
        }
        b'.' => in_resolve_map(s) || go_parse_float_dotted(b),
        b'+' | b'-' | b'0'..=b'9' => in_resolve_map(s) || resolves_to_number_or_time(s),
        // `<<` is in v2's table, but its first byte has no hint, so it is never looked up.
        _ => false,
    }
}

/// The fixed words of go-yaml v2's resolve table (booleans, nulls, special floats).
fn in_resolve_map(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "true"
            | "True"
            | "TRUE"
            | "on"
            | "On"
            | "ON"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "false"
            | "False"
            | "FALSE"
            | "off"
            | "Off"
            | "OFF"
            | "~"
            | "null"
            | "Null"
            | "NULL"
            | ".nan"
            | ".NaN"
            | ".NAN"
            | ".inf"
            | ".Inf"
            | ".INF"
            | "+.inf"
            | "+.Inf"
            | "+.INF"
            | "-.inf"
            | "-.Inf"
            | "-.INF"
    )
}

/// The digit/sign branch of v2's resolver: timestamp, then int (Go `ParseInt`/`ParseUint` with
/// base 0 after deleting every `_`), then float (a YAML-style float that Go parses in range).
fn resolves_to_number_or_time(s: &str) -> bool {
    if is_timestamp(s.as_bytes()) {
        return true;
    }
    let plain: Cow<'_, [u8]> = if s.contains('_') {
        Cow::Owned(s.bytes().filter(|&c| c != b'_').collect())
    } else {
        Cow::Borrowed(s.as_bytes())
    };
    go_parses_as_int(&plain) || (is_yaml_style_float(&plain) && go_float_in_range(&plain))
}

/// Go's `strconv.ParseInt(s, 0, 64)` or `strconv.ParseUint(s, 0, 64)` succeeds.
fn go_parses_as_int(s: &[u8]) -> bool {
    let (neg, signed, rest) = match s.first() {
        Some(b'+') => (false, true, &s[1..]),
        Some(b'-') => (true, true, &s[1..]),
        _ => (false, false, s),
    };
    if rest.is_empty() {
        return false;
    }
    let (base, digits): (u64, &[u8]) = if rest[0] == b'0' {
        match rest.get(1).map(|c| c | 0x20) {
            Some(b'b') if rest.len() >= 3 => (2, &rest[2..]),
            Some(b'o') if rest.len() >= 3 => (8, &rest[2..]),
            Some(b'x') if rest.len() >= 3 => (16, &rest[2..]),
            _ => (8, &rest[1..]),
        }
    } else {
        (10, rest)
    };
    let mut value: u64 = 0;
    let mut overflow = false;
    for &c in digits {
        let Some(d) = (c as char).to_digit(base as u32) else {
            return false;
        };
        match value
            .checked_mul(base)
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    if overflow {
        return false;
    }
    match (signed, neg) {
        (false, _) => true, // ParseInt, or else ParseUint, accepts any u64
        (true, false) => i64::try_from(value).is_ok(),
        (true, true) => value <= 1u64 << 63,
    }
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &[u8]) -> bool {
    let mut i = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    let int_digits = count_digits(&s[i..]);
    i += int_digits;
    if int_digits == 0 {
        if s.get(i) != Some(&b'.') {
            return false;
        }
        let frac = count_digits(&s[i + 1..]);
        if frac == 0 {
            return false;
        }
        i += 1 + frac;
    } else if s.get(i) == Some(&b'.') {
        i += 1 + count_digits(&s[i + 1..]);
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = count_digits(&s[i..]);
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == s.len()
}

fn count_digits(s: &[u8]) -> usize {
    s.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// Go's `ParseFloat` fails on a well-formed number only when it overflows to infinity.
fn go_float_in_range(s: &[u8]) -> bool {
    std::str::from_utf8(s)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .is_some_and(f64::is_finite)
}

/// Go's `strconv.ParseFloat` on a string starting with `.` (v2's `.` hint): decimal digits with
/// Go's digit-separating underscores, an optional exponent, and no overflow.
fn go_parse_float_dotted(s: &[u8]) -> bool {
    let mut i = 1;
    let mut saw_digits = false;
    while let Some(&c) = s.get(i) {
        match c {
            b'0'..=b'9' => saw_digits = true,
            b'_' => {}
            _ => break,
        }
        i += 1;
    }
    if !saw_digits {
        return false;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !s.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while s.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    if i != s.len() || !go_underscores_ok(s) {
        return false;
    }
    let plain: Vec<u8> = s.iter().copied().filter(|&c| c != b'_').collect();
    go_float_in_range(&plain)
}

/// Go's `underscoreOK` for a decimal number: each `_` sits between two digits.
fn go_underscores_ok(s: &[u8]) -> bool {
    // What the previous byte was: b'^' start, b'0' digit, b'_' underscore, b'!' other.
    let mut saw = b'^';
    for &c in s {
        if c.is_ascii_digit() {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
    }
    saw != b'_'
}

/// go-yaml v2's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
pub(crate) fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    if !b.get(i).is_some_and(u8::is_ascii_digit) || !b.contains(&b':') {
        return false;
    }
    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        let n = count_digits(&b[i + 1..]);
        let ok = n == 1 || (n == 2 && b[i + 1] <= b'5');
        if !ok {
            return false;
        }
        i += 1 + n;
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// go-yaml v2's `parseTimestamp`: four leading digits and a `-`, then Go's `time.Parse` with
/// one of v2's layouts succeeds (dates are range-checked, so `2024-02-30` is not a timestamp).
fn is_timestamp(s: &[u8]) -> bool {
    if count_digits(s) != 4 || s.get(4) != Some(&b'-') {
        return false;
    }
    let Some(rest) = parse_date(s) else {
        return false;
    };
    if rest.is_empty() {
        return true; // "2006-1-2"
    }
    // "2006-1-2T15:4:5.999999999Z07:00", the same with `t`, "2006-1-2 15:4:5.999999999".
    match rest[0] {
        b'T' | b't' => parse_time(&rest[1..])
            .and_then(parse_zone)
            .is_some_and(<[u8]>::is_empty),
        b' ' => {
            // A space in a Go layout matches one or more spaces.
            let start = rest.iter().take_while(|&&c| c == b' ').count();
            parse_time(&rest[start..]).is_some_and(<[u8]>::is_empty)
        }
        _ => false,
    }
}

/// Year, month and day as `time.Parse` reads "2006-1-2", range-checked; returns the rest.
fn parse_date(s: &[u8]) -> Option<&[u8]> {
    let year = s[..4]
        .iter()
        .fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'));
    let (month, rest) = go_getnum(&s[5..])?;
    if !(1..=12).contains(&month) {
        return None;
    }
    let rest = rest.strip_prefix(b"-")?;
    let (day, rest) = go_getnum(rest)?;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if day < 1 || day > days_in_month {
        return None;
    }
    Some(rest)
}

/// "15:4:5" and an optional fraction, as `time.Parse` reads them; returns the rest.
fn parse_time(s: &[u8]) -> Option<&[u8]> {
    let (hour, rest) = go_getnum(s)?;
    let rest = rest.strip_prefix(b":")?;
    let (minute, rest) = go_getnum(rest)?;
    let rest = rest.strip_prefix(b":")?;
    let (second, rest) = go_getnum(rest)?;
    if hour >= 24 || minute >= 60 || second >= 60 {
        return None;
    }
    // ".999999999": optional; a `.` or `,` and then any number of digits.
    if rest.len() >= 2 && matches!(rest[0], b'.' | b',') && rest[1].is_ascii_digit() {
        return Some(&rest[1 + count_digits(&rest[1..])..]);
    }
    Some(rest)
}

/// "Z07:00": `Z`, or a sign and two-digit hours and minutes around a colon.
fn parse_zone(s: &[u8]) -> Option<&[u8]> {
    if let Some(rest) = s.strip_prefix(b"Z") {
        return Some(rest);
    }
    if s.len() < 6 || s[3] != b':' || !matches!(s[0], b'+' | b'-') {
        return None;
    }
    let two = |d: &[u8]| -> Option<u32> {
        (d[0].is_ascii_digit() && d[1].is_ascii_digit())
            .then(|| u32::from(d[0] - b'0') * 10 + u32::from(d[1] - b'0'))
    };
    let (hours, minutes) = (two(&s[1..3])?, two(&s[4..6])?);
    (hours <= 24 && minutes <= 60).then_some(&s[6..])
}

/// Go's `getnum(s, false)`: one or two digits.
fn go_getnum(s: &[u8]) -> Option<(u32, &[u8])> {
    let first = *s.first().filter(|c| c.is_ascii_digit())?;
    match s.get(1) {
        Some(&second) if second.is_ascii_digit() => Some((
            u32::from(first - b'0') * 10 + u32::from(second - b'0'),
            &s[2..],
        )),
        _ => Some((u32::from(first - b'0'), &s[1..])),
    }
}

#[cfg(test)]
mod tests {
    use super::needs_quotes;

    #[test]
    fn quoted_words() {
        for s in [
            "", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "NO", "true", "True", "TRUE",
            "false", "on", "On", "off", "OFF", "null", "Null", "NULL", "~", ".nan", ".NaN", ".inf",
            "-.inf", "+.INF",
        ] {
            assert!(needs_quotes(s), "{s:?} should be quoted");
        }
        for s in [
            "yES", "nO", "oN", "tRUE", "nan", "NaN", "inf", "-inf", ".nAn", "<<", "=", "x", "-",
            "+", ".", "..", "ye", "nul",
        ] {
            assert!(!needs_quotes(s), "{s:?} should be plain");
        }
    }

    #[test]
    fn quoted_numbers() {
        for s in [
            "0",
            "012",
            "0o17",
            "0O17",
            "0x1F",
            "0X1f",
            "-0x1F",
            "0b101",
            "1_000",
            "1_",
            "+1",
            "-1",
            "1.0",
            "1.20",
            ".5",
            "1.",
            "1e3",
            "1E3",
            "-0.0",
            "08",
            "09",
            "0755",
            "1e-06",
            "0.000001",
            "12345678901234567890",
            "18446744073709551615",
            "18446744073709551616",
            "9223372036854775807",
            "-9223372036854775808",
            "-9223372036854775809",
            "+.5",
            ".5e3",
            ".5_0",
            "1:20",
            "190:20:30",
            "1:2:3",
            "-1:30",
            "1_0:59.5",
        ] {
            assert!(needs_quotes(s), "{s:?} should be quoted");
        }
        for s in [
            "1e",
            "1e+",
            "0x",
            "0b",
            "0b2",
            "0xG",
            "1.5.3",
            "v1.0",
            "1e400",
            ".5e400",
            "._5",
            ".5_",
            ".e5",
            "0xFFFFFFFFFFFFFFFFF",
            "1:60",
            "1:2:",
            "::1",
            "10.0.0.1:80",
            "1/2",
            "50%",
            "100m",
            "1Gi",
            "1 000",
            "- 1",
            "0.0.0.0/0",
        ] {
            assert!(!needs_quotes(s), "{s:?} should be plain");
        }
    }

    #[test]
    fn quoted_timestamps() {
        for s in [
            "2024-01-01",
            "2024-1-1",
            "2024-01-01 10:00:00",
            "2024-01-01   1:2:3.5",
            "2024-01-01T10:00:00Z",
            "2024-01-01t10:00:00Z",
            "2024-01-01T10:00:00.123456789012Z",
            "2024-01-01T10:00:00,5+05:30",
            "2024-02-29",
            "2000-02-29",
            "2024-12-31T23:59:59-24:60",
        ] {
            assert!(needs_quotes(s), "{s:?} should be quoted");
        }
        for s in [
            "2024-02-30",
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-01",
            "2024-01-00",
            "2024-001-01",
            "2024-01-01T10:00:00",
            "2024-01-01T24:00:00Z",
            "2024-01-01T10:60:00Z",
            "2024-01-01 10:00:00Z",
            "2024-01-01T10:00:00+0530",
            "2024-01-01T10:00:00+25:00",
            "2024-01-01x",
            "20240-01-01",
            "2024-01-01 ",
        ] {
            assert!(!needs_quotes(s), "{s:?} should be plain");
        }
    }
}
