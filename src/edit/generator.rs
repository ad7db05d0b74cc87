//! `edit add|set|remove configmap|secret`: the entries of `configMapGenerator` and
//! `secretGenerator`.
//!
//! An entry is found by name and namespace, where no namespace and `default` are the
//! same (kustomize's `NamespaceEqual`). `add` and `set` check their result the way
//! kustomize does: by generating the ConfigMap or Secret (files read, keys unique),
//! with the kustomization's `generatorOptions`; a failure leaves the file untouched.

use super::add::glob_in;
use super::document::Step;
use super::{KustomizationFile, edit_error, remove_items, top};
use crate::error::{Error, Result};
use crate::generate::GeneratorKind;
use crate::kustomization::{GeneratorArgs, GeneratorOptions};
use crate::yaml::{Map, Node};
use std::path::Path;

/// Which generator list a command edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    /// `configMapGenerator`.
    ConfigMap,
    /// `secretGenerator`.
    Secret,
}

impl Generator {
    fn kind(self) -> GeneratorKind {
        match self {
            Generator::ConfigMap => GeneratorKind::ConfigMap,
            Generator::Secret => GeneratorKind::Secret,
        }
    }

    /// The word kustomize's messages use (`configmap`, `secret`).
    fn word(self) -> &'static str {
        match self {
            Generator::ConfigMap => "configmap",
            Generator::Secret => "secret",
        }
    }
}

/// The flags of `edit add|set configmap|secret`, as given (empty when not given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratorFlags {
    /// `--from-file` (`[key=]source`, glob patterns allowed), in order.
    pub from_file: Vec<String>,
    /// `--from-literal` (`key=value`), in order.
    pub from_literal: Vec<String>,
    /// `--from-env-file`.
    pub from_env_file: String,
    /// `--behavior` (`add configmap`).
    pub behavior: String,
    /// `--type` (`add secret`; kustomize's default is `Opaque`).
    pub secret_type: String,
    /// `--namespace`: of a new entry (`add`), or of the entry to find (`set`).
    pub namespace: String,
    /// `--new-namespace` (`set`).
    pub new_namespace: String,
    /// `--disableNameSuffixHash` (`add`).
    pub disable_name_suffix_hash: bool,
}

/// kustomize's `NamespaceEqual`: no namespace is the `default` namespace.
fn namespace_equal(a: &str, b: &str) -> bool {
    let norm = |s: &str| if s.is_empty() { "default" } else { s }.to_string();
    norm(a) == norm(b)
}

/// kustomize's expansion of `--from-file` values: `[key=]pattern`, the pattern
/// expanded as a glob in `dir`; with a key it must match exactly one file. A pattern
/// matching nothing is left out with a note (so a missing file is not an error here:
/// with no other source the command then has no source at all).
fn expand_file_sources(
    dir: &Path,
    sources: &[String],
    notes: &mut Vec<String>,
) -> Result<Vec<String>> {
    let fail = |msg: String| edit_error(format!("failed to expand file source: {msg}"));
    let mut out = Vec::new();
    for source in sources {
        // kustomize splits at every `=` and reads a key only when there are exactly
        // two parts; `a=b=c` globs `a`.
        let parts: Vec<&str> = source.split('=').collect();
        let (key, pattern) = match parts.as_slice() {
            [key, pattern] => (*key, *pattern),
            _ => ("", parts[0]),
        };
        let matched = glob_in(dir, pattern).map_err(|e| fail(e.to_string()))?;
        if matched.is_empty() {
            notes.push(format!("{pattern} has no match"));
        }
        if key.is_empty() {
            out.extend(matched);
        } else if let [one] = matched.as_slice() {
            out.push(format!("{key}={one}"));
        } else {
            return Err(fail(format!(
                "'pattern '{source}' catches files [{}], should catch only one",
                matched.join(" ")
            )));
        }
    }
    Ok(out)
}

/// kustomize's reading of a literal for `set`: exactly one `=`.
fn split_literal(literal: &str) -> Option<(&str, &str)> {
    (literal.matches('=').count() == 1)
        .then(|| literal.split_once('='))
        .flatten()
}

/// The one NAME argument of `add` and `set`.
fn one_name(args: &[String]) -> Result<&str> {
    match args {
        [name] => Ok(name),
        _ => Err(edit_error(
            "failed to validate flags: name must be specified once",
        )),
    }
}

