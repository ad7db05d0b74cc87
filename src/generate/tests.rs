//! Generator tests. Every expectation was printed by `kubectl kustomize`
//! (kustomize v5.5.0) for the same input; hashes are the suffixes it
//! appended to the names.

use super::*;
use serde_json::json;

fn files(map: &[(&str, &[u8])]) -> impl FnMut(&str) -> Result<Vec<u8>, Error> + use<> {
    let map: Vec<(String, Vec<u8>)> = map
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_vec()))
        .collect();
    move |p: &str| {
        map.iter()
            .find(|(k, _)| k == p)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| Error::msg(format!("{p}: no such file")))
    }
}

fn no_files() -> impl FnMut(&str) -> Result<Vec<u8>, Error> {
    files(&[])
}

fn args(name: &str) -> GeneratorArgs {
    GeneratorArgs {
        name: name.into(),
        ..Default::default()
    }
}

fn literals(name: &str, lits: &[&str]) -> GeneratorArgs {
    GeneratorArgs {
        literals: lits.iter().map(|s| s.to_string()).collect(),
        ..args(name)
    }
}

fn gen_with(
    kind: GeneratorKind,
    a: &GeneratorArgs,
    read: &mut dyn FnMut(&str) -> Result<Vec<u8>, Error>,
) -> Generated {
    generate(kind, a, None, read).expect("generates")
}

fn gen_cm(a: &GeneratorArgs) -> Generated {
    gen_with(GeneratorKind::ConfigMap, a, &mut no_files())
}

fn gen_secret(a: &GeneratorArgs) -> Generated {
    gen_with(GeneratorKind::Secret, a, &mut no_files())
}

fn hash(g: &Generated) -> String {
    hash::name_hash(&g.node).expect("hashable")
}

fn node(v: serde_json::Value) -> Node {
    Node::from(&v)
}

fn err(kind: GeneratorKind, a: &GeneratorArgs) -> String {
    generate(kind, a, None, &mut no_files())
        .expect_err("fails")
        .to_string()
}

/// TestGeneratorBasics from the conformance corpus: names
/// `blah-bob-g9df72cd5b` (ConfigMap) and `blah-bob-58g62h555c` (Secret).
#[test]
fn generator_basics() {
    let phrase: &[u8] =
        b"\nLife is short.\nBut the years are long.\nNot while the evil days come not.\n";
    let forces: &[u8] = b"\ngravitational\nelectromagnetic\nstrong nuclear\nweak nuclear\n";
    let tree: &[(&str, &[u8])] = &[
        ("foo.env", b"\nMOUNTAIN=everest\nOCEAN=pacific\n"),
        ("bar.env", b"\nBIRD=falcon\n"),
        ("phrase.dat", phrase),
        ("forces.txt", forces),
    ];
    let a = GeneratorArgs {
        literals: vec!["fruit=apple".into(), "vegetable=broccoli".into()],
        envs: vec!["foo.env".into()],
        env: "bar.env".into(),
        files: vec!["passphrase=phrase.dat".into(), "forces.txt".into()],
        ..args("bob")
    };
    let cm = gen_with(GeneratorKind::ConfigMap, &a, &mut files(tree));
    assert_eq!(
        cm.node,
        node(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bob"}, "data": {
            "BIRD": "falcon", "MOUNTAIN": "everest", "OCEAN": "pacific",
            "forces.txt": "\ngravitational\nelectromagnetic\nstrong nuclear\nweak nuclear\n",
            "fruit": "apple",
            "passphrase": "\nLife is short.\nBut the years are long.\nNot while the evil days come not.\n",
            "vegetable": "broccoli"}})
        )
    );
    assert!(cm.hash_suffix);
    assert_eq!(cm.behavior, Behavior::Unspecified);
    assert_eq!(hash(&cm), "g9df72cd5b");

    let secret = gen_with(GeneratorKind::Secret, &a, &mut files(tree));
    assert_eq!(
        secret.node,
        node(
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "bob"}, "type": "Opaque", "data": {
            "BIRD": "ZmFsY29u", "MOUNTAIN": "ZXZlcmVzdA==", "OCEAN": "cGFjaWZpYw==",
            "forces.txt": "CmdyYXZpdGF0aW9uYWwKZWxlY3Ryb21hZ25ldGljCnN0cm9uZyBudWNsZWFyCndlYWsgbn\nVjbGVhcgo=\n",
            "fruit": "YXBwbGU=",
            "passphrase": "CkxpZmUgaXMgc2hvcnQuCkJ1dCB0aGUgeWVhcnMgYXJlIGxvbmcuCk5vdCB3aGlsZSB0aG\nUgZXZpbCBkYXlzIGNvbWUgbm90Lgo=\n",
            "vegetable": "YnJvY2NvbGk="}})
        )
    );
    assert_eq!(hash(&secret), "58g62h555c");

    let json_cm = gen_cm(&literals(
        "json",
        &[
            r#"v2=[{"path": "var/druid/segment-cache"}]"#,
            r#"druid_segmentCache_locations=[{"path": "var/druid/segment-cache", "maxSize": 32000000000, "freeSpacePercent": 1.0}]"#,
        ],
    ));
    assert_eq!(hash(&json_cm), "m8529t979f");
}

