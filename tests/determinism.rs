//! Determinism: the same input gives the same bytes whatever the thread count
//! (`RAYON_NUM_THREADS`), the order files were created in (directory order on disk) and the
//! locale and time zone. Each case is copied twice into fresh directories — once in sorted
//! order, once in reverse — and the real binary runs once per copy with different settings.

use std::path::{Path, PathBuf};
use std::process::Command;

tests! {
    example_overlays,
    fixtures,
    large_generated_tree,
}

/// One run's settings: environment variables to set, and whether to copy files in reverse.
struct Setting {
    env: &'static [(&'static str, &'static str)],
    reverse: bool,
}

const SETTINGS: [Setting; 3] = [
    Setting {
        env: &[
            ("RAYON_NUM_THREADS", "1"),
            ("LANG", "C"),
            ("LC_ALL", "C"),
            ("TZ", "UTC"),
        ],
        reverse: false,
    },
    // The default thread count (no RAYON_NUM_THREADS), another locale and an odd time zone.
    Setting {
        env: &[
            ("LANG", "tr_TR.UTF-8"),
            ("LC_ALL", "tr_TR.UTF-8"),
            ("TZ", "Pacific/Chatham"),
        ],
        reverse: true,
    },
    // More threads than cores, so the parallel paths really interleave.
    Setting {
        env: &[
            ("RAYON_NUM_THREADS", "7"),
            ("LANG", "de_DE.UTF-8"),
            ("TZ", "America/St_Johns"),
        ],
        reverse: true,
    },
];

/// All files under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| e.path().strip_prefix(dir).ok().map(Path::to_path_buf))
        .collect();
    out.sort();
    out
}

/// Copies the tree at `src` into `dst`, creating files in sorted or reverse order.
fn copy_tree(src: &Path, dst: &Path, reverse: bool) {
    let mut list = files(src);
    if reverse {
        list.reverse();
    }
    for rel in list {
        let to = dst.join(&rel);
        std::fs::create_dir_all(to.parent().expect("a file has a parent")).expect("mkdir");
        std::fs::copy(src.join(&rel), &to).expect("copy");
    }
}

/// Runs kbuild on `rel` (a directory inside the tree `src`) once per setting, each in its own
/// copy of the tree, and checks every run printed the same bytes with the same exit code.
/// Paths in messages are written relative to the copy, so copies compare equal.
fn check_same(src: &Path, rel: &str) {
    let mut first: Option<(Option<i32>, Vec<u8>, String)> = None;
    for (i, setting) in SETTINGS.iter().enumerate() {
        let copy = tempfile::tempdir().expect("tempdir");
        copy_tree(src, copy.path(), setting.reverse);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kbuild"));
        cmd.arg(rel)
            .current_dir(copy.path())
            .env_remove("RAYON_NUM_THREADS");
        for (k, v) in setting.env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run kbuild");
        let real = std::fs::canonicalize(copy.path()).expect("canonical");
        let stderr =
            String::from_utf8_lossy(&out.stderr).replace(&real.display().to_string(), "$ROOT");
        let this = (out.status.code(), out.stdout, stderr);
        match &first {
            None => first = Some(this),
            Some(f) => {
                assert_eq!(
                    f.0,
                    this.0,
                    "{}/{rel}: exit code differs under setting {i}",
                    src.display()
                );
                assert_eq!(
                    f.2,
                    this.2,
                    "{}/{rel}: stderr differs under setting {i}",
                    src.display()
                );
                assert!(
                    f.1 == this.1,
                    "{}/{rel}: output differs under setting {i}",
                    src.display()
                );
            }
        }
    }
}

fn example_overlays() {
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shop");
    for overlay in ["overlays/dev", "overlays/staging", "overlays/prod", "base"] {
        check_same(&shop, overlay);
    }
}

fn fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut n = 0;
    for group in ["pipeline", "name-reference"] {
        let Ok(cases) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        let mut cases: Vec<PathBuf> = cases.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        cases.sort();
        for case in cases {
            if case.join("in/kustomization.yaml").is_file() {
                check_same(&case.join("in"), ".");
                n += 1;
            }
        }
    }
    assert!(n >= 10, "expected fixture cases, found {n}");
}

/// A tree big enough for the parallel parse and emit paths (over 1 MiB of YAML, thousands of
/// documents), with generators, name references, labels and a namespace.
fn large_generated_tree() {
    let t = tempfile::tempdir().expect("tempdir");
    let mut y = String::new();
    for i in 0..6000 {
        y.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\n  labels: {{tier: t{}}}\n\
             spec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.{}\n\
             \x20       envFrom:\n        - configMapRef: {{name: settings}}\n",
            i % 7,
            i % 13
        ));
        y.push_str(&format!("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i}\nspec:\n  ports: [{{port: {}}}]\n", 1000 + i));
    }
    std::fs::write(t.path().join("r.yaml"), y).expect("write");
    std::fs::write(
        t.path().join("kustomization.yaml"),
        "namespace: big\nnamePrefix: p-\nlabels:\n- pairs: {app: big}\nresources: [r.yaml]\n\
         configMapGenerator:\n- name: settings\n  literals: [a=1, b=2]\n",
    )
    .expect("write");
    check_same(t.path(), ".");
}
