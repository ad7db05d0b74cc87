//! The pull-request preview action (action.yml): its script, `action/comment.sh`, run in a
//! real git repository with two commits against a recording stand-in `gh` (a Python program
//! written here and put first on PATH, documented below as a stand-in: the real `gh` talks to
//! GitHub). The stand-in keeps the pull request's comments in a JSON file, answers the three
//! REST calls the script makes (list, create, update) and records every call. Checked: the
//! first run creates one comment starting with the hidden marker and holding kbuild's
//! markdown report; the next run updates that comment in place (other people's comments are
//! left alone); a build that fails posts nothing and exits 2.

use crate::common;
use common::write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The stand-in `gh`: `gh api` with the arguments comment.sh uses, over a JSON file of
/// comments ($GH_STATE/comments.json); every call appended to $GH_STATE/calls.log.
const GH_STANDIN: &str = r#"#!/usr/bin/env python3
# Stand-in for GitHub's `gh` CLI (tests/action.rs): the pull request's comments live in
# $GH_STATE/comments.json; unknown calls fail loudly.
import json, os, re, sys
state = os.environ["GH_STATE"]
args = sys.argv[1:]
with open(os.path.join(state, "calls.log"), "a") as log:
    log.write(" ".join(args) + "\n")
path = os.path.join(state, "comments.json")
comments = json.load(open(path)) if os.path.exists(path) else []
if args[:1] != ["api"]:
    sys.exit("gh stand-in: only `gh api` is known: %r" % args)
args = args[1:]
method, body, endpoint, flags = "GET", None, None, set()
i = 0
while i < len(args):
    a = args[i]
    if a == "--method":
        method = args[i + 1]; i += 2; continue
    if a == "-F":
        key, _, value = args[i + 1].partition("=")
        assert key == "body" and value.startswith("@"), args
        body = open(value[1:]).read(); i += 2; continue
    if a.startswith("--"):
        flags.add(a); i += 1; continue
    endpoint = a; i += 1
m = re.fullmatch(r"repos/([^/]+/[^/]+)/issues/(\d+)/comments", endpoint or "")
if method == "GET" and m:
    assert {"--paginate", "--slurp"} <= flags, args
    # Two pages, as GitHub pages a long list.
    print(json.dumps([comments[:1], comments[1:]]))
elif method == "POST" and m:
    comment = {"id": 1000 + len(comments), "body": body, "user": {"login": "github-actions[bot]"}}
    comments.append(comment)
    print(json.dumps(comment))
elif method == "PATCH" and re.fullmatch(r"repos/[^/]+/[^/]+/issues/comments/\d+", endpoint or ""):
    wanted = int(endpoint.rsplit("/", 1)[1])
    found = [c for c in comments if c["id"] == wanted]
    if not found:
        sys.exit("gh: HTTP 404: Not Found")
    found[0]["body"] = body
    print(json.dumps(found[0]))
else:
    sys.exit("gh stand-in: unexpected call %r" % sys.argv[1:])
json.dump(comments, open(path, "w"))
"#;

const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n";

struct Setup {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    state: PathBuf,
    path: std::ffi::OsString,
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository whose second commit (the pull request's head) raises the base's replicas;
/// `gh` (the stand-in) and `kbuild` (this build) first on PATH.
fn setup() -> Setup {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("repo");
    write(
        &repo,
        "base/kustomization.yaml",
        "resources: [deploy.yaml]\n",
    );
    write(&repo, "base/deploy.yaml", DEPLOY);
    write(
        &repo,
        "overlays/prod/kustomization.yaml",
        "resources: [../../base]\nnamespace: prod\n",
    );
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "base"]);
    write(
        &repo,
        "base/deploy.yaml",
        DEPLOY.replace("replicas: 1", "replicas: 3"),
    );
    git(&repo, &["commit", "-q", "-am", "three replicas"]);

