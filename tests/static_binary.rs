//! The static Linux binary (tools/build-static.sh), named by `$KBUILD_STATIC_BIN` (.ci/run
//! builds it and passes the path the script prints last). Ignored in a plain `cargo test`;
//! `cargo test --test static_binary -- --include-ignored` runs it (as .ci/run does), and
//! reports it skipped without the variable (a failure under CI=true).
//!
//! - it has no program interpreter and no needed libraries (readelf);
//! - inside an empty root (`chroot` into a directory holding only the binary, a tree and
//!   /tmp: no libc, no /etc, no certificates) it builds and diffs the example overlays with
//!   the same output as this checkout's normal build;
//! - in that root it reads a file over https from a TLS server started here on 127.0.0.1
//!   (Python's http.server behind a certificate made here with openssl), verified with the
//!   root named by SSL_CERT_FILE; without it, kbuild falls back to its built-in Mozilla roots
//!   (remote/http.rs: root_certs), which refuse the test's certificate as of an unknown
//!   issuer instead of failing for want of any root;
//! - outside the root it runs git as a subprocess (`diff --ref HEAD`) as the normal build does.
//!
//! chroot needs root; without it the empty-root tests report themselves skipped.

use crate::common;
use common::write;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The static binary named by `KBUILD_STATIC_BIN` (tools/build-static.sh prints it last).
fn static_bin() -> Result<PathBuf, String> {
    std::env::var_os("KBUILD_STATIC_BIN")
        .map(PathBuf::from)
        .ok_or_else(|| {
            "needs KBUILD_STATIC_BIN, the static binary's path (tools/build-static.sh prints it last)"
                .to_string()
        })
        .and_then(|p| {
            p.canonicalize()
                .map_err(|e| format!("KBUILD_STATIC_BIN={}: {e}", p.display()))
        })
}

/// This file's tests (run by tests/integration.rs; slow: `-- --include-ignored`).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    common::slow_needing(
        module_path!(),
        static_bin,
        &[
            (
                "static_binary_has_no_dynamic_dependencies",
                static_binary_has_no_dynamic_dependencies as fn(PathBuf),
            ),
            (
                "static_binary_builds_in_an_empty_root_as_the_normal_build",
                static_binary_builds_in_an_empty_root_as_the_normal_build,
            ),
            (
                "static_binary_reads_https_in_an_empty_root",
                static_binary_reads_https_in_an_empty_root,
            ),
            (
                "static_binary_runs_git_as_the_normal_build",
                static_binary_runs_git_as_the_normal_build,
            ),
        ],
    )
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn static_binary_has_no_dynamic_dependencies(bin: PathBuf) {
    for args in [["-l"], ["-d"]] {
        let out = Command::new("readelf")
            .args(args)
            .arg(&bin)
            .output()
            .expect("readelf (binutils)");
        assert!(out.status.success(), "{}", text(&out));
        let t = String::from_utf8_lossy(&out.stdout);
        assert!(!t.contains("INTERP"), "a program interpreter:\n{t}");
        assert!(!t.contains("(NEEDED)"), "needed libraries:\n{t}");
    }
    let out = Command::new(&bin).arg("--version").output().expect("run");
    assert!(out.status.success(), "{}", text(&out));
}

/// A directory holding only the static binary (/kbuild), `/tmp` and the example tree
/// (/tree), or why chroot cannot be used here.
fn empty_root(bin: &Path, dir: &Path) -> Result<(), String> {
    let uid = Command::new("id")
        .arg("-u")
        .output()
        .map_err(|e| e.to_string())?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Err("chroot needs root".into());
    }
    if chroot_program().is_none() {
        return Err("needs the chroot program (coreutils) on PATH".into());
    }
    std::fs::create_dir_all(dir.join("tmp")).expect("mkdir");
    std::fs::copy(bin, dir.join("kbuild")).expect("copy the binary");
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shop");
    for entry in walkdir::WalkDir::new(&shop) {
        let entry = entry.expect("walk");
        let rel = entry.path().strip_prefix(&shop).expect("prefix");
        let to = dir.join("tree").join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &to).expect("copy");
        }
    }
    Ok(())
}

/// The `chroot` program on this process's PATH (the child's environment is emptied, so
/// the name alone would not be found).
fn chroot_program() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("chroot"))
        .find(|p| p.is_file())
}

/// `kbuild ARGS` inside the root, with an empty environment but for `extra`.
fn in_root(root: &Path, args: &[&str], extra: &[(&str, &str)]) -> Output {
    Command::new(chroot_program().expect("chroot (checked by empty_root)"))
        .arg(root)
        .arg("/kbuild")
        .args(args)
        .env_clear()
        .env("HOME", "/tmp")
        .envs(extra.iter().copied())
        .output()
        .expect("chroot")
}

