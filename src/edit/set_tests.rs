//! `edit set image` with many arguments, at once as one by one.

use super::*;
use crate::edit::document::batch_tests::{Lcg, random_file};
use crate::edit::{ImageArg, KustomizationFile};

/// `set image` as it was: each argument in turn, its entry found by a scan, a new one
/// inserted where the sorted list puts it at that moment.
fn set_images_one_by_one(file: &mut KustomizationFile, args: &[String]) -> Result<()> {
    let mut wanted: Vec<ImageArg> = Vec::new();
    for arg in args {
        let parsed = ImageArg::parse(arg)?;
        wanted.retain(|w| w.name != parsed.name);
        wanted.push(parsed);
    }
    for arg in wanted {
        let images = file
            .doc()
            .get(&top("images"))
            .and_then(Node::as_seq)
            .cloned();
        let index = images.as_ref().and_then(|list| {
            list.iter()
                .position(|i| i.get("name").and_then(Node::as_str) == Some(&arg.name))
        });
        match index {
            Some(i) => update_image(file.doc_mut(), &[Step::key("images"), Step::Index(i)], &arg)?,
            None => {
                let mut entry = Map::new();
                entry.insert("name", Node::text(arg.name.as_str()));
                for (field, value) in image_fields(&arg) {
                    if !value.is_empty() && value != PRESERVE {
                        entry.insert(field, Node::text(value));
                    }
                }
                file.append_sorted_image(&Node::Map(entry), &arg.name)?;
            }
        }
    }
    Ok(())
}

/// `edit set image` updates the entries it names and inserts each new image where the
/// sorted list puts it, one argument after the other; at once, the updates go first and
/// the new entries that land before one entry go there together in sorted order. The
/// text is the same, on random files (lists sorted or not, comments, flow entries).
#[test]
fn images_set_at_once_as_one_by_one() {
    let mut rng = Lcg(3);
    for round in 0..500 {
        let text = random_file(&mut rng);
        let args: Vec<String> = (0..1 + rng.next(6))
            .map(|_| match rng.next(5) {
                0 => format!("n{}=other:{}", rng.next(14), rng.next(3)),
                1 => format!("n{}@sha256:{}", rng.next(14), rng.next(3)),
                2 => format!("n{}=*:*", rng.next(14)),
                _ => format!("n{}:{}", rng.next(14), rng.next(3)),
            })
            .collect();
        let dir = tempfile::tempdir().expect("tempdir");
        let open = |text: &str| {
            std::fs::write(dir.path().join("kustomization.yaml"), text).expect("write");
            KustomizationFile::open(dir.path())
        };
        let Ok(mut batch) = open(&text) else {
            continue;
        };
        let at_once = batch
            .set_images(&args)
            .map(|()| batch.doc().text().to_string());
        let mut single = open(&text).expect("opens");
        let one_by_one =
            set_images_one_by_one(&mut single, &args).map(|()| single.doc().text().to_string());
        assert_eq!(
            format!("{:?}", at_once.map_err(|e| e.to_string())),
            format!("{:?}", one_by_one.map_err(|e| e.to_string())),
            "round {round}: {args:?}\n{text}"
        );
    }
}
