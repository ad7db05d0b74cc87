//! Go's regular-expression syntax, read as Go's `regexp.Compile` reads it and written
//! out for Rust's `regex` crate.
//!
//! kustomize matches patch targets, replacement selectors, `images` names and field-path
//! entries as Go regexps (RE2 syntax with Perl extensions). Rust's `regex` is close but
//! not the same, and the differences decide builds:
//! - a `{` that does not start a valid repeat (`{2}`, `{2,}`, `{2,5}`) is a literal in Go
//!   (`\${CLUSTER_NAME}-md-0` in cluster-api templates) and an error in Rust;
//! - `\Q...\E` quotes literal text in Go; Rust has no such syntax;
//! - a repeat count above 1,000 is an error in Go, accepted by Rust;
//! - `\d`, `\s`, `\w`, `\b` are ASCII in Go and Unicode in Rust;
//! - `\<`, `\>` are literal `<` `>` in Go and word boundaries in Rust; `&&`, `--`, `~~`
//!   inside a class are literal characters in Go and set operations in Rust;
//! - octal escapes (`\012`), `\p{^Greek}`, capture names starting with a digit are Go
//!   syntax; the `x`, `R`, `u` flags are Rust syntax, refused by Go.
//!
//! So the pattern is parsed here with Go's rules (its error conditions included, with
//! Go's messages) and every literal and class is written out in a form that means the
//! same to Rust whatever surrounds it (`\x{..}` code points, explicit ASCII ranges).
//! Facts from Go's `regexp/syntax` (parse.go), not its code.

use std::fmt;

/// Go's largest repeat count (`a{1001}` is "invalid repeat count").
const MAX_REPEAT: u32 = 1000;

/// A pattern Go's `regexp.Compile` refuses, or one Rust's engine cannot hold; the
/// message is Go's: `error parsing regexp: invalid repeat count: `{1001}``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegexError(pub String);

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RegexError {}

fn err(code: &str, expr: &str) -> RegexError {
    RegexError(format!("error parsing regexp: {code}: `{expr}`"))
}

const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const MISSING_REPEAT_ARG: &str = "missing argument to repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_BRACKET: &str = "missing closing ]";
const INVALID_CLASS_RANGE: &str = "invalid character class range";
const INVALID_CHAR_CLASS: &str = "invalid character class";
const MISSING_PAREN: &str = "missing closing )";
const UNEXPECTED_PAREN: &str = "unexpected )";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";

/// `pattern` (Go syntax) as a Rust `regex` pattern with the same meaning.
pub fn translate(pattern: &str) -> Result<String, RegexError> {
    let mut p = Parser {
        src: pattern,
        out: String::with_capacity(pattern.len() + 8),
        depth: 0,
        pending: String::new(),
    };
    p.run()?;
    Ok(p.out)
}

struct Parser<'a> {
    src: &'a str,
    out: String,
    /// Open groups.
    depth: usize,
    /// A flag group (`(?i)`) not written yet.
    pending: String,
}

/// What the last item was, for Go's repetition rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Start of the pattern, of a group or of an alternative: nothing to repeat.
    Nothing,
    /// Something a repetition applies to.
    Operand,
    /// A repetition; the text it was written as starts at this byte offset.
    Repeat(usize),
}

