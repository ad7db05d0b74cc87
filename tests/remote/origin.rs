//! `buildMetadata: [originAnnotations, transformerAnnotations]` with remote entries:
//! kustomize names a remote base's files by their path in the repository plus `repo:`
//! (the URL git clones) and `ref:` (when the entry has one), never by a path into a clone
//! directory; an entry naming a repository's root puts `notCloned/` before those paths
//! (kustomize's placeholder for the clone directory); a URL as the build root is named
//! like a local root; an http file URL is parsed as a repository when it can be, and
//! joined to the including kustomization's path otherwise. Every case is compared byte
//! for byte with both kubectls.

use super::{Git, Scratch, Server, cm, file_url, make_repo, overlay, same_as_kustomize};
use std::path::Path;

const META: &str = "buildMetadata: [originAnnotations, transformerAnnotations]\n";

/// A repository `lib` with `base/` (a file, a generator, a prefix, and `../shared`) and
/// a kustomization at its root; and `nest`, whose root and `deep/` name `lib` remotely
/// (`url_of` makes the URL of a bare repository: file:// or http).
fn repos(g: &Git, tmp: &Path, url_of: &dyn Fn(&Path) -> String) -> (String, String) {
    let lib_cm = cm("lib", "one");
    let shared_cm = cm("shared", "s");
    let root_cm = cm("root", "r");
    let (lib, _, _) = make_repo(
        g,
        tmp,
        "lib",
        &[
            (
                "base/kustomization.yaml",
                "resources:\n- cm.yaml\n- ../shared\nnamePrefix: p-\nconfigMapGenerator:\n- name: gen\n  literals: [a=b]\n",
            ),
            ("base/cm.yaml", &lib_cm),
            ("shared/kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("shared/cm.yaml", &shared_cm),
            ("kustomization.yaml", "resources:\n- d/cm.yaml\n"),
            ("d/cm.yaml", &root_cm),
        ],
        &[],
    );
    let lib_url = url_of(&lib);
    let nest_cm = cm("nest", "n");
    let (nest, _, _) = make_repo(
        g,
        tmp,
        "nest",
        &[
            (
                "kustomization.yaml",
                &format!("resources:\n- deep\n- {lib_url}//base?ref=v1\n"),
            ),
            (
                "deep/kustomization.yaml",
                &format!("resources:\n- cm.yaml\n- {lib_url}?ref=main\nnameSuffix: -s\n"),
            ),
            ("deep/cm.yaml", &nest_cm),
        ],
        &[],
    );
    (lib_url, url_of(&nest))
}

/// A local overlay naming `nest` (whose root and `deep/` name `lib`) and a local file:
/// kbuild's output is kubectl's, and names no clone directory.
fn nested_bases_from(s: &Scratch, nest: &str) {
    let dir = overlay(
        s,
        "top",
        &format!("{META}resources:\n- local.yaml\n- {nest}?ref=v1\ncommonLabels:\n  top: t\n"),
    );
    common_write(&dir, "local.yaml", &cm("local", "l"));
    let out = s.build(&dir, "v5.8.1", &[]);
    let got = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        // The overlay's own file and kustomization, relative to the top.
        "path: local.yaml\n",
        "configuredIn: kustomization.yaml\n",
        // A file of a base in a repository entered at its root.
        "path: notCloned/deep/cm.yaml\n",
        &format!("repo: {nest}\n      ref: v1\n"),
        "configuredIn: notCloned/deep/kustomization.yaml\n",
        // Repositories named inside a remote base; `../shared` from `base/`.
        "path: base/cm.yaml\n",
        "path: shared/cm.yaml\n",
        "path: notCloned/d/cm.yaml\n",
        "ref: main\n",
        "configuredIn: base/kustomization.yaml\n",
    ] {
        assert!(got.contains(needle), "{needle:?} not in:\n{got}");
    }
    assert!(!got.contains("xdg") && !got.contains("cache"), "{got}");
    same_as_kustomize(s, &dir, &got);
}

