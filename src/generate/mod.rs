//! ConfigMap and Secret generators (`configMapGenerator`, `secretGenerator`).
//!
//! [`generate`] turns one generator entry into a resource. The name hash is
//! not appended here: kustomize adds it at the end of the build, over the
//! final content (see [`hash::name_hash`]), so [`Generated::hash_suffix`]
//! only records that it is wanted. A generator with `behavior: merge` or
//! `replace` is folded into an existing resource with [`merge::merge_into`].

pub(crate) mod behavior;
pub(crate) mod configs;
mod envfile;
pub(crate) mod hash;
pub(crate) mod merge;
mod options;
mod sources;

use crate::error::Error;
use crate::kustomization::{GeneratorArgs, GeneratorOptions, StringMap};
use crate::yaml::{Map, Node};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

pub(crate) use options::EffectiveOptions;

/// Which generator an entry belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GeneratorKind {
    ConfigMap,
    Secret,
}

impl GeneratorKind {
    /// The resource kind it generates.
    pub(crate) fn kind(self) -> &'static str {
        match self {
            GeneratorKind::ConfigMap => "ConfigMap",
            GeneratorKind::Secret => "Secret",
        }
    }

    /// The kustomization field holding such generators.
    pub(crate) fn field(self) -> &'static str {
        match self {
            GeneratorKind::ConfigMap => "configMapGenerator",
            GeneratorKind::Secret => "secretGenerator",
        }
    }
}

/// What a generator does when a resource with the same id already exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behavior {
    /// No `behavior`, or one kustomize does not know: acts as `create`.
    Unspecified,
    /// A new resource; an existing one with the same id is an error.
    Create,
    /// Merges data, labels and annotations into the existing resource.
    Merge,
    /// Replaces the existing resource's content, keeping its metadata.
    Replace,
}

impl Behavior {
    /// Reads a `behavior` value. kustomize accepts any string and treats
    /// unknown ones (`Merge`, `bogus`) as unspecified, which builds like
    /// `create`; kbuild keeps that so it builds what kustomize builds.
    pub fn parse(s: &str) -> Behavior {
        match s {
            "create" => Behavior::Create,
            "merge" => Behavior::Merge,
            "replace" => Behavior::Replace,
            _ => Behavior::Unspecified,
        }
    }
}

/// A generated resource and what the build must do with it later.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Generated {
    pub node: Node,
    /// Whether a name hash must be appended at the end of the build.
    pub hash_suffix: bool,
    pub behavior: Behavior,
    /// What looked wrong in the sources without being an error (kbuild's, beyond kustomize).
    pub warnings: Vec<String>,
}

/// Builds the ConfigMap or Secret one generator entry describes.
///
/// `global` is the kustomization's `generatorOptions`. `read_file` reads
/// `files` and `envs` paths (relative to the kustomization) and reports a
/// missing or forbidden file itself. Errors name the generator.
pub(crate) fn generate(
    kind: GeneratorKind,
    args: &GeneratorArgs,
    global: Option<&GeneratorOptions>,
    read_file: &mut dyn FnMut(&str) -> Result<Vec<u8>, Error>,
) -> Result<Generated, Error> {
    if args.name.is_empty() {
        return Err(Error::invalid_config(format!(
            "{}: an entry has no name; every generator needs `name:`",
            kind.field()
        )));
    }
    build(kind, args, global, read_file)
        .map_err(|e| e.context(format!("{} {:?}", kind.field(), args.name)))
}

