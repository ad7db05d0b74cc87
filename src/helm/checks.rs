//! kbuild's checks of the values a `helmCharts` entry hands to helm (stricter than
//! kustomize, which passes them as written).
//!
//! Every value reaches helm as one argument: `--flag=value`, or a positional after `--`
//! (see args.rs), so none can be read as an option. On top of that:
//! - `releaseName` must be a name helm accepts (its `ValidateReleaseName`: lowercase
//!   letters, digits, `-` and `.`, each dot-separated part starting and ending with a letter
//!   or digit, at most 53 characters); helm would refuse any other after kbuild ran it;
//! - `namespace` (the chart's, or the one it inherits) must be a DNS-1123 label, as every
//!   Kubernetes namespace is;
//! - `name` becomes a directory under the chart home and a file name in kbuild's scratch
//!   directory: one plain path component (no `/`, `\`, `.`, `..`), and no `,` or `"`
//!   (it is part of a values file path, see below);
//! - `additionalValuesFiles` reach helm's `--values`, which helm splits at commas (CSV), so
//!   `a.yaml,/home/u/.kube/config` would make helm read a file the load restrictor refused:
//!   a path holding `,` or `"` is refused;
//! - `nameTemplate` is a Go template helm renders with sprig's functions, among them `env`,
//!   `expandenv` (kbuild's environment) and `getHostByName` (a DNS query): a template using
//!   them could copy a credential into the release name, and so into the output;
//! - no value may start with `-` or hold a control character.

use super::HelmProblem;
use crate::kustomization::helm::HelmChart;
use std::path::Path;

/// The refusal of `value` in `field`.
fn refuse(field: &str, value: &str, why: &'static str) -> HelmProblem {
    HelmProblem::Refused {
        field: field.to_string(),
        value: value.to_string(),
        why,
    }
}

/// Checks a value that helm gets as an argument's value (`--flag=value`).
fn plain(field: &str, value: &str) -> Result<(), HelmProblem> {
    if value.starts_with('-') {
        return Err(refuse(field, value, "it starts with '-'"));
    }
    if value.chars().any(char::is_control) {
        return Err(refuse(field, value, "it holds a control character"));
    }
    Ok(())
}

/// Whether `part` is one part of helm's release name pattern: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn dns_label(part: &str) -> bool {
    let bytes = part.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            alnum(first) && alnum(last) && bytes.iter().all(|b| alnum(b) || *b == b'-')
        }
        _ => false,
    }
}

