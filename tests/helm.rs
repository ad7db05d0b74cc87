//! Helm chart inflation, compared with kustomize through a stand-in `helm`.
//!
//! There is no helm on the machines these tests run on: `tests/helm-standin/helm` (Python 3
//! with PyYAML) implements what kustomize calls — `version`, `pull` from a directory
//! "repository" and `template` over a tiny chart format — and logs every run (see its
//! docstring). The charts are in `tests/helm-fixtures/repo` (and `oci/` for `oci://`).
//!
//! Cases (`tests/helm-fixtures/cases/<case>/`): `in/` is the tree (copied to a temporary
//! directory for every run, `$HELM_REPO` and `$TREE` in its files replaced by the
//! repository and the copy), `vendor` lists charts to copy into it (`REPO_PATH DEST` a
//! line), `dir` the directory to build (default `.`), `args` extra flags (one a line),
//! `versions` the kustomize versions the case is for (default both). Then, per version V:
//! `expected.V.yaml` (the output of `kubectl kustomize`) and `expected.V.log` (the helm
//! runs, normalised — see [`normalise_log`]), or, for both, `expected.err`: lines kbuild's
//! error must contain (kubectl must fail too).
//!
//! kbuild is always checked against the recorded files. When the kubectl of version V is
//! there (v5.5.0: `kubectl` on PATH; v5.8.1: `$KUBECTL_V581`, `../kubectl-1.37/bin/kubectl`
//! or `kubectl`), `kubectl kustomize` runs too and must print the same bytes with the same
//! helm runs; without it the comparison prints SKIPPED. `KBUILD_BLESS=1` rewrites the
//! expected files from kubectl. Where kbuild runs helm differently from kustomize on
//! purpose (a `configHome` it does not hand to helm), `expected.kbuild.V.log` holds
//! kbuild's runs.
//!
//! kbuild's helm runs use the stand-in's strict mode (`HELM_STANDIN_STRICT=1`): every value
//! must be inside its flag's argument (`--flag=value`) and every positional after `--`, or
//! the stand-in fails, so no value from a kustomization can have been read as an option.
//! Runs are compared as helm reads them (see [`canonical_argv`]).

use crate::common;
use common::kubectl;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

tests! {
    a_pulled_chart_is_cached_outside_the_tree_and_offline_builds_use_it,
    a_failed_pull_leaves_nothing_in_the_cache,
    identical_inflations_run_helm_once,
    without_enable_helm_a_chart_is_kustomizes_error,
    helm_versions_kustomize_accepts,
    chart_output_counts_against_the_output_budget;
    common::cases(module_path!(), case_names(), case_matches_kustomize),
}

const VERSIONS: [&str; 2] = ["v5.5.0", "v5.8.1"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/helm-fixtures")
}

fn standin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/helm-standin/helm")
}

