//! Writing files, through the real binary: `-o` onto links, devices and read-only files,
//! the modes of new and replaced files, `-o DIR` file names and all-or-nothing sets,
//! `merge3 --in-place` confined to DEST, `render`'s output directory (the manifest, renders
//! of deleted kustomizations, collisions, symlinks, leftover temporary files), and inputs
//! given as `-`, as `<(…)` or in UTF-16. SIGTERM/SIGINT during a write: tests/kill.rs.

#![cfg(unix)]

use crate::common;
use common::write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};

tests! {
    output_onto_a_symlink_writes_its_target_and_keeps_the_link,
    output_onto_a_device_or_a_pipe_writes_through,
    new_files_follow_the_umask_and_replaced_files_keep_their_mode,
    output_dir_refuses_names_that_leave_it,
    output_dir_is_written_all_or_nothing,
    merge3_in_place_never_writes_through_a_symlink_out_of_dest,
    render_all_in_a_kustomization_directory_and_colliding_names,
    render_names_differing_only_in_invalid_utf8_collide,
    render_check_never_follows_symlinks_in_outdir,
    render_owns_its_output_directory,
    at_most_one_input_is_standard_input,
    process_substitution_paths_are_read,
    utf16_files_with_a_byte_order_mark_build,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `kbuild ARGS` in `dir` under `umask 027` (through sh, the only portable way to set
/// a child's umask without a system call crate), `stdin` on its standard input.
fn kbuild(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let script = "umask 027; exec \"$0\" \"$@\"";
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_kbuild"))
        .args(args)
        .current_dir(dir)
        .env_remove("KBUILD_KUSTOMIZE_VERSION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kbuild");
    use std::io::Write;
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    let out = child.wait_with_output().expect("wait");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A ConfigMap as kbuild prints it (keys sorted), so it reads back byte for byte.
const CM: &str = "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: a\n";

/// A kustomization `k` with one ConfigMap, in a fresh directory.
fn tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().expect("tempdir");
    write(t.path(), "k/cm.yaml", CM);
    write(t.path(), "k/kustomization.yaml", "resources: [cm.yaml]\n");
    t
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("stat").mode() & 0o7777
}

/// Every file name under `dir` (recursively, links not followed), sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .filter_map(|e| e.ok())
        .map(|e| {
            e.path()
                .strip_prefix(dir)
                .expect("below")
                .display()
                .to_string()
        })
        .collect();
    names.sort();
    names
}

fn no_temporaries(dir: &Path) {
    let left: Vec<String> = listing(dir)
        .into_iter()
        .filter(|n| n.contains(".kbuild-tmp.") || n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

fn output_onto_a_symlink_writes_its_target_and_keeps_the_link() {
    let t = tree();
    let d = t.path();
    write(d, "real.yaml", "old\n");
    std::os::unix::fs::symlink("real.yaml", d.join("link.yaml")).expect("symlink");
    let r = kbuild(d, &["k", "-o", "link.yaml"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        std::fs::symlink_metadata(d.join("link.yaml"))
            .expect("lstat")
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(d.join("real.yaml")).expect("read"),
        CM
    );

    // A dangling link: its target is created, as kustomize's os.WriteFile creates it.
    std::os::unix::fs::symlink("made.yaml", d.join("dangling.yaml")).expect("symlink");
    let r = kbuild(d, &["k", "-o", "dangling.yaml"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        std::fs::symlink_metadata(d.join("dangling.yaml"))
            .expect("lstat")
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(d.join("made.yaml")).expect("read"),
        CM
    );
    no_temporaries(d);
}

fn output_onto_a_device_or_a_pipe_writes_through() {
    let t = tree();
    let d = t.path();
    let before = std::fs::metadata("/dev/null").expect("stat /dev/null");
    let r = kbuild(d, &["k", "-o", "/dev/null"], "");
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    let after = std::fs::metadata("/dev/null").expect("stat /dev/null");
    assert!(std::os::unix::fs::FileTypeExt::is_char_device(
        &after.file_type()
    ));
    assert_eq!((before.ino(), before.rdev()), (after.ino(), after.rdev()));

    // /dev/stdout: the build goes to the pipe kbuild's stdout is.
    let r = kbuild(d, &["k", "-o", "/dev/stdout"], "");
    assert_eq!((r.code, r.stdout.as_str()), (0, CM), "{}", r.stderr);

    // A directory or a read-only file is refused, and left as it was.
    write(d, "ro.yaml", "mine\n");
    std::fs::set_permissions(d.join("ro.yaml"), std::fs::Permissions::from_mode(0o444))
        .expect("chmod");
    let merge = [
        "merge3",
        "--original",
        "k/cm.yaml",
        "--updated",
        "k/cm.yaml",
        "--dest",
        "k/cm.yaml",
        "-o",
        "ro.yaml",
    ];
    let r = kbuild(d, &merge, "");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("ro.yaml is read-only; make it writable"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(d.join("ro.yaml")).expect("read"),
        "mine\n"
    );
    let r = kbuild(
        d,
        &["apply", "--dry-run", "--live", "k/cm.yaml", "k", "-o", "k"],
        "",
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("k is a directory"), "{}", r.stderr);
    no_temporaries(d);
}

fn new_files_follow_the_umask_and_replaced_files_keep_their_mode() {
    let t = tree();
    let d = t.path();
    // New files: 0666 less the umask (027 in `kbuild`), whichever command writes them.
    let runs: [&[&str]; 4] = [
        &["k", "-o", "new-build.yaml"],
        &[
            "apply",
            "--dry-run",
            "--live",
            "k/cm.yaml",
            "k",
            "-o",
            "new-apply.yaml",
        ],
        &[
            "merge3",
            "--original",
            "k/cm.yaml",
            "--updated",
            "k/cm.yaml",
            "--dest",
            "k/cm.yaml",
            "-o",
            "new-merge.yaml",
        ],
        &["render", "k", "--out", "rendered"],
    ];
    for args in runs {
        let r = kbuild(d, args, "");
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    for f in [
        "new-build.yaml",
        "new-apply.yaml",
        "new-merge.yaml",
        "rendered/k.yaml",
    ] {
        assert_eq!(mode(&d.join(f)), 0o640, "{f}");
    }
    std::fs::create_dir(d.join("dir")).expect("mkdir");
    let r = kbuild(d, &["k", "-o", "dir"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(mode(&d.join("dir/v1_configmap_a.yaml")), 0o640);

    // Replaced files keep their mode (and owner, when kbuild may set it).
    let keep = [
        ("new-build.yaml", 0o604),
        ("new-apply.yaml", 0o600),
        ("new-merge.yaml", 0o664),
        ("rendered/k.yaml", 0o644),
        ("dir/v1_configmap_a.yaml", 0o660),
    ];
    for (f, m) in keep {
        write(d, f, "stale\n");
        std::fs::set_permissions(d.join(f), std::fs::Permissions::from_mode(m)).expect("chmod");
    }
    let is_root = std::fs::metadata(d).expect("stat").uid() == 0;
    if is_root {
        std::os::unix::fs::chown(d.join("new-build.yaml"), Some(4242), Some(4343)).expect("chown");
    }
    for args in runs {
        let r = kbuild(d, args, "");
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    let r = kbuild(d, &["k", "-o", "dir"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let kustomization = d.join("k/kustomization.yaml");
    std::fs::set_permissions(&kustomization, std::fs::Permissions::from_mode(0o604))
        .expect("chmod");
    let r = kbuild(&d.join("k"), &["edit", "set", "namespace", "prod"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(mode(&kustomization), 0o604);
    assert!(
        std::fs::read_to_string(&kustomization)
            .expect("read")
            .contains("prod")
    );
    for (f, m) in keep {
        assert_eq!(mode(&d.join(f)), m, "{f}");
        assert_ne!(
            std::fs::read_to_string(d.join(f)).expect("read"),
            "stale\n",
            "{f}"
        );
    }
    if is_root {
        let meta = std::fs::metadata(d.join("new-build.yaml")).expect("stat");
        assert_eq!((meta.uid(), meta.gid()), (4242, 4343));
    }
    no_temporaries(d);
}

fn output_dir_refuses_names_that_leave_it() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    for (case, ns) in [("up", "../../escape"), ("abs", "/tmp/escape")] {
        write(
            d,
            &format!("{case}/cm.yaml"),
            format!(
                "{CM}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: {ns}\n"
            ),
        );
        write(
            d,
            &format!("{case}/kustomization.yaml"),
            "resources: [cm.yaml]\n",
        );
        std::fs::create_dir_all(d.join(format!("out-{case}/x"))).expect("mkdir");
        let r = kbuild(d, &[case, "-o", &format!("out-{case}/x")], "");
        assert_eq!((r.code, r.stdout.as_str()), (1, ""), "{}", r.stderr);
        assert!(
            r.stderr.contains("ConfigMap b: its -o file name")
                && r.stderr.contains("is not a single file name in"),
            "{}",
            r.stderr
        );
        // Nothing written: not the other resource, nor anything outside.
        assert!(listing(&d.join(format!("out-{case}"))) == ["x"], "{case}");
    }
    assert!(!d.join("escape_v1_configmap_b.yaml").exists());
    assert!(!Path::new("/tmp/escape_v1_configmap_b.yaml").exists());
}

fn output_dir_is_written_all_or_nothing() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let mut stream = String::new();
    for name in ["a", "b", "c", "d"] {
        stream.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"
        ));
    }
    write(d, "k/cm.yaml", &stream);
    write(d, "k/kustomization.yaml", "resources: [cm.yaml]\n");
    for name in ["a", "b", "d"] {
        write(d, &format!("out/v1_configmap_{name}.yaml"), "previous\n");
    }
    // Failures injected in the middle of the set: a directory in the way, then a
    // read-only file. Neither the files before it nor those after it change.
    std::fs::create_dir(d.join("out/v1_configmap_c.yaml")).expect("mkdir");
    let r = kbuild(d, &["k", "-o", "out"], "");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("out/v1_configmap_c.yaml is a directory"),
        "{}",
        r.stderr
    );
    std::fs::remove_dir(d.join("out/v1_configmap_c.yaml")).expect("rmdir");
    write(d, "out/v1_configmap_c.yaml", "previous\n");
    std::fs::set_permissions(
        d.join("out/v1_configmap_c.yaml"),
        std::fs::Permissions::from_mode(0o444),
    )
    .expect("chmod");
    let r = kbuild(d, &["k", "-o", "out"], "");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("is read-only"), "{}", r.stderr);
    for name in ["a", "b", "c", "d"] {
        let f = d.join(format!("out/v1_configmap_{name}.yaml"));
        assert_eq!(std::fs::read_to_string(f).expect("read"), "previous\n");
    }
    no_temporaries(d);
    // Writable again: the whole set is replaced.
    std::fs::set_permissions(
        d.join("out/v1_configmap_c.yaml"),
        std::fs::Permissions::from_mode(0o644),
    )
    .expect("chmod");
    let r = kbuild(d, &["k", "-o", "out"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let a = std::fs::read_to_string(d.join("out/v1_configmap_a.yaml")).expect("read");
    assert_eq!(a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n");
    no_temporaries(d);
}

fn merge3_in_place_never_writes_through_a_symlink_out_of_dest() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let cm = |name: &str, v: &str| {
        format!("apiVersion: v1\ndata:\n  k: {v}\nkind: ConfigMap\nmetadata:\n  name: {name}\n")
    };
    write(d, "original/a.yaml", cm("a", "1"));
    write(d, "updated/a.yaml", cm("a", "2"));
    write(d, "updated/sub/new.yaml", cm("new", "1"));
    write(d, "dest/a.yaml", cm("a", "1"));
    std::fs::create_dir(d.join("outside")).expect("mkdir");
    std::os::unix::fs::symlink("../outside", d.join("dest/sub")).expect("symlink");
    let args = [
        "merge3",
        "--original",
        "original",
        "--updated",
        "updated",
        "--dest",
        "dest",
        "--in-place",
    ];
    let r = kbuild(d, &args, "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("dest/sub is a symlink; kbuild does not write through links below dest"),
        "{}",
        r.stderr
    );
    // All or nothing: the change to a.yaml, which comes first, is not written either.
    assert_eq!(
        std::fs::read_to_string(d.join("dest/a.yaml")).expect("read"),
        cm("a", "1")
    );
    assert!(listing(&d.join("outside")).is_empty());
    no_temporaries(d);

    std::fs::remove_file(d.join("dest/sub")).expect("rm link");
    std::fs::set_permissions(
        d.join("dest/a.yaml"),
        std::fs::Permissions::from_mode(0o604),
    )
    .expect("chmod");
    let r = kbuild(d, &args, "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The rewritten file keeps its mode; the new one gets 0666 less the umask (027).
    assert_eq!(mode(&d.join("dest/a.yaml")), 0o604);
    assert_eq!(mode(&d.join("dest/sub/new.yaml")), 0o640);
    assert_eq!(
        std::fs::read_to_string(d.join("dest/a.yaml")).expect("read"),
        cm("a", "2")
    );
    assert_eq!(
        std::fs::read_to_string(d.join("dest/sub/new.yaml")).expect("read"),
        cm("new", "1")
    );
}

fn render_all_in_a_kustomization_directory_and_colliding_names() {
    let t = tree();
    let d = t.path();
    write(d, "kustomization.yaml", "resources: [k]\n");
    let r = kbuild(d, &["render", "--all", "--out", "out"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        listing(&d.join("out")),
        [".kbuild-render.json", "k.yaml", "root.yaml"]
    );
    assert_eq!(
        std::fs::read_to_string(d.join("out/root.yaml")).expect("read"),
        CM
    );

    // `.` and a directory named root both render to out/root.yaml.
    write(d, "root/kustomization.yaml", "");
    let r = kbuild(d, &["render", "--all", "--out", "out2"], "");
    assert_eq!((r.code, r.stdout.as_str()), (2, ""));
    assert_eq!(
        r.stderr,
        "Error: '.' and 'root' would both render to out2/root.yaml; rename one of the directories\n"
    );
    assert!(!d.join("out2").exists());
}

fn render_names_differing_only_in_invalid_utf8_collide() {
    use std::os::unix::ffi::OsStrExt;
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    for byte in [0xff_u8, 0xfe] {
        let bytes = [b'a', byte];
        let dir = d.join(std::ffi::OsStr::from_bytes(&bytes));
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::write(dir.join("cm.yaml"), CM).expect("write");
        std::fs::write(dir.join("kustomization.yaml"), "resources: [cm.yaml]\n").expect("write");
    }
    let r = kbuild(d, &["render", "--all", "--out", "out"], "");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("would both render to out/a\u{fffd}.yaml"),
        "{}",
        r.stderr
    );
    assert!(!d.join("out").exists());
}

fn render_check_never_follows_symlinks_in_outdir() {
    let t = tree();
    let d = t.path();
    write(d, "secret.txt", "TOKEN=hunter2-do-not-print\n");
    std::fs::create_dir(d.join("out")).expect("mkdir");
    std::os::unix::fs::symlink("../secret.txt", d.join("out/k.yaml")).expect("symlink");
    let r = kbuild(d, &["render", "k", "--out", "out", "--check"], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    for text in [&r.stdout, &r.stderr] {
        assert!(!text.contains("hunter2"), "the secret leaked: {text}");
    }
    assert!(
        r.stdout.contains("stale: out/k.yaml") && r.stdout.contains("out/k.yaml is a symlink"),
        "{}",
        r.stdout
    );
    // A symlinked directory on the way is not followed either.
    write(d, "elsewhere/k.yaml", "TOKEN=hunter2-do-not-print\n");
    write(d, "apps/k/cm.yaml", CM);
    write(d, "apps/k/kustomization.yaml", "resources: [cm.yaml]\n");
    std::fs::create_dir(d.join("real")).expect("mkdir");
    std::os::unix::fs::symlink("../elsewhere", d.join("real/apps")).expect("symlink");
    let r = kbuild(d, &["render", "apps/k", "--out", "real", "--check"], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!r.stdout.contains("hunter2") && !r.stderr.contains("hunter2"));
    assert!(r.stdout.contains("real/apps is a symlink"), "{}", r.stdout);
    // Writing replaces a link in a render's place (not its target) ...
    std::fs::create_dir(d.join("out2")).expect("mkdir");
    std::os::unix::fs::symlink("../secret.txt", d.join("out2/k.yaml")).expect("symlink");
    let r = kbuild(d, &["render", "k", "--out", "out2"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        std::fs::symlink_metadata(d.join("out2/k.yaml"))
            .expect("lstat")
            .is_file()
    );
    assert_eq!(
        std::fs::read_to_string(d.join("secret.txt")).expect("read"),
        "TOKEN=hunter2-do-not-print\n"
    );
    // ... and refuses to write through a linked directory.
    let r = kbuild(d, &["render", "apps/k", "--out", "real"], "");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("real/apps is a symlink"), "{}", r.stderr);
    assert_eq!(listing(&d.join("elsewhere")), ["k.yaml"]);
    assert_eq!(
        std::fs::read_to_string(d.join("elsewhere/k.yaml")).expect("read"),
        "TOKEN=hunter2-do-not-print\n"
    );
}

/// A process id no process has now (the writer of a leftover temporary file).
fn dead_pid() -> u32 {
    (100_000..4_000_000)
        .step_by(7919)
        .find(|p| !Path::new(&format!("/proc/{p}")).exists())
        .expect("a free process id")
}

fn render_owns_its_output_directory() {
    let t = tree();
    let d = t.path();
    write(d, "apps/web/cm.yaml", CM);
    write(d, "apps/web/kustomization.yaml", "resources: [cm.yaml]\n");
    let r = kbuild(d, &["render", "--all", "--out", "out"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);

    // Leftover temporary files of an interrupted kbuild are stale, and removed; those of
    // a process still running (this test's own id) are not kbuild's to remove.
    let leftover = format!("out/apps/.kbuild-tmp.{}.Ab12Cd", dead_pid());
    let live = format!("out/.kbuild-tmp.{}.Xy34Zw", std::process::id());
    write(d, &leftover, "half a render");
    write(d, &live, "being written");
    let r = kbuild(d, &["render", "--all", "--out", "out", "--check"], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!("stale: {leftover} (temporary file left by an interrupted kbuild)\n")
    );
    assert!(
        r.stderr
            .ends_with("run `kbuild render --all --out out` to update the renders\n")
    );
    let r = kbuild(d, &["render", "--all", "--out", "out"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!d.join(&leftover).exists() && d.join(&live).exists());
    std::fs::remove_file(d.join(&live)).expect("rm");
    // A `.tmpXXXXXX` file (an older kbuild's temporary, or any tempfile user's) is only
    // reported.
    write(d, "out/.tmpAb12Cd", "maybe kbuild's");
    let r = kbuild(d, &["render", "--all", "--out", "out"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("warning: out/.tmpAb12Cd was not written by kbuild render"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(d.join("out/.tmpAb12Cd")).expect("rm");

    // A corrupt manifest: a clear error, nothing written or removed.
    let manifest = d.join("out/.kbuild-render.json");
    let good = std::fs::read(&manifest).expect("manifest");
    let before = listing(&d.join("out"));
    for bad in [
        "{\"kbuild-render\": 1, \"renders\": {\"../k/cm.yaml\": \"k\"}}",
        "not json at all: SECRET-CONTENT",
    ] {
        std::fs::write(&manifest, bad).expect("write");
        std::fs::remove_dir_all(d.join("apps")).expect("rm");
        let r = kbuild(d, &["render", "--all", "--out", "out"], "");
        assert_eq!((r.code, r.stdout.as_str()), (2, ""), "{}", r.stderr);
        assert!(
            r.stderr.contains("out/.kbuild-render.json: ")
                && r.stderr.contains("Delete it and run kbuild render again"),
            "{}",
            r.stderr
        );
        assert!(!r.stderr.contains("SECRET"), "{}", r.stderr);
        assert_eq!(listing(&d.join("out")), before);
        assert_eq!(
            std::fs::read_to_string(d.join("k/cm.yaml")).expect("read"),
            CM
        );
        write(d, "apps/web/cm.yaml", CM);
        write(d, "apps/web/kustomization.yaml", "resources: [cm.yaml]\n");
    }
    std::fs::write(&manifest, good).expect("restore");

    // A render the manifest does not record is reported, and then recorded.
    std::fs::write(&manifest, "{\"kbuild-render\": 1, \"renders\": {}}").expect("write");
    let r = kbuild(d, &["render", "--all", "--out", "out", "--check"], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("stale: out/k.yaml (not recorded in out/.kbuild-render.json)"),
        "{}",
        r.stdout
    );
    let r = kbuild(d, &["render", "--all", "--out", "out"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = kbuild(d, &["render", "--all", "--out", "out", "--check"], "");
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
}

fn at_most_one_input_is_standard_input() {
    let t = tree();
    let d = t.path();
    let r = kbuild(d, &["apply", "--dry-run", "--live", "-", "-"], CM);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    assert_eq!(
        r.stderr,
        "Error: --live and CONFIG each name standard input ('-'); at most one input can be read from it: give the others as files (or as <(command), process substitution)\n"
    );
    let r = kbuild(
        d,
        &[
            "merge3",
            "--original",
            "-",
            "--updated",
            "k/cm.yaml",
            "--dest",
            "-",
        ],
        CM,
    );
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    assert!(
        r.stderr
            .contains("--original and --dest each name standard input"),
        "{}",
        r.stderr
    );
    // One '-' is fine.
    let r = kbuild(d, &["apply", "--dry-run", "--live", "-", "k"], CM);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("unchanged"), "{}", r.stderr);
}

fn process_substitution_paths_are_read() {
    let t = tree();
    let d = t.path();
    let bin = env!("CARGO_BIN_EXE_kbuild");
    let Ok(bash) = Command::new("bash").arg("--version").output() else {
        panic!("bash is needed for <(...) (process substitution)");
    };
    assert!(bash.status.success());
    for script in [
        format!("{bin} apply --dry-run --live <(cat k/cm.yaml) k"),
        format!(
            "{bin} merge3 --original <(cat k/cm.yaml) --updated <(cat k/cm.yaml) --dest k/cm.yaml"
        ),
        format!("{bin} diff <(cat k/cm.yaml) k"),
    ] {
        let out = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(d)
            .output()
            .expect("bash");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{script}: {stderr}");
    }
}

/// kubectl kustomize v5.5.0 and v5.8.1 read resource, patch and kustomization files in
/// UTF-16 (either byte order) when they start with a byte-order mark, and UTF-8 files
/// with one; without a mark UTF-16 is an error (checked by hand with both releases).
fn utf16_files_with_a_byte_order_mark_build() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let utf16 = |text: &str, big_endian: bool| -> Vec<u8> {
        let mut bytes = if big_endian {
            vec![0xfe, 0xff]
        } else {
            vec![0xff, 0xfe]
        };
        for unit in text.encode_utf16() {
            bytes.extend(if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
        bytes
    };
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"é\"\n";
    write(d, "k/le.yaml", utf16(cm, false));
    write(
        d,
        "k/be.yaml",
        utf16(&cm.replace("name: x", "name: y"), true),
    );
    write(
        d,
        "k/bom.yaml",
        [
            &b"\xef\xbb\xbf"[..],
            cm.replace("name: x", "name: z").as_bytes(),
        ]
        .concat(),
    );
    write(
        d,
        "k/patch.yaml",
        utf16(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  b: c\n",
            false,
        ),
    );
    write(
        d,
        "k/kustomization.yaml",
        utf16(
            "resources: [le.yaml, be.yaml, bom.yaml]\npatches:\n- path: patch.yaml\n",
            true,
        ),
    );
    let r = kbuild(d, &["k"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let expected = "apiVersion: v1\ndata:\n  a: é\n  b: c\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\ndata:\n  a: é\nkind: ConfigMap\nmetadata:\n  name: \"y\"\n---\napiVersion: v1\ndata:\n  a: é\nkind: ConfigMap\nmetadata:\n  name: z\n";
    assert_eq!(r.stdout, expected);
    // What kubectl kustomize prints for the same tree, v5.5.0 (kubectl on PATH) and v5.8.1
    // ($KUBECTL_V581, or kubectl v1.37 beside the repository).
    let kubectls = [
        ("v5.5.0", Some(std::path::PathBuf::from("kubectl"))),
        (
            "v5.8.1",
            std::env::var_os("KUBECTL_V581")
                .map(std::path::PathBuf::from)
                .or_else(|| {
                    Some(std::path::PathBuf::from(concat!(
                        env!("CARGO_MANIFEST_DIR"),
                        "/../kubectl-1.37/bin/kubectl"
                    )))
                }),
        ),
    ];
    for (version, kubectl) in kubectls {
        let reports = |k: &std::path::PathBuf| {
            Command::new(k)
                .args(["version", "--client"])
                .output()
                .is_ok_and(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .contains(&format!("Kustomize Version: {version}"))
                })
        };
        match kubectl.filter(reports) {
            Some(k) => {
                let out = Command::new(&k)
                    .args(["kustomize", "k"])
                    .current_dir(d)
                    .output()
                    .expect("kubectl kustomize");
                assert_eq!(
                    String::from_utf8_lossy(&out.stdout),
                    expected,
                    "kustomize {version}"
                );
            }
            None => common::skipped(
                &format!(
                    "the kustomize {version} half of utf16_files_with_a_byte_order_mark_build"
                ),
                &format!("no kubectl with kustomize {version} (PATH, KUBECTL_V581)"),
            ),
        }
    }
    // The same through merge3/apply/diff inputs and standard input.
    let r = kbuild(d, &["diff", "k/le.yaml", "-"], &format!("\u{feff}{cm}"));
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "0 changed, 0 added, 0 removed, 1 unchanged\n"),
        "{}",
        r.stderr
    );
    let r = kbuild(
        d,
        &["apply", "--dry-run", "--live", "k/le.yaml", "k/le.yaml"],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);

    // Without a mark, UTF-16 is not text: an error naming the file, as kustomize's
    // ("control characters are not allowed").
    write(d, "nobom/cm.yaml", &utf16(cm, false)[2..]);
    write(d, "nobom/kustomization.yaml", "resources: [cm.yaml]\n");
    let r = kbuild(d, &["nobom"], "");
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    assert!(r.stderr.contains("nobom/cm.yaml"), "{}", r.stderr);
}
