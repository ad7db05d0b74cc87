//! The library holds no process-global state a build can leak into another: eight builds
//! run at once on eight threads, each with its own `openapi:` schema (a different merge key
//! or strategy for the same custom kind's list) and its own options (kustomize release,
//! `--reorder`, the managed-by label), and each output equals the same build run alone,
//! byte for byte. The schemas are chosen so that the builds' outputs differ: a schema or
//! a cached merge table leaking from one build into another changes the bytes.

use kbuild::build::{BuildOptions, Reorder};
use kbuild::{KustomizeVersion, build, output};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use crate::common;
use common::write;

tests! {
    eight_builds_on_eight_threads_equal_their_sequential_builds,
}

const BUILDS: usize = 8;

/// How build `i`'s schema merges the Widget's `ports` list: by `port`, by `name`, or
/// (no patch strategy) replaced whole.
fn ports_schema(i: usize) -> &'static str {
    match i % 3 {
        0 => r#""x-kubernetes-patch-merge-key": "port", "x-kubernetes-patch-strategy": "merge""#,
        1 => r#""x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge""#,
        _ => r#""x-kubernetes-patch-strategy": "replace""#,
    }
}

/// Build `i`'s kustomization: a Widget and a Deployment, each patched, the schema in
/// `openapi:`, and a name prefix of its own.
fn tree(root: &Path, i: usize) -> PathBuf {
    let dir = root.join(format!("k{i}"));
    let schema = format!(
        r##"{{"definitions": {{
  "com.example.v1.Widget": {{
    "type": "object",
    "properties": {{
      "metadata": {{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}},
      "spec": {{"$ref": "#/definitions/com.example.v1.WidgetSpec"}}
    }},
    "x-kubernetes-group-version-kind": [{{"group": "example.com", "kind": "Widget", "version": "v1"}}]
  }},
  "com.example.v1.WidgetSpec": {{
    "type": "object",
    "properties": {{
      "ports": {{"type": "array", "items": {{"type": "object"}}, {}}}
    }}
  }}
}}}}
"##,
        ports_schema(i)
    );
    write(&dir, "schema.json", schema);
    write(
        &dir,
        "kustomization.yaml",
        format!(
            "openapi:\n  path: schema.json\nnamePrefix: p{i}-\nresources:\n- deployment.yaml\n- widget.yaml\npatches:\n- path: widget-patch.yaml\n- path: deployment-patch.yaml\n"
        ),
    );
    write(
        &dir,
        "widget.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  ports:\n  - port: 80\n    name: http\n  - port: 8080\n    name: admin\n",
    );
    write(
        &dir,
        "widget-patch.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  ports:\n  - port: 80\n    name: web{i}\n  - port: 8080\n    name: http\n"
        ),
    );
    write(
        &dir,
        "deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n        image: a:1\n      - name: b\n        image: b:1\n",
    );
    write(
        &dir,
        "deployment-patch.yaml",
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n      - name: b\n        image: b:{i}\n"
        ),
    );
    dir
}

/// Build `i`'s options: each combination of release, order and label differs from its
/// neighbours'.
fn options(i: usize) -> BuildOptions {
    BuildOptions {
        kustomize_version: if i.is_multiple_of(2) {
            KustomizeVersion::V5_8_1
        } else {
            KustomizeVersion::V5_5_0
        },
        reorder: if i % 4 < 2 {
            Reorder::Unspecified
        } else {
            Reorder::None
        },
        add_managed_by_label: i % 3 == 1,
        ..BuildOptions::default()
    }
}

fn render(dir: &Path, i: usize) -> String {
    match build(dir, &options(i)) {
        Ok(resmap) => output::render(&resmap),
        Err(e) => panic!("build {i}: {}", e.report()),
    }
}

fn eight_builds_on_eight_threads_equal_their_sequential_builds() {
    let root = tempfile::tempdir().unwrap();
    let dirs: Vec<PathBuf> = (0..BUILDS).map(|i| tree(root.path(), i)).collect();
    let alone: Vec<String> = dirs.iter().enumerate().map(|(i, d)| render(d, i)).collect();
    // The schemas matter: merged by port (two ports), by name (three: `web` is new,
    // `http` moves to 8080 next to `admin`) and replaced whole (the patch's two).
    let ports = |text: &str| text.matches("port: ").count();
    assert_eq!(
        [ports(&alone[0]), ports(&alone[1]), ports(&alone[2])],
        [2, 3, 2],
        "{}\n{}\n{}",
        alone[0],
        alone[1],
        alone[2]
    );
    // Several rounds: each one starts the eight builds at the same instant.
    for round in 0..3 {
        let start = Arc::new(Barrier::new(BUILDS));
        let together: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = dirs
                .iter()
                .enumerate()
                .map(|(i, dir)| {
                    let start = Arc::clone(&start);
                    scope.spawn(move || {
                        start.wait();
                        render(dir, i)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (i, (a, b)) in alone.iter().zip(&together).enumerate() {
            assert_eq!(a, b, "round {round}: build {i} alone and among others");
        }
    }
}
