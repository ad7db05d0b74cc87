//! External plugins run on kustomizations kbuild's user did not write: what a config may
//! not make kbuild run or pass on, whatever kustomize does (see README, "Security and
//! limits", and src/plugin/).
//!
//! Programs are shell scripts written by the tests; container functions run through a
//! stand-in `docker` (a shell script first on PATH, not docker) that records its argv and
//! passes its input through. A test whose attack would run a program checks, through a
//! marker file the program would write, that it did not run.

use crate::common;

use common::plugins::{Tree, assert_fails, stderr, stdout};

tests! {
    plugin_names_that_are_no_path_component_are_refused,
    a_plugin_home_entry_leading_outside_the_home_is_refused,
    allow_plugin_by_kind_does_not_allow_a_function_of_that_kind,
    allow_plugin_paths_are_not_widened_by_spelling_or_symlinks,
    container_arguments_that_docker_would_misread_are_refused,
    declared_mounts_cannot_reach_outside_the_kustomization,
    a_function_cannot_ask_for_kbuilds_environment,
    a_plugin_printing_without_end_is_stopped,
    a_huge_plugin_timeout_is_an_error,
    a_signal_while_a_plugin_runs_kills_it,
}

const RESOURCES: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: y\n";

/// A program that leaves `$TREE/ran` behind and generates nothing.
const MARKER: &str = "#!/bin/sh\ntouch \"$TREE/ran\"\n";

/// A tree whose kustomization lists `config` (inline) under `generators:`.
fn generator_tree(config: &str) -> Tree {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ngenerators: [gen.yaml]\n",
    );
    tree.write("k/gen.yaml", config);
    tree
}

const ALPHA: &[&str] = &["build", "--enable-alpha-plugins", "k"];

/// An apiVersion or kind that is no plain path component could lead outside the plugin
/// home: an absolute kind (which kbuild ran before), `..` in the apiVersion.
fn plugin_names_that_are_no_path_component_are_refused() {
    for (api, kind, part) in [
        ("example.com/v1", "$TREE/evil/run", "kind"),
        ("../evil/v1", "Evil", "group"),
        ("example.com/../../evil", "Evil", "version"),
        ("example.com/v1", "..", "kind"),
    ] {
        let tree = Tree::new();
        let kind = kind.replace("$TREE", &tree.path("").display().to_string());
        tree.write("k/res.yaml", RESOURCES);
        tree.write("k/kustomization.yaml", "generators: [gen.yaml]\n");
        tree.write(
            "k/gen.yaml",
            &format!("apiVersion: {api}\nkind: {kind:?}\nmetadata:\n  name: g\n"),
        );
        // The places those names lead to, outside the plugin home.
        tree.script("evil/run", MARKER);
        tree.script("evil/v1/evil/Evil", MARKER);
        tree.script("home/evil/run/evil/run", MARKER);
        let out = tree.kbuild(ALPHA);
        assert_fails(
            &tree,
            &out,
            &[
                &format!(
                    "apiVersion {api:?} and kind {kind:?} cannot name a program in the plugin home: the {part} "
                ),
                "is not a plain path component",
                &format!("in plugin config {}", tree.path("k/gen.yaml").display()),
            ],
        );
        assert!(!tree.path("ran").exists(), "{api} {kind}: the program ran");
    }
}

/// A program in the plugin home that is a symlink (or under a symlinked directory) leading
/// out of it is refused; one inside it runs.
fn a_plugin_home_entry_leading_outside_the_home_is_refused() {
    let tree = generator_tree("apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: g\n");
    tree.script("outside/Gen", MARKER);
    std::fs::create_dir_all(tree.path("home/example.com/v1/gen")).unwrap();
    std::os::unix::fs::symlink(
        tree.path("outside/Gen"),
        tree.path("home/example.com/v1/gen/Gen"),
    )
    .unwrap();
    let out = tree.kbuild(ALPHA);
    assert_fails(
        &tree,
        &out,
        &[
            &format!(
                "resolves to {}, outside the plugin home",
                std::fs::canonicalize(tree.path("outside/Gen"))
                    .unwrap()
                    .display()
            ),
            "copy it instead of linking to it",
        ],
    );
    assert!(!tree.path("ran").exists());
    // A directory symlink on the way out.
    std::fs::remove_dir_all(tree.path("home/example.com")).unwrap();
    std::os::unix::fs::symlink(tree.path("outside"), tree.path("home/example.com")).unwrap();
    std::fs::create_dir_all(tree.path("outside/v1/gen")).unwrap();
    tree.script("outside/v1/gen/Gen", MARKER);
    assert_fails(&tree, &tree.kbuild(ALPHA), &["outside the plugin home"]);
    assert!(!tree.path("ran").exists());
    // A symlink that stays inside the home is followed.
    std::fs::remove_file(tree.path("home/example.com")).unwrap();
    tree.script("home/example.com/v1/gen/real", MARKER);
    std::os::unix::fs::symlink("real", tree.path("home/example.com/v1/gen/Gen")).unwrap();
    let out = tree.kbuild(ALPHA);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(tree.path("ran").exists());
}

