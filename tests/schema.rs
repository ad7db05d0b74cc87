//! `kustomization.schema.json` must match the Rust model, and every fixture
//! and example kustomization must validate against it.

use std::path::Path;

tests! {
    schema_file_is_current,
    fixtures_validate,
    schema_flags_what_kustomize_refuses,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn schema_file_is_current() {
    let generated = kbuild::kustomization::schema_json();
    let path = root().join("kustomization.schema.json");
    if crate::common::bless::blessing() {
        std::fs::write(&path, &generated).expect("write schema");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    crate::common::bless::differs_if(checked_in != generated);
    assert!(
        checked_in == generated,
        "kustomization.schema.json is stale"
    );
}

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
            // Fixtures that test bad kustomization files are not expected to validate.
            let s = p.to_string_lossy();
            if s.contains("/errors/") {
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

fn validator() -> jsonschema::Validator {
    let schema: serde_json::Value =
        serde_json::from_str(&kbuild::kustomization::schema_json()).expect("schema is JSON");
    jsonschema::validator_for(&schema).expect("valid schema")
}

fn json(text: &str) -> serde_json::Value {
    kbuild::yaml::parse::parse_document(text, "kustomization.yaml")
        .expect("parse")
        .to_json()
}

/// Mistakes kustomize refuses are flagged by the schema; what kustomize accepts passes,
/// field names in any case included. (The fixtures and examples above are the many
/// real-shaped kustomizations; these are the edges.)
fn schema_flags_what_kustomize_refuses() {
    let v = validator();
    let good = [
        "nameprefix: p-\nRESOURCES: [a.yaml]\n",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nnamesuffix: -s\n",
        "kind: Component\n",
        "commonlabels: {app: web}\nimages: [{name: a, newtag: \"1\"}]\n",
    ];
    for text in good {
        let errors: Vec<String> = v.iter_errors(&json(text)).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{text}: {errors:?}");
    }
    let bad = [
        "nameprefx: p-\n",
        "kind: Kustomisation\n",
        "kind: kustomization\n",
        "apiVersion: kustomize.config.k8s.io/v1\n",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Kustomization\n",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Component\n",
        "resources: a.yaml\n",
        "namePrefix: [p]\n",
        "NAMEPREFIX: [p]\n",
        "replicas: [{name: web, count: many}]\n",
    ];
    for text in bad {
        assert!(!v.is_valid(&json(text)), "{text} validated");
    }
}
