//! Reading a kustomization file: YAML to the typed model, with kustomize's
//! checks of `apiVersion`/`kind` and of fields kbuild refuses.

use super::Kustomization;
use crate::error::{Error, Result};
use crate::yaml::{self, Node};
use std::path::PathBuf;

/// Decodes the kustomization file `file` holding `bytes` (kustomize's field-name rules: see
/// `yaml::de`); deprecated fields are folded into their replacements.
pub fn decode(file: PathBuf, bytes: Vec<u8>) -> Result<(PathBuf, Kustomization)> {
    let text = yaml::utf8(bytes, &file)?;
    let node = yaml::parse::parse_document(&text, &file.display().to_string())?;
    if !matches!(node, Node::Map(_) | Node::Null) {
        return Err(Error::msg(format!(
            "{}: a kustomization must be a mapping, found a {}",
            file.display(),
            node.type_name()
        )));
    }
    let mut k: Kustomization = yaml::de::from_node(&node).map_err(|e| {
        Error::Field(Box::new(crate::error::FieldError {
            file: file.clone(),
            pos: None,
            path: e.path,
            msg: e.msg,
            hint: None,
        }))
    })?;
    k.fix_deprecated();
    Ok((file, k))
}

/// `apiVersion`/`kind` must be those of a Kustomization or a Component.
pub fn check_type_meta(k: &Kustomization) -> Result<()> {
    let (kind, want) = match k.kind.as_deref().unwrap_or("") {
        "" | "Kustomization" => ("Kustomization", "kustomize.config.k8s.io/v1beta1"),
        "Component" => ("Component", "kustomize.config.k8s.io/v1alpha1"),
        other => {
            return Err(Error::msg(format!(
                "kind should be Kustomization or Component, found {other:?}"
            )));
        }
    };
    match k.api_version.as_deref().unwrap_or("") {
        "" => Ok(()),
        v if v == want => Ok(()),
        v => Err(Error::msg(format!(
            "apiVersion for {kind} should be {want}, found {v:?}"
        ))),
    }
}

/// Fields kbuild cannot honour: refused loudly rather than skipped.
pub fn check_supported(k: &Kustomization) -> Result<()> {
    let helm = k.helm_charts.is_some()
        || k.helm_chart_inflation_generator.is_some()
        || k.helm_globals.is_some();
    if helm {
        return Err(Error::Unsupported {
            what: "helm charts (helmCharts, helmGlobals, helmChartInflationGenerator) are not \
                   supported: kbuild does not run helm"
                .into(),
            hint: Some("render the chart to YAML and list that under 'resources'".into()),
        });
    }
    if !k.validators.is_empty() {
        // kustomize has no builtin validators: every entry is an external (exec,
        // container or KRM function) plugin, which kustomize v5.5.0 fails on as well.
        return Err(Error::Unsupported {
            what: "validators are external plugins (exec or container KRM functions), which \
                   kbuild does not run"
                .into(),
            hint: Some("run the validator on kbuild's output instead".into()),
        });
    }
    Ok(())
}
