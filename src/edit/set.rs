//! `edit set`: images, name prefix and suffix, namespace, replicas, build metadata.

use super::document::{Document, ItemEdit, Step};
use super::image::{ImageArg, PRESERVE};
use super::{KustomizationFile, edit_error, top};
use crate::error::Result;
use crate::yaml::{Map, Node};
use std::collections::{BTreeMap, HashMap};

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
    /// or adds one. The arguments' changes go into the text together, as the changes
    /// one argument after the other would have made them.
    pub fn set_images(&mut self, args: &[String]) -> Result<()> {
        if args.is_empty() {
            return Err(edit_error("no image specified"));
        }
        let mut parsed = Vec::with_capacity(args.len());
        for arg in args {
            parsed.push(ImageArg::parse(arg)?);
        }
        let wanted = last_of_each(parsed, |a| a.name.clone());
        let mut rest = wanted.as_slice();
        // One at a time until the list is a block list with entries (a missing or flow
        // list is written as one by its first new entry).
        while let Some((arg, others)) = rest.split_first() {
            let block = matches!(
                self.doc().get(&top("images")),
                Some(Node::Seq(items)) if !items.is_empty()
            ) && self.doc().is_block_seq(&top("images"));
            if block {
                break;
            }
            self.set_image(arg)?;
            rest = others;
        }
        self.set_images_at_once(rest)
    }

    /// One argument of `set image`: the first entry of its name updated, or a new one.
    fn set_image(&mut self, arg: &ImageArg) -> Result<()> {
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
            Some(i) => update_image(self.doc_mut(), &[Step::key("images"), Step::Index(i)], arg),
            None => self.append_sorted_image(&new_image(arg), &arg.name),
        }
    }

    /// The arguments of `set image` on a block list with entries. Each updates the first
    /// entry of its name or adds an entry; names are distinct, so no argument reaches an
    /// entry another one added. Updates stay inside their entries and additions go
    /// between entries, so they are made apart, each where it would have gone: the
    /// updates, then the additions. One thing an update can see of the additions made
    /// before it (in argument order): new entries right after its entry, when it has a
    /// blank line that makes removing its last field look at the line after it; those
    /// additions are made first.
    fn set_images_at_once(&mut self, wanted: &[ImageArg]) -> Result<()> {
        if wanted.is_empty() {
            return Ok(());
        }
        let path = top("images");
        let images = self
            .doc()
            .get(&path)
            .and_then(Node::as_seq)
            .cloned()
            .unwrap_or_default();
        let mut first: HashMap<&str, usize> = HashMap::with_capacity(images.len());
        for (i, image) in images.iter().enumerate() {
            if let Some(name) = image.get("name").and_then(Node::as_str) {
                first.entry(name).or_insert(i);
            }
        }
        let landing = self.image_landing();
        // The entries whose update sees what was added right after them, with the
        // argument that updates them.
        let mut watched: HashMap<usize, usize> = HashMap::new();
        for (order, arg) in wanted.iter().enumerate() {
            if let Some(&i) = first.get(arg.name.as_str())
                && self.doc().item_sees_next_line(&path, i)
            {
                watched.insert(i + 1, order);
            }
        }
        let mut early: Vec<&ImageArg> = Vec::new();
        let mut late: Vec<&ImageArg> = Vec::new();
        for (order, arg) in wanted.iter().enumerate() {
            if first.contains_key(arg.name.as_str()) {
                continue;
            }
            let seen = watched
                .get(&landing(&arg.name))
                .is_some_and(|&update| order < update);
            if seen { &mut early } else { &mut late }.push(arg);
        }
        self.add_images(early)?;
        let mut updates: Vec<(usize, ItemEdit<'_>)> = Vec::new();
        let images = self
            .doc()
            .get(&path)
            .and_then(Node::as_seq)
            .cloned()
            .unwrap_or_default();
        let mut first: HashMap<&str, usize> = HashMap::with_capacity(images.len());
        for (i, image) in images.iter().enumerate() {
            if let Some(name) = image.get("name").and_then(Node::as_str) {
                first.entry(name).or_insert(i);
            }
        }
        for arg in wanted {
            if let Some(&i) = first.get(arg.name.as_str()) {
                updates.push((i, Box::new(move |doc, at| update_image(doc, at, arg))));
            }
        }
        self.doc_mut().edit_items(&path, updates)?;
        self.add_images(late)
    }

    /// Where a new `images` entry of a name lands: before the entry of this index (the
    /// length for the end), as the list stands.
    fn image_landing(&self) -> impl Fn(&str) -> usize + use<> {
        let names = self.image_names();
        let sorted = names.windows(2).all(|w| w[0] <= w[1]);
        move |name: &str| match sorted {
            true => names.partition_point(|n| n.as_str() <= name),
            false => names.len(),
        }
    }

    /// Adds new `images` entries (in argument order) to a block list with entries, each
    /// where it would have gone one after the other: where kustomize's sort by name puts
    /// it when the list is sorted, else at the end; those that land before one entry go
    /// there together in their sorted order.
    fn add_images(&mut self, added: Vec<&ImageArg>) -> Result<()> {
        if added.is_empty() {
            return Ok(());
        }
        let names = self.image_names();
        if !names.windows(2).all(|w| w[0] <= w[1]) {
            let entries: Vec<Node> = added.into_iter().map(new_image).collect();
            return self.append_all("images", &entries);
        }
        let landing = self.image_landing();
        let mut groups: BTreeMap<usize, Vec<&ImageArg>> = BTreeMap::new();
        for arg in added {
            groups.entry(landing(&arg.name)).or_default().push(arg);
        }
        let groups: Vec<(usize, Vec<Node>)> = groups
            .into_iter()
            .map(|(at, mut group)| {
                group.sort_by(|a, b| a.name.cmp(&b.name));
                (at, group.into_iter().map(new_image).collect())
            })
            .collect();
        self.doc_mut().insert_items_before(&top("images"), &groups)
    }

    /// The `name` of each `images` entry (empty when it has none).
    fn image_names(&self) -> Vec<String> {
        self.doc()
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
            .unwrap_or_default()
    }

    /// A new `images` entry goes where kustomize's sort by name puts it when the list is
    /// sorted already, else at the end.
    fn append_sorted_image(&mut self, entry: &Node, name: &str) -> Result<()> {
        let names = self.image_names();
        let sorted = names.windows(2).all(|w| w[0] <= w[1]);
        match names.iter().position(|n| n.as_str() > name) {
            Some(at) if sorted => self.doc_mut().insert_item(&top("images"), at, entry),
            _ => self.append("images", entry),
        }
    }

    /// `edit set replicas NAME=COUNT…`: sets the count of the `replicas` entry with
    /// that name, or adds one; all in one edit of the text.
    pub fn set_replicas(&mut self, args: &[String]) -> Result<()> {
        if args.is_empty() {
            return Err(edit_error("no replicas specified"));
        }
        let mut parsed: Vec<(String, i64)> = Vec::with_capacity(args.len());
        for arg in args {
            let one = match arg.split('=').collect::<Vec<_>>().as_slice() {
                [name, count] => count.parse::<i64>().ok().map(|c| (name.to_string(), c)),
                _ => None,
            };
            let Some(one) = one else {
                return Err(edit_error(
                    "invalid format of replica, use the following format: <name>=<count>",
                ));
            };
            parsed.push(one);
        }
        let wanted = last_of_each(parsed, |(name, _)| name.clone());
        let list = self
            .doc()
            .get(&top("replicas"))
            .and_then(Node::as_seq)
            .cloned()
            .unwrap_or_default();
        let mut first: HashMap<&str, usize> = HashMap::with_capacity(list.len());
        for (i, r) in list.iter().enumerate() {
            if let Some(name) = r.get("name").and_then(Node::as_str) {
                first.entry(name).or_insert(i);
            }
        }
        let mut updates: Vec<(usize, ItemEdit<'_>)> = Vec::new();
        let mut added = Vec::new();
        for (name, count) in wanted {
            match first.get(name.as_str()) {
                Some(&i) => {
                    if list[i].get("count") != Some(&Node::Int(count)) {
                        updates.push((
                            i,
                            Box::new(move |doc, at| {
                                let mut path = at.to_vec();
                                path.push(Step::key("count"));
                                doc.set(&path, &Node::Int(count))
                            }),
                        ));
                    }
                }
                None => {
                    let mut entry = Map::new();
                    entry.insert("name", Node::text(name.as_str()));
                    entry.insert("count", Node::Int(count));
                    added.push(Node::Map(entry));
                }
            }
        }
        self.doc_mut().edit_items(&top("replicas"), updates)?;
        self.append_all("replicas", &added)
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

/// A new `images` entry for an argument.
fn new_image(arg: &ImageArg) -> Node {
    let mut entry = Map::new();
    entry.insert("name", Node::text(arg.name.as_str()));
    for (field, value) in image_fields(arg) {
        // `*` with nothing to keep sets nothing.
        if !value.is_empty() && value != PRESERVE {
            entry.insert(field, Node::text(value));
        }
    }
    Node::Map(entry)
}

/// kustomize replaces the whole entry (the item at `at`): fields the argument does not
/// give go (a `tagSuffix` too); `*` keeps the entry's value.
fn update_image(doc: &mut Document, at: &[Step], arg: &ImageArg) -> Result<()> {
    let field_at = |field: &str| {
        let mut path = at.to_vec();
        path.push(Step::key(field));
        path
    };
    let entry = doc.get(at).cloned().unwrap_or_default();
    for (field, value) in image_fields(arg) {
        if value == PRESERVE {
            continue;
        }
        if value.is_empty() {
            if entry.get(field).is_some() {
                doc.remove(&field_at(field))?;
            }
        } else if entry.get(field).and_then(Node::as_str) != Some(value) {
            doc.set(&field_at(field), &Node::text(value))?;
        }
    }
    let keep = ["name", "newName", "newTag", "digest"];
    if let Some(map) = entry.as_map() {
        for key in map.keys() {
            if !keep.contains(&key.as_str()) {
                doc.remove(&field_at(key))?;
            }
        }
    }
    Ok(())
}

/// The last of each key, in the order of those last ones: what keeping a list and
/// dropping the earlier entry of a key on each repeat gives.
fn last_of_each<T>(items: Vec<T>, key: impl Fn(&T) -> String) -> Vec<T> {
    let mut last = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        last.insert(key(item), i);
    }
    items
        .into_iter()
        .enumerate()
        .filter(|(i, item)| last.get(&key(item)) == Some(i))
        .map(|(_, item)| item)
        .collect()
}

fn image_fields(arg: &ImageArg) -> [(&'static str, &str); 3] {
    [
        ("newName", arg.new_name.as_str()),
        ("newTag", arg.new_tag.as_str()),
        ("digest", arg.digest.as_str()),
    ]
}

#[cfg(test)]
#[path = "set_tests.rs"]
mod tests;
