#!/usr/bin/env python3
"""Generates src/openapi/builtin.rs from the Kubernetes OpenAPI (swagger v2) document
that kustomize v5.5.0 embeds (Kubernetes v1.21.2).

Usage: tools/gen_openapi.py path/to/kubernetes-v1.21.2.json > src/openapi/builtin.rs

What is kept, and why:
- every kind named by a definition's `x-kubernetes-group-version-kind` (kyaml looks schemas
  up by apiVersion + kind this way);
- for each definition, the fields that carry merge metadata (`x-kubernetes-patch-strategy`,
  `x-kubernetes-patch-merge-key`, `x-kubernetes-list-type`, `x-kubernetes-list-map-keys`) or
  lead, through `$ref`, `items` or `additionalProperties`, to such a field, and the fields
  holding objects (or lists of objects) without metadata below them, as an empty object.
  Scalar fields without metadata are left out: they merge exactly as fields the schema does
  not know. Object fields are kept because kyaml looks a schema up from an object's own
  apiVersion/kind only where the schema knows nothing about it;
- a sorted index from every definition name to its shape (`DEFINITIONS`): kustomize resolves a custom schema's `$ref` to a built-in definition when it
  loaded the built-in schema before the custom one (see src/openapi/schemas.rs);
- the scope (namespaced or cluster) of the kinds listed with a scope in the document's
  `resources` section: kustomize's precomputed scope table.

Python 3 standard library only.
"""
import json
import sys

EXTS = ("x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key",
        "x-kubernetes-list-type", "x-kubernetes-list-map-keys")
META = ("strategy", "key", "list_type", "map_keys")
REF_PREFIX = "#/definitions/"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    defs = doc["definitions"]
    gen = Generator(defs)
    kinds = []
    for name, d in sorted(defs.items()):
        for gvk in d.get("x-kubernetes-group-version-kind", []):
            kinds.append((gvk["group"], gvk["version"], gvk["kind"], name))
    kinds.sort()
    for kind in kinds:
        gen.def_shape(kind[3])
    # Every other definition too, after the kinds' (so their shapes come first): a custom
    # schema may `$ref` a built-in definition by name (see DEFINITIONS below).
    for name in sorted(defs):
        gen.def_shape(name)
    gen.resolve_aliases()
    gen.prune()
    scopes = sorted(
        (group_of(r["apiVersion"]), version_of(r["apiVersion"]), r["kind"],
         r["scope"] == "Namespaced")
        for r in doc["resources"] if "scope" in r)
    sys.stdout.write(gen.render(kinds, scopes))


def group_of(api_version):
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def version_of(api_version):
    return api_version.rsplit("/", 1)[-1]


def metadata(schema):
    keys = schema.get("x-kubernetes-list-map-keys")
    return {"strategy": schema.get("x-kubernetes-patch-strategy"),
            "key": schema.get("x-kubernetes-patch-merge-key"),
            "list_type": schema.get("x-kubernetes-list-type"),
            "map_keys": tuple(keys) if keys else None,
            "object": None, "items": None,
            "is_object": schema.get("type") == "object" or "properties" in schema
            or "additionalProperties" in schema}


def has_metadata(shape):
    return any(shape[k] is not None for k in META)


