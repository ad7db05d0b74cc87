//! Labels and annotations: `edit set|add|remove label|annotation`.

use super::document::Step;
use super::{KustomizationFile, edit_error, top};
use crate::error::Result;
use crate::yaml::{Map, Node};

/// Which metadata a command edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metadata {
    /// `commonLabels` (or, without selectors, `labels`).
    Label,
    /// `commonAnnotations`.
    Annotation,
}

impl Metadata {
    fn name(self) -> &'static str {
        match self {
            Metadata::Label => "label",
            Metadata::Annotation => "annotation",
        }
    }

    fn field(self) -> &'static str {
        match self {
            Metadata::Label => "commonLabels",
            Metadata::Annotation => "commonAnnotations",
        }
    }
}

/// `k:v` arguments as kustomize reads them: split at the first colon, a value in
/// double quotes unquoted, a missing colon an empty value; a later argument with the
/// same key wins.
pub fn parse_pairs(args: &[String], kind: Metadata) -> Result<Vec<(String, String)>> {
    if args.is_empty() {
        return Err(edit_error(format!("must specify {}", kind.name())));
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for arg in args {
        let (k, v) = match arg.find(':') {
            Some(0) => {
                return Err(edit_error(format!(
                    "invalid {}: '{arg}' (need k:v pair where v may be quoted)",
                    kind.name()
                )));
            }
            None => (arg.as_str(), ""),
            Some(i) => (&arg[..i], trim_quotes(&arg[i + 1..])),
        };
        pairs.push((k.to_string(), v.to_string()));
    }
    // A later argument with the same key wins, in its place: kept are the last of each key.
    let mut last = std::collections::HashMap::new();
    for (i, (k, _)) in pairs.iter().enumerate() {
        last.insert(k.clone(), i);
    }
    let mut i = 0;
    pairs.retain(|(k, _)| {
        i += 1;
        last.get(k) == Some(&(i - 1))
    });
    Ok(pairs)
}

fn trim_quotes(s: &str) -> &str {
    match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(inner) if s.len() >= 2 => inner,
        _ => s,
    }
}

/// kustomize's check of an annotation key for `set annotation`: an optional DNS
/// prefix and `/`, then a name.
fn valid_annotation_key(key: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"^([a-zA-Z](([-a-zA-Z0-9.]{0,251})[a-zA-Z0-9])?/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?$",
        )
        .unwrap_or_else(|_| unreachable!("a constant pattern"))
    })
    .is_match(key)
}

impl KustomizationFile {
    /// `edit set label|annotation k:v…`: sets each key in `commonLabels` or
    /// `commonAnnotations`, replacing any value.
    pub fn set_metadata(&mut self, kind: Metadata, args: &[String]) -> Result<()> {
        let pairs = parse_pairs(args, kind)?;
        if kind == Metadata::Annotation && pairs.iter().any(|(k, _)| !valid_annotation_key(k)) {
            return Err(edit_error(
                "invalid annotation key: see the syntax and character set rules at https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations/",
            ));
        }
        self.write_pairs(kind.field(), &pairs)
    }

    /// `edit add label|annotation [--force] k:v…`: adds each key to `commonLabels` or
    /// `commonAnnotations`; an existing key is an error without `force`. Labels
    /// `without_selector` go to a `labels` entry with `includeSelectors` false (and
    /// `includeTemplates` when asked), the first entry with the same settings.
    pub fn add_metadata(
        &mut self,
        kind: Metadata,
        args: &[String],
        force: bool,
        without_selector: bool,
        include_templates: bool,
    ) -> Result<()> {
        if include_templates && !without_selector {
            return Err(edit_error(
                "--without-selector flag must be specified for --include-templates to work",
            ));
        }
        let pairs = parse_pairs(args, kind)?;
        if kind == Metadata::Label && without_selector {
            return self.add_label_entry(&pairs, force, include_templates);
        }
        let field = kind.field();
        let existing = self.doc().get(&top(field)).and_then(Node::as_map).cloned();
        for (k, _) in &pairs {
            if !force
                && existing
                    .as_ref()
                    .is_some_and(|m| m.contains_key(k.as_str()))
            {
                return Err(already(kind, k));
            }
        }
        self.write_pairs(field, &pairs)
    }

