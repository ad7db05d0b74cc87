//! Credentials in a clone URL (`https://user:token@host/org/repo`): git gets them, the
//! disk does not. kustomize hands the URL to `git remote add origin` and `git fetch`, so
//! the token lands in the checkout's `.git/config` (and on the command line, which any
//! local user can read). kbuild gives git the URL without them and the credentials
//! through its environment, as `url.<with credentials>.insteadOf=<without>`: git
//! rewrites the URL when it connects (submodules on the same host too, as a relative
//! submodule URL resolved against the origin did before), and writes only the URL
//! without them (the origin, submodule URLs, FETCH_HEAD).

/// A URL's credentials as git configuration: every URL starting with `plain` is fetched
/// as if it started with `with` instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    /// `scheme://userinfo@host[:port]/`.
    pub with: String,
    /// The same without the secret: `scheme://host[:port]/` for http(s) (the user name
    /// alone is often a token), `scheme://user@host[:port]/` for others (a user name for
    /// ssh is no secret, and ssh needs it).
    pub plain: String,
}

/// Where the userinfo of a `scheme://` URL is: the scheme's length with `://`, and the
/// authority's end (the first `/`, `?` or `#` after it, or the end). The userinfo runs
/// to the authority's LAST `@`: a password may hold `@` (an unescaped one included).
pub fn authority(url: &str) -> Option<(usize, usize)> {
    let scheme_end = url.find("://")?;
    let scheme = &url[..scheme_end];
    let is_scheme = scheme
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b));
    if !is_scheme {
        return None;
    }
    let start = scheme_end + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    Some((start, end))
}

/// `url` without its secret, and the credentials to hand git separately (`None`: the
/// URL carries no secret, and is given as it is).
pub fn split(url: &str) -> (String, Option<Credentials>) {
    let Some((start, end)) = authority(url) else {
        return (url.to_string(), None);
    };
    let auth = &url[start..end];
    let Some(at) = auth.rfind('@') else {
        return (url.to_string(), None);
    };
    // A prefix that ends inside the host would match other hosts (`https://h` is a
    // prefix of `https://h.evil/`): only a URL with a path is split. Every clone URL
    // of a remote entry has one.
    if url.as_bytes().get(end) != Some(&b'/') {
        return (url.to_string(), None);
    }
    let (scheme, userinfo, host) = (&url[..start], &auth[..at], &auth[at + 1..]);
    let http = scheme.to_ascii_lowercase().starts_with("http");
    let kept_user = match userinfo.split_once(':') {
        _ if http => String::new(),
        Some((user, _)) => format!("{user}@"),
        // ssh://git@host/: no secret.
        None => return (url.to_string(), None),
    };
    let plain = format!("{scheme}{kept_user}{host}/");
    let with = format!("{scheme}{userinfo}@{host}/");
    let without = format!("{plain}{}", &url[end + 1..]);
    (without, Some(Credentials { with, plain }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_the_secret_off() {
        let (url, c) = split("https://me:p@ss@example.com:8443/org/repo");
        assert_eq!(url, "https://example.com:8443/org/repo");
        let c = c.unwrap();
        assert_eq!(c.with, "https://me:p@ss@example.com:8443/");
        assert_eq!(c.plain, "https://example.com:8443/");
        let (url, c) = split("https://ghp_token@github.example/org/repo");
        assert_eq!(url, "https://github.example/org/repo");
        assert_eq!(c.unwrap().with, "https://ghp_token@github.example/");
        let (url, c) = split("ssh://git:pw@host/org/repo");
        assert_eq!(url, "ssh://git@host/org/repo");
        assert_eq!(c.unwrap().plain, "ssh://git@host/");
        for kept in [
            "ssh://git@host/org/repo",
            "https://host/org/repo",
            "git@github.com:org/repo",
            "file:///tmp/x@y/repo",
            "https://u:p@host",
        ] {
            assert_eq!(split(kept), (kept.to_string(), None), "{kept}");
        }
    }
}
