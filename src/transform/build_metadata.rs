//! `buildMetadata`: origin and transformer annotations, and the managed-by
//! label.
//!
//! As in kustomize, the top kustomization's `buildMetadata` governs the whole
//! build (bases and components included), and paths are written relative to
//! the top kustomization's directory. The managed-by label is also what kustomize's
//! deprecated `--enable-managedby-label` flag asks for.

use crate::error::{Error, Result};
use crate::kustomize_version::KustomizeVersion;
use crate::remote::Session;
use crate::resource::resmap::ResMap;
use crate::resource::shared;
use crate::resource::{Configured, Origin};
use crate::yaml::Node;
use std::path::{Component, Path, PathBuf};

pub(crate) const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";
pub(crate) const TRANSFORMATIONS_ANNOTATION: &str = "alpha.config.kubernetes.io/transformations";
pub(crate) const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";

/// Which `buildMetadata` options are on.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BuildMeta {
    pub origin: bool,
    pub transformers: bool,
    pub managed_by: bool,
}

impl BuildMeta {
    /// Whether any option is on (kustomize then tracks origins through the whole build).
    pub(crate) fn any(&self) -> bool {
        self.origin || self.transformers || self.managed_by
    }

    pub(crate) fn parse(options: &[String]) -> Result<BuildMeta> {
        let mut m = BuildMeta::default();
        for o in options {
            match o.as_str() {
                "originAnnotations" => m.origin = true,
                "transformerAnnotations" => m.transformers = true,
                "managedByLabel" => m.managed_by = true,
                other => {
                    return Err(Error::invalid_config(format!(
                        "buildMetadata: unknown option {other:?}; expected originAnnotations, transformerAnnotations or managedByLabel"
                    )));
                }
            }
        }
        Ok(m)
    }
}

/// `to` relative to the directory `from` (both absolute), with `/` separators.
pub(crate) fn relative(from: &Path, to: &Path) -> String {
    let f: Vec<Component> = from.components().collect();
    let t: Vec<Component> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c.as_os_str());
    }
    out.to_string_lossy().replace('\\', "/")
}

/// `key: value` and a newline, the value a string as kustomize's YAML encoder writes one
/// (quoted when it would read as something else: `name: "12"`, `namespace: "0x10"`).
fn string_field(key: &str, value: &str) -> String {
    let mut map = crate::yaml::Map::new();
    map.insert(key, Node::text(value));
    let mut out = String::new();
    crate::yaml::emit::emit_document(&Node::Map(map), &mut out);
    out
}

/// Go's `filepath.Join` of two parts (kustomize's origin paths; so a URL's `//` becomes
/// `/` there).
fn go_join(a: &str, b: &str) -> String {
    crate::go_path::join(&[a, b])
}

/// Where something came from, as the origin annotation writes it: a path, and for a
/// file of a remote base the repository and ref (kustomize's `resource.Origin`).
struct Place {
    path: String,
    repo: Option<String>,
    git_ref: String,
}

impl Place {
    /// `repo:` and `ref:` lines (kustomize writes them after `path:`).
    fn repo_lines(&self, indent: &str) -> String {
        let mut s = String::new();
        if let Some(r) = &self.repo {
            s.push_str(&format!("{indent}repo: {r}\n"));
            if !self.git_ref.is_empty() {
                s.push_str(&format!("{indent}ref: {}\n", self.git_ref));
            }
        }
        s
    }
}

/// Maps absolute paths to origin [`Place`]s: relative to the top kustomization, or, in a
/// repository cloned for a remote base, relative to the repository's root and naming it.
struct Places<'a> {
    root: &'a Path,
    remote: &'a Session,
    /// The checkout holding the top kustomization (a URL as the build root): kustomize
    /// names nothing remote for it, its paths are relative to the root as for a local one.
    root_checkout: Option<PathBuf>,
}

impl Places<'_> {
    fn place(&self, abs: &Path) -> Place {
        if let Some((dir, named)) = self.remote.repo_origin(abs)
            && self.root_checkout.as_deref() != Some(dir.as_path())
        {
            let prefix = if named.not_cloned { "notCloned" } else { "" };
            return Place {
                path: go_join(prefix, &relative(&dir, abs)),
                repo: Some(named.repo),
                git_ref: named.git_ref,
            };
        }
        Place {
            path: relative(self.root, abs),
            repo: None,
            git_ref: String::new(),
        }
    }

    /// kustomize's `Origin.Append` of a `resources` entry to the origin of the
    /// kustomization in `dir`: an entry that parses as a repository names it (even a
    /// plain file URL, when it has enough path segments), anything else is joined to
    /// the path.
    fn entry(&self, dir: &Path, entry: &str) -> Place {
        if let Ok(spec) = crate::remote::RepoSpec::parse(entry) {
            let root = crate::go_path::clean(&spec.kust_root);
            return Place {
                path: if root == "." {
                    "notCloned".to_string()
                } else {
                    root
                },
                repo: Some(spec.clone_url()),
                git_ref: spec.git_ref,
            };
        }
        let mut place = self.place(dir);
        place.path = go_join(&place.path, entry);
        place
    }

    fn configured_text(&self, c: &Configured, indent: &str) -> String {
        let place = self.place(&c.configured_in);
        let mut s = place.repo_lines(indent);
        s.push_str(&format!(
            "{indent}configuredIn: {}\n{indent}configuredBy:\n{indent}  apiVersion: {}\n{indent}  kind: {}\n",
            place.path, c.api_version, c.kind
        ));
        for (key, value) in [("name", &c.name), ("namespace", &c.namespace)] {
            if let Some(v) = value {
                s.push_str(&format!("{indent}  {}", string_field(key, v)));
            }
        }
        s
    }

    fn path_text(place: Place) -> String {
        format!("path: {}\n{}", place.path, place.repo_lines(""))
    }
}