fn static_binary_builds_in_an_empty_root_as_the_normal_build(bin: PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("root");
    if let Err(why) = empty_root(&bin, &root) {
        common::skipped("the empty-root build", &why);
        return;
    }
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shop");
    for (inside, normal) in [
        (
            vec!["build", "/tree/overlays/prod"],
            vec![
                "build".to_string(),
                shop.join("overlays/prod").display().to_string(),
            ],
        ),
        (
            vec![
                "diff",
                "--color",
                "never",
                "/tree/base",
                "/tree/overlays/staging",
            ],
            vec![
                "diff".into(),
                "--color".into(),
                "never".into(),
                shop.join("base").display().to_string(),
                shop.join("overlays/staging").display().to_string(),
            ],
        ),
    ] {
        let got = in_root(&root, &inside, &[]);
        let want = Command::new(env!("CARGO_BIN_EXE_kbuild"))
            .args(&normal)
            .env("NO_COLOR", "1")
            .output()
            .expect("run kbuild");
        assert_eq!(got.status.code(), want.status.code(), "{}", text(&got));
        assert!(!got.stdout.is_empty(), "{}", text(&got));
        // The diff's labels are the paths as given: compare with the tree's path swapped.
        let want_text =
            String::from_utf8_lossy(&want.stdout).replace(&shop.display().to_string(), "/tree");
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            want_text,
            "{inside:?}"
        );
    }
}

fn static_binary_reads_https_in_an_empty_root(bin: PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("root");
    if let Err(why) = empty_root(&bin, &root) {
        common::skipped("the empty-root https read", &why);
        return;
    }
    let pki = tmp.path().join("pki");
    std::fs::create_dir_all(&pki).expect("mkdir");
    let openssl = |args: &[&str]| {
        Command::new("openssl")
            .args(args)
            .current_dir(&pki)
            .output()
            .map_err(|e| format!("openssl: {e}"))
            .and_then(|o| {
                if o.status.success() {
                    Ok(())
                } else {
                    Err(format!("openssl {args:?}: {}", text(&o)))
                }
            })
    };
    write(
        &pki,
        "server.ext",
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    );
    let made = openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=kbuild test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    ])
    .and_then(|()| {
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ])
    })
    .and_then(|()| {
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ])
    });
    if let Err(why) = made {
        common::skipped("the empty-root https read", &why);
        return;
    }
    let served = tmp.path().join("served");
    write(
        &served,
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: remote\ndata:\n  k: v\n",
    );
    // Python's http.server behind TLS, on a free port it prints first.
    let server = "import http.server, ssl, sys\n\
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n\
        ctx.load_cert_chain(sys.argv[1], sys.argv[2])\n\
        srv = http.server.HTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)\n\
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)\n\
        print(srv.server_address[1], flush=True)\n\
        srv.serve_forever()\n";
    let mut child = match Command::new("python3")
        .arg("-c")
        .arg(server)
        .arg(pki.join("server.pem"))
        .arg(pki.join("server.key"))
        .current_dir(&served)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            common::skipped("the empty-root https read", &format!("python3: {e}"));
            return;
        }
    };
    let mut port = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut port)
        .expect("port");
    let url = format!("https://127.0.0.1:{}/cm.yaml", port.trim());
    write(
        &root,
        "remote/kustomization.yaml",
        format!("resources:\n- {url}\n"),
    );
    std::fs::copy(pki.join("ca.pem"), root.join("ca.pem")).expect("copy the CA");

    let trusted = in_root(
        &root,
        &["build", "/remote"],
        &[("SSL_CERT_FILE", "/ca.pem")],
    );
    let untrusted = in_root(&root, &["build", "/remote"], &[]);
    let _ = child.kill();
    let _ = child.wait();
    assert!(trusted.status.success(), "{}", text(&trusted));
    assert_eq!(
        String::from_utf8_lossy(&trusted.stdout),
        "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: remote\n"
    );
    // No system roots: the built-in ones are used, and they do not know the test's CA.
    let t = text(&untrusted);
    assert!(!untrusted.status.success(), "{t}");
    assert!(t.contains("UnknownIssuer"), "{t}");
    assert!(!t.contains("No CA certificates"), "{t}");
}

fn static_binary_runs_git_as_the_normal_build(bin: PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(repo)
            .env("GIT_AUTHOR_NAME", "test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env_remove("GIT_DIR")
            .output();
        match out {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(text(&o)),
            Err(e) => Err(format!("git: {e}")),
        }
    };
    write(
        repo,
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: c\n  literals: [a=1]\n",
    );
    if let Err(why) = git(&["init", "-q", "-b", "main"])
        .and_then(|()| git(&["add", "-A"]))
        .and_then(|()| git(&["commit", "-q", "-m", "one"]))
    {
        common::skipped("the git subprocess", &why);
        return;
    }
    write(
        repo,
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: c\n  literals: [a=2]\n",
    );
    let run = |program: &Path| {
        Command::new(program)
            .args(["diff", "--ref", "HEAD", "--color", "never"])
            .current_dir(repo)
            .env_remove("GIT_DIR")
            .output()
            .expect("run")
    };
    let got = run(&bin);
    let want = run(Path::new(env!("CARGO_BIN_EXE_kbuild")));
    assert_eq!(got.status.code(), Some(1), "{}", text(&got));
    assert_eq!(got.status.code(), want.status.code());
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want.stdout)
    );
    assert!(String::from_utf8_lossy(&got.stdout).contains("a: \"2\""));
}
