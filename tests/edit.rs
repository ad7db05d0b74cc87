//! `kbuild edit` through the real binary.
//!
//! Fixture cases (tests/edit-fixtures/<case>/): `in/` is the tree, `commands` one edit
//! command a line (a JSON array of arguments, run in `in/<cwd>` where `cwd` is the
//! first line when it starts with `cwd:`), then either `expected.yaml` (the exact
//! kustomization file afterwards) or `expected.err` (text the error must hold; the file
//! must be left byte for byte). A case may hold `kustomize.yaml`: what kustomize's own
//! `edit` writes for the same commands (from kustomize's edit tests and docs); the tree
//! with that file must build to the same output as the tree kbuild edited. And when a
//! `kubectl` is available, `kubectl kustomize` of the edited tree must print what
//! `kbuild build` prints.

use crate::common;
use common::argo_cd_semver;
use std::path::{Path, PathBuf};
use std::process::Command;

tests! {
    a_read_only_file_is_an_error_and_stays,
    the_mode_is_kept_and_a_symlink_is_written_through,
    dry_run_prints_the_diff_and_writes_nothing,
    unknown_subcommands_get_a_suggestion_and_missing_files_a_plain_error,
    argo_cd_sequence_edits_in_place_and_builds_like_kustomize,
    alpha_list_builtin_plugin_lists_the_builtins_without_a_kustomization,
    boolean_flags_take_go_values,
    from_file_values_are_csv_records,
    fix_verify_checks_every_kustomization_that_reads_the_file;
    common::cases(module_path!(), named_cases(), edit_fixture),
}

fn kbuild(dir: &Path, args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(args)
        .current_dir(dir)
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .output()
        .expect("run kbuild")
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let rel = entry.path().strip_prefix(from).expect("prefix");
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

/// A `kubectl` whose `kustomize` is v5.8.1, the release kbuild's default build
/// reproduces: `$KUBECTL_V581`, kubectl v1.37 beside the repository, or the `kubectl` on
/// PATH, whichever reports Kustomize v5.8.1 (`.ci/run` installs kubectl v1.37.1).
fn kubectl() -> Option<PathBuf> {
    static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FOUND.get_or_init(find_kubectl).clone()
}

fn find_kubectl() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("KUBECTL_V581").map(PathBuf::from),
        Some(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../kubectl-1.37/bin/kubectl"
        ))),
        Some(PathBuf::from("kubectl")),
    ];
    candidates.into_iter().flatten().find(|k| {
        Command::new(k)
            .args(["version", "--client"])
            .output()
            .is_ok_and(|o| {
                o.status.success()
                    && String::from_utf8_lossy(&o.stdout).contains("Kustomize Version: v5.8.1")
            })
    })
}

