//! `kbuild merge3 --in-place` keeps DEST's comments and layout: a file full of comments
//! is edited where the merge changes it and nowhere else (issue 37, item 9).

use std::process::Command;

tests! {
    in_place_keeps_comments_and_layout,
}

const ORIGINAL: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    old: x\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:1\n";

const DEST: &str = "# Our web deployment: do not remove this comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web   # the name
  labels: {team: a}   # flow style kept
  annotations:
    old: x     # upstream removes this one
spec:

  # three replicas in production
  replicas: 3
  template:
    spec:
      containers:
        - name: app
          image: \"app:1\"   # bumped by merge3
---
# a second document, untouched
apiVersion: v1
kind: ConfigMap
metadata:
  name: other
data:
  x: \"1\"   # quoted on purpose
";

fn in_place_keeps_comments_and_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let updated = ORIGINAL
        .replace("app:1", "app:2")
        .replace("    old: x\n", "    new: fresh\n");
    std::fs::write(d.join("original.yaml"), ORIGINAL).unwrap();
    std::fs::write(d.join("updated.yaml"), updated).unwrap();
    std::fs::write(d.join("dest.yaml"), DEST).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kbuild"))
        .args(["merge3", "--original", "original.yaml", "--updated"])
        .args(["updated.yaml", "--dest", "dest.yaml", "--in-place"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = std::fs::read_to_string(d.join("dest.yaml")).unwrap();
    let want = DEST
        .replace(
            "    old: x     # upstream removes this one\n",
            "    new: fresh\n",
        )
        .replace("image: \"app:1\"", "image: app:2");
    assert_eq!(got, want);
}
