//! Strategic merge patches as Kubernetes computes and applies them (apimachinery's
//! `strategicpatch`, the library behind `kubectl apply` and the API server's PATCH), as
//! opposed to [`super::smp`], which follows kustomize's kyaml walker.
//!
//! - [`create_two_way_patch`]: the patch that turns `original` into `modified`.
//! - [`create_three_way_patch`]: what `kubectl apply` sends: changes from the live object
//!   (`current`) to the new configuration (`modified`) without deletions, plus the deletions
//!   from the last applied configuration (`original`) to `modified`.
//! - [`three_way_conflicts`]: whether such a patch overrides changes made to the live object.
//! - [`apply_patch`]: applies a patch.
//!
//! The rules that differ from kyaml (from apimachinery's tests, see the shared corpus):
//! lists with a `merge` strategy merge by their merge key, lists of scalars with it are
//! merged as sets; `$setElementOrder/<list>` fixes the order of the patched list, and
//! elements only the live object has are slotted in by their live position;
//! `$deleteFromPrimitiveList/<list>` removes scalars; `$retainKeys` (fields with a
//! `retainKeys` strategy: volume sources, deployment strategy) clears every field it does
//! not list; `$patch: delete` on a mapping leaves `{}`; `$patch: merge` in a list is an error.

use crate::error::Error;
use crate::openapi::TypeRef;
use crate::yaml::{Map, Node};

/// The `$patch` key.
pub const DIRECTIVE: &str = "$patch";
/// The key listing the fields a `retainKeys` object keeps.
pub const RETAIN_KEYS: &str = "$retainKeys";
/// Prefix of the key holding the scalars to remove from a merging list of scalars.
pub const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
/// Prefix of the key giving the order of a merging list.
pub const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// A field's `x-kubernetes-patch-strategy` (or Go `patchStrategy` tag), read as flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Strategy {
    pub merge: bool,
    pub replace: bool,
    pub retain_keys: bool,
}

/// The patch metadata a strategic merge needs, at one position of a schema.
pub trait PatchSchema: Copy {
    /// The schema of a field of this object. `Ok(None)`: nothing is known below (no
    /// metadata); `Err`: the schema knows this object and it has no such field.
    fn field(&self, name: &str) -> Result<Option<Self>, Error>;
    /// The schema of this list's elements.
    fn items(&self) -> Option<Self>;
    /// This field's patch strategy.
    fn strategy(&self) -> Strategy;
    /// This list's merge key.
    fn merge_key(&self) -> Option<&str>;
}

impl PatchSchema for TypeRef<'_> {
    fn field(&self, name: &str) -> Result<Option<Self>, Error> {
        Ok(TypeRef::field(self, name))
    }

    fn items(&self) -> Option<Self> {
        TypeRef::items(self)
    }

    fn strategy(&self) -> Strategy {
        let s = self.patch_strategy();
        Strategy {
            merge: s.merges(),
            replace: s.replaces(),
            retain_keys: s.retains_keys(),
        }
    }

    fn merge_key(&self) -> Option<&str> {
        TypeRef::merge_key(self)
    }
}

/// The metadata of one field: its schema, strategy and merge key.
struct Meta<S> {
    schema: Option<S>,
    strategy: Strategy,
    merge_key: String,
}

fn lookup<S: PatchSchema>(schema: Option<S>, key: &str, slice: bool) -> Result<Meta<S>, Error> {
    let Some(s) = schema else {
        return Ok(Meta {
            schema: None,
            strategy: Strategy::default(),
            merge_key: String::new(),
        });
    };
    let Some(f) = s.field(key)? else {
        return Ok(Meta {
            schema: None,
            strategy: Strategy::default(),
            merge_key: String::new(),
        });
    };
    Ok(Meta {
        schema: if slice { f.items() } else { Some(f) },
        strategy: f.strategy(),
        merge_key: f.merge_key().unwrap_or("").to_string(),
    })
}

#[derive(Clone, Copy, Default)]
struct DiffOptions {
    ignore_changes_and_additions: bool,
    ignore_deletions: bool,
    set_element_order: bool,
    build_retain_keys: bool,
}

#[derive(Clone, Copy, Default)]
struct MergeOptions {
    merge_parallel_list: bool,
    ignore_unmatched_nulls: bool,
}

