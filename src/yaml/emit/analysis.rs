//! libyaml's scalar analysis (`yaml_emitter_analyze_scalar`): which styles a text allows.
//!
//! Both encoders kbuild reproduces run it: go-yaml v2 for the resources kustomize prints
//! (this module's emitter) and go-yaml v3 for YAML text kyaml writes into string fields
//! (`styled::emit`). v3 changed one thing, how a tab counts ([`Tabs`]); everything else is
//! the same code, so it lives here once.

use super::style::{CLASS, DIGIT};

/// How the analysis counts a tab, the one point where go-yaml v3's analysis differs from v2's.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(in crate::yaml) enum Tabs {
    /// go-yaml v2 (libyaml): a tab is not printable, so it rules out plain, single quotes and
    /// block scalars alike.
    Unprintable,
    /// go-yaml v3: a tab rules out plain and single quotes, but a block scalar may hold it.
    AllowedInBlocks,
}

/// The styles a text allows. `flow_plain_allowed` only matters to go-yaml v3, which writes
/// scalars inside flow collections (kbuild's v2 output only has empty `{}` and `[]` there).
pub(in crate::yaml) struct Analysis {
    pub(in crate::yaml) multiline: bool,
    pub(in crate::yaml) flow_plain_allowed: bool,
    pub(in crate::yaml) block_plain_allowed: bool,
    pub(in crate::yaml) single_quoted_allowed: bool,
    pub(in crate::yaml) block_allowed: bool,
}

impl Analysis {
    /// Analyzes `s`, counting tabs as `tabs` says.
    ///
    /// libyaml tests "followed by whitespace" with `is_blankz` in v3 (a line break counts) and
    /// `is_blank` in v2; only the latter is done here, as it makes no difference: the test only
    /// sets block indicators, which rule out block plain, and a text holding a line break
    /// cannot be plain anyway.
    pub(in crate::yaml) fn of(s: &str, tabs: Tabs) -> Analysis {
        if s.is_empty() {
            return Analysis {
                multiline: false,
                flow_plain_allowed: false,
                block_plain_allowed: true,
                single_quoted_allowed: true,
                block_allowed: false,
            };
        }
        let b = s.as_bytes();
        let followed_by_whitespace = |next: usize| matches!(b.get(next), None | Some(b' ' | b'\t'));
        let mut block_indicators = match b[0] {
            b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'%' | b'@' | b'`' => true,
            b'?' | b':' | b'-' => followed_by_whitespace(1),
            _ => false,
        };
        block_indicators |= s.starts_with("---") || s.starts_with("...");
        let (mut line_breaks, mut special_characters, mut tab_characters) = (false, false, false);
        let (mut leading_space, mut leading_break) = (false, false);
        let (mut trailing_space, mut trailing_break) = (false, false);
        let (mut break_space, mut space_break) = (false, false);
        let (mut previous_space, mut previous_break) = (false, false);
        let mut preceded_by_whitespace = true;
        let mut i = 0;
        while i < b.len() {
            if CLASS[usize::from(b[i])] & !DIGIT == 0 {
                // The common case: a run of printable ASCII characters with nothing to note.
                i += 1;
                while i < b.len() && CLASS[usize::from(b[i])] & !DIGIT == 0 {
                    i += 1;
                }
                (previous_space, previous_break, preceded_by_whitespace) = (false, false, false);
                continue;
            }
            let Some(c) = s[i..].chars().next() else {
                break;
            };
            let next = i + c.len_utf8();
            let last = next == b.len();
            if i > 0 {
                match c {
                    ':' if followed_by_whitespace(next) => block_indicators = true,
                    '#' if preceded_by_whitespace => block_indicators = true,
                    _ => {}
                }
            }
            if c == '\t' && tabs == Tabs::AllowedInBlocks {
                tab_characters = true;
            } else if !is_printable(c) {
                special_characters = true;
            }
            if c == ' ' {
                leading_space |= i == 0;
                trailing_space |= last;
                break_space |= previous_break;
                (previous_space, previous_break) = (true, false);
            } else if is_break(c) {
                line_breaks = true;
                leading_break |= i == 0;
                trailing_break |= last;
                space_break |= previous_space;
                (previous_space, previous_break) = (false, true);
            } else {
                (previous_space, previous_break) = (false, false);
            }
            preceded_by_whitespace = matches!(c, ' ' | '\t' | '\0') || is_break(c);
            i = next;
        }
        // Every block indicator is a flow indicator too; the flow-only ones are these
        // characters anywhere (at the start, `?` and `:` whatever follows them).
        let flow_indicators = block_indicators || s.contains([',', '?', '[', ']', '{', '}', ':']);
        let edge_blank = leading_space || leading_break || trailing_space || trailing_break;
        let not_plain = edge_blank
            || break_space
            || space_break
            || special_characters
            || tab_characters
            || line_breaks;
        Analysis {
            multiline: line_breaks,
            flow_plain_allowed: !(not_plain || flow_indicators),
            block_plain_allowed: !(not_plain || block_indicators),
            single_quoted_allowed: !(break_space
                || space_break
                || special_characters
                || tab_characters),
            block_allowed: !(trailing_space || space_break || special_characters),
        }
    }
}

/// libyaml's `is_printable`: what may appear unescaped (4-byte UTF-8 never may).
pub(in crate::yaml) fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

/// libyaml's `is_break`: the YAML 1.1 line breaks.
pub(in crate::yaml) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}