/// The texts of a resource's origin and transformations annotations, as kustomize
/// writes them (paths relative to the top kustomization, remote files naming their
/// repository). Also what kustomize's bookkeeping annotations hold while it builds,
/// which a JSON patch can copy elsewhere (see transform/patch.rs).
pub(crate) struct Texts<'a> {
    places: Places<'a>,
}

impl<'a> Texts<'a> {
    /// For a build whose top kustomization is in `root`.
    pub(crate) fn new(root: &'a Path, remote: &'a Session) -> Texts<'a> {
        Texts {
            places: Places {
                root,
                remote,
                root_checkout: remote.repo_origin(root).map(|(dir, _)| dir),
            },
        }
    }

    /// `config.kubernetes.io/origin`'s text, when the resource's origin is known.
    pub(crate) fn origin(&self, origin: Option<&Origin>) -> Option<String> {
        let places = &self.places;
        match origin? {
            Origin::File(p) => Some(Places::path_text(places.place(p))),
            Origin::Url { dir, entry } => Some(Places::path_text(places.entry(dir, entry))),
            Origin::Generated(c) => Some(places.configured_text(c, "")),
        }
    }

    /// `alpha.config.kubernetes.io/transformations`' text, when there were any.
    pub(crate) fn transformations(&self, list: &[Configured]) -> Option<String> {
        (!list.is_empty()).then(|| {
            list.iter()
                .map(|c| {
                    let body = self.places.configured_text(c, "  ");
                    format!("- {}", &body[2..])
                })
                .collect()
        })
    }
}

/// Writes the annotations the options ask for (the label is [`add_managed_by_label`]'s).
pub(crate) fn annotate(resmap: &mut ResMap, meta: BuildMeta, root: &Path, remote: &Session) {
    let texts = Texts::new(root, remote);
    for res in resmap.iter_mut() {
        if meta.origin
            && let Some(t) = texts.origin(res.origin.as_deref())
        {
            res.set_annotation(ORIGIN_ANNOTATION, Some(&t));
        }
        if meta.transformers
            && let Some(t) = texts.transformations(&res.transformations)
        {
            res.set_annotation(TRANSFORMATIONS_ANNOTATION, Some(&t));
        }
    }
}

/// Sets `app.kubernetes.io/managed-by: kustomize-<version>` on every resource, for
/// `buildMetadata: [managedByLabel]` or `--enable-managedby-label`. kustomize does it last,
/// after the output sort (`krusty.Kustomizer.Run`): vars never see the label, and a var
/// whose `fieldref` names it fails as in kustomize.
pub(crate) fn add_managed_by_label(resmap: &mut ResMap, version: KustomizeVersion) {
    for res in resmap.iter_mut() {
        if let Some(labels) = res.node_mut().ensure_map(&["metadata", "labels"])
            && let Some(old) = labels.insert(
                MANAGED_BY_LABEL.to_string(),
                Node::text(version.managed_by_value().to_string()),
            )
        {
            // kustomize's LabelTransformer writes into the existing value node, which
            // selectors may share (see resource/shared.rs).
            let at = shared::keys(&["metadata", "labels", MANAGED_BY_LABEL]);
            let (node, shared) = res.node_mut_with_shared();
            shared.write_through(node, &at, &old);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::go_join;
    use crate::go_path::clean as go_clean;

    #[test]
    fn names_are_written_as_strings() {
        use super::string_field;
        assert_eq!(string_field("name", "web"), "name: web\n");
        assert_eq!(string_field("name", "12"), "name: \"12\"\n");
        assert_eq!(string_field("namespace", "0x10"), "namespace: \"0x10\"\n");
        assert_eq!(string_field("name", "a: b"), "name: 'a: b'\n");
    }

    #[test]
    fn paths_are_cleaned_as_go_does() {
        assert_eq!(go_clean(""), ".");
        assert_eq!(go_clean("base/../other/x.yaml"), "other/x.yaml");
        assert_eq!(go_clean("../a//b/./c/"), "../a/b/c");
        assert_eq!(go_clean("/../a"), "/a");
        // A URL joined as a path loses its `//` (kustomize's origin of a file URL).
        assert_eq!(
            go_join("base", "http://h:1/r?to=http://h:1/x.yaml"),
            "base/http:/h:1/r?to=http:/h:1/x.yaml"
        );
        assert_eq!(go_join("", ""), "");
        assert_eq!(go_join("notCloned", ""), "notCloned");
    }
}
