//! Remote entries written by an attacker: a ref that git would read as an option, an
//! `ext::` or local submodule, credentials that must not reach the disk or any output,
//! timeouts too large for a clock, a signal in the middle of a clone, a repository whose
//! symlink leads `kbuild deps` out of it, a redirect to a local file. Each case failed on
//! the code before its fix (see the commit that added it).

use super::*;
use server::{TOKEN, USER};
use std::time::{Duration, Instant};

/// A work tree at `<tmp>/<name>-work` for repositories the usual helpers cannot make
/// (submodules, symlinks), published with [`Work::bare`].
struct Work {
    git: PathBuf,
    dir: PathBuf,
    /// Submodules (path, commit), added to the index at the commit (`git add -A` would
    /// drop a submodule whose directory is empty).
    gitlinks: Vec<(String, String)>,
}

impl Work {
    fn new(g: &Git, tmp: &Path, name: &str) -> Work {
        let w = Work {
            git: g.git.clone(),
            dir: tmp.join(format!("{name}-work")),
            gitlinks: Vec::new(),
        };
        std::fs::create_dir_all(&w.dir).unwrap();
        w.git(&["init", "-q", "-b", "main"]);
        w
    }

    fn git(&self, args: &[&str]) -> String {
        let out = Command::new(&self.git)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&self.dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
        text(&out.stdout).trim().to_string()
    }

    fn write(&self, rel: &str, body: impl AsRef<[u8]>) {
        common::write(&self.dir, rel, body);
    }

    /// A submodule at `path` (URL `url` in .gitmodules) at `commit`, without fetching it.
    fn submodule(&mut self, path: &str, url: &str, commit: &str) {
        let mut modules = std::fs::read_to_string(self.dir.join(".gitmodules")).unwrap_or_default();
        modules.push_str(&format!(
            "[submodule \"{path}\"]\n\tpath = {path}\n\turl = {url}\n"
        ));
        self.write(".gitmodules", modules);
        self.gitlinks.push((path.to_string(), commit.to_string()));
    }

    /// Commits everything as tag v1 and publishes it as `<tmp>/<name>.git`; returns the
    /// bare repository and the commit.
    fn bare(&self, tmp: &Path, name: &str) -> (PathBuf, String) {
        self.git(&["add", "-A"]);
        for (path, commit) in &self.gitlinks {
            let info = format!("160000,{commit},{path}");
            self.git(&["update-index", "--add", "--cacheinfo", &info]);
        }
        self.git(&["commit", "-qm", "one"]);
        self.git(&["tag", "v1"]);
        let commit = self.git(&["rev-parse", "HEAD"]);
        let bare = tmp.join(format!("{name}.git"));
        let out = Command::new(&self.git)
            .args(["clone", "-q", "--bare"])
            .arg(&self.dir)
            .arg(&bare)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        (bare, commit)
    }
}

/// A repository with a base (`base/`: the ConfigMap `name`) and submodules at `subs`
/// (path, URL, commit).
fn repo_with_submodules(g: &Git, tmp: &Path, name: &str, subs: &[(&str, &str, &str)]) -> PathBuf {
    let mut w = Work::new(g, tmp, name);
    w.write("base/kustomization.yaml", CM_BASE);
    w.write("base/cm.yaml", cm(name, "x"));
    for (path, url, commit) in subs {
        w.submodule(path, url, commit);
    }
    w.bare(tmp, name).0
}

