//! Where kbuild keeps what it fetched for later builds: one directory per kind (git
//! checkouts, helm charts) under the user's cache directory.

use std::path::PathBuf;

/// `$XDG_CACHE_HOME/kbuild/<name>`, else `$HOME/.cache/kbuild/<name>` (empty variables
/// count as unset); `None` without either.
pub(crate) fn user_cache_dir(name: &str) -> Option<PathBuf> {
    let nonempty = |v: &str| {
        std::env::var_os(v)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    };
    let base = nonempty("XDG_CACHE_HOME").or_else(|| nonempty("HOME").map(|h| h.join(".cache")))?;
    Some(base.join("kbuild").join(name))
}