fn build(
    kind: GeneratorKind,
    args: &GeneratorArgs,
    global: Option<&GeneratorOptions>,
    read_file: &mut dyn FnMut(&str) -> Result<Vec<u8>, Error>,
) -> Result<Generated, Error> {
    if kind == GeneratorKind::ConfigMap && !args.secret_type.is_empty() {
        return Err(Error::invalid_config(
            "unknown field \"type\" (only secretGenerator entries have a type)",
        ));
    }
    let opts = options::effective(args.options.as_ref(), global);
    let mut warnings = Vec::new();
    let pairs = sources::load(args, read_file, &mut warnings)?;

    let mut root = Map::new();
    root.insert("apiVersion", Node::Str("v1".into()));
    match kind {
        GeneratorKind::ConfigMap => insert_config_map_data(&mut root, pairs),
        GeneratorKind::Secret => insert_secret_data(&mut root, pairs, &args.secret_type),
    }
    if opts.immutable {
        root.insert("immutable", Node::Bool(true));
    }
    root.insert("kind", Node::Str(kind.kind().into()));
    root.insert("metadata", metadata(args, &opts));
    root.sort_keys();
    Ok(Generated {
        node: Node::Map(root),
        hash_suffix: !opts.disable_name_suffix_hash,
        behavior: Behavior::parse(&args.behavior),
        warnings,
    })
}

fn metadata(args: &GeneratorArgs, opts: &EffectiveOptions) -> Node {
    let mut meta = Map::new();
    meta.insert("name", Node::text(args.name.clone()));
    if !args.namespace.is_empty() {
        meta.insert("namespace", Node::text(args.namespace.clone()));
    }
    if !opts.labels.is_empty() {
        meta.insert("labels", string_map(&opts.labels));
    }
    if !opts.annotations.is_empty() {
        meta.insert("annotations", string_map(&opts.annotations));
    }
    meta.sort_keys();
    Node::Map(meta)
}

fn string_map(m: &StringMap) -> Node {
    let mut out: Map = m
        .iter()
        .map(|(k, v)| (k.clone(), Node::text(v.clone())))
        .collect();
    out.sort_keys();
    Node::Map(out)
}

/// UTF-8 values go to `data`, others base64-encoded to `binaryData`; a
/// field without entries is left out.
fn insert_config_map_data(root: &mut Map, pairs: Vec<sources::Pair>) {
    let mut data = Map::new();
    let mut binary = Map::new();
    for (key, value) in pairs {
        match String::from_utf8(value) {
            Ok(text) => data.insert(key, Node::text(text)),
            Err(e) => binary.insert(key, Node::text(encode_base64(e.as_bytes()))),
        };
    }
    for (field, mut map) in [("binaryData", binary), ("data", data)] {
        if !map.is_empty() {
            map.sort_keys();
            crate::merge::scalar_style::style_generated_strings(&mut map);
            root.insert(field, Node::Map(map));
        }
    }
}

/// Every value base64-encoded into `data`, which is present even when empty
/// (kubectl prints `data: {}`); `type` defaults to `Opaque`.
fn insert_secret_data(root: &mut Map, pairs: Vec<sources::Pair>, secret_type: &str) {
    let mut data: Map = pairs
        .into_iter()
        .map(|(key, value)| (key, Node::text(encode_base64(&value))))
        .collect();
    data.sort_keys();
    crate::merge::scalar_style::style_generated_strings(&mut data);
    root.insert("data", Node::Map(data));
    let t = if secret_type.is_empty() {
        "Opaque"
    } else {
        secret_type
    };
    root.insert("type", Node::Str(t.into()));
}

/// Standard base64 as kustomize writes it: an encoding of 70 characters or
/// more is cut into lines of 70, each ending in `\n` (the last one too), so
/// it prints as a `|` block; shorter ones stay on one line without `\n`.
/// The newlines are part of the value, and of its hash. (go-yaml v3 writes a string
/// that is not UTF-8 the same way, as `!!binary`.)
pub(crate) fn encode_base64(bytes: &[u8]) -> String {
    const LINE: usize = 70;
    let encoded = STANDARD.encode(bytes);
    if encoded.len() < LINE {
        return encoded;
    }
    let mut out = String::with_capacity(encoded.len() + encoded.len() / LINE + 1);
    for chunk in encoded.as_bytes().chunks(LINE) {
        // Base64 output is ASCII, so every chunk is valid UTF-8.
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
