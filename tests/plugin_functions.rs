//! KRM functions against the documented protocol, and kbuild's own plugin limits.
//!
//! kubectl has no `--enable-exec`, so exec functions that run cannot be compared with it
//! (it skips them without a word, and so does kbuild without the flag, with a warning:
//! tests/plugins.rs compares that): the functions here are
//! shell scripts written by the tests that record what they were given and answer as the
//! KRM functions specification says. Container functions whose runtime is missing or is
//! podman use stand-in `podman` scripts (there is no container runtime here; the
//! comparison of the docker command line with kubectl's is in tests/plugins.rs). Also:
//! `--plugin-timeout` (a hanging plugin and its children are killed), `--allow-plugin`,
//! validators, `render`, and the two examples in `examples/plugins/`.

use crate::common;

use common::plugins::{Tree, assert_fails, stderr, stdout};
use std::path::Path;

tests! {
    exec_transformer_gets_a_resource_list_and_its_output_replaces_the_resources,
    exec_generator_gets_its_config_and_may_print_a_plain_stream,
    plugin_output_counts_against_the_output_budget,
    only_the_exit_status_fails_a_function_and_error_results_are_warnings,
    functions_that_fail_print_nonsense_or_cannot_run,
    exec_functions_run_only_with_enable_exec,
    a_hanging_plugin_is_killed_with_its_children,
    allow_plugin_names_kinds_programs_or_images,
    validators_may_fail_a_build_but_not_change_it,
    container_functions_use_podman_without_docker_and_fail_without_either,
    render_runs_plugins_of_each_kustomization,
    ksops_style_example_decrypts_its_secret,
    policy_generator_style_example_builds,
}

const RESOURCES: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  x: y
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  replicas: 1
";

const FN: &[&str] = &["build", "--enable-alpha-plugins", "--enable-exec", "k"];

/// A tree whose kustomization runs `fn.yaml` (an exec function `./fn.sh` with `spec`)
/// as a `field` entry.
fn function_tree(field: &str, spec_extra: &str, script: &str) -> Tree {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        &format!("resources: [res.yaml]\n{field}: [fn.yaml]\n"),
    );
    tree.write(
        "k/fn.yaml",
        &format!(
            "apiVersion: example.com/v1\nkind: Fn\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./fn.sh\n{spec_extra}spec:\n  replicas: 4\n"
        ),
    );
    tree.script("k/fn.sh", script);
    tree
}

