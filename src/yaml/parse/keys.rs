//! Map keys: the string a key becomes in a resource or a kustomization file, and adding a
//! mapping's own keys with go-yaml's duplicate rules.

use crate::yaml::Node;
use crate::yaml::map::Key;
use saphyr_parser::Marker;
use std::borrow::Cow;

use super::builder::{Body, Builder, Frame, MapFrame, Slot};
use super::position::{Ctx, Stop};
use super::resolve::{self, Kind, Schema, TagRef};

impl<'i, 's> Builder<'i, 's> {
    pub(super) fn key(
        &mut self,
        text: Cow<'i, str>,
        plain: bool,
        tag: TagRef,
        at: Marker,
    ) -> Result<(), Stop> {
        let schema = self.schema;
        let spelled_merge = text == "<<";
        let is_merge =
            spelled_merge && ((plain && tag == TagRef::None) || tag == TagRef::Core("merge"));
        // Resources: kyaml's DeAnchor takes the merge key out of every mapping and deletes
        // the first key spelled `<<` however it is quoted. Kustomization files: go-yaml v2
        // merges wherever a merge key stands, and a quoted "<<" is an ordinary key.
        let key = if is_merge || (spelled_merge && schema == Schema::Resource) {
            None
        } else {
            Some(self.key_string(text, plain, tag, self.stack.len() == 1, at)?)
        };
        let (ctx, key_lines) = (self.ctx, &mut self.key_lines);
        let Some(Frame {
            body: Body::Map(frame),
            ..
        }) = self.stack.last_mut()
        else {
            return Ok(());
        };
        let slot = match key {
            Some(key) => Slot::Value(insert_key(frame, key_lines, key, ctx, at, schema)?),
            None if is_merge => {
                if schema == Schema::Resource && frame.has_merge_key {
                    return Err(ctx.error(at, "duplicate merge key"));
                }
                frame.has_merge_key = true;
                Slot::Merge
            }
            None if frame.seen_merge_text => {
                Slot::Value(insert_key(frame, key_lines, "<<".into(), ctx, at, schema)?)
            }
            None => Slot::Discard,
        };
        frame.seen_merge_text |= spelled_merge;
        frame.next = slot;
        Ok(())
    }

    /// The string a map key becomes.
    ///
    /// Resources: go-yaml v3 decodes a nested mapping with a non-string key into
    /// `map[interface{}]interface{}`, which encoding/json rejects, so such keys are errors;
    /// the top-level mapping is decoded into `map[string]interface{}`, which takes every
    /// scalar key's text as written (`012: a` stays "012").
    /// Kustomization files: sigs.k8s.io/yaml formats go-yaml v2's key values
    /// (`012` -> "10", `yes` -> "true", `1e6` -> "1e+06").
    fn key_string(
        &self,
        text: Cow<'i, str>,
        plain: bool,
        tag: TagRef,
        root: bool,
        at: Marker,
    ) -> Result<Key, Stop> {
        let obviously_string = if plain {
            resolve::plain_is_string(&text, self.schema)
        } else {
            true
        };
        if tag == TagRef::None && obviously_string {
            return Ok(Key::from(&*text));
        }
        if self.schema == Schema::Resource && plain && tag == TagRef::None && text.is_empty() {
            // An empty key is written back as '' (go-yaml quotes empty simple keys), so
            // kustomize reads "" (kubectl printed `"": v` for `? ` + `: v`).
            return Ok(Key::default());
        }
        let r = resolve::resolve(Cow::Borrowed(&text), plain, tag, self.schema)
            .map_err(|m| self.ctx.error(at, m))?;
        let key = match (self.schema, r.kind, r.node) {
            (_, Kind::Null, _) => {
                return Err(self
                    .ctx
                    .error(at, "a null map key cannot be converted to JSON"));
            }
            (Schema::Resource, Kind::Str | Kind::Binary, Node::Str(s)) if root => s,
            (Schema::Resource, _, _) if root => Key::from(&*text),
            (Schema::Resource, Kind::Str, Node::Str(s)) => s,
            (Schema::Resource, _, _) => {
                let msg = format!(
                    "map key {text} is not a string, and kustomize cannot convert this \
                     mapping to JSON; quote the key"
                );
                return Err(self.ctx.error(at, msg));
            }
            (Schema::Kustomization, Kind::Uint, _) => {
                let msg = format!("unsupported map key of type uint64: {text}; quote the key");
                return Err(self.ctx.error(at, msg));
            }
            (Schema::Kustomization, _, Node::Str(s)) => s,
            (Schema::Kustomization, _, Node::Int(i)) => Key::from(i.to_string()),
            (Schema::Kustomization, _, Node::Float(f)) => Key::from(resolve::format_float_key(f)),
            (Schema::Kustomization, _, Node::Bool(b)) => Key::from(b.to_string()),
            (Schema::Kustomization, _, _) => Key::from(&*text),
        };
        Ok(key)
    }
}

pub(super) const COMPLEX_KEY: &str = "a mapping or sequence cannot be a map key";

/// Adds an own key of a mapping with a null placeholder value; returns its index.
/// Resources reject a repeated key as go-yaml v3 does; kustomization files keep the
/// first position and let the later value win, as go-yaml v2 does.
fn insert_key(
    frame: &mut MapFrame,
    key_lines: &mut Vec<usize>,
    key: Key,
    ctx: Ctx<'_>,
    at: Marker,
    schema: Schema,
) -> Result<usize, Stop> {
    let len_bit = 1u64 << (key.len() % 64);
    if frame.key_lens & len_bit == 0 {
        frame.key_lens |= len_bit;
        let index = frame.map.push_absent(key, Node::Null);
        if schema == Schema::Resource {
            key_lines.push(ctx.line(at));
        }
        return Ok(index);
    }
    let (index, old) = frame.map.insert_full(key, Node::Null);
    if schema == Schema::Kustomization {
        return Ok(index);
    }
    if old.is_some() {
        let key = frame.map.get_index(index).map_or("", |(k, _)| k.as_str());
        let first = key_lines
            .get(frame.lines_from + index)
            .copied()
            .unwrap_or_default();
        let msg = format!("mapping key {key:?} already defined at line {first}");
        return Err(ctx.error(at, msg));
    }
    key_lines.push(ctx.line(at));
    Ok(index)
}
