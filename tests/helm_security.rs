//! `helmCharts` from kustomizations kbuild's user did not write: what may reach helm, in
//! which environment, and for how long (see README, "Security and limits", and
//! src/helm/checks.rs, src/helm/command.rs).
//!
//! helm is `tests/helm-standin/helm` (Python 3 with PyYAML; not helm); in its strict mode
//! (one test here, and every kbuild run of tests/helm.rs) it fails when a value is outside
//! its flag's argument or a positional is before `--`. It logs each run (argv, `HELM_*` environment) and reads `-f`/`--values` as helm
//! does, split at commas. Every build here gets a TMPDIR of its own, which must be empty
//! afterwards (helm's scratch directory, the values file).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

tests! {
    chart_values_helm_could_read_as_options_are_refused,
    values_file_names_with_commas_are_refused,
    every_argument_is_a_flag_with_its_value_or_a_positional_after_the_end_of_options,
    helm_runs_in_kbuilds_own_directories,
    the_users_own_registry_config_is_passed_on,
    helm_printing_without_end_or_hanging_is_stopped_and_cleaned_up,
    a_signal_while_helm_runs_leaves_no_scratch_directory,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/helm-fixtures")
}

fn standin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/helm-standin/helm")
}

/// Whether the stand-in can run (Python 3 with PyYAML); says SKIPPED when not.
fn standin_runs() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import yaml"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        common::skipped(
            "this helm test",
            "the helm stand-in needs python3 with PyYAML",
        );
    }
    ok
}

/// One helm run the stand-in logged: its argv and its `HELM_*` environment.
type Run = (Vec<String>, Vec<(String, String)>);

/// A tree `k/` with the fixture chart `db` vendored in `k/charts/db`, a TMPDIR `tmp/` and
/// the stand-in's log.
struct Tree {
    dir: tempfile::TempDir,
    /// Whether the stand-in runs in its strict mode.
    strict: bool,
}

impl Tree {
    fn new(kustomization: &str) -> Tree {
        let dir = tempfile::tempdir().expect("tempdir");
        let t = Tree { dir, strict: false };
        std::fs::create_dir_all(t.path("tmp")).expect("mkdir");
        t.write("k/kustomization.yaml", kustomization);
        for f in ["Chart.yaml", "values.yaml", "templates/db.yaml"] {
            let text =
                std::fs::read_to_string(fixtures().join("repo/db/0.1.0").join(f)).expect("fixture");
            t.write(&format!("k/charts/db/{f}"), &text);
        }
        t
    }

    fn path(&self, rel: &str) -> PathBuf {
        std::fs::canonicalize(self.dir.path())
            .expect("canonical")
            .join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        common::write(&self.path(""), rel, text);
    }

    /// kbuild `build k --enable-helm` with `extra` flags, spawned, with its address space
    /// limited to 4 GB (`ulimit -v`: a build that reads helm's output unbounded fails
    /// instead of filling the machine's memory).
    fn spawn(&self, extra: &[&str]) -> std::process::Child {
        Command::new("sh")
            .args(["-c", "ulimit -v 4000000 && exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_kbuild"))
            .args(["build", "k", "--enable-helm", "--helm-command"])
            .arg(standin())
            .args(extra)
            .current_dir(self.path(""))
            .env("TMPDIR", self.path("tmp"))
            .env("HELM_STANDIN_LOG", self.path("helm.log"))
            .env("HELM_STANDIN_STRICT", if self.strict { "1" } else { "0" })
            .env("KBUILD_TEST_SECRET", "hunter2")
            .env_remove("HELM_REGISTRY_CONFIG")
            .env_remove("HELM_REPOSITORY_CONFIG")
            .env_remove("HELM_REPOSITORY_CACHE")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn kbuild")
    }