impl Parser<'_> {
    fn run(&mut self) -> Result<(), RegexError> {
        let src = self.src;
        let mut i = 0;
        let mut last = Last::Nothing;
        while i < src.len() {
            let rest = &src[i..];
            let c = rest.chars().next().unwrap_or('\0');
            let repeats = matches!(c, '*' | '+' | '?') || c == '{' && parse_repeat(rest).is_some();
            if !repeats {
                let pending = std::mem::take(&mut self.pending);
                self.out.push_str(&pending);
            }
            match c {
                '(' => {
                    let (used, opened) = self.open_group(rest)?;
                    i += used;
                    // `(?i)` opens nothing: a repetition after it applies to what came
                    // before, as in Go.
                    if opened {
                        last = Last::Nothing;
                    }
                    continue;
                }
                '|' => {
                    self.out.push('|');
                    last = Last::Nothing;
                }
                ')' => {
                    if self.depth == 0 {
                        return Err(err(UNEXPECTED_PAREN, src));
                    }
                    self.depth -= 1;
                    self.out.push(')');
                    last = Last::Operand;
                }
                '^' | '$' | '.' => {
                    self.out.push(c);
                    last = Last::Operand;
                }
                '[' => {
                    i += self.class(rest)?;
                    last = Last::Operand;
                    continue;
                }
                '*' | '+' | '?' => {
                    let mut len = 1;
                    if rest[1..].starts_with('?') {
                        len = 2;
                    }
                    self.repeat(last, i, &rest[..len])?;
                    last = Last::Repeat(i);
                    i += len;
                    continue;
                }
                '{' => match parse_repeat(rest) {
                    None => {
                        // Not a repeat: a literal `{`, as in Go.
                        push_literal(&mut self.out, '{');
                        last = Last::Operand;
                    }
                    Some(rep) => {
                        let text = &rest[..rep.len];
                        let bad = rep.min.is_none_or(|m| m > MAX_REPEAT)
                            || match rep.max {
                                Max::Unbounded => false,
                                Max::TooBig => true,
                                Max::Of(n) => n > MAX_REPEAT || rep.min.is_some_and(|m| m > n),
                            };
                        if bad {
                            return Err(err(INVALID_REPEAT_SIZE, text));
                        }
                        let mut len = rep.len;
                        if rest[len..].starts_with('?') {
                            len += 1;
                        }
                        self.repeat(last, i, &rest[..len])?;
                        last = Last::Repeat(i);
                        i += len;
                        continue;
                    }
                },
                '\\' => {
                    i += self.escape(rest, &mut last)?;
                    continue;
                }
                c => {
                    push_literal(&mut self.out, c);
                    last = Last::Operand;
                }
            }
            i += c.len_utf8();
        }
        if self.depth > 0 {
            return Err(err(MISSING_PAREN, src));
        }
        let pending = std::mem::take(&mut self.pending);
        self.out.push_str(&pending);
        Ok(())
    }

    /// A repetition operator written as `op`, at byte `at`.
    fn repeat(&mut self, last: Last, at: usize, op: &str) -> Result<(), RegexError> {
        match last {
            Last::Nothing => Err(err(MISSING_REPEAT_ARG, op)),
            // Perl (and Go) refuse stacked repetitions: `a**`, `a{2}{3}`.
            Last::Repeat(start) => Err(err(INVALID_REPEAT_OP, &self.src[start..at + op.len()])),
            Last::Operand => {
                self.out.push_str(op);
                Ok(())
            }
        }
    }

    /// `(`, `(?flags)`, `(?flags:`, `(?P<name>`, `(?<name>`; returns the bytes read and
    /// whether a group was opened.
    fn open_group(&mut self, rest: &str) -> Result<(usize, bool), RegexError> {
        if !rest.starts_with("(?") {
            self.depth += 1;
            self.out.push('(');
            return Ok((1, true));
        }
        let named = if rest.starts_with("(?P<") {
            Some(4)
        } else if rest.starts_with("(?<") {
            Some(3)
        } else {
            None
        };
        if let Some(skip) = named {
            let Some(end) = rest.find('>') else {
                return Err(err(INVALID_NAMED_CAPTURE, rest));
            };
            let name = &rest[skip..end];
            let valid =
                !name.is_empty() && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric());
            if !valid {
                return Err(err(INVALID_NAMED_CAPTURE, &rest[..=end]));
            }
            // Names are not used by kbuild; a plain group means the same (and Go's names
            // may start with a digit, Rust's not).
            self.depth += 1;
            self.out.push('(');
            return Ok((end + 1, true));
        }
        // Flags: [imsU]* (- [imsU]*)? then ')' or ':'.
        let mut negated = false;
        let mut saw_flag = false;
        for (k, c) in rest[2..].char_indices() {
            match c {
                'i' | 'm' | 's' | 'U' => saw_flag = true,
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' => {
                    // Go: "(?-)", "(?i-:" are errors; "(?)" changes nothing.
                    if negated && !saw_flag {
                        return Err(err(INVALID_PERL_OP, &rest[..k + 3]));
                    }
                    if c == ':' {
                        self.depth += 1;
                        self.out.push_str(&rest[..k + 3]);
                    } else if k > 0 {
                        // Written after a repetition that follows it (`a(?i)*` repeats
                        // `a` in Go; Rust refuses a repetition of a flag group).
                        self.pending.push_str(&rest[..k + 3]);
                    }
                    return Ok((k + 3, c == ':'));
                }
                _ => {
                    let end = k + 2 + c.len_utf8();
                    return Err(err(INVALID_PERL_OP, &rest[..end]));
                }
            }
        }
        Err(err(MISSING_PAREN, self.src))
    }

    /// An escape outside a class; returns the bytes read.
    fn escape(&mut self, rest: &str, last: &mut Last) -> Result<usize, RegexError> {
        let mut chars = rest[1..].chars();
        let Some(c) = chars.next() else {
            return Err(RegexError(
                "error parsing regexp: trailing backslash at end of expression: ``".into(),
            ));
        };
        let before = *last;
        *last = Last::Operand;
        match c {
            'A' => self.out.push_str(r"\A"),
            'z' => self.out.push_str(r"\z"),
            // ASCII word boundaries, as in Go.
            'b' => self.out.push_str(r"(?-u:\b)"),
            'B' => self.out.push_str(r"(?-u:\B)"),
            'C' => return Err(err(INVALID_ESCAPE, r"\C")),
            'Q' => {
                // \Q...\E: literal text up to \E or the end.
                let body = &rest[2..];
                let (lit, used) = match body.find(r"\E") {
                    Some(e) => (&body[..e], 2 + e + 2),
                    None => (body, rest.len()),
                };
                if lit.is_empty() {
                    // Nothing was added: a repetition after it applies to what came
                    // before, as in Go.
                    *last = before;
                }
                for ch in lit.chars() {
                    push_literal(&mut self.out, ch);
                }
                return Ok(used);
            }
            'p' | 'P' => {
                let (class, used) = unicode_class(rest)?;
                self.out.push_str(&class);
                return Ok(used);
            }
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => {
                self.out.push_str(perl_class(c));
                return Ok(2);
            }
            _ => {
                let (ch, used) = parse_escape(rest)?;
                push_literal(&mut self.out, ch);
                return Ok(used);
            }
        }
        Ok(2)
    }

    /// A bracketed class, written as a Rust class of code points, ranges and nested
    /// classes; returns the bytes read.
    fn class(&mut self, rest: &str) -> Result<usize, RegexError> {
        let mut out = String::from("[");
        let mut i = 1;
        if rest[i..].starts_with('^') {
            out.push('^');
            i += 1;
        }
        let mut first = true;
        loop {
            let t = &rest[i..];
            if t.is_empty() {
                return Err(err(MISSING_BRACKET, rest));
            }
            if t.starts_with(']') && !first {
                i += 1;
                break;
            }
            first = false;
            // [:alpha:], [:^alpha:]
            if t.starts_with("[:")
                && let Some(end) = t[2..].find(":]")
            {
                let name = &t[2..2 + end];
                let bare = name.strip_prefix('^').unwrap_or(name);
                if !POSIX_CLASSES.contains(&bare) {
                    return Err(err(INVALID_CHAR_CLASS, &t[..end + 4]));
                }
                out.push_str(&t[..end + 4]);
                i += end + 4;
                continue;
            }
            if let Some(rest_esc) = t.strip_prefix('\\') {
                match rest_esc.chars().next() {
                    Some(c @ ('d' | 'D' | 's' | 'S' | 'w' | 'W')) => {
                        out.push_str(perl_class(c));
                        i += 2;
                        continue;
                    }
                    Some('p' | 'P') => {
                        let (class, used) = unicode_class(t)?;
                        out.push_str(&class);
                        i += used;
                        continue;
                    }
                    _ => {}
                }
            }
            let lo_start = i;
            let (lo, used) = class_char(t, rest)?;
            i += used;
            let mut hi = lo;
            let t = &rest[i..];
            if t.starts_with('-') && !t[1..].starts_with(']') && t.len() > 1 {
                let (h, used) = class_char(&t[1..], rest)?;
                if h < lo {
                    return Err(err(INVALID_CLASS_RANGE, &rest[lo_start..i + 1 + used]));
                }
                hi = h;
                i += 1 + used;
            }
            out.push_str(&format!("\\x{{{:X}}}", lo as u32));
            if hi != lo {
                out.push_str(&format!("-\\x{{{:X}}}", hi as u32));
            }
        }
        out.push(']');
        self.out.push_str(&out);
        Ok(i)
    }
}

