//! The in-place editor on the shapes kustomization files take.

use super::*;

fn doc(text: &str) -> Document {
    Document::parse(text.to_string(), "kustomization.yaml").unwrap()
}

fn k(s: &str) -> Step {
    Step::key(s)
}

fn seq(items: &[&str]) -> Node {
    Node::Seq(items.iter().map(|s| Node::text(*s)).collect())
}

#[test]
fn appending_to_a_block_list_keeps_comments_and_style() {
    let mut d =
        doc("# top\nresources:\n  - a.yaml # first\n  # about b\n  - b.yaml\n\nnamePrefix: p-\n");
    d.append(&[k("resources")], &Node::text("c.yaml")).unwrap();
    assert_eq!(
        d.text(),
        "# top\nresources:\n  - a.yaml # first\n  # about b\n  - b.yaml\n  - c.yaml\n\nnamePrefix: p-\n"
    );
}

#[test]
fn an_empty_list_is_written_again_as_a_block() {
    // A non-empty flow list keeps its style: see a_flow_list_stays_a_flow_list.
    for before in ["resources: []\n", "resources:\n"] {
        let mut d = doc(before);
        d.append(&[k("resources")], &Node::text("b.yaml")).unwrap();
        let expected = "resources:\n- b.yaml\n";
        assert_eq!(d.text(), expected, "from {before:?}");
    }
}

#[test]
fn a_scalar_is_replaced_in_place_with_its_comment() {
    let mut d = doc("namePrefix: old- # keep me\nnamespace: 'a'\n");
    d.set(&[k("namePrefix")], &Node::text("new-")).unwrap();
    d.set(&[k("namespace")], &Node::text("yes")).unwrap();
    assert_eq!(d.text(), "namePrefix: new- # keep me\nnamespace: \"yes\"\n");
}

#[test]
fn missing_mappings_are_created_on_the_way() {
    let mut d = doc("resources:\n- a.yaml\n");
    d.set(&[k("commonLabels"), k("app")], &Node::text("web"))
        .unwrap();
    d.set(&[k("commonLabels"), k("team")], &Node::text("x"))
        .unwrap();
    assert_eq!(
        d.text(),
        "resources:\n- a.yaml\ncommonLabels:\n  app: web\n  team: x\n"
    );
    let mut d = doc("commonLabels:\n");
    d.set(&[k("commonLabels"), k("app")], &Node::text("web"))
        .unwrap();
    assert_eq!(d.text(), "commonLabels:\n  app: web\n");
}

#[test]
fn an_empty_file_or_one_without_a_final_line_break_takes_new_fields() {
    let mut d = doc("");
    d.insert_entry(&[], "namespace", &Node::text("ns")).unwrap();
    assert_eq!(d.text(), "namespace: ns\n");
    let mut d = doc("# only a comment");
    d.insert_entry(&[], "namespace", &Node::text("ns")).unwrap();
    assert_eq!(d.text(), "# only a comment\nnamespace: ns\n");
    let mut d = doc("resources:\n- a.yaml");
    d.append(&[k("resources")], &Node::text("b.yaml")).unwrap();
    assert_eq!(d.text(), "resources:\n- a.yaml\n- b.yaml\n");
}

#[test]
fn removing_items_and_entries_takes_their_lines_only() {
    let mut d = doc(
        "resources:\n# a comment\n- a.yaml # about a\n- b.yaml\ncommonLabels:\n  x: y\n  z: w\n",
    );
    d.remove(&[k("resources"), Step::Index(0)]).unwrap();
    d.remove(&[k("commonLabels"), k("x")]).unwrap();
    assert_eq!(
        d.text(),
        "resources:\n# a comment\n- b.yaml\ncommonLabels:\n  z: w\n"
    );
    d.remove(&[k("commonLabels")]).unwrap();
    assert_eq!(d.text(), "resources:\n# a comment\n- b.yaml\n");
}

