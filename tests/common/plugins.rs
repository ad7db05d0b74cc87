//! A temporary tree for plugin tests: a kustomization (`k/`), a plugin home (`home/`),
//! stand-in programs (`bin/`, first on PATH) and a temporary directory of its own per
//! program run (`TMPDIR`), so that a test can check that nothing was left in it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A temporary plugin tree, removed when dropped.
pub(crate) struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    pub(crate) fn new() -> Tree {
        let dir = tempfile::tempdir().expect("tempdir");
        for d in ["k", "home", "bin", "tmp"] {
            std::fs::create_dir_all(dir.path().join(d)).expect("mkdir");
        }
        Tree { dir }
    }

    /// The absolute path of `rel` in the tree.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes a file.
    pub(crate) fn write(&self, rel: &str, text: &str) {
        super::write(self.dir.path(), rel, text);
    }

    /// Writes an executable file.
    pub(crate) fn script(&self, rel: &str, text: &str) {
        self.write(rel, text);
        std::fs::set_permissions(self.path(rel), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
    }

    /// Writes a legacy exec plugin for `api_version`/`kind` into the plugin home.
    pub(crate) fn exec_plugin(&self, api_version: &str, kind: &str, text: &str) {
        self.script(
            &format!("home/{api_version}/{}/{kind}", kind.to_lowercase()),
            text,
        );
    }

    /// A command in the tree's environment: its plugin home, `bin/` first on PATH, HOME
    /// in the tree (no XDG_CONFIG_HOME), TMPDIR emptied first.
    pub(crate) fn command(&self, program: &Path) -> Command {
        let tmp = self.path("tmp");
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).expect("mkdir tmp");
        let mut cmd = Command::new(program);
        let path = format!(
            "{}:{}",
            self.path("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.current_dir(self.dir.path())
            .env("KUSTOMIZE_PLUGIN_HOME", self.path("home"))
            .env("HOME", self.dir.path())
            .env_remove("XDG_CONFIG_HOME")
            .env("TMPDIR", &tmp)
            .env("PATH", path)
            .env("TREE", self.dir.path());
        cmd
    }

    /// Runs kbuild with `args`.
    pub(crate) fn kbuild(&self, args: &[&str]) -> Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_kbuild")))
            .args(args)
            .output()
            .expect("run kbuild")
    }

    /// Runs `kubectl kustomize` with `args`.
    pub(crate) fn kubectl(&self, kubectl: &Path, args: &[&str]) -> Output {
        self.command(kubectl)
            .arg("kustomize")
            .args(args)
            .output()
            .expect("run kubectl")
    }

    /// Fails when the last run left anything in its temporary directory.
    pub(crate) fn assert_no_temp_debris(&self) {
        let left: Vec<_> = std::fs::read_dir(self.path("tmp"))
            .expect("read tmp")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert!(left.is_empty(), "temporary files left behind: {left:?}");
    }
}

/// stdout as text.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// stderr as text.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that kbuild failed cleanly: non-zero exit, nothing on stdout, no temporary
/// files, and each of `needles` in its error.
pub(crate) fn assert_fails(tree: &Tree, out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert!(!out.status.success(), "kbuild succeeded:\n{}", stdout(out));
    assert!(out.stdout.is_empty(), "stdout on failure:\n{}", stdout(out));
    for n in needles {
        assert!(err.contains(n), "{n:?} not in the error:\n{err}");
    }
    tree.assert_no_temp_debris();
}
