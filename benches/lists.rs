//! Benchmarks of long lists (`cargo bench --bench lists`): `apply --dry-run`
//! of a Deployment with thousands of env vars or containers (Kubernetes' strategic merge),
//! `merge3` of 20,000 containers, `diff` of 40,000 named list elements and `edit remove
//! resource` / `set image` on 20,000 entries; a build's patches of lists kyaml merged in
//! quadratic time, and a JSON patch of long runs. Each was quadratic or worse before (30 s,
//! more than 60 s, 24 s, a minute, more than 60 s, ...); the sizes are those of issue 31,
//! so a regression shows as seconds here.

use kbuild::kubectl_apply::{ApplyOptions, dry_run};
use kbuild::merge::merge3::{Merge3Options, merge3_resources};
use kbuild::yaml::{Node, parse};

fn main() {
    divan::main();
}

/// A Deployment (JSON, which is YAML) whose pod has `containers`, optionally with the
/// last-applied annotation holding `applied`.
fn deployment(containers: &[String], applied: Option<&str>) -> String {
    let annotations = match applied {
        Some(text) => format!(
            "\"annotations\": {{\"kubectl.kubernetes.io/last-applied-configuration\": {}}}, ",
            serde_json::Value::String(text.to_string())
        ),
        None => String::new(),
    };
    format!(
        "{{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {{{annotations}\"name\": \"web\", \"namespace\": \"default\"}}, \"spec\": {{\"selector\": {{\"matchLabels\": {{\"app\": \"web\"}}}}, \"template\": {{\"metadata\": {{\"labels\": {{\"app\": \"web\"}}}}, \"spec\": {{\"containers\": [{}]}}}}}}}}\n",
        containers.join(", ")
    )
}

fn doc(text: &str) -> Node {
    parse::parse_document(text, "bench.yaml").expect("parses")
}

/// Live object (applied with `old`, a field the server set in each container) and new
/// configuration (`new`).
fn apply_inputs(old: &[String], new: &[String]) -> (Vec<Node>, Vec<Node>) {
    let applied = kbuild::yaml::gojson::to_string(
        &doc(&deployment(old, None)),
        kbuild::yaml::gojson::Numbers::AsIs,
    )
    .expect("json");
    let live: Vec<String> = old
        .iter()
        .map(|c| c.replacen('{', "{\"imagePullPolicy\": \"Always\", ", 1))
        .collect();
    let live = doc(&deployment(&live, Some(&format!("{applied}\n"))));
    (vec![live], vec![doc(&deployment(new, None))])
}

fn env(value: &str, n: usize) -> String {
    let vars: Vec<String> = (0..n)
        .map(|i| format!("{{\"name\": \"E{i}\", \"value\": \"{value}{i}\"}}"))
        .collect();
    format!(
        "{{\"name\": \"main\", \"image\": \"a:{value}\", \"env\": [{}]}}",
        vars.join(", ")
    )
}

fn containers(image: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!("{{\"name\": \"c{i}\", \"image\": \"{image}:{i}\", \"env\": [{{\"name\": \"A\", \"value\": \"1\"}}]}}")
        })
        .collect()
}

/// `kbuild apply --dry-run` of one container's env vars, every value changed.
#[divan::bench(args = [2_000, 20_000], sample_count = 5)]
fn apply_env_vars(bencher: divan::Bencher, n: usize) {
    let (live, config) = apply_inputs(&[env("old", n)], &[env("new", n)]);
    bencher.bench(|| dry_run(&live, &config, &ApplyOptions::default()).expect("applies"));
}

/// `kbuild apply --dry-run` of a Deployment's containers, every image changed.
#[divan::bench(args = [2_500, 20_000], sample_count = 5)]
fn apply_containers(bencher: divan::Bencher, n: usize) {
    let (live, config) = apply_inputs(&containers("old", n), &containers("new", n));
    bencher.bench(|| dry_run(&live, &config, &ApplyOptions::default()).expect("applies"));
}

/// `kbuild apply --dry-run` of a ConfigMap that drops 100,000 keys: the patch deletes
/// each, and a mapping merged with many deletions must not shift the rest each time.
#[divan::bench(sample_count = 5)]
fn apply_configmap_deletions(bencher: divan::Bencher) {
    let data: Vec<String> = (0..100_000).map(|i| format!("\"k{i}\": \"v\"")).collect();
    let old = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"annotations\": {{}}, \"name\": \"c\", \"namespace\": \"default\"}}, \"data\": {{{}}}}}",
        data.join(", ")
    );
    let applied = kbuild::yaml::gojson::to_string(&doc(&old), kbuild::yaml::gojson::Numbers::AsIs)
        .expect("json");
    let mut live = doc(&old);
    if let Some(Node::Map(a)) = live.get_path_mut(&["metadata", "annotations"]) {
        a.insert(
            "kubectl.kubernetes.io/last-applied-configuration",
            Node::text(format!("{applied}\n")),
        );
    }
    let config = doc(
        "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c\", \"namespace\": \"default\"}, \"data\": {\"only\": \"x\"}}",
    );
    let (live, config) = (vec![live], vec![config]);
    bencher.bench(|| dry_run(&live, &config, &ApplyOptions::default()).expect("applies"));
}

