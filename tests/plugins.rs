//! External plugins compared with `kubectl kustomize --enable-alpha-plugins`, byte for
//! byte, on kustomize v5.5.0 (`kubectl` on PATH or `$KUBECTL_V550`) and v5.8.1
//! (`$KUBECTL_V581` or `../kubectl-1.37/bin/kubectl`).
//!
//! Legacy exec plugins are written by the tests (shell, or Python 3 with its standard
//! library) into a temporary plugin home. Container functions run through a stand-in
//! `docker` (a shell script first on PATH, not docker: there is no container runtime
//! here) that records its arguments and acts as the function; kubectl runs the same
//! stand-in, so the command lines are compared too. Errors are compared by outcome (both
//! fail) and by what kbuild's message must say; kbuild must leave no temporary file.

use crate::common;

use common::kubectl;
use common::plugins::{Tree, assert_fails, stderr, stdout};
use std::path::PathBuf;

const VERSIONS: [&str; 2] = ["v5.5.0", "v5.8.1"];

/// Both kubectls, or why the tests cannot compare.
fn kubectls() -> Result<Vec<(&'static str, PathBuf)>, String> {
    VERSIONS
        .iter()
        .map(|v| {
            kubectl(v)
                .map(|k| (*v, k))
                .ok_or_else(|| format!("needs kubectl with kustomize {v} (see README, Tests)"))
        })
        .collect()
}

const RESOURCES: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  annotations:
    a: \"1\"
data:
  x: y
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: ns
spec:
  replicas: 1
";

/// Runs kubectl and kbuild of each version on `k/` with `flags`; both must succeed with
/// the same output. Returns kbuild's outputs.
fn same(tree: &Tree, kubectls: &[(&str, PathBuf)], flags: &[&str]) -> Vec<String> {
    let mut outs = Vec::new();
    for (version, kubectl) in kubectls {
        let mut args = flags.to_vec();
        args.push("k");
        let want = tree.kubectl(kubectl, &args);
        assert!(
            want.status.success(),
            "kubectl {version} failed: {}",
            stderr(&want)
        );
        let mut kargs = vec!["build", "--kustomize-version", version];
        kargs.extend(&args);
        let got = tree.kbuild(&kargs);
        assert!(
            got.status.success(),
            "kbuild {version} failed: {}",
            stderr(&got)
        );
        tree.assert_no_temp_debris();
        assert_eq!(stdout(&got), stdout(&want), "kustomize {version}");
        outs.push(stdout(&got));
    }
    outs
}

/// Runs both with `flags`; both must fail, kbuild cleanly and saying `needles`. Returns
/// kubectl's errors.
fn both_fail(
    tree: &Tree,
    kubectls: &[(&str, PathBuf)],
    flags: &[&str],
    needles: &[&str],
) -> Vec<String> {
    let mut errs = Vec::new();
    for (version, kubectl) in kubectls {
        let mut args = flags.to_vec();
        args.push("k");
        let want = tree.kubectl(kubectl, &args);
        assert!(
            !want.status.success(),
            "kubectl {version} succeeded:\n{}",
            stdout(&want)
        );
        let mut kargs = vec!["build", "--kustomize-version", version];
        kargs.extend(&args);
        let got = tree.kbuild(&kargs);
        assert_fails(tree, &got, needles);
        errs.push(stderr(&want));
    }
    errs
}

const ALPHA: &[&str] = &["--enable-alpha-plugins"];

