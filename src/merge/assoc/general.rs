//! kyaml's list merge in full, on an arena, for the lists the fast paths do not take; with
//! kyaml's `mergeValues` and `validateKeys` for lists with several merge keys.

use foldhash::{HashSet, HashSetExt};
use std::borrow::Cow;

use crate::error::Error;
use crate::merge::smp::{ListIncrease, Outcome, Walker};
use crate::openapi::TypeRef;
use crate::yaml::Node;

use super::PatchList;
use super::element::{
    ElementSetter, InArena, is_null_or_empty_map, key_value, plain_scalar, scalar_text, wrong_kind,
};

/// kyaml's algorithm in full, for every other list. Elements live in an arena so that one
/// node can be both a destination element and a collected result.
pub(super) struct General<'w, 'a, 's, 'p> {
    walker: &'w mut Walker<'a, 's>,
    arena: Vec<Node>,
    dest: Vec<usize>,
    /// The patch elements, `None` when there are none or the patch is the destination.
    patch: Option<Vec<usize>>,
    same: bool,
    patch_out: Option<&'p mut Vec<Node>>,
    out: &'w mut Vec<Node>,
    keys: Vec<String>,
    schema: Option<TypeRef<'s>>,
}

impl<'w, 'a, 's, 'p> General<'w, 'a, 's, 'p> {
    pub(super) fn new(
        walker: &'w mut Walker<'a, 's>,
        dest: &'w mut Vec<Node>,
        patch: PatchList<'p>,
        keys: &[&str],
        schema: Option<TypeRef<'s>>,
    ) -> Self {
        let mut arena = std::mem::take(dest);
        let dest_ids: Vec<usize> = (0..arena.len()).collect();
        let (patch_ids, same, patch_out) = match patch {
            PatchList::Missing => (None, false, None),
            PatchList::SameAsDest => (None, true, None),
            PatchList::Separate(list) => {
                let start = arena.len();
                arena.append(list);
                (Some((start..arena.len()).collect()), false, Some(list))
            }
        };
        General {
            walker,
            arena,
            dest: dest_ids,
            patch: patch_ids,
            same,
            patch_out,
            out: dest,
            keys: keys.iter().map(|k| k.to_string()).collect(),
            schema,
        }
    }

    fn primitive(&self) -> bool {
        self.keys.len() == 1 && self.keys[0].is_empty()
    }

    /// The lists to read elements from, in visiting order.
    fn sources(&self) -> Vec<&[usize]> {
        let patch: Option<&[usize]> = if self.same {
            Some(&self.dest)
        } else {
            self.patch.as_deref()
        };
        let mut sources = vec![self.dest.as_slice()];
        if let Some(p) = patch {
            match self.walker.list_increase() {
                ListIncrease::Prepend => sources.insert(0, p),
                ListIncrease::Append => sources.push(p),
            }
        }
        sources
    }

    fn values(&self) -> Vec<Vec<String>> {
        let mut seen = HashSet::new();
        let mut values = Vec::new();
        for source in self.sources() {
            for &id in source {
                let node = &self.arena[id];
                let value: Vec<String> = if self.primitive() {
                    vec![scalar_text(node).into_owned()]
                } else {
                    self.keys
                        .iter()
                        .map(|k| key_value(node, k).into_owned())
                        .collect()
                };
                if seen.insert(value.clone()) {
                    values.push(value);
                }
            }
        }
        values
    }

    pub(super) fn run(mut self) -> Result<(), Error> {
        let mut values = self.values();
        if self.keys.len() > 1 {
            unify_values(&mut values);
        }
        let (valid_keys, positions) = valid_keys(&values, &self.keys);
        let mut items: Vec<usize> = Vec::new();
        for value in &values {
            let valid_values: Vec<&str> = positions.iter().map(|&i| value[i].as_str()).collect();
            self.merge_value(&valid_keys, &valid_values, &mut items)?;
        }
        let result = if values.is_empty() {
            std::mem::take(&mut self.dest)
        } else {
            let keys: Vec<&str> = valid_keys.iter().map(String::as_str).collect();
            match self.walker.list_increase() {
                ListIncrease::Prepend => {
                    let dest = self.dest.clone();
                    self.append_list(&mut items, &dest, &keys)?;
                    items
                }
                ListIncrease::Append => {
                    let mut dest = std::mem::take(&mut self.dest);
                    self.append_list(&mut dest, &items, &keys)?;
                    dest
                }
            }
        };
        self.finish(result);
        Ok(())
    }

