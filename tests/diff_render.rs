//! `kbuild diff`, `kbuild render` and `kbuild deps` through the real binary:
//! each test writes a small tree to a temporary directory, runs kbuild in it
//! with relative paths (so output is stable), and checks exit codes, files and
//! output (insta snapshots, reviewed).

use crate::common;
use common::write;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

tests! {
    diff_base_against_overlay_pairs_through_original_ids,
    diff_stat_and_color,
    diff_json_lists_pairs_status_and_fields,
    diff_equal_sides_exit_0_and_stdin_side,
    diff_saved_base_render_against_overlay,
    diff_ignore_field_can_make_sides_equal,
    diff_bad_input_exits_2,
    diff_kubectl_external_diff_directories,
    diff_and_help_go_through_the_pager_on_a_terminal_only,
    render_progress_on_a_terminal_only,
    a_directory_named_diff_still_builds,
    help_texts,
    render_writes_mirrored_files_then_check_finds_stale_ones,
    render_affected_only_renders_dependents,
    render_keeps_going_past_a_broken_kustomization,
    render_bad_input_exits_2_and_writes_nothing,
    deps_lists_input_files_transitively,
    diff_markdown_summarises_redacts_and_caps,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn kbuild(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kbuild");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.unwrap_or("").as_bytes())
        .expect("write stdin");
    drop(input);
    let out = child.wait_with_output().expect("wait");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).replace(&dir.display().to_string(), "$TMP"),
    }
}

/// A base (Deployment, Service, generated ConfigMap) and a staging overlay
/// that renames everything, changes the image, replicas and the ConfigMap,
/// and adds a PodDisruptionBudget.
fn tree() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = tmp.path();
    write(
        d,
        "base/kustomization.yaml",
        "resources: [deploy.yaml, svc.yaml]\nconfigMapGenerator:\n- name: app-config\n  literals: [LOG_LEVEL=info]\n",
    );
    write(
        d,
        "base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    team: a\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: app-config\n",
    );
    write(
        d,
        "base/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n",
    );
    write(
        d,
        "overlays/staging/kustomization.yaml",
        "resources: [../../base, pdb.yaml]\nnamespace: staging\nnamePrefix: staging-\nimages:\n- name: nginx\n  newTag: \"1.27\"\nreplicas:\n- name: web\n  count: 3\nconfigMapGenerator:\n- name: app-config\n  behavior: merge\n  literals: [LOG_LEVEL=debug]\n",
    );
    write(
        d,
        "overlays/staging/pdb.yaml",
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: web}\n",
    );
    tmp
}