/// kubectl: labels, annotations and `immutable` are set but do not change
/// the hash (`c-hmg6f82fh6` and `c2-hmg6f82fh6`); neither does the name.
#[test]
fn options_show_but_do_not_hash() {
    let plain = gen_cm(&literals("c2", &["x=1"]));
    let opts = GeneratorOptions {
        immutable: Some(true),
        labels: [("a".to_string(), "b".to_string())].into_iter().collect(),
        annotations: [("c".to_string(), "d".to_string())].into_iter().collect(),
        ..Default::default()
    };
    let dressed = gen_cm(&GeneratorArgs {
        options: Some(opts),
        ..literals("c", &["x=1"])
    });
    assert_eq!(
        dressed.node,
        node(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "immutable": true, "data": {"x": "1"},
            "metadata": {"name": "c", "labels": {"a": "b"}, "annotations": {"c": "d"}}})
        )
    );
    assert_eq!(hash(&plain), "hmg6f82fh6");
    assert_eq!(hash(&dressed), "hmg6f82fh6");
}

/// kubectl: a Secret with a type, immutable and labels hashed to
/// `td2b65gdb7`; the same data as Opaque to `mfgd725746`.
#[test]
fn secret_type_is_hashed() {
    let a = GeneratorArgs {
        secret_type: "kubernetes.io/tls".into(),
        ..literals("s", &["tls.crt=abc", "tls.key=def"])
    };
    let s = gen_secret(&a);
    assert_eq!(s.node.get_str(&["type"]), Some("kubernetes.io/tls"));
    assert_eq!(hash(&s), "td2b65gdb7");
    assert_eq!(
        hash(&gen_secret(&literals(
            "s2",
            &["tls.crt=abc", "tls.key=def"]
        ))),
        "mfgd725746"
    );
}

/// kubectl: an empty ConfigMap has no `data` (`empty-6ct58987ht`); an empty
/// Secret prints `data: {}` (`empty-46f8b28mk5`).
#[test]
fn empty_generators() {
    let cm = gen_cm(&args("empty"));
    assert_eq!(
        cm.node,
        node(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "empty"}}))
    );
    assert_eq!(hash(&cm), "6ct58987ht");
    let s = gen_secret(&args("empty"));
    assert_eq!(
        s.node,
        node(
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "empty"}, "type": "Opaque", "data": {}})
        )
    );
    assert_eq!(hash(&s), "46f8b28mk5");
}

