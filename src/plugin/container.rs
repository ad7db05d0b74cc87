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
//!
//! kbuild checks every value it puts on that command line (kbuild's rules, stricter than
//! kyaml's): docker reads a `--mount` value as comma-separated `key=value` fields (CSV, so
//! a quote or a line break changes it too), so a mount's type, source or destination
//! holding `,`, `=`, `"` or a control character is refused (`dst: "/data,source=/"` would
//! add a second source, `dst: "/data\n"` would drop `readonly`); an environment name must
//! be non-empty, must not start with `-` and holds no control character; an image must not
//! start with `-` (docker would read it as an option). A mount the function declares (the
//! kustomization's, unlike `--mount`'s) must be a bind mount whose source, symlinks
//! resolved, is inside the kustomization's directory (kustomize checks the text only, so a
//! symlink in the tree could mount any directory), or a tmpfs: a named volume holds state
//! from outside the kustomization. A bare `KEY` among the function's own `envs` would pass
//! kbuild's environment variable into the container, where the function could print it
//! into the output: only `-e KEY` on kbuild's command line may do that.

use super::spec::{ContainerSpec, StorageMount};
use crate::error::PluginProblem;
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

/// The error for `value`, refused as `what`.
fn unsafe_arg(what: &str, value: &str, why: &'static str) -> PluginProblem {
    PluginProblem::UnsafeContainerArg {
        what: what.to_string(),
        value: value.to_string(),
        why,
    }
}

/// Checks the mounts a function declares (see the module comment): kustomize's check of
/// the text of their sources, then kbuild's of the type and of where the source leads.
pub(super) fn check_declared_mounts(
    mounts: &[StorageMount],
    root: &Path,
) -> Result<(), PluginProblem> {
    for m in mounts {
        // kustomize's loader and its words.
        let why = if Path::new(&m.src).is_absolute() {
            Some("must be relative to")
        } else if super::clean(&m.src).starts_with("..") {
            Some("must be under")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(PluginProblem::BadConfig(format!(
                "mount path '{}' is not permitted; mount paths {why} the current kustomization directory",
                m.src
            )));
        }
        if m.mount_type == "volume" {
            return Err(unsafe_arg(
                "mount (type volume, from the function's mounts)",
                &m.src,
                "a named volume holds state from outside the kustomization; pass it with --mount if you trust it",
            ));
        }
        if m.mount_type == "bind"
            && let (Ok(real_root), Ok(real_src)) = (
                std::fs::canonicalize(root),
                std::fs::canonicalize(root.join(&m.src)),
            )
            && !real_src.starts_with(&real_root)
        {
            return Err(PluginProblem::BadConfig(format!(
                "mount path '{}' is not permitted; it resolves to '{}', outside the current kustomization directory '{}' (kbuild resolves symlinks; kustomize checks the text only)",
                m.src,
                real_src.display(),
                real_root.display()
            )));
        }
    }
    Ok(())
}

/// Checks one field of a mount (`what`: "type", "src", "dst").
fn check_mount_field(what: &str, value: &str) -> Result<(), PluginProblem> {
    if value.contains([',', '=', '"']) || value.chars().any(char::is_control) {
        return Err(unsafe_arg(
            &format!("mount {what}"),
            value,
            "docker reads --mount as comma-separated key=value fields, so ',', '=', '\"' and control characters could change or add fields",
        ));
    }
    Ok(())
}

/// Checks an environment entry (`KEY=VALUE` or `KEY`) from `source`.
fn check_env(entry: &str, source: &str) -> Result<(), PluginProblem> {
    let key = entry.split_once('=').map_or(entry, |(k, _)| k);
    let why = if key.is_empty() {
        Some("its name is empty")
    } else if key.starts_with('-') {
        Some("its name starts with '-'")
    } else if key.chars().any(char::is_control) {
        Some("its name holds a control character")
    } else if entry.contains('\0') {
        Some("it holds a NUL byte")
    } else {
        None
    };
    match why {
        Some(why) => Err(unsafe_arg(&format!("{source} entry"), entry, why)),
        None => Ok(()),
    }
}