    /// Runs kbuild, killing it after `limit` (a test failure: it should have ended).
    fn kbuild_within(&self, extra: &[&str], limit: Duration) -> Output {
        let mut child = self.spawn(extra);
        match child.wait_timeout(limit).expect("wait") {
            Some(_) => child.wait_with_output().expect("output"),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("kbuild still ran after {limit:?}");
            }
        }
    }

    fn kbuild(&self, extra: &[&str]) -> Output {
        self.kbuild_within(extra, Duration::from_secs(120))
    }

    /// The stand-in's runs: (argv, env) each.
    fn runs(&self) -> Vec<Run> {
        std::fs::read_to_string(self.path("helm.log"))
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("log line");
                let argv = v["argv"]
                    .as_array()
                    .expect("argv")
                    .iter()
                    .map(|a| a.as_str().unwrap_or_default().to_string())
                    .collect();
                let env = v["env"]
                    .as_object()
                    .expect("env")
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect();
                (argv, env)
            })
            .collect()
    }

    /// Fails when the build left anything in its TMPDIR.
    fn assert_tmp_empty(&self) {
        let left: Vec<_> = std::fs::read_dir(self.path("tmp"))
            .expect("read tmp")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a clean failure saying each of `needles`, with nothing on stdout or in TMPDIR.
fn assert_fails(t: &Tree, out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "stdout on failure");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in:\n{err}");
    }
    t.assert_tmp_empty();
}

/// Values that helm would read as options, or that it would misread, are refused before
/// helm runs (`template` never runs); the kustomization file is named.
fn chart_values_helm_could_read_as_options_are_refused() {
    if !standin_runs() {
        return;
    }
    for (entry, needle) in [
        (
            "- name: db\n  releaseName: --post-renderer=/bin/sh\n",
            "helm chart 'db': releaseName \"--post-renderer=/bin/sh\" is refused",
        ),
        (
            "- name: db\n  releaseName: r\n  namespace: --kubeconfig=/x\n",
            "namespace \"--kubeconfig=/x\" is refused",
        ),
        (
            "- name: db\n  releaseName: r\n  kubeVersion: --devel\n",
            "kubeVersion \"--devel\" is refused",
        ),
        (
            "- name: db\n  releaseName: r\n  apiVersions: [-x]\n",
            "apiVersions \"-x\" is refused",
        ),
        (
            "- name: db\n  releaseName: Not_A_Name\n",
            "releaseName \"Not_A_Name\" is refused: helm accepts",
        ),
        (
            "- name: db\n  releaseName: r\n  nameTemplate: '{{ env \"KBUILD_TEST_SECRET\" }}'\n",
            "it reads kbuild's environment",
        ),
        (
            "- name: ../../db\n  releaseName: r\n",
            "name \"../../db\" is refused",
        ),
        (
            "- name: db\n  repo: -r\n  version: 0.1.0\n",
            "repo \"-r\" is refused",
        ),
    ] {
        let t = Tree::new(&format!("helmCharts:\n{entry}"));
        let out = t.kbuild(&[]);
        assert_fails(
            &t,
            &out,
            &[
                needle,
                &format!("{}", t.path("k/kustomization.yaml").display()),
            ],
        );
        assert!(
            t.runs().iter().all(|(argv, _)| argv[0] != "template"),
            "helm template ran for {entry}"
        );
    }
}

/// An additional values file whose name holds a comma would make helm read another file
/// (helm splits `--values` at commas): `a,/abs/secret.yaml` is the file `secret.yaml` in
/// the tree's directory `a,/abs/`, which the load restrictor accepts, and helm reads `a`
/// and `/abs/secret.yaml`, a file outside the tree.
fn values_file_names_with_commas_are_refused() {
    if !standin_runs() {
        return;
    }
    let t = Tree::new("");
    let secret = t.path("secret.yaml");
    t.write("secret.yaml", "user: leaked\n");
    let entry = format!("a,{}", secret.display());
    t.write(
        "k/kustomization.yaml",
        &format!(
            "helmCharts:\n- name: db\n  releaseName: r\n  additionalValuesFiles: [{entry:?}]\n"
        ),
    );
    t.write("k/a", "user: a\n");
    t.write(&format!("k/{entry}"), "user: inside\n");
    let out = t.kbuild(&[]);
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("leaked"),
        "helm read {}",
        secret.display()
    );
    assert_fails(
        &t,
        &out,
        &[
            "additionalValuesFiles",
            "is refused: helm splits --values at commas",
        ],
    );
    assert!(t.runs().iter().all(|(argv, _)| argv[0] != "template"));
}

