//! Killing `kbuild -o` mid-write must never leave a truncated target: each target file holds
//! either its previous bytes or the complete new output. `-o FILE` and `-o DIR` both write
//! through a temporary file in the target directory and rename it into place.
//!
//! The binary is killed with SIGKILL at points spread over a whole run, and once as soon as
//! its temporary file appears (that is, while it is writing). SIGTERM and SIGINT at the same
//! points must moreover leave no temporary file behind, and a `-o DIR` set entirely old or
//! entirely new.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

tests! {
    killed_file_output_keeps_previous_or_complete_contents,
    killed_directory_output_keeps_previous_or_complete_files,
    terminated_output_leaves_no_temporary_files,
    terminated_plugin_run_leaves_no_temporary_config,
}

const OLD: &[u8] = b"previous contents\n";

/// A tree of `n` ConfigMaps with some data each.
fn big_tree(dir: &Path, n: usize) {
    let mut y = String::with_capacity(n * 200);
    for i in 0..n {
        y.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  a: \"{}\"\n  b: some longer value number {i}\n",
            "x".repeat(64)
        ));
    }
    std::fs::write(dir.join("r.yaml"), y).expect("write resources");
    std::fs::write(
        dir.join("kustomization.yaml"),
        "namespace: ns\nresources: [r.yaml]\n",
    )
    .expect("write kustomization");
}

fn spawn(tree: &Path, out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .arg(tree)
        .arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn kbuild")
}

/// Runs to completion and returns how long it took.
fn complete(tree: &Path, out: &Path) -> Duration {
    let start = Instant::now();
    let status = spawn(tree, out).wait().expect("wait");
    assert!(status.success(), "reference build failed");
    start.elapsed()
}

/// kbuild's temporary files start with this (`kbuild::output::temp::PREFIX`).
const TEMP_PREFIX: &str = ".kbuild-tmp.";

/// Files in `dir` other than leftover temporary files (a SIGKILLed process cannot remove its
/// temporary file; it never has a target's name).
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with(TEMP_PREFIX))
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).expect("read");
            (n, bytes)
        })
        .collect()
}

fn has_temp_file(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .any(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        })
        .unwrap_or(false)
}

/// Kills the child after `delay`, or as soon as a temporary file shows up in `watch`.
fn kill_after(child: Child, delay: Option<Duration>, watch: &Path) -> bool {
    signal_after(child, delay, watch, None)
}

