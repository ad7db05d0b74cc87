//! Helpers shared by the integration tests (each test file is its own crate and
//! includes this module with `mod common;`).

use std::path::Path;

/// Writes `text` to `dir/rel`, creating parent directories.
#[allow(dead_code)] // not every test crate writes trees
pub fn write(dir: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// Argo CD's `versionWithBinaryPath` and `getSemver` (util/kustomize/kustomize.go), step for
/// step, on the output of `kbuild version --short`.
#[allow(dead_code)] // not every test crate reads versions
pub fn argo_cd_semver(output: &str) -> Option<String> {
    let mut version = output.trim();
    version = version.strip_prefix('{').unwrap_or(version);
    version = version.strip_suffix('}').unwrap_or(version);
    let version = version.trim().replace("  ", " ");
    let version = version.strip_prefix("kustomize/").unwrap_or(&version);
    // Masterminds semver's regular expression, as Argo CD copies it.
    let semver = regex::Regex::new(concat!(
        r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?",
        r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?",
        r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    ))
    .expect("regex");
    semver.find(version).map(|m| m.as_str().to_string())
}