    let bin = tmp.path().join("bin");
    write(&bin, "gh", GH_STANDIN);
    make_executable(&bin.join("gh"));
    let state = tmp.path().join("gh-state");
    std::fs::create_dir_all(&state).expect("mkdir");
    let kbuild_dir = Path::new(env!("CARGO_BIN_EXE_kbuild"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = std::env::join_paths([bin, kbuild_dir].into_iter().chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    Setup {
        _tmp: tmp,
        repo,
        state,
        path,
    }
}

fn make_executable(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

impl Setup {
    fn comment(&self, extra: &[(&str, &str)]) -> Output {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/comment.sh");
        let mut cmd = Command::new("bash");
        cmd.arg(script)
            .current_dir(&self.repo)
            .env("PATH", &self.path)
            .env("GH_STATE", &self.state)
            .env("GH_TOKEN", "not-a-token")
            .env("GITHUB_REPOSITORY", "octo/config")
            .env("KBUILD_PR", "7")
            .env("NO_COLOR", "1")
            .env_remove("GIT_DIR")
            .env_remove("GITHUB_OUTPUT")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("KBUILD_BASE")
            .env_remove("KBUILD_ARGS")
            .env_remove("KBUILD_PATHS")
            .env_remove("KBUILD_MARKER");
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.output().expect("run comment.sh")
    }

    fn comments(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(self.state.join("comments.json")).unwrap_or_default();
        if text.is_empty() {
            return Vec::new();
        }
        serde_json::from_str(&text).expect("comments.json")
    }

    fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.state.join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn prerequisites() -> Result<(), String> {
    for tool in ["git", "bash", "python3"] {
        let found = Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            return Err(format!("needs `{tool}` on PATH"));
        }
    }
    Ok(())
}

/// This file's tests (run by tests/integration.rs).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    common::needing(
        module_path!(),
        prerequisites,
        &[
            (
                "action_creates_one_comment_then_updates_it",
                action_creates_one_comment_then_updates_it as fn(()),
            ),
            (
                "action_posts_nothing_when_the_build_fails",
                action_posts_nothing_when_the_build_fails as fn(()),
            ),
        ],
    )
}

fn action_creates_one_comment_then_updates_it(_: ()) {
    let s = setup();
    // Someone else's comment first: it must be left alone.
    std::fs::write(
        s.state.join("comments.json"),
        r#"[{"id": 1, "body": "LGTM", "user": {"login": "someone"}}]"#,
    )
    .expect("write");

    let out = s.comment(&[]);
    assert!(out.status.success(), "{}", text(&out));
    let comments = s.comments();
    assert_eq!(comments.len(), 2, "{comments:?}");
    assert_eq!(comments[0]["body"], "LGTM");
    let body = comments[1]["body"].as_str().expect("body");
    assert!(
        body.starts_with(
            "<!-- kbuild-diff-preview -->\n### kbuild diff: `HEAD^1` → `working tree`\n"
        ),
        "{body}"
    );
    assert!(body.contains("| `base` | 1 | 0 | 0 | 0 |"), "{body}");
    assert!(
        body.contains("| `overlays/prod` | 1 | 0 | 0 | 0 |"),
        "{body}"
    );
    assert!(body.contains("-  replicas: 1\n+  replicas: 3"), "{body}");
    // The report is in the log too.
    assert!(String::from_utf8_lossy(&out.stdout).contains("replicas: 3"));

    // The next push: the same comment, updated; GITHUB_OUTPUT says whether anything differs.
    write(
        &s.repo,
        "base/deploy.yaml",
        DEPLOY.replace("replicas: 1", "replicas: 5"),
    );
    git(&s.repo, &["commit", "-q", "-am", "five replicas"]);
    let output_file = s.state.join("github-output");
    let out = s.comment(&[
        ("KBUILD_BASE", "HEAD~2"),
        ("KBUILD_PATHS", "overlays/prod"),
        ("GITHUB_OUTPUT", output_file.to_str().expect("utf-8")),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let comments = s.comments();
    assert_eq!(comments.len(), 2, "{comments:?}");
    let body = comments[1]["body"].as_str().expect("body");
    assert!(body.contains("+  replicas: 5"), "{body}");
    assert!(!body.contains("| `base` |"), "{body}");
    assert_eq!(
        std::fs::read_to_string(&output_file).expect("GITHUB_OUTPUT"),
        "differs=true\n"
    );
    // The calls, with the temporary body file's path replaced by BODY.
    let calls: Vec<String> = s
        .calls()
        .iter()
        .map(|c| match c.split_once("body=@") {
            Some((head, _)) => format!("{head}body=@BODY"),
            None => c.clone(),
        })
        .collect();
    assert_eq!(
        calls,
        [
            "api --paginate --slurp repos/octo/config/issues/7/comments",
            "api --method POST repos/octo/config/issues/7/comments -F body=@BODY",
            "api --paginate --slurp repos/octo/config/issues/7/comments",
            "api --method PATCH repos/octo/config/issues/comments/1001 -F body=@BODY",
        ]
    );
}

fn action_posts_nothing_when_the_build_fails(_: ()) {
    let s = setup();
    write(
        &s.repo,
        "overlays/prod/kustomization.yaml",
        "resources: [../../base, missing.yaml]\n",
    );
    let out = s.comment(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("missing.yaml"), "{t}");
    assert!(t.contains("no comment posted"), "{t}");
    assert!(s.comments().is_empty());
    assert!(s.calls().is_empty(), "{:?}", s.calls());
}