    /// Sets each pair in the mapping `field` (made when it is not one), in one edit of
    /// the text where the mapping is there.
    fn write_pairs(&mut self, field: &str, pairs: &[(String, String)]) -> Result<()> {
        let mut rest = pairs;
        if let Some(((k, v), others)) = rest.split_first()
            && !matches!(self.doc().get(&top(field)), Some(Node::Map(_)))
        {
            let mut map = Map::new();
            map.insert(k.as_str(), Node::text(v.as_str()));
            self.set_field(field, &Node::Map(map))?;
            rest = others;
        }
        let values: Vec<(&str, Node)> = rest
            .iter()
            .map(|(k, v)| (k.as_str(), Node::text(v.as_str())))
            .collect();
        self.doc_mut().set_entries(&top(field), &values)
    }

    /// `add label --without-selector`: kustomize writes into the first `labels` entry
    /// whose `includeSelectors` is false and whose `includeTemplates` matches, or
    /// appends one.
    fn add_label_entry(
        &mut self,
        pairs: &[(String, String)],
        force: bool,
        include_templates: bool,
    ) -> Result<()> {
        let flag = |entry: &Node, name: &str| {
            matches!(entry.get(name), Some(Node::Bool(true)))
                || entry.get(name).and_then(Node::as_str) == Some("true")
        };
        let entry_index = |file: &Self| {
            file.doc()
                .get(&top("labels"))
                .and_then(Node::as_seq)
                .and_then(|entries| {
                    entries.iter().position(|e| {
                        !flag(e, "includeSelectors")
                            && flag(e, "includeTemplates") == include_templates
                    })
                })
        };
        let mut rest = pairs;
        let i = match entry_index(self) {
            Some(i) => i,
            None => {
                let Some(((k, v), others)) = rest.split_first() else {
                    return Ok(());
                };
                let mut pairs_map = Map::new();
                pairs_map.insert(k.as_str(), Node::text(v.as_str()));
                let mut entry = Map::new();
                entry.insert("pairs", Node::Map(pairs_map));
                if include_templates {
                    entry.insert("includeTemplates", Node::Bool(true));
                }
                self.append("labels", &Node::Map(entry))?;
                rest = others;
                // The entry just added is the first with these settings.
                entry_index(self).unwrap_or_default()
            }
        };
        let at = [Step::key("labels"), Step::Index(i), Step::key("pairs")];
        if !force
            && let Some((k, _)) = rest
                .iter()
                .find(|(k, _)| self.doc().get(&at).and_then(|p| p.get(k)).is_some())
        {
            return Err(already(Metadata::Label, k));
        }
        let values: Vec<(&str, Node)> = rest
            .iter()
            .map(|(k, v)| (k.as_str(), Node::text(v.as_str())))
            .collect();
        self.doc_mut().set_entries(&at, &values)
    }

    /// `edit remove label|annotation k1,k2 [--ignore-non-existence]`.
    pub fn remove_metadata(&mut self, kind: Metadata, args: &[String], ignore: bool) -> Result<()> {
        let keys = match args {
            [] => return Err(edit_error(format!("must specify {}", kind.name()))),
            [one] => one.split(',').map(str::to_string).collect::<Vec<_>>(),
            _ => {
                return Err(edit_error(format!(
                    "{}s must be comma-separated, with no spaces",
                    kind.name()
                )));
            }
        };
        if let Some(empty) = keys.iter().find(|k| k.is_empty()) {
            return Err(edit_error(format!(
                "invalid {}: '{empty}' (name is empty)",
                kind.name()
            )));
        }
        let field = kind.field();
        let existing = self.doc().get(&top(field)).and_then(Node::as_map).cloned();
        let Some(existing) = existing else {
            if ignore {
                return Ok(());
            }
            return Err(edit_error(format!(
                "{field} is not defined in kustomization file"
            )));
        };
        for k in &keys {
            if !existing.contains_key(k.as_str()) {
                if ignore {
                    continue;
                }
                return Err(edit_error(format!(
                    "{} {k} is not defined in kustomization file",
                    kind.name()
                )));
            }
        }
        let present: Vec<&str> = keys
            .iter()
            .map(String::as_str)
            .filter(|k| existing.contains_key(k))
            .collect();
        self.doc_mut().remove_entries(&top(field), &present)?;
        // kustomize omits an empty map when it writes the file.
        if self
            .doc()
            .get(&top(field))
            .is_some_and(|n| n.as_map().is_none_or(|m| m.is_empty()))
        {
            self.doc_mut().remove(&top(field))?;
        }
        Ok(())
    }
}

fn already(kind: Metadata, key: &str) -> crate::error::Error {
    edit_error(format!(
        "{} {key} already in kustomization file. Use --force to override.",
        kind.name()
    ))
}
