//! The indexed list merges give exactly what the scans they replaced gave
//! (`strategic/quadratic.rs`), on random small objects and patches: duplicate merge keys,
//! missing keys, keys that are null, numbers equal across integer and float (and integers
//! beyond 2^53, which round to one float), NaN, mapping-valued keys, every directive.

use super::quadratic::force;
use super::*;
use crate::yaml::Map;

/// An object type of the test schema.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Object {
    Root,
    Item,
    Retained,
}

/// A position in the test schema.
#[derive(Clone, Copy, Debug)]
struct Schema {
    object: Option<Object>,
    strategy: Strategy,
    key: Option<&'static str>,
    items: Option<Object>,
}

const MERGE: Strategy = Strategy {
    merge: true,
    replace: false,
    retain_keys: false,
};

impl Schema {
    fn object(object: Object) -> Schema {
        Schema {
            object: Some(object),
            strategy: Strategy::default(),
            key: None,
            items: None,
        }
    }

    fn keyed(key: &'static str, items: Object) -> Schema {
        Schema {
            object: None,
            strategy: MERGE,
            key: Some(key),
            items: Some(items),
        }
    }

    fn leaf(strategy: Strategy) -> Schema {
        Schema {
            object: None,
            strategy,
            key: None,
            items: None,
        }
    }
}

impl PatchSchema for Schema {
    fn field(&self, name: &str) -> Result<Option<Self>, Error> {
        let Some(object) = self.object else {
            return Ok(None);
        };
        Ok(Some(match (object, name) {
            (Object::Root | Object::Item, "list" | "inner") => Schema::keyed("name", Object::Item),
            (Object::Root, "ports") => Schema::keyed("port", Object::Item),
            (Object::Root | Object::Item, "prims" | "tags") => Schema::leaf(MERGE),
            (Object::Root, "plain") => Schema {
                items: Some(Object::Item),
                ..Schema::leaf(Strategy::default())
            },
            (Object::Root | Object::Item, "sub") => Schema {
                strategy: Strategy {
                    retain_keys: true,
                    ..Strategy::default()
                },
                ..Schema::object(Object::Retained)
            },
            (Object::Root, "whole") => Schema {
                strategy: Strategy {
                    replace: true,
                    ..Strategy::default()
                },
                ..Schema::object(Object::Item)
            },
            _ => Schema::leaf(Strategy::default()),
        }))
    }

    fn items(&self) -> Option<Self> {
        self.items.map(Schema::object)
    }

    fn strategy(&self) -> Strategy {
        self.strategy
    }

    fn merge_key(&self) -> Option<&str> {
        self.key
    }
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn pick<T: Clone>(&mut self, pool: &[T]) -> T {
        pool[self.next(pool.len() as u64) as usize].clone()
    }

    /// A merge key value: mostly a few names, sometimes numbers that are equal across
    /// types, null, NaN or a mapping.
    fn key(&mut self) -> Option<Node> {
        let big = 1i64 << 53;
        match self.next(20) {
            0 => None,
            1 => Some(Node::Null),
            2 => Some(Node::Int(1)),
            3 => Some(Node::Float(1.0)),
            4 => Some(self.pick(&[
                Node::Int(big + 1),
                Node::Int(big),
                Node::Float(big as f64),
                Node::Float(f64::NAN),
                Node::Float(-0.0),
                Node::Int(0),
                Node::map(),
            ])),
            5 => {
                let mut m = Map::new();
                m.insert(
                    "x",
                    self.pick(&[Node::Int(1), Node::Float(1.0), Node::text("1")]),
                );
                if self.next(3) == 0 {
                    // Merging such keys changes them (to `{}`).
                    m.insert(DIRECTIVE, Node::text("delete"));
                }
                Some(Node::Map(m))
            }
            _ => Some(Node::text(self.pick(&["a", "b", "c", "d", "e"]))),
        }
    }

    fn scalar(&mut self) -> Node {
        self.pick(&[
            Node::text("a"),
            Node::text("b"),
            Node::text("c"),
            Node::Int(1),
            Node::Float(1.0),
            Node::Bool(true),
            Node::Null,
            Node::Float(f64::NAN),
            Node::Int((1 << 53) + 1),
            Node::Float((1u64 << 53) as f64),
        ])
    }

    fn scalars(&mut self, max: u64) -> Node {
        Node::Seq((0..self.next(max)).map(|_| self.scalar()).collect())
    }