const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// Go's Perl classes, ASCII only; nested classes so they work inside a class too.
fn perl_class(c: char) -> &'static str {
    match c {
        'd' => "[0-9]",
        'D' => "[^0-9]",
        's' => r"[\t\n\x0C\r ]",
        'S' => r"[^\t\n\x0C\r ]",
        'w' => "[0-9A-Za-z_]",
        _ => "[^0-9A-Za-z_]",
    }
}

/// `\pX`, `\p{Name}`, `\p{^Name}`, `\PX`…: a nested Rust class; returns it and the bytes
/// read. The names are Go 1.25's (kustomize v5.8.1's): general categories and their long
/// aliases (`Lu`, `Uppercase_Letter`), scripts, `Any`, `ASCII`, `Assigned`, `LC`, matched
/// ignoring case, spaces, `_` and `-` (Unicode TR18). kustomize v5.5.0 (Go 1.23) knew
/// only the exact short names; kbuild accepts the newer spellings for both versions, so
/// such a pattern is an error in v5.5.0 only (a difference in errors, not in output).
/// Rust's own matching is looser still (an `is` prefix, binary properties), so only
/// names Go knows reach it, and only as a category or a script.
fn unicode_class(t: &str) -> Result<(String, usize), RegexError> {
    let negate_p = t[1..].starts_with('P');
    let after = &t[2..];
    let (mut name, used) = if let Some(body) = after.strip_prefix('{') {
        let Some(end) = body.find('}') else {
            return Err(err(INVALID_CHAR_CLASS, t));
        };
        (&body[..end], 2 + 1 + end + 1)
    } else {
        match after.chars().next() {
            Some(c) => (&after[..c.len_utf8()], 2 + c.len_utf8()),
            None => return Err(err(INVALID_CHAR_CLASS, t)),
        }
    };
    let mut negate = negate_p;
    if let Some(n) = name.strip_prefix('^') {
        negate = !negate;
        name = n;
    }
    let whole = &t[..used];
    let loose: String = name
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect();
    let known = |class: String| regex::Regex::new(&class).is_ok().then_some(class);
    let inner = match loose.as_str() {
        "any" => Some(r"\x{0}-\x{10FFFF}".to_string()),
        "ascii" => Some(r"\x{0}-\x{7F}".to_string()),
        "assigned" => Some(r"\P{gc=Cn}".to_string()),
        _ if loose.is_empty() || !loose.bytes().all(|b| b.is_ascii_alphanumeric()) => None,
        // Rust drops an `is` prefix (`isGreek`); Go does not know such names.
        _ if loose.starts_with("is") => None,
        _ => known(format!(r"\p{{gc={loose}}}")).or_else(|| known(format!(r"\p{{sc={loose}}}"))),
    };
    let Some(inner) = inner else {
        return Err(err(INVALID_CLASS_RANGE, whole));
    };
    let neg = if negate { "^" } else { "" };
    Ok((format!("[{neg}{inner}]"), used))
}