/// kbuild `build DIR` with the scratch's cache and the environment `env`.
fn build_with(s: &Scratch, dir: &Path, env: &[(&str, &str)]) -> Output {
    let cache = s.cache();
    let mut cmd = s.command(&[
        "build",
        dir.to_str().unwrap(),
        "--remote-cache-dir",
        cache.to_str().unwrap(),
    ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn assert_failed(out: &Output, needles: &[&str]) -> String {
    let err = text(&out.stderr);
    assert!(!out.status.success(), "succeeded: {}", text(&out.stdout));
    assert!(out.stdout.is_empty(), "output on failure");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in:\n{err}");
    }
    err
}

/// Class 1: `?ref=--upload-pack=<command>` made `git ls-remote`/`git fetch` run the
/// command. Such a ref is refused before any git command, naming the entry, and every
/// git command that takes a URL or ref has `--` before it.
pub(super) fn ref_is_never_an_option(g: Git) {
    let mut s = Scratch::new();
    s.log_git(&g.git);
    let (bare, _, _) = app_repo(&g, &s.dir());
    let url = file_url(&bare);
    let marker = s.dir().join("ran");
    let command = format!("touch%20{}", marker.display());
    for query in [
        format!("ref=--upload-pack={command}"),
        format!("version=--upload-pack={command}"),
        format!("ref=-oProxyCommand={command}"),
    ] {
        let entry = format!("{url}//base?{query}");
        let dir = overlay(&s, "inject", &format!("resources:\n- {entry}\n"));
        let out = s.build(&dir, "v5.8.1", &[]);
        assert!(!marker.exists(), "{query}: the ref ran a command");
        assert_failed(
            &out,
            &[
                &entry,
                "refusing its ref '-",
                "begins with '-'",
                "kustomization.yaml",
            ],
        );
        assert_eq!(s.take_git_log(), Vec::<String>::new(), "{query}: git ran");
    }
    // A valid entry: every positional URL and ref follows `--`.
    let dir = overlay(&s, "ok", &format!("resources:\n- {url}//base?ref=main\n"));
    let out = s.build(&dir, "v5.8.1", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let log = std::fs::read_to_string(s.dir().join("git.log")).unwrap();
    for line in log.lines() {
        let takes_url = ["ls-remote", "fetch", "remote"]
            .iter()
            .any(|c| line.starts_with(c));
        assert!(!takes_url || line.contains(" -- "), "no '--' in: {line}");
    }
    assert!(log.contains("fetch --depth=1 -- file://"), "{log}");
}

/// Class 1: a submodule URL `ext::sh -c …` ran its command when the caller's git setup
/// allowed `ext` (`GIT_ALLOW_PROTOCOL`, `protocol.allow`), and a `file` submodule was
/// cloned when `protocol.file.allow=always`. kbuild's own `GIT_ALLOW_PROTOCOL` overrides
/// both: bases may use file, http, https and ssh, their submodules http, https and ssh.
pub(super) fn transports_are_limited(g: Git) {
    let s = Scratch::new();
    let (lib, lib_commit, _) = app_repo(&g, &s.dir());
    let marker = s.dir().join("ext-ran");
    let ext = format!("ext::sh -c touch% {}", marker.display());
    let evil = repo_with_submodules(&g, &s.dir(), "evil", &[("x", &ext, &lib_commit)]);
    let dir = overlay(
        &s,
        "ext",
        &format!("resources:\n- {}//base?ref=v1\n", file_url(&evil)),
    );
    let allow_ext: [&[(&str, &str)]; 3] = [
        &[],
        &[("GIT_ALLOW_PROTOCOL", "ext:file:http:https:ssh")],
        &[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "protocol.allow"),
            ("GIT_CONFIG_VALUE_0", "always"),
        ],
    ];
    for env in allow_ext {
        let out = build_with(&s, &dir, env);
        assert!(!marker.exists(), "{env:?}: the ext:: submodule ran");
        assert_failed(&out, &["transport 'ext' not allowed", "submodule"]);
    }
    // A local submodule: git's default refuses it; a caller's protocol.file.allow no
    // longer lets a repository clone the files of this machine into its checkout.
    let local = repo_with_submodules(
        &g,
        &s.dir(),
        "local",
        &[("x", &file_url(&lib), &lib_commit)],
    );
    let dir = overlay(
        &s,
        "local",
        &format!("resources:\n- {}//base?ref=v1\n", file_url(&local)),
    );
    let out = build_with(
        &s,
        &dir,
        &[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "protocol.file.allow"),
            ("GIT_CONFIG_VALUE_0", "always"),
        ],
    );
    assert_failed(&out, &["transport 'file' not allowed"]);
    // Without submodules the same base builds.
    let dir = overlay(
        &s,
        "local-nosub",
        &format!(
            "resources:\n- {}//base?ref=v1&submodules=false\n",
            file_url(&local)
        ),
    );
    let out = build_with(&s, &dir, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), cm_out("local", "x", ""));
}

