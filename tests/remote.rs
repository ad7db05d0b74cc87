//! Remote bases and files, against real servers on 127.0.0.1 and real git repositories
//! made here (never the internet): bare repositories with tags, branches and commits,
//! served as `file://` URLs and over http through `git http-backend` (run as a CGI
//! program by a small HTTP server, `remote/server.rs`, which also serves raw files).
//!
//! Each case builds with kbuild and checks its output or error; when the kubectl of a
//! kustomize version is there (v5.5.0: `kubectl` on PATH; v5.8.1: `$KUBECTL_V581` or
//! `../kubectl-1.37/bin/kubectl`), `kubectl kustomize` builds the same tree and must
//! print the same bytes (or fail too); without it that comparison prints SKIPPED (and
//! fails under CI=true). The cache cases put a logging wrapper named `git` first on PATH
//! and check which git commands each build ran.
//!
//! `hostile.rs` tries the entries an attacker would write (options in refs, `ext::`
//! submodules, credentials, huge timeouts, signals mid-clone); `server.rs` is the server.
//!
//! Needs `git` with `git http-backend` (the whole file is ignored without it, failed under
//! CI=true).

use crate::common;
#[path = "remote/hostile.rs"]
mod hostile;
#[path = "remote/origin.rs"]
mod origin;
#[path = "remote/progress.rs"]
mod progress;
#[path = "remote/server.rs"]
pub(crate) mod server;
use common::kubectl;
use server::Server;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const VERSIONS: [&str; 2] = ["v5.5.0", "v5.8.1"];

/// What the prerequisite check found: the real git and its http-backend.
#[derive(Clone)]
pub(crate) struct Git {
    pub(crate) git: PathBuf,
    pub(crate) http_backend: PathBuf,
}

pub(crate) fn find_git() -> Result<Git, String> {
    let out = Command::new("git")
        .arg("--exec-path")
        .output()
        .map_err(|e| format!("needs git on PATH ({e})"))?;
    let exec = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let http_backend = exec.join("git-http-backend");
    if !http_backend.exists() {
        return Err(format!("needs git-http-backend in {}", exec.display()));
    }
    let which = Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .map_err(|e| e.to_string())?;
    Ok(Git {
        git: PathBuf::from(String::from_utf8_lossy(&which.stdout).trim()),
        http_backend,
    })
}

/// This file's tests (run by tests/integration.rs).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    common::needing(
        module_path!(),
        find_git,
        &[
            ("tag_branch_and_sha_refs", tag_branch_and_sha_refs),
            ("subdir_nested_and_component", subdir_nested_and_component),
            ("same_repo_twice_clones_once", same_repo_twice_clones_once),
            (
                "remote_base_with_local_patches",
                remote_base_with_local_patches,
            ),
            ("bad_refs_and_paths", bad_refs_and_paths),
            ("over_http", over_http),
            ("http_files_and_errors", http_files_and_errors),
            (
                "cache_runs_no_fetch_for_a_tag",
                cache_runs_no_fetch_for_a_tag,
            ),
            ("offline_and_cache_commands", offline_and_cache_commands),
            (
                "concurrent_builds_share_the_cache",
                concurrent_builds_share_the_cache,
            ),
            ("unreachable_and_timeout", unreachable_and_timeout),
            ("deps_lists_remote_inputs", deps_lists_remote_inputs),
            (
                "render_affected_by_a_changed_ref",
                render_affected_by_a_changed_ref,
            ),
            ("url_as_the_build_root", url_as_the_build_root),
            ("origin_file_bases", origin::file_bases),
            ("origin_http_bases", origin::http_bases),
            ("origin_remote_root", origin::remote_root),
            ("origin_remote_files", origin::remote_files),
            (
                "progress_spinner_on_a_terminal_only",
                progress::spinner_on_a_terminal_only,
            ),
            ("ref_is_never_an_option", hostile::ref_is_never_an_option),
            ("transports_are_limited", hostile::transports_are_limited),
            ("callers_git_environment", hostile::callers_git_environment),
            (
                "credentials_stay_off_disk",
                hostile::credentials_stay_off_disk,
            ),
            ("huge_timeouts_saturate", hostile::huge_timeouts_saturate),
            (
                "signal_during_clone_leaves_no_checkout",
                hostile::signal_during_clone_leaves_no_checkout,
            ),
            (
                "deps_stays_in_the_checkout",
                hostile::deps_stays_in_the_checkout,
            ),
            (
                "http_redirects_stay_http",
                hostile::http_redirects_stay_http,
            ),
        ],
    )
}

