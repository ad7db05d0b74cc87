//! Hostile inputs: each case builds a tree in a temporary directory, runs the
//! real binary with a time limit, and checks the exit code, that stdout stays
//! empty on error, and the error message (an insta snapshot, with the
//! temporary path written as `$TMP`).

use crate::common;
use common::write;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

tests! {
    billion_laughs,
    deep_nesting,
    deep_block_nesting,
    huge_scalar_builds,
    hundred_thousand_documents_build,
    invalid_utf8,
    bom_is_accepted,
    tab_indentation,
    duplicate_keys,
    #[cfg(unix)] symlink_cycle,
    #[cfg(unix)] restrictor_refuses_outside_files,
    directory_where_a_file_is_expected,
    #[cfg(unix)] fifo_does_not_block,
    #[cfg(unix)] device_file_is_refused,
    #[cfg(unix)] unreadable_file,
}

/// Every hostile case must finish within this: a guard against hangs, not a
/// timing test (the 100 MB scalar takes ~20 s of CPU in a debug build, and
/// much longer in wall time on a loaded 2-core machine).
const LIMIT: Duration = Duration::from_secs(180);

struct Outcome {
    code: Option<i32>,
    stdout_len: usize,
    stderr: String,
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kbuild");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut n = 0usize;
        let mut buf = vec![0u8; 1 << 16];
        while let Ok(k) = stdout.read(&mut buf) {
            if k == 0 {
                break;
            }
            n += k;
        }
        n
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("kbuild did not finish within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let real = std::fs::canonicalize(dir).expect("canonical");
    Outcome {
        code: status.code(),
        stdout_len: reader.join().expect("reader"),
        stderr: stderr.replace(&real.display().to_string(), "$TMP"),
    }
}

/// Runs a case that must fail: non-zero exit, nothing on stdout.
fn fails(dir: &Path) -> String {
    let o = run(dir, &["."]);
    assert_eq!(o.code, Some(1), "expected exit 1, stderr: {}", o.stderr);
    assert_eq!(o.stdout_len, 0, "partial output on error");
    o.stderr
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn kust(dir: &Path, text: &str) {
    write(dir, "kustomization.yaml", text.as_bytes());
}

const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n";

fn billion_laughs() {
    let t = tmp();
    let mut y = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let prev = i - 1;
        y.push_str(&format!("  a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
    }
    write(t.path(), "r.yaml", y.as_bytes());
    kust(t.path(), "resources: [r.yaml]\n");
    let start = Instant::now();
    let err = fails(t.path());
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "alias expansion was not stopped early"
    );
    insta::assert_snapshot!(err);
}

fn deep_nesting() {
    let t = tmp();
    let y = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ndata: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    write(t.path(), "r.yaml", y.as_bytes());
    kust(t.path(), "resources: [r.yaml]\n");
    insta::assert_snapshot!(fails(t.path()));
}

fn deep_block_nesting() {
    let t = tmp();
    let mut y = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nspec:\n");
    for i in 0..10_000 {
        y.push_str(&" ".repeat(i + 1));
        y.push_str("- \n");
    }
    write(t.path(), "r.yaml", y.as_bytes());
    kust(t.path(), "resources: [r.yaml]\n");
    let o = run(t.path(), &["."]);
    assert_ne!(o.code, Some(0));
    assert_eq!(o.stdout_len, 0);
}

fn huge_scalar_builds() {
    let t = tmp();
    let big = "x".repeat(100 * 1024 * 1024);
    let y =
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: {big}\n");
    drop(big);
    write(t.path(), "r.yaml", y.as_bytes());
    drop(y);
    kust(t.path(), "resources: [r.yaml]\n");
    let o = run(t.path(), &["."]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout_len > 100 * 1024 * 1024);
}

fn hundred_thousand_documents_build() {
    let t = tmp();
    let mut y = String::with_capacity(100_000 * 60);
    for i in 0..100_000 {
        y.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n"
        ));
    }
    write(t.path(), "r.yaml", y.as_bytes());
    kust(t.path(), "resources: [r.yaml]\n");
    let o = run(t.path(), &["."]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout_len > 100_000 * 40);
}

fn invalid_utf8() {
    let t = tmp();
    write(
        t.path(),
        "r.yaml",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \xff\xfe\n",
    );
    kust(t.path(), "resources: [r.yaml]\n");
    insta::assert_snapshot!(fails(t.path()));
}