/// One character of a class (a literal or an escape); returns it and the bytes read.
fn class_char(t: &str, class: &str) -> Result<(char, usize), RegexError> {
    match t.chars().next() {
        None => Err(err(MISSING_BRACKET, class)),
        Some('\\') => parse_escape(t),
        Some(c) => Ok((c, c.len_utf8())),
    }
}

/// Go's single-character escapes: octal (`\0`, `\012`; `\1`-`\7` alone are
/// back-references Go refuses), `\x41`, `\x{263a}`, `\a\f\n\r\t\v`, and any ASCII
/// punctuation as itself. Returns the character and the bytes read.
fn parse_escape(t: &str) -> Result<(char, usize), RegexError> {
    let body = &t[1..];
    let Some(c) = body.chars().next() else {
        return Err(RegexError(
            "error parsing regexp: trailing backslash at end of expression: ``".into(),
        ));
    };
    let bad = |len: usize| err(INVALID_ESCAPE, &t[..(1 + len).min(t.len())]);
    let octal = |b: u8| (b'0'..=b'7').contains(&b);
    match c {
        '1'..='7' if !body[1..].bytes().next().is_some_and(octal) => Err(bad(1)),
        '0'..='7' => {
            let digits = body.bytes().take(3).take_while(|b| octal(*b)).count();
            let value = body[..digits]
                .bytes()
                .fold(0u32, |v, b| v * 8 + u32::from(b - b'0'));
            char::from_u32(value)
                .map(|ch| (ch, 1 + digits))
                .ok_or_else(|| bad(digits))
        }
        'x' => {
            let after = &body[1..];
            if let Some(hex) = after.strip_prefix('{') {
                let Some(end) = hex.find('}') else {
                    return Err(bad(body.len()));
                };
                let digits = &hex[..end];
                let value = (!digits.is_empty()
                    && digits.len() <= 8
                    && digits.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| u32::from_str_radix(digits, 16).ok())
                .flatten()
                .filter(|v| *v <= 0x10FFFF)
                .and_then(char::from_u32);
                match value {
                    Some(ch) => Ok((ch, 1 + 1 + 1 + end + 1)),
                    None => Err(bad(2 + end + 1)),
                }
            } else {
                let two = after
                    .get(..2)
                    .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
                match two.and_then(|h| u32::from_str_radix(h, 16).ok()) {
                    Some(v) => Ok((char::from_u32(v).unwrap_or('\u{FFFD}'), 4)),
                    None => Err(bad(1 + after
                        .chars()
                        .take(2)
                        .map(char::len_utf8)
                        .sum::<usize>())),
                }
            }
        }
        'a' => Ok(('\u{7}', 2)),
        'f' => Ok(('\u{C}', 2)),
        'n' => Ok(('\n', 2)),
        'r' => Ok(('\r', 2)),
        't' => Ok(('\t', 2)),
        'v' => Ok(('\u{B}', 2)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, 2)),
        c => Err(bad(c.len_utf8())),
    }
}

