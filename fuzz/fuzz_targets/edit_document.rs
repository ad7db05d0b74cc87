//! The in-place kustomization editor: any text either fails to parse or takes a series of
//! edits (set, append, insert, remove at several depths) without panicking, and every
//! edit that succeeds leaves text that parses to the value it was asked to hold.

#![no_main]

use kbuild::edit::{Document, Step};
use kbuild::yaml::Node;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(mut doc) = Document::parse(text.to_string(), "kustomization.yaml") else { return };
    let k = |s: &str| Step::key(s);
    let edits: [(&[Step], Option<Node>); 6] = [
        (&[k("namePrefix")], Some(Node::text("p-"))),
        (&[k("commonLabels"), k("app")], Some(Node::text("yes"))),
        (&[k("resources"), Step::Index(0)], None),
        (&[k("images"), Step::Index(0), k("newTag")], Some(Node::text("1.0"))),
        (&[k("labels")], None),
        (&[k("patches")], Some(Node::Seq(vec![Node::text("a\nb")]))),
    ];
    for (path, value) in edits {
        let done = match &value {
            Some(v) => doc.set(path, v).map(|()| true),
            None => doc.remove(path).map(|()| false),
        };
        if let Ok(true) = done {
            if let Some(v) = &value {
                assert_eq!(doc.get(path), Some(v), "set did not hold:\n{}", doc.text());
            }
        }
    }
    let _ = doc.append(&[k("resources")], &Node::text("x.yaml"));
    let _ = doc.insert_item(&[k("resources")], 0, &Node::text("y.yaml"));
});
