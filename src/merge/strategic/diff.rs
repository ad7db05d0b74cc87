//! Diffing: the patch between two objects (apimachinery's `diffMaps` and list diffs),
//! with `$deleteFromPrimitiveList`, `$setElementOrder` and `$retainKeys` entries.

use crate::error::Error;
use crate::yaml::{Map, Node};

use super::order::normalize_slice_order;
use super::value::{
    bad_arg, dedup_scalars, deep_eq, go_str, map_and_key, no_merge_key, slice_element_type,
    sort_for_diff, sort_scalars, type_class,
};
use super::{
    DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, DiffOptions, PatchSchema, RETAIN_KEYS,
    SET_ELEMENT_ORDER, lookup,
};

pub(super) fn diff_maps<S: PatchSchema>(
    original: &Map,
    modified: &Map,
    schema: Option<S>,
    options: DiffOptions,
) -> Result<Map, Error> {
    let mut patch = Map::new();
    let mut retain_keys = Vec::new();
    for (key, modified_value) in modified {
        if options.build_retain_keys && !modified_value.is_null() {
            retain_keys.push(Node::text(key.to_string()));
        }
        let Some(original_value) = original.get(key) else {
            if !options.ignore_changes_and_additions {
                patch.insert(key.clone(), modified_value.clone());
            }
            continue;
        };
        if key == DIRECTIVE {
            if original_value.as_str() != modified_value.as_str() {
                patch.insert(key.clone(), modified_value.clone());
            }
            continue;
        }
        if type_class(original_value) != type_class(modified_value) {
            if !options.ignore_changes_and_additions {
                patch.insert(key.clone(), modified_value.clone());
            }
            continue;
        }
        match (original_value, modified_value) {
            (Node::Map(o), Node::Map(m)) => {
                handle_map_diff(key, o, m, &mut patch, schema, options)?;
            }
            (Node::Seq(o), Node::Seq(m)) => {
                handle_slice_diff(key, o, m, &mut patch, schema, options)?;
            }
            _ => {
                if !options.ignore_changes_and_additions && !deep_eq(original_value, modified_value)
                {
                    patch.insert(key.clone(), modified_value.clone());
                }
            }
        }
    }
    if !options.ignore_deletions {
        for key in original.keys() {
            if !modified.contains_key(key) {
                patch.insert(key.clone(), Node::Null);
            }
        }
    }
    let has_removed_field = original
        .iter()
        .any(|(k, v)| !v.is_null() && !modified.contains_key(k));
    if !retain_keys.is_empty() && (!patch.is_empty() || has_removed_field) {
        patch.insert(RETAIN_KEYS, Node::Seq(sort_scalars(&retain_keys)));
    }
    Ok(patch)
}

fn handle_map_diff<S: PatchSchema>(
    key: &str,
    original: &Map,
    modified: &Map,
    patch: &mut Map,
    schema: Option<S>,
    mut options: DiffOptions,
) -> Result<(), Error> {
    let meta = match lookup(schema, key, false) {
        Ok(meta) => meta,
        // Without metadata, identical values need no patch.
        Err(_) if maps_equal(original, modified) => return Ok(()),
        Err(e) => return Err(e),
    };
    options.build_retain_keys = meta.strategy.retain_keys;
    if meta.strategy.replace {
        if !options.ignore_changes_and_additions {
            patch.insert(key, Node::Map(modified.clone()));
        }
        return Ok(());
    }
    let value = diff_maps(original, modified, meta.schema, options)?;
    if !value.is_empty() {
        patch.insert(key, Node::Map(value));
    }
    Ok(())
}

fn maps_equal(a: &Map, b: &Map) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| deep_eq(v, w)))
}

