//! kbuild's warnings about kustomization entries that change nothing (issue 37 item 5), with
//! their exact positions, `--strict` and `--quiet`, and `--crds` for the warning about a
//! patch replacing a list a CRD declares keyed (issue 35 §3). The output stays kustomize's:
//! where a kubectl is at hand, stdout is compared with it, byte for byte.

use crate::common;
use common::write;
use std::path::{Path, PathBuf};
use std::process::Command;

tests! {
    noop_entries_warn_at_their_positions,
    output_stays_kustomizes,
    strict_fails_and_writes_nothing,
    quiet_prints_no_warning,
    kustomize_errors_come_without_warnings,
    component_entry_used_in_one_evaluation_is_not_a_noop,
    crds_flag_feeds_the_list_replace_warning,
    render_prints_warnings_and_strict_fails_the_kustomization,
    remote_base_entries_do_not_warn,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs kbuild in `dir`; the directory's real path reads `$TMP` in stderr.
fn kbuild(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(args)
        .current_dir(dir)
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .output()
        .expect("run kbuild");
    let real = dir.canonicalize().expect("canonical");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr)
            .replace(&real.display().to_string(), "$TMP")
            .replace(&dir.display().to_string(), "$TMP"),
    }
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: registry.example.com/web:1.0
";

/// An overlay with one no-op entry of each kind, next to entries that do change something.
fn noop_tree() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let t = tmp.path();
    write(t, "base/deployment.yaml", DEPLOYMENT);
    write(t, "base/kustomization.yaml", "resources:\n- deployment.yaml\n");
    write(
        t,
        "overlay/kustomization.yaml",
        "resources:
- ../base
images:
- name: web
  newTag: \"2.0\"
- name: registry.example.com/web
  newTag: \"2.0\"
replicas:
- name: web
  count: 2
labels:
- pairs:
    app: web
- pairs:
    tier: frontend
commonAnnotations:
  team: payments
patches:
- target:
    kind: StatefulSet
  patch: |-
    - op: add
      path: /metadata/annotations/x
      value: y
- target:
    kind: Deployment
    name: web
  patch: |-
    - op: add
      path: /metadata/labels/y
      value: z
replacements:
- source:
    kind: Deployment
    name: web
    fieldPath: metadata.name
  targets:
  - select:
      kind: ConfigMap
    fieldPaths:
    - data.name
  - select:
      kind: Deployment
    fieldPaths:
    - metadata.annotations.name
    options:
      create: true
",
    );
    tmp
}