fn diff_base_against_overlay_pairs_through_original_ids() {
    let t = tree();
    let r = kbuild(t.path(), &["diff", "base", "overlays/staging"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    insta::assert_snapshot!(r.stdout);
}

fn diff_stat_and_color() {
    let t = tree();
    let r = kbuild(
        t.path(),
        &["diff", "--stat", "base", "overlays/staging"],
        None,
    );
    assert_eq!(r.code, 1);
    insta::assert_snapshot!(r.stdout);
    let colored = kbuild(
        t.path(),
        &["diff", "--color", "always", "base", "overlays/staging"],
        None,
    );
    assert!(
        colored.stdout.contains("\x1b[32m+  replicas: 3\x1b[0m"),
        "{}",
        colored.stdout
    );
    // Not a terminal: "auto" means no color.
    let auto = kbuild(t.path(), &["diff", "base", "overlays/staging"], None);
    assert!(!auto.stdout.contains('\x1b'));
}

fn diff_json_lists_pairs_status_and_fields() {
    let t = tree();
    let r = kbuild(
        t.path(),
        &["diff", "--output", "json", "base", "overlays/staging"],
        None,
    );
    assert_eq!(r.code, 1);
    insta::assert_snapshot!(r.stdout);
}

fn diff_equal_sides_exit_0_and_stdin_side() {
    let t = tree();
    let render = kbuild(t.path(), &["build", "overlays/staging"], None);
    assert_eq!(render.code, 0);
    let r = kbuild(
        t.path(),
        &["diff", "overlays/staging", "-"],
        Some(&render.stdout),
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "0 changed, 0 added, 0 removed, 4 unchanged\n")
    );
    write(
        t.path(),
        "saved.yaml",
        render.stdout.replace("replicas: 3", "replicas: 4"),
    );
    let r = kbuild(
        t.path(),
        &["diff", "--stat", "saved.yaml", "overlays/staging"],
        None,
    );
    assert_eq!(r.code, 1);
    insta::assert_snapshot!(r.stdout);
}

fn diff_saved_base_render_against_overlay() {
    // A plain YAML side has no original ids: its current ids pair with the
    // overlay's original ids, and generated names need --ignore-hash-suffix.
    let t = tree();
    let base = kbuild(t.path(), &["base"], None);
    write(t.path(), "base.yaml", &base.stdout);
    let r = kbuild(
        t.path(),
        &[
            "diff",
            "--stat",
            "--ignore-hash-suffix",
            "--ignore-field",
            "metadata.namespace",
            "--ignore-field",
            "metadata.name",
            "--ignore-field",
            "spec.template.spec.containers[name=web].envFrom",
            "base.yaml",
            "overlays/staging",
        ],
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    insta::assert_snapshot!(r.stdout);
}

fn diff_ignore_field_can_make_sides_equal() {
    let t = tree();
    write(
        t.path(),
        "a.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    deploy.example.com/at: \"1\"\ndata: {k: v}\n",
    );
    write(
        t.path(),
        "b.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    deploy.example.com/at: \"2\"\ndata: {k: v}\n",
    );
    let r = kbuild(t.path(), &["diff", "a.yaml", "b.yaml", "--stat"], None);
    assert_eq!(r.code, 1);
    let r = kbuild(
        t.path(),
        &[
            "diff",
            "a.yaml",
            "b.yaml",
            "--ignore-field",
            "metadata.annotations.deploy.example.com/at",
        ],
        None,
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "0 changed, 0 added, 0 removed, 1 unchanged\n")
    );
}

fn diff_bad_input_exits_2() {
    let t = tree();
    write(t.path(), "empty/readme.txt", "x");
    write(t.path(), "bad.yaml", "a: [1,\n");
    let cases = [
        vec!["diff", "nope", "base"],
        vec!["diff", "empty", "base"],
        vec!["diff", "base", "bad.yaml"],
        vec!["diff", "-", "-"],
        vec!["diff", "base", "overlays/staging", "--ignore-field", "a["],
    ];
    let mut all = String::new();
    for args in cases {
        let r = kbuild(t.path(), &args, Some(""));
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}");
        all.push_str(&format!("$ kbuild {}\n{}", args.join(" "), r.stderr));
    }
    insta::assert_snapshot!(all);
}