    /// A list element keyed by `key`; in a patch, sometimes a directive.
    fn item(&mut self, key: &str, depth: u32, patch: bool) -> Node {
        let mut m = Map::new();
        if patch && self.next(6) == 0 {
            let directive = self.pick(&["delete", "delete", "replace", "merge", "other"]);
            m.insert(DIRECTIVE, Node::text(directive));
        }
        if let Some(k) = self.key() {
            m.insert(key, k);
        }
        if self.next(2) == 0 {
            m.insert("v", self.scalar());
        }
        if self.next(4) == 0 {
            m.insert("w", Node::text(self.pick(&["x", "y"])));
        }
        if depth > 0 && self.next(3) == 0 {
            m.insert("inner", self.list("name", depth - 1, patch));
        }
        if self.next(4) == 0 {
            m.insert("tags", self.scalars(4));
        }
        Node::Map(m)
    }

    fn list(&mut self, key: &str, depth: u32, patch: bool) -> Node {
        Node::Seq(
            (0..self.next(7))
                .map(|_| self.item(key, depth, patch))
                .collect(),
        )
    }

    /// An object of the root type; a patch gets directives too.
    fn object(&mut self, patch: bool) -> Node {
        let mut m = Map::new();
        if self.next(5) != 0 {
            m.insert("list", self.list("name", 1, patch));
        }
        if self.next(3) == 0 {
            m.insert("ports", self.list("port", 0, patch));
        }
        if self.next(2) == 0 {
            m.insert("prims", self.scalars(7));
        }
        if self.next(4) == 0 {
            m.insert("plain", self.list("name", 0, false));
        }
        if self.next(4) == 0 {
            let mut sub = Map::new();
            for f in ["a", "b", "c"] {
                if self.next(2) == 0 {
                    sub.insert(f, self.scalar());
                }
            }
            if patch && self.next(2) == 0 {
                let keep: Vec<Node> = ["a", "b", "c"]
                    .iter()
                    .filter(|_| self.next(2) == 0)
                    .map(|f| Node::text(*f))
                    .collect();
                sub.insert(RETAIN_KEYS, Node::Seq(keep));
            }
            m.insert("sub", Node::Map(sub));
        }
        if self.next(5) == 0 {
            m.insert("s", self.scalar());
        }
        if patch {
            if self.next(3) == 0 {
                let key = self.pick(&["list", "list", "ports", "prims"]);
                let order = match key {
                    "prims" => self.scalars(7),
                    k => {
                        let field = if k == "ports" { "port" } else { "name" };
                        Node::Seq(
                            (0..self.next(7))
                                .map(|_| {
                                    if self.next(12) == 0 {
                                        return self.scalar();
                                    }
                                    let mut e = Map::new();
                                    if let Some(v) = self.key() {
                                        e.insert(field, v);
                                    }
                                    Node::Map(e)
                                })
                                .collect(),
                        )
                    }
                };
                m.insert(format!("{SET_ELEMENT_ORDER}/{key}"), order);
                if self.next(3) == 0 {
                    // An order for a list the patch does not change.
                    m.shift_remove(key);
                }
            }
            if self.next(4) == 0 {
                m.insert(
                    format!("{DELETE_FROM_PRIMITIVE_LIST}/prims"),
                    self.scalars(4),
                );
            }
            if self.next(10) == 0 {
                m.insert("gone", Node::Null);
            }
        }
        Node::Map(m)
    }
}

/// Runs `f` with the indexed code and with the quadratic one; the results (values in
/// order, or error messages) must be the same.
fn same<T: std::fmt::Debug>(what: &str, f: impl Fn() -> Result<T, Error>) {
    let run = |quadratic: bool| {
        force(quadratic);
        let result = f().map_err(|e| e.to_string());
        force(false);
        format!("{result:?}")
    };
    assert_eq!(run(false), run(true), "{what}");
}

#[test]
fn indexed_merges_agree_with_the_scans_they_replace() {
    let root = Some(Schema::object(Object::Root));
    let mut rng = Lcg(31);
    let mut errors = 0;
    for round in 0..3_000 {
        let original = rng.object(false);
        let current = rng.object(false);
        let modified = rng.object(false);
        let patch = rng.object(true);
        let case = format!("round {round}:\n{original:?}\n{current:?}\n{modified:?}\n{patch:?}");
        same(&case, || apply_patch(&current, &patch, root));
        same(&case, || create_two_way_patch(&original, &modified, root));
        same(&case, || {
            create_three_way_patch(&original, &modified, &current, root)
        });
        same(&case, || {
            three_way_conflicts(&original, &current, &patch, root)
        });
        // The patches kubectl computes, applied.
        if let Ok(p) = create_three_way_patch(&original, &modified, &current, root) {
            same(&case, || apply_patch(&current, &p, root));
        }
        errors += usize::from(apply_patch(&current, &patch, root).is_err());
    }
    // The inputs reach both outcomes.
    assert!((100..2_900).contains(&errors), "{errors} errors");
}

