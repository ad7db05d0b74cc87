//! Container functions: the `docker run` command line kyaml builds
//! (`fn/runtime/container/container.go`), run through `docker` or, failing that, `podman`.
//!
//! `docker run --rm -i -a STDIN -a STDOUT -a STDERR --network none --user nobody
//! --security-opt=no-new-privileges [--mount …] [-e …] IMAGE`: no network unless the
//! function declares it and `--network` allows it (then the host's network, as kustomize;
//! `--network-name` names another), the `nobody` user unless `--as-current-user`, the
//! function's mounts then `--mount`'s (relative sources taken from the kustomization's
//! directory, read-only unless `rw`), and the environment: `KEY=VALUE` entries sorted by key
//! (kyaml's `LOG_TO_STDERR=true` and `STRUCTURED_RESULTS=true` among them, `-e` winning over
//! the function's `envs`), then the bare `KEY`s passed from kbuild's environment.

use super::spec::{ContainerSpec, StorageMount};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How container functions run (the `--network`, `--network-name`, `--mount`, `-e` and
/// `--as-current-user` flags).
pub(super) struct Settings<'a> {
    pub network_name: Option<&'a str>,
    pub mounts: &'a [String],
    pub env: &'a [String],
    pub as_current_user: bool,
}

/// The runtime to use: `docker` on PATH, else `podman`.
pub(super) fn runtime() -> Option<PathBuf> {
    super::locate::which("docker").or_else(|| super::locate::which("podman"))
}

/// The arguments after the runtime's name.
pub(super) fn run_args(spec: &ContainerSpec, root: &Path, settings: &Settings<'_>) -> Vec<String> {
    let network = if spec.network {
        settings.network_name.unwrap_or("host")
    } else {
        "none"
    };
    let user = if settings.as_current_user {
        // SAFETY: getuid and getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        format!("{uid}:{gid}")
    } else {
        "nobody".to_string()
    };
    let mut args: Vec<String> = [
        "run",
        "--rm",
        "-i",
        "-a",
        "STDIN",
        "-a",
        "STDOUT",
        "-a",
        "STDERR",
        "--network",
        network,
        "--user",
        &user,
        "--security-opt=no-new-privileges",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mounts = spec
        .mounts
        .iter()
        .cloned()
        .chain(settings.mounts.iter().map(|m| StorageMount::parse(m)));
    for mut m in mounts {
        if !Path::new(&m.src).is_absolute() {
            // Go's filepath.Join, which cleans the result.
            m.src = super::clean(&format!("{}/{}", root.display(), m.src));
        }
        args.push("--mount".into());
        args.push(m.docker_value());
    }
    for e in env_flags(&spec.envs, settings.env) {
        args.push("-e".into());
        args.push(e);
    }
    args.push(spec.image.clone());
    args
}

/// kyaml's merge of the function's `envs` with `-e`, in its `-e` order.
fn env_flags(declared: &[String], imperative: &[String]) -> Vec<String> {
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    values.insert("LOG_TO_STDERR".into(), "true".into());
    values.insert("STRUCTURED_RESULTS".into(), "true".into());
    let mut exported: Vec<String> = Vec::new();
    for e in declared.iter().chain(imperative) {
        match e.split_once('=') {
            Some((k, v)) => {
                values.insert(k.to_string(), v.to_string());
            }
            None if !exported.contains(e) => exported.push(e.clone()),
            None => {}
        }
    }
    values
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .chain(exported)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_kyamls() {
        let spec = ContainerSpec {
            image: "example.com/fn:v1".into(),
            network: false,
            mounts: vec![StorageMount::parse("type=bind,src=./data,dst=/data")],
            envs: vec!["FOO=bar".into(), "BAZ".into()],
        };
        let settings = Settings {
            network_name: None,
            mounts: &["type=bind,src=/etc,dst=/e".into()],
            env: &["A=b".into(), "C".into(), "FOO=cli".into()],
            as_current_user: false,
        };
        let args = run_args(&spec, Path::new("/k"), &settings);
        assert_eq!(
            args.join(" "),
            "run --rm -i -a STDIN -a STDOUT -a STDERR --network none --user nobody \
             --security-opt=no-new-privileges \
             --mount type=bind,source=/k/data,target=/data,readonly \
             --mount type=bind,source=/etc,target=/e,readonly \
             -e A=b -e FOO=cli -e LOG_TO_STDERR=true -e STRUCTURED_RESULTS=true -e BAZ -e C \
             example.com/fn:v1"
        );
    }
}
