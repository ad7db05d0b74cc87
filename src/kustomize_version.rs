//! Which kustomize release a build reproduces.
//!
//! kbuild follows one pipeline for every version; where kustomize's behaviour
//! changed between releases, the code asks one of the named switches below
//! (each names the release and upstream change that brought it), never the
//! version number itself. Adding a version means adding a variant and answering
//! each switch for it.

use std::fmt;

/// A kustomize release whose output kbuild reproduces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KustomizeVersion {
    /// kustomize v5.5.0, as embedded in kubectl v1.32.
    V5_5_0,
    /// kustomize v5.8.1 (the standalone release, Argo CD, Flux, kubectl v1.36/v1.37).
    #[default]
    V5_8_1,
}

/// The environment variable the command line reads when no flag picks the version
/// (the library never reads it: `BuildOptions` says).
pub const ENV_VAR: &str = "KBUILD_KUSTOMIZE_VERSION";

/// A version string kbuild does not reproduce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedVersion(pub String);

impl fmt::Display for UnsupportedVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kustomize version {:?} is not one kbuild reproduces; supported: {} (also written without the \"v\" or the patch number, e.g. 5.8)",
            self.0,
            KustomizeVersion::ALL
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl std::error::Error for UnsupportedVersion {}

impl KustomizeVersion {
    /// Every supported version, oldest first.
    pub const ALL: &'static [KustomizeVersion] =
        &[KustomizeVersion::V5_5_0, KustomizeVersion::V5_8_1];

    /// `v5.8.1`.
    pub fn as_str(self) -> &'static str {
        match self {
            KustomizeVersion::V5_5_0 => "v5.5.0",
            KustomizeVersion::V5_8_1 => "v5.8.1",
        }
    }

    /// Reads `v5.8.1`, `5.8.1`, `v5.8` or `5.8` (and the same for 5.5): a
    /// minor version names its one supported patch release.
    pub fn parse(text: &str) -> Result<KustomizeVersion, UnsupportedVersion> {
        let t = text.trim();
        let bare = t.strip_prefix('v').unwrap_or(t);
        KustomizeVersion::ALL
            .iter()
            .copied()
            .find(|v| {
                let full = &v.as_str()[1..];
                bare == full
                    || full
                        .rsplit_once('.')
                        .is_some_and(|(minor, _)| bare == minor)
            })
            .ok_or_else(|| UnsupportedVersion(text.to_string()))
    }

    /// The date `kbuild version --short` and `-o yaml|json` report as the build date:
    /// the commit date of the release's tag in the kustomize repository (`git log -1
    /// --format=%cI kustomize/v5.8.1`), in UTC as kustomize's release builds write it
    /// (`date -u +'%Y-%m-%dT%H:%M:%SZ'`). A released kustomize binary reports when it was
    /// compiled, which is not the same second; tools read only the version from it.
    pub fn release_date(self) -> &'static str {
        match self {
            // 2024-10-09T14:08:22+01:00
            KustomizeVersion::V5_5_0 => "2024-10-09T13:08:22Z",
            // 2026-02-09T21:41:22+05:30
            KustomizeVersion::V5_8_1 => "2026-02-09T16:11:22Z",
        }
    }

    // ---- The switches: one per behaviour that differs between releases. ----

    /// The value of `buildMetadata: [managedByLabel]`'s label: kustomize writes
    /// `kustomize-<its version>`. kubectl v1.32's embedded v5.5.0 reports its
    /// version as "(devel)"; v5.7.0 started reading the module version from the
    /// build info, so kubectl v1.37's v5.8.1 reports "v5.8.1".
    pub fn managed_by_value(self) -> &'static str {
        match self {
            KustomizeVersion::V5_5_0 => "kustomize-(devel)",
            KustomizeVersion::V5_8_1 => "kustomize-v5.8.1",
        }
    }

    /// The `helm version` command kustomize runs before inflating a chart: `version -c
    /// --short` before v5.8.0, `version --short` since (helm 4 has no `-c`).
    pub fn helm_version_args(self) -> &'static [&'static str] {
        match self {
            KustomizeVersion::V5_5_0 => &["version", "-c", "--short"],
            KustomizeVersion::V5_8_1 => &["version", "--short"],
        }
    }

    /// The helm major versions kustomize runs: 3, and 4 too since v5.8.0.
    pub fn helm_majors(self) -> &'static [&'static str] {
        match self {
            KustomizeVersion::V5_5_0 => &["3"],
            KustomizeVersion::V5_8_1 => &["3", "4"],
        }
    }

    /// [`Self::helm_majors`] for a message.
    pub fn helm_majors_text(self) -> &'static str {
        match self {
            KustomizeVersion::V5_5_0 => "v3",
            KustomizeVersion::V5_8_1 => "v3 or v4",
        }
    }

    /// Helm charts get the kustomization's `namespace` (or the nearest including
    /// kustomization's) as their release namespace when they set none, and the namespace
    /// transformer leaves resources from helm alone (v5.8.0, kustomize #5566, #6027,
    /// #6031: the `internal.config.kubernetes.io/helm-generated` annotation).
    pub fn namespace_for_helm_charts(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// An exec KRM function's spec may set `args` and `envs` (kyaml's `ExecSpec`, in
    /// kustomize v5.8); before, the strict decoding of the function annotation refuses
    /// them as unknown fields.
    pub fn exec_function_args(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// A legacy exec plugin's `argsOneLiner` is split by kustomize's own `ShlexSplit`, and
    /// a quote left open is the error `failed to parse argsOneLiner: unclosed quote in
    /// string` (v5.7.1, commit b6128950c); before, by `github.com/google/shlex`, whose
    /// error kustomize ignored (the words before the broken one are the arguments). The
    /// two also differ on `#` inside a word, `''` and non-ASCII spaces (plugin/shlex.rs).
    pub fn args_one_liner_errors(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// A `helmCharts` entry may set `devel` (v5.7.0); before, the field is unknown.
    pub fn helm_devel(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// A `patches` entry (or PatchTransformer) whose patch holds no document (an
    /// empty file, only comments, blank lines or `---`) does nothing (v5.7.0,
    /// kustomize #5771); before, it was an error.
    pub fn ignores_empty_patches(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// One `patches` file may hold `$patch: delete` documents followed by further
    /// documents (v5.7.0, kustomize #5859); v5.5.0 crashes on it (a nil pointer
    /// dereference), so kbuild refuses it there. `patchesStrategicMerge` always
    /// allowed it.
    pub fn patches_continue_after_delete(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// A replacement target's `select` and `reject` match group, version, kind,
    /// name and namespace as anchored regular expressions, the namespace as
    /// written ("" is no longer "default"), and an invalid expression is an
    /// error (v5.8.0, kustomize #5863); before, literally. A replacement's
    /// `source` is compared literally in both.
    pub fn replacement_selectors_are_regex(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// A replacement may give its value inline (`sourceValue`, a string) instead
    /// of a `source` (v5.7.0, kustomize #5630). v5.5.0 refuses the field in a
    /// kustomization and ignores it in replacement files and configs.
    pub fn replacement_source_value(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// A replacement target path may continue into a string field that holds
    /// YAML or JSON text, which is parsed, changed and written back (v5.8.0,
    /// `setValueInStructuredData`); where that gives up, the ordinary walk now
    /// also goes on into such text, in a copy it drops. See
    /// `transform::replacements::structured`.
    pub fn replacement_into_structured_text(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// A patch's `options` is a typed struct (`PatchArgs`, v5.8.0): keys other than
    /// `allowNameChange` and `allowKindChange` are unknown fields of the
    /// kustomization; before, any key was accepted and ignored.
    pub fn patch_options_are_typed(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }

    /// `images` also updates image volumes, `spec/volumes[]/image/reference` and
    /// `spec/template/spec/volumes[]/image/reference` (v5.7.0).
    pub fn images_in_image_volumes(self) -> bool {
        self >= KustomizeVersion::V5_8_1
    }
}

impl fmt::Display for KustomizeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for KustomizeVersion {
    type Err = UnsupportedVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KustomizeVersion::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::KustomizeVersion::{self, *};

    #[test]
    fn parses_full_short_and_bare_spellings() {
        for (text, want) in [
            ("v5.8.1", V5_8_1),
            ("5.8.1", V5_8_1),
            ("v5.8", V5_8_1),
            ("5.8", V5_8_1),
            (" v5.5.0 ", V5_5_0),
            ("5.5", V5_5_0),
            ("v5.5", V5_5_0),
        ] {
            assert_eq!(KustomizeVersion::parse(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn refuses_other_versions_listing_the_supported_ones() {
        for text in [
            "v5.7.1", "5.8.0", "5", "v5", "latest", "", "v5.8.1.0", "vv5.8",
        ] {
            let err = KustomizeVersion::parse(text).unwrap_err().to_string();
            assert!(err.contains("supported: v5.5.0, v5.8.1"), "{text}: {err}");
        }
    }

    #[test]
    fn default_is_the_newest() {
        assert_eq!(KustomizeVersion::default(), V5_8_1);
        assert_eq!(KustomizeVersion::ALL.last(), Some(&V5_8_1));
    }
}