impl KustomizationFile {
    /// The index of the entry of `which` named `name` in `namespace`.
    fn find_generator(&self, which: Generator, name: &str, namespace: &str) -> Option<usize> {
        self.doc()
            .get(&top(which.kind().field()))
            .and_then(Node::as_seq)?
            .iter()
            .position(|entry| {
                let text = |k: &str| {
                    entry
                        .get(k)
                        .and_then(Node::scalar_string)
                        .unwrap_or_default()
                };
                text("name") == name && namespace_equal(&text("namespace"), namespace)
            })
    }

    /// `edit add configmap|secret NAME [flags]`: the sources are appended to the
    /// entry with that name and namespace, or a new entry is added. kustomize merges
    /// into an existing entry rather than refusing: its literals, files and env files
    /// are kept and the new ones follow; `--disableNameSuffixHash` replaces the entry's
    /// `options` whole and `--behavior` its behavior. A new secret gets `--type`.
    pub fn add_generator(
        &mut self,
        which: Generator,
        args: &[String],
        flags: &GeneratorFlags,
    ) -> Result<()> {
        let mut notes = Vec::new();
        let files = expand_file_sources(self.dir(), &flags.from_file, &mut notes)?;
        for note in notes {
            self.note(note);
        }
        let name = one_name(args)?;
        validate_add(&files, flags)?;
        let sources = Sources {
            literals: flags.from_literal.clone(),
            files,
            envs: (!flags.from_env_file.is_empty())
                .then(|| flags.from_env_file.clone())
                .into_iter()
                .collect(),
        };
        let field = which.kind().field();
        let index = match self.find_generator(which, name, &flags.namespace) {
            Some(i) => {
                self.merge_into_entry(field, i, &sources, flags)?;
                i
            }
            None => {
                self.append(field, &new_entry(which, name, &sources, flags))?;
                self.doc()
                    .get(&top(field))
                    .and_then(Node::as_seq)
                    .map_or(0, |l| l.len() - 1)
            }
        };
        self.check_generator(which, index)
            .map_err(|e| edit_error(format!("failed to create {}: {}", which.word(), e.root())))
    }

    /// kustomize's `MergeFlagsIntoGeneratorArgs` on an existing entry: the sources
    /// appended, `options` replaced by `--disableNameSuffixHash`'s, `behavior` set.
    fn merge_into_entry(
        &mut self,
        field: &str,
        index: usize,
        sources: &Sources,
        flags: &GeneratorFlags,
    ) -> Result<()> {
        let at = |k: &str| vec![Step::key(field), Step::Index(index), Step::key(k)];
        for (key, list) in sources.fields() {
            let items: Vec<Node> = list.iter().map(|i| Node::text(i.as_str())).collect();
            self.doc_mut().append_items(&at(key), &items)?;
        }
        let mut wanted = Vec::new();
        if flags.disable_name_suffix_hash {
            wanted.push(("options", disable_hash_options()));
        }
        if !flags.behavior.is_empty() {
            wanted.push(("behavior", Node::text(flags.behavior.as_str())));
        }
        for (key, value) in wanted {
            if self.doc().get(&at(key)) != Some(&value) {
                self.doc_mut().set(&at(key), &value)?;
            }
        }
        Ok(())
    }

    /// `edit set configmap|secret NAME [--from-literal k=v]… [--namespace NS]
    /// [--new-namespace NS]`: changes the values of literals the entry has (a key it
    /// does not have is an error) and moves it to another namespace.
    pub fn set_generator(
        &mut self,
        which: Generator,
        args: &[String],
        flags: &GeneratorFlags,
    ) -> Result<()> {
        let name = one_name(args)?;
        if flags.from_literal.is_empty() && flags.new_namespace.is_empty() {
            return Err(edit_error(
                "failed to validate flags: at least one of [--from-literal, --new-namespace] must be specified",
            ));
        }
        let kind = which.kind().kind();
        let fail = |msg: String| edit_error(format!("failed to create {}: {msg}", which.word()));
        let Some(i) = self.find_generator(which, name, &flags.namespace) else {
            return Err(fail(format!(
                "could not set new {kind} value: unable to find {kind} with name {name:?}"
            )));
        };
        let field = which.kind().field();
        if !flags.from_literal.is_empty() {
            self.update_literals(field, i, &flags.from_literal)
                .map_err(|msg| fail(format!("failed to update literal sources: {msg}")))?;
        }
        if !flags.new_namespace.is_empty() {
            let at = [Step::key(field), Step::Index(i), Step::key("namespace")];
            let ns = Node::text(flags.new_namespace.as_str());
            if self.doc().get(&at) != Some(&ns) {
                self.doc_mut().set(&at, &ns)?;
            }
        }
        self.check_generator(which, i)
            .map_err(|e| fail(format!("failed to validate {kind} structure: {}", e.root())))
    }

