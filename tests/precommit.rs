//! The pre-commit hooks for real: a git repository with a base and two
//! overlays and committed renders, `.pre-commit-config.yaml` pointing at this
//! kbuild checkout (at its `HEAD` commit, as a user's config points at a
//! release tag), the hook installed with the real `pre-commit` framework. A
//! commit that makes a render stale must be refused; after re-rendering it
//! must go through.
//!
//! pre-commit builds the hook with `cargo install` (release profile) the
//! first time; the test points that build at `target/precommit` and lowers
//! its optimisation so reruns stay quick. Skipped, with a message, when
//! `pre-commit` or `git` is not installed (`pip install pre-commit`).
//!
//! The `language: python` hooks install the kbuild wheel instead (pyproject.toml's backend,
//! python/kbuild_build.py, inside pre-commit's store): their test runs offline
//! (PIP_NO_INDEX) with pip finding only the wheel in `$KBUILD_WHEEL_DIR` (.ci/run builds it
//! with maturin), and is reported skipped without that directory.

use crate::common;
use common::write;
use std::path::PathBuf;
use std::process::{Command, Output};

fn have(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

struct Repo {
    dir: PathBuf,
    home: PathBuf,
    target: PathBuf,
}

impl Repo {
    fn run(&self, program: &str, args: &[&str]) -> Output {
        Command::new(program)
            .args(args)
            .current_dir(&self.dir)
            .env("PRE_COMMIT_HOME", &self.home)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
            .env("GIT_AUTHOR_NAME", "test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_WORK_TREE")
            .output()
            .unwrap_or_else(|e| panic!("running {program}: {e}"))
    }

    fn ok(&self, program: &str, args: &[&str]) -> String {
        let out = self.run(program, args);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{program} {args:?} failed:\n{text}");
        text
    }

    fn kbuild(&self, args: &[&str]) -> String {
        self.ok(env!("CARGO_BIN_EXE_kbuild"), args)
    }
}

const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n";

/// What the test needs: git, pre-commit and a git checkout of kbuild; the checkout's HEAD.
fn prerequisites() -> Result<String, String> {
    for tool in ["git", "pre-commit"] {
        if !have(tool) {
            return Err(format!(
                "needs `{tool}` on PATH (`pip install pre-commit` for pre-commit)"
            ));
        }
    }
    let kbuild_repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(&kbuild_repo)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .ok_or_else(|| format!("needs {} to be a git checkout", kbuild_repo.display()))?;
    Ok(String::from_utf8_lossy(&head.stdout).trim().to_string())
}

/// This file's tests (run by tests/integration.rs).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    // About a minute (pre-commit builds the hook with `cargo install`): run by .ci/run and
    // by `cargo test --test integration -- --include-ignored precommit::`.
    common::slow_needing(
        module_path!(),
        prerequisites,
        &[
            (
                "precommit_refuses_a_stale_render_and_accepts_it_rerendered",
                precommit_refuses_a_stale_render_and_accepts_it_rerendered as fn(String),
            ),
            (
                "precommit_refuses_a_stale_openapi_file",
                precommit_refuses_a_stale_openapi_file as fn(String),
            ),
            (
                "precommit_python_hooks_install_the_wheel_offline",
                precommit_python_hooks_install_the_wheel_offline as fn(String),
            ),
        ],
    )
}

