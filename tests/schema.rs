//! `kustomization.schema.json` must match the Rust model, and every fixture
//! and example kustomization must validate against it.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn schema_file_is_current() {
    let generated = kbuild::kustomization::schema_json();
    let path = root().join("kustomization.schema.json");
    if std::env::var_os("KBUILD_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).expect("write schema");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "kustomization.schema.json is stale: run `KBUILD_UPDATE_SCHEMA=1 cargo test --test schema`"
    );
}

#[test]
fn fixtures_validate() {
    let schema: serde_json::Value =
        serde_json::from_str(&kbuild::kustomization::schema_json()).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("valid schema");
    let mut checked = 0;
    let mut failures = Vec::new();
    for dir in ["tests/fixtures", "examples"] {
        for entry in walkdir::WalkDir::new(root().join(dir))
            .into_iter()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy();
            if !kbuild::kustomization::FILE_NAMES.contains(&name.as_ref()) {
                continue;
            }
            let p = entry.path();
            // Fixtures that test bad kustomization files, and kustomize's
            // case-insensitive field names, are not expected to validate.
            let s = p.to_string_lossy();
            if s.contains("/errors/") || s.contains("field-names-ignore-case") {
                continue;
            }
            let text = std::fs::read_to_string(p).expect("read");
            let node = kbuild::yaml::parse::parse_document(&text, &s).expect("parse");
            let json = if node.is_null() {
                serde_json::json!({})
            } else {
                node.to_json()
            };
            checked += 1;
            if let Err(e) = validator.validate(&json) {
                failures.push(format!("{s}: {e}"));
            }
        }
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
