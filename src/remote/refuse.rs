//! What kbuild refuses in a git entry before any of it reaches git (stricter than
//! kustomize, which hands every part to git as it is written): a ref beginning with `-`,
//! which git would read as an option (`?ref=--upload-pack=<command>` runs the command
//! in kustomize); a user or host beginning with `-`, which ssh would read as an option
//! (git refuses those too since 2.14.1, kbuild whatever git it runs); and a control
//! character anywhere (a newline in a ref or URL would forge lines in `kbuild cache
//! list`, `kbuild deps` and error messages; git refuses such refs anyway).

use super::RepoSpec;
use crate::error::RemoteProblem;

/// Whether `spec` may be handed to git; the first problem otherwise.
pub fn check(spec: &RepoSpec) -> Result<(), RemoteProblem> {
    let refused = |what: String, why: &'static str| Err(RemoteProblem::Refused { what, why });
    let url = spec.clone_url();
    if spec.git_ref.starts_with('-') {
        return refused(
            format!("ref '{}'", spec.git_ref.escape_debug()),
            "it begins with '-', and git would read it as an option",
        );
    }
    for (what, value) in [
        ("ref", spec.git_ref.as_str()),
        ("URL", url.as_str()),
        ("path", spec.kust_root.as_str()),
    ] {
        if value.chars().any(char::is_control) {
            return refused(
                format!("{what} '{}'", value.escape_debug()),
                "it holds a control character",
            );
        }
    }
    if host_or_user_is_an_option(&url) {
        return refused(
            format!("URL '{}'", super::git::redact(&url)),
            "its user or host begins with '-', and ssh would read it as an option",
        );
    }
    Ok(())
}

/// Whether the user or the host of `url` (`scheme://[user@]host/…` or SCP style
/// `user@host:path`) begins with `-`.
fn host_or_user_is_an_option(url: &str) -> bool {
    let authority = match super::userinfo::authority(url) {
        Some((start, end)) => &url[start..end],
        // SCP style: the user, then the host up to ':'.
        None => url.split(':').next().unwrap_or(""),
    };
    let (user, host) = authority.rsplit_once('@').unwrap_or(("", authority));
    user.starts_with('-') || host.starts_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(entry: &str) -> Option<String> {
        let spec = RepoSpec::parse(entry).unwrap_or_else(|e| panic!("{entry}: {e:?}"));
        check(&spec).err().map(|p| match p {
            RemoteProblem::Refused { what, why } => format!("{what}: {why}"),
            other => format!("{other:?}"),
        })
    }

    #[test]
    fn refuses_what_git_or_ssh_would_read_as_options() {
        for ok in [
            "https://github.com/org/repo//base?ref=v1.2.0",
            "file:///tmp/repo.git//base?ref=main",
            "git@gitlab.com:org/repo//x?ref=a-b",
            "ssh://git@host/org/repo?ref=refs/tags/v1",
            "https://user:p@ss@host/org/repo?ref=main:refs/x",
        ] {
            assert_eq!(problem(ok), None, "{ok}");
        }
        let p = problem("file:///tmp/r.git//b?ref=--upload-pack=touch%20/tmp/x").unwrap();
        assert!(p.starts_with("ref '--upload-pack=touch /tmp/x'"), "{p}");
        assert!(problem("https://h/o/r?version=-x").is_some());
        assert!(problem("ssh://-oProxyCommand=x@host/org/repo").is_some());
        assert!(problem("ssh://git@-oProxyCommand=x/org/repo").is_some());
        let p = problem("https://h/o/r?ref=v1%0Afake").unwrap();
        assert!(p.contains("v1\\nfake") && p.contains("control"), "{p}");
        assert!(
            problem("https://h/o/r//a%09b").is_none(),
            "not decoded in the path"
        );
    }
}
