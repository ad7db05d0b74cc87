//! How a legacy exec plugin's `argsOneLiner` becomes arguments: kustomize changed its
//! splitter in v5.7.1 (commit b6128950c, `ShlexSplit` in `api/internal/plugins/execplugin`),
//! and the two disagree on quotes left open, `#` inside a word, empty quotes and spaces
//! other than ASCII ones. Each version's rules are reproduced here; the build asks
//! [`crate::kustomize_version::KustomizeVersion::args_one_liner_errors`] which applies.

/// kustomize v5.7.1+'s `ShlexSplit`: words split at unquoted whitespace (Unicode's), `'…'`
/// and `"…"` quoting, backslash escapes (not inside single quotes), an unquoted `#`
/// anywhere ending the line (the rest of the string, newlines included, is ignored); an
/// empty word (`''`) is dropped; a quote left open is an error.
pub(super) fn split_v581(s: &str) -> Result<Vec<String>, &'static str> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in s.chars() {
        match c {
            _ if escaped => {
                current.push(c);
                escaped = false;
            }
            '\\' if quote != Some('\'') => escaped = true,
            '\'' | '"' if quote.is_none() => quote = Some(c),
            _ if Some(c) == quote => quote = None,
            '#' if quote.is_none() => {
                if !current.is_empty() {
                    out.push(current);
                }
                return Ok(out);
            }
            _ if c.is_whitespace() && quote.is_none() => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if quote.is_some() {
        return Err("unclosed quote in string");
    }
    if !current.is_empty() {
        out.push(current);
    }
    Ok(out)
}

/// kustomize v5.5.0's splitter: `github.com/google/shlex` (v0.0.0-20191202100458), whose
/// error kustomize ignores (`p.args, _ = shlex.Split(…)`). Its rules: words split at
/// ASCII space, tab, CR and LF only; `#` starts a comment only where a word would start,
/// and the comment ends at the next LF (words follow again); inside a word `#` is an
/// ordinary character; `''` and `""` make an empty word; a backslash escapes the next
/// character outside quotes and inside double quotes. When a quote is left open or the
/// string ends after a backslash, google/shlex stops with an error and returns the words
/// before the broken one; kustomize runs the plugin with those.
pub(super) fn split_v550(s: &str) -> Vec<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Start,
        Word,
        Escaping,
        EscapingQuoted,
        Double,
        Single,
        Comment,
    }
    let space = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let mut out = Vec::new();
    let mut word = String::new();
    let mut state = State::Start;
    for c in s.chars() {
        state = match (state, c) {
            (State::Start, c) if space(c) => State::Start,
            (State::Start | State::Word, '"') => State::Double,
            (State::Start | State::Word, '\'') => State::Single,
            (State::Start | State::Word, '\\') => State::Escaping,
            (State::Start, '#') => State::Comment,
            (State::Word, c) if space(c) => {
                out.push(std::mem::take(&mut word));
                State::Start
            }
            (State::Start | State::Word | State::Escaping, c) => {
                word.push(c);
                State::Word
            }
            (State::EscapingQuoted, c) => {
                word.push(c);
                State::Double
            }
            (State::Double, '"') | (State::Single, '\'') => State::Word,
            (State::Double, '\\') => State::EscapingQuoted,
            (State::Double | State::Single, c) => {
                word.push(c);
                state
            }
            (State::Comment, '\n') => State::Start,
            (State::Comment, _) => State::Comment,
        };
    }
    // At the end: a word in progress is the last one; a quote left open or a trailing
    // backslash is google/shlex's error, which drops that word (kustomize keeps the rest).
    if state == State::Word {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v581_splits_as_shlex_split() {
        assert_eq!(
            split_v581(r#"one "two three" 'four' fi\ ve # six"#).unwrap(),
            ["one", "two three", "four", "fi ve"]
        );
        assert_eq!(split_v581(r#"'a\b' "c\"d""#).unwrap(), [r"a\b", r#"c"d"#]);
        assert_eq!(split_v581("a'' '' b#c\nd").unwrap(), ["a", "b"]);
        assert_eq!(split_v581("a\u{a0}b\\").unwrap(), ["a", "b"]);
        assert_eq!(split_v581("'open").unwrap_err(), "unclosed quote in string");
    }

    #[test]
    fn v550_splits_as_google_shlex_with_its_error_ignored() {
        assert_eq!(
            split_v550(r#"one "two three" 'four' fi\ ve # six"#),
            ["one", "two three", "four", "fi ve"]
        );
        assert_eq!(split_v550(r#"'a\b' "c\"d""#), [r"a\b", r#"c"d"#]);
        // `#` inside a word, empty quotes, comments end at a line break.
        assert_eq!(split_v550("a#b '' c # x y\nd"), ["a#b", "", "c", "d"]);
        // Only ASCII spaces separate.
        assert_eq!(split_v550("a\u{a0}b\u{b}c"), ["a\u{a0}b\u{b}c"]);
        // An open quote or a trailing backslash drops that word, keeps the ones before.
        assert_eq!(split_v550("x 'open y"), ["x"]);
        assert_eq!(split_v550(r#"x y"z"#), ["x"]);
        assert_eq!(split_v550("x y\\"), ["x"]);
        assert_eq!(split_v550(""), Vec::<String>::new());
    }
}
