//! `edit set`: images, name prefix and suffix, namespace, replicas, build metadata.

use super::document::Step;
use super::image::{ImageArg, PRESERVE};
use super::{KustomizationFile, edit_error, top};
use crate::error::Result;
use crate::yaml::{Map, Node};

/// The `buildMetadata` options kustomize knows.
pub(super) const BUILD_METADATA: [&str; 3] = [
    "originAnnotations",
    "transformerAnnotations",
    "managedByLabel",
];

/// kustomize's reading of the one `buildmetadata` argument: comma-separated options.
pub(super) fn build_metadata_args(args: &[String]) -> Result<Vec<String>> {
    let arg = match args {
        [] => return Err(edit_error("must specify a buildMetadata option")),
        [one] => one,
        _ => {
            return Err(edit_error(format!(
                "too many arguments: [{}]; to provide multiple buildMetadata options, please separate options by comma",
                args.join(" ")
            )));
        }
    };
    let opts: Vec<String> = arg.split(',').map(str::to_string).collect();
    if let Some(bad) = opts.iter().find(|o| !BUILD_METADATA.contains(&o.as_str())) {
        return Err(edit_error(format!("invalid buildMetadata option: {bad}")));
    }
    Ok(opts)
}

impl KustomizationFile {
    /// `edit set nameprefix|namesuffix|namespace VALUE`: `field` is `namePrefix`,
    /// `nameSuffix` or `namespace`.
    pub fn set_scalar_field(&mut self, field: &str, args: &[String]) -> Result<()> {
        let what = match field {
            "namePrefix" => "prefix",
            "nameSuffix" => "suffix",
            _ => "namespace",
        };
        let [value] = args else {
            return Err(edit_error(format!("must specify exactly one {what} value")));
        };
        self.set_field(field, &Node::text(value.as_str()))
    }

    /// `edit set image ARG…`: updates the `images` entry named by each argument (its
    /// `newName`, `newTag` and `digest` become the argument's; `*` keeps the entry's)
    /// or adds one.
    pub fn set_images(&mut self, args: &[String]) -> Result<()> {
        if args.is_empty() {
            return Err(edit_error("no image specified"));
        }
        let mut wanted: Vec<ImageArg> = Vec::new();
        for arg in args {
            let parsed = ImageArg::parse(arg)?;
            wanted.retain(|w| w.name != parsed.name);
            wanted.push(parsed);
        }
        for arg in wanted {
            let images = self
                .doc()
                .get(&top("images"))
                .and_then(Node::as_seq)
                .cloned();
            let index = images.as_ref().and_then(|list| {
                list.iter()
                    .position(|i| i.get("name").and_then(Node::as_str) == Some(&arg.name))
            });
            match index {
                Some(i) => self.update_image(i, &arg)?,
                None => {
                    let mut entry = Map::new();
                    entry.insert("name", Node::text(arg.name.as_str()));
                    for (field, value) in image_fields(&arg) {
                        // `*` with nothing to keep sets nothing.
                        if !value.is_empty() && value != PRESERVE {
                            entry.insert(field, Node::text(value));
                        }
                    }
                    self.append_sorted_image(&Node::Map(entry), &arg.name)?;
                }
            }
        }
        Ok(())
    }

    /// kustomize replaces the whole entry: fields the argument does not give go (a
    /// `tagSuffix` too); `*` keeps the entry's value.
    fn update_image(&mut self, index: usize, arg: &ImageArg) -> Result<()> {
        let at = |field: &str| [Step::key("images"), Step::Index(index), Step::key(field)];
        let entry = self
            .doc()
            .get(&[Step::key("images"), Step::Index(index)])
            .cloned()
            .unwrap_or_default();
        for (field, value) in image_fields(arg) {
            if value == PRESERVE {
                continue;
            }
            if value.is_empty() {
                if entry.get(field).is_some() {
                    self.doc_mut().remove(&at(field))?;
                }
            } else if entry.get(field).and_then(Node::as_str) != Some(value) {
                self.doc_mut().set(&at(field), &Node::text(value))?;
            }
        }
        let keep = ["name", "newName", "newTag", "digest"];
        if let Some(map) = entry.as_map() {
            for key in map.keys() {
                if !keep.contains(&key.as_str()) {
                    self.doc_mut().remove(&at(key))?;
                }
            }
        }
        Ok(())
    }

    /// A new `images` entry goes where kustomize's sort by name puts it when the list is
    /// sorted already, else at the end.
    fn append_sorted_image(&mut self, entry: &Node, name: &str) -> Result<()> {
        let names: Vec<String> = self
            .doc()
            .get(&top("images"))
            .and_then(Node::as_seq)
            .map(|l| {
                l.iter()
                    .map(|i| {
                        i.get("name")
                            .and_then(Node::as_str)
                            .unwrap_or("")
                            .to_string()
                    })
                    .collect()
            })
            .unwrap_or_default();
        let sorted = names.windows(2).all(|w| w[0] <= w[1]);
        match names.iter().position(|n| n.as_str() > name) {
            Some(at) if sorted => self.doc_mut().insert_item(&top("images"), at, entry),
            _ => self.append("images", entry),
        }
    }

    /// `edit set replicas NAME=COUNT…`: sets the count of the `replicas` entry with
    /// that name, or adds one.
    pub fn set_replicas(&mut self, args: &[String]) -> Result<()> {
        if args.is_empty() {
            return Err(edit_error("no replicas specified"));
        }
        let mut wanted: Vec<(String, i64)> = Vec::new();
        for arg in args {
            let parsed = match arg.split('=').collect::<Vec<_>>().as_slice() {
                [name, count] => count.parse::<i64>().ok().map(|c| (name.to_string(), c)),
                _ => None,
            };
            let Some((name, count)) = parsed else {
                return Err(edit_error(
                    "invalid format of replica, use the following format: <name>=<count>",
                ));
            };
            wanted.retain(|(n, _)| *n != name);
            wanted.push((name, count));
        }
        for (name, count) in wanted {
            let list = self
                .doc()
                .get(&top("replicas"))
                .and_then(Node::as_seq)
                .cloned();
            let index = list.as_ref().and_then(|l| {
                l.iter()
                    .position(|r| r.get("name").and_then(Node::as_str) == Some(&name))
            });
            match index {
                Some(i) => {
                    let path = [Step::key("replicas"), Step::Index(i), Step::key("count")];
                    if self.doc().get(&path) != Some(&Node::Int(count)) {
                        self.doc_mut().set(&path, &Node::Int(count))?;
                    }
                }
                None => {
                    let mut entry = Map::new();
                    entry.insert("name", Node::text(name.as_str()));
                    entry.insert("count", Node::Int(count));
                    self.append("replicas", &Node::Map(entry))?;
                }
            }
        }
        Ok(())
    }

    /// `edit set buildmetadata a,b`: the list becomes exactly these options.
    pub fn set_build_metadata(&mut self, args: &[String]) -> Result<()> {
        let opts = build_metadata_args(args)?;
        let current: Vec<String> = super::string_list(self, "buildMetadata");
        if current == opts {
            return Ok(());
        }
        let list = Node::Seq(opts.iter().map(|o| Node::text(o.as_str())).collect());
        self.set_field("buildMetadata", &list)
    }
}

fn image_fields(arg: &ImageArg) -> [(&'static str, &str); 3] {
    [
        ("newName", arg.new_name.as_str()),
        ("newTag", arg.new_tag.as_str()),
        ("digest", arg.digest.as_str()),
    ]
}