/// kubectl: non-UTF-8 files go to `binaryData`; base64 of 70 characters or
/// more is cut into newline-terminated lines of 70.
#[test]
fn binary_data() {
    let short: &[u8] = b"ab\xffcd";
    let b52 = [0xffu8; 52];
    let b53 = [0xffu8; 53];
    let special: &[u8] = "h\u{e9}llo <a&b> \u{2028} \"q\" \\ \t\r\n".as_bytes();
    let tree: &[(&str, &[u8])] = &[
        ("short.bin", short),
        ("b52.bin", &b52),
        ("b53.bin", &b53),
        ("special.txt", special),
    ];
    let cm = |name: &str, f: &[&str]| {
        let a = GeneratorArgs {
            files: f.iter().map(|s| s.to_string()).collect(),
            ..args(name)
        };
        gen_with(GeneratorKind::ConfigMap, &a, &mut files(tree))
    };

    let bin = cm("bin", &["short.bin"]);
    assert_eq!(
        bin.node,
        node(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bin"}, "binaryData": {"short.bin": "YWL/Y2Q="}})
        )
    );
    assert_eq!(hash(&bin), "7fkfmk7c8h");

    let b52 = cm("b52", &["b52.bin"]);
    let want52 = format!("{}w\n==\n", "/".repeat(69));
    assert_eq!(
        b52.node.get_str(&["binaryData", "b52.bin"]),
        Some(want52.as_str())
    );
    assert_eq!(hash(&b52), "f58ghf8btg");

    let b53 = cm("b53", &["b53.bin"]);
    let want53 = format!("{}\n8=\n", "/".repeat(70));
    assert_eq!(
        b53.node.get_str(&["binaryData", "b53.bin"]),
        Some(want53.as_str())
    );
    assert_eq!(hash(&b53), "t8g2h9tmgm");

    let mixed = cm("mixed", &["short.bin", "special.txt"]);
    assert_eq!(
        mixed.node.get_str(&["data", "special.txt"]),
        std::str::from_utf8(special).ok()
    );
    assert_eq!(hash(&mixed), "cgk86tm85k");
    assert_eq!(hash(&cm("special", &["special.txt"])), "hd6gb57c85");

    let sa = GeneratorArgs {
        files: vec!["b53.bin".into()],
        ..args("b53")
    };
    let secret = gen_with(GeneratorKind::Secret, &sa, &mut files(tree));
    assert_eq!(
        secret.node.get_str(&["data", "b53.bin"]),
        Some(want53.as_str())
    );
    assert_eq!(hash(&secret), "d68tb6tt8c");

    let sa = GeneratorArgs {
        files: vec!["special.txt".into()],
        ..args("sp")
    };
    let secret = gen_with(GeneratorKind::Secret, &sa, &mut files(tree));
    assert_eq!(
        secret.node.get_str(&["data", "special.txt"]),
        Some("aMOpbGxvIDxhJmI+IOKAqCAicSIgXCAJDQo=")
    );
    assert_eq!(hash(&secret), "hkb6k9bmh9");
}

/// kubectl could not print this ConfigMap (YAML forbids the control
/// characters) but named it `mixed-cbkg6b4529` in the error, which pins the
/// JSON escaping of \x01, \b, \f and DEL.
#[test]
fn control_characters_hash() {
    let special: &[u8] =
        "h\u{e9}llo <a&b> \u{2028} \u{2029} \u{1} \u{8} \u{c} \u{7f} \"q\" \\ \t\r\n".as_bytes();
    let tree: &[(&str, &[u8])] = &[("short.bin", b"ab\xffcd"), ("special.txt", special)];
    let a = GeneratorArgs {
        files: vec!["short.bin".into(), "special.txt".into()],
        ..args("mixed")
    };
    assert_eq!(
        hash(&gen_with(GeneratorKind::ConfigMap, &a, &mut files(tree))),
        "cbkg6b4529"
    );
}

/// kubectl (quotes): `q-db8b6g8f2h`; unusual keys are accepted: `k-46b6k24878`.
#[test]
fn literal_values_and_keys() {
    let q = gen_cm(&literals(
        "q",
        &[
            "a=\"x\"",
            "b='y'",
            "c=\"z'",
            "d=\"",
            "e= \"sp\" ",
            "f=\"\"",
            "g=x=y",
        ],
    ));
    assert_eq!(
        q.node.get("data"),
        Some(&node(
            json!({"a": "x", "b": "y", "c": "\"z'", "d": "\"", "e": " \"sp\" ", "f": "", "g": "x=y"})
        ))
    );
    assert_eq!(hash(&q), "db8b6g8f2h");
    let k = gen_cm(&literals(
        "k",
        &["a b=1", "..x=2", ".=3", "\u{e9}=4", "a/b=5", "x:y=6"],
    ));
    assert_eq!(hash(&k), "46b6k24878");
    assert_eq!(
        hash(&gen_cm(&literals("test", &["TEST=this is a 'test'"]))),
        "k9cc55dfm5"
    );
    assert_eq!(hash(&gen_cm(&literals("test", &["TEST='"]))), "m8t7bmb6g2");
}