    /// kustomize's `UpdateLiteralSources`: every literal of the entry and of the flags
    /// must be `key=value` with one `=`, and every flag's key must be among the
    /// entry's. kustomize rebuilds the list from a map (in random order, a repeated key
    /// once); kbuild changes the values where they are written and drops repeats.
    fn update_literals(
        &mut self,
        field: &str,
        index: usize,
        updates: &[String],
    ) -> std::result::Result<(), String> {
        const BAD: &str = "failed to update resource: invalid format: literal values must be specified in the key=value format";
        let path = [Step::key(field), Step::Index(index), Step::key("literals")];
        let current: Vec<String> = self
            .doc()
            .get(&path)
            .and_then(Node::as_seq)
            .map(|l| {
                l.iter()
                    .map(|n| n.scalar_string().unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default();
        let mut values: Map = Map::new();
        for literal in &current {
            let (k, v) = split_literal(literal).ok_or(BAD)?;
            values.insert(k, Node::text(v));
        }
        for literal in updates {
            let (k, v) = split_literal(literal).ok_or(BAD)?;
            if !values.contains_key(k) {
                return Err(format!("key '{k}' not found in resource"));
            }
            values.insert(k, Node::text(v));
        }
        let mut seen = std::collections::HashSet::new();
        let mut steps: Vec<(usize, Option<String>)> = Vec::new();
        for (i, literal) in current.iter().enumerate() {
            let (k, _) = split_literal(literal).ok_or(BAD)?;
            if !seen.insert(k.to_string()) {
                steps.push((i, None));
                continue;
            }
            let v = values.get(k).and_then(Node::as_str).unwrap_or_default();
            let wanted = format!("{k}={v}");
            if wanted != *literal {
                steps.push((i, Some(wanted)));
            }
        }
        // Each change stays on its item's lines, so the repeats go first, all at once,
        // then the values change, all at once (indexes counted without the repeats).
        let repeats: Vec<usize> = steps
            .iter()
            .filter(|(_, wanted)| wanted.is_none())
            .map(|(i, _)| *i)
            .collect();
        let changes: Vec<(usize, Node)> = steps
            .into_iter()
            .filter_map(|(i, wanted)| {
                let before = repeats.partition_point(|&r| r < i);
                wanted.map(|text| (i - before, Node::text(text)))
            })
            .collect();
        let report = |e: Error| e.report().to_string();
        self.doc_mut()
            .remove_items(&path, &repeats)
            .map_err(report)?;
        self.doc_mut().set_items(&path, &changes).map_err(report)
    }

    /// Generates the entry at `index` as a build would, with the kustomization's
    /// `generatorOptions`, reading its files from the kustomization's directory.
    fn check_generator(&self, which: Generator, index: usize) -> Result<()> {
        let field = which.kind().field();
        let entry = self
            .doc()
            .get(&[Step::key(field), Step::Index(index)])
            .cloned()
            .unwrap_or_default();
        let decode_err = |e: crate::yaml::de::DeError| Error::Edit(format!("{field}: {e}"));
        let args: GeneratorArgs = crate::yaml::de::from_node(&entry).map_err(decode_err)?;
        let global: Option<GeneratorOptions> = match self.doc().get(&top("generatorOptions")) {
            None | Some(Node::Null) => None,
            Some(node) => Some(crate::yaml::de::from_node(node).map_err(decode_err)?),
        };
        let files =
            crate::load::Files::new(crate::load::fs::real(), crate::LoadRestrictor::RootOnly);
        let ldr = files.root(self.dir())?;
        let mut read = |p: &str| ldr.read(p, "generator file").map(|(_, b)| b);
        crate::generate::generate(which.kind(), &args, global.as_ref(), &mut read).map(|_| ())
    }

    /// `edit remove configmap|secret NAME[,NAME…] [--namespace NS]`: removes the
    /// entries with those names in that namespace; names not found are notes, unless
    /// none is found (an error).
    pub fn remove_generators(
        &mut self,
        which: Generator,
        args: &[String],
        namespace: &str,
    ) -> Result<()> {
        let word = which.word();
        let names: Vec<&str> = match args {
            [] => {
                return Err(edit_error(format!(
                    "at least one {word} name must be specified"
                )));
            }
            [one] => one.split(',').collect(),
            _ => {
                return Err(edit_error(format!(
                    "too many arguments: [{}]; to provide multiple {word}s to remove, please separate {word} names by commas",
                    args.join(" ")
                )));
            }
        };
        // Sets: a command may name thousands of generators, the file hold thousands more.
        let wanted: std::collections::HashSet<&str> = names.iter().copied().collect();
        let mut found: std::collections::HashSet<String> = std::collections::HashSet::new();
        remove_items(self, which.kind().field(), |entry| {
            let text = |k: &str| {
                entry
                    .get(k)
                    .and_then(Node::scalar_string)
                    .unwrap_or_default()
            };
            let name = text("name");
            let hit =
                wanted.contains(name.as_str()) && namespace_equal(&text("namespace"), namespace);
            if hit {
                found.insert(name);
            }
            hit
        })?;
        if found.is_empty() {
            // kustomize names the default file name here, whatever the file is called.
            return Err(edit_error(format!(
                "no specified {word}(s) were found in the kustomization.yaml file"
            )));
        }
        for name in names {
            if !found.contains(name) {
                self.note(format!("{word} {name} doesn't exist in kustomization file"));
            }
        }
        Ok(())
    }
}

/// The sources `add` gives, by the field that holds each.
struct Sources {
    literals: Vec<String>,
    files: Vec<String>,
    envs: Vec<String>,
}

impl Sources {
    /// The fields in alphabetical order (kustomize's for a new entry).
    fn fields(&self) -> [(&'static str, &Vec<String>); 3] {
        [
            ("envs", &self.envs),
            ("files", &self.files),
            ("literals", &self.literals),
        ]
    }
}

/// kustomize's `ValidateAdd` (after the name, checked first): some source, an env file
/// alone, a behavior it knows.
fn validate_add(files: &[String], flags: &GeneratorFlags) -> Result<()> {
    let env = !flags.from_env_file.is_empty();
    let literals = !flags.from_literal.is_empty();
    if !env && files.is_empty() && !literals {
        return Err(edit_error(
            "failed to validate flags: at least from-env-file, or from-file or from-literal must be set",
        ));
    }
    if env && (!files.is_empty() || literals) {
        return Err(edit_error(
            "failed to validate flags: from-env-file cannot be combined with from-file or from-literal",
        ));
    }
    if !flags.behavior.is_empty()
        && !["create", "merge", "replace"].contains(&flags.behavior.as_str())
    {
        return Err(edit_error(
            r#"failed to validate flags: invalid behavior: must be one of "create", "merge", or "replace""#,
        ));
    }
    Ok(())
}

/// A new entry as kustomize writes it: fields in alphabetical order, empty ones left
/// out, `type` for a secret.
fn new_entry(which: Generator, name: &str, sources: &Sources, flags: &GeneratorFlags) -> Node {
    let mut entry = Map::new();
    if !flags.behavior.is_empty() {
        entry.insert("behavior", Node::text(flags.behavior.as_str()));
    }
    for (key, list) in sources.fields() {
        if !list.is_empty() {
            let items = list.iter().map(|s| Node::text(s.as_str())).collect();
            entry.insert(key, Node::Seq(items));
        }
    }
    entry.insert("name", Node::text(name));
    if !flags.namespace.is_empty() {
        entry.insert("namespace", Node::text(flags.namespace.as_str()));
    }
    if flags.disable_name_suffix_hash {
        entry.insert("options", disable_hash_options());
    }
    if which == Generator::Secret && !flags.secret_type.is_empty() {
        entry.insert("type", Node::text(flags.secret_type.as_str()));
    }
    Node::Map(entry)
}

/// The `options` kustomize writes for `--disableNameSuffixHash`.
fn disable_hash_options() -> Node {
    let mut options = Map::new();
    options.insert("disableNameSuffixHash", Node::Bool(true));
    Node::Map(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_namespace_is_the_default_namespace() {
        assert!(namespace_equal("", "default"));
        assert!(namespace_equal("default", ""));
        assert!(!namespace_equal("", "ns1"));
    }

    #[test]
    fn a_literal_for_set_has_exactly_one_equals_sign() {
        assert_eq!(split_literal("a=b"), Some(("a", "b")));
        assert_eq!(split_literal("a="), Some(("a", "")));
        assert_eq!(split_literal("a=b=c"), None);
        assert_eq!(split_literal("ab"), None);
    }
}