/// `kbuild merge3` of a Deployment with 20,000 containers: images changed upstream, an
/// env var added to each locally.
#[divan::bench(args = [20_000], sample_count = 5)]
fn merge3_containers(bencher: divan::Bencher, n: usize) {
    let plain = |image: &str| {
        (0..n)
            .map(|i| format!("{{\"name\": \"c{i}\", \"image\": \"{image}:{i}\"}}"))
            .collect::<Vec<_>>()
    };
    let original = vec![doc(&deployment(&plain("old"), None))];
    let updated = vec![doc(&deployment(&plain("new"), None))];
    let dest = vec![doc(&deployment(&containers("old", n), None))];
    let options = Merge3Options::cli();
    bencher.bench(|| merge3_resources(&original, &updated, &dest, &options).expect("merges"));
}

/// `kbuild diff` of two Deployments with 40,000 containers, every image changed: the
/// containers pair by name.
#[divan::bench(args = [40_000], sample_count = 5)]
fn diff_named_elements(bencher: divan::Bencher, n: usize) {
    let side = |image: &str| {
        let text = deployment(&containers(image, n), None);
        kbuild::diff::Side {
            label: image.to_string(),
            resources: kbuild::resource::parse::parse_resources(
                text.into_bytes(),
                std::path::Path::new("bench.yaml"),
            )
            .expect("parses"),
        }
    };
    let (old, new) = (side("old"), side("new"));
    let options = kbuild::diff::DiffOptions::default();
    bencher.bench(|| kbuild::diff::diff(&old, &new, &options).expect("diffs"));
}

/// A kustomization directory with `text` as its file.
fn kustomization(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kbuild-bench-lists-{name}"));
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("kustomization.yaml"), text).expect("write");
    dir
}

/// `kbuild edit remove resource 'drop-*.yaml'` on 20,000 entries, 11,000 of which match.
#[divan::bench(args = [20_000], sample_count = 5)]
fn edit_remove_resources(bencher: divan::Bencher, n: usize) {
    let mut text = String::from("resources:\n");
    for i in 0..n {
        let kind = if i % 20 < 11 { "drop" } else { "keep" };
        text.push_str(&format!("- {kind}-{i}.yaml\n"));
    }
    let dir = kustomization("remove", &text);
    let pattern = ["drop-*.yaml".to_string()];
    bencher.bench(|| {
        let mut file = kbuild::edit::KustomizationFile::open(&dir).expect("opens");
        file.remove_listed("resources", &pattern).expect("removes");
        file
    });
}

/// `kbuild edit set image` with 20,000 arguments on 20,000 entries: half update an
/// entry, half add one where the sorted list puts it.
#[divan::bench(args = [20_000], sample_count = 5)]
fn edit_set_images(bencher: divan::Bencher, n: usize) {
    let mut text = String::from("images:\n");
    for i in 0..n {
        text.push_str(&format!("- name: img{:06}\n  newTag: \"1\"\n", 2 * i));
    }
    let dir = kustomization("images", &text);
    let args: Vec<String> = (0..n).map(|i| format!("img{i:06}:2")).collect();
    bencher.bench(|| {
        let mut file = kbuild::edit::KustomizationFile::open(&dir).expect("opens");
        file.set_images(&args).expect("sets");
        file
    });
}

/// A build's patch (kustomize's strategic merge) of a Deployment with 20,000 containers,
/// one name repeated, and of a Service with 20,000 ports without protocol: lists kyaml's
/// general algorithm merged in quadratic time.
#[divan::bench(args = ["repeated-name", "ports"], sample_count = 5)]
fn build_patch_keyed_lists(bencher: divan::Bencher, case: &str) {
    let n = 20_000;
    let (target, patch) = match case {
        "repeated-name" => {
            let mut all = containers("old", n);
            all.push("{\"name\": \"c0\", \"image\": \"repeated\"}".to_string());
            let half: Vec<String> = (0..n)
                .step_by(2)
                .map(|i| format!("{{\"name\": \"c{i}\", \"image\": \"new\"}}"))
                .collect();
            (deployment(&all, None), deployment(&half, None))
        }
        _ => {
            let service = |ports: Vec<String>| {
                format!(
                    "{{\"apiVersion\": \"v1\", \"kind\": \"Service\", \"metadata\": {{\"name\": \"s\"}}, \"spec\": {{\"ports\": [{}]}}}}",
                    ports.join(", ")
                )
            };
            let all = (1..=n).map(|p| format!("{{\"port\": {p}, \"targetPort\": {p}}}"));
            let half = (1..=n)
                .step_by(2)
                .map(|p| format!("{{\"port\": {p}, \"name\": \"p{p}\"}}"));
            (service(all.collect()), service(half.collect()))
        }
    };
    let (target, patch) = (doc(&target), doc(&patch));
    bencher.with_inputs(|| target.clone()).bench_refs(|t| {
        kbuild::merge::smp::apply(t, &patch, None).expect("merges");
    });
}

/// A JSON patch of 30,000 removals from a 30,000-key mapping and 30,000 insertions at the
/// front of a list.
#[divan::bench(sample_count = 5)]
fn json_patch_runs(bencher: divan::Bencher) {
    let n = 30_000;
    let data: Vec<String> = (0..n).map(|i| format!("\"k{i}\": \"v\"")).collect();
    let target = doc(&format!(
        "{{\"data\": {{{}}}, \"list\": []}}",
        data.join(", ")
    ));
    let ops: Vec<String> = (0..n)
        .map(|i| format!("{{\"op\": \"remove\", \"path\": \"/data/k{i}\"}}"))
        .chain(
            (0..n).map(|i| format!("{{\"op\": \"add\", \"path\": \"/list/0\", \"value\": {i}}}")),
        )
        .collect();
    let ops = doc(&format!("[{}]", ops.join(", ")));
    bencher.with_inputs(|| target.clone()).bench_refs(|t| {
        kbuild::merge::json6902::apply(t, &ops).expect("applies");
    });
}