    fn merge_value(
        &mut self,
        keys: &[String],
        values: &[&str],
        items: &mut Vec<usize>,
    ) -> Result<(), Error> {
        // Elements are looked up by the keys that have a value (all of them when none has).
        let (lookup_keys, lookup_values): (Vec<&str>, Vec<&str>) = {
            let set: Vec<(&str, &str)> = keys
                .iter()
                .zip(values)
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k.as_str(), *v))
                .collect();
            if set.is_empty() {
                (keys.iter().map(String::as_str).collect(), values.to_vec())
            } else {
                set.into_iter().unzip()
            }
        };
        let d = self.find(&self.dest, &lookup_keys, &lookup_values);
        let p = if self.same {
            d
        } else {
            self.patch
                .as_ref()
                .and_then(|list| self.find(list, &lookup_keys, &lookup_values))
        };
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        self.walker.push_element(
            keys.first().copied().unwrap_or(""),
            values.first().copied().unwrap_or(""),
        );
        let val = self.walk(d, p);
        self.walker.pop();
        let setter = ElementSetter {
            keys: &keys,
            values,
        };
        let Some(val) = val?.filter(|&id| !is_null_or_empty_map(&self.arena[id])) else {
            return setter.set(&mut self.dest, None, &InArena(&self.arena));
        };
        for (key, value) in keys.iter().zip(values) {
            self.ensure_key(val, key, value)?;
        }
        setter.set(items, Some(val), &InArena(&self.arena))
    }

    /// kyaml sets a merge key the merged element lacks.
    fn ensure_key(&mut self, id: usize, key: &str, value: &str) -> Result<(), Error> {
        if value.is_empty() {
            return Ok(());
        }
        match &mut self.arena[id] {
            Node::Map(m) => {
                if !m.contains_key(key) {
                    m.insert(key.to_string(), plain_scalar(value));
                }
                Ok(())
            }
            _ if key.is_empty() => Ok(()),
            other => Err(wrong_kind("mapping", other)),
        }
    }

    /// kyaml's element matcher: the first mapping whose fields have exactly these texts (for
    /// scalar lists, the first element with this text).
    fn find(&self, list: &[usize], keys: &[&str], values: &[&str]) -> Option<usize> {
        list.iter().copied().find(|&id| {
            let node = &self.arena[id];
            if keys.first().is_none_or(|k| k.is_empty()) {
                return values.first().is_some_and(|v| scalar_text(node) == *v);
            }
            let Node::Map(m) = node else { return false };
            keys.iter()
                .zip(values)
                .all(|(k, v)| m.get(k).is_some_and(|f| scalar_text(f) == *v))
        })
    }

    fn walk(&mut self, d: Option<usize>, p: Option<usize>) -> Result<Option<usize>, Error> {
        if self.same || d.is_some() && d == p {
            let Some(id) = d else { return Ok(None) };
            return Ok(
                match self.walker.normalize(&mut self.arena[id], self.schema)? {
                    Outcome::Clear => None,
                    _ => Some(id),
                },
            );
        }
        let mut patch_node = p.map(|id| std::mem::take(&mut self.arena[id]));
        let result = match d {
            Some(id) => {
                self.walker
                    .walk(Some(&mut self.arena[id]), patch_node.as_mut(), self.schema)
            }
            None => self.walker.walk(None, patch_node.as_mut(), self.schema),
        };
        if let (Some(id), Some(node)) = (p, patch_node) {
            self.arena[id] = node;
        }
        Ok(match result? {
            Outcome::Clear => None,
            Outcome::Keep => d,
            Outcome::UsePatch => p,
            Outcome::Set(node) => {
                self.arena.push(node);
                Some(self.arena.len() - 1)
            }
        })
    }

    /// kyaml's `appendListNode`: sets each element of `src` in `dst` by its keys.
    fn append_list(&self, dst: &mut Vec<usize>, src: &[usize], keys: &[&str]) -> Result<(), Error> {
        let resolve = InArena(&self.arena);
        for &id in src {
            let node = &self.arena[id];
            if keys.first().is_none_or(|k| k.is_empty()) {
                let text = scalar_text(node);
                let values = [text.as_ref()];
                ElementSetter {
                    keys: &[""],
                    values: &values,
                }
                .set(dst, Some(id), &resolve)?;
                continue;
            }
            let mut values: Vec<Cow<str>> = Vec::with_capacity(keys.len());
            for key in keys {
                match node {
                    Node::Null => dst.push(id),
                    Node::Map(m) => match m.get(key) {
                        Some(v) => values.push(scalar_text(v)),
                        // kyaml appends an element that lacks a key as it is.
                        None => dst.push(id),
                    },
                    other => return Err(wrong_kind("mapping", other)),
                }
            }
            let values: Vec<&str> = values.iter().map(|v| v.as_ref()).collect();
            let setter = ElementSetter {
                keys,
                values: &values,
            };
            if keys.len() > 1 {
                setter.set(dst, None, &resolve)?;
            }
            setter.set(dst, Some(id), &resolve)?;
        }
        Ok(())
    }

    /// Writes the result, and puts the patch elements back where they came from.
    fn finish(mut self, result: Vec<usize>) {
        let mut uses = vec![0usize; self.arena.len()];
        for &id in &result {
            uses[id] += 1;
        }
        if let (Some(out), Some(ids)) = (self.patch_out.take(), &self.patch) {
            out.extend(ids.iter().map(|&id| {
                if uses[id] > 0 {
                    self.arena[id].clone()
                } else {
                    std::mem::take(&mut self.arena[id])
                }
            }));
        }
        let mut nodes = Vec::with_capacity(result.len());
        for id in result {
            uses[id] -= 1;
            nodes.push(if uses[id] == 0 {
                std::mem::take(&mut self.arena[id])
            } else {
                self.arena[id].clone()
            });
        }
        *self.out = nodes;
    }
}

