//! `kbuild localize` against real git repositories made here, served as `file://` URLs
//! and over http by `git http-backend` on 127.0.0.1 (`remote/server.rs`, shared with
//! the remote tests), never the internet.
//!
//! Each case checks the destination's layout against kustomize v5.8.1's naming (its
//! `api/krusty/localizer/runner_test.go` and `api/internal/localizer/localizer_test.go`:
//! `localized-<target>`, `localized-files/<host>/<repo>/<ref>/<path>`), that the copy
//! holds no remote reference, and that it builds, with kbuild offline and with both
//! kubectls (v5.5.0: `kubectl` on PATH; v5.8.1: `../kubectl-1.37/bin/kubectl`), to exactly
//! what the original builds to. kubectl has no `localize` of its own (`kubectl kustomize
//! localize` takes the word as a directory), so kustomize's layout is compared through
//! its tests' expectations, and its behaviour through the builds.
//!
//! Needs `git` with `git http-backend` (the whole file is ignored without it, failed under
//! CI=true).

use crate::common;
use crate::remote::server::Server;
use common::kubectl;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const VERSIONS: [&str; 2] = ["v5.5.0", "v5.8.1"];

// The real git and its http-backend, found as the remote tests find them.
use crate::remote::{Git, find_git};

/// This file's tests (run by tests/integration.rs).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    common::needing(
        module_path!(),
        find_git,
        &[
            (
                "local_remote_and_nested_bases",
                local_remote_and_nested_bases,
            ),
            ("url_target_default_dest", url_target_default_dest),
            ("no_verify_skips_the_build", no_verify_skips_the_build),
            (
                "verification_failure_writes_nothing",
                verification_failure_writes_nothing,
            ),
            ("refusals", refusals),
            (
                "plugin_configs_and_chart_home",
                plugin_configs_and_chart_home,
            ),
        ],
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A bare repository `<tmp>/git/<name>.git` with `files` in one commit, tagged v1, on
/// branch main.
fn make_repo(g: &Git, tmp: &Path, name: &str, files: &[(&str, &str)]) -> PathBuf {
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
    };
    git(&["init", "-q", "-b", "main"]);
    for (rel, body) in files {
        common::write(&work, rel, body);
    }
    git(&["add", "-A"]);
    git(&["commit", "-qm", "one"]);
    git(&["tag", "v1"]);
    let bare = tmp.join("git").join(format!("{name}.git"));
    let out = Command::new(&g.git)
        .args(["clone", "-q", "--bare"])
        .arg(&work)
        .arg(&bare)
        .output()
        .unwrap();
    assert!(out.status.success());
    bare
}

fn cm(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  v: one\n")
}

/// A scratch directory (real path) with its own clone cache.
struct Scratch {
    tmp: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap()
    }

    /// kbuild `args` run in the scratch directory, with its cache.
    fn kbuild(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_kbuild"))
            .args(args)
            .current_dir(self.dir())
            .env("XDG_CACHE_HOME", self.dir().join("xdg"))
            .env_remove("KBUILD_KUSTOMIZE_VERSION")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn localize(&self, args: &[&str]) -> Output {
        let mut all = vec!["localize"];
        all.extend_from_slice(args);
        self.kbuild(&all)
    }

    /// kbuild's build of `dir` (`extra` flags), which must succeed.
    fn build(&self, dir: &str, extra: &[&str]) -> String {
        let mut args = vec!["build", dir];
        args.extend_from_slice(extra);
        let out = self.kbuild(&args);
        assert!(out.status.success(), "build {dir}: {}", text(&out.stderr));
        text(&out.stdout)
    }

    /// Entries left in the scratch directory, for "nothing was written".
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "xdg")
            .collect();
        v.sort();
        v
    }
}

/// Every file below `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap().display().to_string())
        .collect();
    v.sort();
    v
}

