//! Reading an entry as a git repository, as kustomize does (its `RepoSpec`): which
//! URL to clone, which path in the clone holds the kustomization, which ref, and the
//! query options `timeout` and `submodules`.
//!
//! The rules are kustomize's, quirks included, because they decide which entries are
//! remote at all: an entry is a repository when this parse succeeds, and a local path
//! otherwise.

use std::time::Duration;

/// kustomize's default limit for each git command.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(27);

/// The largest limit an entry may ask for; a larger `timeout` is taken as this one.
/// kustomize has no maximum (it multiplies the seconds into Go's 64-bit nanoseconds,
/// which wraps: `timeout=9223372036854775807` is -1 s there); kbuild adds the limit to
/// the current instant, which must not overflow, and an hour is more than any fetch
/// needs.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// A git repository, a ref and a path in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoSpec {
    /// The entry as written (cycle detection, messages).
    pub raw: String,
    /// Scheme, user and host, with their separator: `https://github.com/`,
    /// `git@github.com:`, `file://`.
    pub host: String,
    /// The repository's path on the host: `org/repo`, `/srv/repo.git`.
    pub repo_path: String,
    /// The kustomization's path in the repository (`""` for its root).
    pub kust_root: String,
    /// The ref to fetch (`""`: the remote's HEAD).
    pub git_ref: String,
    /// Whether to update submodules after the checkout.
    pub submodules: bool,
    /// The limit for each git command.
    pub timeout: Duration,
}

/// Why an entry is not a repository (the entry is then a local path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotARepo(pub String);

const GIT_SUFFIX: &str = ".git";
const GIT_ROOT_DELIMITER: &str = "_git/";
const FILE_SCHEME: &str = "file://";
const SSH_SCHEME: &str = "ssh://";
const HTTPS_SCHEME: &str = "https://";
const HTTP_SCHEME: &str = "http://";

impl RepoSpec {
    /// The URL given to git: host and repository path.
    pub fn clone_url(&self) -> String {
        format!("{}{}", self.host, self.repo_path)
    }

    /// Parses `entry` (kustomize's `NewRepoSpecFromURL`).
    pub fn parse(entry: &str) -> Result<RepoSpec, NotARepo> {
        // An absolute local path is never a URL.
        if entry.starts_with('/') {
            return Err(NotARepo(format!("uri looks like abs path: {entry}")));
        }
        // '?' only starts the query in a URL (it is never %-encoded), so it is cut first.
        let (rest, query) = entry.split_once('?').unwrap_or((entry, ""));
        let (git_ref, timeout, submodules) = parse_query(query);
        let (host, rest) = extract_host(rest)?;
        let default_len = if host.starts_with(FILE_SCHEME) {
            None
        } else {
            Some(2)
        };
        let (repo_path, kust_root) = parse_path_parts(&rest, default_len)?;
        Ok(RepoSpec {
            raw: entry.to_string(),
            host,
            repo_path,
            kust_root,
            git_ref,
            submodules,
            timeout,
        })
    }
}

/// Splits the repository's path from the kustomization's path in it: at an explicit
/// marker (`_git/<repo>`, `//`, `.git`), else after `default_len` segments (all of
/// them for `file://`).
fn parse_path_parts(n: &str, default_len: Option<usize>) -> Result<(String, String), NotARepo> {
    let split = explicit_marker_split(n).or_else(|| match default_len {
        None => Some((n.to_string(), String::new())),
        Some(len) => {
            let segments: Vec<&str> = n.split('/').collect();
            (segments.len() >= len).then(|| (segments[..len].join("/"), segments[len..].join("/")))
        }
    });
    let Some((repo_path, kust_root)) = split.filter(|(repo, _)| !repo.is_empty()) else {
        return Err(NotARepo("failed to parse repo path segment".into()));
    };
    if exits_repo(&kust_root) {
        return Err(NotARepo(format!("url path exits repo: {n}")));
    }
    // Relative to the checkout however many slashes lead it (kustomize joins it to the
    // clone's directory with Go's filepath.Join, which keeps `///x` inside).
    let kust_root = kust_root.trim_start_matches('/').to_string();
    Ok((repo_path, kust_root))
}

