//! A KRM function's spec: how a plugin config says "run me as a function".
//!
//! kyaml (`fn/runtime/runtimeutil/functiontypes.go`) reads it from the first non-empty
//! annotation of `config.kubernetes.io/function` and the legacy `config.k8s.io/function`,
//! else from `metadata.configFn`, else from the older `config.kubernetes.io/container`
//! annotation (an image name alone). The annotation is YAML decoded strictly: an unknown
//! field is an error. A config with none of them is no function: a legacy exec plugin.

use crate::yaml::Node;
use serde::Deserialize;

/// What a function config asks to run.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct FunctionSpec {
    /// Accepted and, as in kustomize's plugin runner, of no effect on a build: a failed
    /// function fails the build either way.
    #[serde(default)]
    #[allow(dead_code)] // decoded so that the strict decoding accepts it
    pub defer_failure: bool,
    /// Run as a container image.
    #[serde(default)]
    pub container: ContainerSpec,
    /// Run as a local program (with `--enable-exec`).
    #[serde(default)]
    pub exec: ExecSpec,
}

/// `container:` of a function spec.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(super) struct ContainerSpec {
    /// The image.
    #[serde(default)]
    pub image: String,
    /// Whether the function needs the network (then `--network` must be given).
    #[serde(default)]
    pub network: bool,
    /// Directories or volumes to mount.
    #[serde(default)]
    pub mounts: Vec<StorageMount>,
    /// `KEY=VALUE` (set) or `KEY` (passed from kbuild's environment) entries.
    #[serde(default)]
    pub envs: Vec<String>,
}

/// `exec:` of a function spec.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(super) struct ExecSpec {
    /// The program.
    #[serde(default)]
    pub path: String,
    /// Its arguments (kustomize v5.8 and later).
    #[serde(default)]
    pub args: Vec<String>,
    /// `KEY=VALUE` entries added to its environment (kustomize v5.8 and later).
    #[serde(default)]
    pub envs: Vec<String>,
}

/// A mount of a container function (`--mount`'s and `mounts:`'s entries).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(super) struct StorageMount {
    /// `bind`, `volume`, `tmpfs`.
    #[serde(default, rename = "type")]
    pub mount_type: String,
    /// The host path (for a bind mount) or volume name.
    #[serde(default)]
    pub src: String,
    /// The path in the container.
    #[serde(default)]
    pub dst: String,
    /// Read-write; mounts are read-only otherwise.
    #[serde(default)]
    pub rw: bool,
}

impl StorageMount {
    /// Reads `--mount`'s `type=bind,src=DIR,dst=DIR[,rw=true]` (`source`/`target` too), as
    /// kyaml does: unknown options and malformed pieces are ignored.
    pub(super) fn parse(s: &str) -> StorageMount {
        let mut m = StorageMount::default();
        for option in s.split(',') {
            let Some((key, value)) = option.split_once('=') else {
                continue;
            };
            match key {
                "type" => m.mount_type = value.to_string(),
                "src" | "source" => m.src = value.to_string(),
                "dst" | "target" => m.dst = value.to_string(),
                "rw" if value == "true" => m.rw = true,
                _ => {}
            }
        }
        m
    }

    /// docker's `--mount` value for it.
    pub(super) fn docker_value(&self) -> String {
        format!(
            "type={},source={},target={}{}",
            self.mount_type,
            self.src,
            self.dst,
            if self.rw { "" } else { ",readonly" }
        )
    }
}

const FUNCTION_ANNOTATIONS: [&str; 2] = ["config.kubernetes.io/function", "config.k8s.io/function"];

/// The config's function spec; `Ok(None)` for a config that is no function. `exec_args`:
/// whether `exec` may set `args` and `envs` (see
/// [`crate::kustomize_version::KustomizeVersion::exec_function_args`]).
pub(super) fn function_spec(
    config: &Node,
    exec_args: bool,
) -> Result<Option<FunctionSpec>, String> {
    let annotation = |key: &str| {
        config
            .get_path(&["metadata", "annotations", key])
            .and_then(Node::scalar_string)
            .filter(|s| !s.is_empty())
    };
    for key in FUNCTION_ANNOTATIONS {
        if let Some(text) = annotation(key) {
            return decode(&text, key, exec_args).map(Some);
        }
    }
    match config.get_path(&["metadata", "configFn"]) {
        None | Some(Node::Null) => {}
        Some(node) => {
            return crate::yaml::de::from_node(node)
                .map(Some)
                .map_err(|e| format!("configFn unmarshal error: {e}"));
        }
    }
    Ok(
        annotation("config.kubernetes.io/container").map(|image| FunctionSpec {
            container: ContainerSpec {
                image,
                ..ContainerSpec::default()
            },
            ..FunctionSpec::default()
        }),
    )
}

fn decode(text: &str, key: &str, exec_args: bool) -> Result<FunctionSpec, String> {
    let node = crate::yaml::parse::parse_document(text, key)
        .map_err(|e| format!("{key} unmarshal error: {e}"))?;
    if node.is_null() {
        return Ok(FunctionSpec::default());
    }
    if !exec_args {
        for field in ["args", "envs"] {
            if node.get_path(&["exec", field]).is_some() {
                // kustomize v5.5.0's words (Go's strict JSON decoding).
                return Err(format!(
                    "{key} unmarshal error: error unmarshaling JSON: while decoding JSON: json: unknown field \"{field}\""
                ));
            }
        }
    }
    crate::yaml::de::from_node(&node).map_err(|e| format!("{key} unmarshal error: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::first_doc;

    #[test]
    fn the_function_annotation_is_decoded_strictly() {
        let c = first_doc(
            "metadata:\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./fn\n        args: [a]\n",
        );
        let spec = function_spec(&c, true).unwrap().unwrap();
        let e = function_spec(&c, false).unwrap_err();
        assert!(e.ends_with("unknown field \"args\""), "{e}");
        assert_eq!(spec.exec.path, "./fn");
        assert_eq!(spec.exec.args, ["a"]);
        let c = first_doc(
            "metadata:\n  annotations:\n    config.k8s.io/function: |\n      exec:\n        pth: ./fn\n",
        );
        let e = function_spec(&c, true).unwrap_err();
        assert!(
            e.starts_with("config.k8s.io/function unmarshal error"),
            "{e}"
        );
    }

    #[test]
    fn configs_without_a_spec_are_no_function() {
        assert_eq!(function_spec(&first_doc("kind: X\n"), true).unwrap(), None);
        let c = first_doc("metadata:\n  annotations:\n    config.kubernetes.io/container: img\n");
        assert_eq!(
            function_spec(&c, true).unwrap().unwrap().container.image,
            "img"
        );
    }

    #[test]
    fn mounts_read_as_kyaml_reads_them() {
        let m = StorageMount::parse("type=bind,source=/a,target=/b,rw=true,bogus");
        assert_eq!(m.docker_value(), "type=bind,source=/a,target=/b");
        let m = StorageMount::parse("src=x,dst=/y,type=volume");
        assert_eq!(m.docker_value(), "type=volume,source=x,target=/y,readonly");
    }
}
