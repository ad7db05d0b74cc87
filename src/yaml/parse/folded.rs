//! The go-yaml v3 round trip that folded block scalars (`>`) of resources go through.
//!
//! kustomize writes each resource back to YAML with go-yaml v3, keeping the folded style,
//! and reads it again. go-yaml's folded-scalar writer looks for the next line's first
//! character at the start of the whole value instead of after the current line break
//! (`emitterc.go`, `yaml_emitter_write_folded_scalar`), so:
//! - when the value starts with a non-blank character, every line break after a line that
//!   does not start with a blank gets an extra empty line, which reading folds away unless
//!   the next line is more indented: `a` + ` b` (value `"a\n b\n"`) becomes `"a\n\n b\n"`;
//! - when the value starts with a blank, no empty lines are added, and reading folds
//!   breaks between ordinary lines into spaces: `" lead\na\nb\n"` becomes `" lead\na b\n"`.
//!
//! kubectl kustomize (v5.5.0) shows exactly these changes. This module writes the value as
//! that writer does and reads it back as go-yaml's scanner does.

/// The value a folded scalar has after kustomize's write-and-read, or `None` when
/// go-yaml would not write it in block style (it then uses double quotes, losslessly).
pub(crate) fn round_trip(value: &str) -> Option<String> {
    if !block_style_allowed(value) {
        return None;
    }
    let written = write_folded(value);
    Some(read_folded(&written, chomping(value)))
}

/// go-yaml's `yaml_emitter_analyze_scalar`: block style needs a non-empty value without
/// a trailing space, a space before a line break, or a character its writer treats as
/// special (controls other than tab and line feed, U+0085, U+FEFF, characters beyond
/// U+FFFF).
fn block_style_allowed(value: &str) -> bool {
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
            && c != '\u{feff}'
    };
    !value.is_empty()
        && !value.ends_with(' ')
        && !value.contains(" \n")
        && value.chars().all(printable)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chomping {
    Strip,
    Clip,
    Keep,
}

/// The chomping indicator go-yaml's writer chooses (`yaml_emitter_write_block_scalar_hints`).
fn chomping(value: &str) -> Chomping {
    let b = value.as_bytes();
    match b {
        [.., last] if *last != b'\n' => Chomping::Strip,
        [_] | [.., b'\n', b'\n'] => Chomping::Keep,
        _ => Chomping::Clip,
    }
}

/// The scalar's lines as go-yaml's folded writer produces them, without indentation.
fn write_folded(value: &str) -> String {
    // The writer's mistake: it inspects the value's start, not the text after the break.
    let extra_breaks = value
        .trim_start_matches('\n')
        .starts_with(|c: char| c != ' ' && c != '\t');
    let mut out = String::with_capacity(value.len() + 16);
    let mut at_break = true;
    let mut line_starts_blank = true;
    for c in value.chars() {
        if c == '\n' {
            if !at_break && !line_starts_blank && extra_breaks {
                out.push('\n');
            }
            out.push('\n');
            at_break = true;
        } else {
            if at_break {
                line_starts_blank = c == ' ' || c == '\t';
            }
            out.push(c);
            at_break = false;
        }
    }
    out
}

/// Reads folded-scalar lines as go-yaml's scanner does (`yaml_parser_scan_block_scalar`).
fn read_folded(text: &str, chomping: Chomping) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut trailing_breaks = take_breaks(&mut rest);
    let mut leading_break = false;
    let mut leading_blank = false;
    while !rest.is_empty() {
        let line_end = rest.find('\n').unwrap_or(rest.len());
        let (line, after) = rest.split_at(line_end);
        let trailing_blank = line.starts_with([' ', '\t']);
        if leading_break && !leading_blank && !trailing_blank {
            if trailing_breaks == 0 {
                out.push(' ');
            }
        } else if leading_break {
            out.push('\n');
        }
        push_breaks(&mut out, trailing_breaks);
        leading_blank = trailing_blank;
        out.push_str(line);
        leading_break = !after.is_empty();
        rest = after.strip_prefix('\n').unwrap_or(after);
        trailing_breaks = take_breaks(&mut rest);
    }
    match chomping {
        Chomping::Strip => {}
        Chomping::Clip => push_breaks(&mut out, usize::from(leading_break)),
        Chomping::Keep => push_breaks(&mut out, usize::from(leading_break) + trailing_breaks),
    }
    out
}

fn take_breaks(rest: &mut &str) -> usize {
    let n = rest.len() - rest.trim_start_matches('\n').len();
    *rest = &rest[n..];
    n
}

fn push_breaks(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n('\n', n));
}

#[cfg(test)]
mod tests {
    use super::round_trip;

    // Expectations: the value kubectl kustomize printed for the folded input.
    #[test]
    fn extra_line_before_more_indented_lines() {
        let cases = [
            ("a\n b\n", "a\n\n b\n"),
            ("a\n\n b\n", "a\n\n\n b\n"),
            ("a\n\n\n b\nc\n", "a\n\n\n\n b\nc\n"),
            ("a\n b\n\nc\n", "a\n\n b\n\nc\n"),
            ("a b\n c\n", "a b\n\n c\n"),
            ("a\n b", "a\n\n b"),
            ("\na b\n c\n", "\na b\n\n c\n"),
            ("a\tb\n c\n", "a\tb\n\n c\n"),
            ("a\n\tb\n", "a\n\n\tb\n"),
            ("a\n\n", "a\n\n\n"),
        ];
        for (value, want) in cases {
            assert_eq!(round_trip(value).as_deref(), Some(want), "{value:?}");
        }
    }

    #[test]
    fn values_starting_with_a_blank_lose_line_breaks() {
        assert_eq!(round_trip(" lead\na\nb\n").as_deref(), Some(" lead\na b\n"));
        assert_eq!(
            round_trip(" lead\nb\n c\n").as_deref(),
            Some(" lead\nb\n c\n")
        );
    }

    #[test]
    fn unchanged_values() {
        for value in ["a b\n", "one two", "para\n\nnext\n", "x\n"] {
            assert_eq!(round_trip(value).as_deref(), Some(value), "{value:?}");
        }
    }

    #[test]
    fn double_quoted_instead_of_block() {
        // go-yaml writes these in double quotes, which round-trip exactly
        // (kubectl printed "a \n b\n" for a folded `a ` + ` b`).
        for value in [
            "",
            "a \n b\n",
            "trail ",
            "emoji \u{1f600}\n x",
            "bom\u{feff}",
        ] {
            assert_eq!(round_trip(value), None, "{value:?}");
        }
    }
}