fn warnings(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Each no-op entry once, at the line and column of its `-` (or key), in file order.
fn noop_entries_warn_at_their_positions() {
    let tmp = noop_tree();
    let r = kbuild(tmp.path(), &["build", "overlay"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!(warnings(&r.stderr));
}

/// The warnings change nothing on stdout: kubectl's kustomize (both releases, where at hand)
/// prints the same bytes, and says nothing about these entries.
fn output_stays_kustomizes() {
    let tmp = noop_tree();
    let overlay = tmp.path().join("overlay");
    for version in ["v5.5.0", "v5.8.1"] {
        let Some(kubectl) = common::kubectl(version) else {
            common::skipped(&format!("kustomize {version}"), "no kubectl with it");
            continue;
        };
        let out = Command::new(kubectl)
            .arg("kustomize")
            .arg(&overlay)
            .output()
            .expect("run kubectl");
        assert!(out.status.success());
        let theirs = String::from_utf8_lossy(&out.stdout).into_owned();
        let flag = format!("--kustomize-version={version}");
        let ours = kbuild(tmp.path(), &["build", "overlay", &flag]);
        assert_eq!(ours.stdout, theirs, "{version}");
        assert!(ours.stderr.contains("warning:"), "{}", ours.stderr);
        assert!(!String::from_utf8_lossy(&out.stderr).contains("images"));
    }
}

/// `--strict`: exit 1, nothing on stdout and no output file, the warnings then the error.
fn strict_fails_and_writes_nothing() {
    let tmp = noop_tree();
    let r = kbuild(tmp.path(), &["build", "overlay", "--strict"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert_eq!(warnings(&r.stderr).lines().count(), 5, "{}", r.stderr);
    assert!(
        r.stderr
            .ends_with("Error: 5 warnings, and --strict makes warnings errors; nothing was written\n"),
        "{}",
        r.stderr
    );
    let r = kbuild(tmp.path(), &["overlay", "--strict", "-q", "-o", "out.yaml"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!tmp.path().join("out.yaml").exists());
    // --quiet does not hide why a --strict build failed.
    assert_eq!(warnings(&r.stderr).lines().count(), 5, "{}", r.stderr);
    // Without warnings, --strict changes nothing.
    let r = kbuild(tmp.path(), &["build", "base", "--strict"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, kbuild(tmp.path(), &["build", "base"]).stdout);
}

/// `--quiet` (`-q`): the same output, no warning, and kustomize's deprecation notices gone too.
fn quiet_prints_no_warning() {
    let tmp = noop_tree();
    let t = tmp.path();
    let loud = kbuild(t, &["build", "overlay"]);
    for flag in ["-q", "--quiet"] {
        let r = kbuild(t, &["build", "overlay", flag]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.stdout, loud.stdout);
        assert_eq!(r.stderr, "", "{flag}");
    }
    write(
        t,
        "old/kustomization.yaml",
        "resources:\n- ../base\ncommonLabels:\n  app: web\n",
    );
    let r = kbuild(t, &["build", "old"]);
    assert!(r.stderr.contains("# Warning: 'commonLabels' is deprecated"), "{}", r.stderr);
    assert!(r.stderr.contains("commonLabels: every resource has app=web already"), "{}", r.stderr);
    assert_eq!(kbuild(t, &["build", "old", "-q"]).stderr, "");
}

/// Where kustomize fails (a replicas entry naming no resource, a strategic-merge patch
/// without a target naming none), kbuild fails too, with no warning before the error.
fn kustomize_errors_come_without_warnings() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let t = tmp.path();
    write(t, "replicas/deployment.yaml", DEPLOYMENT);
    write(t, "patch/deployment.yaml", DEPLOYMENT);
    write(
        t,
        "replicas/kustomization.yaml",
        "resources:\n- deployment.yaml\nimages:\n- name: nope\n  newTag: \"1\"\nreplicas:\n- name: nope\n  count: 1\n",
    );
    write(
        t,
        "patch/kustomization.yaml",
        "resources:\n- deployment.yaml\nimages:\n- name: nope\n  newTag: \"1\"\npatches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: nope\n    spec:\n      replicas: 1\n",
    );
    let mut all = String::new();
    for dir in ["replicas", "patch"] {
        let r = kbuild(t, &["build", dir]);
        assert_eq!(r.code, 1, "{dir}: {}", r.stderr);
        assert_eq!(r.stdout, "");
        assert!(!r.stderr.contains("warning:"), "{dir}: {}", r.stderr);
        all.push_str(&format!("{dir}: {}", r.stderr));
    }
    insta::assert_snapshot!(all);
}

/// A component's entry that changes something where one kustomization includes it and
/// nothing where another does is not a no-op; one that changes nothing in both warns once.
fn component_entry_used_in_one_evaluation_is_not_a_noop() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let t = tmp.path();
    write(t, "a/deployment.yaml", DEPLOYMENT);
    write(
        t,
        "a/kustomization.yaml",
        "resources:\n- deployment.yaml\ncomponents:\n- ../images\n",
    );
    write(
        t,
        "b/deployment.yaml",
        DEPLOYMENT
            .replace("name: web", "name: api")
            .replace("registry.example.com/web", "registry.example.com/api"),
    );
    write(
        t,
        "b/kustomization.yaml",
        "resources:\n- deployment.yaml\ncomponents:\n- ../images\n",
    );
    write(
        t,
        "images/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nimages:\n- name: registry.example.com/web\n  newTag: \"3\"\n- name: registry.example.com/db\n  newTag: \"3\"\n",
    );
    write(t, "top/kustomization.yaml", "resources:\n- ../a\n- ../b\n");
    let r = kbuild(t, &["build", "top"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        warnings(&r.stderr),
        "warning: $TMP/images/kustomization.yaml:6:3: images[1]: no container image or image field is named 'registry.example.com/db' (tags and digests aside), so it changes nothing\n"
    );
}

/// The list-replace warning reads CRDs the build does not hold from `--crds` (a file or a
/// directory), and `--quiet` silences it.
fn crds_flag_feeds_the_list_replace_warning() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let t = tmp.path();
    let from = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/crd-merge/prometheusrule/in");
    for rel in [
        "base/rules.yaml",
        "base/deployment.yaml",
        "overlay/kustomization.yaml",
        "overlay/rules-patch.yaml",
        "overlay/deployment-patch.yaml",
    ] {
        write(t, rel, std::fs::read(from.join(rel)).expect("read"));
    }
    let crd = std::fs::read(from.join("base/crd-prometheusrules.yaml")).expect("read");
    write(t, "crds/prometheusrules.yaml", crd);
    write(t, "base/kustomization.yaml", "resources:\n- rules.yaml\n- deployment.yaml\n");
    let without = kbuild(t, &["build", "overlay"]);
    assert_eq!(without.code, 0, "{}", without.stderr);
    assert!(!without.stderr.contains("replaces the list"), "{}", without.stderr);
    for path in ["crds/prometheusrules.yaml", "crds"] {
        let r = kbuild(t, &["build", "overlay", "--crds", path]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.stdout, without.stdout);
        assert!(
            r.stderr.contains(
                "replaces the list spec.groups of monitoring.coreos.com/v1 PrometheusRule monitoring/app-rules whole"
            ),
            "{path}: {}",
            r.stderr
        );
        let quiet = kbuild(t, &["build", "overlay", "--crds", path, "-q"]);
        assert_eq!(quiet.stderr, "");
        let strict = kbuild(t, &["build", "overlay", "--crds", path, "--strict"]);
        assert_eq!(strict.code, 1);
        assert_eq!(strict.stdout, "");
    }
    let missing = kbuild(t, &["build", "overlay", "--crds", "nope.yaml"]);
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("nope.yaml"), "{}", missing.stderr);
}

/// `kbuild render` prints each kustomization's warnings; with `--strict` a kustomization with
/// warnings fails (exit 2, its render not written) and the others are rendered; `--quiet`
/// silences them.
fn render_prints_warnings_and_strict_fails_the_kustomization() {
    let tmp = noop_tree();
    let t = tmp.path();
    let r = kbuild(t, &["render", "base", "overlay", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(warnings(&r.stderr).lines().count(), 5, "{}", r.stderr);
    assert!(t.join("out/overlay.yaml").is_file());
    std::fs::remove_dir_all(t.join("out")).expect("rm");
    let r = kbuild(t, &["render", "base", "overlay", "--out", "out", "--strict", "-q"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(warnings(&r.stderr).lines().count(), 5, "{}", r.stderr);
    assert!(
        r.stderr.contains("5 warnings, and --strict makes warnings errors; its render was not written"),
        "{}",
        r.stderr
    );
    assert!(t.join("out/base.yaml").is_file());
    assert!(!t.join("out/overlay.yaml").exists());
    let r = kbuild(t, &["render", "base", "overlay", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Quiet and all well: nothing at all, not even the summary line.
    assert_eq!(r.stderr, "");
}

/// A remote base's no-op entries give no warning (the user cannot fix them, and `--strict`
/// must not fail on them); the local overlay's do. The base is a git repository served as
/// a `file://` URL by the real `git`.
fn remote_base_entries_do_not_warn() {
    let Ok(git) = which_git() else {
        common::skipped("remote_base_entries_do_not_warn", "no git on PATH");
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let t = tmp.path();
    let work = t.join("work");
    write(&work, "base/deployment.yaml", DEPLOYMENT);
    write(
        &work,
        "base/kustomization.yaml",
        "resources:\n- deployment.yaml\nimages:\n- name: nope\n  newTag: \"1\"\n",
    );
    let run = |args: &[&str], dir: &Path| {
        let out = Command::new(&git)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", t)
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    run(&["init", "-q", "-b", "main"], &work);
    run(&["add", "-A"], &work);
    run(&["commit", "-qm", "base"], &work);
    run(&["clone", "-q", "--bare", "work", "repo.git"], t);
    let url = format!("file://{}//base?ref=main", t.join("repo.git").display());
    write(
        t,
        "overlay/kustomization.yaml",
        format!("resources:\n- {url}\nimages:\n- name: gone\n  newTag: \"2\"\n"),
    );
    let cache = t.join("cache");
    let cache = cache.to_str().expect("utf-8");
    let r = kbuild(t, &["build", "overlay", "--remote-cache-dir", cache]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        warnings(&r.stderr),
        "warning: $TMP/overlay/kustomization.yaml:4:3: images[0]: no container image or image field is named 'gone' (tags and digests aside), so it changes nothing\n"
    );
}

fn which_git() -> Result<PathBuf, ()> {
    let out = Command::new("git").arg("--version").output().map_err(|_| ())?;
    if out.status.success() {
        Ok(PathBuf::from("git"))
    } else {
        Err(())
    }
}
