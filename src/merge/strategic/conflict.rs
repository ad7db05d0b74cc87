//! Conflicts: whether a patch changes fields changed on the live object (`kubectl apply
//! --overwrite=false`).

use crate::error::Error;
use crate::yaml::{Map, Node};

use super::value::{
    dedup_and_sort_scalars, deep_eq, deep_eq_opt, go_str, map_and_key, slice_element_type,
};
use super::{DIRECTIVE, Meta, PatchSchema, RETAIN_KEYS, Strategy, lookup};

fn field_conflicts<S: PatchSchema>(
    left: &Node,
    right: &Node,
    schema: Option<S>,
    strategy: Strategy,
    merge_key: &str,
) -> Result<bool, Error> {
    match left {
        Node::Map(l) => {
            let Node::Map(r) = right else { return Ok(true) };
            let (lm, rm) = (l.get(DIRECTIVE), r.get(DIRECTIVE));
            if (lm.is_some() || rm.is_some()) && !deep_eq_opt(lm, rm) {
                return Ok(true);
            }
            if strategy.replace {
                return Ok(false);
            }
            maps_have_conflicts(l, r, schema)
        }
        Node::Seq(l) => {
            let Node::Seq(r) = right else { return Ok(true) };
            slices_have_conflicts(l, r, schema, strategy, merge_key)
        }
        _ => Ok(!deep_eq(left, right)),
    }
}

pub(super) fn maps_have_conflicts<S: PatchSchema>(
    left: &Map,
    right: &Map,
    schema: Option<S>,
) -> Result<bool, Error> {
    for (key, lv) in left {
        if key == DIRECTIVE || key == RETAIN_KEYS {
            continue;
        }
        let Some(rv) = right.get(key) else { continue };
        let meta = match lv {
            Node::Seq(_) => lookup(schema, key, true)?,
            Node::Map(_) => lookup(schema, key, false)?,
            _ => Meta {
                schema: None,
                strategy: Strategy::default(),
                merge_key: String::new(),
            },
        };
        if field_conflicts(lv, rv, meta.schema, meta.strategy, &meta.merge_key)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn slices_have_conflicts<S: PatchSchema>(
    left: &[Node],
    right: &[Node],
    schema: Option<S>,
    strategy: Strategy,
    merge_key: &str,
) -> Result<bool, Error> {
    let kind = slice_element_type(&[left, right])?;
    if strategy.merge {
        if kind != 5 {
            return Ok(false);
        }
        let by_key = |list: &[Node]| -> Result<Map, Error> {
            let mut m = Map::new();
            for item in list {
                let (_, v) = map_and_key(item, merge_key)?;
                m.insert(go_str(v), item.clone());
            }
            Ok(m)
        };
        let (l, r) = (by_key(left)?, by_key(right)?);
        for (k, lv) in &l {
            if let Some(rv) = r.get(k)
                && field_conflicts(lv, rv, schema, Strategy::default(), "")?
            {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    if left.len() != right.len() {
        return Ok(true);
    }
    let (l, r) = if kind != 5 {
        (dedup_and_sort_scalars(left), dedup_and_sort_scalars(right))
    } else {
        (left.to_vec(), right.to_vec())
    };
    for (a, b) in l.iter().zip(&r) {
        if field_conflicts(a, b, schema, Strategy::default(), "")? {
            return Ok(true);
        }
    }
    Ok(false)
}