/// Found beyond the listed classes: git's variables that name a repository (`GIT_DIR`,
/// `GIT_WORK_TREE`, `GIT_INDEX_FILE`, set when kbuild runs in a git hook) made the
/// clone re-initialise that repository, add an `origin` to it and check the base out
/// into its work tree. They are removed; the caller's own configuration
/// (`GIT_CONFIG_COUNT`, here an `insteadOf`) still applies.
pub(super) fn callers_git_environment(g: Git) {
    let s = Scratch::new();
    let (bare, _, _) = app_repo(&g, &s.dir());
    let victim = Work::new(&g, &s.dir(), "victim");
    victim.write("mine.txt", "mine\n");
    victim.git(&["add", "mine.txt"]);
    victim.git(&["commit", "-qm", "mine"]);
    let git_dir = victim.dir.join(".git");
    let config = std::fs::read(git_dir.join("config")).unwrap();
    let index = std::fs::read(git_dir.join("index")).unwrap();
    let head = victim.git(&["rev-parse", "HEAD"]);
    let dir = overlay(
        &s,
        "hook",
        "resources:\n- ssh://git@example.invalid/app.git//base?ref=v1\n",
    );
    let rewrite = format!("url.{}.insteadOf", file_url(&bare));
    let out = build_with(
        &s,
        &dir,
        &[
            ("GIT_DIR", git_dir.to_str().unwrap()),
            ("GIT_WORK_TREE", victim.dir.to_str().unwrap()),
            ("GIT_INDEX_FILE", git_dir.join("index").to_str().unwrap()),
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", &rewrite),
            ("GIT_CONFIG_VALUE_0", "ssh://git@example.invalid/app.git"),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), cm_out("base", "one", ""));
    assert_eq!(std::fs::read(git_dir.join("config")).unwrap(), config);
    assert_eq!(std::fs::read(git_dir.join("index")).unwrap(), index);
    assert_eq!(victim.git(&["rev-parse", "HEAD"]), head);
    assert!(
        !victim.dir.join("base").exists(),
        "checked out into the caller's tree"
    );
}

/// Every file under `dir` (names and contents) and the texts `outputs`: none may hold
/// `secret`.
fn assert_nowhere(secret: &str, dir: &Path, outputs: &[(&str, &str)]) {
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.unwrap();
        let name = entry.path().display().to_string();
        assert!(!name.contains(secret), "in a file name: {name}");
        if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path()).unwrap();
            let found = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            assert!(!found, "in {name}");
        }
    }
    for (what, out) in outputs {
        assert!(!out.contains(secret), "in {what}:\n{out}");
    }
}