class Generator:
    """Builds shapes (schema nodes) and types (objects with fields), then prunes them."""

    def __init__(self, defs):
        self.defs = defs
        self.shapes = []      # dicts: object, items, strategy, key, list_type, map_keys
        self.types = []       # dicts: fields [(name, shape)], additional
        self.def_shapes = {}  # definition name -> shape index

    def def_shape(self, name):
        if name not in self.def_shapes:
            self.def_shapes[name] = len(self.shapes)
            self.shapes.append(None)
            self.shapes[self.def_shapes[name]] = self.shape_of(self.defs[name])
        return self.def_shapes[name]

    def shape_of(self, schema):
        shape = metadata(schema)
        ref = schema.get("$ref")
        if ref is not None:
            # A `$ref` with metadata of its own: the referenced definition's object and
            # items, with this field's metadata. Resolved once every shape exists
            # (`alias`), because the definitions are recursive.
            name = ref[len(REF_PREFIX):] if ref.startswith(REF_PREFIX) else None
            shape["alias"] = self.def_shape(name) if name in self.defs else None
            return shape
        if schema.get("type") == "array" and "items" in schema:
            shape["items"] = self.add_shape(schema["items"])
        if "properties" in schema or "additionalProperties" in schema:
            shape["object"] = self.add_type(schema)
        return shape

    def add_shape(self, schema):
        ref = schema.get("$ref")
        if ref is not None and ref.startswith(REF_PREFIX) and not any(k in schema for k in EXTS):
            name = ref[len(REF_PREFIX):]
            if name in self.defs:
                return self.def_shape(name)
        idx = len(self.shapes)
        self.shapes.append(None)
        self.shapes[idx] = self.shape_of(schema)
        return idx

    def add_type(self, schema):
        idx = len(self.types)
        self.types.append(None)
        fields = [(n, self.add_shape(s)) for n, s in sorted(schema.get("properties", {}).items())]
        extra = schema.get("additionalProperties")
        additional = self.add_shape(extra) if isinstance(extra, dict) else None
        self.types[idx] = {"fields": fields, "additional": additional}
        return idx

    def resolve_aliases(self):
        for shape in self.shapes:
            seen = set()
            while shape.get("alias") is not None and shape["alias"] not in seen:
                seen.add(shape["alias"])
                target = self.shapes[shape["alias"]]
                shape["object"], shape["items"] = target["object"], target["items"]
                shape["is_object"] = target["is_object"]
                for k in META:
                    if shape[k] is None:
                        shape[k] = target[k]
                shape["alias"] = target.get("alias")
            shape.pop("alias", None)

    def prune(self):
        """Marks the shapes and types that carry or lead to merge metadata (a fixpoint,
        because the types are recursive), then numbers the kept ones."""
        shape_live = [has_metadata(s) for s in self.shapes]
        type_live = [False] * len(self.types)
        changed = True
        while changed:
            changed = False
            for i, t in enumerate(self.types):
                live = any(shape_live[s] for _, s in t["fields"]) or (
                    t["additional"] is not None and shape_live[t["additional"]])
                if live and not type_live[i]:
                    type_live[i] = changed = True
            for i, s in enumerate(self.shapes):
                live = (s["items"] is not None and shape_live[s["items"]]) or (
                    s["object"] is not None and type_live[s["object"]])
                if live and not shape_live[i]:
                    shape_live[i] = changed = True
        self.shape_live = shape_live
        self.type_index = {}
        self.kept_types = []
        for i, t in enumerate(self.types):
            if type_live[i]:
                self.type_index[i] = len(self.kept_types)
                self.kept_types.append(t)
        # Identical shapes are stored once. Shape 0 is the object without metadata that
        # every uninteresting kind points to.
        self.shape_index = {}
        self.kept_shapes = []
        self.shape_keys = {}
        self.intern(metadata({"type": "object"}), None)
        for i in range(len(self.shapes)):
            self.index_of(i)

    def objectish(self, i, depth=0):
        s = self.shapes[i]
        return s["is_object"] or (
            s["items"] is not None and depth < 8 and self.objectish(s["items"], depth + 1))

    def kept(self, i):
        return self.shape_live[i] or self.objectish(i)

    def index_of(self, i):
        """The shape's index in the output, None for a dropped shape."""
        if i in self.shape_index:
            return self.shape_index[i]
        if not self.kept(i):
            return None
        s = self.shapes[i]
        if not self.shape_live[i] and s["items"] is None:
            return 0
        items = self.index_of(s["items"]) if s["items"] is not None else None
        self.shape_index[i] = self.intern(s, items)
        return self.shape_index[i]

    def intern(self, s, items):
        obj = self.type_index.get(s["object"]) if s["object"] is not None else None
        key = (obj, items, s["strategy"], s["key"], s["list_type"], s["map_keys"] or ())
        if key not in self.shape_keys:
            self.shape_keys[key] = len(self.kept_shapes)
            self.kept_shapes.append(key)
        return self.shape_keys[key]

    def render(self, kinds, scopes):
        out = [HEADER, "pub(super) static SHAPES: &[Shape] = &[\n"]
        for obj, items, strat, key, ltype, map_keys in self.kept_shapes:
            out.append("    sh(%s, %s, %s, %s, %s, %s),\n" % (
                opt(obj), opt(items), strategy(strat), opt_str(key), list_type(ltype),
                str_slice(map_keys)))
        types, fields = [], []
        for t in self.kept_types:
            first = len(fields)
            fields += ['fd("%s", %d)' % (n, self.index_of(s))
                       for n, s in t["fields"] if self.kept(s)]
            add = t["additional"]
            add = self.index_of(add) if add is not None else None
            types.append("    ty(%d, %d, %s),\n" % (first, len(fields) - first, opt(add)))
        out.append("];\n\npub(super) static TYPES: &[TypeDef] = &[\n")
        out += types
        out.append("];\n\npub(super) static FIELDS: &[FieldDef] = &[\n")
        out += ["    %s,\n" % f for f in fields]
        out.append("];\n\npub(super) static KINDS: &[KindEntry] = &[\n")
        for group, version, kind, name in kinds:
            out.append('    ke("%s", "%s", "%s", %d),\n' % (
                group, version, kind, self.index_of(self.def_shapes[name])))
        out.append("];\n\n/// Every definition name with the shape of the definition (N: a scalar "
                   "without merge\n/// metadata, not kept), sorted by name.\n")
        out.append("pub(super) static DEFINITIONS: &[(&str, u32)] = &[\n")
        for name in sorted(self.def_shapes):
            out.append('    ("%s", %s),\n' % (name, opt(self.index_of(self.def_shapes[name]))))
        out.append("];\n\n/// Scope of the kinds with a known scope (`true`: namespaced), "
                   "sorted by group, version, kind.\n")
        out.append("pub(super) static SCOPES: &[(&str, &str, &str, bool)] = &[\n")
        for group, version, kind, namespaced in scopes:
            out.append('    ("%s", "%s", "%s", %s),\n' % (
                group, version, kind, "true" if namespaced else "false"))
        out.append("];\n")
        return "".join(out)