/// kustomize's markers, in its order: `_git/` (Azure DevOps: the next segment is the
/// repository), `//` (the repository root; the marker is dropped), `.git` (anywhere:
/// kustomize matches `.github` too).
fn explicit_marker_split(n: &str) -> Option<(String, String)> {
    if let Some(i) = n.find(GIT_ROOT_DELIMITER) {
        let root = &n[..i + GIT_ROOT_DELIMITER.len()];
        let after = &n[i + GIT_ROOT_DELIMITER.len()..];
        let (repo, path) = after.split_once('/').unwrap_or((after, ""));
        return Some((format!("{root}{repo}"), path.to_string()));
    }
    if let Some(i) = n.find("//") {
        return Some((n[..i].to_string(), n[i + 2..].to_string()));
    }
    if let Some(i) = n.find(GIT_SUFFIX) {
        let end = i + GIT_SUFFIX.len();
        return Some((n[..end].to_string(), n[end..].to_string()));
    }
    None
}

/// Whether the path, cleaned, starts by going up (`..`): it would leave the clone.
fn exits_repo(path: &str) -> bool {
    let mut parts: Vec<&str> = Vec::new();
    for name in path.trim_start_matches('/').split('/') {
        match name {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            name => parts.push(name),
        }
    }
    parts.first() == Some(&"..")
}