/// Class 6: `http://user:token@host/…` is fetched with its credentials (a submodule on
/// the same host too), and the token is nowhere after: not in the checkout's
/// `.git/config` or `FETCH_HEAD` (kustomize's `git remote add origin <url>` put it
/// there), not in the cache's names or files, git's command lines, `deps`, `cache list`
/// or an error. Cache directories are 0700, and the credentials' checkout is not served
/// to an entry without them.
pub(super) fn credentials_stay_off_disk(g: Git) {
    use std::os::unix::fs::PermissionsExt;
    let mut s = Scratch::new();
    s.log_git(&g.git);
    let (lib, lib_commit, _) = make_repo(
        &g,
        &s.dir(),
        "lib",
        &[
            ("kustomization.yaml", CM_BASE),
            ("cm.yaml", &cm("lib", "l")),
        ],
        &[],
    );
    assert!(lib.exists());
    let mut w = Work::new(&g, &s.dir(), "app");
    w.write("kustomization.yaml", "resources:\n- cm.yaml\n- lib\n");
    w.write("cm.yaml", cm("app", "a"));
    w.submodule("lib", "../lib.git", &lib_commit);
    w.bare(&s.dir(), "app");
    let server = Server::start(&g, s.dir(), s.dir().join("files"));
    let base = server.url("/auth/git/app.git");
    let with_token = base.replacen("http://", &format!("http://{USER}:{TOKEN}@"), 1);
    let entry = format!("{with_token}?ref=v1");
    let dir = overlay(&s, "creds", &format!("resources:\n- {entry}\n"));
    let expected = format!("{}---\n{}", cm_out("app", "a", ""), cm_out("lib", "l", ""));
    same_as_kustomize(&s, &dir, &expected);
    let out = build_with(
        &s,
        &dir,
        &[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "advice.detachedHead"),
            ("GIT_CONFIG_VALUE_0", "false"),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let cache = s.cache();
    let cache_arg = cache.to_str().unwrap();
    let deps = s.kbuild(&[
        "deps",
        dir.to_str().unwrap(),
        "--remote-cache-dir",
        cache_arg,
    ]);
    assert!(deps.status.success(), "{}", text(&deps.stderr));
    let deps = text(&deps.stdout);
    assert!(
        deps.contains(&format!("http://{USER}:***@127.0.0.1")),
        "{deps}"
    );
    let list = text(
        &s.kbuild(&["cache", "list", "--remote-cache-dir", cache_arg])
            .stdout,
    );
    assert!(list.contains("http://me:***@127.0.0.1"), "{list}");
    // A ref that is not there: an error naming the entry, without the token.
    let bad = overlay(
        &s,
        "creds-bad",
        &format!("resources:\n- {with_token}?ref=nope\n"),
    );
    let err = assert_failed(&build_with(&s, &bad, &[]), &["nope", "me:***@127.0.0.1"]);
    // A password holding `@`: hidden up to the last `@` before the host.
    let at = base.replacen("http://", &format!("http://{USER}:p@ss-{TOKEN}@"), 1);
    let at_dir = overlay(&s, "creds-at", &format!("resources:\n- {at}?ref=v1\n"));
    let at_err = assert_failed(&build_with(&s, &at_dir, &[]), &["me:***@127.0.0.1"]);
    let git_log = std::fs::read_to_string(s.dir().join("git.log")).unwrap();
    assert_nowhere(
        TOKEN,
        &cache,
        &[
            ("deps", &deps),
            ("cache list", &list),
            ("the error", &err),
            ("the error for a password with '@'", &at_err),
            ("git's command lines", &git_log),
            ("the build's stderr", &text(&out.stderr)),
        ],
    );
    let origin = walkdir::WalkDir::new(cache.join("repos"))
        .into_iter()
        .flatten()
        .find(|e| e.path().ends_with(".git/config"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .unwrap();
    assert!(origin.contains(&format!("url = {base}")), "{origin}");
    for dir in [cache.clone(), cache.join("repos")] {
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
    }
    // Without the credentials, the same repository is not served from the cache.
    let anonymous = overlay(&s, "anonymous", &format!("resources:\n- {base}?ref=v1\n"));
    let refused = server.refused.load(std::sync::atomic::Ordering::SeqCst);
    assert_failed(
        &build_with(&s, &anonymous, &[("GIT_TERMINAL_PROMPT", "0")]),
        &["401"],
    );
    assert!(server.refused.load(std::sync::atomic::Ordering::SeqCst) > refused);
}

/// Class 7: `?timeout=9223372036854775807` panicked ("overflow when adding duration to
/// instant") on a git entry and on an http file. A larger limit than an hour is an hour.
pub(super) fn huge_timeouts_saturate(g: Git) {
    let s = Scratch::new();
    let (bare, _, _) = app_repo(&g, &s.dir());
    let files = s.dir().join("files");
    common::write(&files, "cm.yaml", cm("fetched", "web"));
    let server = Server::start(&g, s.dir(), files);
    for timeout in [
        "9223372036854775807",
        "2562047h",
        "99999999999h",
        "18446744073709551616",
    ] {
        let dir = overlay(
            &s,
            "huge",
            &format!(
                "resources:\n- {}//base?ref=v1&timeout={timeout}\n- {}\n",
                file_url(&bare),
                server.url(&format!("/files/cm.yaml?timeout={timeout}"))
            ),
        );
        let out = s.build(&dir, "v5.8.1", &[]);
        let err = text(&out.stderr);
        assert!(out.status.success(), "timeout={timeout}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(
            text(&out.stdout),
            format!(
                "{}---\n{}",
                cm_out("base", "one", ""),
                cm_out("fetched", "web", "")
            ),
        );
    }
}

/// `.tmp-*` checkouts under the cache's repositories.
fn half_made(cache: &Path) -> Vec<String> {
    let Ok(repos) = std::fs::read_dir(cache.join("repos")) else {
        return Vec::new();
    };
    repos
        .flatten()
        .flat_map(|r| std::fs::read_dir(r.path()).into_iter().flatten().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect()
}

/// Whether a process has its working directory under `dir` (a git still writing into
/// a checkout there). Linux's /proc answers; elsewhere the answer is "no" after a grace
/// period.
fn process_works_in(dir: &Path) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        std::thread::sleep(Duration::from_secs(2));
        return false;
    };
    procs
        .flatten()
        .any(|p| std::fs::read_link(p.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir)))
}

/// Builds `dir` into the fresh cache `cache`, sends SIG`signal` `delay` after the
/// clone's temporary checkout appeared, and checks that, once no process works in the
/// cache any more, no `.tmp-*` checkout is left. Returns whether the signal came before
/// the build ended.
fn signal_mid_clone(s: &Scratch, dir: &Path, cache: &Path, signal: &str, delay: Duration) -> bool {
    let mut child = s
        .command(&["build", dir.to_str().unwrap(), "--remote-cache-dir"])
        .arg(cache)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while half_made(cache).is_empty() && start.elapsed() < Duration::from_secs(60) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(delay);
    let signalled = child.try_wait().unwrap().is_none();
    if signalled {
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
    }
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    let number = if signal == "TERM" { 15 } else { 2 };
    assert!(
        status.signal() == Some(number) || status.success(),
        "SIG{signal}: {status:?}"
    );
    // A git that outlived kbuild would still be writing: wait until none is left.
    let start = Instant::now();
    while process_works_in(cache) && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = half_made(cache);
    assert!(
        left.is_empty(),
        "SIG{signal} {delay:?} into the clone left {left:?}"
    );
    signalled
}

/// Class 11: SIGTERM or SIGINT during a clone left a `.tmp-*` checkout in the cache:
/// the handler removed it while git, still running, created files in it (the removal
/// then fails with "directory not empty"). git's process group is now killed, and gone,
/// before the checkout is removed. The signal comes at points spread over a clone of
/// 3,000 files (the checkout is where git creates files), and during a clone over http
/// made slow by the server (git-remote-http is in git's group too).
pub(super) fn signal_during_clone_leaves_no_checkout(g: Git) {
    let s = Scratch::new();
    let w = Work::new(&g, &s.dir(), "many");
    w.write("base/kustomization.yaml", CM_BASE);
    w.write("base/cm.yaml", cm("many", "x"));
    for i in 0..3000 {
        w.write(
            &format!("data/{}/{}/f{i}.txt", i % 30, i % 7),
            format!("file {i}\n"),
        );
    }
    let (bare, commit) = w.bare(&s.dir(), "many");
    let dir = overlay(
        &s,
        "many",
        &format!("resources:\n- {}//base?ref={commit}\n", file_url(&bare)),
    );
    // A whole clone's time (from its temporary checkout's appearance to the end of the
    // build), for the points to spread over.
    let reference = s.dir().join("cache-reference");
    let mut child = s
        .command(&["build", dir.to_str().unwrap(), "--remote-cache-dir"])
        .arg(&reference)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    while half_made(&reference).is_empty() && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let start = Instant::now();
    assert!(child.wait().unwrap().success());
    let run = start.elapsed();
    let mut signalled = 0;
    for (i, signal) in ["TERM", "INT"].iter().enumerate() {
        for k in 0..5u32 {
            let cache = s.dir().join(format!("cache-{signal}-{k}"));
            let delay = run * (2 * k + i as u32) / 14;
            signalled += usize::from(signal_mid_clone(&s, &dir, &cache, signal, delay));
        }
    }
    assert!(
        signalled >= 5,
        "only {signalled} runs were signalled mid-clone"
    );
    // Over http, slowly: signalled while git-remote-http waits for the server.
    let big = Work::new(&g, &s.dir(), "slow");
    big.write("base/kustomization.yaml", CM_BASE);
    big.write("base/cm.yaml", cm("slow", "x"));
    // 200 KB that do not compress: a pack that takes seconds to trickle.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..100 {
        let bytes: Vec<u8> = (0..2048)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        big.write(&format!("data/f{i}.bin"), bytes);
    }
    let (_, commit) = big.bare(&s.dir(), "slow");
    let server = Server::start(&g, s.dir(), s.dir().join("files"));
    let entry = format!("{}//base?ref={commit}", server.url("/slow/git/slow.git"));
    let dir = overlay(&s, "slow", &format!("resources:\n- {entry}\n"));
    for (signal, ms) in [("TERM", 0), ("INT", 600)] {
        let cache = s.dir().join(format!("cache-slow-{signal}"));
        assert!(signal_mid_clone(
            &s,
            &dir,
            &cache,
            signal,
            Duration::from_millis(ms)
        ));
        assert!(server.wait_slow_done(Duration::from_secs(60)));
    }
}