/// `kbuild diff --kubectl` on the two directories `kubectl diff` hands
/// KUBECTL_EXTERNAL_DIFF, laid out as kubectl writes them (its diff.go: `LIVE-*` and
/// `MERGED-*` temporary directories, one file per object named
/// `[group.]version.kind.namespace.name`, an empty LIVE file for a new object).
fn diff_kubectl_external_diff_directories() {
    let t = tempfile::tempdir().expect("tempdir");
    let (live, merged) = (t.path().join("LIVE-123"), t.path().join("MERGED-456"));
    std::fs::create_dir(&live).expect("mkdir");
    std::fs::create_dir(&merged).expect("mkdir");
    let deploy = |replicas: u32, generation: u32| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  generation: {generation}\n  name: web\n  namespace: default\nspec:\n  replicas: {replicas}\n"
        )
    };
    let file = "apps.v1.Deployment.default.web";
    std::fs::write(live.join(file), deploy(1, 3)).expect("write");
    std::fs::write(merged.join(file), deploy(3, 4)).expect("write");
    std::fs::write(live.join("v1.ConfigMap.default.new"), "").expect("write");
    std::fs::write(
        merged.join("v1.ConfigMap.default.new"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n  namespace: default\n",
    )
    .expect("write");
    let run = kbuild(
        t.path(),
        &["diff", "--kubectl", "LIVE-123", "MERGED-456", "--stat"],
        None,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "~ apps/v1 Deployment default/web (2 fields)\n+ v1 ConfigMap default/new\n1 changed, 1 added, 0 removed, 0 unchanged\n"
    );
    let run = kbuild(
        t.path(),
        &["diff", "--kubectl", "LIVE-123", "LIVE-123"],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // An error is more than 1, which kubectl reports as a failure, not as differences.
    let run = kbuild(
        t.path(),
        &["diff", "--kubectl", "LIVE-123", "missing"],
        None,
    );
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
}

/// Runs `kbuild ARGS` in `dir` with stdout on a pseudo-terminal (util-linux `script`)
/// and `PAGER` set to a stand-in that saves what it is given to `paged`; returns what
/// reached the terminal, or `None` (reported skipped) without `script`.
fn on_a_terminal(dir: &Path, args: &str, env: &[(&str, &str)]) -> Option<String> {
    let kbuild = env!("CARGO_BIN_EXE_kbuild");
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &format!("{kbuild} {args}"), "/dev/null"])
        .current_dir(dir)
        .env_remove("KBUILD_PAGER")
        .env("PAGER", format!("cat > '{}'", dir.join("paged").display()))
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(out) => Some(String::from_utf8_lossy(&out.stdout).into_owned()),
        Err(e) => {
            common::skipped("the pager test", &format!("no `script` program: {e}"));
            None
        }
    }
}

/// The pager: used for diff and --help on a terminal, never when piped, and off with
/// --no-pager or an empty KBUILD_PAGER.
fn diff_and_help_go_through_the_pager_on_a_terminal_only() {
    let t = tree();
    let paged = t.path().join("paged");
    let Some(screen) = on_a_terminal(t.path(), "diff base overlays/staging", &[]) else {
        return;
    };
    let text = std::fs::read_to_string(&paged).expect("the pager got the diff");
    assert!(text.contains("changed"), "{text}");
    assert!(
        !screen.contains("changed"),
        "printed besides the pager: {screen}"
    );
    std::fs::remove_file(&paged).expect("rm");
    on_a_terminal(t.path(), "--help", &[]);
    assert!(
        std::fs::read_to_string(&paged)
            .expect("paged help")
            .contains("Usage:")
    );
    std::fs::remove_file(&paged).expect("rm");
    for (args, env) in [
        ("diff --no-pager base overlays/staging", &[][..]),
        ("diff base overlays/staging", &[("KBUILD_PAGER", "")][..]),
        ("--help --no-pager", &[][..]),
    ] {
        let screen = on_a_terminal(t.path(), args, env).unwrap_or_default();
        assert!(!paged.exists(), "{args}: paged");
        assert!(!screen.is_empty(), "{args}: nothing printed");
    }
    // Piped: no pager whatever PAGER says.
    let run = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(["diff", "base", "overlays/staging"])
        .current_dir(t.path())
        .env("PAGER", format!("cat > '{}'", paged.display()))
        .output()
        .expect("run");
    assert!(!run.stdout.is_empty());
    assert!(!paged.exists());
}

