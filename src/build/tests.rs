//! The build on the in-memory file system agrees with the build on disk.

use super::{BuildOptions, build_in, build_with_warnings};
use crate::load::{LoadRestrictor, MemFs};
use std::sync::Arc;

const TREE: &[(&str, &str)] = &[
    (
        "base/kustomization.yaml",
        "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: cfg\n  files:\n  - app.properties\n",
    ),
    (
        "base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n        envFrom:\n        - configMapRef:\n            name: cfg\n",
    ),
    ("base/app.properties", "a=1\n"),
    (
        "overlay/kustomization.yaml",
        "resources:\n- ../base\nnamePrefix: prod-\npatches:\n- path: patch.yaml\n",
    ),
    (
        "overlay/patch.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
    ),
    (
        "escape/kustomization.yaml",
        "resources:\n- ../base/deploy.yaml\n",
    ),
];

fn mem_tree(root: &str) -> MemFs {
    TREE.iter().fold(MemFs::new(), |fs, (path, text)| {
        fs.file(format!("{root}/{path}"), text)
    })
}

fn outcome(result: crate::Result<super::BuildOutput>, root: &str) -> Result<String, String> {
    result
        .map(|out| crate::output::render(&out.resmap))
        .map_err(|e| e.report().to_string().replace(root, "$ROOT"))
}

#[test]
fn memory_and_disk_builds_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let disk = std::fs::canonicalize(tmp.path()).unwrap();
    for (path, text) in TREE {
        let path = disk.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let disk_root = disk.display().to_string();
    let mem = Arc::new(mem_tree("/work"));
    for dir in ["overlay", "base", "escape", "missing"] {
        for restrictor in [LoadRestrictor::RootOnly, LoadRestrictor::None] {
            let options = BuildOptions {
                load_restrictor: restrictor,
                ..Default::default()
            };
            let on_disk = outcome(build_with_warnings(&disk.join(dir), &options), &disk_root);
            let in_memory = outcome(
                build_in(mem.clone(), format!("/work/{dir}").as_ref(), &options),
                "/work",
            );
            assert_eq!(in_memory, on_disk, "{dir} {restrictor:?}");
        }
    }
    // The tree builds, and the restrictor refuses the escape.
    let options = BuildOptions::default();
    let built = outcome(
        build_in(mem.clone(), "/work/overlay".as_ref(), &options),
        "/work",
    );
    assert!(built.unwrap().contains("name: prod-web"));
    let refused = outcome(build_in(mem, "/work/escape".as_ref(), &options), "/work");
    // Reported at the entry that names the file.
    let refused = refused.unwrap_err();
    assert!(
        refused.starts_with(
            "$ROOT/escape/kustomization.yaml:2:3: resources[0]: security: file '../base/deploy.yaml'"
        ),
        "{refused}"
    );
}

/// Forty levels of diamonds (each level lists two overlays of the next): the
/// paths to the bottom number 2^40. The build reaches the duplicate ids at
/// the bottom after building each level once; it used to walk every path
/// before starting.
#[test]
fn stacked_diamonds_are_walked_once() {
    let mut fs = MemFs::new();
    let depth = 40;
    for level in 0..depth {
        fs = fs
            .file(
                format!("/t/l{level}/kustomization.yaml"),
                "resources:\n- a\n- b\n",
            )
            .file(
                format!("/t/l{level}/a/kustomization.yaml"),
                format!("resources:\n- ../../l{}\n", level + 1),
            )
            .file(
                format!("/t/l{level}/b/kustomization.yaml"),
                format!("resources:\n- ../../l{}\n", level + 1),
            );
    }
    fs = fs
        .file(
            format!("/t/l{depth}/kustomization.yaml"),
            "resources:\n- cm.yaml\n",
        )
        .file(
            format!("/t/l{depth}/cm.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
        );
    let err = build_in(Arc::new(fs), "/t/l0".as_ref(), &BuildOptions::default()).unwrap_err();
    assert!(
        err.report().to_string().contains("already registered id"),
        "{}",
        err.report()
    );
}

#[test]
fn a_resource_listed_twice_is_a_duplicate_id() {
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    let fs = MemFs::new()
        .file("/t/kustomization.yaml", "resources:\n- a.yaml\n- b.yaml\n")
        .file("/t/a.yaml", cm)
        .file("/t/b.yaml", cm);
    let err = build_in(Arc::new(fs), "/t".as_ref(), &BuildOptions::default()).unwrap_err();
    assert_eq!(
        err.kind(),
        crate::ErrorKind::DuplicateId,
        "{}",
        err.report()
    );
    match err.root() {
        crate::Error::DuplicateId { id, msg } => {
            assert_eq!(id, "ConfigMap.v1.[noGrp]/x.[noNs]");
            assert!(msg.contains("already registered id"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_replacement_source_that_matches_nothing_is_no_match() {
    let fs = MemFs::new()
        .file(
            "/t/kustomization.yaml",
            "resources:\n- cm.yaml\nreplacements:\n- source:\n    kind: Secret\n    name: absent\n  targets:\n  - select:\n      kind: ConfigMap\n    fieldPaths:\n    - data.x\n",
        )
        .file(
            "/t/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  x: a\n",
        );
    let err = build_in(Arc::new(fs), "/t".as_ref(), &BuildOptions::default()).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::NoMatch, "{}", err.report());
    assert!(
        matches!(err.root(), crate::Error::NoMatch { matched: 0, .. }),
        "{:?}",
        err.root()
    );
    assert!(
        err.report()
            .to_string()
            .contains("no resource matches the source"),
        "{}",
        err.report()
    );
}

#[test]
fn a_replacement_source_that_matches_two_is_no_match() {
    let fs = MemFs::new()
        .file(
            "/t/kustomization.yaml",
            "resources:\n- cm.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n  targets:\n  - select:\n      kind: ConfigMap\n    fieldPaths:\n    - data.x\n",
        )
        .file(
            "/t/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  x: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  x: b\n",
        );
    let err = build_in(Arc::new(fs), "/t".as_ref(), &BuildOptions::default()).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::NoMatch, "{}", err.report());
    assert!(
        matches!(err.root(), crate::Error::NoMatch { matched: 2, .. }),
        "{:?}",
        err.root()
    );
}

/// The managed-by label is written into the value a selector shares (kustomize v5.5.0
/// and v5.8.1 agree, except for the version each writes).
#[test]
fn the_managed_by_label_reaches_a_selector_sharing_it() {
    let fs = MemFs::new()
        .file(
            "/t/kustomization.yaml",
            "resources:\n- svc.yaml\nbuildMetadata:\n- managedByLabel\ncommonLabels:\n  app.kubernetes.io/managed-by: helm\n",
        )
        .file(
            "/t/svc.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n",
        );
    let out = build_in(Arc::new(fs), "/t".as_ref(), &BuildOptions::default()).unwrap();
    let svc = out.resmap.resources[0].node();
    let value = crate::kustomize_version::KustomizeVersion::default().managed_by_value();
    for path in [
        ["metadata", "labels", "app.kubernetes.io/managed-by"],
        ["spec", "selector", "app.kubernetes.io/managed-by"],
    ] {
        assert_eq!(svc.get_str(&path), Some(value), "{path:?}");
    }
}