fn common_write(dir: &Path, rel: &str, body: &str) {
    super::common::write(dir, rel, body);
}

pub(super) fn file_bases(g: Git) {
    let s = Scratch::new();
    let (_, nest) = repos(&g, &s.dir(), &|p| file_url(p));
    nested_bases_from(&s, &nest);
}

pub(super) fn http_bases(g: Git) {
    let s = Scratch::new();
    let server = Server::start(&g, s.dir(), s.dir().join("files"));
    let url_of = |p: &Path| {
        server.url(&format!(
            "/git/{}",
            p.file_name().unwrap().to_str().unwrap()
        ))
    };
    let (_, nest) = repos(&g, &s.dir(), &url_of);
    nested_bases_from(&s, &nest);
}

/// A URL as the build root: its own files are named relative to it, with no `repo:`;
/// the repositories it names remotely are named as from a local overlay.
pub(super) fn remote_root(g: Git) {
    let s = Scratch::new();
    let (lib, _, _) = make_repo(
        &g,
        &s.dir(),
        "plain",
        &[
            ("x/kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("x/cm.yaml", &cm("x", "1")),
        ],
        &[],
    );
    let lib = file_url(&lib);
    let (root, _, _) = make_repo(
        &g,
        &s.dir(),
        "rooted",
        &[
            (
                "app/kustomization.yaml",
                &format!(
                    "{META}resources:\n- cm.yaml\n- ../side\n- {lib}//x?ref=v1\nnamePrefix: r-\n"
                ),
            ),
            ("app/cm.yaml", &cm("app", "a")),
            ("side/kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("side/cm.yaml", &cm("side", "b")),
        ],
        &[],
    );
    let url = format!("{}//app?ref=v1", file_url(&root));
    let out = s.build(Path::new(&url), "v5.8.1", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8_lossy(&out.stdout).into_owned();
    for needle in [
        "path: cm.yaml\n",
        "path: ../side/cm.yaml\n",
        "configuredIn: kustomization.yaml\n",
        "path: x/cm.yaml\n",
        &format!("repo: {lib}\n"),
    ] {
        assert!(got.contains(needle), "{needle:?} not in:\n{got}");
    }
    assert_eq!(got.matches("repo: ").count(), 1, "{got}");
    same_as_kustomize(&s, Path::new(&url), &got);
}

/// http file URLs: one whose path has two or more segments parses as a repository
/// (kustomize names it as one: `repo:` the URL, `path: notCloned` or the rest); one with a
/// single segment is joined to the including kustomization's path, its `//` cleaned.
pub(super) fn remote_files(g: Git) {
    let s = Scratch::new();
    let files = s.dir().join("files");
    common_write(&files, "cm.yaml", &cm("two", "w"));
    common_write(&files, "a/cm.yaml", &cm("three", "w"));
    common_write(&files, "one.yaml", &cm("one", "w"));
    let server = Server::start(&g, s.dir(), files);
    let one = server.url(&format!("/redirect?to={}", server.url("/files/one.yaml")));
    let dir = overlay(
        &s,
        "web",
        &format!(
            "{META}resources:\n- {}\n- {}\n- base\n",
            server.url("/files/cm.yaml"),
            server.url("/files/a/cm.yaml?ref=r1"),
        ),
    );
    common_write(
        &dir,
        "base/kustomization.yaml",
        &format!("resources:\n- {one}\n"),
    );
    let out = s.build(&dir, "v5.8.1", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8_lossy(&out.stdout).into_owned();
    let host = server.url("");
    for needle in [
        format!("path: notCloned\n      repo: {host}/files/cm.yaml\n"),
        format!("path: cm.yaml\n      repo: {host}/files/a\n      ref: r1\n"),
        format!(
            "path: base/{}\n",
            one.replacen("//", "/", 1).replacen("//", "/", 1)
        ),
    ] {
        assert!(got.contains(&needle), "{needle:?} not in:\n{got}");
    }
    same_as_kustomize(&s, &dir, &got);
}
