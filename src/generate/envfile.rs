//! Env files (`envs:` of a generator): `KEY=VALUE` lines.
//!
//! The rules are kustomize v5's, checked against `kubectl kustomize`:
//! - lines end at `\n`; one `\r` before it is dropped;
//! - a UTF-8 byte-order mark is removed from the first line only;
//! - leading whitespace is trimmed, then blank lines and lines starting
//!   with `#` are skipped (a `#` later in a line is part of the value);
//! - the key is everything before the first `=`, the value everything after
//!   it, untrimmed and with quotes kept; keys are not validated
//!   (`export X=1` yields the key `export X`);
//! - a line with an empty key (`=x`) is skipped;
//! - a line without `=` gives the key an empty value (kustomize v5 no
//!   longer reads the value from the environment);
//! - a line that is not valid UTF-8 is an error;
//! - a line of 64 KiB or more silently ends the file (Go's `bufio.Scanner`
//!   stops there and kustomize ignores its error).

use crate::error::Error;

/// Longest line Go's `bufio.Scanner` accepts, newline included.
const MAX_LINE: usize = 64 * 1024;

/// An env file's pairs in file order, and the lines that had no `=`.
#[derive(Debug, Default)]
pub(super) struct EnvFile {
    pub pairs: Vec<(String, String)>,
    /// The 1-based numbers of lines without `=`, whose key got an empty value: kustomize
    /// accepts them silently, though such a line is usually a mistake (a missing `=`, or
    /// a variable meant to come from the environment, which kustomize v5 no longer reads).
    pub without_equals: Vec<usize>,
}

/// Parses an env file.
pub(super) fn parse(content: &[u8]) -> Result<EnvFile, Error> {
    let mut out = EnvFile::default();
    for (index, raw) in lines(content).enumerate() {
        if raw.len() >= MAX_LINE {
            break;
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = std::str::from_utf8(line)
            .map_err(|_| Error::invalid_config(format!("line {} is not valid UTF-8", index + 1)))?;
        let line = if index == 0 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if let Some(pair) = parse_line(line) {
            if !line.contains('=') {
                out.without_equals.push(index + 1);
            }
            out.pairs.push(pair);
        }
    }
    Ok(out)
}

/// The lines of the content, without their `\n`; no empty line after a
/// final newline.
fn lines(content: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = content.strip_suffix(b"\n").unwrap_or(content);
    let empty = content.is_empty();
    body.split(|&b| b == b'\n').filter(move |_| !empty)
}

/// A key/value pair, or `None` for a blank line, a comment or an empty key.
fn parse_line(line: &str) -> Option<(String, String)> {
    let line = line.trim_start();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let (key, value) = line.split_once('=').unwrap_or((line, ""));
    if key.is_empty() {
        return None;
    }
    Some((key.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(content: &[u8]) -> Vec<(String, String)> {
        parse(content).expect("valid env file").pairs
    }

    #[test]
    fn lines_without_equals_are_noted() {
        let parsed = parse(b"A=1\n# c\nBROKEN\n=x\n  SPACED \nB=\n").unwrap();
        assert_eq!(parsed.without_equals, [3, 5]);
        assert_eq!(
            parsed.pairs,
            owned(&[("A", "1"), ("BROKEN", ""), ("SPACED ", ""), ("B", "")])
        );
    }

    fn owned(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// kubectl kustomize printed `A: "1"`, `'B ': ' 2 '`, `C: '"quoted"'`,
    /// `D: '''single'''`, `E: a=b`, `F: ""`, `G: 'x # not comment'`,
    /// `H: tab`, `HOME: ""` (HOME was set), `UNSET_VAR_XYZ: ""`.
    #[test]
    fn kubectl_verified_lines() {
        let content = b"\xef\xbb\xbfA=1\n  B = 2 \nC=\"quoted\"\nD='single'\n# comment\n   # indented comment\n\nE=a=b\nF=\nG=x # not comment\r\nHOME\nUNSET_VAR_XYZ\n\t H=tab\n";
        assert_eq!(
            pairs(content),
            owned(&[
                ("A", "1"),
                ("B ", " 2 "),
                ("C", "\"quoted\""),
                ("D", "'single'"),
                ("E", "a=b"),
                ("F", ""),
                ("G", "x # not comment"),
                ("HOME", ""),
                ("UNSET_VAR_XYZ", ""),
                ("H", "tab"),
            ])
        );
    }

    /// kubectl kustomize: `export X=1` gives the key `export X`; `=x` is
    /// skipped; a BOM on the second line stays in the key (`"\uFEFFB"`).
    #[test]
    fn odd_keys() {
        assert_eq!(
            pairs(b"export X=1\n=x\nA=1\r\n"),
            owned(&[("export X", "1"), ("A", "1")])
        );
        assert_eq!(
            pairs(b"A=1\n\xef\xbb\xbfB=2\n"),
            owned(&[("A", "1"), ("\u{feff}B", "2")])
        );
        assert_eq!(pairs(b"A=1"), owned(&[("A", "1")]));
        assert_eq!(pairs(b""), owned(&[]));
        assert_eq!(pairs(b"\n\n"), owned(&[]));
        assert_eq!(pairs(b"\xc2\xa0\x0bA=1"), owned(&[("A", "1")]));
    }

    /// kubectl kustomize: "line [66 61 255] has invalid utf8 bytes : B=\xff".
    #[test]
    fn invalid_utf8_is_an_error() {
        let err = parse(b"A=1\nB=\xff\n").expect_err("invalid UTF-8");
        assert_eq!(err.to_string(), "line 2 is not valid UTF-8");
    }

    /// kubectl kustomize: with `C=0`, then `A=` plus 65533 bytes (a 65535-byte
    /// line), then `B=2`, all three keys came out; one byte more and only `C`.
    #[test]
    fn a_line_of_64k_ends_the_file() {
        let mut ok = b"C=0\nA=".to_vec();
        ok.extend(std::iter::repeat_n(b'x', 65533));
        ok.extend(b"\nB=2");
        assert_eq!(pairs(&ok).len(), 3);
        let mut long = b"C=0\nA=".to_vec();
        long.extend(std::iter::repeat_n(b'x', 65534));
        long.extend(b"\nB=2");
        assert_eq!(pairs(&long), owned(&[("C", "0")]));
    }
}