/// Whether the stand-in can run (Python 3 with PyYAML).
fn standin_runs() -> bool {
    Command::new("python3")
        .args(["-c", "import yaml"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

fn lines(p: &Path) -> Vec<String> {
    read(p)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Copies `from` into `to`, replacing `$HELM_REPO` and `$TREE` in every file.
fn copy_tree(from: &Path, to: &Path, tree: &Path) {
    let repo = fixtures().join("repo");
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let dest = to.join(entry.path().strip_prefix(from).expect("prefix"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
            continue;
        }
        let bytes = std::fs::read(entry.path()).expect("read");
        let bytes = match String::from_utf8(bytes) {
            Ok(text) => text
                .replace("$HELM_REPO", &repo.display().to_string())
                .replace("$TREE", &tree.display().to_string())
                .into_bytes(),
            Err(e) => e.into_bytes(),
        };
        std::fs::write(&dest, bytes).expect("write");
    }
}

/// A fresh copy of the case's tree, with its vendored charts.
struct Tree {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    log: PathBuf,
}

fn tree(case: &Path) -> Tree {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = std::fs::canonicalize(tmp.path()).expect("canonical");
    let root = base.join("tree");
    copy_tree(&case.join("in"), &root, &root);
    for line in lines(&case.join("vendor")) {
        let (from, to) = line.split_once(' ').expect("vendor: REPO_PATH DEST");
        copy_tree(&fixtures().join("repo").join(from), &root.join(to), &root);
    }
    Tree {
        log: base.join("helm.log"),
        root,
        _tmp: tmp,
    }
}

fn run(program: &Path, args: &[String], t: &Tree) -> Output {
    let strict = if program == Path::new(env!("CARGO_BIN_EXE_kbuild")) {
        "1"
    } else {
        "0"
    };
    Command::new(program)
        .args(args)
        .current_dir(&t.root)
        .env("HELM_STANDIN_LOG", &t.log)
        .env("HELM_STANDIN_OCI_ROOT", fixtures().join("oci"))
        .env("HELM_STANDIN_STRICT", strict)
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .output()
        .expect("run")
}

/// The helm flags kustomize passes that take a value.
const VALUE_FLAGS: [&str; 9] = [
    "--namespace",
    "--name-template",
    "-f",
    "--api-versions",
    "--kube-version",
    "--untardir",
    "--repo",
    "--version",
    "--values",
];

/// A helm command line as helm's flag parser (pflag) reads it: the subcommand, the
/// positionals, then each flag with its value as `NAME VALUE` in their order (`--values`
/// written `-f`). kustomize's `template r chart -f v` and kbuild's
/// `template --values=v -- r chart` read the same.
fn canonical_argv(argv: &[String]) -> Vec<String> {
    let Some((cmd, rest)) = argv.split_first() else {
        return Vec::new();
    };
    let (mut positional, mut flags) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < rest.len() {
        let a = &rest[i];
        if a == "--" {
            positional.extend(rest[i + 1..].iter().cloned());
            break;
        }
        let (name, value) = match a.split_once('=') {
            Some((n, v)) if VALUE_FLAGS.contains(&n) => (n.to_string(), Some(v.to_string())),
            _ if VALUE_FLAGS.contains(&a.as_str()) => {
                i += 1;
                (a.clone(), rest.get(i).cloned())
            }
            _ if a.starts_with('-') => (a.clone(), None),
            _ => {
                positional.push(a.clone());
                i += 1;
                continue;
            }
        };
        flags.push(if name == "--values" {
            "-f".into()
        } else {
            name
        });
        flags.extend(value);
        i += 1;
    }
    std::iter::once(cmd.clone())
        .chain(positional)
        .chain(flags)
        .collect()
}

/// The variables kustomize sets for helm (the log's other `HELM_*` are kbuild's own, see
/// `helm_runs_in_kbuilds_own_directories`).
const KUSTOMIZE_HELM_ENV: [&str; 3] = ["HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"];

/// The helm runs of a build, comparable between kbuild and kustomize: paths of the tree,
/// the repository and temporary directories replaced by names, the directories charts are
/// pulled into (kustomize's chart home, kbuild's cache) by `<pulled>`, and each distinct
/// run once, sorted (kbuild asks `helm version` once per build and inflates charts in
/// parallel; kustomize asks per chart, in order).
fn normalise_log(text: &str, t: &Tree, cache: Option<&Path>) -> String {
    let tmp = std::fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| "/tmp".into());
    let tmp_re = regex::Regex::new(&format!(
        "{}/(kustomize-helm-[0-9]+|kbuild-helm-[A-Za-z0-9]+)",
        regex::escape(&tmp.display().to_string())
    ))
    .expect("regex");
    let entries: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("log line"))
        .collect();
    let argv_of = |e: &serde_json::Value| -> Vec<String> {
        let argv: Vec<String> = e["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .map(|a| a.as_str().unwrap_or_default().to_string())
            .collect();
        canonical_argv(&argv)
    };
    let mut pulled: Vec<String> = entries
        .iter()
        .filter_map(|e| {
            let argv = argv_of(e);
            let i = argv.iter().position(|a| a == "--untardir")?;
            Some(argv.get(i + 1)?.clone())
        })
        .collect();
    if let Some(cache) = cache {
        let cache = cache.display().to_string();
        for e in std::fs::read_dir(&cache).into_iter().flatten().flatten() {
            pulled.push(e.path().display().to_string());
        }
    }
    pulled.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let norm = |s: &str| -> String {
        let mut s = s.to_string();
        for p in &pulled {
            s = s.replace(p.as_str(), "<pulled>");
        }
        let s = s
            .replace(&t.root.display().to_string(), "$TREE")
            .replace(&fixtures().display().to_string(), "$FIXTURES");
        tmp_re.replace_all(&s, "$$TMP").into_owned()
    };
    let mut out = BTreeSet::new();
    for e in &entries {
        let argv: Vec<String> = argv_of(e).iter().map(|a| norm(a)).collect();
        let env: Vec<String> = e["env"]
            .as_object()
            .expect("env")
            .iter()
            .filter(|(k, _)| KUSTOMIZE_HELM_ENV.contains(&k.as_str()))
            .map(|(k, v)| format!("{k}={}", norm(v.as_str().unwrap_or_default())))
            .collect();
        let values: Vec<String> = e["values"]
            .as_object()
            .expect("values")
            .iter()
            .map(|(k, v)| format!("{} = {v}", norm(k)))
            .collect();
        out.insert(format!(
            "{}\n  env: {}\n  values: {}",
            argv.join(" "),
            env.join(" "),
            values.join("; ")
        ));
    }
    out.into_iter().collect::<Vec<_>>().join("\n") + "\n"
}

struct Run {
    out: Output,
    log: String,
}

fn build_kbuild(case: &Path, version: &str) -> Run {
    let t = tree(case);
    let cache = t.root.parent().expect("parent").join("cache");
    let mut args = vec![
        "build".to_string(),
        read(&case.join("dir")).map_or(".".into(), |d| d.trim().to_string()),
        "--enable-helm".into(),
        "--helm-command".into(),
        standin().display().to_string(),
        "--kustomize-version".into(),
        version.into(),
        "--helm-cache-dir".into(),
        cache.display().to_string(),
    ];
    args.extend(lines(&case.join("args")));
    let out = run(Path::new(env!("CARGO_BIN_EXE_kbuild")), &args, &t);
    let log = normalise_log(&read(&t.log).unwrap_or_default(), &t, Some(&cache));
    Run { out, log }
}

fn build_kubectl(kubectl: &Path, case: &Path) -> Run {
    let t = tree(case);
    let mut args = vec![
        "kustomize".to_string(),
        "--enable-helm".into(),
        "--helm-command".into(),
        standin().display().to_string(),
    ];
    args.extend(lines(&case.join("args")));
    args.push(read(&case.join("dir")).map_or(".".into(), |d| d.trim().to_string()));
    let out = run(kubectl, &args, &t);
    let log = normalise_log(&read(&t.log).unwrap_or_default(), &t, None);
    Run { out, log }
}

fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures().join("cases"))
        .expect("cases")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("in").is_dir())
        .collect();
    out.sort();
    out
}

