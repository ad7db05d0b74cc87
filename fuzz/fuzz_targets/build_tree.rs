//! The whole build over a small tree. The input is the top `kustomization.yaml`, then files
//! each introduced by a line `#> relative/path` (for example `#> base/kustomization.yaml`).
//! The tree is written to a fresh temporary directory (the loader reads the real file
//! system) and built with the default load restrictor; a successful build must print as YAML
//! that parses back to the same resources.

#![no_main]

#[path = "common/mod.rs"]
mod common;

use kbuild::build::{build, BuildOptions};
use libfuzzer_sys::fuzz_target;
use std::path::{Component, Path, PathBuf};

/// At most this many files per input, and this many path components per file.
const MAX_FILES: usize = 16;
const MAX_DEPTH: usize = 4;

/// A header's path, kept inside the tree: plain components only, nothing absolute, no `..`.
fn safe_path(header: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in Path::new(header.trim()).components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            _ => return None,
        }
    }
    let n = out.components().count();
    (n > 0 && n <= MAX_DEPTH).then_some(out)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(dir) = tempfile::tempdir() else { return };
    let mut pieces = text.split("\n#> ");
    let top = pieces.next().unwrap_or_default();
    if std::fs::write(dir.path().join("kustomization.yaml"), top).is_err() {
        return;
    }
    for piece in pieces.take(MAX_FILES) {
        let (header, body) = piece.split_once('\n').unwrap_or((piece, ""));
        let Some(rel) = safe_path(header) else { continue };
        let path = dir.path().join(rel);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(path, body);
    }
    let Ok(resmap) = build(dir.path(), &BuildOptions::default()) else { return };
    if resmap.iter().any(|r| common::keys_collide_when_printed(r.node())) {
        return;
    }
    let out = kbuild::output::render(&resmap);
    let back = kbuild::yaml::parse::parse_stream(&out, "output")
        .unwrap_or_else(|e| panic!("build output does not parse: {e}\n{out}"));
    let nodes: Vec<_> = resmap.iter().map(|r| r.node()).collect();
    assert_eq!(back.len(), nodes.len(), "resource count changed\n{out}");
    for (b, n) in back.iter().zip(nodes) {
        assert!(common::same(b, n), "output does not parse back to the resource\n{out}");
    }
});