fn bom_is_accepted() {
    let t = tmp();
    write(t.path(), "r.yaml", format!("\u{feff}{CM}").as_bytes());
    write(
        t.path(),
        "kustomization.yaml",
        "\u{feff}resources: [r.yaml]\n".as_bytes(),
    );
    let o = run(t.path(), &["."]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

fn tab_indentation() {
    let t = tmp();
    write(
        t.path(),
        "r.yaml",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n",
    );
    kust(t.path(), "resources: [r.yaml]\n");
    insta::assert_snapshot!(fails(t.path()));
}

fn duplicate_keys() {
    let t = tmp();
    write(
        t.path(),
        "r.yaml",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  name: y\n",
    );
    kust(t.path(), "resources: [r.yaml]\n");
    insta::assert_snapshot!(fails(t.path()));
}

#[cfg(unix)]
fn symlink_cycle() {
    let t = tmp();
    kust(t.path(), "resources: [loop]\n");
    std::os::unix::fs::symlink(".", t.path().join("loop")).expect("symlink");
    insta::assert_snapshot!(fails(t.path()));
}

/// A file outside the kustomization root, reached in each way a kustomization
/// can name files, must be refused under the default load restrictor.
#[cfg(unix)]
fn restrictor_refuses_outside_files() {
    let t = tmp();
    write(t.path(), "outside/cm.yaml", CM.as_bytes());
    write(
        t.path(),
        "outside/patch.yaml",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {a: b}\n",
    );
    write(t.path(), "outside/env", b"A=1\n");
    let outside = t.path().join("outside");
    let abs = std::fs::canonicalize(&outside).expect("canonical");
    let root = t.path().join("root");
    write(&root, "cm.yaml", CM.as_bytes());
    std::os::unix::fs::symlink(abs.join("cm.yaml"), root.join("link.yaml")).expect("symlink");
    let cases: Vec<(&str, String)> = vec![
        (
            "resources-dotdot",
            "resources: [../outside/cm.yaml]\n".into(),
        ),
        (
            "resources-absolute",
            format!("resources: [{}]\n", abs.join("cm.yaml").display()),
        ),
        ("resources-symlink", "resources: [link.yaml]\n".into()),
        (
            "patch-dotdot",
            "resources: [cm.yaml]\npatches:\n- path: ../outside/patch.yaml\n".into(),
        ),
        (
            "psm-absolute",
            format!(
                "resources: [cm.yaml]\npatchesStrategicMerge:\n- {}\n",
                abs.join("patch.yaml").display()
            ),
        ),
        (
            "generator-file",
            "configMapGenerator:\n- name: g\n  files: [../outside/env]\n".into(),
        ),
        (
            "generator-envs",
            "configMapGenerator:\n- name: g\n  envs: [../outside/env]\n".into(),
        ),
        (
            "configurations",
            "resources: [cm.yaml]\nconfigurations: [../outside/cm.yaml]\n".into(),
        ),
    ];
    let mut out = String::new();
    for (name, k) in cases {
        write(&root, "kustomization.yaml", k.as_bytes());
        let err = fails(&root);
        assert!(
            err.contains("security") || err.contains("not in or below"),
            "{name}: {err}"
        );
        out.push_str(&format!(
            "## {name}\n{}",
            err.replace(&abs.display().to_string(), "$OUTSIDE")
        ));
    }
    insta::assert_snapshot!(out);
    // And the same builds are allowed with LoadRestrictionsNone.
    write(
        &root,
        "kustomization.yaml",
        b"resources: [../outside/cm.yaml]\n",
    );
    let o = run(&root, &["--load-restrictor", "LoadRestrictionsNone", "."]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

fn directory_where_a_file_is_expected() {
    let t = tmp();
    std::fs::create_dir_all(t.path().join("adir")).expect("mkdir");
    kust(
        t.path(),
        "configMapGenerator:\n- name: g\n  files: [adir]\n",
    );
    insta::assert_snapshot!(fails(t.path()));
}

#[cfg(unix)]
fn fifo_does_not_block() {
    let t = tmp();
    let fifo = t.path().join("r.yaml");
    let ok = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("mkfifo unavailable; skipping");
        return;
    }
    kust(t.path(), "resources: [r.yaml]\n");
    insta::assert_snapshot!(fails(t.path()));
}

#[cfg(unix)]
fn device_file_is_refused() {
    let t = tmp();
    kust(t.path(), "resources: [/dev/zero]\n");
    let o = run(
        t.path(),
        &["--load-restrictor", "LoadRestrictionsNone", "."],
    );
    assert_eq!(o.code, Some(1));
    assert_eq!(o.stdout_len, 0);
    insta::assert_snapshot!(o.stderr);
}

#[cfg(unix)]
fn unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let t = tmp();
    write(t.path(), "r.yaml", CM.as_bytes());
    let p = t.path().join("r.yaml");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read(&p).is_ok() {
        eprintln!("running as a user who can read mode-000 files (root); skipping");
        return;
    }
    kust(t.path(), "resources: [r.yaml]\n");
    let err = fails(t.path());
    assert!(err.contains("ermission denied"), "{err}");
}