/// Checks one case for one version; failures are pushed to `failures`.
fn check(case: &Path, version: &str, failures: &mut Vec<String>, skipped: &mut Vec<String>) {
    let name = format!(
        "{} ({version})",
        case.file_name().unwrap_or_default().to_string_lossy()
    );
    let kb = build_kbuild(case, version);
    let stdout = String::from_utf8_lossy(&kb.out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&kb.out.stderr).into_owned();
    let expected_err = case.join("expected.err");
    let kube = kubectl(version);
    let regen = common::bless::blessing();
    if expected_err.exists() {
        if kb.out.status.success() || !stdout.is_empty() {
            failures.push(format!("{name}: expected an error, got success:\n{stdout}"));
        }
        for want in lines(&expected_err) {
            if !stderr.contains(&want) {
                failures.push(format!("{name}: error lacks {want:?}:\n{stderr}"));
            }
        }
        match &kube {
            Some(k) => {
                let kc = build_kubectl(k, case);
                if kc.out.status.success() {
                    failures.push(format!("{name}: kubectl succeeded where kbuild failed"));
                }
            }
            None => skipped.push(name),
        }
        return;
    }
    let yaml = case.join(format!("expected.{version}.yaml"));
    let log = case.join(format!("expected.{version}.log"));
    // kbuild's helm runs, where they differ from kustomize's on purpose.
    let own_log = case.join(format!("expected.kbuild.{version}.log"));
    if let Some(k) = &kube {
        let kc = build_kubectl(k, case);
        let kc_stdout = String::from_utf8_lossy(&kc.out.stdout).into_owned();
        if !kc.out.status.success() {
            failures.push(format!(
                "{name}: kubectl failed: {}",
                String::from_utf8_lossy(&kc.out.stderr)
            ));
            return;
        }
        if regen {
            std::fs::write(&yaml, &kc_stdout).expect("write");
            std::fs::write(&log, &kc.log).expect("write");
        }
        if kc_stdout != stdout {
            failures.push(format!(
                "{name}: kbuild and kubectl differ\n--- kubectl\n{kc_stdout}\n--- kbuild\n{stdout}\n{stderr}"
            ));
        }
        if kc.log != kb.log && !own_log.exists() {
            failures.push(format!(
                "{name}: helm runs differ\n--- kubectl\n{}\n--- kbuild\n{}",
                kc.log, kb.log
            ));
        }
        if regen {
            // (kubectl's runs: kbuild's own, when they differ on purpose, are written by hand.)
        } else if own_log.exists() && read(&log).is_some_and(|want| want != kc.log) {
            failures.push(format!(
                "{name}: kubectl's helm runs differ from {}",
                log.display()
            ));
        }
    } else {
        skipped.push(name.clone());
    }
    if !kb.out.status.success() {
        failures.push(format!("{name}: kbuild failed: {stderr}"));
        return;
    }
    match read(&yaml) {
        Some(want) if want == stdout => {}
        Some(want) => failures.push(stale(format!(
            "{name}: output differs from {}\n--- expected\n{want}\n--- kbuild\n{stdout}",
            yaml.display()
        ))),
        None => failures.push(format!("{name}: no {}", yaml.display())),
    }
    let kbuild_log = if own_log.exists() { &own_log } else { &log };
    match read(kbuild_log) {
        Some(want) if want == kb.log => {}
        Some(want) => failures.push(stale(format!(
            "{name}: helm runs differ from {}\n--- expected\n{want}\n--- kbuild\n{}",
            kbuild_log.display(),
            kb.log
        ))),
        None => failures.push(format!("{name}: no {}", kbuild_log.display())),
    }
}