fn precommit_refuses_a_stale_render_and_accepts_it_rerendered(rev: String) {
    let kbuild_repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));

    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = Repo {
        dir: tmp.path().join("repo"),
        home: tmp.path().join("pre-commit-home"),
        target: kbuild_repo.join("target/precommit"),
    };
    let d = &repo.dir;
    write(d, "base/kustomization.yaml", "resources: [deploy.yaml]\n");
    write(d, "base/deploy.yaml", DEPLOY);
    for env in ["staging", "prod"] {
        write(
            d,
            &format!("overlays/{env}/kustomization.yaml"),
            format!("resources: [../../base]\nnamespace: {env}\nnamePrefix: {env}-\n"),
        );
    }
    write(
        d,
        ".pre-commit-config.yaml",
        format!(
            "repos:\n- repo: {}\n  rev: {rev}\n  hooks:\n  - id: kbuild-check-rust\n  - id: kbuild-render-rust\n    args: [--out, rendered]\n",
            kbuild_repo.display()
        ),
    );
    repo.kbuild(&["render", "--all", "--out", "rendered"]);
    repo.ok("git", &["init", "-q", "-b", "main"]);
    repo.ok("pre-commit", &["install"]);
    repo.ok("git", &["add", "-A"]);
    // The first commit installs the hook environment (cargo install).
    let first = repo.ok("git", &["commit", "-q", "-m", "initial"]);
    assert!(
        first.contains("kbuild render") && first.contains("Passed"),
        "{first}"
    );

    // A base change that makes both overlay renders (and the base's) stale.
    write(
        d,
        "base/deploy.yaml",
        DEPLOY.replace("replicas: 1", "replicas: 2"),
    );
    repo.ok("git", &["add", "base/deploy.yaml"]);
    let refused = repo.run("git", &["commit", "-q", "-m", "more replicas"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&refused.stdout),
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(
        !refused.status.success(),
        "the commit went through:\n{text}"
    );
    assert!(
        text.contains("stale: rendered/overlays/staging.yaml"),
        "{text}"
    );
    assert!(text.contains("+  replicas: 2"), "{text}");
    let log = repo.ok("git", &["log", "--oneline"]);
    assert_eq!(log.lines().count(), 1, "{log}");

    // Re-render and commit again: accepted.
    repo.kbuild(&[
        "render",
        "--affected",
        "--out",
        "rendered",
        "base/deploy.yaml",
    ]);
    repo.ok("git", &["add", "-A"]);
    let accepted = repo.ok("git", &["commit", "-q", "-m", "more replicas, rendered"]);
    assert!(accepted.contains("Passed"), "{accepted}");

    // A kustomization that no longer builds is refused by kbuild-check.
    write(
        d,
        "overlays/prod/kustomization.yaml",
        "resources: [../../base, missing.yaml]\n",
    );
    repo.ok("git", &["add", "-A"]);
    let broken = repo.run("git", &["commit", "-q", "-m", "broken"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&broken.stdout),
        String::from_utf8_lossy(&broken.stderr)
    );
    assert!(!broken.status.success(), "{text}");
    assert!(
        text.contains("building 'overlays/prod'") && text.contains("missing.yaml"),
        "{text}"
    );
    let log = repo.ok("git", &["log", "--oneline"]);
    assert_eq!(log.lines().count(), 2, "{log}");
}

