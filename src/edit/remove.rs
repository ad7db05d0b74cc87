//! `edit remove`: resources, components, transformers, patches and build metadata
//! (labels and annotations are in `metadata`).

use super::add::PatchArgs;
use super::{KustomizationFile, edit_error, remove_items, string_list, top};
use crate::error::Result;
use crate::yaml::Node;

impl KustomizationFile {
    /// `edit remove resource|component|transformer PATTERN…`: removes the listed entries
    /// each pattern matches (Go's `filepath.Match` against the entries as written).
    pub fn remove_listed(&mut self, field: &str, args: &[String]) -> Result<()> {
        if args.is_empty() {
            let what = match field {
                "resources" => "resource",
                "components" => "component",
                _ => "transformer",
            };
            return Err(edit_error(format!("must specify a {what} file")));
        }
        let options = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        // An argument matches the entry it spells, and as a pattern; one without pattern
        // characters only the entry it spells, which a set finds (thousands of arguments
        // on thousands of entries would otherwise be matched pair by pair).
        let mut literal = std::collections::HashSet::new();
        let mut patterns = Vec::new();
        for arg in args {
            let pattern = glob::Pattern::new(arg)
                .map_err(|e| edit_error(format!("{arg}: not a valid file pattern: {e}")))?;
            literal.insert(arg.as_str());
            if arg.contains(['*', '?', '[', ']', '\\']) {
                patterns.push(pattern);
            }
        }
        let matches = |item: &Node| {
            item.scalar_string().is_some_and(|s| {
                literal.contains(s.as_str()) || patterns.iter().any(|p| p.matches_with(&s, options))
            })
        };
        remove_items(self, field, matches)?;
        // kustomize reads `bases` as part of `resources`.
        if field == "resources" {
            remove_items(self, "bases", matches)?;
        }
        Ok(())
    }

    /// `edit remove patch --path P | --patch TEXT [target flags]`: removes the equal
    /// entries; none is a note, not an error.
    pub fn remove_patch(&mut self, args: &PatchArgs) -> Result<()> {
        if !args.patch.is_empty() && !args.path.is_empty() {
            return Err(edit_error("patch and path can't be set at the same time"));
        }
        if remove_items(self, "patches", |p| args.matches(p))? == 0 {
            self.note(format!(
                "patch {} doesn't exist in kustomization file",
                args.patch
            ));
        }
        Ok(())
    }

    /// `edit remove buildmetadata a,b`.
    pub fn remove_build_metadata(&mut self, args: &[String]) -> Result<()> {
        let opts = super::set::build_metadata_args(args)?;
        if string_list(self, "buildMetadata").is_empty()
            && self.doc().get(&top("buildMetadata")).is_none()
        {
            return Ok(());
        }
        remove_items(self, "buildMetadata", |item| {
            item.as_str().is_some_and(|s| opts.iter().any(|o| o == s))
        })?;
        Ok(())
    }
}
