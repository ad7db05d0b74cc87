//! Regular expressions that are plain text, matched without building a regex.
//!
//! Patch targets (`kind: Deployment`, `name: app-web`) and `images` names
//! (`registry.example.com/app`) are regular expressions to kustomize, but
//! nearly all of them are literal text, at most with a `.` meaning "any
//! character". Compiling a regex for each distinct one was a tenth of a small
//! build; such a pattern is matched here character by character instead, with
//! the meaning the regex has (Go RE2 and Rust's `regex` agree on it): `.`
//! matches any character except a newline, every other character matches
//! itself. A pattern with any other regex syntax is compiled as before.

use regex::Regex;

/// Characters with a meaning in regex syntax outside a character class
/// besides `.`: a pattern holding any of them goes to the regex engine.
/// (`#`, `&`, `~` are literal there, but are kept out to stay on the safe
/// side; `-` is only special inside a class, which `[` already excludes.)
const SYNTAX: &[char] = &[
    '\\', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$', '#', '&', '~',
];

/// A pattern of literal characters and `.` wildcards.
#[derive(Clone, Debug)]
pub struct Plain {
    text: String,
    /// Without a `.`, matching is a string comparison.
    has_dot: bool,
}

impl Plain {
    /// The pattern when it holds no regex syntax other than `.`.
    pub fn parse(pattern: &str) -> Option<Plain> {
        if pattern.contains(SYNTAX) {
            return None;
        }
        Some(Plain {
            text: pattern.to_string(),
            has_dot: pattern.contains('.'),
        })
    }

    /// What is left of `s` after the pattern matched its start (`^pattern`),
    /// or `None` when it does not match there. The pattern has a fixed length
    /// in characters, so there is one candidate match only.
    pub fn strip_prefix<'s>(&self, s: &'s str) -> Option<&'s str> {
        if !self.has_dot {
            return s.strip_prefix(self.text.as_str());
        }
        let mut rest = s.chars();
        for p in self.text.chars() {
            match rest.next() {
                Some(c) if c == p || (p == '.' && c != '\n') => {}
                _ => return None,
            }
        }
        Some(rest.as_str())
    }

    /// Whether the pattern matches all of `s` (`^(?:pattern)$`).
    pub fn matches_whole(&self, s: &str) -> bool {
        if !self.has_dot {
            return s == self.text;
        }
        self.strip_prefix(s).is_some_and(str::is_empty)
    }
}

/// A pattern that must match a whole string: `^(?:pattern)$`.
#[derive(Clone, Debug)]
pub enum Anchored {
    /// Literal characters and `.` wildcards, matched without a regex engine.
    Plain(Plain),
    /// Any other pattern, compiled as `^(?:pattern)$`.
    Regex(Regex),
}

impl Anchored {
    /// Plain when it can be, else the compiled (and cached) regex; the error
    /// is the regex engine's for an invalid pattern.
    pub fn new(pattern: &str) -> Result<Anchored, crate::resource::go_regex::RegexError> {
        match Plain::parse(pattern) {
            Some(plain) => Ok(Anchored::Plain(plain)),
            None => crate::resource::regex_cache::compile(&format!("^(?:{pattern})$"))
                .map(Anchored::Regex),
        }
    }

    /// Whether the pattern matches all of `s`.
    pub fn is_match(&self, s: &str) -> bool {
        match self {
            Anchored::Plain(p) => p.matches_whole(s),
            Anchored::Regex(r) => r.is_match(s),
        }
    }
}

/// A small deterministic generator for equivalence tests (here and in the
/// modules that match plain patterns).
#[cfg(test)]
pub(crate) struct TestRng(pub u64);

#[cfg(test)]
impl TestRng {
    pub(crate) fn below(&mut self, n: usize) -> usize {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }

    pub(crate) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// A character for mutations: a newline (which `.` does not match),
    /// other ASCII, or a multi-byte one.
    fn char(&mut self) -> char {
        const CHARS: [char; 12] = [
            'a', 'Z', '0', '.', '-', '/', ':', '@', '\n', '\r', 'é', '😀',
        ];
        CHARS[self.below(CHARS.len())]
    }

    /// `text` with each `.` replaced by a random character.
    pub(crate) fn fill_dots(&mut self, text: &str) -> String {
        text.chars()
            .map(|c| if c == '.' { self.char() } else { c })
            .collect()
    }

    /// Variants of `text`: itself (half the time), or with one character
    /// replaced, dropped or added.
    pub(crate) fn mutate(&mut self, text: &str) -> String {
        let mut chars: Vec<char> = text.chars().collect();
        match self.below(6) {
            0 if !chars.is_empty() => {
                let i = self.below(chars.len());
                chars[i] = self.char();
            }
            1 if !chars.is_empty() => {
                chars.remove(self.below(chars.len()));
            }
            2 => {
                let i = self.below(chars.len() + 1);
                chars.insert(i, self.char());
            }
            _ => {}
        }
        chars.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Patterns the plain matcher takes, and strings around them.
    const PATTERNS: [&str; 16] = [
        "Deployment",
        "app-web",
        "registry.example.com/app",
        "a.b",
        ".",
        "..",
        "...",
        "é.x",
        "x/y_z",
        " sp ace ",
        "a\nb",
        "v1",
        "apps",
        "😀.",
        "%!,<>='\"",
        "a-.-b",
    ];

    #[test]
    fn plain_only_without_other_syntax() {
        for p in PATTERNS {
            assert!(Plain::parse(p).is_some(), "{p:?}");
        }
        for p in [
            "a*", "a+", "a?", "(a)", "a|b", "[ab]", "a{2}", "^a", "a$", "\\d", "a]", "a}", "#",
            "a&b", "a~",
        ] {
            assert!(Plain::parse(p).is_none(), "{p:?}");
            assert!(
                matches!(Anchored::new(p), Ok(Anchored::Regex(_)) | Err(_)),
                "{p:?}"
            );
        }
        assert!(Anchored::new("a(").is_err());
    }

    #[test]
    fn same_answers_as_the_regex() {
        let mut rng = TestRng(0x9e37_79b9_7f4a_7c15);
        let (mut checked, mut matched) = (0, 0);
        for pattern in PATTERNS {
            let plain = Plain::parse(pattern).expect("plain");
            let whole = Regex::new(&format!("^(?:{pattern})$")).expect("valid");
            let start = Regex::new(&format!("^(?:{pattern})")).expect("valid");
            let mut texts: Vec<String> = vec![
                String::new(),
                pattern.to_string(),
                format!("{pattern}{pattern}"),
                format!("{pattern}\n"),
                format!("x{pattern}"),
                pattern.replace('.', "\n"),
                pattern.replace('.', "é"),
                pattern.replace('.', ""),
                pattern.replace('.', ".."),
                pattern.to_uppercase(),
            ];
            for _ in 0..400 {
                let filled = rng.fill_dots(pattern);
                texts.push(rng.mutate(&filled));
            }
            for text in &texts {
                let want = whole.is_match(text);
                assert_eq!(plain.matches_whole(text), want, "{pattern:?} on {text:?}");
                matched += usize::from(want);
                let rest = start.find(text).map(|m| &text[m.end()..]);
                assert_eq!(plain.strip_prefix(text), rest, "{pattern:?} on {text:?}");
                checked += 1;
            }
        }
        // Both answers are well represented.
        assert!(
            checked > 6000 && matched > checked / 5 && matched < checked * 4 / 5,
            "{matched}/{checked}"
        );
    }
}