def opt(v):
    return "N" if v is None else str(v)


def opt_str(v):
    return "None" if v is None else 'Some(Cow::Borrowed("%s"))' % v


def strategy(v):
    bits = {"merge": "MERGE", "replace": "REPLACE", "retainKeys": "RETAIN_KEYS"}
    parts = [bits[p] for p in (v or "").split(",") if p in bits]
    return "PatchStrategy(%s)" % (" | ".join(parts) if parts else "0")


def list_type(v):
    return {None: "None", "atomic": "Some(ListType::Atomic)", "set": "Some(ListType::Set)",
            "map": "Some(ListType::Map)"}[v]


def str_slice(items):
    return "&[%s]" % ", ".join('Cow::Borrowed("%s")' % i for i in items)


HEADER = """\
// @generated by tools/gen_openapi.py from the Kubernetes v1.21.2 OpenAPI document that
// kustomize v5.5.0 embeds. Do not edit; run the generator instead.
//
// SHAPES are schema nodes (shape 0: an object without metadata), TYPES are objects (a
// range of FIELDS, sorted by name, and the shape of additionalProperties), KINDS map group/version/kind to the shape of their
// definition, sorted. Scalar fields without merge metadata are left out.

use std::borrow::Cow;

use super::table::{
    FieldDef, KindEntry, ListType, MERGE, N, PatchStrategy, REPLACE, RETAIN_KEYS, Shape, TypeDef,
    fd, ke, sh, ty,
};

"""

if __name__ == "__main__":
    main()
