//! Compiled regular expressions, shared by pattern.
//!
//! Patch targets and `images` names are regular expressions, and a tree repeats the
//! same few in every overlay (`Deployment`, `app-.*`): compiling each once per build
//! instead of once per use matters on large trees.

use regex::Regex;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

static COMPILED: LazyLock<Mutex<HashMap<String, Regex>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// `Regex::new(pattern)`, from the cache when this pattern was compiled before.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    if let Some(re) = COMPILED.lock().ok().and_then(|m| m.get(pattern).cloned()) {
        return Ok(re);
    }
    let re = Regex::new(pattern)?;
    if let Ok(mut m) = COMPILED.lock() {
        m.insert(pattern.to_string(), re.clone());
    }
    Ok(re)
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