#[test]
fn list_items_that_are_mappings_are_edited_field_by_field() {
    let mut d = doc("images:\n- name: nginx # pinned\n  newTag: \"1.0\"\n- name: redis\n");
    let tag = [k("images"), Step::Index(0), k("newTag")];
    d.set(&tag, &Node::text("2.0")).unwrap();
    d.set(
        &[k("images"), Step::Index(1), k("newName")],
        &Node::text("valkey"),
    )
    .unwrap();
    assert_eq!(
        d.text(),
        "images:\n- name: nginx # pinned\n  newTag: \"2.0\"\n- name: redis\n  newName: valkey\n"
    );
    d.remove(&tag).unwrap();
    assert_eq!(
        d.text(),
        "images:\n- name: nginx # pinned\n- name: redis\n  newName: valkey\n"
    );
    // The entry on the dash's line: the item is written again without it.
    d.remove(&[k("images"), Step::Index(1), k("name")]).unwrap();
    assert_eq!(
        d.text(),
        "images:\n- name: nginx # pinned\n- newName: valkey\n"
    );
}

#[test]
fn a_new_field_goes_before_the_comment_of_the_field_it_precedes() {
    let mut d =
        doc("resources:\n- a.yaml\n\n# images pinned by CI\nimages:\n- name: x\n  newTag: v1\n");
    d.insert_entry_before(&[], "namespace", &Node::text("prod"), "images")
        .unwrap();
    assert_eq!(
        d.text(),
        "resources:\n- a.yaml\n\nnamespace: prod\n# images pinned by CI\nimages:\n- name: x\n  newTag: v1\n"
    );
}

#[test]
fn crlf_files_stay_crlf() {
    let mut d = doc("resources:\r\n- a.yaml\r\n");
    d.append(&[k("resources")], &Node::text("b.yaml")).unwrap();
    d.insert_entry(&[], "namePrefix", &Node::text("p-"))
        .unwrap();
    assert_eq!(
        d.text(),
        "resources:\r\n- a.yaml\r\n- b.yaml\r\nnamePrefix: p-\r\n"
    );
}

#[test]
fn non_ascii_text_and_quoted_keys_are_found() {
    let mut d = doc("# Überblick — été\n\"namePrefix\": ä-\nresources:\n- ü.yaml\n");
    d.set(&[k("namePrefix")], &Node::text("b-")).unwrap();
    d.append(&[k("resources")], &Node::text("é.yaml")).unwrap();
    assert_eq!(
        d.text(),
        "# Überblick — été\n\"namePrefix\": b-\nresources:\n- ü.yaml\n- é.yaml\n"
    );
}

#[test]
fn block_scalars_and_nested_lists_keep_their_place() {
    let mut d = doc(
        "patches:\n- patch: |-\n    - op: add\n      path: /x\n  target:\n    kind: Deployment\n",
    );
    let mut entry = crate::yaml::Map::new();
    entry.insert("path", Node::text("p.yaml"));
    d.append(&[k("patches")], &Node::Map(entry)).unwrap();
    assert_eq!(
        d.text(),
        "patches:\n- patch: |-\n    - op: add\n      path: /x\n  target:\n    kind: Deployment\n- path: p.yaml\n"
    );
    let mut d = doc("namePrefix: |-\n  a\nresources:\n- x\n");
    d.set(&[k("namePrefix")], &Node::text("b")).unwrap();
    assert_eq!(d.text(), "namePrefix: b\nresources:\n- x\n");
}

#[test]
fn a_whole_list_is_replaced_in_the_file_style() {
    let mut d = doc("buildMetadata:\n    - originAnnotations # why\nnamespace: x\n");
    d.set(
        &[k("buildMetadata")],
        &seq(&["managedByLabel", "originAnnotations"]),
    )
    .unwrap();
    assert_eq!(
        d.text(),
        "buildMetadata:\n    - managedByLabel\n    - originAnnotations # why\nnamespace: x\n"
    );
}

#[test]
fn a_collection_ending_in_an_empty_value_is_replaced_whole() {
    // Found by the edit_document fuzz target: the empty value's span sits before the
    // key's colon, which was left behind.
    let mut d = doc("patches:\n- path: a\n  target:\n    kind:\nnamePrefix: p-\n");
    d.set(&[k("patches")], &seq(&["a\nb"])).unwrap();
    assert_eq!(d.text(), "patches:\n- |-\n  a\n  b\nnamePrefix: p-\n");
    assert_eq!(d.get(&[k("patches")]), Some(&seq(&["a\nb"])));
}

