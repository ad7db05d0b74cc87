//! A full file system while `-o` writes: the previous contents survive whole and no
//! temporary file is left. The full file system is a 32 KiB tmpfs, which needs `mount`
//! and the right to use it (root); without them the test reports itself ignored with the
//! reason (and fails under CI=true).

#![cfg(unix)]

use crate::common;
use common::{Needing, needing, write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A mounted tmpfs, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(kib: u32) -> Result<Tmpfs, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("needs mount(8) to make a small full file system: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "needs the right to mount a tmpfs (root): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// A kustomization of 20 ConfigMaps of 2 KB each: more than 32 KiB in all.
fn big_tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().expect("tempdir");
    let mut stream = String::new();
    for i in 0..20 {
        stream.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  a: {}\n",
            "x".repeat(2000)
        ));
    }
    write(t.path(), "k/cm.yaml", stream);
    write(t.path(), "k/kustomization.yaml", "resources: [cm.yaml]\n");
    t
}

fn kbuild(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(args)
        .output()
        .expect("run kbuild");
    assert!(out.stdout.is_empty());
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

fn output_dir_on_a_full_disk(_: ()) {
    let fs = Tmpfs::mount(32).expect("mounted");
    let tree = big_tree();
    let previous = fs.path().join("v1_configmap_cm-3.yaml");
    std::fs::write(&previous, "previous\n").expect("write");
    let k: PathBuf = tree.path().join("k");
    let (code, stderr) = kbuild(&[k.as_os_str(), "-o".as_ref(), fs.path().as_os_str()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert_eq!(names(fs.path()), ["v1_configmap_cm-3.yaml"]);
    assert_eq!(
        std::fs::read_to_string(&previous).expect("read"),
        "previous\n"
    );
}

fn output_file_on_a_full_disk(_: ()) {
    let fs = Tmpfs::mount(32).expect("mounted");
    let tree = big_tree();
    let target = fs.path().join("all.yaml");
    std::fs::write(&target, "previous\n").expect("write");
    let k: PathBuf = tree.path().join("k");
    let (code, stderr) = kbuild(&[k.as_os_str(), "-o".as_ref(), target.as_os_str()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("all.yaml: No space left on device"),
        "{stderr}"
    );
    assert_eq!(names(fs.path()), ["all.yaml"]);
    assert_eq!(
        std::fs::read_to_string(&target).expect("read"),
        "previous\n"
    );
}

/// This file's tests (run by tests/integration.rs).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    let prerequisite = || Tmpfs::mount(32).map(drop);
    let tests: &[Needing<()>] = &[
        ("output_dir_on_a_full_disk", output_dir_on_a_full_disk),
        ("output_file_on_a_full_disk", output_file_on_a_full_disk),
    ];
    needing(module_path!(), prerequisite, tests)
}