/// Long lists with few distinct keys (every lookup hits a bucket of duplicates) and the
/// orderings of `$setElementOrder` with elements missing from it.
#[test]
fn indexed_merges_agree_on_long_lists_of_duplicates() {
    let root = Some(Schema::object(Object::Root));
    let mut rng = Lcg(5);
    for round in 0..200 {
        let mut object = || {
            let mut m = Map::new();
            let n = 20 + rng.next(40);
            let list = (0..n).map(|_| rng.item("name", 0, false)).collect();
            m.insert("list", Node::Seq(list));
            m.insert("prims", rng.scalars(40));
            Node::Map(m)
        };
        let (original, current, modified) = (object(), object(), object());
        let case = format!("round {round}");
        same(&case, || {
            create_three_way_patch(&original, &modified, &current, root)
        });
        if let Ok(p) = create_three_way_patch(&original, &modified, &current, root) {
            same(&case, || apply_patch(&current, &p, root));
        }
    }
}

/// A merge can change an element's key (a mapping-valued key holding `$patch: delete`
/// merges to `{}`); later patch elements find it under the new one, first in list order.
#[test]
fn a_key_changed_by_the_merge_is_found_under_its_new_value() {
    let root = Some(Schema::object(Object::Root));
    let y = |text: &str| crate::yaml::parse::parse_document(text, "t").expect("yaml");
    let current = y("list: [{name: {x: 1, $patch: delete}, v: a}, {name: {}, v: b}]");
    let patch = y("list: [{name: {x: 1, $patch: delete}, w: p}, {name: {}, w: q}]");
    same("changed key", || apply_patch(&current, &patch, root));
    let merged = apply_patch(&current, &patch, root).expect("merges");
    assert_eq!(
        merged,
        y("list: [{name: {}, v: a, w: q}, {name: {}, v: b}]"),
        "{merged:?}"
    );
}

/// The comparisons `kubectl apply`'s merge makes (the three-way patch, then the patch
/// applied) on a Deployment with a container of `n` env vars, `n` more containers and `n`
/// finalizers, every value changed.
fn apply_comparisons(n: usize) -> u64 {
    use crate::openapi::Schemas;
    let schema = Schemas::builtin().lookup("apps", "v1", "Deployment");
    let deployment = |value: &str| {
        let env: Vec<String> = (0..n)
            .map(|i| format!("{{name: E{i}, value: {value}{i}}}"))
            .collect();
        let containers: Vec<String> = (0..n)
            .map(|i| format!("{{name: c{i}, image: {value}:{i}}}"))
            .collect();
        crate::yaml::parse::parse_document(
            &format!(
                "metadata: {{finalizers: [{}]}}\nspec: {{template: {{spec: {{containers: [{{name: main, env: [{}]}}, {}]}}}}}}",
                (0..n).map(|i| format!("f{i}")).collect::<Vec<_>>().join(", "),
                env.join(", "),
                containers.join(", "),
            ),
            "t",
        )
        .expect("yaml")
    };
    let (original, modified) = (deployment("old"), deployment("new"));
    let mut current = original.clone();
    if let Some(Node::Map(spec)) = current.get_path_mut(&["spec"]) {
        spec.insert("replicas", Node::Int(3));
    }
    value::DEEP_EQ_CALLS.with(|c| c.set(0));
    let patch = create_three_way_patch(&original, &modified, &current, schema).expect("patch");
    let result = apply_patch(&current, &patch, schema).expect("applies");
    for path in [
        &["spec", "template", "spec", "containers"][..],
        &["metadata", "finalizers"],
    ] {
        assert_eq!(result.get_path(path), modified.get_path(path));
    }
    value::DEEP_EQ_CALLS.with(|c| c.get())
}

/// `kbuild apply --dry-run` of long merge-keyed lists compares each element with a few
/// others, not with the whole list: 2,000 env vars took 30 s, 2,500 containers more than
/// 60 s, when every element was looked for by a scan (and placed by an insertion sort
/// that scanned again). Counted, not timed; the scans the index replaced, run on the same
/// input, are far above the bound.
#[test]
fn apply_compares_long_lists_a_linear_number_of_times() {
    let n = 200;
    let indexed = apply_comparisons(n);
    assert!(
        indexed < 60 * n as u64,
        "{indexed} comparisons for {n} elements"
    );
    force(true);
    let scanned = apply_comparisons(n);
    force(false);
    assert!(
        scanned > 400 * n as u64,
        "{scanned} comparisons for {n} elements"
    );
}
