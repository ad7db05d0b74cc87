//! Benchmarks: parse, emit, strategic merge and the whole build over generated trees of 100,
//! 1,000, 4,000 and 10,000 resources (`cargo bench`). Separate stages make a
//! regression point at its cause.

use kbuild::build::{BuildOptions, build};
use kbuild::yaml::{emit, parse};
use std::path::{Path, PathBuf};

fn main() {
    divan::main();
}

const SIZES: [usize; 4] = [100, 1_000, 4_000, 10_000];

/// One app contributes this many resources to a tree.
const PER_APP: usize = 5;

fn write(path: &Path, text: &str) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

fn deployment(app: usize) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{app}\n  labels:\n    app: app{app}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: app{app}\n  template:\n    metadata:\n      labels:\n        app: app{app}\n    spec:\n      serviceAccountName: app{app}\n      containers:\n      - name: main\n        image: registry.example.com/app{app}:1.0.{app}\n        args: [\"--port=8080\", \"--log-level=info\"]\n        ports:\n        - containerPort: 8080\n          name: http\n        envFrom:\n        - configMapRef:\n            name: app{app}-config\n        resources:\n          requests: {{cpu: 100m, memory: 128Mi}}\n      - name: sidecar\n        image: registry.example.com/proxy:2.1\n"
    )
}

/// Writes a tree: per app a base (Deployment, Service, ServiceAccount,
/// ConfigMap) and an overlay (prefix, namespace, labels, annotations,
/// a generated ConfigMap), all listed by a top kustomization.
fn generate(root: &Path, resources: usize) {
    let apps = resources.div_ceil(PER_APP);
    let mut top = String::from("resources:\n");
    for a in 0..apps {
        let base = root.join(format!("apps/app{a}/base"));
        write(
            &base.join("kustomization.yaml"),
            "resources:\n- deployment.yaml\n- service.yaml\n- config.yaml\n",
        );
        write(&base.join("deployment.yaml"), &deployment(a));
        write(
            &base.join("service.yaml"),
            &format!(
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: app{a}\nspec:\n  selector:\n    app: app{a}\n  ports:\n  - port: 80\n    targetPort: http\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: app{a}\n"
            ),
        );
        write(
            &base.join("config.yaml"),
            &format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app{a}-config\ndata:\n  LOG_LEVEL: info\n  FEATURE_X: \"on\"\n  TIMEOUT: \"30\"\n"
            ),
        );
        let overlay = root.join(format!("apps/app{a}/prod"));
        write(
            &overlay.join("kustomization.yaml"),
            &format!(
                "namespace: team{}\nnamePrefix: prod-\nlabels:\n- pairs:\n    env: prod\n  includeSelectors: true\ncommonAnnotations:\n  owner: team{}\nresources:\n- ../base\nconfigMapGenerator:\n- name: app{a}-env\n  literals:\n  - MODE=production\n  - REPLICAS=3\n",
                a % 10,
                a % 10
            ),
        );
        top.push_str(&format!("- apps/app{a}/prod\n"));
    }
    write(&root.join("kustomization.yaml"), &top);
}

fn tree(resources: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kbuild-bench-{resources}"));
    if !dir.join("kustomization.yaml").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        generate(&dir, resources);
    }
    dir
}