/// Found beyond the listed classes: `kbuild deps` followed a remote entry's path
/// without the build's containment check, so a repository's symlink (or a local base
/// of a remote kustomization) led it to read kustomizations of this machine and list
/// their files. It now fails as the build does.
pub(super) fn deps_stays_in_the_checkout(g: Git) {
    let s = Scratch::new();
    let outside = s.dir().join("outside");
    common::write(
        &outside,
        "kustomization.yaml",
        "resources:\n- private.yaml\n",
    );
    common::write(&outside, "private.yaml", cm("private", "p"));
    let w = Work::new(&g, &s.dir(), "escape");
    w.write("README", "x\n");
    std::os::unix::fs::symlink(&outside, w.dir.join("out")).unwrap();
    w.write(
        "reach/kustomization.yaml",
        format!(
            "resources:\n- ../../../../../../../../..{}\n",
            outside.display()
        ),
    );
    let (bare, _) = w.bare(&s.dir(), "escape");
    let cache = s.cache();
    for path in ["out", "reach"] {
        let dir = overlay(
            &s,
            &format!("deps-{path}"),
            &format!("resources:\n- {}//{path}?ref=v1\n", file_url(&bare)),
        );
        let args = [
            "deps",
            dir.to_str().unwrap(),
            "--remote-cache-dir",
            cache.to_str().unwrap(),
        ];
        let out = s.kbuild(&args);
        let listed = text(&out.stdout);
        assert!(!listed.contains("private.yaml"), "{path}: {listed}");
        assert_failed(&out, &["outside"]);
        // The build refuses it too (its check, unchanged).
        assert_failed(&s.build(&dir, "v5.8.1", &[]), &["outside"]);
    }
}

/// A guard, unchanged behaviour: a file URL redirected to `file://` is not followed
/// (ureq speaks http and https only), so a server cannot make kbuild read a local file.
pub(super) fn http_redirects_stay_http(g: Git) {
    let s = Scratch::new();
    let secret = s.dir().join("secret.yaml");
    std::fs::write(&secret, cm("local-secret-7b2d", "s")).unwrap();
    let server = Server::start(&g, s.dir(), s.dir().join("files"));
    let entry = server.url(&format!("/redirect?to=file://{}", secret.display()));
    let dir = overlay(&s, "redirect", &format!("resources:\n- {entry}\n"));
    let err = assert_failed(&s.build(&dir, "v5.8.1", &[]), &["remote entry"]);
    assert!(!err.contains("local-secret-7b2d"), "{err}");
}