/// The exec function config `fn.yaml` of kind `kind` running `path`.
fn exec_function(kind: &str, path: &str) -> String {
    format!(
        "apiVersion: example.com/v1\nkind: {kind}\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: {path}\n"
    )
}

/// Allowing a kind allows the programs installed in the plugin home for it, not whatever
/// program or image a KRM function config of that kind names.
fn allow_plugin_by_kind_does_not_allow_a_function_of_that_kind() {
    let tree = generator_tree(&exec_function("SopsGenerator", "./evil.sh"));
    tree.script("k/evil.sh", MARKER);
    tree.exec_plugin(
        "viaduct.ai/v1",
        "SopsGenerator",
        "#!/bin/sh\necho 'apiVersion: v1'\necho 'kind: ConfigMap'\necho 'metadata: {name: made}'\n",
    );
    let allow_kind = [
        "build",
        "--enable-alpha-plugins",
        "--enable-exec",
        "--allow-plugin",
        "SopsGenerator",
        "k",
    ];
    let out = tree.kbuild(&allow_kind);
    let program = tree.path("k/evil.sh").display().to_string();
    assert_fails(
        &tree,
        &out,
        &[&format!(
            "not in the --allow-plugin list (it would run {program}; an exec function is allowed only by its program's absolute path, not by its config's kind)"
        )],
    );
    assert!(!tree.path("ran").exists(), "the function ran");
    // The plugin-home program of that kind is what the kind allows.
    tree.write(
        "k/gen.yaml",
        "apiVersion: viaduct.ai/v1\nkind: SopsGenerator\nmetadata:\n  name: g\n",
    );
    let out = tree.kbuild(&allow_kind);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("name: made"));
    // A container function of an allowed kind: only its image allows it.
    tree.write(
        "k/gen.yaml",
        "apiVersion: example.com/v1\nkind: SopsGenerator\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: evil.example/fn:v1\n",
    );
    tree.script("bin/docker", MARKER);
    let out = tree.kbuild(&allow_kind);
    assert_fails(
        &tree,
        &out,
        &[
            "it would run the image evil.example/fn:v1; a container function is allowed only by its image",
        ],
    );
    assert!(!tree.path("ran").exists(), "the container ran");
    for (entry, ok) in [
        ("evil.example/fn:v1", true),
        ("EVIL.example/fn:v1", false),
        ("evil.example/fn", false),
    ] {
        let out = tree.kbuild(&[
            "build",
            "--enable-alpha-plugins",
            "--allow-plugin",
            entry,
            "k",
        ]);
        assert_eq!(out.status.success(), ok, "{entry}: {}", stderr(&out));
    }
}

/// A path in `--allow-plugin` names one program: the same absolute path, however it is
/// written, and not a symlink to it nor a relative spelling.
fn allow_plugin_paths_are_not_widened_by_spelling_or_symlinks() {
    let tree = generator_tree(&exec_function("Fn", "./fn.sh"));
    tree.script(
        "k/fn.sh",
        "#!/bin/sh\ncat > /dev/null\ntouch \"$TREE/ran\"\n",
    );
    std::os::unix::fs::symlink("fn.sh", tree.path("k/link.sh")).unwrap();
    let dir = tree.path("k").display().to_string();
    let run = |entry: &str| {
        let _ = std::fs::remove_file(tree.path("ran"));
        let out = tree.kbuild(&[
            "build",
            "--enable-alpha-plugins",
            "--enable-exec",
            "--allow-plugin",
            entry,
            "k",
        ]);
        (out.status.success(), tree.path("ran").exists())
    };
    for entry in [format!("{dir}/fn.sh"), format!("{dir}//./fn.sh")] {
        assert_eq!(run(&entry), (true, true), "{entry}");
    }
    for entry in [
        "./fn.sh".to_string(),
        "fn.sh".to_string(),
        format!("{dir}/FN.sh"),
        format!("{dir}/link.sh"),
        "Fn".to_string(),
    ] {
        assert_eq!(run(&entry), (false, false), "{entry}");
    }
    // The config naming a symlink to the allowed program runs another program.
    tree.write("k/gen.yaml", &exec_function("Fn", "./link.sh"));
    assert_eq!(run(&format!("{dir}/fn.sh")), (false, false));
}