fn as_object(node: &Node, what: &str) -> Result<Map, Error> {
    match node {
        Node::Null => Ok(Map::new()),
        Node::Map(m) => Ok(m.clone()),
        other => Err(Error::msg(format!(
            "strategic merge patch: the {what} is a {}, not an object",
            other.type_name()
        ))),
    }
}

/// The patch that turns `original` into `modified` (apimachinery's
/// `CreateTwoWayMergePatch`).
pub fn create_two_way_patch<S: PatchSchema>(
    original: &Node,
    modified: &Node,
    schema: Option<S>,
) -> Result<Node, Error> {
    let options = DiffOptions {
        set_element_order: true,
        ..DiffOptions::default()
    };
    let o = as_object(original, "original object")?;
    let m = as_object(modified, "modified object")?;
    Ok(Node::Map(diff_maps(&o, &m, schema, options)?))
}

/// The patch `kubectl apply` sends (apimachinery's `CreateThreeWayMergePatch` with
/// `overwrite`): `original` is the last applied configuration, `modified` the new one,
/// `current` the live object.
pub fn create_three_way_patch<S: PatchSchema>(
    original: &Node,
    modified: &Node,
    current: &Node,
    schema: Option<S>,
) -> Result<Node, Error> {
    let o = as_object(original, "last applied configuration")?;
    let m = as_object(modified, "configuration")?;
    let c = as_object(current, "live object")?;
    let delta = diff_maps(
        &c,
        &m,
        schema,
        DiffOptions {
            ignore_deletions: true,
            set_element_order: true,
            ..DiffOptions::default()
        },
    )?;
    let deletions = diff_maps(
        &o,
        &m,
        schema,
        DiffOptions {
            ignore_changes_and_additions: true,
            set_element_order: true,
            ..DiffOptions::default()
        },
    )?;
    Ok(Node::Map(merge_map(
        deletions,
        delta,
        schema,
        MergeOptions::default(),
    )?))
}

/// Whether a three-way `patch` changes fields that were changed on the live object since
/// `original` was applied (what `kubectl apply --overwrite=false` refuses).
pub fn three_way_conflicts<S: PatchSchema>(
    original: &Node,
    current: &Node,
    patch: &Node,
    schema: Option<S>,
) -> Result<bool, Error> {
    let o = as_object(original, "last applied configuration")?;
    let c = as_object(current, "live object")?;
    let changed = diff_maps(&o, &c, schema, DiffOptions::default())?;
    let p = as_object(patch, "patch")?;
    maps_have_conflicts(&p, &changed, schema)
}

/// Applies a strategic merge patch (apimachinery's `StrategicMergePatch`).
pub fn apply_patch<S: PatchSchema>(
    original: &Node,
    patch: &Node,
    schema: Option<S>,
) -> Result<Node, Error> {
    let o = as_object(original, "object")?;
    let p = as_object(patch, "patch")?;
    let options = MergeOptions {
        merge_parallel_list: true,
        ignore_unmatched_nulls: true,
    };
    Ok(Node::Map(merge_map(o, p, schema, options)?))
}

// ---------------------------------------------------------------------------------------
// Values as Go sees them after JSON decoding.

/// Go's `reflect.TypeOf` classes of a decoded JSON value.
fn type_class(node: &Node) -> u8 {
    match node {
        Node::Null => 0,
        Node::Bool(_) => 1,
        Node::Int(_) | Node::Uint(_) | Node::Float(_) => 2,
        Node::Str(_) => 3,
        Node::Seq(_) => 4,
        Node::Map(_) => 5,
    }
}

/// `reflect.DeepEqual` on decoded JSON (numbers by value).
fn deep_eq(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Int(i), Node::Float(f)) | (Node::Float(f), Node::Int(i)) => *i as f64 == *f,
        (Node::Map(x), Node::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_eq(v, w)))
        }
        (Node::Seq(x), Node::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| deep_eq(v, w))
        }
        _ => a == b,
    }
}

