//! The edits made all at once (`batch.rs`) give the text the same edits one by one give,
//! on random kustomization files: block and flow lists, both list indentations, comments
//! and blank lines between entries, quoted keys, block scalars, entries on a list item's
//! dash line, CRLF line breaks, a missing final line break.

use super::batch::ONE_BY_ONE;
use super::*;
use crate::edit::KustomizationFile;
use crate::yaml::Map;

pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    pub(crate) fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.next(one_in) == 0
    }
}

/// Lines between entries: nothing, a comment, a blank line.
fn between(rng: &mut Lcg, indent: &str, out: &mut String) {
    match rng.next(6) {
        0 => out.push_str(&format!("{indent}# note\n")),
        1 => out.push('\n'),
        2 => out.push_str("\n\n"),
        _ => {}
    }
}

/// A kustomization file with lists, mappings and `images` written in many ways.
pub(crate) fn random_file(rng: &mut Lcg) -> String {
    let offset = if rng.chance(2) { "  " } else { "" };
    let mut sections = vec![resources(rng, offset), labels(rng), images(rng, offset)];
    // Any section may come last, at the end of the file.
    let last = sections.len() - 1;
    sections.swap(rng.next(3) as usize, last);
    let mut out = String::new();
    if rng.chance(3) {
        out.push_str("# header\n");
    }
    for section in sections {
        out.push_str(&section);
        between(rng, "", &mut out);
    }
    if rng.chance(3) {
        out.push_str("namePrefix: p-\n");
    }
    if rng.chance(4) {
        out = out.replace('\n', "\r\n");
    }
    if rng.chance(4) {
        while out.ends_with('\n') || out.ends_with('\r') {
            out.pop();
        }
    }
    out
}

/// `resources`: a block list (or a flow one).
fn resources(rng: &mut Lcg, offset: &str) -> String {
    if rng.chance(6) {
        let items: Vec<String> = (0..rng.next(6)).map(|i| format!("r{i}.yaml")).collect();
        return format!("resources: [{}]\n", items.join(", "));
    }
    let mut out = String::from("resources:\n");
    for i in 0..rng.next(9) {
        between(rng, offset, &mut out);
        match rng.next(8) {
            0 => out.push_str(&format!("{offset}- 'r{i}.yaml'\n")),
            1 => out.push_str(&format!("{offset}- r{i}.yaml # about r{i}\n")),
            2 => out.push_str(&format!("{offset}- |\n{offset}  r{i}\n{offset}  more\n")),
            _ => out.push_str(&format!("{offset}- r{i}.yaml\n")),
        }
    }
    out
}

/// `commonLabels`: a block mapping (or a flow one).
fn labels(rng: &mut Lcg) -> String {
    if rng.chance(6) {
        return "commonLabels: {k0: v0, k1: v1}\n".to_string();
    }
    let mut out = String::from("commonLabels:\n");
    for i in 0..rng.next(8) {
        between(rng, "  ", &mut out);
        match rng.next(7) {
            0 => out.push_str(&format!("  \"k{i}\": v{i}\n")),
            1 => out.push_str(&format!("  k{i}:\n")),
            2 => out.push_str(&format!("  k{i}: |\n    v{i}\n    w\n")),
            3 => out.push_str(&format!("  k{i}: v{i} # c\n")),
            4 => out.push_str(&format!("  k{i}:\n    nested: x\n")),
            _ => out.push_str(&format!("  k{i}: v{i}\n")),
        }
    }
    out
}

/// `images`: entries with their fields in various orders, blank lines among them.
fn images(rng: &mut Lcg, offset: &str) -> String {
    let mut out = String::from("images:\n");
    let mut names: Vec<String> = (0..rng.next(7)).map(|i| format!("n{}", i * 2)).collect();
    if rng.chance(3) {
        names.reverse();
    }
    for name in &names {
        between(rng, offset, &mut out);
        let gap = if rng.chance(4) { "\n" } else { "" };
        match rng.next(5) {
            0 => out.push_str(&format!(
                "{offset}- newTag: t\n{gap}{offset}  name: {name}\n{offset}  digest: d\n"
            )),
            1 => out.push_str(&format!(
                "{offset}- name: {name}\n{offset}  newName: x\n{gap}{offset}  tagSuffix: s\n"
            )),
            2 => out.push_str(&format!("{offset}- {{name: {name}, newTag: t}}\n")),
            _ => out.push_str(&format!(
                "{offset}- name: {name}\n{gap}{offset}  newTag: t\n"
            )),
        }
    }
    out
}

fn scalar(rng: &mut Lcg) -> Node {
    match rng.next(6) {
        0 => Node::text("yes"),
        1 => Node::text("two\nlines"),
        2 => Node::Int(3),
        _ => Node::text(format!("x{}", rng.next(9))),
    }
}

fn value(rng: &mut Lcg) -> Node {
    match rng.next(5) {
        0 => {
            let mut m = Map::new();
            m.insert("path", scalar(rng));
            if rng.chance(2) {
                let mut t = Map::new();
                t.insert("kind", Node::text("K"));
                m.insert("target", Node::Map(t));
            }
            Node::Map(m)
        }
        1 => Node::Seq(vec![scalar(rng)]),
        _ => scalar(rng),
    }
}

