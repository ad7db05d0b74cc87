//! Numbers and booleans in built-in plugin configs, read the way kustomize reads them.
//!
//! A `transformers:`/`generators:` document is a resource first: kustomize hands it to the
//! plugin as `Resource.AsYAML()` (the value as JSON, then YAML again), and the plugin decodes
//! that with sigs.k8s.io/yaml. Two things follow, measured with kustomize v5.5.0 and v5.8.1
//! (they agree):
//!
//! - The JSON round trip turns a float that JSON prints without a point or exponent into an
//!   integer (`count: 3.0` is a valid `int64`, `1e7` is 10000000).
//! - sigs.k8s.io/yaml writes a number or boolean as text where the Go field it lands in is a
//!   string (`annotations: {port: 51}`, `newTag: 1.20`, `namespace: 0123`): integers in
//!   decimal (`0123` and `0x53` were read as 83), floats as Go's
//!   `strconv.FormatFloat(f, 'g', -1, 32)` (`1.20` -> "1.2", `3.14159265358979` ->
//!   "3.1415927", `6.02e23` -> "6.02e+23", `1e100` -> "+Inf"), booleans as `true`/`false`
//!   (`yes` is a string already: resources are read as YAML 1.2).
//!
//! The second step reaches only fields sigs.k8s.io/yaml can find: a field of an embedded
//! (inline) Go struct is looked up as the embedded struct itself, so numbers there stay
//! numbers and fail to decode, as in kustomize. That leaves out every field of
//! ConfigMapGenerator, SecretGenerator and IAMPolicyGenerator but `metadata`, a selector's
//! group/version/kind/name/namespace, a field spec's group/version/kind and a replacement's
//! `source` and `targets`. [`text_fields`] lists, per kind, the fields that are converted.

use crate::yaml::Node;

/// The fields of a built-in config of kind `kind` whose numbers and booleans become text,
/// as paths: keys joined by `.`, `[]` after a key for each item of its list, `*` for each
/// value of a mapping. Keys match in any letter case, as Go's JSON decoding does.
pub fn text_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "AnnotationsTransformer" => &["annotations.*", "fieldSpecs[].path"],
        "LabelTransformer" => &["labels.*", "fieldSpecs[].path"],
        "NamespaceTransformer" => &[
            "metadata.name",
            "metadata.namespace",
            "metadata.labels.*",
            "metadata.annotations.*",
            "fieldSpecs[].path",
            "setRoleBindingSubjects",
        ],
        "PrefixTransformer" => &["prefix", "fieldSpecs[].path"],
        "SuffixTransformer" => &["suffix", "fieldSpecs[].path"],
        // kustomize configures a PrefixTransformer and a SuffixTransformer from it.
        "PrefixSuffixTransformer" => &["prefix", "suffix", "fieldSpecs[].path"],
        "ImageTagTransformer" => &[
            "imageTag.name",
            "imageTag.newName",
            "imageTag.tagSuffix",
            "imageTag.newTag",
            "imageTag.digest",
            "fieldSpecs[].path",
        ],
        "ReplicaCountTransformer" => &["replica.name", "fieldSpecs[].path"],
        "PatchTransformer" | "PatchJson6902Transformer" => &[
            "path",
            "patch",
            "jsonOp",
            "target.labelSelector",
            "target.annotationSelector",
        ],
        "PatchStrategicMergeTransformer" => &["paths[]", "patches"],
        "ReplacementTransformer" => &["replacements[].path"],
        "ValueAddTransformer" => &[
            "value",
            "targets[].selector.labelSelector",
            "targets[].selector.annotationSelector",
            "targets[].fieldPath",
            "targetFilePath",
        ],
        // The arguments are an embedded struct; only the config's own metadata is found.
        "ConfigMapGenerator" | "SecretGenerator" => &[
            "metadata.name",
            "metadata.namespace",
            "metadata.labels.*",
            "metadata.annotations.*",
        ],
        // HashTransformer has no fields; IAMPolicyGenerator's are all embedded.
        _ => &[],
    }
}

/// The fields of a config's `metadata` read as text whatever the kind: kbuild names a config
/// by them, and the plugins that have a `metadata` field convert them. (kustomize's own
/// name for a config, in transformer annotations, is the text as written: `0x10` where kbuild
/// says "16".)
pub const METADATA_FIELDS: &[&str] = &["name", "namespace"];

/// Makes `node` what the plugin decodes: the JSON round trip, then numbers and booleans at
/// `fields` (see [`text_fields`]) replaced by their text.
pub fn convert(node: &mut Node, fields: &[&str]) {
    json_round_trip(node);
    for field in fields {
        let steps: Vec<&str> = field.split('.').collect();
        to_text_at(node, &steps);
    }
}

/// A float whose JSON text has no point or exponent is read back as an integer (a `uint64`
/// above `i64::MAX`, a float again above that).
fn json_round_trip(node: &mut Node) {
    match node {
        Node::Float(f) => {
            if let Some(n) = json_integer(*f) {
                *node = n;
            }
        }
        Node::Seq(items) => items.iter_mut().for_each(json_round_trip),
        Node::Map(map) => map.values_mut().for_each(json_round_trip),
        _ => {}
    }
}

/// The integer go-yaml reads from the JSON text of `f`, when that text is an integer.
fn json_integer(f: f64) -> Option<Node> {
    // encoding/json prints a float with an exponent outside [1e-6, 1e21), otherwise with
    // the shortest digits and no exponent, as Rust's `Display` does.
    let abs = f.abs();
    if !f.is_finite() || (abs != 0.0 && !(1e-6..1e21).contains(&abs)) {
        return None;
    }
    let text = f.to_string();
    if text.contains('.') {
        return None;
    }
    // `-0` reads as 0.
    text.parse::<i64>()
        .map(Node::Int)
        .or_else(|_| text.parse::<u64>().map(Node::Uint))
        .ok()
}

