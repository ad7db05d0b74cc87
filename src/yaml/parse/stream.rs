//! Document streams: the characters go-yaml rejects, kustomize's split at `---` lines, and
//! parsing one piece (with the retry that untabs `key:\tvalue`).

use crate::error::Error;
use crate::yaml::Node;

use super::EmptyNulls;
use super::builder::Builder;
use super::position::{Ctx, Stop, yaml_error};
use super::resolve::Schema;

/// go-yaml's reader rejects characters outside YAML's printable set before parsing;
/// saphyr-parser accepts them, so check first.
pub(super) fn check_characters(text: &str, source: &str) -> Result<(), Error> {
    let b = text.as_bytes();
    // Nearly every file is printable ASCII with line breaks and tabs: one branch-free pass
    // (the compiler vectorises it) answers for those.
    let printable = b.iter().fold(true, |ok, &c| {
        ok & ((0x20..0x7f).contains(&c) | (c == b'\n') | (c == b'\t') | (c == b'\r'))
    });
    if printable {
        return Ok(());
    }
    let bad = (0..b.len()).find(|&i| match b[i] {
        b'\t' | b'\n' | b'\r' => false,
        0..=0x1f | 0x7f => true,
        // C1 controls U+0080..U+009F except NEL, and the non-characters U+FFFE, U+FFFF.
        0xc2 => matches!(b.get(i + 1), Some(&c) if (0x80..=0x9f).contains(&c) && c != 0x85),
        0xef => b.get(i + 1) == Some(&0xbf) && matches!(b.get(i + 2), Some(0xbe | 0xbf)),
        _ => false,
    });
    let Some(at) = bad else { return Ok(()) };
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    let c = text[at..].chars().next().unwrap_or_default();
    Err(yaml_error(
        source,
        line,
        col,
        format!(
            "control characters are not allowed (U+{:04X}); escape it in a double-quoted string",
            u32::from(c)
        ),
    ))
}

/// One document's text and the number of lines before it.
pub(crate) struct Piece<'a> {
    pub(crate) text: &'a str,
    pub(crate) line_offset: usize,
}

/// Splits the stream the way kustomize's `splitDocuments` does: at every match of the
/// regular expression `\n---.*\n`, searched left to right without overlap. The text
/// after `---` on a separator line must be empty or a comment.
pub(super) fn split_documents<'a>(text: &'a str, source: &str) -> Result<Vec<Piece<'a>>, Error> {
    let mut pieces = Vec::new();
    let (mut start, mut start_lines) = (0, 0);
    let (mut search, mut search_lines) = (0, 0);
    // memchr's searches: the text is scanned a few bytes per instruction.
    let separator = memchr::memmem::Finder::new("\n---");
    let bytes = text.as_bytes();
    while let Some(rel) = separator.find(&bytes[search..]) {
        let newline = search + rel;
        let Some(eol_rel) = memchr::memchr(b'\n', &bytes[newline + 1..]) else {
            break;
        };
        let eol = newline + 1 + eol_rel;
        let separator_line =
            search_lines + memchr::memchr_iter(b'\n', &bytes[search..newline]).count() + 2;
        let rest = text[newline + 4..eol].trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            let msg = format!(
                "invalid document separator: {}",
                text[newline + 1..eol].trim()
            );
            return Err(yaml_error(source, separator_line, 1, msg));
        }
        pieces.push(Piece {
            text: &text[start..=newline],
            line_offset: start_lines,
        });
        (start, start_lines) = (eol + 1, separator_line);
        (search, search_lines) = (start, start_lines);
    }
    pieces.push(Piece {
        text: &text[start..],
        line_offset: start_lines,
    });
    Ok(pieces)
}

/// saphyr-parser rejects a tab between `:` and a value that starts with a letter or `-`
/// (`key:\tvalue`), which go-yaml accepts. Such a tab is separation whitespace, so it is
/// replaced by a space (same column) and the piece parsed again, a bounded number of times.
pub(super) const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";
const TAB_FIX_WORK: usize = 64 << 20;

pub(super) fn parse_piece(
    text: &str,
    line_offset: usize,
    schema: Schema,
    source: &str,
    patch: bool,
) -> Result<Option<(Node, EmptyNulls)>, Error> {
    let ctx = Ctx {
        source,
        line_offset,
        patch,
    };
    if let Some(done) = Builder::new(ctx, schema).run_fast(text) {
        return Ok(done);
    }
    let max_fixes = (TAB_FIX_WORK / text.len().max(1)).max(16);
    let mut patched: Option<String> = None;
    let mut fixes = 0;
    loop {
        let current = patched.as_deref().unwrap_or(text);
        match Builder::new(ctx, schema).run(current) {
            Ok(node) => return Ok(node),
            Err(Stop::Error(e)) => return Err(e),
            Err(Stop::TabAfterColon { index, error }) => {
                fixes += 1;
                let mut s = patched.take().unwrap_or_else(|| text.to_string());
                if fixes > max_fixes || !untab_after_colon(&mut s, index) {
                    return Err(error);
                }
                patched = Some(s);
            }
        }
    }
}

/// Replaces the tabs between a `:` and the character at `char_index` by spaces.
pub(super) fn untab_after_colon(s: &mut String, char_index: usize) -> bool {
    let Some(end) = s
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()))
        .nth(char_index)
    else {
        return false;
    };
    let b = s.as_bytes();
    let mut start = end;
    while start > 0 && matches!(b[start - 1], b' ' | b'\t') {
        start -= 1;
    }
    if start == 0 || b[start - 1] != b':' || !b[start..end].contains(&b'\t') {
        return false;
    }
    s.replace_range(start..end, &" ".repeat(end - start));
    true
}