fn build(dir: &Path) -> String {
    let out = kbuild(dir, &["build".into(), ".".into()]);
    assert!(
        out.status.success(),
        "build of {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

struct Case {
    name: String,
    dir: PathBuf,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/edit-fixtures");
    let mut cases: Vec<Case> = std::fs::read_dir(&root)
        .expect("fixtures/edit")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("commands").is_file())
        .map(|dir| Case {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            dir,
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

fn run_case(case: &Case, kubectl: Option<&Path>) -> Result<(), String> {
    let tmp = tempfile::tempdir().expect("tmp");
    let tree = tmp.path().join("in");
    copy_tree(&case.dir.join("in"), &tree);
    let commands = std::fs::read_to_string(case.dir.join("commands")).expect("commands");
    let mut lines = commands.lines().filter(|l| !l.trim().is_empty()).peekable();
    let cwd = match lines.peek().and_then(|l| l.strip_prefix("cwd:")) {
        Some(rel) => {
            let rel = rel.trim().to_string();
            lines.next();
            tree.join(rel)
        }
        None => tree.clone(),
    };
    let file = cwd.join("kustomization.yaml");
    let before = std::fs::read(&file).unwrap_or_default();
    let mut failure = None;
    for line in lines {
        let args: Vec<String> = serde_json::from_str(line).map_err(|e| format!("{line}: {e}"))?;
        let out = kbuild(&cwd, &args);
        if !out.status.success() {
            failure = Some((line.to_string(), out));
            break;
        }
        if !out.stdout.is_empty() && !args.iter().any(|a| a == "--dry-run") {
            return Err(format!("{line}: printed on stdout"));
        }
    }
    let after = std::fs::read_to_string(&file).unwrap_or_default();
    let expected_err = case.dir.join("expected.err");
    if expected_err.is_file() {
        let want = std::fs::read_to_string(&expected_err).expect("expected.err");
        let Some((line, out)) = failure else {
            return Err("expected an error, every command succeeded".into());
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !stderr.contains(want.trim()) {
            return Err(format!("{line}: stderr {stderr:?} lacks {:?}", want.trim()));
        }
        if !out.stdout.is_empty() {
            return Err(format!("{line}: printed on stdout after an error"));
        }
        if after.as_bytes() != before.as_slice() {
            return Err(format!("{line}: failed but changed the file"));
        }
        return Ok(());
    }
    if let Some((line, out)) = failure {
        return Err(format!("{line}: {}", String::from_utf8_lossy(&out.stderr)));
    }
    common::bless::check_file(&case.dir.join("expected.yaml"), &after)
        .map_err(|e| format!("the edited kustomization: {e}"))?;
    let ours = build(&cwd);
    let kustomize_file = case.dir.join("kustomize.yaml");
    if kustomize_file.is_file() {
        std::fs::copy(&kustomize_file, &file).expect("copy");
        let theirs = build(&cwd);
        std::fs::write(&file, &after).expect("restore");
        if ours != theirs {
            return Err(format!(
                "kustomize's own edit builds differently:\n--- kustomize\n{theirs}\n--- kbuild\n{ours}"
            ));
        }
    }
    if let Some(kubectl) = kubectl {
        let out = Command::new(kubectl)
            .args(["kustomize", "."])
            .current_dir(&cwd)
            .output()
            .expect("kubectl");
        let reference = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || reference != ours {
            return Err(format!(
                "kubectl kustomize of the edited tree differs:\n--- kubectl\n{reference}{}\n--- kbuild\n{ours}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    Ok(())
}

/// `(case name, case)` for every case: one test each, `edit::<case>`.
fn named_cases() -> Vec<(String, Case)> {
    let all = cases();
    assert!(!all.is_empty(), "no edit fixtures");
    all.into_iter().map(|c| (c.name.clone(), c)).collect()
}

/// One case, and the edited tree built by kubectl kustomize v5.8.1 when there is one.
fn edit_fixture(case: Case) -> Result<(), String> {
    let kubectl = kubectl();
    if kubectl.is_none() {
        common::skipped(
            "the kubectl kustomize half of edit fixtures",
            "no kubectl with kustomize v5.8.1 (set KUBECTL_V581)",
        );
    }
    run_case(&case, kubectl.as_deref())
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    kbuild(dir, &args)
}

fn a_read_only_file_is_an_error_and_stays() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("kustomization.yaml");
    std::fs::write(&file, "namespace: a\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = run(tmp.path(), &["edit", "set", "namespace", "b"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is read-only"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "namespace: a\n");
}

fn the_mode_is_kept_and_a_symlink_is_written_through() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("shared.yaml");
    std::fs::write(&real, "namespace: a # env\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::symlink("shared.yaml", tmp.path().join("kustomization.yaml")).unwrap();
    let out = run(tmp.path(), &["edit", "set", "namespace", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::symlink_metadata(tmp.path().join("kustomization.yaml"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "namespace: b # env\n"
    );
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

fn dry_run_prints_the_diff_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("kustomization.yaml");
    std::fs::write(&file, "# app\nresources:\n- a.yaml\n").unwrap();
    std::fs::write(tmp.path().join("b.yaml"), "").unwrap();
    let out = run(
        tmp.path(),
        &["edit", "add", "resource", "b.yaml", "--dry-run"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(
        diff.contains("+- b.yaml\n") && diff.contains(" - a.yaml\n"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# app\nresources:\n- a.yaml\n"
    );
}

fn unknown_subcommands_get_a_suggestion_and_missing_files_a_plain_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), &["edit", "set", "imag", "a:b"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("similar subcommand") && stderr.contains("image"),
        "{stderr}"
    );
    let out = run(tmp.path(), &["edit", "set", "image", "a:b"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no kustomization file in"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// Argo CD's repo-server, replayed (util/kustomize/kustomize.go): `version --short` first
/// (a version of at least 5.3.0 makes it pass `--helm-kube-version` and
/// `--helm-api-versions` when `--enable-helm` is among the build options), then `edit` in
/// the app directory for the Application's overrides, then a build of the absolute path
/// from the repository root with the global build options appended after it.
fn argo_cd_sequence_edits_in_place_and_builds_like_kustomize() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/edit-fixtures/argocd");
    copy_tree(&fixture.join("in"), repo);
    let app = repo.join("apps/web/overlays/prod");

    let out = run(repo, &["version", "--short"]);
    assert!(out.status.success());
    let short = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        argo_cd_semver(&short).as_deref(),
        Some("v5.8.1"),
        "{short:?}"
    );

    let steps: [&[&str]; 8] = [
        &["edit", "set", "nameprefix", "--", "p-"],
        &["edit", "set", "namesuffix", "--", "-s"],
        &[
            "edit",
            "set",
            "image",
            "nginx=registry.example.com/nginx:1.27",
            "busybox:1.36",
        ],
        &["edit", "set", "replicas", "web=4"],
        &[
            "edit",
            "add",
            "label",
            "--force",
            "--without-selector",
            "--include-templates",
            "argocd.argoproj.io/instance:web-prod",
        ],
        &["edit", "add", "annotation", "--force", "team:payments"],
        &["edit", "set", "namespace", "--", "payments"],
        &["edit", "add", "component", "../../components/monitoring"],
    ];
    for step in steps {
        let out = run(&app, step);
        assert!(
            out.status.success(),
            "{step:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let edited = std::fs::read_to_string(app.join("kustomization.yaml")).unwrap();
    let expected = std::fs::read_to_string(fixture.join("kustomization.expected.yaml")).unwrap();
    assert_eq!(edited, expected);

    let abs = app.display().to_string();
    // Argo CD's global build options (argocd-cm `kustomize.buildOptions`), then what it
    // adds for helm from the Application's kubeVersion and apiVersions.
    let flags = [
        "--load-restrictor",
        "LoadRestrictionsNone",
        "--enable-helm",
        "--helm-kube-version",
        "1.31.0",
        "--helm-api-versions",
        "monitoring.coreos.com/v1",
    ];
    let build: Vec<&str> = ["build", abs.as_str()].into_iter().chain(flags).collect();
    let out = run(repo, &build);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let built = String::from_utf8(out.stdout).unwrap();
    let want = std::fs::read_to_string(fixture.join("expected.yaml")).unwrap();
    assert_eq!(built, want);
    match kubectl() {
        Some(kubectl) => {
            let out = Command::new(kubectl)
                .args(["kustomize", abs.as_str()].into_iter().chain(flags))
                .current_dir(repo)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(String::from_utf8_lossy(&out.stdout), built);
        }
        None => common::skipped(
            "the kubectl kustomize comparison of the Argo CD replay",
            "no kubectl with kustomize v5.8.1 (set KUBECTL_V581)",
        ),
    }
}

/// kustomize's `edit alpha-list-builtin-plugin` needs no kustomization file; kbuild lists
/// the builtins it runs (kustomize v5.8.1 lists the same plus HelmChartInflationGenerator,
/// in Go's random map order).
fn alpha_list_builtin_plugin_lists_the_builtins_without_a_kustomization() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), &["edit", "alpha-list-builtin-plugin"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let (head, list) = text.split_at("Builtin plugins:\n\n".len());
    assert_eq!(head, "Builtin plugins:\n\n");
    let mut kinds: Vec<&str> = list
        .lines()
        .map(|l| l.strip_prefix(" * ").expect(" * prefix"))
        .collect();
    kinds.sort_unstable();
    assert_eq!(
        kinds,
        [
            "AnnotationsTransformer",
            "ConfigMapGenerator",
            "HashTransformer",
            "IAMPolicyGenerator",
            "ImageTagTransformer",
            "LabelTransformer",
            "NamespaceTransformer",
            "PatchJson6902Transformer",
            "PatchStrategicMergeTransformer",
            "PatchTransformer",
            "PrefixSuffixTransformer",
            "PrefixTransformer",
            "ReplacementTransformer",
            "ReplicaCountTransformer",
            "SecretGenerator",
            "SuffixTransformer",
            "ValueAddTransformer",
        ]
    );
}

/// kustomize's flags are pflag's: a boolean takes `=true`/`=false` (and Go's other
/// spellings), and a repeated flag's last value wins.
fn boolean_flags_take_go_values() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("kustomization.yaml");
    std::fs::write(&file, "commonLabels:\n  a: b\n").unwrap();
    let out = run(
        tmp.path(),
        &["edit", "add", "label", "--force=false", "a:c"],
    );
    assert_eq!(out.status.code(), Some(1));
    for (flag, value) in [("--force=true", "c"), ("--force=1", "d"), ("-f", "e")] {
        let label = format!("a:{value}");
        let out = run(tmp.path(), &["edit", "add", "label", flag, &label]);
        assert!(out.status.success(), "{flag}");
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text, format!("commonLabels:\n  a: {value}\n"), "{flag}");
    }
    let out = run(
        tmp.path(),
        &["edit", "add", "label", "--force=maybe", "a:f"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("strconv.ParseBool"), "{stderr}");
    let out = run(
        tmp.path(),
        &[
            "edit",
            "--dry-run=true",
            "add",
            "resource",
            "--no-verify=1",
            "x.yaml",
        ],
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("+- x.yaml"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "commonLabels:\n  a: e\n"
    );
}

/// `--from-file` is a pflag string slice: each value is one CSV record, so a quoted name
/// may hold a comma.
fn from_file_values_are_csv_records() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("kustomization.yaml"), "resources: []\n").unwrap();
    std::fs::write(tmp.path().join("a,b.txt"), "x").unwrap();
    std::fs::write(tmp.path().join("c.txt"), "y").unwrap();
    let out = run(
        tmp.path(),
        &[
            "edit",
            "add",
            "configmap",
            "cm",
            "--from-file",
            "\"a,b.txt\",c.txt",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(tmp.path().join("kustomization.yaml")).unwrap();
    assert!(
        text.contains("  - a,b.txt\n") && text.contains("  - c.txt\n"),
        "{text}"
    );
}

/// `edit fix --verify`: writes only when every kustomization that reads the file builds
/// the same bytes after the fix (here a base and the overlay using it), and refuses,
/// leaving the file alone, when the fix would change a build (`patchesStrategicMerge`
/// moved into `patches` runs after the existing `patches` entry instead of before it).
fn fix_verify_checks_every_kustomization_that_reads_the_file() {
    let t = tempfile::tempdir().expect("tempdir");
    let root = t.path();
    let files = [
        (
            "base/kustomization.yaml",
            "commonLabels:\n  team: a\nresources:\n- cm.yaml\n",
        ),
        (
            "base/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: base\n",
        ),
        (
            "overlay/kustomization.yaml",
            "resources:\n- ../base\npatchesStrategicMerge:\n- p2.yaml\npatches:\n- path: p1.yaml\n",
        ),
        (
            "overlay/p1.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: one\n",
        ),
        (
            "overlay/p2.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: two\n",
        ),
    ];
    for (path, text) in files {
        std::fs::create_dir_all(root.join(path).parent().expect("parent")).expect("mkdir");
        std::fs::write(root.join(path), text).expect("write");
    }
    // The kustomizations checked are those of the git work tree around the file.
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status();
    if !init.is_ok_and(|s| s.success()) {
        common::skipped("edit fix --verify", "git init failed (no git?)");
        return;
    }
    let out = run(&root.join("base"), &["edit", "fix", "--verify"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Verified: 2 kustomizations"), "{stdout}");
    assert!(stdout.contains("overlay ("), "{stdout}");
    let fixed = std::fs::read_to_string(root.join("base/kustomization.yaml")).expect("read");
    assert!(fixed.contains("includeSelectors: true"), "{fixed}");
    let overlay = root.join("overlay/kustomization.yaml");
    let before = std::fs::read_to_string(&overlay).expect("read");
    let out = run(&root.join("overlay"), &["edit", "fix", "--verify"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("the fix changes what 1 of 1 kustomization builds; nothing was written"),
        "{stderr}"
    );
    assert!(stderr.contains("-  k: one\n+  k: two"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&overlay).expect("read"), before);
}
