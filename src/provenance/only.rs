//! Recording the provenance of some resources rather than all: `kbuild explain` reports on
//! one resource, and recording every other one (copying and comparing it after each step)
//! was most of what the report cost.
//!
//! The resource is named by its final kind and name, which the build has not made yet
//! when it decides what to record: a resource is recorded when it may still become that
//! one — its kind is one the name may mean, and its name is part of the final name (a
//! prefix, a suffix and a hash only add to a name). The decision is made once, when the
//! resource first appears (read from a file, made by a generator or a plugin), and kept:
//! a record is either the whole record a build recording everything would hold, or
//! missing. It is missing for a resource whose kind or name a step rewrote beyond that (a
//! replacement, a JSON patch): the report then builds again recording everything.

use crate::yaml::Node;

/// Which resources a build records the provenance of (see [`Only::admits`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Only {
    /// The kinds the resource may have, in any case (`deployment` is `Deployment`).
    kinds: Vec<String>,
    /// Its name in the output.
    name: String,
}

impl Only {
    /// The resources that may become one of kind `kinds` (any of them, in any case) named
    /// `name` in the output.
    pub fn new(kinds: Vec<String>, name: String) -> Only {
        Only { kinds, name }
    }

    /// Whether the resource `node` (as it first appears in the build) may become the
    /// output resource: its kind is one of the kinds, and its name part of the name. A
    /// kind or name that is not a string (an error later, or a number) is admitted.
    pub fn admits(&self, node: &Node) -> bool {
        let kind_fits = node
            .get_str(&["kind"])
            .is_none_or(|kind| self.kinds.iter().any(|k| k.eq_ignore_ascii_case(kind)));
        kind_fits
            && node
                .get_str(&["metadata", "name"])
                .is_none_or(|name| self.name.contains(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(yaml: &str) -> Node {
        crate::yaml::parse::parse_stream(yaml, "test")
            .unwrap()
            .remove(0)
    }

    #[test]
    fn admits_what_may_become_the_named_resource() {
        let only = Only::new(vec!["deployment".into()], "prod-web-v2".into());
        // The same kind in another case, a name the prefix and suffix add to.
        assert!(only.admits(&node("kind: Deployment\nmetadata:\n  name: web\n")));
        assert!(only.admits(&node("kind: Deployment\nmetadata:\n  name: prod-web-v2\n")));
        // Another kind, or a name that no affix makes the final one.
        assert!(!only.admits(&node("kind: Service\nmetadata:\n  name: web\n")));
        assert!(!only.admits(&node("kind: Deployment\nmetadata:\n  name: api\n")));
        // What is not a string is not judged.
        assert!(only.admits(&node("kind: Deployment\nmetadata:\n  name: 2\n")));
        assert!(only.admits(&node("metadata:\n  name: web\n")));
    }
}