fn stream(resources: usize) -> String {
    let apps = resources.div_ceil(PER_APP);
    (0..apps * PER_APP)
        .map(deployment)
        .collect::<Vec<_>>()
        .join("---\n")
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn parse_stream(bencher: divan::Bencher, n: usize) {
    let text = stream(n);
    bencher.bench(|| parse::parse_stream(&text, "bench.yaml").expect("parses"));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn emit_stream(bencher: divan::Bencher, n: usize) {
    let docs = parse::parse_stream(&stream(n), "bench.yaml").expect("parses");
    bencher.bench(|| emit::emit_stream(&docs));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn whole_build(bencher: divan::Bencher, n: usize) {
    let dir = tree(n);
    let opts = BuildOptions::default();
    bencher.bench(|| build(&dir, &opts).expect("builds"));
}

/// [`whole_build`] recording provenance (`build --provenance`, `explain`): issue 34 bounds
/// the whole `--provenance` run at 1.5x a plain build's time.
#[divan::bench(args = [100, 1_000], sample_count = 10)]
fn provenance_build(bencher: divan::Bencher, n: usize) {
    let dir = tree(n);
    let opts = BuildOptions {
        provenance: true,
        ..BuildOptions::default()
    };
    bencher.bench(|| build(&dir, &opts).expect("builds"));
}

/// The provenance JSON of a recorded build, made and written to nowhere: the positions
/// found in the files, and the document serialized.
#[divan::bench(args = [100, 1_000], sample_count = 10)]
fn provenance_document(bencher: divan::Bencher, n: usize) {
    let dir = tree(n);
    let opts = BuildOptions {
        provenance: true,
        ..BuildOptions::default()
    };
    let resmap = build(&dir, &opts).expect("builds");
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    bencher.bench(|| {
        kbuild::explain::json::write_document(&resmap, &read, &mut std::io::sink()).expect("writes")
    });
}

/// [`tree`] with every app's base taken from a git repository (`file://`, `?ref=v1`, a
/// tag) instead of a local path, the clone cache warm: what a remote base costs once
/// cached. `None` (and a message) without git.
fn remote_tree(resources: usize) -> Option<(PathBuf, PathBuf)> {
    let root = std::env::temp_dir().join(format!("kbuild-bench-remote-{resources}"));
    let src = root.join("src");
    let cache = root.join("cache");
    if !src.join("kustomization.yaml").exists() {
        let _ = std::fs::remove_dir_all(&root);
        generate(&src, resources);
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args([
                    "-c",
                    "user.name=bench",
                    "-c",
                    "user.email=bench@example.com",
                ])
                .args(args)
                .current_dir(&src)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let made = git(&["init", "-q"])
            && git(&["add", "-A"])
            && git(&["commit", "-qm", "bases"])
            && git(&["tag", "v1"]);
        if !made {
            eprintln!("remote_bases_warm: skipped, git cannot make the repository");
            let _ = std::fs::remove_dir_all(&root);
            return None;
        }
        for a in 0..resources.div_ceil(PER_APP) {
            let k = src.join(format!("apps/app{a}/prod/kustomization.yaml"));
            let text = std::fs::read_to_string(&k).expect("read");
            let url = format!("file://{}//apps/app{a}/base?ref=v1", src.display());
            write(&k, &text.replace("- ../base\n", &format!("- {url}\n")));
        }
    }
    Some((src, cache))
}

/// The whole build of [`remote_tree`], the clone cache filled first: compare with
/// `whole_build` of the same size (local bases).
#[divan::bench(args = [100, 1_000], sample_count = 10)]
fn remote_bases_warm(bencher: divan::Bencher, n: usize) {
    let Some((dir, cache)) = remote_tree(n) else {
        return;
    };
    let opts = BuildOptions {
        remote: kbuild::remote::RemoteOptions {
            cache_dir: Some(cache),
            offline: false,
            progress: false,
            ..Default::default()
        },
        ..BuildOptions::default()
    };
    build(&dir, &opts).expect("builds, filling the cache");
    bencher.bench(|| build(&dir, &opts).expect("builds"));
}

/// A strategic merge patch (containers merged by name, a label added)
/// applied to each Deployment of a stream: the field-merge engine alone.
#[divan::bench(args = SIZES, sample_count = 10)]
fn merge_patch(bencher: divan::Bencher, n: usize) {
    use kbuild::merge::smp;
    let docs = parse::parse_stream(&stream(n), "bench.yaml").expect("parses");
    let patch = parse::parse_document(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: any\n  labels:\n    tier: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: main\n        image: registry.example.com/app:2.0\n        env:\n        - name: MODE\n          value: prod\n",
        "patch.yaml",
    )
    .expect("parses");
    bencher.with_inputs(|| docs.clone()).bench_refs(|docs| {
        for d in docs.iter_mut() {
            smp::apply(d, &patch, None).expect("merges");
        }
    });
}