/// The `kbuild-openapi` hook: a commit that changes a CRD without writing the OpenAPI file
/// again (`kbuild openapi from-crds`) is refused; with the file written again it goes through.
fn precommit_refuses_a_stale_openapi_file(rev: String) {
    let kbuild_repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = Repo {
        dir: tmp.path().join("repo"),
        home: tmp.path().join("pre-commit-home"),
        target: kbuild_repo.join("target/precommit"),
    };
    let d = &repo.dir;
    let crd = std::fs::read_to_string(
        kbuild_repo.join("tests/crd-merge/prometheusrule/in/base/crd-prometheusrules.yaml"),
    )
    .expect("read the CRD");
    write(d, "crds/prometheusrules.yaml", &crd);
    write(
        d,
        "app/kustomization.yaml",
        "resources: [deploy.yaml]\nopenapi:\n  path: openapi.json\n",
    );
    write(d, "app/deploy.yaml", DEPLOY);
    write(
        d,
        ".pre-commit-config.yaml",
        format!(
            "repos:\n- repo: {}\n  rev: {rev}\n  hooks:\n  - id: kbuild-openapi-rust\n    args: [crds, -o, app/openapi.json]\n",
            kbuild_repo.display()
        ),
    );
    repo.kbuild(&["openapi", "from-crds", "crds", "-o", "app/openapi.json"]);
    repo.ok("git", &["init", "-q", "-b", "main"]);
    repo.ok("pre-commit", &["install"]);
    repo.ok("git", &["add", "-A"]);
    let first = repo.ok("git", &["commit", "-q", "-m", "initial"]);
    assert!(
        first.contains("kbuild openapi") && first.contains("Passed"),
        "{first}"
    );

    // The CRD's rules become a list keyed by `alert`: the file is stale.
    write(
        d,
        "crds/prometheusrules.yaml",
        crd.replace(
            "                    rules:\n                      type: array\n",
            "                    rules:\n                      type: array\n                      x-kubernetes-list-type: map\n                      x-kubernetes-list-map-keys:\n                      - alert\n",
        ),
    );
    repo.ok("git", &["add", "crds/prometheusrules.yaml"]);
    let refused = repo.run("git", &["commit", "-q", "-m", "rules by alert"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&refused.stdout),
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(
        !refused.status.success(),
        "the commit went through:\n{text}"
    );
    assert!(text.contains("stale: app/openapi.json"), "{text}");
    assert!(
        text.contains("kbuild openapi from-crds crds -o app/openapi.json"),
        "{text}"
    );

    repo.kbuild(&["openapi", "from-crds", "crds", "-o", "app/openapi.json"]);
    repo.ok("git", &["add", "-A"]);
    let accepted = repo.ok("git", &["commit", "-q", "-m", "rules by alert, schema"]);
    assert!(accepted.contains("Passed"), "{accepted}");
    let log = repo.ok("git", &["log", "--oneline"]);
    assert_eq!(log.lines().count(), 2, "{log}");
}

/// The `language: python` hooks: pre-commit pip-installs this repository, and the build
/// backend hands pip the kbuild wheel found in `$KBUILD_WHEEL_DIR` (pip offline: no index,
/// so neither maturin nor a compiler can be fetched; nothing is compiled).
fn precommit_python_hooks_install_the_wheel_offline(rev: String) {
    let Some(wheels) = std::env::var_os("KBUILD_WHEEL_DIR").map(PathBuf::from) else {
        common::skipped(
            "precommit_python_hooks_install_the_wheel_offline",
            "needs KBUILD_WHEEL_DIR, a directory holding the kbuild wheel (maturin build --release -o DIR)",
        );
        return;
    };
    let wheels = wheels.canonicalize().expect("KBUILD_WHEEL_DIR");
    let kbuild_repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = Repo {
        dir: tmp.path().join("repo"),
        home: tmp.path().join("pre-commit-home"),
        target: tmp.path().join("no-target"),
    };
    let d = &repo.dir;
    write(d, "base/kustomization.yaml", "resources: [deploy.yaml]\n");
    write(d, "base/deploy.yaml", DEPLOY);
    write(
        d,
        "overlays/prod/kustomization.yaml",
        "resources: [../../base]\nnamespace: prod\n",
    );
    write(
        d,
        ".pre-commit-config.yaml",
        format!(
            "repos:\n- repo: {}\n  rev: {rev}\n  hooks:\n  - id: kbuild-check\n  - id: kbuild-render\n    args: [--out, rendered]\n",
            kbuild_repo.display()
        ),
    );
    repo.kbuild(&["render", "--all", "--out", "rendered"]);
    repo.ok("git", &["init", "-q", "-b", "main"]);
    repo.ok("pre-commit", &["install"]);
    repo.ok("git", &["add", "-A"]);
    let offline = |args: &[&str]| {
        Command::new(args[0])
            .args(&args[1..])
            .current_dir(d)
            .env("PRE_COMMIT_HOME", &repo.home)
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", &wheels)
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .env("GIT_AUTHOR_NAME", "test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_WORK_TREE")
            .env_remove("KBUILD_FROM_SOURCE")
            .output()
            .expect("run")
    };
    let text = |o: &Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    // The first commit installs the hook environment: the wheel, offline.
    let first = offline(&["git", "commit", "-q", "-m", "initial"]);
    let log = std::fs::read_to_string(repo.home.join("pre-commit.log")).unwrap_or_default();
    assert!(first.status.success(), "{}\n{log}", text(&first));
    assert!(text(&first).contains("kbuild render"), "{}", text(&first));
    // The hook's kbuild is the wheel's: a console script in pre-commit's environment,
    // and no cargo target directory in pre-commit's clone of kbuild.
    let clones: Vec<PathBuf> = std::fs::read_dir(&repo.home)
        .expect("pre-commit home")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join(".pre-commit-hooks.yaml").is_file())
        .collect();
    assert_eq!(clones.len(), 1, "{clones:?}");
    assert!(!clones[0].join("target").exists(), "kbuild was compiled");
    let envs: Vec<PathBuf> = std::fs::read_dir(&clones[0])
        .expect("clone")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("py_env-"))
        })
        .collect();
    assert_eq!(envs.len(), 1, "{envs:?}");
    assert!(envs[0].join("bin/kbuild").is_file());

    // A stale render is refused by the wheel's kbuild too.
    write(
        d,
        "base/deploy.yaml",
        DEPLOY.replace("replicas: 1", "replicas: 2"),
    );
    repo.ok("git", &["add", "base/deploy.yaml"]);
    let refused = offline(&["git", "commit", "-q", "-m", "more replicas"]);
    assert!(!refused.status.success(), "{}", text(&refused));
    assert!(
        text(&refused).contains("stale: rendered/overlays/prod.yaml"),
        "{}",
        text(&refused)
    );
}