/// A literal character, written so that Rust reads it as itself in any context (ASCII
/// punctuation as a code point: `\<`, `#`, `&&` mean other things to Rust).
fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii() {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    }
}

enum Max {
    Unbounded,
    TooBig,
    Of(u32),
}

struct Repeat {
    /// `None`: too big to count.
    min: Option<u32>,
    max: Max,
    /// Bytes of `{...}`.
    len: usize,
}

/// `{n}`, `{n,}`, `{n,m}` as Go reads them, or `None` when the text is not a repeat
/// (then `{` is a literal).
fn parse_repeat(s: &str) -> Option<Repeat> {
    let body = s.strip_prefix('{')?;
    let (min, after) = parse_int(body)?;
    let (max, after) = if let Some(a) = after.strip_prefix(',') {
        if a.starts_with('}') {
            (Max::Unbounded, a)
        } else {
            let (m, a) = parse_int(a)?;
            (m.map(Max::Of).unwrap_or(Max::TooBig), a)
        }
    } else {
        (min.map(Max::Of).unwrap_or(Max::TooBig), after)
    };
    let after = after.strip_prefix('}')?;
    Some(Repeat {
        min,
        max,
        len: s.len() - after.len(),
    })
}

/// Go's parseInt for repeats: decimal digits without a leading zero (`0` alone is fine);
/// `Some(None)` for a number too big to count.
fn parse_int(s: &str) -> Option<(Option<u32>, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits >= 2 && s.starts_with('0') {
        return None;
    }
    let value = if digits > 8 {
        None
    } else {
        s[..digits].parse::<u32>().ok()
    };
    Some((value, &s[digits..]))
}

#[cfg(test)]
mod tests {
    use super::translate;

    fn matches(go: &str, text: &str) -> bool {
        let rust = translate(&format!("^(?:{go})$")).expect("valid");
        regex::Regex::new(&rust).expect("compiles").is_match(text)
    }

    fn error(go: &str) -> String {
        translate(go).expect_err("refused").0
    }