/// The arguments after the runtime's name.
pub(super) fn run_args(
    spec: &ContainerSpec,
    root: &Path,
    settings: &Settings<'_>,
) -> Result<Vec<String>, PluginProblem> {
    if spec.image.starts_with('-') || spec.image.chars().any(char::is_control) {
        return Err(unsafe_arg(
            "image",
            &spec.image,
            "an image name must not start with '-' (docker would read it as an option) or hold control characters",
        ));
    }
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
        check_mount_field("type", &m.mount_type)?;
        check_mount_field("src", &m.src)?;
        check_mount_field("dst", &m.dst)?;
        args.push("--mount".into());
        args.push(m.docker_value());
    }
    for e in &spec.envs {
        check_env(e, "envs")?;
        // A bare name passes kbuild's own variable: only the command line may ask for it.
        if !e.contains('=') && !settings.env.iter().any(|f| f == e) {
            return Err(PluginProblem::EnvPassthrough { name: e.clone() });
        }
    }
    for e in settings.env {
        check_env(e, "-e/--env")?;
    }
    for e in env_flags(&spec.envs, settings.env) {
        args.push("-e".into());
        args.push(e);
    }
    args.push(spec.image.clone());
    Ok(args)
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
            env: &["A=b".into(), "C".into(), "FOO=cli".into(), "BAZ".into()],
            as_current_user: false,
        };
        let args = run_args(&spec, Path::new("/k"), &settings).unwrap();
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

    fn refused(spec: &ContainerSpec, mounts: &[String], env: &[String]) -> String {
        let settings = Settings {
            network_name: None,
            mounts,
            env,
            as_current_user: false,
        };
        match run_args(spec, Path::new("/k"), &settings) {
            Err(e @ PluginProblem::UnsafeContainerArg { .. }) => {
                crate::error::PluginError::new("F", e).to_string()
            }
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn values_docker_could_read_as_more_fields_or_options_are_refused() {
        let image = |image: &str| ContainerSpec {
            image: image.into(),
            ..ContainerSpec::default()
        };
        let mount = |m: StorageMount| ContainerSpec {
            mounts: vec![m],
            ..image("img")
        };
        let bind = |src: &str, dst: &str| StorageMount {
            mount_type: "bind".into(),
            src: src.into(),
            dst: dst.into(),
            rw: false,
        };
        for (spec, needle) in [
            (
                mount(bind("data", "/data,source=/")),
                "mount dst \"/data,source=/\"",
            ),
            (mount(bind("data", "/data\n")), "mount dst"),
            (mount(bind("data", "/d\"x")), "mount dst"),
            (mount(bind("a=b", "/d")), "mount src"),
            (mount(bind("a\0b", "/d")), "mount src"),
            (
                mount(StorageMount {
                    mount_type: "bind,readonly=false".into(),
                    ..bind("data", "/d")
                }),
                "mount type",
            ),
            (image("--privileged"), "image \"--privileged\""),
        ] {
            let e = refused(&spec, &[], &[]);
            assert!(e.contains(needle), "{e}");
        }
        let plain = image("img");
        for flag in ["type=bind,src=/a=b,dst=/d", "type=bind,src=/a,dst=/d\"x"] {
            refused(&plain, &[flag.to_string()], &[]);
        }
        for env in ["=x", "-x=1", "A\nB=1", "A=\0"] {
            refused(&plain, &[], &[env.to_string()]);
        }
        // A bare name among the function's envs passes kbuild's variable: refused unless
        // the command line names it too.
        let declared = ContainerSpec {
            envs: vec!["SECRET".into()],
            ..image("img")
        };
        assert!(matches!(
            run_args(&declared, Path::new("/k"), &Settings {
                network_name: None,
                mounts: &[],
                env: &["OTHER".into()],
                as_current_user: false,
            }),
            Err(PluginProblem::EnvPassthrough { name }) if name == "SECRET"
        ));
        let settings = Settings {
            network_name: None,
            mounts: &[],
            env: &["SECRET".into()],
            as_current_user: false,
        };
        assert!(run_args(&declared, Path::new("/k"), &settings).is_ok());
    }

    #[test]
    fn declared_mounts_stay_inside_the_kustomization() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("k");
        std::fs::create_dir_all(root.join("data")).unwrap();
        symlink(tmp.path(), root.join("up")).unwrap();
        let m = |t: &str, src: &str| StorageMount {
            mount_type: t.into(),
            src: src.into(),
            dst: "/d".into(),
            rw: false,
        };
        assert!(check_declared_mounts(&[m("bind", "data"), m("tmpfs", "")], &root).is_ok());
        for bad in [
            m("bind", "/etc"),
            m("bind", "../x"),
            m("bind", "up"),
            m("volume", "secrets"),
        ] {
            assert!(
                check_declared_mounts(std::slice::from_ref(&bad), &root).is_err(),
                "{bad:?}"
            );
        }
    }
}