/// kyaml's `mergeValues`: value lists that agree wherever both are set, and share at least
/// one value, become one (the union), so a port without a protocol pairs with the same port
/// with one. Done in place in kyaml's order, which matters when several lists unify.
fn unify_values(values: &mut [Vec<String>]) {
    for i in 0..values.len() {
        let first = values[i].clone();
        for j in 0..values.len() {
            if let Some(unified) = unify(&first, &values[j]) {
                values[i] = unified.clone();
                values[j] = unified;
            }
        }
    }
}

fn unify(a: &[String], b: &[String]) -> Option<Vec<String>> {
    if a.len() != b.len() {
        return None;
    }
    let mut common = false;
    let mut out = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        if x == y {
            common = true;
            out.push(x.clone());
        } else if !x.is_empty() && !y.is_empty() {
            return None;
        } else {
            out.push(if x.is_empty() { y.clone() } else { x.clone() });
        }
    }
    common.then_some(out)
}

/// The keys that have a value somewhere in the list (all keys when none has), with their
/// positions: kyaml's `validateKeys`, which looks at every value list at once.
fn valid_keys(values: &[Vec<String>], keys: &[String]) -> (Vec<String>, Vec<usize>) {
    let positions: Vec<usize> = (0..keys.len())
        .filter(|&i| values.iter().any(|v| !v[i].is_empty()))
        .collect();
    let positions = if positions.is_empty() {
        (0..keys.len()).collect()
    } else {
        positions
    };
    (
        positions.iter().map(|&i| keys[i].clone()).collect(),
        positions,
    )
}