/// Sends `signal` (`None`: SIGKILL) to the child after `delay`, or as soon as a temporary
/// file shows up in `watch`, and waits for it; true if it was still running then.
fn signal_after(
    mut child: Child,
    delay: Option<Duration>,
    watch: &Path,
    signal: Option<&str>,
) -> bool {
    let start = Instant::now();
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            return false;
        }
        let due = match delay {
            Some(d) => start.elapsed() >= d,
            None => has_temp_file(watch),
        };
        if due || start.elapsed() > Duration::from_secs(120) {
            match signal {
                None => child.kill().expect("SIGKILL"),
                Some(name) => {
                    let sent = Command::new("kill")
                        .arg(format!("-{name}"))
                        .arg(child.id().to_string())
                        .status()
                        .expect("run kill");
                    assert!(sent.success(), "kill -{name} failed");
                }
            }
            let status = child.wait().expect("wait");
            if let Some(name) = signal {
                use std::os::unix::process::ExitStatusExt;
                // Either it died of the signal (after removing its temporary files), or it
                // had finished just before the signal came.
                let number = if name == "TERM" { 15 } else { 2 };
                assert!(
                    status.signal() == Some(number) || status.success(),
                    "SIG{name}: ended with {status:?}"
                );
            }
            return true;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Kill points: spread over one run, then one "while the temporary file exists".
fn kill_points(run: Duration) -> Vec<Option<Duration>> {
    let mut points: Vec<Option<Duration>> = (1..=8).map(|k| Some(run * k / 9)).collect();
    points.push(None);
    points
}

fn killed_file_output_keeps_previous_or_complete_contents() {
    let tree = tempfile::tempdir().expect("tempdir");
    big_tree(tree.path(), 40_000);
    let work = tempfile::tempdir().expect("tempdir");
    let reference = work.path().join("reference.yaml");
    let run = complete(tree.path(), &reference);
    let new = std::fs::read(&reference).expect("read reference");
    assert!(
        new.len() > 4 << 20,
        "the output should be big enough to take a while to write"
    );

    let out_dir = work.path().join("out");
    std::fs::create_dir(&out_dir).expect("mkdir");
    let target = out_dir.join("existing.yaml");
    let mut killed = 0;
    for point in kill_points(run) {
        std::fs::write(&target, OLD).expect("write old");
        if kill_after(spawn(tree.path(), &target), point, &out_dir) {
            killed += 1;
        }
        let now = std::fs::read(&target).expect("target still exists");
        assert!(
            now == OLD || now == new,
            "killed at {point:?}: target holds {} bytes, neither the old nor the complete new output",
            now.len()
        );
    }
    assert!(killed > 0, "no run was killed before it finished");
}

fn killed_directory_output_keeps_previous_or_complete_files() {
    let tree = tempfile::tempdir().expect("tempdir");
    big_tree(tree.path(), 400);
    let work = tempfile::tempdir().expect("tempdir");
    let reference = work.path().join("reference");
    std::fs::create_dir(&reference).expect("mkdir");
    let run = complete(tree.path(), &reference);
    let new = contents(&reference);
    assert_eq!(new.len(), 400);

    let out = work.path().join("out");
    let mut killed = 0;
    for point in kill_points(run) {
        // The previous build's files, with other contents.
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir(&out).expect("mkdir");
        for name in new.keys() {
            std::fs::write(out.join(name), OLD).expect("write old");
        }
        if kill_after(spawn(tree.path(), &out), point, &out) {
            killed += 1;
        }
        let now = contents(&out);
        assert_eq!(
            now.len(),
            new.len(),
            "killed at {point:?}: files appeared or vanished"
        );
        for (name, bytes) in &now {
            assert!(
                bytes == OLD || Some(bytes) == new.get(name),
                "killed at {point:?}: {name} holds {} bytes, neither the old nor the new file",
                bytes.len()
            );
        }
    }
    assert!(killed > 0, "no run was killed before it finished");
}

/// SIGTERM and SIGINT while `-o FILE` and `-o DIR` write: no temporary file is left, a file
/// holds its old or its complete new content, and the directory's set is all old or all new.
fn terminated_output_leaves_no_temporary_files() {
    let tree = tempfile::tempdir().expect("tempdir");
    big_tree(tree.path(), 40_000);
    let work = tempfile::tempdir().expect("tempdir");
    let reference = work.path().join("reference.yaml");
    let run = complete(tree.path(), &reference);
    let new = std::fs::read(&reference).expect("read reference");
    let out_dir = work.path().join("out");
    std::fs::create_dir(&out_dir).expect("mkdir");
    let target = out_dir.join("existing.yaml");
    let mut signalled = 0;
    // Signalled while the temporary file exists (None), and at two points of the build.
    let points = [None, Some(run / 3), Some(run * 2 / 3)];
    for signal in ["TERM", "INT"] {
        for point in points {
            std::fs::write(&target, OLD).expect("write old");
            if signal_after(spawn(tree.path(), &target), point, &out_dir, Some(signal)) {
                signalled += 1;
            }
            assert!(
                !has_temp_file(&out_dir),
                "SIG{signal} at {point:?} left a temporary file"
            );
            let now = std::fs::read(&target).expect("target still exists");
            assert!(
                now == OLD || now == new,
                "SIG{signal} at {point:?}: torn target"
            );
        }
    }
    assert!(signalled > 0, "no run was signalled before it finished");

    let small = tempfile::tempdir().expect("tempdir");
    big_tree(small.path(), 400);
    let reference = work.path().join("reference-dir");
    std::fs::create_dir(&reference).expect("mkdir");
    let run = complete(small.path(), &reference);
    let new = contents(&reference);
    let out = work.path().join("dir-out");
    for point in [None, Some(run / 2), Some(run * 9 / 10)] {
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir(&out).expect("mkdir");
        for name in new.keys() {
            std::fs::write(out.join(name), OLD).expect("write old");
        }
        signal_after(spawn(small.path(), &out), point, &out, Some("TERM"));
        assert!(
            !has_temp_file(&out),
            "SIGTERM at {point:?} left a temporary file"
        );
        let now = contents(&out);
        let all_old = now.values().all(|b| b == OLD);
        assert!(
            all_old || now == new,
            "SIGTERM at {point:?}: the set is neither all old nor all new"
        );
    }
}

/// SIGTERM or SIGINT while an exec plugin runs removes its temporary config file (in
/// TMPDIR), as it removes kbuild's output temporaries: the signal handler knows every
/// temporary file and directory kbuild makes (plugin configs, helm scratch directories,
/// remote clones), not only its output files.
fn terminated_plugin_run_leaves_no_temporary_config() {
    for signal in ["TERM", "INT"] {
        let t = tempfile::tempdir().expect("tempdir");
        let tmpdir = t.path().join("tmp");
        let plugins = t.path().join("plugins");
        let kdir = t.path().join("k");
        let plugin_dir = plugins.join("example.com/v1/slow");
        for d in [&tmpdir, &plugin_dir, &kdir] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        let program = plugin_dir.join("Slow");
        // A legacy exec plugin that says it started, then waits.
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\ntouch '{}/started'\nsleep 5\n",
                t.path().display()
            ),
        )
        .expect("write plugin");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::write(
            kdir.join("kustomization.yaml"),
            "generators:\n- |-\n  apiVersion: example.com/v1\n  kind: Slow\n  metadata:\n    name: s\n",
        )
        .expect("write kustomization");
        let child = Command::new(env!("CARGO_BIN_EXE_kbuild"))
            .args(["build", "--enable-alpha-plugins"])
            .arg(&kdir)
            .env("TMPDIR", &tmpdir)
            .env("KUSTOMIZE_PLUGIN_HOME", &plugins)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn kbuild");
        let started = t.path().join("started");
        let deadline = Instant::now() + Duration::from_secs(30);
        while !started.exists() {
            assert!(Instant::now() < deadline, "the plugin never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        let config_files = || {
            std::fs::read_dir(&tmpdir)
                .expect("read TMPDIR")
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("kust-plugin-config-"))
                .count()
        };
        assert_eq!(config_files(), 1, "the plugin's config file is in TMPDIR");
        let mut child = child;
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .expect("kill");
        assert!(sent.success());
        let status = child.wait().expect("wait");
        assert!(!status.success());
        assert_eq!(config_files(), 0, "SIG{signal} left the config file");
    }
}