fn exec_transformer_gets_a_resource_list_and_its_output_replaces_the_resources() {
    let tree = function_tree(
        "transformers",
        "        args: [--mode, fast]\n        envs: [FROM_SPEC=1]\n",
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$TREE/argv\"\npwd > \"$TREE/pwd\"\necho \"$FROM_SPEC $FROM_FLAG\" > \"$TREE/env\"\necho 'log line' >&2\ntee \"$TREE/stdin\" | sed -e 's/replicas: 1$/replicas: 9/'\n",
    );
    let out = tree.kbuild(&[
        "build",
        "--enable-alpha-plugins",
        "--enable-exec",
        "-e",
        "FROM_FLAG=2",
        "k",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    tree.assert_no_temp_debris();
    assert_eq!(
        stdout(&out),
        "apiVersion: v1\ndata:\n  x: \"y\"\nkind: ConfigMap\nmetadata:\n  name: cm\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 9\n"
    );
    // The function's stderr is passed on.
    assert!(stderr(&out).contains("log line"), "{}", stderr(&out));
    let read = |f: &str| std::fs::read_to_string(tree.path(f)).unwrap();
    assert_eq!(read("argv"), "--mode\nfast\n");
    assert_eq!(read("pwd").trim(), tree.path("k").display().to_string());
    assert_eq!(read("env"), "1 2\n");
    let stdin = read("stdin");
    for line in [
        "apiVersion: config.kubernetes.io/v1\n",
        "kind: ResourceList\n",
        "functionConfig:\n  apiVersion: example.com/v1\n",
        "      config.kubernetes.io/local-config: \"true\"\n",
        "      config.kubernetes.io/index: \"1\"\n",
        "      internal.config.kubernetes.io/id: \"2\"\n",
        "      kustomize.config.k8s.io/id: |\n        group: apps\n",
        "  spec:\n    replicas: 4\n",
    ] {
        assert!(stdin.contains(line), "{line:?} not in\n{stdin}");
    }
}

fn exec_generator_gets_its_config_and_may_print_a_plain_stream() {
    let tree = function_tree(
        "generators",
        "",
        "#!/bin/sh\ncat > \"$TREE/stdin\"\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: made\\n  annotations:\\n    kustomize.config.k8s.io/needs-hash: \"true\"\\ndata:\\n  k: v\\n'\n",
    );
    let out = tree.kbuild(FN);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("name: made-"), "{text}");
    assert!(!text.contains("needs-hash") && !text.contains("kind: Fn"));
    let stdin = std::fs::read_to_string(tree.path("stdin")).unwrap();
    // The config is the generator's only item.
    assert!(
        stdin.contains("items:\n- apiVersion: example.com/v1\n  kind: Fn\n"),
        "{stdin}"
    );
}

/// What a plugin generates or adds counts against the output budget
/// (`--max-output-bytes`), named after the plugin's config.
fn plugin_output_counts_against_the_output_budget() {
    // A generator printing a 20,000-byte value; a transformer adding one to every resource.
    let generator = function_tree(
        "generators",
        "",
        "#!/bin/sh\ncat > /dev/null\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: made\\ndata:\\n  k: %s\\n' \"$(head -c 20000 /dev/zero | tr '\\0' v)\"\n",
    );
    let transformer = function_tree(
        "transformers",
        "",
        "#!/bin/sh\nsed -e \"s/^    x: .*$/    x: $(head -c 20000 /dev/zero | tr '\\0' v)/\"\n",
    );
    for tree in [&generator, &transformer] {
        let fits = tree.kbuild(FN);
        assert!(fits.status.success(), "{}", stderr(&fits));
        assert!(stdout(&fits).contains(&"v".repeat(20000)));
        let mut args = vec!["build", "--max-output-bytes", "10000"];
        args.extend(&FN[1..]);
        let out = tree.kbuild(&args);
        assert_fails(
            tree,
            &out,
            &[
                "Error: the build would produce more than 10000 bytes: the plugin Fn 'f' (",
                "/k/fn.sh) takes the output past its budget",
            ],
        );
    }
}

fn only_the_exit_status_fails_a_function_and_error_results_are_warnings() {
    let list = |severity: &str| {
        format!(
            "#!/bin/sh\ncat > /dev/null\nprintf 'apiVersion: config.kubernetes.io/v1\\nkind: ResourceList\\nitems: []\\nresults:\\n- message: key not found\\n  severity: {severity}\\n  resourceRef:\\n    kind: Secret\\n    name: db\\n'\n"
        )
    };
    // kyaml's function filter fails on the exit status only (it reads `results` to write
    // them to a results file), so kustomize builds: kbuild too, with a warning.
    let tree = function_tree("generators", "", &list("error"));
    let out = tree.kbuild(FN);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "warning: plugin Fn 'f' (" 
        ) && stderr(&out).contains(
            "the function exited 0 but reported an error (kustomize ignores it): key not found (Secret/db)"
        ),
        "{}",
        stderr(&out)
    );
    // A function that also exits non-zero: its results are in the message.
    let tree = function_tree("generators", "", &format!("{}exit 1\n", list("error")));
    assert_fails(
        &tree,
        &tree.kbuild(FN),
        &["failed (exit status: 1):\nresult: key not found (Secret/db)"],
    );
    let tree = function_tree("generators", "", &list("warning"));
    let out = tree.kbuild(FN);
    assert!(out.status.success(), "{}", stderr(&out));
}