/// A failure caused by a recorded file that no longer matches (blessable).
fn stale(failure: String) -> String {
    common::bless::differs();
    failure
}

/// `(case name, directory)` for every case, one test each (`helm::<case>`).
fn case_names() -> Vec<(String, PathBuf)> {
    let all = cases();
    assert!(!all.is_empty(), "no helm cases");
    all.into_iter()
        .map(|c| (c.file_name().unwrap_or_default().to_string_lossy().into_owned(), c))
        .collect()
}

/// One case under each kustomize version it names (`versions`, default both).
fn case_matches_kustomize(case: PathBuf) -> Result<(), String> {
    if !standin_runs() {
        common::skipped(
            "this helm test",
            "the helm stand-in needs python3 with PyYAML",
        );
        return Ok(());
    }
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let versions = lines(&case.join("versions"));
    for version in VERSIONS {
        if versions.is_empty() || versions.iter().any(|v| v == version) {
            check(&case, version, &mut failures, &mut skipped);
        }
    }
    if !skipped.is_empty() {
        common::skipped(
            &format!("the kubectl comparison for {}", skipped.join(", ")),
            "no kubectl of that kustomize version",
        );
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n"))
    }
}

/// A tree holding `kustomization` (with `$HELM_REPO` replaced) and the charts `vendor`
/// lists, for the tests below.
fn scratch_tree(kustomization: &str, vendor: &[(&str, &str)]) -> Tree {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = std::fs::canonicalize(tmp.path()).expect("canonical");
    let root = base.join("tree");
    std::fs::create_dir_all(&root).expect("mkdir");
    let repo = fixtures().join("repo").display().to_string();
    std::fs::write(
        root.join("kustomization.yaml"),
        kustomization.replace("$HELM_REPO", &repo),
    )
    .expect("write");
    for (from, to) in vendor {
        copy_tree(&fixtures().join("repo").join(from), &root.join(to), &root);
    }
    Tree {
        log: base.join("helm.log"),
        root,
        _tmp: tmp,
    }
}