/// A `docker` stand-in: records its argv (one argument a line) and passes its input
/// through.
const DOCKER: &str = "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$TREE/argv\"\ncat\n";

/// A transformer tree whose container function declares `container` (YAML lines under
/// `container:`, indented 8 spaces).
fn container_tree(container: &str) -> Tree {
    let tree = Tree::new();
    tree.write("k/res.yaml", RESOURCES);
    tree.write(
        "k/kustomization.yaml",
        "resources: [res.yaml]\ntransformers: [fn.yaml]\n",
    );
    tree.write(
        "k/fn.yaml",
        &format!(
            "apiVersion: example.com/v1\nkind: Fn\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n{container}"
        ),
    );
    tree.script("bin/docker", DOCKER);
    std::fs::create_dir_all(tree.path("k/data")).unwrap();
    tree
}

/// Mounts, environment entries and images that docker would read as more fields or as
/// options are refused, and docker never runs.
fn container_arguments_that_docker_would_misread_are_refused() {
    let image = "        image: example.com/fn:v1\n";
    for (container, flags, needle) in [
        (
            "        mounts:\n        - {type: bind, src: data, dst: \"/data,source=/\"}\n",
            &[][..],
            "container function mount dst \"/data,source=/\" is refused",
        ),
        (
            "        mounts:\n        - {type: bind, src: data, dst: \"/data\\n\"}\n",
            &[],
            "container function mount dst \"/data\\n\" is refused",
        ),
        (
            "        mounts:\n        - {type: \"bind,readonly=false\", src: data, dst: /data}\n",
            &[],
            "mount type",
        ),
        (
            "",
            &["--mount", "type=bind,src=/etc,dst=/e\"x"],
            "mount dst",
        ),
        ("        envs: [\"-e=1\"]\n", &[], "envs entry \"-e=1\""),
        ("        envs: [\"A\\nB=1\"]\n", &[], "envs entry"),
        ("", &["-e", "=x"], "-e/--env entry \"=x\""),
    ] {
        let tree = container_tree(&format!("{image}{container}"));
        let mut args = vec!["build", "--enable-alpha-plugins"];
        args.extend(flags);
        args.push("k");
        let out = tree.kbuild(&args);
        assert_fails(&tree, &out, &[needle]);
        assert!(!tree.path("argv").exists(), "docker ran for {container:?}");
    }
    let tree = container_tree("        image: \"--privileged\"\n");
    let out = tree.kbuild(ALPHA);
    assert_fails(
        &tree,
        &out,
        &["container function image \"--privileged\" is refused"],
    );
    assert!(!tree.path("argv").exists());
}

/// A mount the function declares stays inside the kustomization, symlinks resolved, and
/// is no named volume.
fn declared_mounts_cannot_reach_outside_the_kustomization() {
    let tree = container_tree(
        "        image: example.com/fn:v1\n        mounts:\n        - {type: bind, src: secrets, dst: /s}\n",
    );
    std::fs::create_dir_all(tree.path("private")).unwrap();
    std::os::unix::fs::symlink(tree.path("private"), tree.path("k/secrets")).unwrap();
    let out = tree.kbuild(ALPHA);
    assert_fails(
        &tree,
        &out,
        &[
            "mount path 'secrets' is not permitted; it resolves to",
            "outside the current kustomization directory",
        ],
    );
    assert!(!tree.path("argv").exists());
    let tree = container_tree(
        "        image: example.com/fn:v1\n        mounts:\n        - {type: volume, src: app-secrets, dst: /s}\n",
    );
    let out = tree.kbuild(ALPHA);
    assert_fails(
        &tree,
        &out,
        &["a named volume holds state from outside the kustomization"],
    );
    // A mount inside the tree still works, as in kustomize.
    let tree = container_tree(
        "        image: example.com/fn:v1\n        mounts:\n        - {type: bind, src: data, dst: /d}\n",
    );
    let out = tree.kbuild(ALPHA);
    assert!(out.status.success(), "{}", stderr(&out));
    let argv = std::fs::read_to_string(tree.path("argv")).unwrap();
    assert!(
        argv.contains(&format!(
            "--mount\ntype=bind,source={}/data,target=/d,readonly\n",
            tree.path("k").display()
        )),
        "{argv}"
    );
}