fn functions_that_fail_print_nonsense_or_cannot_run() {
    let tree = function_tree(
        "transformers",
        "",
        "#!/bin/sh\necho 'no key for this file' >&2\nexit 2\n",
    );
    assert_fails(
        &tree,
        &tree.kbuild(FN),
        &["failed (exit status: 2):\nno key for this file"],
    );
    let tree = function_tree("transformers", "", "#!/bin/sh\necho '{{{'\n");
    assert_fails(
        &tree,
        &tree.kbuild(FN),
        &["printed output that is not YAML"],
    );
    let tree = function_tree("transformers", "", "#!/bin/sh\ncat\n");
    std::fs::set_permissions(
        tree.path("k/fn.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    assert_fails(
        &tree,
        &tree.kbuild(FN),
        &["unexecutable plugin at:", "chmod +x"],
    );
}

fn exec_functions_run_only_with_enable_exec() {
    // Without the flag the function is skipped, as kubectl skips it (tests/plugins.rs
    // compares), with a warning.
    let tree = function_tree("transformers", "", "#!/bin/sh\ntouch ran\ncat\n");
    let out = tree.kbuild(&["build", "--enable-alpha-plugins", "k"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("was not run: exec functions run only with --enable-exec"));
    assert!(!tree.path("k/ran").exists());
    let out = tree.kbuild(&["build", "k"]);
    assert_fails(
        &tree,
        &out,
        &["external plugins disabled; unable to load external plugin 'Fn'"],
    );
}

fn a_hanging_plugin_is_killed_with_its_children() {
    let tree = Tree::new();
    tree.write(
        "k/kustomization.yaml",
        "generators:\n- |\n  apiVersion: example.com/v1\n  kind: Hang\n  metadata:\n    name: h\n",
    );
    tree.exec_plugin(
        "example.com/v1",
        "Hang",
        "#!/bin/sh\nsleep 300 &\necho $! > \"$TREE/child\"\nsleep 300\n",
    );
    let out = tree.kbuild(&[
        "build",
        "--enable-alpha-plugins",
        "--plugin-timeout",
        "1s",
        "k",
    ]);
    assert_fails(
        &tree,
        &out,
        &[
            "plugin Hang 'h' (",
            "still running after 1s (--plugin-timeout); killed it and its process group",
            "--plugin-timeout 15m",
        ],
    );
    let child = std::fs::read_to_string(tree.path("child")).unwrap();
    let alive = || {
        Path::new(&format!("/proc/{}", child.trim())).exists()
            && !std::fs::read_to_string(format!("/proc/{}/stat", child.trim()))
                .is_ok_and(|s| s.contains(") Z "))
    };
    // SIGKILL is sent before kbuild exits, but a busy machine may take a moment to carry
    // it out: wait up to 10 s for the child to be gone (it would sleep 300 s).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!alive(), "the plugin's child {} still runs", child.trim());
    let out = tree.kbuild(&[
        "build",
        "--enable-alpha-plugins",
        "--plugin-timeout",
        "soon",
        "k",
    ]);
    assert!(stderr(&out).contains("--plugin-timeout: invalid duration \"soon\""));
    // A child that leaves the group (setsid) and holds the output open: kbuild stops
    // waiting at the limit (the child ends by itself 4 s later).
    tree.exec_plugin(
        "example.com/v1",
        "Hang",
        // (It waits until the child has left the group: otherwise kbuild's kill of the group
        // may come first.)
        "#!/bin/sh\necho 'kind: ConfigMap'\necho 'metadata: {name: c}'\nsetsid sh -c 'touch \"$TREE/left\"; sleep 4' &\nwhile [ ! -f \"$TREE/left\" ]; do sleep 0.05; done\n",
    );
    let out = tree.kbuild(&[
        "build",
        "--enable-alpha-plugins",
        "--plugin-timeout",
        "1s",
        "k",
    ]);
    assert_fails(
        &tree,
        &out,
        &[
            "exited, but a process it started outside its process group still held its output open after 1s",
        ],
    );
}

fn allow_plugin_names_kinds_programs_or_images() {
    let tree = function_tree("transformers", "", "#!/bin/sh\ncat\n");
    let program = tree.path("k/fn.sh").display().to_string();
    let args = ["build", "--enable-alpha-plugins", "--enable-exec"];
    // An exec function is allowed by its program's path only, not by its config's kind
    // (tests/plugin_security.rs has the rest: kinds, images, spellings of paths).
    for other in ["Other", "Fn"] {
        let out = tree.kbuild(&[&args[..], &["--allow-plugin", other, "k"]].concat());
        assert_fails(
            &tree,
            &out,
            &[&format!(
                "plugin Fn 'f' ({program}): not in the --allow-plugin list (it would run {program}; an exec function is allowed only by its program's absolute path"
            )],
        );
    }
    let out = tree.kbuild(&[&args[..], &["--allow-plugin", &program, "k"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
}

fn validators_may_fail_a_build_but_not_change_it() {
    // Passes everything through, adding kustomize's validated-by label: kustomize refuses
    // it (it compares node positions, which the id annotation in the input moves; see
    // tests/plugins.rs), and so does kbuild.
    let tree = function_tree(
        "validators",
        "",
        "#!/bin/sh\nsed -e 's/^  metadata:$/  metadata:\\n    labels:\\n      validated-by: fn/'\n",
    );
    assert_fails(
        &tree,
        &tree.kbuild(FN),
        &["validator shouldn't modify the resource map: it printed the resources back"],
    );
    let tree = function_tree(
        "validators",
        "",
        "#!/bin/sh\nsed -e 's/replicas: 1$/replicas: 2/'\n",
    );
    assert_fails(
        &tree,
        &tree.kbuild(FN),
        &["validator shouldn't modify the resource map: it changed apps/v1 Deployment"],
    );
    let tree = function_tree(
        "validators",
        "",
        "#!/bin/sh\necho 'replicas must be 3' >&2\nexit 1\n",
    );
    assert_fails(
        &tree,
        &tree.kbuild(FN),
        &["replicas must be 3", "running validator from"],
    );
}

/// kbuild with PATH holding only the tree's `bin/` and the system's basic directories
/// (this machine has a docker client in /usr/local/bin).
fn kbuild_narrow_path(tree: &Tree, args: &[&str]) -> std::process::Output {
    tree.command(Path::new(env!("CARGO_BIN_EXE_kbuild")))
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", tree.path("bin").display()),
        )
        .args(args)
        .output()
        .unwrap()
}

fn container_functions_use_podman_without_docker_and_fail_without_either() {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ntransformers:\n- |\n  apiVersion: example.com/v1\n  kind: Fn\n  metadata:\n    name: f\n    annotations:\n      config.kubernetes.io/function: |\n        container:\n          image: ghcr.io/example/fn:v2\n",
    );
    let args = ["build", "--enable-alpha-plugins", "k"];
    if Path::new("/usr/bin/docker").exists() || Path::new("/bin/docker").exists() {
        common::skipped(
            "the no-runtime and podman cases",
            "docker is in /usr/bin or /bin",
        );
        return;
    }
    let out = kbuild_narrow_path(&tree, &args);
    assert_fails(
        &tree,
        &out,
        &[
            "container function image 'ghcr.io/example/fn:v2' needs a container runtime, but neither docker nor podman is on PATH",
            "install docker or podman",
        ],
    );
    // A stand-in podman: records its arguments, passes the resources through.
    tree.script(
        "bin/podman",
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$TREE/argv\"\ncat\n",
    );
    let out = kbuild_narrow_path(&tree, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let argv = std::fs::read_to_string(tree.path("argv")).unwrap();
    assert!(
        argv.starts_with("run\n--rm\n-i\n-a\nSTDIN\n") && argv.ends_with("ghcr.io/example/fn:v2\n"),
        "{argv}"
    );
}

fn render_runs_plugins_of_each_kustomization() {
    let tree = Tree::new();
    for app in ["a", "b"] {
        tree.write(&format!("k/{app}/res.yaml"), RESOURCES);
        tree.write(
            &format!("k/{app}/kustomization.yaml"),
            "resources: [res.yaml]\ntransformers:\n- |\n  apiVersion: example.com/v1\n  kind: Scale\n  metadata:\n    name: s\n",
        );
    }
    tree.exec_plugin(
        "example.com/v1",
        "Scale",
        "#!/bin/sh\nsed -e 's/replicas: 1$/replicas: 3/'\n",
    );
    let out = tree.kbuild(&[
        "render",
        "--enable-alpha-plugins",
        "--out",
        "out",
        "k/a",
        "k/b",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rendered: Vec<String> = walkdir::WalkDir::new(tree.path("out"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        // Not render's manifest (.kbuild-render.json).
        .filter(|e| e.path().extension().is_some_and(|x| x == "yaml"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(rendered.len(), 2);
    assert!(rendered.iter().all(|r| r.contains("replicas: 3")));
}

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/plugins")
}

fn pyyaml() -> bool {
    std::process::Command::new("python3")
        .args(["-c", "import yaml"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn ksops_style_example_decrypts_its_secret() {
    if !pyyaml() {
        common::skipped("the KSOPS-style example", "needs python3 with PyYAML");
        return;
    }
    let dir = examples().join("ksops");
    let tree = Tree::new();
    let build = |extra: &[&str]| {
        tree.command(Path::new(env!("CARGO_BIN_EXE_kbuild")))
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    dir.join("bin").display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .args(["build", "--enable-alpha-plugins", "--enable-exec"])
            .args(extra)
            .arg(&dir)
            .output()
            .unwrap()
    };
    let out = build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    tree.assert_no_temp_debris();
    let expected = std::fs::read_to_string(dir.join("expected.yaml")).unwrap();
    assert_eq!(stdout(&out), expected);
    assert!(expected.contains("password: correct-horse-battery-staple"));
    // --allow-plugin: KSOPS runs as an exec function, allowed by its program's path (the
    // README's example), not by its config's kind.
    let program = dir.join("bin/ksops").display().to_string();
    let out = build(&["--allow-plugin", &program]);
    assert_eq!(stdout(&out), expected, "{}", stderr(&out));
    let out = build(&["--allow-plugin", "ksops"]);
    assert_fails(
        &tree,
        &out,
        &["an exec function is allowed only by its program's absolute path"],
    );
}

fn policy_generator_style_example_builds() {
    if !pyyaml() {
        common::skipped(
            "the PolicyGenerator-style example",
            "needs python3 with PyYAML",
        );
        return;
    }
    let dir = examples().join("policy-generator");
    let tree = Tree::new();
    let out = tree
        .command(Path::new(env!("CARGO_BIN_EXE_kbuild")))
        .env("KUSTOMIZE_PLUGIN_HOME", dir.join("plugin"))
        .args(["build", "--enable-alpha-plugins"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    tree.assert_no_temp_debris();
    let expected = std::fs::read_to_string(dir.join("expected.yaml")).unwrap();
    assert_eq!(stdout(&out), expected);
}