fn deep_eq_opt(a: Option<&Node>, b: Option<&Node>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => deep_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Go's `fmt.Sprintf("%v", v)`, which apimachinery sorts and pairs by.
fn go_str(node: &Node) -> String {
    match node {
        Node::Null => "<nil>".into(),
        Node::Seq(items) => format!(
            "[{}]",
            items.iter().map(go_str).collect::<Vec<_>>().join(" ")
        ),
        Node::Map(m) => {
            let mut keys: Vec<&crate::yaml::map::Key> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", go_str(&m[k])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
        other => other.scalar_string().unwrap_or_default(),
    }
}

fn no_merge_key(element: &Node, key: &str) -> Error {
    Error::msg(format!(
        "map: {} does not contain declared merge key: {key}",
        go_str(element)
    ))
}

fn bad_arg(want: &str, got: &Node) -> Error {
    Error::msg(format!(
        "expected a {want}, but received a {}: {}",
        got.type_name(),
        go_str(got)
    ))
}

/// The common element type of lists: 4 is a list (an error), 5 a mapping, others scalars.
fn slice_element_type(lists: &[&[Node]]) -> Result<u8, Error> {
    let mut prev = None;
    for item in lists.iter().flat_map(|l| l.iter()) {
        let t = type_class(item);
        match prev {
            None if t == 4 => return Err(Error::msg("lists of lists are not supported")),
            None => prev = Some(t),
            Some(p) if p != t => {
                return Err(Error::msg(format!(
                    "list element types are not identical: {}",
                    lists
                        .iter()
                        .map(|l| go_str(&Node::Seq(l.to_vec())))
                        .collect::<Vec<_>>()
                        .join(" ")
                )));
            }
            Some(_) => {}
        }
    }
    prev.ok_or_else(|| Error::msg("no elements in any of the given slices"))
}

fn sort_scalars(list: &[Node]) -> Vec<Node> {
    let mut out = list.to_vec();
    out.sort_by_key(go_str);
    out
}

fn dedup_scalars(list: Vec<Node>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::with_capacity(list.len());
    for v in list {
        if !out.iter().any(|o| deep_eq(o, &v)) {
            out.push(v);
        }
    }
    out
}

fn dedup_and_sort_scalars(list: &[Node]) -> Vec<Node> {
    sort_scalars(&dedup_scalars(list.to_vec()))
}

fn sort_maps_by_field(list: &[Node], key: &str) -> Vec<Node> {
    let mut out = list.to_vec();
    out.sort_by_key(|e| e.get(key).map(go_str).unwrap_or_else(|| "<nil>".into()));
    out
}

/// Sorts a merging list for diffing: maps by merge key, scalars deduplicated and sorted.
fn sort_for_diff(list: &[Node], merge_key: &str) -> Vec<Node> {
    match list.first() {
        Some(Node::Map(_)) => sort_maps_by_field(list, merge_key),
        Some(_) => dedup_and_sort_scalars(list),
        None => Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------
// Diffing.

fn diff_maps<S: PatchSchema>(
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

fn merge_key_value_equal(left: &Node, right: &Node, merge_key: &str) -> Result<bool, Error> {
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

fn map_and_key<'n>(item: &'n Node, merge_key: &str) -> Result<(&'n Map, &'n Node), Error> {
    let m = item.as_map().ok_or_else(|| bad_arg("map", item))?;
    let v = m
        .get(merge_key)
        .ok_or_else(|| no_merge_key(item, merge_key))?;
    Ok((m, v))
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

// ---------------------------------------------------------------------------------------
// Ordering.

/// Position of `value` in `list`: by merge key for mappings, by value for scalars.
fn index_of(list: &[Node], value: &Node, merge_key: &str, kind: u8) -> Option<usize> {
    if kind == 5 {
        let v = value.get(merge_key)?;
        list.iter()
            .position(|e| e.get(merge_key).is_some_and(|w| deep_eq(v, w)))
    } else {
        list.iter().position(|e| deep_eq(e, value))
    }
}

/// Go's `sort.SliceStable` (an insertion sort on short lists) with apimachinery's
/// comparator, which calls an element missing from `order` "less" than anything.
fn normalize_slice_order(
    to_sort: Vec<Node>,
    order: &[Node],
    merge_key: &str,
    kind: u8,
) -> Result<Vec<Node>, Error> {
    let mut to_delete = Vec::new();
    let mut items = to_sort;
    if kind == 5 {
        for item in items.iter().chain(order) {
            map_and_key(item, merge_key)?;
        }
        let (keep, delete): (Vec<Node>, Vec<Node>) = items
            .into_iter()
            .partition(|e| e.get(DIRECTIVE).and_then(Node::as_str) != Some("delete"));
        items = keep;
        to_delete = delete;
    }
    let less = |a: &Node, b: &Node| match (
        index_of(order, a, merge_key, kind),
        index_of(order, b, merge_key, kind),
    ) {
        (Some(x), Some(y)) => x < y,
        _ => true,
    };
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && less(&items[j], &items[j - 1]) {
            items.swap(j, j - 1);
            j -= 1;
        }
    }
    items.extend(to_delete);
    Ok(items)
}

/// Interleaves the live-only elements (`left`) into the patched ones (`right`) by their
/// live position, keeping both relative orders.
fn merge_sorted_slice(
    left: Vec<Node>,
    right: Vec<Node>,
    server_order: &[Node],
    merge_key: &str,
    kind: u8,
) -> Vec<Node> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => matches!(
                (
                    index_of(server_order, l, merge_key, kind),
                    index_of(server_order, r, merge_key, kind),
                ),
                (Some(a), Some(b)) if a < b
            ),
        };
        let next = if take_left { left.next() } else { right.next() };
        out.extend(next);
    }
    out
}

fn normalize_element_order(
    patch_items: Vec<Node>,
    server_only: Vec<Node>,
    patch_order: &[Node],
    server_order: &[Node],
    merge_key: &str,
    kind: u8,
) -> Result<Vec<Node>, Error> {
    let patch_items = normalize_slice_order(patch_items, patch_order, merge_key, kind)?;
    let server_only = normalize_slice_order(server_only, server_order, merge_key, kind)?;
    Ok(merge_sorted_slice(
        server_only,
        patch_items,
        server_order,
        merge_key,
        kind,
    ))
}

/// Splits `list` into the elements `by` has (by merge key, or by value) and the others.
fn partition(
    list: Vec<Node>,
    by: &[Node],
    merge_key: &str,
) -> Result<(Vec<Node>, Vec<Node>), Error> {
    let mut inside = Vec::new();
    let mut outside = Vec::new();
    for item in list {
        let found = if merge_key.is_empty() {
            by.iter().any(|b| deep_eq(b, &item))
        } else {
            let (_, value) = map_and_key(&item, merge_key)?;
            find_by_key(by, merge_key, value)?.is_some()
        };
        if found {
            inside.push(item);
        } else {
            outside.push(item);
        }
    }
    Ok((inside, outside))
}

fn find_by_key(list: &[Node], merge_key: &str, value: &Node) -> Result<Option<usize>, Error> {
    for (i, item) in list.iter().enumerate() {
        let m = item.as_map().ok_or_else(|| bad_arg("map", item))?;
        if m.get(merge_key).is_some_and(|v| deep_eq(v, value)) {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

// ---------------------------------------------------------------------------------------
// Merging.

fn merge_map<S: PatchSchema>(
    mut original: Map,
    mut patch: Map,
    schema: Option<S>,
    options: MergeOptions,
) -> Result<Map, Error> {
    if let Some(directive) = patch.get(DIRECTIVE) {
        return match directive.as_str() {
            Some("replace") => {
                patch.shift_remove(DIRECTIVE);
                Ok(patch)
            }
            Some("delete") => Ok(Map::new()),
            _ => Err(Error::msg(format!(
                "Unknown patch type: {} in map: {}",
                go_str(directive),
                go_str(&Node::Map(patch.clone()))
            ))),
        };
    }
    apply_retain_keys(&mut original, &mut patch, options)?;
    merge_set_element_order(&mut original, &mut patch, schema, options)?;
    // Parallel deletion lists go last, after the lists they edit have been merged.
    let (deletions, rest): (Vec<_>, Vec<_>) = patch
        .into_iter()
        .partition(|(k, _)| k.starts_with(DELETE_FROM_PRIMITIVE_LIST));
    for (key, mut patch_value) in rest.into_iter().chain(deletions) {
        let (key, is_delete_list) = if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            if !options.merge_parallel_list {
                original.insert(key, patch_value);
                continue;
            }
            (extract_key(&key, DELETE_FROM_PRIMITIVE_LIST)?.into(), true)
        } else {
            (key, false)
        };
        if patch_value.is_null() {
            original.shift_remove(&key);
            if options.ignore_unmatched_nulls {
                continue;
            }
        }
        let same_type = original
            .get(&key)
            .is_some_and(|o| type_class(o) == type_class(&patch_value));
        if !same_type {
            if !is_delete_list {
                if options.ignore_unmatched_nulls {
                    discard_nulls(&mut patch_value);
                }
                // A value the object does not have is added without its directives.
                if let Some(value) = remove_directives(patch_value) {
                    original.insert(key, value);
                }
            }
            continue;
        }
        let Some(current) = original.get_mut(&key) else {
            continue;
        };
        let merged = match (std::mem::take(current), patch_value) {
            (Node::Map(o), Node::Map(p)) => {
                let meta = lookup(schema, &key, false)?;
                if meta.strategy.replace {
                    Node::Map(p)
                } else {
                    Node::Map(merge_map(o, p, meta.schema, options)?)
                }
            }
            (Node::Seq(o), Node::Seq(p)) => {
                let meta = lookup(schema, &key, true)?;
                // A deletion list removes scalars whatever the list's strategy.
                if meta.strategy.merge || is_delete_list {
                    Node::Seq(merge_slice(
                        o,
                        p,
                        meta.schema,
                        &meta.merge_key,
                        options,
                        is_delete_list,
                    )?)
                } else {
                    Node::Seq(p)
                }
            }
            (_, p) => p,
        };
        *current = merged;
    }
    Ok(original)
}

/// A new value with every mapping that carries a `$patch` directive dropped (apimachinery's
/// `removeDirectives`); `None` when the value itself is such a mapping.
fn remove_directives(value: Node) -> Option<Node> {
    match value {
        Node::Map(m) => {
            if m.contains_key(DIRECTIVE) {
                return None;
            }
            Some(Node::Map(
                m.into_iter()
                    .filter_map(|(k, v)| remove_directives(v).map(|v| (k, v)))
                    .collect(),
            ))
        }
        Node::Seq(items) => Some(Node::Seq(
            items.into_iter().filter_map(remove_directives).collect(),
        )),
        other => Some(other),
    }
}

/// The live list as apimachinery sees it after merging a patch into it. Go merges in place:
/// deleting elements shifts the live list's backing array, and new elements appended
/// after deletions land in its spare capacity, so the "live order" used to place live-only
/// elements is the live list overwritten that way. JSON decoding builds lists by appending,
/// so their capacity is the next power of two.
fn aliased_live_order(live: &[Node], patch: &[Node], merge_key: &str) -> Vec<Node> {
    let n = live.len();
    let cap = n.next_power_of_two();
    let mut backing: Vec<Node> = live.to_vec();
    backing.resize(cap, Node::Null);
    let mut len = n;
    let key_of = |e: &Node| e.get(merge_key).cloned();
    for item in patch {
        match item.get(DIRECTIVE).and_then(Node::as_str) {
            Some("delete") => {
                let Some(value) = item.get(merge_key) else {
                    continue;
                };
                while let Some(k) = backing[..len]
                    .iter()
                    .position(|e| key_of(e).is_some_and(|v| deep_eq(&v, value)))
                {
                    // `append(s[:k], s[k+1:]...)`: shift left, the old last slot keeps its value.
                    for i in k..len - 1 {
                        backing[i] = backing[i + 1].clone();
                    }
                    len -= 1;
                }
            }
            Some(_) => return backing[..n].to_vec(),
            None => {}
        }
    }
    let mut spilled: Vec<Node> = Vec::new();
    for item in patch.iter().filter(|i| i.get(DIRECTIVE).is_none()) {
        let Some(value) = item.get(merge_key) else {
            continue;
        };
        let present = backing[..len]
            .iter()
            .chain(&spilled)
            .any(|e| key_of(e).is_some_and(|v| deep_eq(&v, value)));
        if present {
            continue;
        }
        if spilled.is_empty() && len < cap {
            backing[len] = item.clone();
            len += 1;
        } else {
            spilled.push(item.clone());
        }
    }
    backing.truncate(n);
    backing
}

fn extract_key(key: &str, prefix: &str) -> Result<String, Error> {
    match key.split_once('/') {
        Some((p, rest)) if p == prefix && !rest.contains('/') => Ok(rest.to_string()),
        _ => Err(Error::msg(format!(
            "unable to find api field: malformed directive key {key:?}"
        ))),
    }
}

fn discard_nulls(node: &mut Node) {
    match node {
        Node::Map(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(discard_nulls);
        }
        Node::Seq(items) => items.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}

fn apply_retain_keys(
    original: &mut Map,
    patch: &mut Map,
    options: MergeOptions,
) -> Result<(), Error> {
    let Some(retain) = patch.shift_remove(RETAIN_KEYS) else {
        return Ok(());
    };
    if !options.merge_parallel_list {
        // Merging two patches: the directive must agree.
        match original.get(RETAIN_KEYS) {
            Some(existing) if !deep_eq(existing, &retain) => {
                return Err(Error::msg(format!(
                    "{} and {} are not deep equal: this may happen when calculating the 3-way diff patch",
                    go_str(existing),
                    go_str(&retain)
                )));
            }
            Some(_) => {}
            None => {
                original.insert(RETAIN_KEYS, retain);
            }
        }
        return Ok(());
    }
    let bad = || Error::msg("invalid patch format of retainKeys");
    let list = retain.as_seq().ok_or_else(bad)?;
    let keep: Vec<String> = list
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    for (k, v) in patch.iter() {
        if v.is_null()
            || k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            || k.starts_with(SET_ELEMENT_ORDER)
        {
            continue;
        }
        if !keep.iter().any(|x| x == k) {
            return Err(bad());
        }
    }
    original.retain(|k, _| keep.iter().any(|x| x == k));
    Ok(())
}

/// Handles `$setElementOrder/<list>`: merges the list it names and puts the result in the
/// order it gives.
fn merge_set_element_order<S: PatchSchema>(
    original: &mut Map,
    patch: &mut Map,
    schema: Option<S>,
    options: MergeOptions,
) -> Result<(), Error> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .map(|k| k.to_string())
        .collect();
    for key in keys {
        let Some(order) = patch.shift_remove(&key) else {
            continue;
        };
        if !options.merge_parallel_list {
            match original.get(&key) {
                Some(existing) if !deep_eq(existing, &order) => {
                    return Err(Error::msg(
                        "invalid patch format of setElementOrder list: the lists differ",
                    ));
                }
                Some(_) => {}
                None => {
                    original.insert(key.clone(), order.clone());
                }
            }
        }
        let order = match order {
            Node::Seq(items) => items,
            other => return Err(bad_arg("list", &other)),
        };
        let list_key = extract_key(&key, SET_ELEMENT_ORDER)?;
        let original_list = match original.get(&list_key) {
            None => None,
            Some(Node::Seq(items)) => Some(items.clone()),
            Some(other) => return Err(bad_arg("list", other)),
        };
        let patch_list = match patch.get(&list_key) {
            None => None,
            Some(Node::Seq(items)) => Some(items.clone()),
            Some(other) => return Err(bad_arg("list", other)),
        };
        let meta = lookup(schema, &list_key, true)?;
        validate_patch_with_order(
            patch_list.as_deref().unwrap_or(&[]),
            &order,
            &meta.merge_key,
        )?;
        let merged = match (&original_list, &patch_list) {
            (Some(o), None) => o.clone(),
            (None, Some(p)) => match remove_directives(Node::Seq(p.clone())) {
                Some(Node::Seq(items)) => items,
                _ => continue,
            },
            (Some(o), Some(p)) => merge_slice_or_replace(o.clone(), p.clone(), &meta, options)?,
            (None, None) => continue,
        };
        let (patch_items, server_only) = partition(merged, &order, &meta.merge_key)?;
        let mut original_items = original_list.unwrap_or_default();
        if let (Some(p), true) = (
            &patch_list,
            meta.strategy.merge && !meta.merge_key.is_empty(),
        ) {
            original_items = aliased_live_order(&original_items, p, &meta.merge_key);
        }
        let kind = slice_element_type(&[&original_items, patch_list.as_deref().unwrap_or(&[])])?;
        let both = normalize_element_order(
            patch_items,
            server_only,
            &order,
            &original_items,
            &meta.merge_key,
            kind,
        )?;
        original.insert(list_key.clone(), Node::Seq(both));
        patch.shift_remove(&list_key);
    }
    Ok(())
}

fn merge_slice_or_replace<S: PatchSchema>(
    original: Vec<Node>,
    patch: Vec<Node>,
    meta: &Meta<S>,
    options: MergeOptions,
) -> Result<Vec<Node>, Error> {
    if meta.strategy.merge {
        merge_slice(
            original,
            patch,
            meta.schema,
            &meta.merge_key,
            options,
            false,
        )
    } else {
        Ok(patch)
    }
}

fn validate_patch_with_order(patch: &[Node], order: &[Node], merge_key: &str) -> Result<(), Error> {
    if order.is_empty() || patch.is_empty() {
        return Ok(());
    }
    let non_delete: Vec<&Node> = if merge_key.is_empty() {
        patch.iter().collect()
    } else {
        patch
            .iter()
            .filter(|e| e.get(DIRECTIVE).and_then(Node::as_str) != Some("delete"))
            .collect()
    };
    let (mut i, mut j) = (0, 0);
    while i < non_delete.len() && j < order.len() {
        if non_delete[i].get(DIRECTIVE).is_some() {
            i += 1;
            continue;
        }
        if merge_key_value_equal(non_delete[i], &order[j], merge_key)? {
            i += 1;
        }
        j += 1;
    }
    if i < non_delete.len() && j >= order.len() {
        return Err(Error::msg(format!(
            "The order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER} list:\n{}\n",
            go_str(&Node::Seq(patch.to_vec())),
            go_str(&Node::Seq(order.to_vec()))
        )));
    }
    Ok(())
}

fn merge_slice<S: PatchSchema>(
    original: Vec<Node>,
    patch: Vec<Node>,
    schema: Option<S>,
    merge_key: &str,
    options: MergeOptions,
    is_delete_list: bool,
) -> Result<Vec<Node>, Error> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = slice_element_type(&[&original, &patch])?;
    let (merged, server_order, patch) = if kind != 5 {
        if options.merge_parallel_list && is_delete_list {
            return Ok(original
                .into_iter()
                .filter(|v| !patch.iter().any(|d| deep_eq(d, v)))
                .collect());
        }
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        (dedup_scalars(both), original, patch)
    } else {
        if merge_key.is_empty() {
            return Err(Error::msg(
                "cannot merge lists without merge key for map[string]interface {}",
            ));
        }
        let (original, patch) = merge_special_elements(original, patch, merge_key)?;
        let merged = merge_plain_elements(original.clone(), &patch, merge_key, schema, options)?;
        (merged, original, patch)
    };
    let (patch_items, server_only) =
        partition(merged, &patch, if kind == 5 { merge_key } else { "" })?;
    normalize_element_order(
        patch_items,
        server_only,
        &patch,
        &server_order,
        if kind == 5 { merge_key } else { "" },
        kind,
    )
}

/// Applies the `$patch` elements of a merging list: `delete` removes the elements with that
/// key, `replace` makes the rest of the patch the whole list.
fn merge_special_elements(
    mut original: Vec<Node>,
    patch: Vec<Node>,
    merge_key: &str,
) -> Result<(Vec<Node>, Vec<Node>), Error> {
    let mut plain = Vec::new();
    let mut replace = false;
    for item in patch {
        let Some(directive) = item.get(DIRECTIVE) else {
            plain.push(item);
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                let value = item
                    .get(merge_key)
                    .ok_or_else(|| no_merge_key(&item, merge_key))?;
                let mut kept = Vec::with_capacity(original.len());
                for o in original {
                    let m = o.as_map().ok_or_else(|| bad_arg("map", &o))?;
                    if !m.get(merge_key).is_some_and(|v| deep_eq(v, value)) {
                        kept.push(o);
                    }
                }
                original = kept;
            }
            Some("replace") => replace = true,
            Some("merge") => {
                return Err(Error::msg(
                    "merging lists cannot yet be specified in the patch",
                ));
            }
            _ => {
                return Err(Error::msg(format!(
                    "Unknown patch type: {} in map: {}",
                    go_str(directive),
                    go_str(&item)
                )));
            }
        }
    }
    if replace {
        return Ok((plain, Vec::new()));
    }
    Ok((original, plain))
}

fn merge_plain_elements<S: PatchSchema>(
    mut original: Vec<Node>,
    patch: &[Node],
    merge_key: &str,
    schema: Option<S>,
    options: MergeOptions,
) -> Result<Vec<Node>, Error> {
    for item in patch {
        let (map, value) = map_and_key(item, merge_key)?;
        match find_by_key(&original, merge_key, value)? {
            Some(i) => {
                let current = original[i].as_map().cloned().unwrap_or_default();
                original[i] = Node::Map(merge_map(current, map.clone(), schema, options)?);
            }
            None => original.push(item.clone()),
        }
    }
    Ok(original)
}

// ---------------------------------------------------------------------------------------
// Conflicts.

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

fn maps_have_conflicts<S: PatchSchema>(
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

#[cfg(test)]
#[path = "strategic_tests.rs"]
mod tests;