/// The localized copy `localized` builds (kbuild offline with an empty cache: it needs
/// no network; both kubectls) to `expected`, which kubectl prints for `original` too.
fn builds_the_same(s: &Scratch, original: &Path, localized: &Path, expected: &str) {
    let empty = s.dir().join("empty-cache");
    let got = s.build(
        localized.to_str().unwrap(),
        &["--offline", "--remote-cache-dir", empty.to_str().unwrap()],
    );
    assert_eq!(got, expected, "kbuild's build of the localized copy");
    for version in VERSIONS {
        let Some(k) = kubectl(version) else {
            common::skipped(
                &format!("comparing with kustomize {version}"),
                "no kubectl of that version",
            );
            continue;
        };
        for dir in [original, localized] {
            let out = Command::new(&k).arg("kustomize").arg(dir).output().unwrap();
            assert!(
                out.status.success(),
                "{version} {}: {}",
                dir.display(),
                text(&out.stderr)
            );
            assert_eq!(text(&out.stdout), expected, "{version}: {}", dir.display());
        }
    }
}

/// No kustomization or copied file names a URL any more.
fn no_remote_reference(dir: &Path) {
    for f in tree(dir) {
        let body = std::fs::read_to_string(dir.join(&f)).unwrap_or_default();
        for scheme in ["file://", "http://", "https://"] {
            assert!(!body.contains(scheme), "{f} still names {scheme}:\n{body}");
        }
    }
}