    #[test]
    fn a_brace_that_is_not_a_repeat_is_literal() {
        assert!(matches(r"\${CLUSTER_NAME}-md-0", "${CLUSTER_NAME}-md-0"));
        assert!(matches("a{", "a{"));
        assert!(matches("a{}", "a{}"));
        assert!(matches("a{,2}", "a{,2}"));
        assert!(matches("a{01}", "a{01}"));
        assert!(matches("a{1,x}", "a{1,x}"));
        assert!(matches("x}", "x}"));
        assert!(matches("a{2}", "aa"));
        assert!(matches("a{2,}", "aaaa"));
        assert!(matches("a{0}", ""));
        assert!(!matches("a{2,3}", "a"));
    }

    #[test]
    fn repeat_counts_as_go() {
        assert!(error("a{1001}").contains("invalid repeat count: `{1001}`"));
        assert!(error("a{2,1}").contains("invalid repeat count"));
        assert!(error("a{999999999}").contains("invalid repeat count"));
        assert!(translate("a{1000}").is_ok());
        assert!(error("a**").contains("invalid nested repetition operator: `**`"));
        assert!(error("a{2}{3}").contains("invalid nested repetition operator"));
        assert!(error("*a").contains("missing argument to repetition operator"));
        assert!(error("(+)").contains("missing argument"));
        assert!(matches("a*?b", "aab"));
        assert!(matches("a??", ""));
    }

    #[test]
    fn quoting() {
        assert!(matches(r"\Qa.b*c\E+", "a.b*cc"));
        assert!(!matches(r"\Qa.b\E", "axb"));
        assert!(matches(r"x\Q(y\E", "x(y"));
        assert!(error(r"^(?:x\Q(y)$").contains("missing closing )"));
        assert!(matches(r"\<a\>", "<a>"));
        assert!(matches(r"\_\-\#", "_-#"));
        assert!(matches(r"\012\x41\x{42}\0", "\nAB\0"));
        assert!(error(r"\1").contains("invalid escape sequence: `\\1`"));
        assert!(error(r"\8").contains("invalid escape sequence"));
        assert!(error(r"\q").contains("invalid escape sequence"));
        assert!(error(r"\C").contains("invalid escape sequence"));
    }

    #[test]
    fn classes_are_ascii_and_literal_as_in_go() {
        assert!(matches(r"\d+", "123"));
        assert!(!matches(r"\d", "٣"));
        assert!(!matches(r"\w", "é"));
        assert!(matches(r"[\w-]+", "a_b-c"));
        assert!(matches("[a&&b]+", "a&b"));
        assert!(error("[a--b]").contains("invalid character class range: `a--`"));
        assert!(matches("[]a]", "]"));
        assert!(matches("[^]a]", "b"));
        assert!(matches("[a-]", "-"));
        assert!(matches("[[:alpha:]]", "q"));
        assert!(matches(r"[\p{Greek}x]", "α"));
        assert!(matches(r"\p{^Greek}", "a"));
        assert!(matches(r"\pL", "é"));
        assert!(error("[z-a]").contains("invalid character class range"));
        assert!(error("[a").contains("missing closing ]"));
        assert!(error("[[:foo:]]").contains("invalid character class"));
        assert!(error(r"\p{Greekish}").contains("invalid character class range"));
        assert!(matches(r"\p{greek}\p{Uppercase Letter}\p{ASCII}", "αBc"));
        assert!(matches(r"\P{assigned}", "\u{378}"));
        assert!(error(r"\p{isGreek}").contains("invalid character class range"));
        assert!(error(r"\p{Alphabetic}").contains("invalid character class range"));
        assert!(matches(r"a\bb|a\b", "a"));
    }

    #[test]
    fn groups_and_flags() {
        assert!(matches("(?i)abc", "ABC"));
        assert!(matches("(?i:a)b", "Ab"));
        assert!(matches("(?P<1x>a)(?<y>b)", "ab"));
        // Go accepts a name twice.
        assert!(matches("(?P<a>x)(?P<a>y)", "xy"));
        assert!(error("(?x)a").contains("invalid or unsupported Perl syntax: `(?x`"));
        assert!(error("(?=a)").contains("invalid or unsupported Perl syntax"));
        assert!(error("(?-)").contains("invalid or unsupported Perl syntax"));
        assert!(matches("(?)a", "a"));
        assert!(matches("a(?i)*", "aa"));
        assert!(error("(a").contains("missing closing )"));
        assert!(error("a)").contains("unexpected )"));
        assert!(matches("a|b|", ""));
    }
}