// ---------------------------------------------------------------------------------------
// Repositories

/// A bare repository at `<tmp>/<name>.git` with, on branch main: commit 1 (tag v1, the
/// files `files1`), commit 2 (tag v2, annotated; `files2` added or changed). Returns the
/// bare path and the commit ids.
fn make_repo(
    g: &Git,
    tmp: &Path,
    name: &str,
    files1: &[(&str, &str)],
    files2: &[(&str, &str)],
) -> (PathBuf, String, String) {
    let work = tmp.join(format!("{name}-work"));
    std::fs::create_dir_all(&work).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new(&g.git)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&work)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
        text(&out.stdout).trim().to_string()
    };
    git(&["init", "-q", "-b", "main"]);
    for (rel, body) in files1 {
        common::write(&work, rel, body);
    }
    git(&["add", "-A"]);
    git(&["commit", "-qm", "one"]);
    git(&["tag", "v1"]);
    let c1 = git(&["rev-parse", "HEAD"]);
    for (rel, body) in files2 {
        common::write(&work, rel, body);
    }
    git(&["add", "-A"]);
    git(&["commit", "-q", "--allow-empty", "-m", "two"]);
    git(&["tag", "-a", "v2", "-m", "two"]);
    let c2 = git(&["rev-parse", "HEAD"]);
    let bare = tmp.join(format!("{name}.git"));
    let out = Command::new(&g.git)
        .args(["clone", "-q", "--bare"])
        .arg(&work)
        .arg(&bare)
        .output()
        .unwrap();
    assert!(out.status.success());
    (bare, c1, c2)
}

const CM_BASE: &str = "resources:\n- cm.yaml\n";

fn cm(name: &str, value: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  v: {value}\n")
}

/// The usual repository: `base/` (a ConfigMap `base`, v one then two), `other/` (a
/// ConfigMap `other`), `comp/` (a Component adding a label).
fn app_repo(g: &Git, tmp: &Path) -> (PathBuf, String, String) {
    let cm1 = cm("base", "one");
    let cm2 = cm("base", "two");
    let other = cm("other", "x");
    make_repo(
        g,
        tmp,
        "app",
        &[
            ("base/kustomization.yaml", CM_BASE),
            ("base/cm.yaml", &cm1),
            ("other/kustomization.yaml", CM_BASE),
            ("other/cm.yaml", &other),
            (
                "comp/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n- pairs:\n    from: comp\n",
            ),
            ("README", "a repository for tests\n"),
        ],
        &[("base/cm.yaml", &cm2)],
    )
}

fn file_url(bare: &Path) -> String {
    format!("file://{}", bare.display())
}

// ---------------------------------------------------------------------------------------
// Running kbuild and kubectl

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch area: the tree, the clone cache and a PATH for the runs.
struct Scratch {
    tmp: tempfile::TempDir,
    /// PATH for kbuild: the logging git wrapper first, when installed.
    path: String,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            tmp: tempfile::tempdir().unwrap(),
            path: std::env::var("PATH").unwrap_or_default(),
        }
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap()
    }

    fn cache(&self) -> PathBuf {
        self.dir().join("cache")
    }

    /// Puts a `git` first on PATH that logs its arguments to `git.log` and runs `real`.
    fn log_git(&mut self, real: &Path) {
        let bin = self.dir().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let log = self.dir().join("git.log");
        let script = format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        );
        let wrapper = bin.join("git");
        std::fs::write(&wrapper, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        self.path = format!("{}:{}", bin.display(), self.path);
    }

    /// The git commands run since the last call (first words: `fetch`, `ls-remote`…).
    fn take_git_log(&self) -> Vec<String> {
        let log = self.dir().join("git.log");
        let t = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        t.lines()
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    }

    fn kbuild(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// The kbuild command line `args`, with this scratch's PATH and cache home.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kbuild"));
        cmd.args(args)
            .env("PATH", &self.path)
            .env("XDG_CACHE_HOME", self.dir().join("xdg"))
            .env_remove("KBUILD_KUSTOMIZE_VERSION")
            .stdin(Stdio::null());
        cmd
    }

    /// kbuild build DIR with this scratch's cache (and `extra` flags), for `version`.
    fn build(&self, dir: &Path, version: &str, extra: &[&str]) -> Output {
        let cache = self.cache();
        let mut args = vec![
            "build",
            dir.to_str().unwrap(),
            "--kustomize-version",
            version,
            "--remote-cache-dir",
            cache.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        self.kbuild(&args)
    }
}