fn transformer_sees_history_and_keeps_hashes(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "namePrefix: p-\nresources: [res.yaml]\nconfigMapGenerator:\n- name: gen\n  literals: [a=b]\ntransformers: [t.yaml]\n",
    );
    // Named by its metadata as written: a number is the text it is written as.
    tree.write(
        "k/t.yaml",
        "apiVersion: example.com/v1\nkind: Scale\nmetadata:\n  name: 0x1F\n  namespace: 012\n",
    );
    // Edits in place and records what it was given.
    tree.exec_plugin(
        "example.com/v1",
        "Scale",
        "#!/bin/sh\ntee \"$TREE/stdin\" | sed -e 's/replicas: 1/replicas: 3/'\n",
    );
    let outs = same(&tree, &k, ALPHA);
    assert!(outs[0].contains("replicas: 3") && outs[0].contains("name: p-gen-"));
    // kbuild hands the plugin kustomize's history annotations.
    let seen = std::fs::read_to_string(tree.path("stdin")).unwrap();
    for a in [
        "internal.config.kubernetes.io/prefixes: p-",
        "internal.config.kubernetes.io/previousNames: cm",
        "internal.config.kubernetes.io/needsHashSuffix: enabled",
        "kustomize.config.k8s.io/id: |\n      group: apps\n      kind: Deployment\n      name: p-d\n",
    ] {
        assert!(seen.contains(a), "{a:?} not in the plugin's input:\n{seen}");
    }
}

fn transformer_output_replaces_adds_and_removes(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ntransformers:\n- |\n  apiVersion: example.com/v1\n  kind: Shuffle\n  metadata:\n    name: s\n",
    );
    // Prints a new Service first, then the input backwards without the ConfigMap: the
    // output's order does not matter, matching is by id.
    tree.exec_plugin(
        "example.com/v1",
        "Shuffle",
        r#"#!/usr/bin/env python3
import sys
docs = [d for d in sys.stdin.read().split("\n---\n") if "kind: ConfigMap" not in d]
new = "apiVersion: v1\nkind: Service\nmetadata:\n  name: added\nspec:\n  ports:\n  - port: 80\n"
print("\n---\n".join([new] + docs[::-1]))
"#,
    );
    same(&tree, &k, ALPHA);
}

fn generator_hash_and_behaviors(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ngenerators: [gen.yaml]\n",
    );
    tree.write(
        "k/gen.yaml",
        "apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: g\n",
    );
    tree.exec_plugin(
        "example.com/v1",
        "Gen",
        r#"#!/bin/sh
cat <<'Y'
apiVersion: v1
kind: ConfigMap
metadata:
  name: hashed
  annotations:
    kustomize.config.k8s.io/needs-hash: "true"
data:
  k: v
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: plain
data:
  k: v
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  annotations:
    kustomize.config.k8s.io/behavior: merge
data:
  merged: "yes"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: ns
  annotations:
    kustomize.config.k8s.io/behavior: replace
spec:
  replicas: 7
Y
"#,
    );
    let outs = same(&tree, &k, ALPHA);
    assert!(outs[0].contains("name: hashed-") && outs[0].contains("name: plain\n"));
    // The ConfigMap hashed-… is referred to by its new name from a Deployment.
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ngenerators: [gen.yaml]\npatches:\n- patch: |\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: d\n      namespace: ns\n    spec:\n      template:\n        spec:\n          volumes:\n          - name: v\n            configMap:\n              name: hashed\n",
    );
    same(&tree, &k, ALPHA);
}

fn args_config_and_environment(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/kustomization.yaml", "generators: [gen.yaml]\n");
    tree.write(
        "k/gen.yaml",
        "kind: Args\napiVersion: example.com/v1beta1\nmetadata:\n  name: a\nargsOneLiner: one \"two three\" 'four' # five\nargsFromFile: args.txt\nspec:\n  z: 1\n  list: [b, a]\n  yes: on\n",
    );
    tree.write("k/args.txt", "  six\n\nseven eight\n");
    tree.exec_plugin(
        "example.com/v1beta1",
        "Args",
        r#"#!/bin/sh
cfg="$1"; shift
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: args\ndata:\n'
i=0; for a in "$@"; do printf '  arg%d: "%s"\n' $i "$a"; i=$((i+1)); done
printf '  root: "%s"\n  pwd: "%s"\n  config: |\n' "$KUSTOMIZE_PLUGIN_CONFIG_ROOT" "$(pwd)"
sed 's/^/    /' "$cfg"
printf '  env: |\n'
printf '%s\n' "$KUSTOMIZE_PLUGIN_CONFIG_STRING" | sed 's/^/    /'
"#,
    );
    let outs = same(&tree, &k, ALPHA);
    assert!(outs[0].contains("arg1: two three\n") && outs[0].contains("arg4: seven eight\n"));
}

