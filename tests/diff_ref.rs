//! `kbuild diff --ref` through the real binary and a real git repository: a base and
//! overlays committed, then a commit that changes the base (a replica count, a generated
//! ConfigMap whose hash suffix changes, a generated Secret), renames an overlay's resources
//! (a new namePrefix), adds an overlay and deletes one. Checks the text, markdown and JSON
//! reports, exit codes, the markdown size cap and redaction, bad input, and that the
//! temporary checkout is gone afterwards, also when kbuild is interrupted (SIGINT, SIGTERM).
//!
//! Needs `git` on PATH; without it every test reports itself ignored (failed under CI=true).

use crate::common;
use common::{Needing, needing, write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    /// TMPDIR of every kbuild run: its checkouts go here, and must be gone afterwards.
    scratch: PathBuf,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("repo");
        let scratch = tmp.path().join("scratch");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::create_dir_all(&scratch).expect("mkdir");
        let repo = Repo {
            _tmp: tmp,
            dir,
            scratch,
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    fn git(&self, args: &[&str]) -> String {
        let out = git_command(&self.dir).args(args).output().expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    fn write(&self, rel: &str, text: &str) {
        write(&self.dir, rel, text);
    }

    fn kbuild_in(&self, dir: &Path, args: &[&str]) -> Run {
        let out: Output = self.kbuild_command(dir, args).output().expect("run kbuild");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr)
                .replace(&self.dir.display().to_string(), "$REPO"),
        }
    }

    fn kbuild(&self, args: &[&str]) -> Run {
        let run = self.kbuild_in(&self.dir, args);
        self.assert_no_checkout_left();
        run
    }

    fn kbuild_command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kbuild"));
        cmd.args(args)
            .current_dir(dir)
            .env("TMPDIR", &self.scratch)
            .env_remove("NO_COLOR")
            .env_remove("KBUILD_KUSTOMIZE_VERSION");
        for var in ["GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"] {
            cmd.env_remove(var);
        }
        cmd
    }

    fn assert_no_checkout_left(&self) {
        let left: Vec<_> = std::fs::read_dir(&self.scratch)
            .expect("read scratch")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    }

    /// Every file under the repository (`.git` included) with its bytes: what kbuild must
    /// leave as it was.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        walkdir::WalkDir::new(&self.dir)
            .sort_by_file_name()
            .into_iter()
            .map(|e| e.expect("walk"))
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                (
                    e.path().to_path_buf(),
                    std::fs::read(e.path()).expect("read"),
                )
            })
            .collect()
    }
}

fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE");
    cmd
}

const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: app-config\n        - secretRef:\n            name: db\n";

const SVC: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n";

fn base_kustomization(log_level: &str, password: &str) -> String {
    format!(
        "resources: [deploy.yaml, svc.yaml]\nconfigMapGenerator:\n- name: app-config\n  literals: [LOG_LEVEL={log_level}]\nsecretGenerator:\n- name: db\n  literals: [password={password}]\n"
    )
}

fn overlay(namespace: &str, prefix: &str) -> String {
    format!("resources: [../../base]\nnamespace: {namespace}\nnamePrefix: {prefix}\n")
}

/// Two commits: HEAD~1 with the base and overlays a, b and old; HEAD with the base's
/// replicas, ConfigMap and Secret changed, overlay b's prefix changed, overlay c added and
/// overlay old deleted; a `notes` directory without kustomizations changed too.
fn history() -> Repo {
    let repo = Repo::new();
    repo.write(
        "base/kustomization.yaml",
        &base_kustomization("info", "s3cret-one"),
    );
    repo.write("base/deploy.yaml", DEPLOY);
    repo.write("base/svc.yaml", SVC);
    repo.write("overlays/a/kustomization.yaml", &overlay("a", "a-"));
    repo.write("overlays/b/kustomization.yaml", &overlay("b", "b-"));
    repo.write("overlays/old/kustomization.yaml", &overlay("old", "old-"));
    repo.write("notes/README.md", "one\n");
    repo.commit("first");
    repo.write(
        "base/kustomization.yaml",
        &base_kustomization("debug", "s3cret-two"),
    );
    repo.write(
        "base/deploy.yaml",
        &DEPLOY.replace("replicas: 1", "replicas: 3"),
    );
    repo.write("overlays/b/kustomization.yaml", &overlay("b", "beta-"));
    repo.write("overlays/c/kustomization.yaml", &overlay("c", "c-"));
    std::fs::remove_dir_all(repo.dir.join("overlays/old")).expect("rm");
    repo.write("notes/README.md", "two\n");
    repo.commit("second");
    repo
}