/// kubectl: the env file of `envfile::tests::kubectl_verified_lines` gave
/// `e-bkfh8bd76h`.
#[test]
fn env_file_hash() {
    let content: &[u8] = b"\xef\xbb\xbfA=1\n  B = 2 \nC=\"quoted\"\nD='single'\n# comment\n   # indented comment\n\nE=a=b\nF=\nG=x # not comment\r\nHOME\nUNSET_VAR_XYZ\n\t H=tab\n";
    let a = GeneratorArgs {
        envs: vec!["a.env".into()],
        ..args("e")
    };
    assert_eq!(
        hash(&gen_with(
            GeneratorKind::ConfigMap,
            &a,
            &mut files(&[("a.env", content)])
        )),
        "bkfh8bd76h"
    );
}

#[test]
fn namespace_behavior_and_hash_flag() {
    let opts = GeneratorOptions {
        disable_name_suffix_hash: Some(true),
        ..Default::default()
    };
    let a = GeneratorArgs {
        namespace: "ns".into(),
        behavior: "merge".into(),
        options: Some(opts),
        ..literals("n", &["x=1"])
    };
    let g = gen_cm(&a);
    assert_eq!(
        g.node.get("metadata"),
        Some(&node(json!({"name": "n", "namespace": "ns"})))
    );
    assert_eq!(g.behavior, Behavior::Merge);
    assert!(!g.hash_suffix);
    let global = GeneratorOptions {
        disable_name_suffix_hash: Some(true),
        ..Default::default()
    };
    let g = generate(
        GeneratorKind::Secret,
        &literals("s", &["x=1"]),
        Some(&global),
        &mut no_files(),
    )
    .expect("generates");
    assert!(!g.hash_suffix);
}

/// kubectl accepted `behavior: bogus` and `behavior: Merge` as if absent.
#[test]
fn behaviors() {
    assert_eq!(Behavior::parse(""), Behavior::Unspecified);
    assert_eq!(Behavior::parse("create"), Behavior::Create);
    assert_eq!(Behavior::parse("merge"), Behavior::Merge);
    assert_eq!(Behavior::parse("replace"), Behavior::Replace);
    assert_eq!(Behavior::parse("Merge"), Behavior::Unspecified);
    assert_eq!(Behavior::parse("bogus"), Behavior::Unspecified);
}

/// kubectl: "a configmap must have a name" (for secrets too),
/// "configmap q illegally repeats the key `a`", "invalid literal source
/// novalue, expected key=value", "json: unknown field \"type\"".
#[test]
fn errors_name_the_generator() {
    assert_eq!(
        err(GeneratorKind::ConfigMap, &literals("", &["a=1"])),
        "configMapGenerator: an entry has no name; every generator needs `name:`"
    );
    assert_eq!(
        err(GeneratorKind::Secret, &args("")),
        "secretGenerator: an entry has no name; every generator needs `name:`"
    );
    assert_eq!(
        err(GeneratorKind::ConfigMap, &literals("q", &["a=1", "a=2"])),
        r#"configMapGenerator "q": the key "a" appears more than once in its sources"#
    );
    assert_eq!(
        err(GeneratorKind::Secret, &literals("q", &["novalue"])),
        r#"secretGenerator "q": invalid literal source "novalue", expected key=value"#
    );
    assert_eq!(
        err(
            GeneratorKind::ConfigMap,
            &GeneratorArgs {
                secret_type: "foo".into(),
                ..args("a")
            }
        ),
        r#"configMapGenerator "a": unknown field "type" (only secretGenerator entries have a type)"#
    );
    assert_eq!(
        err(
            GeneratorKind::ConfigMap,
            &GeneratorArgs {
                files: vec!["missing.txt".into()],
                ..args("m")
            }
        ),
        r#"configMapGenerator "m": missing.txt: no such file"#
    );
    assert_eq!(
        err(
            GeneratorKind::ConfigMap,
            &GeneratorArgs {
                files: vec!["a=b=c".into()],
                ..args("m")
            }
        ),
        r#"configMapGenerator "m": source "a=b=c" key name or file path contains '='"#
    );
}