fn failing_plugin(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ntransformers:\n- |\n  apiVersion: example.com/v1\n  kind: Broken\n  metadata:\n    name: b\n",
    );
    tree.exec_plugin(
        "example.com/v1",
        "Broken",
        "#!/bin/sh\necho 'cannot decrypt: no key' >&2\necho partial\nexit 3\n",
    );
    both_fail(
        &tree,
        &k,
        ALPHA,
        &[
            "plugin Broken 'b' (",
            "failed (exit status: 3):\ncannot decrypt: no key",
            "running transformer from",
        ],
    );
}

fn plugin_printing_nonsense(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write(
        "k/kustomization.yaml",
        "generators:\n- |\n  apiVersion: example.com/v1\n  kind: Noise\n  metadata:\n    name: n\n",
    );
    tree.exec_plugin(
        "example.com/v1",
        "Noise",
        "#!/bin/sh\necho 'this: [is not'\n",
    );
    both_fail(
        &tree,
        &k,
        ALPHA,
        &[
            "plugin Noise 'n'",
            "printed something that is not Kubernetes YAML",
        ],
    );
}

fn missing_and_unexecutable_plugins(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write(
        "k/kustomization.yaml",
        "generators:\n- |\n  apiVersion: example.com/v1\n  kind: Absent\n  metadata:\n    name: a\n",
    );
    let home = tree.path("home").display().to_string();
    let expected = format!("no executable at {home}/example.com/v1/absent/Absent");
    both_fail(&tree, &k, ALPHA, &[&expected, "KUSTOMIZE_PLUGIN_HOME"]);
    // A Go plugin kustomize would load: kbuild says it cannot.
    tree.write("home/example.com/v1/absent/Absent.so", "not really");
    both_fail(
        &tree,
        &k,
        ALPHA,
        &["is a Go plugin; kbuild does not load Go plugins"],
    );
    tree.write("home/example.com/v1/absent/Absent", "#!/bin/sh\n");
    both_fail(
        &tree,
        &k,
        ALPHA,
        // kustomize's words.
        &[&format!(
            "unexecutable plugin at: {home}/example.com/v1/absent/Absent"
        )],
    );
}

fn no_plugin_home(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write(
        "k/kustomization.yaml",
        "generators:\n- |\n  apiVersion: example.com/v1\n  kind: Gen\n  metadata:\n    name: g\n",
    );
    std::fs::remove_dir(tree.path("home")).unwrap();
    let errs = both_fail(&tree, &k, ALPHA, &["unable to find plugin root - tried: "]);
    // The places tried, as kustomize lists them.
    let root = tree.path("").display().to_string();
    let root = root.trim_end_matches('/');
    let tried = format!(
        "('{root}/home'; homed in $KUSTOMIZE_PLUGIN_HOME), ('<no value>'; homed in $XDG_CONFIG_HOME), ('{root}/.config/kustomize/plugin'; homed in default value of $XDG_CONFIG_HOME), ('{root}/kustomize/plugin'; homed in home directory)"
    );
    for e in errs {
        assert!(e.contains(&tried), "{e}");
    }
    let out = tree.kbuild(&["build", "--enable-alpha-plugins", "k"]);
    assert!(stderr(&out).contains(&tried), "{}", stderr(&out));
}

