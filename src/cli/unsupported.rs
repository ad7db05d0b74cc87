//! kustomize's commands kbuild does not have, refused by name.
//!
//! `kbuild openapi` is a command of kbuild's own (`from-crds`); its `info` and `fetch`, which
//! kustomize has, are refused with [`openapi_refusal`]. `kbuild build openapi info` still gets
//! the refusal below.
//!
//! kbuild's default command is `build`, so any other first word is read as a directory:
//! `kbuild cfg tree .` would say "specify one path to kustomization.yaml", which tells a
//! kustomize user nothing. A first word that is one of kustomize's commands and names no
//! existing path is refused with the command's name and what kbuild offers instead (a
//! directory that happens to be called `fn` still builds).

use std::path::{Path, PathBuf};

/// kustomize v5.8.1's commands that kbuild lacks, with what to use instead.
const COMMANDS: &[(&str, &str)] = &[
    (
        "cfg",
        "kbuild works on kustomizations; to look at resources, build them (`kbuild build DIR`) and read the YAML stream",
    ),
    (
        "fn",
        "KRM functions run inside a build: list them under `generators:`/`transformers:` and build with --enable-alpha-plugins",
    ),
    (
        "openapi",
        "kbuild embeds kustomize's built-in schema (Kubernetes v1.21.2); a kustomization's `openapi: path:` file is read as kustomize reads it, and `kbuild openapi from-crds` writes one from CRDs",
    ),
    (
        "docs-merge",
        "see kbuild's book, docs/src/guide/overlays.md",
    ),
    ("docs-merge3", "`kbuild merge3 --help`"),
    ("docs-fn", "see kbuild's book, docs/src/guide/plugins.md"),
    (
        "docs-fn-spec",
        "see kbuild's book, docs/src/guide/plugins.md",
    ),
    (
        "docs-io-annotations",
        "see kbuild's book, docs/src/guide/plugins.md",
    ),
    ("tutorials-command-basics", "`kbuild --help`"),
    (
        "tutorials-function-basics",
        "see kbuild's book, docs/src/guide/plugins.md",
    ),
];

/// The refusal for `kbuild DIR EXTRA...` when DIR is a kustomize command kbuild lacks and
/// no such path exists.
pub(crate) fn refusal(dir: &Path, extra: &[PathBuf]) -> Option<String> {
    let word = dir.to_str()?;
    let (_, instead) = COMMANDS.iter().find(|(name, _)| *name == word)?;
    if dir.exists() {
        return None;
    }
    // The subcommand of a command that has them (`cfg tree`), not an argument.
    let sub = extra
        .first()
        .and_then(|p| p.to_str())
        .filter(|_| matches!(word, "cfg" | "fn" | "openapi"))
        .filter(|s| !s.starts_with('-') && !s.contains(['/', '.']));
    let named = match sub {
        Some(sub) => format!("{word} {sub}"),
        None => word.to_string(),
    };
    Some(format!(
        "kbuild does not implement `kustomize {named}`; instead: {instead}"
    ))
}

/// The refusal for kustomize's `openapi info` and `openapi fetch` (`sub`).
pub(crate) fn openapi_refusal(sub: &str) -> String {
    let instead = COMMANDS
        .iter()
        .find(|(name, _)| *name == "openapi")
        .map_or("", |(_, instead)| *instead);
    format!("kbuild does not implement `kustomize openapi {sub}`; instead: {instead}")
}

#[cfg(test)]
mod tests {
    use super::refusal;
    use std::path::{Path, PathBuf};

    #[test]
    fn names_the_command_and_subcommand() {
        let got = refusal(
            Path::new("cfg"),
            &[PathBuf::from("tree"), PathBuf::from(".")],
        );
        assert!(got.is_some_and(|m| {
            m.starts_with("kbuild does not implement `kustomize cfg tree`; instead:")
        }));
        let got = refusal(Path::new("docs-fn"), &[]);
        assert!(
            got.is_some_and(|m| m.starts_with("kbuild does not implement `kustomize docs-fn`;"))
        );
        assert!(refusal(Path::new("overlays"), &[]).is_none());
    }
}