fn handle_slice_diff<S: PatchSchema>(
    key: &str,
    original: &[Node],
    modified: &[Node],
    patch: &mut Map,
    schema: Option<S>,
    mut options: DiffOptions,
) -> Result<(), Error> {
    let meta = match lookup(schema, key, true) {
        Ok(meta) => meta,
        Err(_) if deep_eq(&Node::Seq(original.to_vec()), &Node::Seq(modified.to_vec())) => {
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    if !meta.strategy.merge {
        if !options.ignore_changes_and_additions
            && !deep_eq(&Node::Seq(original.to_vec()), &Node::Seq(modified.to_vec()))
        {
            patch.insert(key, Node::Seq(modified.to_vec()));
        }
        return Ok(());
    }
    options.build_retain_keys = meta.strategy.retain_keys;
    let (add, delete, order) =
        diff_lists(original, modified, meta.schema, &meta.merge_key, options)?;
    if !add.is_empty() {
        patch.insert(key, Node::Seq(add));
    }
    if !delete.is_empty() {
        patch.insert(
            format!("{DELETE_FROM_PRIMITIVE_LIST}/{key}"),
            Node::Seq(delete),
        );
    }
    if !order.is_empty() {
        patch.insert(format!("{SET_ELEMENT_ORDER}/{key}"), Node::Seq(order));
    }
    Ok(())
}

type Lists = (Vec<Node>, Vec<Node>, Vec<Node>);

fn diff_lists<S: PatchSchema>(
    original: &[Node],
    modified: &[Node],
    schema: Option<S>,
    merge_key: &str,
    options: DiffOptions,
) -> Result<Lists, Error> {
    if original.is_empty() {
        if modified.is_empty() || options.ignore_changes_and_additions {
            return Ok((Vec::new(), Vec::new(), Vec::new()));
        }
        return Ok((modified.to_vec(), Vec::new(), Vec::new()));
    }
    let kind = slice_element_type(&[original, modified])?;
    let mut order = Vec::new();
    if kind == 5 {
        let (patch, deletions) =
            diff_lists_of_maps(original, modified, schema, merge_key, options)?;
        let mut patch = normalize_slice_order(patch, modified, merge_key, kind)?;
        let order_same = is_order_same(original, modified, merge_key)?;
        patch.extend(deletions);
        if options.set_element_order
            && ((!options.ignore_changes_and_additions && (!patch.is_empty() || !order_same))
                || (!options.ignore_deletions && !patch.is_empty()))
        {
            for item in modified {
                let mut entry = Map::new();
                entry.insert(merge_key, item.get(merge_key).cloned().unwrap_or_default());
                order.push(Node::Map(entry));
            }
        }
        Ok((patch, Vec::new(), order))
    } else {
        let (add, deletions) = diff_lists_of_scalars(original, modified, options);
        let add = normalize_slice_order(add, modified, merge_key, kind)?;
        if options.set_element_order
            && ((!options.ignore_deletions && !deletions.is_empty())
                || (!options.ignore_changes_and_additions
                    && !deep_eq(&Node::Seq(original.to_vec()), &Node::Seq(modified.to_vec()))))
        {
            order = modified.to_vec();
        }
        Ok((add, deletions, order))
    }
}

pub(super) fn merge_key_value_equal(
    left: &Node,
    right: &Node,
    merge_key: &str,
) -> Result<bool, Error> {
    if merge_key.is_empty() {
        return Ok(deep_eq(left, right));
    }
    let l = left
        .as_map()
        .ok_or_else(|| bad_arg("map", left))?
        .get(merge_key)
        .ok_or_else(|| no_merge_key(left, merge_key))?;
    let r = right
        .as_map()
        .ok_or_else(|| bad_arg("map", right))?
        .get(merge_key)
        .ok_or_else(|| no_merge_key(right, merge_key))?;
    Ok(deep_eq(l, r))
}

fn is_order_same(original: &[Node], modified: &[Node], merge_key: &str) -> Result<bool, Error> {
    if original.len() != modified.len() {
        return Ok(false);
    }
    for (o, m) in original.iter().zip(modified) {
        if !merge_key_value_equal(o, m, merge_key)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn diff_lists_of_scalars(
    original: &[Node],
    modified: &[Node],
    options: DiffOptions,
) -> (Vec<Node>, Vec<Node>) {
    let o = sort_scalars(original);
    let m = sort_scalars(modified);
    let (mut i, mut j) = (0, 0);
    let mut add = Vec::new();
    let mut delete = Vec::new();
    while i < o.len() || j < m.len() {
        let os = o.get(i).map(go_str);
        let ms = m.get(j).map(go_str);
        match (os, ms) {
            (Some(a), Some(b)) if a == b => {
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a < b => {
                if !options.ignore_deletions {
                    delete.push(o[i].clone());
                }
                i += 1;
            }
            (Some(_), None) => {
                if !options.ignore_deletions {
                    delete.push(o[i].clone());
                }
                i += 1;
            }
            _ => {
                if !options.ignore_changes_and_additions {
                    add.push(m[j].clone());
                }
                j += 1;
            }
        }
    }
    (add, dedup_scalars(delete))
}

fn delete_directive(merge_key: &str, value: &Node) -> Node {
    let mut m = Map::new();
    m.insert(DIRECTIVE, Node::Str("delete".into()));
    m.insert(merge_key, value.clone());
    Node::Map(m)
}

fn diff_lists_of_maps<S: PatchSchema>(
    original: &[Node],
    modified: &[Node],
    schema: Option<S>,
    merge_key: &str,
    options: DiffOptions,
) -> Result<(Vec<Node>, Vec<Node>), Error> {
    let o = sort_for_diff(original, merge_key);
    let m = sort_for_diff(modified, merge_key);
    let (mut i, mut j) = (0, 0);
    let mut patch = Vec::new();
    let mut deletions = Vec::new();
    while i < o.len() || j < m.len() {
        let oe = o.get(i).map(|e| map_and_key(e, merge_key)).transpose()?;
        let me = m.get(j).map(|e| map_and_key(e, merge_key)).transpose()?;
        match (oe, me) {
            (Some((om, ov)), Some((mm, mv))) if go_str(ov) == go_str(mv) => {
                let mut value = diff_maps(om, mm, schema, options)?;
                if !value.is_empty() {
                    value.insert(merge_key, mv.clone());
                    patch.push(Node::Map(value));
                }
                i += 1;
                j += 1;
            }
            (Some((_, ov)), Some((_, mv))) if go_str(ov) > go_str(mv) => {
                if !options.ignore_changes_and_additions {
                    patch.push(m[j].clone());
                }
                j += 1;
            }
            (None, Some(_)) => {
                if !options.ignore_changes_and_additions {
                    patch.push(m[j].clone());
                }
                j += 1;
            }
            (Some((_, ov)), _) => {
                if !options.ignore_deletions {
                    deletions.push(delete_directive(merge_key, ov));
                }
                i += 1;
            }
            (None, None) => break,
        }
    }
    Ok((patch, deletions))
}