/// The ref (`ref` wins over `version`), the timeout (whole seconds or a Go duration,
/// positive) and `submodules` (a Go boolean). A query Go's `url.ParseQuery` refuses
/// gives every default, as in kustomize.
fn parse_query(query: &str) -> (String, Duration, bool) {
    let defaults = (String::new(), DEFAULT_TIMEOUT, true);
    let Some(values) = go_parse_query(query) else {
        return defaults;
    };
    let get = |key: &str| {
        values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    let git_ref = match get("ref") {
        "" => get("version").to_string(),
        r => r.to_string(),
    };
    let timeout = match get("timeout") {
        "" => DEFAULT_TIMEOUT,
        t => go_atoi(t)
            .and_then(|s| u64::try_from(s).ok())
            .filter(|&s| s > 0)
            .map(Duration::from_secs)
            .or_else(|| go_parse_duration(t).filter(|d| !d.is_zero()))
            .unwrap_or(DEFAULT_TIMEOUT)
            .min(MAX_TIMEOUT),
    };
    let submodules = match get("submodules") {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => true,
        "0" | "f" | "F" | "false" | "FALSE" | "False" => false,
        _ => true,
    };
    (git_ref, timeout, submodules)
}

/// Go's `url.ParseQuery`: `&`-separated `key=value` pairs, %-escapes and `+` decoded;
/// `None` when any pair has a `;` or a bad escape.
fn go_parse_query(query: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        if pair.contains(';') {
            return None;
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.push((query_unescape(k)?, query_unescape(v)?));
    }
    Some(out)
}

fn query_unescape(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                // Two hex digits, as Go's `ishex` wants (`from_str_radix` alone would
                // take a sign: `%+f`).
                let hex = bytes.get(i + 1..i + 3)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Go's `strconv.Atoi` (an optional sign, decimal digits).
fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Go's `time.ParseDuration` for non-negative values: `1h30m`, `1.5s`, `300ms`; `None`
/// for anything else (a negative duration is refused by kustomize anyway).
fn go_parse_duration(s: &str) -> Option<Duration> {
    let s = s.strip_prefix('+').unwrap_or(s);
    if s == "0" {
        return Some(Duration::ZERO);
    }
    if s.is_empty() {
        return None;
    }
    let mut total = 0f64;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num = &rest[..num_len];
        if num.is_empty() || num == "." {
            return None;
        }
        let value: f64 = num.parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let nanos = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        total += value * nanos;
        rest = &rest[unit_len..];
    }
    // Go's limit: what fits in an int64 of nanoseconds (2562047h47m16.854775807s).
    (total.is_finite() && total <= i64::MAX as f64).then(|| Duration::from_nanos(total as u64))
}

/// Scheme, user and host (with its trailing separator) and the rest (kustomize's
/// `extractHost`).
fn extract_host(n: &str) -> Result<(String, String), NotARepo> {
    // go-getter's `git::` prefix: kustomize strips it (and warns).
    let n = strip_prefix_ignore_case(n, "git::").unwrap_or(n);
    let (scheme, n) = [SSH_SCHEME, HTTPS_SCHEME, HTTP_SCHEME, FILE_SCHEME]
        .iter()
        .find_map(|p| strip_prefix_ignore_case(n, p).map(|rest| (*p, rest)))
        .unwrap_or(("", n));
    let (username, n) = extract_username(n);
    let github = {
        let lower = n.get(..11).unwrap_or("").to_ascii_lowercase();
        lower == "github.com/" || lower == "github.com:"
    };
    // SCP style (`user@host:path`): no scheme, and a user (kustomize requires one
    // except for GitHub).
    let scp = scheme.is_empty() && (!username.is_empty() || github);
    if scheme.is_empty() && !scp {
        return Err(NotARepo("failed to parse scheme".into()));
    }
    // The file scheme's "host" is the whole path.
    if scheme == FILE_SCHEME {
        return Ok((scheme.to_string(), format!("{username}{n}")));
    }
    let (mut host, rest) = match find_path_separator(n, scp) {
        Some(i) => (n[..=i].to_string(), n[i + 1..].to_string()),
        None => (n.to_string(), String::new()),
    };
    let (mut scheme, mut username) = (scheme.to_string(), username.to_string());
    if github {
        // GitHub URLs are normalised: ssh ones (or with a user) to `git@github.com:`,
        // the others to `https://github.com/`.
        if scheme.starts_with(SSH_SCHEME) || !username.is_empty() {
            scheme = String::new();
            host = "github.com:".into();
        } else {
            scheme = HTTPS_SCHEME.into();
            username = String::new();
            host = "github.com/".into();
        }
    }
    if host.is_empty() {
        return Err(NotARepo("failed to parse host segment".into()));
    }
    Ok((format!("{scheme}{username}{host}"), rest))
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// A user name (`[a-zA-Z][a-zA-Z0-9-]*@`) at the start, with its `@`.
fn extract_username(s: &str) -> (&str, &str) {
    let bytes = s.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        return ("", s);
    }
    let end = bytes
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-'))
        .unwrap_or(bytes.len());
    if bytes.get(end) == Some(&b'@') {
        (&s[..=end], &s[end + 1..])
    } else {
        ("", s)
    }
}

/// Where the host ends: the first `/`, or in SCP style a `:` before it.
fn find_path_separator(n: &str, scp: bool) -> Option<usize> {
    let slash = n.find('/');
    if scp {
        let colon = n.find(':');
        if let Some(c) = colon.filter(|&c| c > 0)
            && slash.is_none_or(|s| c < s)
        {
            return Some(c);
        }
        if slash.is_none() {
            return colon;
        }
    }
    slash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(entry: &str) -> (String, String, String, String) {
        let s = RepoSpec::parse(entry).unwrap_or_else(|e| panic!("{entry}: {e:?}"));
        (s.host, s.repo_path, s.kust_root, s.git_ref)
    }

    fn t(a: &str, b: &str, c: &str, d: &str) -> (String, String, String, String) {
        (a.into(), b.into(), c.into(), d.into())
    }

    // Cases from kustomize's repospec_test.go (facts: what each URL splits into).
    #[test]
    fn splits_like_kustomize() {
        let cases = [
            (
                "https://github.com/org/repo//path?ref=v1",
                t("https://github.com/", "org/repo", "path", "v1"),
            ),
            (
                "github.com/org/repo/path/to/base?ref=main",
                t("https://github.com/", "org/repo", "path/to/base", "main"),
            ),
            (
                "git@github.com:org/repo.git/base",
                t("git@github.com:", "org/repo.git", "base", ""),
            ),
            (
                "ssh://git@github.com/org/repo",
                t("git@github.com:", "org/repo", "", ""),
            ),
            (
                "git::https://gitlab.com/org/repo//x?version=v2",
                t("https://gitlab.com/", "org/repo", "x", "v2"),
            ),
            (
                "https://user@dev.azure.com/org/project/_git/repo/path/to",
                t(
                    "https://user@dev.azure.com/",
                    "org/project/_git/repo",
                    "path/to",
                    "",
                ),
            ),
            (
                "file:///tmp/repo.git//base?ref=v1",
                t("file://", "/tmp/repo.git", "base", "v1"),
            ),
            ("file:///tmp/repo", t("file://", "/tmp/repo", "", "")),
            (
                "http://127.0.0.1:8080/repo.git//a/b?ref=main&timeout=5",
                t("http://127.0.0.1:8080/", "repo.git", "a/b", "main"),
            ),
            (
                "git@gitlab.com:org/repo//x",
                t("git@gitlab.com:", "org/repo", "x", ""),
            ),
            (
                "https://example.com/org/repo?ref=a&ref=b",
                t("https://example.com/", "org/repo", "", "a"),
            ),
        ];
        for (entry, want) in cases {
            assert_eq!(spec(entry), want, "{entry}");
        }
        // The kustomization path has no leading slash after `.git/`.
        let s = RepoSpec::parse("git@github.com:org/repo.git/base").unwrap();
        assert_eq!(s.clone_url(), "git@github.com:org/repo.git");
    }

    #[test]
    fn local_paths_are_not_repos() {
        for entry in [
            "../base",
            "base",
            "/abs/path",
            "example.com/org/repo",
            "https://github.com/org/repo//../x",
            "https://host",
            "ftp://host/org/repo",
        ] {
            assert!(RepoSpec::parse(entry).is_err(), "{entry}");
        }
    }

    #[test]
    fn query_options() {
        let s = RepoSpec::parse("https://h/o/r?timeout=61&submodules=false").unwrap();
        assert_eq!(s.timeout, Duration::from_secs(61));
        assert!(!s.submodules);
        let s = RepoSpec::parse("https://h/o/r?timeout=1m30s").unwrap();
        assert_eq!(s.timeout, Duration::from_secs(90));
        let s = RepoSpec::parse("https://h/o/r?timeout=-3&submodules=maybe").unwrap();
        assert_eq!(s.timeout, DEFAULT_TIMEOUT);
        assert!(s.submodules);
        // A query Go refuses gives every default, the ref too.
        let s = RepoSpec::parse("https://h/o/r?ref=v1;x").unwrap();
        assert_eq!(s.git_ref, "");
        let s = RepoSpec::parse("https://h/o/r?version=v1&ref=v2").unwrap();
        assert_eq!(s.git_ref, "v2");
        // Huge limits saturate at MAX_TIMEOUT (adding them to an instant overflowed);
        // what Go cannot parse gives the default.
        for (t, want) in [
            ("9223372036854775807", MAX_TIMEOUT),
            ("18446744073709551616", DEFAULT_TIMEOUT),
            ("2h", MAX_TIMEOUT),
            ("2562047h", MAX_TIMEOUT),
            ("99999999999h", DEFAULT_TIMEOUT),
            ("3600", MAX_TIMEOUT),
            ("59m", Duration::from_secs(59 * 60)),
        ] {
            let s = RepoSpec::parse(&format!("https://h/o/r?timeout={t}")).unwrap();
            assert_eq!(s.timeout, want, "{t}");
        }
        // Go's unescape wants two hex digits: `%+f` makes the query invalid.
        let s = RepoSpec::parse("https://h/o/r?ref=%+f").unwrap();
        assert_eq!(s.git_ref, "");
        let s = RepoSpec::parse("https://h/o/r?ref=a%2Fb").unwrap();
        assert_eq!(s.git_ref, "a/b");
        // However many slashes lead the path in the repository, it stays in it.
        let s = RepoSpec::parse("https://h/o/r////etc").unwrap();
        assert_eq!(s.kust_root, "etc");
        assert_eq!(go_parse_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(go_parse_duration("10"), None);
    }
}
