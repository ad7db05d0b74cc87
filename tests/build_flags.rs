//! `kustomize build`'s flags and `kustomize version` through the real binary: every flag
//! accepted before and after the path, the flags that act (`--reorder`,
//! `--enable-managedby-label`, `--load-restrictor`) doing what kustomize does, the helm and
//! plugin flags deciding the error, usage errors said plainly, and `kbuild version` in
//! each of kustomize's forms (the `--short` one read back as Argo CD reads it). The output of
//! `--reorder` and `--enable-managedby-label` is also checked against kubectl in
//! tests/fixtures/build-flags/.

use crate::common;
use common::{argo_cd_semver, write};
use std::path::Path;
use std::process::Command;

tests! {
    every_flag_is_accepted_before_and_after_the_path,
    argo_cd_command_line_builds,
    output_flag_before_or_after_the_path,
    reorder_none_keeps_the_order_resources_were_read_in,
    sort_options_win_over_reorder_with_kustomizes_warning,
    managed_by_flag_labels_as_build_metadata_does,
    flag_values_kustomize_refuses_get_its_errors,
    kustomize_commands_kbuild_lacks_are_refused_by_name,
    unknown_flags_are_said_plainly,
    helm_and_plugin_errors_name_the_flag_or_what_is_missing,
    other_commands_take_the_flags_that_change_a_build,
    help_texts,
    version_forms,
    version_follows_the_kustomize_version,
    version_flag_errors,
    argo_cd_reads_the_short_version,
    output_error_names_the_output_file_only,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs kbuild in `dir` with `env` set (and kbuild's and kustomize's variables cleared).
fn kbuild_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kbuild"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .env_remove("KUSTOMIZE_ENABLE_MANAGEDBY_LABEL");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run kbuild");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).replace(&dir.display().to_string(), "$TMP"),
    }
}

fn kbuild(dir: &Path, args: &[&str]) -> Run {
    kbuild_env(dir, args, &[])
}

const RESOURCES: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n";

/// `app/`: a Deployment, a Service and a Namespace, in an order the legacy sort changes.
fn tree() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(
        tmp.path(),
        "app/kustomization.yaml",
        "resources: [r.yaml]\n",
    );
    write(tmp.path(), "app/r.yaml", RESOURCES);
    tmp
}

fn kinds(out: &str) -> Vec<&str> {
    out.lines()
        .filter_map(|l| l.strip_prefix("kind: "))
        .collect()
}

/// Every flag of `kustomize build` v5.8.1 and `kubectl kustomize` that leaves this build's
/// output alone, with a value where it takes one.
const NEUTRAL_FLAGS: &[&[&str]] = &[
    &["--load-restrictor", "LoadRestrictionsNone"],
    &["--load-restrictor=LoadRestrictionsRootOnly"],
    &["--load-restrictor", ""],
    &["--kustomize-version", "v5.8.1"],
    &["--enable-helm"],
    &["--enable-helm=false"],
    &["--helm-command", "/bin/false"],
    &["--helm-kube-version", "1.31.0"],
    &["--helm-api-versions", "a/v1", "--helm-api-versions", "b/v1"],
    &["--helm-debug"],
    &["--enable-alpha-plugins=true"],
    &["--enable-exec"],
    &["-e", "A=1", "--env", "B"],
    &["--mount", "type=bind,src=/a,dst=/b"],
    &["--network"],
    &["--network-name", "host"],
    &["--as-current-user"],
    &["--stack-trace"],
    &["--reorder", "legacy"],
    &["--reorder=legacy", "--reorder", "legacy"],
];