/// A random batch edit of the file.
/// An edit of a document.
type Edit = Box<dyn Fn(&mut Document) -> Result<()>>;

/// A command on a kustomization file.
type Command<'a> = Box<dyn Fn(&mut KustomizationFile) -> Result<()> + 'a>;

fn edit(rng: &mut Lcg, doc: &Document) -> Edit {
    let key = |s: &str| vec![Step::key(s)];
    let len = |path: &[Step]| doc.get(path).and_then(Node::as_seq).map_or(0, Vec::len);
    match rng.next(6) {
        0 => {
            let n = len(&key("resources"));
            let doomed: Vec<usize> = (0..n).filter(|_| rng.chance(2)).collect();
            Box::new(move |d| d.remove_items(&key("resources"), &doomed))
        }
        1 => {
            let items: Vec<Node> = (0..1 + rng.next(4)).map(|_| value(rng)).collect();
            let field = if rng.chance(2) { "resources" } else { "images" };
            Box::new(move |d| d.append_items(&key(field), &items))
        }
        2 => {
            let n = len(&key("resources"));
            let mut values: Vec<(usize, Node)> = Vec::new();
            for i in 0..n {
                if rng.chance(2) {
                    values.push((i, value(rng)));
                }
            }
            Box::new(move |d| d.set_items(&key("resources"), &values))
        }
        3 => {
            let keys: Vec<String> = (0..rng.next(8))
                .map(|_| format!("k{}", rng.next(9)))
                .collect();
            Box::new(move |d| {
                let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                d.remove_entries(&key("commonLabels"), &keys)
            })
        }
        4 => {
            let mut seen = std::collections::HashSet::new();
            let pairs: Vec<(String, Node)> = (0..rng.next(6))
                .map(|_| (format!("k{}", rng.next(10)), scalar(rng)))
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect();
            Box::new(move |d| {
                let pairs: Vec<(&str, Node)> =
                    pairs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                d.set_entries(&key("commonLabels"), &pairs)
            })
        }
        _ => {
            // Item edits as `set image` makes them: fields set and removed.
            let n = len(&key("images"));
            let mut picks: Vec<(usize, u64)> = Vec::new();
            for i in 0..n {
                if rng.chance(2) {
                    picks.push((i, rng.next(4)));
                }
            }
            Box::new(move |d| {
                let edits: Vec<(usize, ItemEdit<'_>)> = picks
                    .iter()
                    .map(|&(i, how)| {
                        let edit: ItemEdit<'_> =
                            Box::new(move |doc: &mut Document, at: &[Step]| {
                                let field = |f: &str| {
                                    let mut p = at.to_vec();
                                    p.push(Step::key(f));
                                    p
                                };
                                match how {
                                    0 => doc.set(&field("newTag"), &Node::text("v2")),
                                    1 => doc.remove(&field("newTag")),
                                    2 => doc.remove(&field("name")),
                                    _ => {
                                        doc.set(&field("digest"), &Node::text("sha"))?;
                                        doc.remove(&field("tagSuffix"))
                                    }
                                }
                            });
                        (i, edit)
                    })
                    .collect();
                d.edit_items(&key("images"), edits)
            })
        }
    }
}

fn run(text: &str, edit: &dyn Fn(&mut Document) -> Result<()>, one_by_one: bool) -> String {
    ONE_BY_ONE.with(|f| f.set(one_by_one));
    let mut d = Document::parse(text.to_string(), "kustomization.yaml").expect("parses");
    let result = edit(&mut d).map(|()| d.text().to_string());
    ONE_BY_ONE.with(|f| f.set(false));
    format!("{:?}", result.map_err(|e| e.to_string()))
}

#[test]
fn edits_at_once_give_the_text_of_edits_one_by_one() {
    let mut rng = Lcg(11);
    let mut changed = 0;
    for round in 0..4_000 {
        let text = random_file(&mut rng);
        let d = Document::parse(text.clone(), "kustomization.yaml").expect("parses");
        let edit = edit(&mut rng, &d);
        let (batch, single) = (run(&text, &*edit, false), run(&text, &*edit, true));
        assert_eq!(batch, single, "round {round}:\n{text}");
        changed += usize::from(batch != format!("{:?}", Ok::<_, String>(text)));
    }
    assert!(changed > 2_000, "{changed} edits changed the file");
}

thread_local! {
    /// How many bytes of documents were parsed on this thread: the tests bound the work
    /// of an edit by this count (an edit parses the text it leaves) instead of timing it.
    pub(crate) static PARSED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many times its own length a command parses of a kustomization file, in a fresh
/// directory (with the files `add resource` checks), at once or one edit at a time; and
/// the text it leaves.
fn parses(
    text: &str,
    files: &[String],
    one_by_one: bool,
    command: impl Fn(&mut KustomizationFile) -> Result<()>,
) -> (u64, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("kustomization.yaml"), text).expect("write");
    for f in files {
        std::fs::write(dir.path().join(f), "").expect("write");
    }
    let mut file = KustomizationFile::open(dir.path()).expect("opens");
    ONE_BY_ONE.with(|f| f.set(one_by_one));
    PARSED.with(|c| c.set(0));
    let result = command(&mut file);
    let bytes = PARSED.with(|c| c.get());
    ONE_BY_ONE.with(|f| f.set(false));
    result.expect("edits");
    (bytes / text.len() as u64, file.doc().text().to_string())
}

/// `edit remove resource`, `add resource`, `set|remove label`, `set image`, `set
/// replicas`, `fix` and `set configmap --from-literal` on lists of 200 entries parse a
/// few times the file's length, not once per entry: `edit remove resource` of 11,000 of
/// 20,000 entries took more than a minute when each removal parsed the file again.
/// Counted, not timed; one edit at a time (the code before), the same commands parse
/// the file about once per entry, and give the same text.
#[test]
fn commands_on_long_lists_parse_the_file_a_few_times() {
    let n = 200;
    let list = |field: &str, item: &dyn Fn(usize) -> String| {
        let mut s = format!("{field}:\n");
        for i in 0..n {
            s.push_str(&item(i));
        }
        s
    };
    let resources = list("resources", &|i| {
        format!("- {}-{i}.yaml\n", if i % 2 == 0 { "drop" } else { "keep" })
    });
    let labels = list("commonLabels", &|i| format!("  k{i}: v{i}\n"));
    let images = list("images", &|i| {
        format!("- name: img{:05}\n  newTag: \"1\"\n", i * 2)
    });
    let replicas = list("replicas", &|i| format!("- name: d{i}\n  count: 1\n"));
    let strategic = list("patchesStrategicMerge", &|i| format!("- p{i}.yaml\n"));
    let literals = format!(
        "configMapGenerator:\n- name: c\n  literals:\n{}",
        (0..n).map(|i| format!("  - k{i}=v\n")).collect::<String>()
    );
    let new_files: Vec<String> = (0..n).map(|i| format!("new-{i}.yaml")).collect();
    let args = |f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<String>>();
    let keys = args(&|i| format!("k{i}")).join(",");
    let cases: Vec<(&str, String, Command<'_>)> = vec![
        (
            "remove resource",
            resources.clone(),
            Box::new(|f| f.remove_listed("resources", &["drop-*.yaml".to_string()])),
        ),
        (
            "add resource",
            resources.clone(),
            Box::new(|f| f.add_resources(&new_files, false)),
        ),
        (
            "set label",
            labels.clone(),
            Box::new(|f| {
                f.set_metadata(
                    crate::edit::Metadata::Label,
                    &args(&|i| format!("k{}:w", 2 * i)),
                )
            }),
        ),
        (
            "remove label",
            labels.clone(),
            Box::new(|f| {
                f.remove_metadata(
                    crate::edit::Metadata::Label,
                    std::slice::from_ref(&keys),
                    true,
                )
            }),
        ),
        (
            "set image",
            images.clone(),
            Box::new(|f| f.set_images(&args(&|i| format!("img{i:05}:2")))),
        ),
        (
            "set replicas",
            replicas.clone(),
            Box::new(|f| f.set_replicas(&args(&|i| format!("d{}=3", 2 * i)))),
        ),
        (
            "fix",
            strategic.clone(),
            Box::new(|f| f.fix(false).map(drop)),
        ),
        (
            "set configmap",
            literals.clone(),
            Box::new(|f| {
                let flags = crate::edit::GeneratorFlags {
                    from_literal: args(&|i| format!("k{i}=w")),
                    ..Default::default()
                };
                f.set_generator(
                    crate::edit::Generator::ConfigMap,
                    &["c".to_string()],
                    &flags,
                )
            }),
        ),
    ];
    for (name, text, command) in cases {
        let (at_once, batch_text) = parses(&text, &new_files, false, &command);
        let (one_by_one, single_text) = parses(&text, &new_files, true, &command);
        assert!(at_once <= 10, "{name}: {at_once} times the file parsed");
        assert!(
            one_by_one >= 50,
            "{name}: {one_by_one} times the file parsed one by one"
        );
        assert_eq!(batch_text, single_text, "{name}");
    }
}

/// `edit fix` of a flow list of strategic merge patches writes `patches` as a block list
/// (each item becomes a mapping; before, splicing a mapping into the flow list failed with
/// "could not edit this file in place").
#[test]
fn fix_rewrites_a_flow_list_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("kustomization.yaml"),
        "patchesStrategicMerge: [a.yaml, b.yaml]\n",
    )
    .expect("write");
    for f in ["a.yaml", "b.yaml"] {
        std::fs::write(
            dir.path().join(f),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
        )
        .expect("write");
    }
    let mut file = KustomizationFile::open(dir.path()).expect("opens");
    file.fix(false).expect("fixes");
    assert_eq!(
        file.doc().text(),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\npatches:\n- path: a.yaml\n- path: b.yaml\n"
    );
}