/// Builds `dir` with kbuild for both versions and checks it succeeds with `expected`
/// (the same for both), and that kubectl kustomize prints the same.
fn same_as_kustomize(s: &Scratch, dir: &Path, expected: &str) {
    for version in VERSIONS {
        let out = s.build(dir, version, &[]);
        assert!(
            out.status.success(),
            "{version}: kbuild failed: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), expected, "{version}: kbuild's output");
        match kubectl(version) {
            Some(k) => {
                let kout = Command::new(k).arg("kustomize").arg(dir).output().unwrap();
                assert!(
                    kout.status.success(),
                    "{version}: kubectl failed: {}",
                    text(&kout.stderr)
                );
                assert_eq!(text(&kout.stdout), expected, "{version}: kubectl's output");
            }
            None => common::skipped(
                &format!("comparing with kustomize {version} on {}", dir.display()),
                "no kubectl of that version",
            ),
        }
    }
}

/// Builds `dir` with kbuild and checks it fails with nothing on stdout and an error
/// holding every one of `needles`; kubectl kustomize must fail too.
fn fails_like_kustomize(s: &Scratch, dir: &Path, needles: &[&str]) -> String {
    let mut last = String::new();
    for version in VERSIONS {
        let out = s.build(dir, version, &[]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{version}: kbuild succeeded");
        assert!(out.stdout.is_empty(), "{version}: output on failure");
        for n in needles {
            assert!(
                err.contains(n),
                "{version}: {n:?} not in kbuild's error:\n{err}"
            );
        }
        match kubectl(version) {
            Some(k) => {
                let kout = Command::new(k).arg("kustomize").arg(dir).output().unwrap();
                assert!(!kout.status.success(), "{version}: kubectl succeeded");
            }
            None => common::skipped(
                &format!("comparing with kustomize {version} on {}", dir.display()),
                "no kubectl of that version",
            ),
        }
        last = err;
    }
    last
}

fn overlay(s: &Scratch, name: &str, kustomization: &str) -> PathBuf {
    let dir = s.dir().join(name);
    common::write(&dir, "kustomization.yaml", kustomization);
    dir
}

fn cm_out(name: &str, value: &str, extra_meta: &str) -> String {
    format!(
        "apiVersion: v1\ndata:\n  v: {value}\nkind: ConfigMap\nmetadata:\n{extra_meta}  name: {name}\n"
    )
}

// ---------------------------------------------------------------------------------------
// Cases

fn tag_branch_and_sha_refs(g: Git) {
    let s = Scratch::new();
    let (bare, c1, _) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    for (case, r, value) in [
        ("tag", "v1", "one"),
        ("annotated-tag", "v2", "two"),
        ("branch", "main", "two"),
        ("sha", c1.as_str(), "one"),
    ] {
        let dir = overlay(&s, case, &format!("resources:\n- {url}//base?ref={r}\n"));
        same_as_kustomize(&s, &dir, &cm_out("base", value, ""));
    }
    // `version=` as kustomize reads it, and no ref at all (the remote's HEAD).
    let dir = overlay(
        &s,
        "version",
        &format!("resources:\n- {url}//base?version=v1\n"),
    );
    same_as_kustomize(&s, &dir, &cm_out("base", "one", ""));
    let dir = overlay(&s, "head", &format!("resources:\n- {url}//base\n"));
    same_as_kustomize(&s, &dir, &cm_out("base", "two", ""));
}

fn subdir_nested_and_component(g: Git) {
    let s = Scratch::new();
    let (app, _, _) = app_repo(&g, &s.dir());
    // A second repository whose base uses the first one's base, remotely.
    let nested = format!(
        "resources:\n- {}//base?ref=v1\nnamePrefix: nested-\n",
        file_url(&app)
    );
    let (outer, _, _) = make_repo(
        &g,
        &s.dir(),
        "outer",
        &[("deploy/prod/kustomization.yaml", &nested)],
        &[("NOTES", "2\n")],
    );
    let dir = overlay(
        &s,
        "nested",
        &format!(
            "resources:\n- {}//deploy/prod?ref=v1\ncomponents:\n- {}//comp?ref=v1\n",
            file_url(&outer),
            file_url(&app)
        ),
    );
    same_as_kustomize(
        &s,
        &dir,
        &cm_out("nested-base", "one", "  labels:\n    from: comp\n"),
    );
}

fn same_repo_twice_clones_once(g: Git) {
    let mut s = Scratch::new();
    s.log_git(&g.git);
    let (bare, _, _) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    let mut k = format!("resources:\n- {url}//base?ref=v1\n- {url}//other?ref=v1\n");
    // Ten references to one repository at one ref: one clone.
    for i in 0..8 {
        common::write(
            &s.dir(),
            &format!("layer{i}/kustomization.yaml"),
            format!("resources:\n- {url}//other?ref=v1\nnameSuffix: \"-{i}\"\n"),
        );
        k.push_str(&format!("- ../layer{i}\n"));
    }
    let dir = overlay(&s, "twice", &k);
    let out = s.build(&dir, "v5.8.1", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let log = s.take_git_log();
    let fetches = log.iter().filter(|c| *c == "fetch").count();
    assert_eq!(fetches, 1, "git commands: {log:?}");
    let mut expected = cm_out("base", "one", "");
    for i in 0..8 {
        expected.push_str("---\n");
        expected.push_str(&cm_out(&format!("other-{i}"), "x", ""));
    }
    expected.push_str("---\n");
    expected.push_str(&cm_out("other", "x", ""));
    // kustomize sorts by kind then name: compare with it instead of guessing the order.
    same_as_kustomize(&s, &dir, &sorted_like(&dir, &s, &expected));
}

/// kbuild's own output for `dir` when it holds the same documents as `expected` (the
/// order is kustomize's, which the kubectl comparison checks).
fn sorted_like(dir: &Path, s: &Scratch, expected: &str) -> String {
    let out = text(&s.build(dir, "v5.8.1", &[]).stdout);
    let mut a: Vec<&str> = out.split("---\n").collect();
    let mut b: Vec<&str> = expected.split("---\n").collect();
    a.sort();
    b.sort();
    assert_eq!(a, b, "kbuild's documents");
    out
}

fn remote_base_with_local_patches(g: Git) {
    let s = Scratch::new();
    let (bare, _, _) = app_repo(&g, &s.dir());
    let dir = overlay(
        &s,
        "patched",
        &format!(
            "resources:\n- {}//base?ref=v1\npatches:\n- path: patch.yaml\nconfigMapGenerator:\n- name: gen\n  literals: [a=b]\n",
            file_url(&bare)
        ),
    );
    common::write(
        &dir,
        "patch.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\ndata:\n  v: patched\n",
    );
    let expected = format!(
        "{}---\napiVersion: v1\ndata:\n  a: b\nkind: ConfigMap\nmetadata:\n  name: gen-4h2mbtbbt6\n",
        cm_out("base", "patched", "")
    );
    same_as_kustomize(&s, &dir, &sorted_like(&dir, &s, &expected));
}

fn bad_refs_and_paths(g: Git) {
    let s = Scratch::new();
    let (bare, _, _) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    // A ref the repository does not have: git's message, the entry and the URL.
    let dir = overlay(
        &s,
        "missing-ref",
        &format!("resources:\n- {url}//base?ref=nope\n"),
    );
    fails_like_kustomize(
        &s,
        &dir,
        &[&format!("{url}//base?ref=nope"), "nope", "fetch"],
    );
    // A path that leaves the repository: not a repository URL at all (kustomize), so a
    // missing local path.
    let dir = overlay(&s, "escape", &format!("resources:\n- {url}//../x?ref=v1\n"));
    fails_like_kustomize(&s, &dir, &["../x"]);
    // A path that is not in the repository, and one without a kustomization.
    let dir = overlay(
        &s,
        "no-path",
        &format!("resources:\n- {url}//nothing?ref=v1\n"),
    );
    fails_like_kustomize(&s, &dir, &["nothing", &url]);
    let (empty, _, _) = make_repo(&g, &s.dir(), "plain", &[("dir/x.txt", "x\n")], &[]);
    let dir = overlay(
        &s,
        "no-kustomization",
        &format!("resources:\n- {}//dir?ref=v1\n", file_url(&empty)),
    );
    fails_like_kustomize(&s, &dir, &["no kustomization file", "dir"]);
    // A symlink in the repository that points out of it.
    let (sym, _, _) = make_repo(&g, &s.dir(), "sym", &[("README", "x\n")], &[]);
    let work = s.dir().join("sym-work");
    std::os::unix::fs::symlink(s.dir().join("missing-ref"), work.join("out")).unwrap();
    let git = |args: &[&str]| {
        let o = Command::new(&g.git)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&work)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    git(&["add", "out"]);
    git(&["commit", "-qm", "link"]);
    git(&["push", "-q", sym.to_str().unwrap(), "main"]);
    let dir = overlay(
        &s,
        "symlink-out",
        &format!("resources:\n- {}//out?ref=main\n", file_url(&sym)),
    );
    fails_like_kustomize(&s, &dir, &["outside the repository"]);
    // A remote base may not reach out of its checkout with a local path.
    let (reach, _, _) = make_repo(
        &g,
        &s.dir(),
        "reach",
        &[(
            "a/kustomization.yaml",
            "resources:\n- ../../../../../../../../../etc\n",
        )],
        &[],
    );
    let dir = overlay(
        &s,
        "reach-out",
        &format!("resources:\n- {}//a?ref=v1\n", file_url(&reach)),
    );
    fails_like_kustomize(&s, &dir, &["etc"]);
    // A repository whose base includes itself at the same tag: a cycle.
    let selfref = s.dir().join("selfref.git");
    let (_, _, _) = make_repo(
        &g,
        &s.dir(),
        "selfref",
        &[(
            "a/kustomization.yaml",
            &format!("resources:\n- {}//a?ref=v1\n", file_url(&selfref)),
        )],
        &[],
    );
    let dir = overlay(
        &s,
        "self-cycle",
        &format!("resources:\n- {}//a?ref=v1\n", file_url(&selfref)),
    );
    fails_like_kustomize(&s, &dir, &["cycle"]);
    // Inside a checkout the load restrictor is RootOnly whatever the flag says.
    let (reader, _, _) = make_repo(
        &g,
        &s.dir(),
        "reader",
        &[(
            "a/kustomization.yaml",
            "configMapGenerator:\n- name: x\n  files: [../../../../../../../../../../etc/hostname]\n",
        )],
        &[],
    );
    let dir = overlay(
        &s,
        "restricted",
        &format!("resources:\n- {}//a?ref=v1\n", file_url(&reader)),
    );
    let out = s.build(
        &dir,
        "v5.8.1",
        &["--load-restrictor", "LoadRestrictionsNone"],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("security"),
        "{}",
        text(&out.stderr)
    );
}

// ---------------------------------------------------------------------------------------
// HTTP

fn over_http(g: Git) {
    let s = Scratch::new();
    let (bare, _, _) = app_repo(&g, &s.dir());
    let server = Server::start(&g, s.dir(), s.dir().join("files"));
    let name = bare.file_name().unwrap().to_str().unwrap();
    let dir = overlay(
        &s,
        "http",
        &format!(
            "resources:\n- {}//base?ref=v1\n- {}//other?ref=main\n",
            server.url(&format!("/git/{name}")),
            server.url(&format!("/git/{name}"))
        ),
    );
    same_as_kustomize(
        &s,
        &dir,
        &format!(
            "{}---\n{}",
            cm_out("base", "one", ""),
            cm_out("other", "x", "")
        ),
    );
}

fn http_files_and_errors(g: Git) {
    let s = Scratch::new();
    let files = s.dir().join("files");
    common::write(&files, "cm.yaml", cm("fetched", "web"));
    common::write(&files, "props.txt", "greeting=hello\n");
    common::write(&files, "html", "<html><body>: no: [yaml\n");
    let server = Server::start(&g, s.dir(), files);
    // A resource and a generator's file over http.
    let dir = overlay(
        &s,
        "files",
        &format!(
            "resources:\n- {}\nconfigMapGenerator:\n- name: gen\n  envs:\n  - {}\n",
            server.url("/files/cm.yaml"),
            server.url("/files/props.txt")
        ),
    );
    let out = text(&s.build(&dir, "v5.8.1", &[]).stdout);
    assert!(
        out.contains("name: fetched") && out.contains("greeting: hello"),
        "{out}"
    );
    same_as_kustomize(&s, &dir, &out);
    // A 404 for a URL that cannot be a repository: the status, the entry.
    let missing = server.url("/files/missing.yaml");
    let dir = overlay(&s, "404", &format!("resources:\n- {missing}\n"));
    let err = fails_like_kustomize(&s, &dir, &[&missing, "404"]);
    assert!(err.starts_with("Error: remote entry"), "{err}");
    // A body that is not YAML.
    let html = server.url("/files/html");
    let dir = overlay(&s, "not-yaml", &format!("resources:\n- {html}\n"));
    fails_like_kustomize(&s, &dir, &[&html]);
    // A generator file that is a 404.
    let dir = overlay(
        &s,
        "gen-404",
        &format!("configMapGenerator:\n- name: g\n  files:\n  - {missing}\n"),
    );
    fails_like_kustomize(&s, &dir, &[&missing, "404"]);
}

// ---------------------------------------------------------------------------------------
// The cache

fn cache_runs_no_fetch_for_a_tag(g: Git) {
    let mut s = Scratch::new();
    s.log_git(&g.git);
    let (bare, c1, _) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    let tag = overlay(&s, "tag", &format!("resources:\n- {url}//base?ref=v1\n"));
    let build = |dir: &Path| {
        let out = s.build(dir, "v5.8.1", &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let first = build(&tag);
    let cold = s.take_git_log();
    assert!(cold.contains(&"fetch".to_string()), "{cold:?}");
    let second = build(&tag);
    assert_eq!(first, second);
    assert_eq!(
        s.take_git_log(),
        Vec::<String>::new(),
        "a warm tag runs no git"
    );
    // A full commit id: no git either once cached (the tag's checkout is the same commit).
    let sha = overlay(&s, "sha", &format!("resources:\n- {url}//base?ref={c1}\n"));
    assert_eq!(build(&sha), first);
    assert_eq!(s.take_git_log(), Vec::<String>::new());
    // A branch: one ls-remote, and a fetch only when it moved to a commit not cached.
    let branch = overlay(
        &s,
        "branch",
        &format!("resources:\n- {url}//base?ref=main\n"),
    );
    build(&branch);
    assert!(s.take_git_log().contains(&"fetch".to_string()));
    build(&branch);
    assert_eq!(s.take_git_log(), ["ls-remote"]);
    // Ten references in one build: one ls-remote.
    let mut k = String::from("resources:\n");
    for i in 0..10 {
        common::write(
            &s.dir(),
            &format!("ten/l{i}/kustomization.yaml"),
            format!("resources:\n- {url}//base?ref=main\nnameSuffix: \"-{i}\"\n"),
        );
        k.push_str(&format!("- l{i}\n"));
    }
    common::write(&s.dir(), "ten/kustomization.yaml", &k);
    build(&s.dir().join("ten"));
    assert_eq!(s.take_git_log(), ["ls-remote"]);
}

fn offline_and_cache_commands(g: Git) {
    let mut s = Scratch::new();
    s.log_git(&g.git);
    let (bare, _, _) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    let dir = overlay(&s, "o", &format!("resources:\n- {url}//base?ref=v1\n"));
    // A miss: a clear error, nothing fetched.
    let out = s.build(&dir, "v5.8.1", &["--offline"]);
    let err = text(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(err.contains("--offline") && err.contains(&url), "{err}");
    assert_eq!(s.take_git_log(), Vec::<String>::new());
    // Filled, then offline works, a branch from its last resolution too.
    let branch = overlay(&s, "ob", &format!("resources:\n- {url}//base?ref=main\n"));
    assert!(s.build(&dir, "v5.8.1", &[]).status.success());
    assert!(s.build(&branch, "v5.8.1", &[]).status.success());
    s.take_git_log();
    let out = s.build(&dir, "v5.8.1", &["--offline"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = s.build(&branch, "v5.8.1", &["--offline"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(s.take_git_log(), Vec::<String>::new());
    // cache list, then clean.
    let cache = s.cache();
    let list = s.kbuild(&[
        "cache",
        "list",
        "--remote-cache-dir",
        cache.to_str().unwrap(),
    ]);
    let listed = text(&list.stdout);
    assert!(list.status.success());
    assert!(
        listed.contains(&url) && listed.contains("v1 (tag)"),
        "{listed}"
    );
    assert!(listed.contains("main"), "{listed}");
    let clean = s.kbuild(&[
        "cache",
        "clean",
        "--remote-cache-dir",
        cache.to_str().unwrap(),
    ]);
    assert!(clean.status.success(), "{}", text(&clean.stderr));
    assert_eq!(
        text(&clean.stdout),
        format!("removed 2 checkouts from {}\n", cache.display())
    );
    let list = s.kbuild(&[
        "cache",
        "list",
        "--remote-cache-dir",
        cache.to_str().unwrap(),
    ]);
    assert_eq!(text(&list.stdout), "");
    assert!(!s.build(&dir, "v5.8.1", &["--offline"]).status.success());
}

fn concurrent_builds_share_the_cache(g: Git) {
    let mut s = Scratch::new();
    s.log_git(&g.git);
    let (bare, _, _) = app_repo(&g, &s.dir());
    let dir = overlay(
        &s,
        "c",
        &format!("resources:\n- {}//base?ref=v1\n", file_url(&bare)),
    );
    let cache = s.cache();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_kbuild"))
            .arg(&dir)
            .arg("--remote-cache-dir")
            .arg(&cache)
            .env("PATH", &s.path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children: Vec<_> = (0..4).map(|_| spawn()).collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for o in &outs {
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(o.stdout, outs[0].stdout);
    }
    let fetches = s.take_git_log().iter().filter(|c| *c == "fetch").count();
    assert_eq!(
        fetches, 1,
        "the lock lets one build fetch, the others find its checkout"
    );
    // No temporary directory left behind.
    let repos: Vec<_> = walk_names(&cache.join("repos"));
    assert!(!repos.iter().any(|n| n.starts_with(".tmp-")), "{repos:?}");
}

fn walk_names(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for repo in std::fs::read_dir(dir).unwrap().flatten() {
        for e in std::fs::read_dir(repo.path()).unwrap().flatten() {
            out.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    out
}

fn unreachable_and_timeout(g: Git) {
    let s = Scratch::new();
    let server = Server::start(&g, s.dir(), s.dir().join("files"));
    // Nothing listens on the port of a listener just closed.
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let entry = format!("http://127.0.0.1:{port}/org/repo//base?ref=v1");
    let dir = overlay(&s, "unreachable", &format!("resources:\n- {entry}\n"));
    fails_like_kustomize(&s, &dir, &[&entry, "git", "127.0.0.1"]);
    // A server that never answers: the entry's timeout ends git.
    let hang = format!("{}//base?ref=v1&timeout=1", server.url("/hang"));
    let dir = overlay(&s, "timeout", &format!("resources:\n- {hang}\n"));
    let started = std::time::Instant::now();
    let out = s.build(&dir, "v5.8.1", &[]);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("timed out after 1s") || err.contains("http request failed"),
        "{err}"
    );
    assert!(started.elapsed().as_secs() < 45, "{:?}", started.elapsed());
    // Credentials in a URL are not printed.
    let secret = format!("http://me:hunter2@127.0.0.1:{port}/org/repo//base?ref=v1");
    let dir = overlay(&s, "secret", &format!("resources:\n- {secret}\n"));
    let out = s.build(&dir, "v5.8.1", &[]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(!err.contains("hunter2") && err.contains("me:***@"), "{err}");
}

fn deps_lists_remote_inputs(g: Git) {
    let s = Scratch::new();
    let (bare, c1, c2) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    let dir = overlay(
        &s,
        "deps",
        &format!("resources:\n- {url}//base?ref=v1\n- {url}//other?ref=main\n- local.yaml\n"),
    );
    common::write(&dir, "local.yaml", cm("local", "l"));
    let cache = s.cache();
    let out = s.kbuild(&[
        "deps",
        dir.to_str().unwrap(),
        "--remote-cache-dir",
        cache.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let expected = format!(
        "{d}/kustomization.yaml\n{d}/local.yaml\n{url}//base?ref=v1 {c1}\n{url}//other?ref=main {c2}\n",
        d = dir.display()
    );
    assert_eq!(text(&out.stdout), expected);
}

fn render_affected_by_a_changed_ref(g: Git) {
    let s = Scratch::new();
    let (bare, _, _) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    let root = s.dir().join("tree");
    common::write(
        &root,
        "remote/kustomization.yaml",
        format!("resources:\n- {url}//base?ref=v1\n"),
    );
    common::write(&root, "local/kustomization.yaml", "resources:\n- cm.yaml\n");
    common::write(&root, "local/cm.yaml", cm("local", "l"));
    // The ref changes: the kustomization holding it is affected, the other one is not.
    common::write(
        &root,
        "remote/kustomization.yaml",
        format!("resources:\n- {url}//base?ref=v2\n"),
    );
    let cache = s.cache();
    let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args([
            "render",
            "--affected",
            "remote/kustomization.yaml",
            "--out",
            "rendered",
        ])
        .arg("--remote-cache-dir")
        .arg(&cache)
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rendered = std::fs::read_to_string(root.join("rendered/remote.yaml")).unwrap();
    assert_eq!(rendered, cm_out("base", "two", ""));
    assert!(!root.join("rendered/local.yaml").exists());
}

/// `kbuild build URL` (kustomize's own help example), and the same URL as the root of
/// `diff` and `deps`, through the clone cache (`--offline` then needs no git at all).
fn url_as_the_build_root(g: Git) {
    let s = Scratch::new();
    let (bare, c1, _) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    let v1 = format!("{url}//base?ref=v1");
    same_as_kustomize(&s, Path::new(&v1), &cm_out("base", "one", ""));
    same_as_kustomize(
        &s,
        Path::new(&format!("{url}//base?ref=main")),
        &cm_out("base", "two", ""),
    );
    let cache = s.cache();
    let cache = cache.to_str().unwrap();
    let offline = s.kbuild(&["build", &v1, "--offline", "--remote-cache-dir", cache]);
    assert!(offline.status.success(), "{}", text(&offline.stderr));
    assert_eq!(text(&offline.stdout), cm_out("base", "one", ""));
    let deps = s.kbuild(&["deps", &v1, "--remote-cache-dir", cache]);
    assert!(deps.status.success(), "{}", text(&deps.stderr));
    assert!(
        text(&deps.stdout).contains(&format!("{v1} {c1}")),
        "{}",
        text(&deps.stdout)
    );
    let main = format!("{url}//base?ref=main");
    let diff = s.kbuild(&["diff", &v1, &main, "--remote-cache-dir", cache]);
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff.stderr));
    assert!(
        text(&diff.stdout).contains("1 changed"),
        "{}",
        text(&diff.stdout)
    );
    // A URL whose repository does not exist fails as a remote entry, not as a directory.
    let missing = format!("{url}-missing//base");
    let out = s.kbuild(&["build", &missing, "--remote-cache-dir", cache]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("remote entry"),
        "{}",
        text(&out.stderr)
    );
}