/// A bare name among the function's own `envs` would hand kbuild's environment variable
/// to the container: only `-e NAME` on the command line may.
fn a_function_cannot_ask_for_kbuilds_environment() {
    let tree =
        container_tree("        image: example.com/fn:v1\n        envs: [KBUILD_TEST_SECRET]\n");
    let run = |extra: &[&str]| {
        let mut args = vec!["build", "--enable-alpha-plugins"];
        args.extend(extra);
        args.push("k");
        tree.command(std::path::Path::new(env!("CARGO_BIN_EXE_kbuild")))
            .env("KBUILD_TEST_SECRET", "hunter2")
            .args(&args)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_fails(
        &tree,
        &out,
        &[
            "envs entry \"KBUILD_TEST_SECRET\" would pass kbuild's own environment variable into the container",
            "pass it with -e NAME",
        ],
    );
    assert!(!tree.path("argv").exists());
    let out = run(&["-e", "KBUILD_TEST_SECRET"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let argv = std::fs::read_to_string(tree.path("argv")).unwrap();
    assert!(argv.contains("-e\nKBUILD_TEST_SECRET\n"), "{argv}");
}

/// A plugin that prints without end is stopped once it passes what the output budget
/// leaves room for, quickly, with its process group, and leaves no temporary file.
fn a_plugin_printing_without_end_is_stopped() {
    let tree = generator_tree("apiVersion: example.com/v1\nkind: Yes\nmetadata:\n  name: y\n");
    tree.exec_plugin(
        "example.com/v1",
        "Yes",
        "#!/bin/sh\nyes 'kind: ConfigMap'\n",
    );
    let out = tree.kbuild(&[
        "build",
        "--enable-alpha-plugins",
        "--max-output-bytes",
        "1000000",
        "--plugin-timeout",
        "5m",
        "k",
    ]);
    assert_fails(
        &tree,
        &out,
        &[
            "plugin Yes 'y' (",
            "bytes, more than the output budget leaves room for; killed it and its process group",
            "raise --max-output-bytes",
        ],
    );
}

/// `--plugin-timeout` past a year is an error, not an overflow when the deadline is
/// computed.
fn a_huge_plugin_timeout_is_an_error() {
    let tree = generator_tree("apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: g\n");
    tree.exec_plugin("example.com/v1", "Gen", "#!/bin/sh\n");
    for limit in ["18446744073709551615", "9999999h"] {
        let out = tree.kbuild(&[
            "build",
            "--enable-alpha-plugins",
            "--plugin-timeout",
            limit,
            "k",
        ]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("longer than kbuild's limit of a year"),
            "{}",
            stderr(&out)
        );
    }
}

/// SIGTERM while a plugin runs: kbuild kills the plugin's process group (then removes its
/// temporary files) before it dies.
fn a_signal_while_a_plugin_runs_kills_it() {
    let tree = generator_tree("apiVersion: example.com/v1\nkind: Hang\nmetadata:\n  name: h\n");
    tree.exec_plugin(
        "example.com/v1",
        "Hang",
        "#!/bin/sh\necho $$ > \"$TREE/pid.tmp\"\nmv \"$TREE/pid.tmp\" \"$TREE/pid\"\nexec sleep 300\n",
    );
    let mut child = tree
        .command(std::path::Path::new(env!("CARGO_BIN_EXE_kbuild")))
        .args(["build", "--enable-alpha-plugins", "k"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !tree.path("pid").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the plugin never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = std::fs::read_to_string(tree.path("pid")).unwrap();
    // SAFETY: kill(2) on the child's pid.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    assert!(!child.wait().unwrap().success());
    let alive = || {
        std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .is_ok_and(|s| !s.contains(") Z "))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let survived = alive();
    if survived
        && let Ok(p) = pid.trim().parse::<libc::pid_t>()
        && p > 0
    {
        // SAFETY: kill(2) on the plugin's pid, so that the test leaves nothing running.
        unsafe {
            libc::kill(p, libc::SIGKILL);
        }
    }
    assert!(
        !survived,
        "the plugin (pid {}) still runs after kbuild died",
        pid.trim()
    );
    tree.assert_no_temp_debris();
}