fn to_text_at(node: &mut Node, steps: &[&str]) {
    let Some((step, rest)) = steps.split_first() else {
        if let Some(text) = scalar_text(node) {
            *node = Node::text(text);
        }
        return;
    };
    let Node::Map(map) = node else { return };
    if *step == "*" {
        map.values_mut().for_each(|v| to_text_at(v, rest));
        return;
    }
    let (key, each_item) = match step.strip_suffix("[]") {
        Some(key) => (key, true),
        None => (*step, false),
    };
    for (k, v) in map.iter_mut() {
        if !k.eq_ignore_ascii_case(key) {
            continue;
        }
        match v {
            Node::Seq(items) if each_item => items.iter_mut().for_each(|i| to_text_at(i, rest)),
            _ if each_item => {}
            _ => to_text_at(v, rest),
        }
    }
}

/// The text sigs.k8s.io/yaml gives a number or boolean for a string field; `None` for
/// anything else (strings stay, null decodes as "", collections fail to decode).
fn scalar_text(node: &Node) -> Option<String> {
    match node {
        Node::Bool(b) => Some(b.to_string()),
        Node::Int(i) => Some(i.to_string()),
        Node::Uint(u) => Some(u.to_string()),
        Node::Float(f) => Some(float32_text(*f)),
        _ => None,
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`, overflow to `±Inf` included.
fn float32_text(f: f64) -> String {
    let single = f as f32;
    if single.is_infinite() {
        return if single > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    crate::yaml::parse::format_float_32(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn converted(config: &str, kind: &str) -> Node {
        let mut node = parse_stream(config, "t").expect("yaml").remove(0);
        convert(&mut node, text_fields(kind));
        node
    }

    #[test]
    fn numbers_become_the_text_kustomize_gives_them() {
        // Each value as kubectl kustomize (v5.5.0 and v5.8.1) printed it through an
        // AnnotationsTransformer.
        let cases = [
            ("51", "51"),
            ("0123", "83"),
            ("0o17", "15"),
            ("0x1F", "31"),
            ("1_000", "1000"),
            ("+12", "12"),
            ("-5", "-5"),
            ("1.20", "1.2"),
            ("1.0", "1"),
            (".5", "0.5"),
            ("123.", "123"),
            ("-0.0", "0"),
            ("3.14159265358979", "3.1415927"),
            ("123456789.5", "1.2345679e+08"),
            ("1e3", "1000"),
            ("1e7", "10000000"),
            ("1.5e6", "1500000"),
            ("16777217.0", "16777217"),
            ("1e20", "1e+20"),
            ("1e21", "1e+21"),
            ("6.02e23", "6.02e+23"),
            ("1e-5", "1e-05"),
            ("2.5e-7", "2.5e-07"),
            ("1e100", "+Inf"),
            ("9007199254740993", "9007199254740993"),
            ("9223372036854775808", "9223372036854775808"),
            ("18446744073709551615", "18446744073709551615"),
            ("18446744073709551616", "1.8446744e+19"),
            ("99999999999999999999", "1e+20"),
            ("true", "true"),
            ("False", "false"),
            ("yes", "yes"),
            ("2024-01-01", "2024-01-01T00:00:00Z"),
        ];
        for (written, want) in cases {
            let config = format!("kind: AnnotationsTransformer\nannotations:\n  a: {written}\n");
            let node = converted(&config, "AnnotationsTransformer");
            assert_eq!(
                node.get_path(&["annotations", "a"]),
                Some(&Node::text(want)),
                "{written}"
            );
        }
    }

    #[test]
    fn only_fields_kustomize_finds_are_converted() {
        let node = converted(
            "kind: PatchTransformer\npath: 5\nTarget:\n  name: 5\n  LABELSELECTOR: 5\n\
             options: {allowNameChange: true}\n",
            "PatchTransformer",
        );
        assert_eq!(node.get_path(&["path"]), Some(&Node::text("5")));
        assert_eq!(node.get_path(&["Target", "name"]), Some(&Node::Int(5)));
        assert_eq!(
            node.get_path(&["Target", "LABELSELECTOR"]),
            Some(&Node::text("5"))
        );
        assert_eq!(
            node.get_path(&["options", "allowNameChange"]),
            Some(&Node::Bool(true))
        );
        let node = converted(
            "kind: LabelTransformer\nfieldSpecs:\n- path: 5\n  kind: 5\n  create: true\n",
            "LabelTransformer",
        );
        let spec = &node.get("fieldSpecs").and_then(Node::as_seq).expect("seq")[0];
        assert_eq!(spec.get("path"), Some(&Node::text("5")));
        assert_eq!(spec.get("kind"), Some(&Node::Int(5)));
        assert_eq!(spec.get("create"), Some(&Node::Bool(true)));
    }

    #[test]
    fn integral_floats_become_integers_everywhere() {
        let node = converted(
            "kind: ReplicaCountTransformer\nreplica: {name: a, count: 3.0}\n",
            "ReplicaCountTransformer",
        );
        assert_eq!(node.get_path(&["replica", "count"]), Some(&Node::Int(3)));
        let node = converted("kind: X\nv: [1.5, 1e21, 1e20, 1e19, -0.0]\n", "X");
        let want = [
            Node::Float(1.5),
            Node::Float(1e21),
            // Above u64::MAX: go-yaml reads the integer text as a float again.
            Node::Float(1e20),
            Node::Uint(10_000_000_000_000_000_000),
            Node::Int(0),
        ];
        assert_eq!(node.get("v").and_then(Node::as_seq), Some(&want.to_vec()));
    }
}