fn local_remote_and_nested_bases(g: Git) {
    let s = Scratch::new();
    let d = s.dir();
    let lib = make_repo(
        &g,
        &d,
        "lib",
        &[
            ("base/kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("base/cm.yaml", &cm("lib")),
        ],
    );
    let lib_url = format!("file://{}//base?ref=v1", lib.display());
    let nested = format!("resources:\n- {lib_url}\n- cm.yaml\n");
    make_repo(
        &g,
        &d,
        "app",
        &[
            ("base/kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("base/cm.yaml", &cm("app")),
            ("nested/kustomization.yaml", &nested),
            ("nested/cm.yaml", &cm("nested")),
            (
                "comp/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n- pairs:\n    from: comp\n",
            ),
        ],
    );
    let files = d.join("www");
    common::write(&files, "extra.yaml", cm("extra"));
    common::write(
        &files,
        "patch.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  patched: \"yes\"\n",
    );
    let server = Server::start(&g, d.join("git"), files);
    let app_file = format!("file://{}/git/app.git", d.display());
    let app_http = server.url("/git/app.git");
    let overlay = format!(
        "# Production overlay: this comment stays\n\
         resources:\n\
         - ../../base            # a local base in the scope\n\
         - {app_file}//base?ref=v1   # over a file URL\n\
         - {app_http}//nested?ref=main\n\
         - {extra}\n\
         - cm.yaml\n\
         components:\n\
         - {app_file}//comp?ref=v1\n\
         namePrefix: prod-\n\
         patches:\n\
         - path: {patch}\n\
         - path: patches/label.yaml\n\
         configMapGenerator:\n\
         - name: settings\n\
         \x20 envs:\n\
         \x20 - settings.env\n\
         \x20 files:\n\
         \x20 - motd=files/motd.txt\n",
        extra = server.url("/files/extra.yaml"),
        patch = server.url("/files/patch.yaml"),
    );
    let scope = d.join("scope");
    let prod = scope.join("overlays/prod");
    common::write(&prod, "kustomization.yaml", &overlay);
    common::write(&prod, "cm.yaml", cm("prod"));
    common::write(&prod, "settings.env", "A=1\n");
    common::write(&prod, "files/motd.txt", "hello\n");
    common::write(&prod, "notes.txt", "not referenced: not copied\n");
    common::write(
        &prod,
        "patches/label.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prod\n  labels:\n    tier: web\n",
    );
    common::write(
        &scope.join("base"),
        "kustomization.yaml",
        "resources:\n- cm.yaml\n",
    );
    common::write(&scope.join("base"), "cm.yaml", cm("shared"));

    let expected = s.build("scope/overlays/prod", &[]);
    let out = s.localize(&["scope/overlays/prod", "--scope", "scope"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("VERIFICATION SUCCESS"),
        "{}",
        text(&out.stderr)
    );
    let dest = d.join("localized-prod");
    let git_dir = d.join("git");
    let git_dir = git_dir.strip_prefix("/").unwrap().display();
    let expected_tree = vec![
        "base/cm.yaml".to_string(),
        "base/kustomization.yaml".to_string(),
        "overlays/prod/cm.yaml".to_string(),
        "overlays/prod/files/motd.txt".to_string(),
        "overlays/prod/kustomization.yaml".to_string(),
        "overlays/prod/localized-files/127.0.0.1/files/extra.yaml".to_string(),
        "overlays/prod/localized-files/127.0.0.1/files/patch.yaml".to_string(),
        "overlays/prod/localized-files/127.0.0.1/git/app/main/nested/cm.yaml".to_string(),
        "overlays/prod/localized-files/127.0.0.1/git/app/main/nested/kustomization.yaml"
            .to_string(),
        format!(
            "overlays/prod/localized-files/127.0.0.1/git/app/main/nested/localized-files/file-schemed/{git_dir}/lib/v1/base/cm.yaml"
        ),
        format!(
            "overlays/prod/localized-files/127.0.0.1/git/app/main/nested/localized-files/file-schemed/{git_dir}/lib/v1/base/kustomization.yaml"
        ),
        format!("overlays/prod/localized-files/file-schemed/{git_dir}/app/v1/base/cm.yaml"),
        format!(
            "overlays/prod/localized-files/file-schemed/{git_dir}/app/v1/base/kustomization.yaml"
        ),
        format!(
            "overlays/prod/localized-files/file-schemed/{git_dir}/app/v1/comp/kustomization.yaml"
        ),
        "overlays/prod/patches/label.yaml".to_string(),
        "overlays/prod/settings.env".to_string(),
    ];
    assert_eq!(tree(&dest), expected_tree);
    no_remote_reference(&dest);
    let k = std::fs::read_to_string(dest.join("overlays/prod/kustomization.yaml")).unwrap();
    // Only the remote references changed: comments and the other lines stay.
    assert_eq!(
        k,
        overlay
            .replace(
                &format!("{app_file}//base?ref=v1"),
                &format!("localized-files/file-schemed/{git_dir}/app/v1/base")
            )
            .replace(
                &format!("{app_file}//comp?ref=v1"),
                &format!("localized-files/file-schemed/{git_dir}/app/v1/comp")
            )
            .replace(
                &format!("{app_http}//nested?ref=main"),
                "localized-files/127.0.0.1/git/app/main/nested"
            )
            .replace(&server.url("/files/"), "localized-files/127.0.0.1/files/")
    );
    builds_the_same(&s, &prod, &dest.join("overlays/prod"), &expected);
}

fn url_target_default_dest(g: Git) {
    let s = Scratch::new();
    let d = s.dir();
    make_repo(
        &g,
        &d,
        "app",
        &[
            (
                "deploy/base/kustomization.yaml",
                "namePrefix: x-\nresources:\n- cm.yaml\n",
            ),
            ("deploy/base/cm.yaml", &cm("app")),
            ("kustomization.yaml", "resources:\n- deploy/base\n"),
        ],
    );
    let url = format!("file://{}/git/app.git", d.display());
    // kustomize's TestRemoteTargetDefaultDst: localized-<dir>-<ref, '/' as '-'>, the
    // target at its path in the repository.
    let target = format!("{url}//deploy/base?ref=v1");
    let out = s.localize(&[&target]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dest = d.join("localized-base-v1");
    assert_eq!(
        tree(&dest),
        ["deploy/base/cm.yaml", "deploy/base/kustomization.yaml"]
    );
    let expected = s.build(&target, &[]);
    builds_the_same(
        &s,
        &dest.join("deploy/base"),
        &dest.join("deploy/base"),
        &expected,
    );
    // The repository's root: named after the repository.
    let root = format!("{url}?ref=v1");
    let out = s.localize(&[&root]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        tree(&d.join("localized-app.git-v1")),
        [
            "deploy/base/cm.yaml",
            "deploy/base/kustomization.yaml",
            "kustomization.yaml"
        ]
    );
}

fn no_verify_skips_the_build(_g: Git) {
    let s = Scratch::new();
    // kustomize builds this to an error (nothing to merge the generator into); localize
    // copies it all the same, and only the verification build fails.
    common::write(
        &s.dir().join("app"),
        "kustomization.yaml",
        "configMapGenerator:\n- name: missing\n  behavior: merge\n  literals:\n  - a=b\n",
    );
    let out = s.localize(&["app"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("behavior merge"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(s.names(), ["app"], "a failed verification leaves nothing");
    let out = s.localize(&["app", "--no-verify"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("VERIFICATION"));
    assert_eq!(tree(&s.dir().join("localized-app")), ["kustomization.yaml"]);
}

fn verification_failure_writes_nothing(g: Git) {
    let s = Scratch::new();
    let d = s.dir();
    make_repo(
        &g,
        &d,
        "app",
        &[
            ("base/kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("base/cm.yaml", &cm("app")),
        ],
    );
    // The origin annotation names the repository and ref of a remote resource, and the
    // local path of its copy: the builds differ, as they would for kustomize.
    let k = format!(
        "buildMetadata: [originAnnotations]\nresources:\n- file://{}/git/app.git//base?ref=v1\n",
        d.display()
    );
    common::write(&d.join("app"), "kustomization.yaml", &k);
    let out = s.localize(&["app", "out"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("VERIFICATION FAILED"), "{err}");
    assert!(
        err.contains("+      path: localized-files/file-schemed/"),
        "{err}"
    );
    assert_eq!(s.names(), ["app", "app-work", "git"], "nothing written");
    let out = s.localize(&["app", "out", "--no-verify"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(d.join("out/kustomization.yaml").is_file());
}

fn refusals(g: Git) {
    let s = Scratch::new();
    let d = s.dir();
    make_repo(
        &g,
        &d,
        "app",
        &[
            ("base/kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("base/cm.yaml", &cm("app")),
        ],
    );
    let url = format!("file://{}/git/app.git//base", d.display());
    common::write(
        &d.join("scope/app"),
        "kustomization.yaml",
        "resources:\n- ../../outside\n",
    );
    common::write(&d.join("outside"), "kustomization.yaml", "resources: []\n");
    common::write(
        &d.join("noref"),
        "kustomization.yaml",
        format!("resources:\n- {url}\n"),
    );
    common::write(
        &d.join("cached"),
        "kustomization.yaml",
        format!("resources:\n- {url}?ref=v1\n"),
    );
    common::write(&d.join("cached/localized-files"), "x", "already here\n");
    common::write(
        &d.join("escape"),
        "kustomization.yaml",
        "resources:\n- ../outside/kustomization.yaml\n",
    );
    common::write(
        &d.join("missing"),
        "kustomization.yaml",
        "resources:\n- cm.yaml\npatches:\n- path: nope.yaml\n",
    );
    common::write(&d.join("missing"), "cm.yaml", cm("m"));
    std::fs::create_dir(d.join("taken")).unwrap();
    let before = s.names();
    let with_ref = format!("{url}?ref=v1");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("a URL target without ref", vec![&url]),
        ("a URL target with --scope", vec![&with_ref, "--scope", "."]),
        (
            "a scope not containing the target",
            vec!["scope/app", "--scope", "noref"],
        ),
        ("an existing destination", vec!["noref", "taken"]),
        (
            "a destination in a missing directory",
            vec!["noref", "no/such/dir"],
        ),
        (
            "a base outside the scope",
            vec!["scope/app", "--scope", "scope"],
        ),
        ("a remote base without ref", vec!["noref"]),
        ("localized-files already in the source", vec!["cached"]),
        ("a file outside its kustomization", vec!["escape"]),
        ("a missing file", vec!["missing"]),
    ];
    let mut all = String::new();
    for (what, args) in cases {
        let out = s.localize(&args);
        assert_eq!(out.status.code(), Some(1), "{what}");
        assert!(out.stdout.is_empty(), "{what}");
        assert_eq!(s.names(), before, "{what}: nothing written");
        let err = text(&out.stderr).replace(&d.display().to_string(), "[TMP]");
        all.push_str(&format!("## {what}\n{err}\n"));
    }
    insta::assert_snapshot!("refusals", all);
}

fn plugin_configs_and_chart_home(g: Git) {
    let s = Scratch::new();
    let d = s.dir();
    let www = d.join("www");
    common::write(
        &www,
        "label.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    remote: \"yes\"\n",
    );
    std::fs::create_dir_all(d.join("git")).unwrap();
    let server = Server::start(&g, d.join("git"), www);
    let app = d.join("app");
    common::write(&app, "cm.yaml", cm("a"));
    common::write(
        &app,
        "psm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    psm: \"1\"\n",
    );
    let config = format!(
        "# a transformer config with comments\napiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: {}  # fetched\n---\napiVersion: builtin\nkind: PatchStrategicMergeTransformer\nmetadata:\n  name: s\npaths:\n- psm.yaml\n",
        server.url("/files/label.yaml")
    );
    common::write(&app, "transformers/patch.yaml", &config);
    common::write(
        &app,
        "kustomization.yaml",
        "resources:\n- cm.yaml\ntransformers:\n- transformers/patch.yaml\n- |-\n  apiVersion: builtin\n  kind: LabelTransformer\n  metadata:\n    name: l\n  labels:\n    inline: \"true\"\n  fieldSpecs:\n  - path: metadata/labels\n    create: true\n",
    );
    let expected = s.build("app", &[]);
    let out = s.localize(&["app"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dest = d.join("localized-app");
    assert_eq!(
        tree(&dest),
        [
            "cm.yaml",
            "kustomization.yaml",
            "localized-files/127.0.0.1/files/label.yaml",
            "psm.yaml",
            "transformers/patch.yaml"
        ]
    );
    // The config file is edited in place: only the fetched path changed. (kustomize
    // writes its own serialization of the configs and of each kustomization.)
    let copied = std::fs::read_to_string(dest.join("transformers/patch.yaml")).unwrap();
    assert_eq!(
        copied,
        config.replace(&server.url("/files/"), "localized-files/127.0.0.1/files/")
    );
    no_remote_reference(&dest);
    builds_the_same(&s, &app, &dest, &expected);

    // A helm chart's home (the default `charts`) is copied whole, as kustomize does; the
    // build needs --enable-helm and helm, so the verification is skipped here.
    let h = d.join("helm");
    common::write(
        &h,
        "charts/web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    );
    common::write(&h, "charts/web/templates/cm.yaml", cm("web"));
    common::write(
        &h,
        "charts/unused/Chart.yaml",
        "apiVersion: v2\nname: unused\nversion: 0.1.0\n",
    );
    common::write(&h, "values.yaml", "a: 1\n");
    common::write(
        &h,
        "kustomization.yaml",
        "helmCharts:\n- name: web\n  valuesFile: values.yaml\n",
    );
    let out = s.localize(&["helm", "--no-verify"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        tree(&d.join("localized-helm")),
        [
            "charts/unused/Chart.yaml",
            "charts/web/Chart.yaml",
            "charts/web/templates/cm.yaml",
            "kustomization.yaml",
            "values.yaml"
        ]
    );
}