/// `render` shows a progress bar on a terminal, not with --quiet, not when piped.
fn render_progress_on_a_terminal_only() {
    let t = tree();
    let Some(screen) = on_a_terminal(t.path(), "render base overlays/staging", &[]) else {
        return;
    };
    assert!(screen.contains("rendering 0/2"), "{screen:?}");
    let screen =
        on_a_terminal(t.path(), "render -q base overlays/staging", &[]).unwrap_or_default();
    assert!(!screen.contains("rendering"), "{screen:?}");
    let run = kbuild(t.path(), &["render", "base", "overlays/staging"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("rendering"), "{}", run.stderr);
}

fn a_directory_named_diff_still_builds() {
    let t = tree();
    write(
        t.path(),
        "diff/kustomization.yaml",
        "resources: [../base/svc.yaml]\n",
    );
    let r = kbuild(
        t.path(),
        &["build", "diff", "--load-restrictor", "LoadRestrictionsNone"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("kind: Service"));
}

fn help_texts() {
    let t = tree();
    for sub in ["diff", "render", "deps"] {
        let r = kbuild(t.path(), &[sub, "--help"], None);
        assert_eq!(r.code, 0);
        insta::assert_snapshot!(format!("help_{sub}"), r.stdout);
    }
}

fn render_writes_mirrored_files_then_check_finds_stale_ones() {
    let t = tree();
    let d = t.path();
    let r = kbuild(d, &["render", "--all", "--out", "rendered"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "rendered 2 of 2 kustomizations into rendered (2 files updated)\n"
    );
    let expected = kbuild(d, &["overlays/staging"], None).stdout;
    let got = std::fs::read_to_string(d.join("rendered/overlays/staging.yaml")).expect("render");
    assert_eq!(got, expected);
    assert!(d.join("rendered/base.yaml").is_file());

    let r = kbuild(
        d,
        &["render", "--all", "--out", "rendered", "--check"],
        None,
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));

    write(
        d,
        "base/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 8080\n",
    );
    let r = kbuild(
        d,
        &["render", "--all", "--out", "rendered", "--check"],
        None,
    );
    assert_eq!(r.code, 1);
    insta::assert_snapshot!(format!("{}{}", r.stdout, r.stderr));
    // --check changed nothing.
    assert_eq!(
        std::fs::read_to_string(d.join("rendered/overlays/staging.yaml")).expect("render"),
        got
    );

    let r = kbuild(
        d,
        &["render", "base", "overlays/staging", "--out", "rendered"],
        None,
    );
    assert_eq!(r.code, 0);
    let r = kbuild(
        d,
        &["render", "--all", "--out", "rendered", "--check"],
        None,
    );
    assert_eq!(r.code, 0);

    // A render whose kustomization was deleted is stale under --all --check.
    std::fs::remove_dir_all(d.join("overlays/staging")).expect("rm");
    let r = kbuild(
        d,
        &["render", "--all", "--out", "rendered", "--check"],
        None,
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout,
        "stale: rendered/overlays/staging.yaml (render of 'overlays/staging', which is no longer a kustomization)\n"
    );
    assert!(
        r.stderr
            .ends_with("run `kbuild render --all --out rendered` to update the renders\n"),
        "{}",
        r.stderr
    );
    // The command it names fixes it: the render is removed (its empty directory too), the
    // manifest forgets it, and a hand-made file beside the renders is left alone.
    write(d, "rendered/notes.yaml", "# mine\n");
    let r = kbuild(d, &["render", "--all", "--out", "rendered"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("removed rendered/overlays/staging.yaml\n"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("warning: rendered/notes.yaml was not written by kbuild render"),
        "{}",
        r.stderr
    );
    assert!(!d.join("rendered/overlays").exists());
    assert!(d.join("rendered/notes.yaml").is_file());
    let manifest =
        std::fs::read_to_string(d.join("rendered/.kbuild-render.json")).expect("manifest");
    assert_eq!(
        manifest,
        "{\n  \"kbuild-render\": 1,\n  \"renders\": {\n    \"base.yaml\": \"base\"\n  }\n}\n"
    );
    let r = kbuild(
        d,
        &["render", "--all", "--out", "rendered", "--check"],
        None,
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
}

fn render_affected_only_renders_dependents() {
    let t = tree();
    let d = t.path();
    write(d, "other/kustomization.yaml", "resources: [cm.yaml]\n");
    write(
        d,
        "other/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    );
    let r = kbuild(
        d,
        &["render", "--affected", "--out", "rendered", "base/svc.yaml"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(d.join("rendered/base.yaml").is_file());
    assert!(d.join("rendered/overlays/staging.yaml").is_file());
    assert!(!d.join("rendered/other.yaml").exists());
    let r = kbuild(
        d,
        &["render", "--affected", "--out", "rendered", "README.md"],
        None,
    );
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            0,
            "rendered 0 of 0 kustomizations into rendered (0 files updated)\n"
        )
    );
    // An edited render is checked against its kustomization.
    write(d, "rendered/base.yaml", "tampered\n");
    let r = kbuild(
        d,
        &[
            "render",
            "--affected",
            "--check",
            "--out",
            "rendered",
            "rendered/base.yaml",
        ],
        None,
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .starts_with("stale: rendered/base.yaml (render of base)\n"),
        "{}",
        r.stdout
    );
}

fn render_keeps_going_past_a_broken_kustomization() {
    let t = tree();
    let d = t.path();
    write(
        d,
        "broken/kustomization.yaml",
        "resources: [missing.yaml]\n",
    );
    let r = kbuild(d, &["render", "--all", "--out", "rendered"], None);
    assert_eq!(r.code, 2);
    insta::assert_snapshot!(r.stderr);
    assert!(d.join("rendered/overlays/staging.yaml").is_file());
    assert!(!d.join("rendered/broken.yaml").exists());
}

fn render_bad_input_exits_2_and_writes_nothing() {
    let t = tree();
    let d = t.path();
    write(d, "empty/readme.txt", "x");
    write(d, "badyaml/kustomization.yaml", "resources: [\n");
    write(d, "file-as-out", "x");
    let cases = [
        vec!["render", "nope", "--out", "rendered"],
        vec!["render", "base", "empty", "--out", "rendered"],
        vec!["render", "base", "--out", "file-as-out/sub"],
        vec!["render", "badyaml", "--out", "rendered"],
        vec!["render", "--out", "rendered"],
    ];
    let mut all = String::new();
    for args in cases {
        let r = kbuild(d, &args, None);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        all.push_str(&format!("$ kbuild {}\n{}", args.join(" "), r.stderr));
    }
    assert!(!d.join("rendered").exists() || !d.join("rendered/base.yaml").exists());
    insta::assert_snapshot!(all);
}

fn deps_lists_input_files_transitively() {
    let t = tree();
    let r = kbuild(t.path(), &["deps", "overlays/staging"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "base/deploy.yaml\nbase/kustomization.yaml\nbase/svc.yaml\noverlays/staging/kustomization.yaml\noverlays/staging/pdb.yaml\n"
    );
}

/// `--output markdown`: a summary table, a collapsible diff per resource, Secret values
/// hashed unless --show-secrets, and the whole report within --max-bytes.
fn diff_markdown_summarises_redacts_and_caps() {
    let t = tempfile::tempdir().expect("tempdir");
    let secret = |v: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: {v}\n"
        )
    };
    let mut old = secret("hunter2");
    let mut new = secret("correct-horse");
    for i in 0..40 {
        old.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: old-{i}\n"
        ));
        new.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: new-{i}\n"
        ));
    }
    write(t.path(), "old.yaml", &old);
    write(t.path(), "new.yaml", &new);
    let r = kbuild(
        t.path(),
        &["diff", "--output", "markdown", "old.yaml", "new.yaml"],
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("### kbuild diff: `old.yaml` → `new.yaml`\n")
    );
    assert!(
        r.stdout
            .contains("| `old.yaml` → `new.yaml` | 41 | 0 | 0 | 0 |")
    );
    assert!(
        r.stdout
            .contains("<details><summary>~ v1 Secret s (1 field)</summary>")
    );
    assert!(
        r.stdout.contains("-  password: <redacted sha256:"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("hunter2") && !r.stdout.contains("correct-horse"));
    let shown = kbuild(
        t.path(),
        &[
            "diff",
            "--output",
            "markdown",
            "--show-secrets",
            "old.yaml",
            "new.yaml",
        ],
        None,
    );
    assert!(shown.stdout.contains("-  password: hunter2"));
    let capped = kbuild(
        t.path(),
        &[
            "diff",
            "--output",
            "markdown",
            "--max-bytes",
            "2000",
            "old.yaml",
            "new.yaml",
        ],
        None,
    );
    assert!(capped.stdout.len() <= 2000, "{}", capped.stdout.len());
    assert!(
        capped
            .stdout
            .contains("more resources not shown: the comment reached --max-bytes 2000")
    );
}
