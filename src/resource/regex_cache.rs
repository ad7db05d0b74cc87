//! Compiled regular expressions, shared by pattern. Patterns are Go regexps, as in
//! kustomize, translated for Rust's engine by `go_regex`.
//!
//! Patch targets and `images` names are regular expressions, and a tree repeats the
//! same few in every overlay (`Deployment`, `app-.*`): compiling each once per build
//! instead of once per use matters on large trees.
//!
//! The one process-wide cache of the library, and bounded: it maps a pattern to what
//! compiling it gives, so it can change no result (two builds on two threads share it
//! without seeing each other), and it holds at most `MAX_PATTERNS` patterns (a
//! long-running embedder building many trees does not grow it without end; past the
//! bound it starts again empty). Patterns come from deep inside transformers, where no
//! build context reaches; threading one there would cost every caller an argument for
//! what is only a memo.

use super::go_regex::RegexError;
use regex::Regex;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

static COMPILED: LazyLock<Mutex<HashMap<String, Regex>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// How many compiled patterns are kept at most (a tree has a few dozen).
const MAX_PATTERNS: usize = 1024;

/// The Go regexp `pattern` compiled, from the cache when this pattern was compiled
/// before.
pub fn compile(pattern: &str) -> Result<Regex, RegexError> {
    if let Some(re) = COMPILED.lock().ok().and_then(|m| m.get(pattern).cloned()) {
        return Ok(re);
    }
    let re = Regex::new(&super::go_regex::translate(pattern)?)
        // Only the engine's size limit is left to fail here.
        .map_err(|e| RegexError(format!("error parsing regexp: {}", last_line(&e))))?;
    if let Ok(mut m) = COMPILED.lock() {
        if m.len() >= MAX_PATTERNS {
            m.clear();
        }
        m.insert(pattern.to_string(), re.clone());
    }
    Ok(re)
}

/// The regex crate's message is several lines (the pattern, a caret, the reason); the
/// reason.
fn last_line(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(&text);
    last.trim().trim_start_matches("error: ").to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_pattern_same_answers() {
        let a = super::compile("^(?:app-.*)$").expect("valid");
        let b = super::compile("^(?:app-.*)$").expect("valid");
        assert!(a.is_match("app-web") && b.is_match("app-web"));
        assert!(super::compile("(").is_err());
    }
}