/// Every argument kbuild passes is one helm cannot misread (the stand-in's strict mode
/// fails otherwise), for a chart using every field.
fn every_argument_is_a_flag_with_its_value_or_a_positional_after_the_end_of_options() {
    if !standin_runs() {
        return;
    }
    let mut t = Tree::new(
        "helmCharts:\n- name: db\n  releaseName: r.1\n  namespace: ns\n  nameTemplate: named\n  additionalValuesFiles: [extra.yaml]\n  apiVersions: [a/v1]\n  kubeVersion: v1.30.0\n  includeCRDs: true\n  skipTests: true\n  skipHooks: true\n  debug: true\n",
    );
    t.write("k/extra.yaml", "user: extra\n");
    t.strict = true;
    let out = t.kbuild(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let runs = t.runs();
    let template = runs
        .iter()
        .find(|(argv, _)| argv[0] == "template")
        .expect("template ran");
    let argv = &template.0;
    let dash = argv.iter().position(|a| a == "--").expect("--");
    assert_eq!(
        &argv[dash + 1..],
        [
            "r.1".to_string(),
            t.path("k/charts/db").display().to_string()
        ]
    );
    for a in &argv[1..dash] {
        assert!(a.starts_with("--"), "{a}");
    }
    t.assert_tmp_empty();
}

/// helm's homes, plugins and repository and registry files are kbuild's, in its scratch
/// directory, whatever `configHome` the kustomization names (kustomize hands it to helm,
/// so a tree could bring helm plugins and a repositories file of its own).
fn helm_runs_in_kbuilds_own_directories() {
    if !standin_runs() {
        return;
    }
    for globals in [
        "",
        "helmGlobals:\n  configHome: helm-home\n",
        "helmGlobals:\n  configHome: /tmp\n",
    ] {
        let t = Tree::new(&format!(
            "{globals}helmCharts:\n- name: db\n  releaseName: r\n"
        ));
        t.write("k/helm-home/.data/plugins/evil/plugin.yaml", "name: evil\n");
        t.write("k/helm-home/repositories.yaml", "repositories: []\n");
        let out = t.kbuild(&[]);
        assert!(out.status.success(), "{}", stderr(&out));
        if !globals.is_empty() {
            assert!(
                stderr(&out).contains("helmGlobals.configHome")
                    && stderr(&out).contains("is ignored"),
                "{}",
                stderr(&out)
            );
        }
        let tmp = t.path("tmp").display().to_string();
        let runs = t.runs();
        assert_eq!(runs.len(), 2, "{runs:?}");
        for (argv, env) in &runs {
            let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
            for want in [
                "HELM_CACHE_HOME",
                "HELM_CONFIG_HOME",
                "HELM_CONTENT_CACHE",
                "HELM_DATA_HOME",
                "HELM_NO_PLUGINS",
                "HELM_PLUGINS",
                "HELM_REGISTRY_CONFIG",
                "HELM_REPOSITORY_CACHE",
                "HELM_REPOSITORY_CONFIG",
            ] {
                assert!(
                    names.contains(&want),
                    "{want} not set for {argv:?}: {env:?}"
                );
            }
            for (k, v) in env {
                if k == "HELM_NO_PLUGINS" {
                    assert_eq!(v, "1");
                } else {
                    assert!(
                        v.starts_with(&format!("{tmp}/kbuild-helm-")),
                        "{k}={v} is not in kbuild's scratch directory ({globals:?})"
                    );
                }
            }
        }
        t.assert_tmp_empty();
    }
}

/// The variables by which the person running kbuild gives helm registry or repository
/// credentials pass through; the homes and the plugins never do.
fn the_users_own_registry_config_is_passed_on() {
    if !standin_runs() {
        return;
    }
    let t = Tree::new("helmCharts:\n- name: db\n  releaseName: r\n");
    let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(["build", "k", "--enable-helm", "--helm-command"])
        .arg(standin())
        .current_dir(t.path(""))
        .env("TMPDIR", t.path("tmp"))
        .env("HELM_STANDIN_LOG", t.path("helm.log"))
        .env("HELM_REGISTRY_CONFIG", "/etc/ops/registry.json")
        .env("HELM_PLUGINS", "/etc/ops/plugins")
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    for (_, env) in t.runs() {
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(
            get("HELM_REGISTRY_CONFIG").as_deref(),
            Some("/etc/ops/registry.json")
        );
        assert!(get("HELM_PLUGINS").is_some_and(|p| p.contains("/kbuild-helm-")));
    }
}

/// A chart (or helm) printing without end fails the build quickly, naming the chart, with
/// helm killed and no scratch directory left; so does one that hangs, at
/// `--plugin-timeout`.
fn helm_printing_without_end_or_hanging_is_stopped_and_cleaned_up() {
    if !standin_runs() {
        return;
    }
    let forever = Tree::new(
        "helmCharts:\n- name: db\n  releaseName: r\n  valuesInline:\n    standinForever: true\n",
    );
    let start = Instant::now();
    let out = forever.kbuild_within(&["--max-output-bytes", "1000000"], Duration::from_secs(60));
    assert_fails(
        &forever,
        &out,
        &[
            "helm chart 'db': '",
            "printed more than",
            "bytes, more than the output budget leaves room for; killed it and its process group",
        ],
    );
    eprintln!("endless output stopped after {:?}", start.elapsed());
    let hang = Tree::new(
        "helmCharts:\n- name: db\n  releaseName: r\n  valuesInline:\n    standinHang: true\n",
    );
    let out = hang.kbuild_within(&["--plugin-timeout", "2s"], Duration::from_secs(60));
    assert_fails(
        &hang,
        &out,
        &[
            "helm chart 'db': '",
            "still running after 2s (--plugin-timeout); killed it and its process group",
            "--plugin-timeout 15m",
        ],
    );
}

/// SIGTERM while helm runs: kbuild kills helm's process group and removes helm's scratch
/// directory (the values file) before it dies.
fn a_signal_while_helm_runs_leaves_no_scratch_directory() {
    if !standin_runs() {
        return;
    }
    let t = Tree::new(
        "helmCharts:\n- name: db\n  releaseName: r\n  valuesInline:\n    standinHang: true\n",
    );
    let mut child = t.spawn(&[]);
    let hang = t.path("helm.log.hang");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !hang.exists() {
        assert!(Instant::now() < deadline, "helm template never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_ne!(
        std::fs::read_dir(t.path("tmp")).expect("tmp").count(),
        0,
        "no scratch directory while helm runs"
    );
    // SAFETY: kill(2) on the child's pid.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = child
        .wait_timeout(Duration::from_secs(30))
        .expect("wait")
        .expect("kbuild ended");
    assert!(!status.success());
    t.assert_tmp_empty();
    let helm = std::fs::read_to_string(&hang).expect("pid");
    let alive = || {
        std::fs::read_to_string(format!("/proc/{}/stat", helm.trim()))
            .is_ok_and(|s| !s.contains(") Z "))
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    if alive() {
        // Not left sleeping for an hour after the test.
        if let Ok(pid) = helm.trim().parse::<libc::pid_t>()
            && pid > 0
        {
            // SAFETY: kill(2) on the stand-in's pid.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        panic!("helm (pid {}) still runs after kbuild died", helm.trim());
    }
}