/// helm's `ValidateReleaseName` (chartutil): its pattern
/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`, at most 53 bytes.
pub(crate) fn valid_release_name(name: &str) -> bool {
    name.len() <= 53 && name.split('.').all(dns_label)
}

/// A DNS-1123 label: what a Kubernetes namespace must be (at most 63 characters).
pub(crate) fn valid_namespace(ns: &str) -> bool {
    ns.len() <= 63 && dns_label(ns)
}

/// sprig functions a name template may not call (see the module comment).
const FORBIDDEN_TEMPLATE_FUNCTIONS: [&str; 3] = ["env", "expandenv", "getHostByName"];

/// Checks `chart` after kustomize's defaults and the flags were applied; `inherited`: its
/// namespace came from the kustomization.
pub(crate) fn check_chart(chart: &HelmChart, inherited: bool) -> Result<(), HelmProblem> {
    let name = &chart.name;
    if name == "." || name == ".." || name.contains(['/', '\\', ',', '"']) {
        return Err(refuse(
            "name",
            name,
            "it must be one plain directory name (no '/', '\\', ',', '\"', '.' or '..')",
        ));
    }
    plain("name", name)?;
    if !chart.release_name.is_empty() && !valid_release_name(&chart.release_name) {
        return Err(refuse(
            "releaseName",
            &chart.release_name,
            "helm accepts lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit, at most 53 characters",
        ));
    }
    if !chart.namespace.is_empty() && !valid_namespace(&chart.namespace) {
        let field = if inherited {
            "namespace (from the kustomization's namespace)"
        } else {
            "namespace"
        };
        return Err(refuse(
            field,
            &chart.namespace,
            "a namespace is a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
        ));
    }
    plain("nameTemplate", &chart.name_template)?;
    let words = chart
        .name_template
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    if let Some(f) = words
        .into_iter()
        .find(|w| FORBIDDEN_TEMPLATE_FUNCTIONS.contains(w))
    {
        return Err(refuse(
            "nameTemplate",
            &chart.name_template,
            match f {
                "getHostByName" => {
                    "it calls getHostByName, a DNS query helm would make while naming the release"
                }
                _ => "it reads kbuild's environment (env, expandenv), which would reach the output",
            },
        ));
    }
    plain("version", &chart.version)?;
    if chart.version.contains(['/', '\\']) {
        // It becomes part of a directory name (`<chartHome>/<name>-<version>`).
        return Err(refuse("version", &chart.version, "it holds a '/' or '\\'"));
    }
    plain("repo", &chart.repo)?;
    plain("kubeVersion", &chart.kube_version)?;
    for v in &chart.api_versions {
        plain("apiVersions", v)?;
    }
    Ok(())
}

/// Checks a values file path as helm's `--values` gets it (see the module comment).
pub(crate) fn check_values_path(field: &str, path: &Path) -> Result<(), HelmProblem> {
    let text = path.display().to_string();
    if text.contains([',', '"']) {
        return Err(refuse(
            field,
            &text,
            "helm splits --values at commas (CSV), so it would read other files than this one",
        ));
    }
    plain(field, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_names_as_helm_validates_them() {
        for ok in ["a", "web", "a-b", "a.b", "1", "x1.y-2.z", &"a".repeat(53)] {
            assert!(valid_release_name(ok), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "A",
            "a_b",
            "a..b",
            ".a",
            "a.",
            "--post-renderer=/x",
            &"a".repeat(54),
            "a b",
        ] {
            assert!(!valid_release_name(bad), "{bad}");
        }
        assert!(valid_namespace("kube-system") && valid_namespace(&"a".repeat(63)));
        for bad in ["", "a.b", "-a", "A", &"a".repeat(64)] {
            assert!(!valid_namespace(bad), "{bad}");
        }
    }

    fn chart(f: impl FnOnce(&mut HelmChart)) -> Result<(), HelmProblem> {
        let mut c = HelmChart {
            name: "web".into(),
            ..HelmChart::default()
        };
        f(&mut c);
        check_chart(&c, false)
    }

    #[test]
    fn values_that_helm_could_misread_are_refused() {
        assert!(chart(|_| {}).is_ok());
        assert!(chart(|c| c.name_template = "{{ randAlpha 5 | lower }}-r".into()).is_ok());
        let refused: [fn(&mut HelmChart); 14] = [
            |c| c.version = "1.0/../../x".into(),
            |c| c.name = "../x".into(),
            |c| c.name = "..".into(),
            |c| c.name = "-x".into(),
            |c| c.name = "a,b".into(),
            |c| c.release_name = "--post-renderer=/bin/sh".into(),
            |c| c.namespace = "--kubeconfig=/x".into(),
            |c| c.name_template = "{{ env \"TOKEN\" }}".into(),
            |c| c.name_template = "{{expandenv \"$HOME\"}}".into(),
            |c| c.name_template = "{{ getHostByName \"x.example\" }}".into(),
            |c| c.version = "--devel".into(),
            |c| c.repo = "-r".into(),
            |c| c.kube_version = "1.30\n".into(),
            |c| c.api_versions = vec!["-x".into()],
        ];
        for f in refused {
            assert!(matches!(chart(f), Err(HelmProblem::Refused { .. })));
        }
        assert!(check_values_path("additionalValuesFiles", Path::new("/k/a.yaml")).is_ok());
        assert!(check_values_path("additionalValuesFiles", Path::new("/k/a.yaml,/etc/x")).is_err());
    }
}
