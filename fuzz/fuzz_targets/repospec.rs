//! Remote entries: kustomize's repo-spec parser, the checks before git, the credentials
//! split off a URL and their redaction, and the time limit an entry asks for.
//!
//! Input: the first line is read as an entry (and as free text for `redact`); with a
//! second line, the first is used as a password and the second as a host in URLs built
//! here, whose redaction must be exact.

#![no_main]

use kbuild::remote::{RepoSpec, redact, refuse, repospec, userinfo};
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (first, second) = text.split_once('\n').unwrap_or((text, ""));
    entry(first);
    entry(&format!("https://h/o/r?timeout={first}"));
    let once = redact(text);
    assert_eq!(redact(&once), once, "redaction is stable");
    let (plain, credentials) = userinfo::split(first);
    if credentials.is_some() {
        assert_ne!(plain, first);
        assert!(userinfo::split(&plain).1.is_none(), "{plain}");
    }
    credentials_are_hidden(first, second);
});

/// What kbuild does with an entry before git runs: parse, check, split, add the limit to
/// the clock.
fn entry(entry: &str) {
    let Ok(spec) = RepoSpec::parse(entry) else { return };
    assert!(spec.timeout > Duration::ZERO && spec.timeout <= repospec::MAX_TIMEOUT);
    assert!(Instant::now().checked_add(spec.timeout).is_some());
    assert!(!spec.kust_root.starts_with('/'), "{entry}: {}", spec.kust_root);
    let url = spec.clone_url();
    if refuse::check(&spec).is_ok() {
        assert!(!spec.git_ref.starts_with('-'));
        assert!(!format!("{url}{}", spec.git_ref).chars().any(char::is_control));
    }
    let (plain, _) = userinfo::split(&url);
    let _ = redact(&plain);
}

/// A password (no `/`, `?`, `#` or whitespace: those end a URL's authority) and a host
/// (no `@` either) in http and ssh URLs: redaction leaves exactly `***` for it, and the
/// URL given to git does not hold it.
fn credentials_are_hidden(password: &str, host: &str) {
    let ends = |c: char| "/?#".contains(c) || c.is_whitespace();
    if password.is_empty() || password.contains(ends) || host.is_empty() {
        return;
    }
    if host.contains(|c: char| ends(c) || c == '@') {
        return;
    }
    let url = format!("https://me:{password}@{host}/org/repo//base?ref=v1");
    assert_eq!(redact(&url), format!("https://me:***@{host}/org/repo//base?ref=v1"));
    let (plain, credentials) = userinfo::split(&url);
    assert_eq!(plain, format!("https://{host}/org/repo//base?ref=v1"));
    assert_eq!(
        credentials.map(|c| c.with),
        Some(format!("https://me:{password}@{host}/"))
    );
    if !password.contains(':') {
        let url = format!("https://{password}@{host}/org/repo");
        assert_eq!(redact(&url), format!("https://***@{host}/org/repo"));
    }
    let ssh = format!("ssh://git:{password}@{host}/org/repo");
    assert_eq!(userinfo::split(&ssh).0, format!("ssh://git@{host}/org/repo"));
    if let Ok(spec) = RepoSpec::parse(&url) {
        let (git_url, _) = userinfo::split(&spec.clone_url());
        assert!(!git_url.contains(&format!(":{password}@")), "{git_url}");
    }
}