fn kbuild_in(t: &Tree, extra: &[&str]) -> Output {
    let mut args: Vec<String> = vec![
        "build".into(),
        ".".into(),
        "--enable-helm".into(),
        "--helm-command".into(),
        standin().display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    run(Path::new(env!("CARGO_BIN_EXE_kbuild")), &args, t)
}

/// The helm subcommands the stand-in ran, in order.
fn helm_runs(t: &Tree) -> Vec<String> {
    read(&t.log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("log line");
            v["argv"][0].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

const PULLED: &str = "helmCharts:
- name: web
  repo: file://$HELM_REPO
  version: 1.0.0
  releaseName: cached
";

fn a_pulled_chart_is_cached_outside_the_tree_and_offline_builds_use_it() {
    if !standin_runs() {
        common::skipped(
            "this helm test",
            "the helm stand-in needs python3 with PyYAML",
        );
        return;
    }
    let t = scratch_tree(PULLED, &[]);
    let cache = t.root.parent().expect("parent").join("cache");
    let cache_arg = cache.display().to_string();
    let offline = ["--helm-cache-dir", &cache_arg, "--offline"];
    // Nothing cached yet: --offline refuses to pull, and leaves nothing behind.
    let out = kbuild_in(&t, &offline);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty(), "{stderr}");
    assert!(stderr.contains("--offline forbids pulling it"), "{stderr}");
    assert!(!cache.exists() || std::fs::read_dir(&cache).expect("read").next().is_none());
    // Pulled once into the cache, not into the tree.
    std::fs::remove_file(&t.log).expect("rm log");
    let first = kbuild_in(&t, &["--helm-cache-dir", &cache_arg]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(
        !t.root.join("charts").exists(),
        "the source tree was written to"
    );
    let entries: Vec<_> = std::fs::read_dir(&cache)
        .expect("cache")
        .flatten()
        .collect();
    assert_eq!(entries.len(), 1, "one cache entry, no temporary left");
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&cache)
            .expect("cache")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "the chart cache is private");
    }
    assert!(entries[0].path().join("web/Chart.yaml").is_file());
    assert_eq!(helm_runs(&t), ["version", "pull", "template"]);
    // Offline now works from the cache, with the same output and no pull.
    std::fs::remove_file(&t.log).expect("rm log");
    let again = kbuild_in(&t, &offline);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(again.stdout, first.stdout);
    assert_eq!(helm_runs(&t), ["version", "template"]);
    // A version bump is a new cache entry, never the stale chart.
    let bumped = scratch_tree(&PULLED.replace("1.0.0", "1.1.0"), &[]);
    let out = kbuild_in(&bumped, &["--helm-cache-dir", &cache_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("replicas: 2"));
    assert_eq!(std::fs::read_dir(&cache).expect("cache").count(), 2);
}

fn a_failed_pull_leaves_nothing_in_the_cache() {
    if !standin_runs() {
        common::skipped(
            "this helm test",
            "the helm stand-in needs python3 with PyYAML",
        );
        return;
    }
    let t = scratch_tree(&PULLED.replace("1.0.0", "9.9.9"), &[]);
    let cache = t.root.parent().expect("parent").join("cache");
    let out = kbuild_in(&t, &["--helm-cache-dir", &cache.display().to_string()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty(), "{stderr}");
    assert!(stderr.contains("version \"9.9.9\" not found"), "{stderr}");
    assert_eq!(std::fs::read_dir(&cache).expect("cache").count(), 0);
}

fn identical_inflations_run_helm_once() {
    if !standin_runs() {
        common::skipped(
            "this helm test",
            "the helm stand-in needs python3 with PyYAML",
        );
        return;
    }
    // Two bases inflate the same chart with the same values; the overlay keeps both apart
    // with prefixes. kustomize runs `helm template` twice, kbuild once.
    let base = "helmCharts:\n- name: web\n  releaseName: same\n";
    let t = scratch_tree("resources:\n- a\n- b\n", &[("web/1.0.0", "charts/web")]);
    for (dir, prefix) in [("a", "a-"), ("b", "b-")] {
        let d = t.root.join(dir);
        std::fs::create_dir_all(&d).expect("mkdir");
        std::fs::write(
            d.join("kustomization.yaml"),
            format!("namePrefix: {prefix}\nhelmGlobals:\n  chartHome: ../charts\n{base}"),
        )
        .expect("write");
    }
    let out = kbuild_in(&t, &["--load-restrictor", "LoadRestrictionsNone"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("name: a-same-web") && text.contains("name: b-same-web"));
    assert_eq!(helm_runs(&t), ["version", "template"]);
}

fn without_enable_helm_a_chart_is_kustomizes_error() {
    let t = scratch_tree("helmCharts:\n- name: web\n", &[]);
    let out = run(
        Path::new(env!("CARGO_BIN_EXE_kbuild")),
        &["build".into(), ".".into()],
        &t,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(stderr.contains("must specify --enable-helm"), "{stderr}");
}

fn helm_versions_kustomize_accepts() {
    if !standin_runs() {
        common::skipped(
            "this helm test",
            "the helm stand-in needs python3 with PyYAML",
        );
        return;
    }
    let t = scratch_tree(
        "helmCharts:\n- name: db\n  releaseName: v\n",
        &[("db/0.1.0", "charts/db")],
    );
    // (helm's answer, kustomize version, accepted)
    let cases = [
        ("v3.16.2+g13654a5", "v5.5.0", true),
        ("v3.16.2+g13654a5", "v5.8.1", true),
        ("v4.0.0+gabcdef0", "v5.5.0", false),
        ("v4.0.0+gabcdef0", "v5.8.1", true),
        ("v2.17.0+ga690bad", "v5.8.1", false),
        ("no version here", "v5.8.1", false),
    ];
    for (answer, version, accepted) in cases {
        let kbuild = Command::new(env!("CARGO_BIN_EXE_kbuild"))
            .args([
                "build",
                ".",
                "--enable-helm",
                "--kustomize-version",
                version,
            ])
            .arg("--helm-command")
            .arg(standin())
            .current_dir(&t.root)
            .env("HELM_STANDIN_VERSION", answer)
            .output()
            .expect("run kbuild");
        let stderr = String::from_utf8_lossy(&kbuild.stderr);
        assert_eq!(
            kbuild.status.success(),
            accepted,
            "{answer} {version}: {stderr}"
        );
        if !accepted {
            assert!(stderr.contains("'helm version' says"), "{stderr}");
            assert!(kbuild.stdout.is_empty());
        }
        match kubectl(version) {
            Some(k) => {
                let kc = Command::new(k)
                    .args(["kustomize", "--enable-helm", "--helm-command"])
                    .arg(standin())
                    .arg(".")
                    .current_dir(&t.root)
                    .env("HELM_STANDIN_VERSION", answer)
                    .output()
                    .expect("run kubectl");
                assert_eq!(kc.status.success(), accepted, "kubectl: {answer} {version}");
                if accepted {
                    assert_eq!(kc.stdout, kbuild.stdout, "{answer} {version}");
                }
            }
            None => common::skipped(
                &format!("the kubectl comparison for {version}"),
                "no kubectl",
            ),
        }
    }
}

/// A chart's output counts against the output budget (`--max-output-bytes`): past it the
/// build fails naming `helmCharts`.
fn chart_output_counts_against_the_output_budget() {
    if !standin_runs() {
        common::skipped(
            "this helm test",
            "the helm stand-in needs python3 with PyYAML",
        );
        return;
    }
    let t = scratch_tree(
        "helmCharts:\n- name: web\n  releaseName: r\n",
        &[("web/1.0.0", "charts/web")],
    );
    let fits = kbuild_in(&t, &[]);
    assert!(
        fits.status.success(),
        "{}",
        String::from_utf8_lossy(&fits.stderr)
    );
    let out = kbuild_in(&t, &["--max-output-bytes", "50"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "Error: the build would produce more than 50 bytes: helmCharts takes the output past its budget"
        ),
        "{err}"
    );
}