#[test]
fn a_renamed_key_keeps_its_value_and_comments() {
    let mut d = doc("# above\nbases:   # on the key\n  - a  # on the item\nx: 1\n");
    d.rename_key(&[], "bases", "resources").unwrap();
    assert_eq!(
        d.text(),
        "# above\nresources:   # on the key\n  - a  # on the item\nx: 1\n"
    );
    d.rename_key(&[], "missing", "other").unwrap();
    assert_eq!(
        d.get(&[Step::key("resources"), Step::Index(0)]),
        Some(&Node::text("a"))
    );
}

#[test]
fn a_flow_list_stays_a_flow_list() {
    let mut d = doc("resources: [a.yaml, \"b.yaml\"]  # both\n");
    d.append(&[Step::key("resources")], &Node::text("c.yaml"))
        .unwrap();
    d.insert_item(&[Step::key("resources")], 0, &Node::text("0.yaml"))
        .unwrap();
    assert_eq!(
        d.text(),
        "resources: [0.yaml, a.yaml, \"b.yaml\", c.yaml]  # both\n"
    );
    // An item a flow list cannot hold plainly: the list is written again.
    d.append(&[Step::key("resources")], &Node::text("d, e"))
        .unwrap();
    assert_eq!(
        d.text(),
        "resources:\n- 0.yaml\n- a.yaml\n- b.yaml\n- c.yaml\n- d, e  # both\n"
    );
}

#[test]
fn a_flow_collection_ends_at_its_closing_bracket() {
    let text = "k: [a, 'b]''', \"c]\", don't, {x: y}] # ] }\n";
    let start = text.find('[').unwrap();
    assert_eq!(flow_end(text, start), text.find(" #"));
    assert_eq!(flow_end("[a, # ]\n b]", 0), Some(11));
    assert_eq!(flow_end("[a", 0), None);
}

#[test]
fn a_block_scalar_item_is_replaced_whole() {
    let mut d = doc("l:\n- |-\n  text\n  more\n- b\n");
    let mut entry = crate::yaml::Map::new();
    entry.insert("patch", Node::text("text\nmore"));
    d.set(&[Step::key("l"), Step::Index(0)], &Node::Map(entry))
        .unwrap();
    assert_eq!(d.text(), "l:\n- patch: |-\n    text\n    more\n- b\n");
}

#[test]
fn removing_a_field_between_blank_lines_leaves_one() {
    let mut d = doc("a: 1\n\nb: 2\n\nc: 3\n");
    d.remove(&[Step::key("b")]).unwrap();
    assert_eq!(d.text(), "a: 1\n\nc: 3\n");
    d.remove(&[Step::key("c")]).unwrap();
    assert_eq!(d.text(), "a: 1\n");
}

#[test]
fn a_field_added_first_goes_below_the_file_header() {
    let mut d = doc("# header\nresources:\n- a\n");
    d.insert_entry_before(&[], "kind", &Node::text("Kustomization"), "resources")
        .unwrap();
    assert_eq!(d.text(), "# header\nkind: Kustomization\nresources:\n- a\n");
    let mut d = doc("a: 1\n# about b\nb: 2\n");
    d.insert_entry_before(&[], "x", &Node::Int(0), "b").unwrap();
    assert_eq!(d.text(), "a: 1\nx: 0\n# about b\nb: 2\n");
}

#[test]
fn indented_lines_added_at_the_end_of_a_file_without_a_final_line_break() {
    let mut d = doc("resources:\n  - a.yaml");
    d.append(&[k("resources")], &Node::text("b.yaml")).unwrap();
    assert_eq!(d.text(), "resources:\n  - a.yaml\n  - b.yaml\n");
    let mut d = doc("commonLabels:\n  a: b");
    d.set(&[k("commonLabels"), k("c")], &Node::text("d"))
        .unwrap();
    assert_eq!(d.text(), "commonLabels:\n  a: b\n  c: d\n");
}