fn plugins_not_enabled(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write(
        "k/kustomization.yaml",
        "transformers:\n- |\n  apiVersion: example.com/v1\n  kind: Scale\n  metadata:\n    name: s\n",
    );
    tree.exec_plugin("example.com/v1", "Scale", "#!/bin/sh\ncat\n");
    both_fail(
        &tree,
        &k,
        &[],
        &[
            "external plugins disabled; unable to load external plugin 'Scale'",
            "--enable-alpha-plugins",
        ],
    );
}

/// A `docker` stand-in: records its arguments in `$TREE/argv-$RUN`, then acts as a
/// function that scales Deployments (a text edit of the ResourceList it is given).
const DOCKER: &str =
    "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$TREE/argv-$RUN\"\nsed -e 's/replicas: 1/replicas: 5/'\n";

fn container_function_command_line(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ntransformers: [fn.yaml]\n",
    );
    tree.write(
        "k/fn.yaml",
        "apiVersion: example.com/v1\nkind: Scale\nmetadata:\n  name: fn\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: example.com/scale:v1\n        envs: [FOO=bar, BAZ]\n        mounts:\n        - type: bind\n          src: ./data\n          dst: /data\n",
    );
    tree.script("bin/docker", DOCKER);
    let flags = [
        "--enable-alpha-plugins",
        "-e",
        "A=b",
        "--env=C",
        // kbuild passes a variable the function's envs names bare only when -e names it too.
        "-e",
        "BAZ",
        "--mount",
        "type=bind,src=/etc,dst=/e,rw=true",
    ];
    for (version, kubectl) in &k {
        let mut args = flags.to_vec();
        args.push("k");
        let want = tree
            .command(kubectl)
            .env("RUN", "kubectl")
            .arg("kustomize")
            .args(&args)
            .output()
            .unwrap();
        assert!(want.status.success(), "{}", stderr(&want));
        let mut kargs = vec!["build", "--kustomize-version", version];
        kargs.extend(&args);
        let got = tree
            .command(std::path::Path::new(env!("CARGO_BIN_EXE_kbuild")))
            .env("RUN", "kbuild")
            .args(&kargs)
            .output()
            .unwrap();
        assert!(got.status.success(), "{}", stderr(&got));
        assert_eq!(stdout(&got), stdout(&want), "kustomize {version}");
        assert!(stdout(&got).contains("replicas: 5"));
        let argv = |run: &str| std::fs::read_to_string(tree.path(&format!("argv-{run}"))).unwrap();
        assert_eq!(argv("kbuild"), argv("kubectl"), "kustomize {version}");
        let root = tree.path("k").display().to_string();
        assert_eq!(
            argv("kbuild").replace('\n', " "),
            format!(
                "run --rm -i -a STDIN -a STDOUT -a STDERR --network none --user nobody --security-opt=no-new-privileges --mount type=bind,source={root}/data,target=/data,readonly --mount type=bind,source=/etc,target=/e -e A=b -e FOO=bar -e LOG_TO_STDERR=true -e STRUCTURED_RESULTS=true -e BAZ -e C example.com/scale:v1 "
            )
        );
    }
}

fn container_function_network_and_user(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ntransformers: [fn.yaml]\n",
    );
    tree.write(
        "k/fn.yaml",
        "apiVersion: example.com/v1\nkind: Scale\nmetadata:\n  name: fn\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: example.com/scale:v1\n        network: true\n",
    );
    tree.script("bin/docker", DOCKER);
    both_fail(
        &tree,
        &k,
        ALPHA,
        &["network required but not enabled with --network"],
    );
    for (version, kubectl) in &k {
        let args = [
            "kustomize",
            "--enable-alpha-plugins",
            "--network",
            "--as-current-user",
            "k",
        ];
        let want = tree
            .command(kubectl)
            .env("RUN", "kubectl")
            .args(args)
            .output()
            .unwrap();
        assert!(want.status.success(), "{}", stderr(&want));
        let got = tree
            .command(std::path::Path::new(env!("CARGO_BIN_EXE_kbuild")))
            .env("RUN", "kbuild")
            .args(["build", "--kustomize-version", version])
            .args(&args[1..])
            .output()
            .unwrap();
        assert_eq!(stdout(&got), stdout(&want), "kustomize {version}");
        let argv = |run: &str| std::fs::read_to_string(tree.path(&format!("argv-{run}"))).unwrap();
        assert_eq!(argv("kbuild"), argv("kubectl"), "kustomize {version}");
        assert!(argv("kbuild").contains("--network\nhost\n--user\n"));
    }
}