fn text_report_and_exit_codes(_: ()) {
    let repo = history();
    let before = repo.snapshot();
    let r = repo.kbuild(&["diff", "--ref", "HEAD~1", "--stat"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stderr, "");
    insta::assert_snapshot!("stat", r.stdout);
    let r = repo.kbuild(&["diff", "--ref", "HEAD~1", "overlays/b"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    insta::assert_snapshot!("overlay_b", r.stdout);
    // Two revisions give what a revision and the same working tree give.
    let two = repo.kbuild(&["diff", "--ref", "HEAD~1", "--to-ref", "HEAD", "--stat"]);
    let one = repo.kbuild(&["diff", "--ref", "HEAD~1", "--stat"]);
    assert_eq!(
        two.stdout.replace("-> HEAD", "-> working tree"),
        one.stdout,
        "--to-ref HEAD and the clean working tree"
    );
    // Nothing changed since HEAD: nothing to compare, exit 0.
    let r = repo.kbuild(&["diff", "--ref", "HEAD"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            0,
            "No kustomization here reads a file that differs between HEAD and working tree.\n"
        )
    );
    // A named kustomization that did not change: exit 0, its resources unchanged.
    let r = repo.kbuild(&["diff", "--ref", "HEAD", "--stat", "overlays/a"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            0,
            "=== overlays/a: HEAD -> working tree\n0 changed, 0 added, 0 removed, 4 unchanged\n"
        )
    );
    assert!(
        repo.snapshot() == before,
        "kbuild diff --ref changed the repository"
    );
}

fn working_tree_changes_count(_: ()) {
    let repo = history();
    // Uncommitted: a changed overlay and a new, untracked one.
    repo.write("overlays/a/kustomization.yaml", &overlay("a", "alpha-"));
    repo.write("overlays/d/kustomization.yaml", &overlay("d", "d-"));
    let before = repo.snapshot();
    let r = repo.kbuild(&["diff", "--ref", "HEAD", "--stat"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    insta::assert_snapshot!("working_tree", r.stdout);
    // Run from a subdirectory: paths and discovery are relative to it.
    let r = repo.kbuild_in(
        &repo.dir.join("overlays"),
        &["diff", "--ref", "HEAD", "--stat", "a"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("=== a: HEAD -> working tree\n~ v1 ConfigMap a/a-app-config-"),
        "{}",
        r.stdout
    );
    repo.assert_no_checkout_left();
    assert!(
        repo.snapshot() == before,
        "kbuild diff --ref changed the repository"
    );
}

fn json_report(_: ()) {
    let repo = history();
    let r = repo.kbuild(&["diff", "--ref", "HEAD~1", "--output", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["old"], "HEAD~1");
    assert_eq!(v["new"], "working tree");
    let paths: Vec<&str> = v["kustomizations"]
        .as_array()
        .expect("array")
        .iter()
        .map(|k| k["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths,
        [
            "base",
            "overlays/a",
            "overlays/b",
            "overlays/c",
            "overlays/old"
        ]
    );
    let old = &v["kustomizations"][4];
    assert_eq!(old["summary"]["removed"], 4);
    assert_eq!(old["new"], "overlays/old");
    assert_eq!(old["old"], "HEAD~1:overlays/old");
    let c = &v["kustomizations"][3];
    assert_eq!(c["summary"]["added"], 4);
    // Overlay b's resources were renamed (b- to beta-) and still pair.
    let b = &v["kustomizations"][2];
    assert_eq!(b["summary"]["changed"], 4, "{b:#}");
    assert_eq!(b["summary"]["added"], 0);
    let cm = b["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .find(|r| r["old"]["kind"] == "ConfigMap")
        .expect("ConfigMap pair");
    assert!(
        cm["old"]["name"]
            .as_str()
            .expect("name")
            .starts_with("b-app-config-")
    );
    assert!(
        cm["new"]["name"]
            .as_str()
            .expect("name")
            .starts_with("beta-app-config-")
    );
    assert!(
        cm["diff"]
            .as_str()
            .expect("diff")
            .contains("+  LOG_LEVEL: debug")
    );
    assert_eq!(v["summary"]["added"], 4);
    assert_eq!(v["summary"]["removed"], 4);
}

fn markdown_report_redacts_and_keeps_to_the_cap(_: ()) {
    let repo = history();
    let r = repo.kbuild(&["diff", "--ref", "HEAD~1", "--output", "markdown"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.starts_with("### kbuild diff: `HEAD~1` → `working tree`\n\n| kustomization | changed | added | removed | unchanged |\n|---|---|---|---|---|\n| `base` | 3 | 0 | 0 | 1 |\n"), "{}", r.stdout);
    assert!(r.stdout.contains("\n#### `overlays/old`\n"));
    assert!(r.stdout.contains("<details><summary>~ v1 Secret db-"));
    assert!(r.stdout.contains("<redacted sha256:"));
    // The values are base64 in the Secret: neither the plain nor the encoded text shows.
    for secret in [
        "s3cret-one",
        "s3cret-two",
        "czNjcmV0LW9uZQ==",
        "czNjcmV0LXR3bw==",
    ] {
        assert!(!r.stdout.contains(secret), "{secret} in the report");
    }
    let shown = repo.kbuild(&[
        "diff",
        "--ref",
        "HEAD~1",
        "--output",
        "markdown",
        "--show-secrets",
    ]);
    assert!(shown.stdout.contains("czNjcmV0LXR3bw=="));
    let capped = repo.kbuild(&[
        "diff",
        "--ref",
        "HEAD~1",
        "--output",
        "markdown",
        "--max-bytes",
        "3000",
    ]);
    assert_eq!(capped.code, 1);
    assert!(capped.stdout.len() <= 3000, "{} bytes", capped.stdout.len());
    assert!(
        capped
            .stdout
            .contains("not shown: the comment reached --max-bytes 3000._"),
        "{}",
        capped.stdout
    );
    assert!(
        r.stdout.len() > 3000,
        "the uncapped report is {} bytes",
        r.stdout.len()
    );
}

fn bad_input(_: ()) {
    let repo = history();
    let before = repo.snapshot();
    let mut all = String::new();
    for args in [
        &["diff", "--ref", "no-such-branch"][..],
        &["diff", "--ref", "HEAD~1", "nowhere"],
        &["diff", "--ref", "HEAD~1", "-"],
        &["diff", "--ref", "HEAD~1", "../outside"],
        &["diff", "--to-ref", "HEAD"],
        &["diff", "overlays/a"],
    ] {
        let r = repo.kbuild(args);
        assert_eq!(r.code, 2, "{args:?}");
        assert_eq!(r.stdout, "", "{args:?}");
        all.push_str(&format!("$ kbuild {}\n{}", args.join(" "), r.stderr));
    }
    // A kustomization that exists on one side only is not an error.
    let r = repo.kbuild(&[
        "diff",
        "--ref",
        "HEAD~1",
        "--stat",
        "overlays/old",
        "overlays/c",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // Outside any repository.
    let outside = tempfile::tempdir().expect("tempdir");
    write(outside.path(), "k/kustomization.yaml", "resources: []\n");
    let mut cmd = repo.kbuild_command(outside.path(), &["diff", "--ref", "HEAD", "k"]);
    cmd.env(
        "GIT_CEILING_DIRECTORIES",
        outside.path().parent().expect("parent"),
    );
    let out = cmd.output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    all.push_str(&format!(
        "$ kbuild diff --ref HEAD k   # outside a repository\n{}",
        String::from_utf8_lossy(&out.stderr)
            .replace(&outside.path().display().to_string(), "$OUTSIDE")
    ));
    repo.assert_no_checkout_left();
    insta::assert_snapshot!("bad_input", all);
    // A build that fails at the revision names the side.
    repo.write(
        "overlays/a/kustomization.yaml",
        "resources: [../../base, missing.yaml]\n",
    );
    let r = repo.kbuild(&["diff", "--ref", "HEAD", "overlays/a"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("building 'overlays/a' in the working tree"),
        "{}",
        r.stderr
    );
    repo.write("overlays/a/kustomization.yaml", &overlay("a", "a-"));
    assert!(
        repo.snapshot() == before,
        "kbuild diff --ref changed the repository"
    );
}

/// A base reached through a committed symlink builds at the revision as in the working tree
/// (the checkout writes symlinks as links).
#[cfg(unix)]
fn symlinked_bases_build_at_the_revision(_: ()) {
    let repo = Repo::new();
    repo.write("base/kustomization.yaml", &base_kustomization("info", "x"));
    repo.write("base/deploy.yaml", DEPLOY);
    repo.write("base/svc.yaml", SVC);
    std::fs::create_dir_all(repo.dir.join("overlays")).expect("mkdir");
    std::os::unix::fs::symlink("../base", repo.dir.join("overlays/linked-base")).expect("symlink");
    repo.write(
        "overlays/a/kustomization.yaml",
        "resources: [../linked-base]\nnamePrefix: a-\n",
    );
    repo.commit("first");
    repo.write(
        "base/deploy.yaml",
        &DEPLOY.replace("replicas: 1", "replicas: 4"),
    );
    let r = repo.kbuild(&["diff", "--ref", "HEAD", "--stat", "overlays/a"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (
            1,
            "=== overlays/a: HEAD -> working tree\n~ apps/v1 Deployment a-web (1 field)\n1 changed, 0 added, 0 removed, 3 unchanged\n",
            ""
        )
    );
    // Found without naming it: the changed file is an input through the link.
    let r = repo.kbuild(&["diff", "--ref", "HEAD", "--stat"]);
    let heads: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("=== ")).collect();
    assert_eq!(
        heads,
        [
            "=== base: HEAD -> working tree",
            "=== overlays/a: HEAD -> working tree"
        ],
        "{}",
        r.stdout
    );
}

/// A repository big enough that a debug build of kbuild is still at work when the signal
/// comes: a base read by `n` overlays, all affected.
#[cfg(unix)]
fn big_history(n: usize) -> Repo {
    let repo = Repo::new();
    repo.write("base/kustomization.yaml", &base_kustomization("info", "x"));
    repo.write("base/deploy.yaml", DEPLOY);
    repo.write("base/svc.yaml", SVC);
    for i in 0..n {
        repo.write(
            &format!("overlays/o{i}/kustomization.yaml"),
            &overlay(&format!("ns{i}"), &format!("o{i}-")),
        );
    }
    repo.commit("first");
    repo.write(
        "base/deploy.yaml",
        &DEPLOY.replace("replicas: 1", "replicas: 2"),
    );
    repo
}

#[cfg(unix)]
fn interrupted_run_leaves_no_checkout(_: ()) {
    use std::os::unix::process::ExitStatusExt;
    use std::time::{Duration, Instant};
    let repo = big_history(400);
    for (signal, name) in [(2, "INT"), (15, "TERM")] {
        let child = repo
            .kbuild_command(&repo.dir, &["diff", "--ref", "HEAD"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Wait for the checkout to appear, then interrupt.
        let start = Instant::now();
        let appeared = loop {
            let found = std::fs::read_dir(&repo.scratch)
                .expect("read scratch")
                .any(|e| {
                    e.expect("entry")
                        .file_name()
                        .to_string_lossy()
                        .starts_with("kbuild-ref-")
                });
            if found || start.elapsed() > Duration::from_secs(30) {
                break found;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        assert!(
            appeared,
            "no checkout appeared in {}",
            repo.scratch.display()
        );
        let kill = Command::new("kill")
            .args([&format!("-{name}"), &child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(kill.success());
        let out = child.wait_with_output().expect("wait");
        assert_eq!(
            out.status.signal(),
            Some(signal),
            "kbuild ended otherwise ({:?}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        repo.assert_no_checkout_left();
    }
    assert_eq!(repo.git(&["worktree", "list"]).lines().count(), 1);
}

/// The diff steps of `examples/ci/` run as written (everything up to the comment, which needs
/// GitHub's or GitLab's API): against a pull request's merge commit (GitHub: `--ref HEAD^1`)
/// and a merge request's merge base (GitLab).
fn ci_examples_run_their_diff_steps(_: ()) {
    let repo = history();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ci");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kbuild"))
        .parent()
        .expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let yaml = |file: &str| {
        let text = std::fs::read_to_string(examples.join(file)).expect("read example");
        kbuild::yaml::parse::parse_stream(&text, file)
            .expect("example parses")
            .remove(0)
    };
    let run_script = |script: &str, env: &[(&str, String)]| {
        let mut sh = Command::new("bash");
        sh.args(["-e", "-c", script])
            .current_dir(&repo.dir)
            .env("PATH", &path)
            .env("TMPDIR", &repo.scratch);
        for (k, v) in env {
            sh.env(k, v);
        }
        let out = sh.output().expect("run bash");
        assert!(
            out.status.success(),
            "{script}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        repo.assert_no_checkout_left();
        std::fs::read_to_string(repo.dir.join("kbuild-diff.md")).expect("kbuild-diff.md")
    };
    // GitHub Actions: the checkout is a merge commit whose first parent is the base branch.
    repo.git(&["checkout", "-q", "HEAD~1"]);
    repo.git(&["merge", "-q", "--no-ff", "main", "-m", "merge"]);
    let workflow = yaml("github-actions.yml");
    let steps = workflow
        .get("jobs")
        .and_then(|j| j.get("rendered-diff"))
        .and_then(|j| j.get("steps"))
        .and_then(|s| s.as_seq())
        .expect("steps");
    let step = steps
        .iter()
        .find(|s| s.get_str(&["name"]) == Some("Render the diff"))
        .expect("the diff step");
    let outputs = repo.scratch.join("../github-output");
    let md = run_script(
        step.get_str(&["run"]).expect("run"),
        &[("GITHUB_OUTPUT", outputs.display().to_string())],
    );
    assert!(
        md.starts_with("### kbuild diff: `HEAD^1` → `working tree`\n"),
        "{md}"
    );
    assert!(md.contains("| `overlays/c` | 0 | 4 | 0 | 0 |"), "{md}");
    assert_eq!(
        std::fs::read_to_string(&outputs).expect("GITHUB_OUTPUT"),
        "status=1\n"
    );
    std::fs::remove_file(repo.dir.join("kbuild-diff.md")).expect("rm");
    // GitLab CI: the script up to the comment, without installing kbuild.
    let job = yaml("gitlab-ci.yml");
    let script: Vec<&str> = job
        .get("kbuild-diff")
        .and_then(|j| j.get("script"))
        .and_then(|s| s.as_seq())
        .expect("script")
        .iter()
        .map(|l| l.as_str().expect("a script line"))
        .filter(|l| !l.starts_with("cargo install") && !l.starts_with("curl"))
        .collect();
    let base = repo.git(&["rev-parse", "HEAD^1"]).trim().to_string();
    let md = run_script(
        &script.join("\n"),
        &[("CI_MERGE_REQUEST_DIFF_BASE_SHA", base.clone())],
    );
    assert!(
        md.starts_with(&format!("### kbuild diff: `{base}` → `working tree`\n")),
        "{md}"
    );
    assert!(md.contains("| `overlays/old` | 0 | 0 | 4 | 0 |"), "{md}");
}

/// This file's tests (run by tests/integration.rs).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    let have_git = || {
        Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
            .then_some(())
            .ok_or_else(|| "needs `git` on PATH".to_string())
    };
    let tests: &[Needing<()>] = &[
        ("text_report_and_exit_codes", text_report_and_exit_codes),
        ("working_tree_changes_count", working_tree_changes_count),
        ("json_report", json_report),
        (
            "markdown_report_redacts_and_keeps_to_the_cap",
            markdown_report_redacts_and_keeps_to_the_cap,
        ),
        ("bad_input", bad_input),
        (
            "ci_examples_run_their_diff_steps",
            ci_examples_run_their_diff_steps,
        ),
        #[cfg(unix)]
        (
            "symlinked_bases_build_at_the_revision",
            symlinked_bases_build_at_the_revision,
        ),
        #[cfg(unix)]
        (
            "interrupted_run_leaves_no_checkout",
            interrupted_run_leaves_no_checkout,
        ),
    ];
    needing(module_path!(), have_git, tests)
}