fn every_flag_is_accepted_before_and_after_the_path() {
    let t = tree();
    let plain = kbuild(t.path(), &["app"]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    for flags in NEUTRAL_FLAGS {
        let forms: [Vec<&str>; 4] = [
            [flags, &["app"][..]].concat(),
            [&["app"][..], flags].concat(),
            [&["build"][..], flags, &["app"]].concat(),
            [&["build", "app"][..], flags].concat(),
        ];
        for args in forms {
            let run = kbuild(t.path(), &args);
            assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
            assert_eq!(run.stdout, plain.stdout, "{args:?}");
        }
    }
}

fn argo_cd_command_line_builds() {
    // What Argo CD runs for an application with helm enabled (an absolute path first).
    let t = tree();
    let app = t.path().join("app");
    let app = app.to_str().expect("utf-8 path");
    let run = kbuild(
        t.path(),
        &[
            "build",
            app,
            "--enable-helm",
            "--helm-kube-version",
            "1.31.0",
            "--helm-api-versions",
            "a/v1",
            "--helm-api-versions",
            "b/v1",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, kbuild(t.path(), &["app"]).stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

fn output_flag_before_or_after_the_path() {
    let t = tree();
    let plain = kbuild(t.path(), &["app"]).stdout;
    for args in [
        &["-o", "a.yaml", "app"][..],
        &["app", "--output", "a.yaml"],
        &["app", "--output=a.yaml"],
    ] {
        let run = kbuild(t.path(), args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
        let written = std::fs::read_to_string(t.path().join("a.yaml")).expect("written");
        assert_eq!(written, plain, "{args:?}");
    }
}

fn reorder_none_keeps_the_order_resources_were_read_in() {
    let t = tree();
    assert_eq!(
        kinds(&kbuild(t.path(), &["app"]).stdout),
        ["Namespace", "Service", "Deployment"]
    );
    for args in [
        &["app", "--reorder", "none"][..],
        &["--reorder=none", "app"],
    ] {
        let run = kbuild(t.path(), args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(kinds(&run.stdout), ["Deployment", "Service", "Namespace"]);
        // cobra's notice for a deprecated flag.
        assert_eq!(
            run.stderr,
            "Flag --reorder has been deprecated, use the new 'sortOptions' field in kustomization.yaml instead.\n"
        );
    }
}

fn sort_options_win_over_reorder_with_kustomizes_warning() {
    let t = tree();
    write(
        t.path(),
        "app/kustomization.yaml",
        "resources: [r.yaml]\nsortOptions:\n  order: legacy\n",
    );
    let run = kbuild(t.path(), &["app", "--reorder", "none"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(kinds(&run.stdout), ["Namespace", "Service", "Deployment"]);
    insta::assert_snapshot!(run.stderr);
}

fn managed_by_flag_labels_as_build_metadata_does() {
    let t = tree();
    write(
        t.path(),
        "meta/kustomization.yaml",
        "resources: [../app]\nbuildMetadata: [managedByLabel]\n",
    );
    write(t.path(), "flag/kustomization.yaml", "resources: [../app]\n");
    for version in ["v5.8.1", "v5.5.0"] {
        let v = ["--kustomize-version", version];
        let meta = kbuild(t.path(), &[v[0], v[1], "meta"]);
        assert_eq!(meta.code, 0, "{}", meta.stderr);
        let want = match version {
            "v5.8.1" => "app.kubernetes.io/managed-by: kustomize-v5.8.1",
            _ => "app.kubernetes.io/managed-by: kustomize-(devel)",
        };
        assert_eq!(meta.stdout.matches(want).count(), 3, "{}", meta.stdout);
        let flag = kbuild(t.path(), &["flag", "--enable-managedby-label", v[0], v[1]]);
        assert_eq!(flag.code, 0, "{}", flag.stderr);
        assert_eq!(flag.stdout, meta.stdout, "{version}");
        assert_eq!(
            flag.stderr,
            "Flag --enable-managedby-label has been deprecated, The flag `enable-managedby-label` has been deprecated. Use the `managedByLabel` option in the `buildMetadata` field instead.\n"
        );
        // kustomize's variable: only "on" turns it on, and it is no deprecated flag.
        let env = kbuild_env(
            t.path(),
            &["flag", v[0], v[1]],
            &[("KUSTOMIZE_ENABLE_MANAGEDBY_LABEL", "on")],
        );
        assert_eq!(
            (env.stdout.as_str(), env.stderr.as_str()),
            (meta.stdout.as_str(), "")
        );
    }
    for off in [&["flag", "--enable-managedby-label=false"][..], &["flag"]] {
        let env = [("KUSTOMIZE_ENABLE_MANAGEDBY_LABEL", "true")];
        let run = kbuild_env(t.path(), off, &env);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(!run.stdout.contains("managed-by"), "{off:?}");
    }
}

fn flag_values_kustomize_refuses_get_its_errors() {
    let t = tree();
    let cases: &[(&[&str], &str)] = &[
        (
            &["app", "--load-restrictor", "none"],
            "Error: illegal flag value --load-restrictor none; legal values: [LoadRestrictionsRootOnly LoadRestrictionsNone]\n",
        ),
        (
            &["--load-restrictor=bogus", "app"],
            "Error: illegal flag value --load-restrictor bogus; legal values: [LoadRestrictionsRootOnly LoadRestrictionsNone]\n",
        ),
        (
            &["app", "--reorder", "fifo"],
            "Flag --reorder has been deprecated, use the new 'sortOptions' field in kustomization.yaml instead.\nError: illegal flag value --reorder fifo; legal values: [legacy none]\n",
        ),
        (
            &["app", "app"],
            "Error: specify one path to kustomization.yaml\n",
        ),
        (
            &["build", "app", "--enable-helm", "other"],
            "Error: specify one path to kustomization.yaml\n",
        ),
    ];
    for (args, want) in cases {
        let run = kbuild(t.path(), args);
        assert_eq!(run.code, 1, "{args:?}");
        assert!(run.stdout.is_empty());
        assert_eq!(run.stderr, *want, "{args:?}");
    }
    // The other commands that build check the flags the same way.
    for cmd in [&["diff", "app", "app"][..], &["render", "app"]] {
        let run = kbuild(t.path(), &[cmd, &["--load-restrictor", "none"]].concat());
        assert_eq!(run.code, 2, "{cmd:?}");
        assert!(
            run.stderr
                .contains("illegal flag value --load-restrictor none")
        );
    }
}

fn kustomize_commands_kbuild_lacks_are_refused_by_name() {
    let t = tree();
    for (args, named) in [
        (&["cfg", "tree", "."][..], "`kustomize cfg tree`"),
        (&["fn", "run", "."], "`kustomize fn run`"),
        // `kbuild openapi` is kbuild's own command (`from-crds`); kustomize's `info` and
        // `fetch` are refused, and so is `openapi` as a path to build.
        (&["openapi", "info"], "`kustomize openapi info`"),
        (&["openapi", "fetch", "--help"], "`kustomize openapi fetch`"),
        (&["build", "openapi", "info"], "`kustomize openapi info`"),
        (&["docs-merge3"], "`kustomize docs-merge3`"),
    ] {
        let run = kbuild(t.path(), args);
        assert_eq!(run.code, 1, "{args:?}");
        assert!(run.stdout.is_empty());
        assert!(
            run.stderr.starts_with(&format!(
                "Error: kbuild does not implement {named}; instead: "
            )),
            "{args:?}: {}",
            run.stderr
        );
    }
    // A directory of that name still builds.
    std::fs::create_dir(t.path().join("fn")).expect("mkdir");
    std::fs::write(t.path().join("fn/kustomization.yaml"), "resources: []\n").expect("write");
    let run = kbuild(t.path(), &["fn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // `openapi` names the command now: the directory builds as `./openapi`.
    std::fs::create_dir(t.path().join("openapi")).expect("mkdir");
    std::fs::write(
        t.path().join("openapi/kustomization.yaml"),
        "resources: []\n",
    )
    .expect("write");
    assert_eq!(kbuild(t.path(), &["./openapi"]).code, 0);
    assert_eq!(kbuild(t.path(), &["openapi", "info"]).code, 1);
    // `completion`, as kustomize spells it.
    let run = kbuild(t.path(), &["completion", "bash"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("kbuild"));
}

fn unknown_flags_are_said_plainly() {
    let t = tree();
    let run = kbuild(t.path(), &["app", "--enable-hlm"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .starts_with("error: unknown flag: --enable-hlm\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("tip: a similar flag exists: '--enable-helm'")
    );
    let run = kbuild(t.path(), &["deps", "app", "other"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("error: extra argument 'other'\n"));
    for run in [
        kbuild(t.path(), &["app", "--enable-hlm"]),
        kbuild(t.path(), &["deps", "app", "other"]),
        kbuild(t.path(), &["--bogus"]),
    ] {
        assert!(
            !run.stderr.contains("unexpected argument"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("'-- "), "{}", run.stderr);
    }
}

/// A helm command that does not exist (a real `helm` on PATH would try the network).
const NO_HELM: &str = "/nonexistent/kbuild-test/helm";

fn helm_and_plugin_errors_name_the_flag_or_what_is_missing() {
    let t = tree();
    write(
        t.path(),
        "helm/kustomization.yaml",
        "helmCharts:\n- name: web\n  repo: https://example.com/charts\n",
    );
    write(
        t.path(),
        "plugin/kustomization.yaml",
        "resources: [../app]\ntransformers:\n- |-\n  apiVersion: example.com/v1\n  kind: SetOwner\n  metadata: {name: x}\n",
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["helm"],
            "Error: helm chart 'web' (helmCharts): must specify --enable-helm",
        ),
        (
            &["helm", "--enable-helm", "--helm-command", NO_HELM],
            "Error: helm chart 'web': cannot run the helm command '/nonexistent/kbuild-test/helm' (--helm-command): No such file or directory (os error 2)",
        ),
        (
            &["--enable-alpha-plugins", "--helm-command", NO_HELM, "helm"],
            "Error: helm chart 'web': cannot run the helm command '/nonexistent/kbuild-test/helm' (--helm-command): No such file or directory (os error 2)",
        ),
        (
            &["plugin", "--enable-helm"],
            "Error: external plugins disabled; unable to load external plugin 'SetOwner'",
        ),
        (
            &["build", "plugin", "--enable-alpha-plugins"],
            // Then kbuild looks for the exec plugin (where depends on the environment:
            // tests/plugins.rs checks the rest).
            "Error: plugin SetOwner 'x'",
        ),
    ];
    for (args, first_line) in cases {
        let run = kbuild(t.path(), args);
        assert_eq!(run.code, 1, "{args:?}");
        let line = run.stderr.lines().next().unwrap_or_default();
        assert!(line.starts_with(first_line), "{args:?}: {line}");
    }
    // The same story in every command that builds.
    let diff = kbuild(
        t.path(),
        &[
            "diff",
            "helm",
            "app",
            "--enable-helm",
            "--helm-command",
            NO_HELM,
        ],
    );
    assert_eq!(diff.code, 2);
    assert!(
        diff.stderr.contains("cannot run the helm command"),
        "{}",
        diff.stderr
    );
    let render = kbuild(t.path(), &["render", "helm"]);
    assert_eq!(render.code, 2);
    assert!(
        render.stderr.contains("must specify --enable-helm"),
        "{}",
        render.stderr
    );
}

fn other_commands_take_the_flags_that_change_a_build() {
    let t = tree();
    let flags = [
        "--reorder",
        "none",
        "--enable-managedby-label",
        "--enable-helm",
    ];
    let render = kbuild(
        t.path(),
        &[&["render", "app", "--out", "out"][..], &flags].concat(),
    );
    assert_eq!(render.code, 0, "{}", render.stderr);
    let rendered = std::fs::read_to_string(t.path().join("out/app.yaml")).expect("render");
    assert_eq!(kinds(&rendered), ["Deployment", "Service", "Namespace"]);
    assert!(rendered.contains("app.kubernetes.io/managed-by: kustomize-v5.8.1"));
    // The flags apply to both sides: only the managed-by label differs from a plain build.
    let diff = kbuild(
        t.path(),
        &[&["diff", "--stat", "app", "out/app.yaml"][..]].concat(),
    );
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    let same = kbuild(
        t.path(),
        &[&["diff", "app", "out/app.yaml"][..], &flags].concat(),
    );
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    let merge3 = kbuild(
        t.path(),
        &[
            &[
                "merge3",
                "--original",
                "app",
                "--updated",
                "app",
                "--dest",
                "app",
            ][..],
            &flags,
        ]
        .concat(),
    );
    assert_eq!(merge3.code, 0, "{}", merge3.stderr);
    assert!(merge3.stdout.contains("managed-by"));
}

fn help_texts() {
    let t = tree();
    for sub in ["build", "version"] {
        let run = kbuild(t.path(), &[sub, "--help"]);
        assert_eq!(run.code, 0);
        insta::assert_snapshot!(format!("help_{sub}"), run.stdout);
    }
}

/// kbuild version's YAML or JSON with the platform fields written as on linux/amd64.
fn platform_free(text: &str) -> String {
    let os = regex::Regex::new(r#"(goOs"?: "?)[a-z0-9]+"#).expect("regex");
    let arch = regex::Regex::new(r#"(goArch"?: "?)[a-z0-9]+"#).expect("regex");
    let text = os.replace(text, "${1}linux");
    arch.replace(&text, "${1}amd64").into_owned()
}

fn version_forms() {
    let t = tree();
    let run = kbuild(t.path(), &["version"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let first = run.stdout.lines().next();
    assert_eq!(first, Some("v5.8.1"));
    assert_eq!(
        run.stdout,
        format!(
            "v5.8.1\nkbuild {} (reproduces kustomize v5.8.1)\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    let short = kbuild(t.path(), &["version", "--short"]);
    assert_eq!(short.code, 0);
    insta::assert_snapshot!(short.stdout);
    assert_eq!(
        short.stderr,
        "Flag --short has been deprecated, and will be removed in the future.\n"
    );
    let yaml = kbuild(t.path(), &["version", "-o", "yaml"]);
    assert_eq!(yaml.code, 0);
    let kbuild_version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        platform_free(&yaml.stdout).replace(kbuild_version, "X.Y.Z"),
        "version: kustomize/v5.8.1\nbuildDate: \"2026-02-09T16:11:22Z\"\ngoOs: linux\ngoArch: amd64\nkbuildVersion: X.Y.Z\n\n"
    );
    let json = kbuild(t.path(), &["version", "--output=json"]);
    assert_eq!(json.code, 0);
    insta::assert_snapshot!(platform_free(&json.stdout).replace(kbuild_version, "X.Y.Z"));
    let parsed: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(parsed["version"], "kustomize/v5.8.1");
}

fn version_follows_the_kustomize_version() {
    let t = tree();
    let flag = kbuild(t.path(), &["version", "--kustomize-version", "5.5"]);
    assert_eq!(flag.stdout.lines().next(), Some("v5.5.0"));
    let env = kbuild_env(
        t.path(),
        &["version", "--short"],
        &[("KBUILD_KUSTOMIZE_VERSION", "v5.5.0")],
    );
    assert_eq!(env.stdout, "{kustomize/v5.5.0  2024-10-09T13:08:22Z   }\n");
    let yaml = kbuild(
        t.path(),
        &["version", "-o", "yaml", "--kustomize-version=v5.5"],
    );
    assert!(
        yaml.stdout
            .starts_with("version: kustomize/v5.5.0\nbuildDate: \"2024-10-09T13:08:22Z\"\n")
    );
}

fn version_flag_errors() {
    let t = tree();
    let run = kbuild(t.path(), &["version", "--short", "-o", "yaml"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.stderr,
        "Flag --short has been deprecated, and will be removed in the future.\nError: --short and --output are mutually exclusive\n"
    );
    let run = kbuild(t.path(), &["version", "-o", "xml"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("'yaml' or 'json'"), "{}", run.stderr);
    // `--version` is kbuild's own (tests/shell.rs checks its text).
    let run = kbuild(t.path(), &["--version"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with("kbuild "), "{}", run.stdout);
}

fn argo_cd_reads_the_short_version() {
    let t = tree();
    for (version, want) in [("v5.8.1", "v5.8.1"), ("v5.5.0", "v5.5.0")] {
        let run = kbuild(
            t.path(),
            &["version", "--short", "--kustomize-version", version],
        );
        assert_eq!(run.code, 0);
        // Argo CD reads stdout only; the deprecation notice is on stderr.
        assert_eq!(argo_cd_semver(&run.stdout).as_deref(), Some(want));
    }
    // The parser itself, on the example in Argo CD's comment.
    assert_eq!(
        argo_cd_semver("{kustomize/v3.8.1  2020-07-16T00:58:46Z  }").as_deref(),
        Some("v3.8.1")
    );
}

/// An output file that cannot be written: the error names it, not the temporary file the
/// atomic write goes through.
fn output_error_names_the_output_file_only() {
    let t = tree();
    let target = t.path().join("missing-dir/out.yaml");
    let run = kbuild(t.path(), &["app", "-o", target.to_str().expect("utf-8")]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .contains("missing-dir/out.yaml: No such file or directory"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(".tmp"), "{}", run.stderr);
}