fn policy_generator_example_matches_kubectl(k: Vec<(&'static str, PathBuf)>) {
    let pyyaml = std::process::Command::new("python3")
        .args(["-c", "import yaml"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !pyyaml {
        common::skipped(
            "the PolicyGenerator-style example against kubectl",
            "needs python3 with PyYAML",
        );
        return;
    }
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/plugins/policy-generator");
    let tree = Tree::new();
    let expected = std::fs::read_to_string(dir.join("expected.yaml")).unwrap();
    for (version, kubectl) in &k {
        let want = tree
            .command(kubectl)
            .env("KUSTOMIZE_PLUGIN_HOME", dir.join("plugin"))
            .args(["kustomize", "--enable-alpha-plugins"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(want.status.success(), "{}", stderr(&want));
        let got = tree
            .command(std::path::Path::new(env!("CARGO_BIN_EXE_kbuild")))
            .env("KUSTOMIZE_PLUGIN_HOME", dir.join("plugin"))
            .args([
                "build",
                "--enable-alpha-plugins",
                "--kustomize-version",
                version,
            ])
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(stdout(&got), stdout(&want), "kustomize {version}");
        assert_eq!(stdout(&got), expected, "kustomize {version}");
    }
}

fn exec_function_args_are_unknown_to_v5_5(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write(
        "k/kustomization.yaml",
        "transformers:\n- |\n  apiVersion: example.com/v1\n  kind: Fn\n  metadata:\n    name: f\n    annotations:\n      config.kubernetes.io/function: |\n        exec:\n          path: ./fn.sh\n          args: [a]\n",
    );
    tree.script("k/fn.sh", "#!/bin/sh\ncat\n");
    let v550: Vec<_> = k.into_iter().filter(|(v, _)| *v == "v5.5.0").collect();
    both_fail(
        &tree,
        &v550,
        ALPHA,
        &[
            "config.kubernetes.io/function unmarshal error: error unmarshaling JSON: while decoding JSON: json: unknown field \"args\"",
        ],
    );
}

fn build_metadata_names_plugins(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "buildMetadata: [originAnnotations, transformerAnnotations]\nresources: [res.yaml]\ngenerators:\n- |\n  apiVersion: example.com/v1\n  kind: Gen\n  metadata:\n    name: g\n    namespace: gen-ns\ntransformers: [t.yaml]\n",
    );
    // Named by its metadata as written: a number is the text it is written as.
    tree.write(
        "k/t.yaml",
        "apiVersion: example.com/v1\nkind: Scale\nmetadata:\n  name: 0x1F\n  namespace: 012\n",
    );
    tree.exec_plugin(
        "example.com/v1",
        "Scale",
        "#!/bin/sh\nsed -e 's/replicas: 1$/replicas: 3/'\n",
    );
    tree.exec_plugin(
        "example.com/v1",
        "Gen",
        "#!/bin/sh\ncat <<'Y'\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: made\n  annotations:\n    kustomize.config.k8s.io/needs-hash: \"true\"\ndata:\n  k: v\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    kustomize.config.k8s.io/behavior: merge\ndata:\n  m: \"1\"\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: ns\n  annotations:\n    kustomize.config.k8s.io/behavior: replace\nspec:\n  replicas: 1\nY\n",
    );
    let outs = same(&tree, &k, ALPHA);
    assert!(
        outs[1].contains("kind: Gen\n        name: g\n        namespace: gen-ns\n"),
        "{}",
        outs[1]
    );
    assert!(
        outs[1].contains("kind: Scale\n          name: \"0x1F\"\n          namespace: \"012\"\n"),
        "{}",
        outs[1]
    );
}

/// An exec KRM function config (`exec: path: ./fn.sh`) of `kind`, named `name`.
fn exec_function_config(api_version: &str, kind: &str, name: &str) -> String {
    format!(
        "apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./fn.sh\nspec:\n  x: 1\n"
    )
}

/// kubectl has no `--enable-exec`: its kustomize builds no filter for an exec function,
/// so the function pipeline hands its input back (a generator adds its own config, marked
/// local-config; a transformer changes nothing). kbuild without `--enable-exec` does the
/// same, with a warning naming the function and the flag; the program never runs.
fn exec_functions_without_enable_exec_are_skipped(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "namePrefix: p-\nresources: [res.yaml]\ngenerators: [g.yaml]\ntransformers: [t.yaml]\n",
    );
    tree.write(
        "k/g.yaml",
        &exec_function_config("example.com/v1", "Gen", "g"),
    );
    tree.write(
        "k/t.yaml",
        &exec_function_config("example.com/v1", "Tr", "t"),
    );
    tree.script("k/fn.sh", "#!/bin/sh\ntouch ran\necho 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-fn'\n");
    same(&tree, &k, ALPHA);
    assert!(!tree.path("k/ran").exists(), "the exec function ran");
    let out = tree.kbuild(&["build", "--enable-alpha-plugins", "k"]);
    let err = stderr(&out);
    for needle in [
        "warning: exec function Gen 'g' (./fn.sh) was not run: exec functions run only with --enable-exec",
        "(plugin config ",
        "warning: exec function Tr 't' (./fn.sh) was not run",
    ] {
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
    // --allow-plugin does not refuse what runs nothing.
    let out = tree.kbuild(&[
        "build",
        "--enable-alpha-plugins",
        "--allow-plugin",
        "/bin/true",
        "k",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The skipped generator's config joins the resources: one with a resource's id
    // collides with it, in kustomize as in kbuild.
    tree.write("k/g.yaml", &exec_function_config("v1", "ConfigMap", "cm"));
    both_fail(&tree, &k, ALPHA, &["ConfigMap", "cm"]);
}

/// kustomize compares a validator's output with its input as go-yaml nodes, lines and
/// columns included, and the input carries the id annotation inside `metadata`: a
/// validator that prints its input back fails in both kubectls; over no resources, one
/// that prints nothing passes.
fn validators_pass_as_in_kustomize(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\nvalidators: [v.yaml]\n",
    );
    tree.write(
        "k/v.yaml",
        "apiVersion: example.com/v1\nkind: Echo\nmetadata:\n  name: v\n",
    );
    tree.exec_plugin("example.com/v1", "Echo", "#!/bin/sh\ncat\n");
    both_fail(
        &tree,
        &k,
        ALPHA,
        &[
            "plugin Echo 'v' (",
            "validator shouldn't modify the resource map: it printed the resources back",
        ],
    );
    // Also when it adds kustomize's validated-by label (removed before the comparison).
    tree.exec_plugin(
        "example.com/v1",
        "Echo",
        "#!/bin/sh\nsed -e 's/^metadata:$/metadata:\\n  labels:\\n    validated-by: v/'\n",
    );
    both_fail(
        &tree,
        &k,
        ALPHA,
        &["validator shouldn't modify the resource map"],
    );
    // An exec function validator, skipped without --enable-exec, hands the input back too.
    tree.write(
        "k/v.yaml",
        &exec_function_config("example.com/v1", "Val", "v"),
    );
    tree.script("k/fn.sh", "#!/bin/sh\ncat\n");
    both_fail(
        &tree,
        &k,
        ALPHA,
        &["validator shouldn't modify the resource map"],
    );
    // No resources, nothing printed: passes.
    tree.write(
        "k/kustomization.yaml",
        "resources: []\nvalidators: [v.yaml]\n",
    );
    same(&tree, &k, ALPHA);
    tree.write(
        "k/v.yaml",
        "apiVersion: example.com/v1\nkind: Echo\nmetadata:\n  name: v\n",
    );
    same(&tree, &k, ALPHA);
}

/// `argsOneLiner` as each version splits it: v5.5.0 with google/shlex (errors ignored:
/// an unclosed quote drops that word), v5.8.1 with its own splitter (an error).
fn args_one_liner_per_version(k: Vec<(&'static str, PathBuf)>) {
    let tree = Tree::new();
    tree.write("k/kustomization.yaml", "generators: [gen.yaml]\n");
    tree.exec_plugin(
        "example.com/v1",
        "Args",
        r#"#!/bin/sh
shift
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: args\ndata:\n  n: "%d"\n' $#
i=0; for a in "$@"; do printf "  arg%d: '%s'\n" $i "$(printf %s "$a" | sed "s/'/''/g")"; i=$((i+1)); done
"#,
    );
    for one_liner in [
        r#"x 'open y"#,
        r#"a#b '' c # x y"#,
        r#"p "q\"r" 's\t' u\ v"#,
        r#"x y\\"#,
    ] {
        tree.write(
            "k/gen.yaml",
            &format!(
                "apiVersion: example.com/v1\nkind: Args\nmetadata:\n  name: a\nargsOneLiner: '{}'\n",
                one_liner.replace('\'', "''")
            ),
        );
        for (version, kubectl) in &k {
            let mut args = ALPHA.to_vec();
            args.push("k");
            let want = tree.kubectl(kubectl, &args);
            let got =
                tree.kbuild(&[&["build", "--kustomize-version", version][..], &args[..]].concat());
            if want.status.success() {
                assert!(
                    got.status.success(),
                    "{one_liner} {version}: {}",
                    stderr(&got)
                );
                assert_eq!(stdout(&got), stdout(&want), "{one_liner} {version}");
            } else {
                assert_fails(
                    &tree,
                    &got,
                    &["failed to parse argsOneLiner: unclosed quote in string"],
                );
            }
        }
    }
}

/// This file's tests (run by tests/integration.rs).
pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
    common::needing(
        module_path!(),
        kubectls,
        &[
            (
                "transformer_sees_history_and_keeps_hashes",
                transformer_sees_history_and_keeps_hashes,
            ),
            (
                "transformer_output_replaces_adds_and_removes",
                transformer_output_replaces_adds_and_removes,
            ),
            ("generator_hash_and_behaviors", generator_hash_and_behaviors),
            ("args_config_and_environment", args_config_and_environment),
            ("failing_plugin", failing_plugin),
            ("plugin_printing_nonsense", plugin_printing_nonsense),
            (
                "missing_and_unexecutable_plugins",
                missing_and_unexecutable_plugins,
            ),
            ("no_plugin_home", no_plugin_home),
            ("plugins_not_enabled", plugins_not_enabled),
            (
                "container_function_command_line",
                container_function_command_line,
            ),
            (
                "container_function_network_and_user",
                container_function_network_and_user,
            ),
            (
                "exec_function_args_are_unknown_to_v5_5",
                exec_function_args_are_unknown_to_v5_5,
            ),
            ("build_metadata_names_plugins", build_metadata_names_plugins),
            (
                "exec_functions_without_enable_exec_are_skipped",
                exec_functions_without_enable_exec_are_skipped,
            ),
            (
                "validators_pass_as_in_kustomize",
                validators_pass_as_in_kustomize,
            ),
            ("args_one_liner_per_version", args_one_liner_per_version),
            (
                "policy_generator_example_matches_kubectl",
                policy_generator_example_matches_kubectl,
            ),
        ],
    )
}
