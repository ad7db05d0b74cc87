#!/usr/bin/env python3
"""Random-tree differential tester: kbuild against `kubectl kustomize`.

Generates random kustomization trees (seeded, reproducible) that mix the features kbuild
supports, builds each with kbuild as kustomize v5.5.0 (`--kustomize-version v5.5.0`) and as
v5.8.1 (the default), compares each build with that kustomize version's (`kubectl kustomize`
of kubectl v1.32 and v1.37.1), and reports every difference.

  tools/difftest.py --kbuild target/release/kbuild --seed 1 --trees 300 --jobs 2
  tools/difftest.py --only 1:17 --keep /tmp/kept       # rebuild exactly tree 17 of seed 1
  tools/difftest.py --reduce /tmp/kept/1-17             # shrink a kept mismatch
  tools/difftest.py --write 1:17 /tmp/tree              # only write the tree, build nothing

Per tree and oracle the outcome is one of: identical (both succeed, same stdout bytes),
differs (both succeed, different bytes), both-error (both fail: kbuild's message text is its
own, so only failure must agree), one-error (one fails, the other succeeds). identical and
both-error pass, the others fail. Exit status: 1 when any tree differs from either version, 2
when neither kustomize could be run, else 0.

Every tree's entry kustomization is at the tree root (`kubectl kustomize .` in the tree),
bases, overlays and components live in subdirectories.

Python 3.11, standard library only.
"""

import argparse
import base64
import concurrent.futures
import difflib
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# --------------------------------------------------------------------------------------
# A small YAML writer. Its styles vary with the rng (indented or flush sequences, quote
# style, block literals or escapes, flow collections) so the parsers see more than one
# spelling of the same data.


class Raw(str):
    """A scalar written verbatim, unquoted: `yes`, `012`, `0x1F`, `2024-01-01` as YAML sees them."""


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_./=@+,:-]*(?<!:)$")
_YAML11_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}


def _printable(s):
    return all(c == "\n" or (c >= " " and c != "\x7f" and not 0x80 <= ord(c) < 0xA0
                             and c not in "\u2028\u2029\ufeff") for c in s)


def _flowable(v):
    """A small collection of plain scalars, which JSON writes as YAML reads it."""
    return (isinstance(v, (dict, list)) and 0 < len(v) <= 4
            and all(not isinstance(x, (dict, list, Raw)) and not (isinstance(x, str) and "\n" in x)
                    for x in (v.values() if isinstance(v, dict) else v)))


class Yaml:
    def __init__(self, rng):
        self.rng = rng
        self.seq_indent = rng.random() < 0.3       # lists indented under their key
        self.single_quotes = rng.random() < 0.3    # 'x' rather than "x" where possible
        self.literals = rng.random() < 0.8         # multi-line strings as | blocks
        self.flow = rng.random() < 0.2             # some small collections as {..}/[..]

    def scalar(self, v, key=False):
        if isinstance(v, Raw):
            return str(v)
        if v is None:
            return "null" if key else self.rng.choice(["null", "null", "~", ""])
        if v is True:
            return "true"
        if v is False:
            return "false"
        if isinstance(v, (int, float)):
            return repr(v)
        s = str(v)
        if _PLAIN.match(s) and s.lower() not in _YAML11_WORDS:
            return s
        if self.single_quotes and "\n" not in s and _printable(s) and not s.startswith(" "):
            return "'" + s.replace("'", "''") + "'"
        return json.dumps(s, ensure_ascii=False)

    def _literal_ok(self, s):
        first = s.split("\n", 1)[0]
        return (self.literals and first and not first[0].isspace() and "\r" not in s
                and "\t" not in s and _printable(s)
                and all(line == line.rstrip() for line in s.split("\n")))

    def _block(self, v, ind, out):
        sp = " " * ind
        if isinstance(v, dict):
            for k, x in v.items():
                self._entry(sp + self.scalar(k, key=True) + ":", x, ind, out, False)
        else:
            for x in v:
                self._entry(sp + "-", x, ind, out, True)

    def _entry(self, head, x, ind, out, in_seq):
        if self.flow and _flowable(x) and self.rng.random() < 0.4:
            out.append(head + " " + json.dumps(x, ensure_ascii=False))
        elif isinstance(x, (dict, list)) and x:
            if in_seq:
                sub = []
                self._block(x, ind + 2, sub)
                sub[0] = head + " " + sub[0][ind + 2:]
                out.extend(sub)
            else:
                out.append(head)
                nested = ind + 2 if isinstance(x, dict) or self.seq_indent else ind
                self._block(x, nested, out)
        elif isinstance(x, dict):
            out.append(head + " {}")
        elif isinstance(x, list):
            out.append(head + " []")
        elif (isinstance(x, str) and not isinstance(x, Raw) and "\n" in x
              and self._literal_ok(x)):
            body = x.rstrip("\n")
            trail = len(x) - len(body)
            out.append(head + " " + {0: "|-", 1: "|"}.get(trail, "|+"))
            for line in body.split("\n"):
                out.append(" " * (ind + 2) + line if line else "")
            out.extend([""] * max(0, trail - 1))
        else:
            s = self.scalar(x)
            out.append(head + (" " + s if s else ""))

    def dump(self, v):
        out = []
        self._block(v, 0, out)
        return "\n".join(out) + "\n"

    def dump_all(self, docs):
        text = "---\n".join(self.dump(d) for d in docs)
        if self.rng.random() < 0.2:
            text = "---\n" + text
        if self.rng.random() < 0.1:
            text = "# generated by difftest\n" + text
        return text


def has_raw(v):
    if isinstance(v, Raw):
        return True
    if isinstance(v, dict):
        return any(has_raw(k) or has_raw(x) for k, x in v.items())
    if isinstance(v, list):
        return any(has_raw(x) for x in v)
    return False


# --------------------------------------------------------------------------------------
# Values.

LONG = ("a long value that goes well past the eighty columns where go-yaml folds "
        "plain scalars, with words")
LONG_WORD = "x" * 95
ODD_STRINGS = [
    "yes", "no", "on", "off", "y", "True", "NULL", "~", "012", "0o14", "1e3", "0x1F",
    "1_000", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "1:20", ".inf", "-.5", "+12",
    "3.0", "1.50", "0b101", "a: b", "#not a comment", "x #y", " leading space",
    "trailing space ", "", "ünïcödé ✓", "日本語", "emoji 🚀", "- dash", "[bracket",
    "{brace}", "*star", "&amp", "!bang", "%pct", "@at", "`tick", 'say "hi"', "it's",
    "back\\slash", "tab\there", LONG, LONG_WORD, "multi\nline\n", "multi\nline no end",
    "  indented\nlines", "ends\n\n", "=equals", "key=value", "100%", ":colon", "?q",
    "|pipe", ">gt", "a,b", "https://example.com/x?y=1#z", "$(NOT_A_VAR)", "null",
    "9223372036854775808", "-", "'single'", '"double"',
]
ODD_RAW = [
    "yes", "no", "on", "Off", "y", "true", "False", "012", "0o14", "1e3", "0x1F", "1_000",
    "2024-01-01", "1:20", "~", "null", "3.0", "1.50", "-0", "+12",
    "0b101", "123456789012345678901234567890", "9223372036854775808", "0.1e-2", "007",
    "1.0e+3", "0.", "1e", "2024-01-01T10:00:00Z",
]
SAFE_WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
              "india", "juliet", "kilo", "lima"]


def odd_value(rng, raw_ok=True):
    """A scalar for a field whose type does not matter (annotations, data, custom fields)."""
    r = rng.random()
    if raw_ok and r < 0.25:
        return Raw(rng.choice(ODD_RAW))
    if r < 0.75:
        return rng.choice(ODD_STRINGS)
    if r < 0.85:
        return rng.choice([0, 1, 42, -3, 3.5, 1e21, True, False, None])
    return rng.choice(SAFE_WORDS)


def str_value(rng):
    """A string for a field that must be a string (kustomization string fields)."""
    return rng.choice(ODD_STRINGS) if rng.random() < 0.5 else rng.choice(SAFE_WORDS)


def label_value(rng):
    # Label values Kubernetes would accept, plus strings YAML 1.1 would read as other types.
    return rng.choice(["v1", "blue", "green", "team-a", "x.y_z", "yes", "012", "1e3",
                       "true", "on", "2024-01-01", "0x1F", ""])


def b64(s):
    return base64.b64encode(s.encode()).decode()


def digest(rng):
    return "sha256:" + hashlib.sha256(str(rng.random()).encode()).hexdigest()


# image reference → the name images: entries use
IMAGES = [
    ("nginx", "nginx"), ("nginx:1.21", "nginx"), ("busybox:1.36", "busybox"),
    ("registry.example.com/team/app:v1.2.3", "registry.example.com/team/app"),
    ("postgres@sha256:" + "a" * 64, "postgres"), ("ghcr.io/org/tool:latest", "ghcr.io/org/tool"),
    ("redis", "redis"), ("localhost:5000/img:tag", "localhost:5000/img"),
    ("alpine:3.19@sha256:" + "b" * 64, "alpine"), ("docker.io/library/nginx:1.25", "docker.io/library/nginx"),
]
IMAGE_NAMES = sorted({n for _, n in IMAGES}) + ["not-used"]

APPS = ["web", "api", "db", "cache", "worker", "auth", "shop", "search", "queue", "mail"]
KAPI = "kustomize.config.k8s.io/v1beta1"
CAPI = "kustomize.config.k8s.io/v1alpha1"


# --------------------------------------------------------------------------------------
# The resource model: what the generator knows of each resource it can refer to.


class Res:
    def __init__(self, api, kind, name, doc=None, labels=None, generated=False, keys=(),
                 cluster=False):
        self.api, self.kind, self.name = api, kind, name
        self.doc = doc                  # the document as written (None for generated ones)
        self.labels = dict(labels or {})
        self.generated = generated
        self.keys = list(keys)          # data keys (ConfigMap, Secret)
        self.cluster = cluster
        self.ns = None
        self.cur = name                 # the name after the prefixes and suffixes so far
        self.ambiguous = False          # the original name is shared (a diamond): use cur
        self.born = None                # the node whose generator made it

    @property
    def group(self):
        return self.api.split("/")[0] if "/" in self.api else ""

    @property
    def version(self):
        return self.api.split("/")[-1]

    def copy(self):
        r = Res(self.api, self.kind, self.name, self.doc, self.labels, self.generated,
                self.keys, self.cluster)
        r.ns, r.cur, r.ambiguous, r.born = self.ns, self.cur, self.ambiguous, self.born
        return r

    def ref(self, rng):
        """(name, namespace) a patch can use to find this resource: the original name, or
        the current name with the current namespace (the only choice in a diamond)."""
        if self.ambiguous or chance(rng, 0.25):
            return self.cur, self.ns
        return self.name, None

    def ref_name(self, rng):
        return self.cur if self.ambiguous or chance(rng, 0.25) else self.name


class Node:
    """One kustomization (or component) directory."""

    def __init__(self, tree, path, component=False):
        self.tree = tree
        self.path = path            # relative to the tree root, "." for the root
        self.component = component
        self.k = {}                 # kustomization fields, in insertion order
        self.files = {}             # path relative to the node → text
        self.visible = []           # resources in scope while generating this node
        self.nfile = 0

    def rel(self, other):
        return os.path.relpath(other.path, self.path)

    def add_file(self, stem, text, ext=".yaml"):
        self.nfile += 1
        name = f"{stem}{ext}" if f"{stem}{ext}" not in self.files else f"{stem}-{self.nfile}{ext}"
        self.files[name] = text
        return name

    def kustomization_text(self):
        rng = self.tree.rng
        head = {}
        if not self.component:
            if rng.random() < 0.8:
                head["apiVersion"] = KAPI
                head["kind"] = "Kustomization"
        else:
            head["apiVersion"] = CAPI
            head["kind"] = "Component"
        items = list(self.k.items())
        if rng.random() < 0.5:
            rng.shuffle(items)
        body = dict(head)
        body.update(items)
        text = Yaml(rng).dump(body) if body else "{}\n"
        return text


class Tree:
    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.notes = []           # what the tree is made of, for the report
        self.invalid = None       # the mutation applied on purpose, if any
        self.diamond = False
        self.var_names = set()
        self.ngen = 0

    def node(self, path, component=False):
        n = Node(self, path, component)
        self.nodes.append(n)
        return n

    def files(self):
        out = {}
        for n in self.nodes:
            for name, text in n.files.items():
                out[os.path.normpath(os.path.join(n.path, name))] = text
            out[os.path.normpath(os.path.join(n.path, "kustomization.yaml"))] = n.kustomization_text()
        return out


def chance(rng, p):
    return rng.random() < p


def container(rng, name, cms, secrets, var_ref):
    image, _ = rng.choice(IMAGES)
    c = {"name": name, "image": image}
    if chance(rng, 0.5):
        c["ports"] = [{"containerPort": rng.choice([80, 8080, 9090]), "name": "http"}]
    env = []
    if chance(rng, 0.6):
        env.append({"name": "LOG_LEVEL", "value": odd_value(rng)})
    if cms and chance(rng, 0.6):
        cm = rng.choice(cms)
        env.append({"name": "FROM_CM", "valueFrom": {"configMapKeyRef": {
            "name": cm.name, "key": rng.choice(cm.keys or ["missing"])}}})
    if secrets and chance(rng, 0.5):
        s = rng.choice(secrets)
        env.append({"name": "PASSWORD", "valueFrom": {"secretKeyRef": {
            "name": s.name, "key": rng.choice(s.keys or ["password"])}}})
    if var_ref and chance(rng, 0.6):
        env.append({"name": "PEER", "value": f"http://$({var_ref}):80/"})
    if env:
        c["env"] = env
    if chance(rng, 0.5):
        ef = []
        if cms:
            ef.append({"configMapRef": {"name": rng.choice(cms).name}})
        if secrets and chance(rng, 0.5):
            ef.append({"secretRef": {"name": rng.choice(secrets).name}})
        if ef:
            c["envFrom"] = ef
    if chance(rng, 0.4):
        c["args"] = ["--listen=:8080"] + ([f"--peer=$({var_ref})"] if var_ref else [])
    if chance(rng, 0.3):
        c["resources"] = {"limits": {"cpu": Raw(rng.choice(["1", "0.5", "500m"])),
                                     "memory": "128Mi"}}
    return c


def pod_spec(rng, app, cms, secrets, sa, pvc, var_ref):
    spec = {"containers": [container(rng, "app", cms, secrets, var_ref)]}
    if chance(rng, 0.3):
        spec["containers"].append(container(rng, "sidecar", cms, secrets, None))
    if chance(rng, 0.15):
        spec["initContainers"] = [container(rng, "init", cms, [], None)]
    vols, mounts = [], []
    if cms and chance(rng, 0.7):
        cm = rng.choice(cms)
        vols.append({"name": "config", "configMap": {"name": cm.name}})
        mounts.append({"name": "config", "mountPath": "/etc/config"})
    if secrets and chance(rng, 0.5):
        s = rng.choice(secrets)
        vols.append({"name": "secret", "secret": {"secretName": s.name}})
        mounts.append({"name": "secret", "mountPath": "/etc/secret", "readOnly": True})
    if pvc and chance(rng, 0.7):
        vols.append({"name": "data", "persistentVolumeClaim": {"claimName": pvc.name}})
        mounts.append({"name": "data", "mountPath": "/data"})
    if chance(rng, 0.2):
        vols.append({"name": "scratch", "emptyDir": {}})
    if vols:
        spec["volumes"] = vols
        spec["containers"][0]["volumeMounts"] = mounts
    if sa and chance(rng, 0.8):
        spec["serviceAccountName"] = sa.name
    if secrets and chance(rng, 0.2):
        spec["imagePullSecrets"] = [{"name": rng.choice(secrets).name}]
    return spec


def meta(rng, name, labels=None):
    m = {"name": name}
    if labels:
        m["labels"] = dict(labels)
    if chance(rng, 0.3):
        m["annotations"] = {rng.choice(["note", "example.com/owner", "a.b/c"]): odd_value(rng)}
    return m


# --------------------------------------------------------------------------------------
# Bases.


def gen_generator_literals(rng, n):
    lits = []
    keys = []
    for i in range(n):
        key = rng.choice(["LOG_LEVEL", "MODE", "PORT", "FLAG", "URL", "NOTE", "EMPTY",
                          "dotted.key", "dash-key"]) + ("" if i == 0 else str(i))
        v = odd_value(rng, raw_ok=False)
        if not isinstance(v, str):
            v = json.dumps(v) if v is not None else "null"
        if chance(rng, 0.1):
            v = '"' + v.replace('"', "") + '"'
        lits.append(f"{key}={v}")
        keys.append(key)
    return lits, keys


def env_file(rng):
    lines, keys = [], []
    if chance(rng, 0.3):
        lines.append("# a comment")
    for i in range(rng.randint(1, 4)):
        key = rng.choice(["DB_HOST", "DB_PORT", "FEATURE_X", "GREETING", "PATH_LIKE"]) + str(i)
        v = rng.choice(["db.local", "5432", "yes", "hello world", "a=b=c", " padded",
                        "quoted 'x'", "ünï", "", "0x1F", "#hash"])
        lines.append(f"{key}={v}")
        keys.append(key)
        if chance(rng, 0.2):
            lines.append("")
    return "\n".join(lines) + ("\n" if chance(rng, 0.8) else ""), keys


def file_content(rng):
    return rng.choice([
        "key: value\nother: 1\n",
        "plain text without newline",
        "line one\nline two\n\n",
        "# properties\nlog.level=debug\nmax=10\n",
        "{\"json\": true, \"n\": 012}\n",
        "  leading spaces\ttab\n",
        "ünïcödé ✓ 日本語\n",
        "",
        LONG + "\n" + LONG_WORD + "\n",
    ])


def gen_cm_generator(node, rng, name, secret=False, behavior=None, namespace=None):
    """A configMapGenerator/secretGenerator entry (and its files); returns (entry, keys)."""
    g = {"name": name}
    if behavior:
        g["behavior"] = behavior
    if namespace:
        g["namespace"] = namespace
    keys = []
    if secret and chance(rng, 0.3):
        t = rng.choice(["Opaque", "kubernetes.io/tls", "kubernetes.io/basic-auth", "example.com/custom"])
        if behavior is None or chance(rng, 0.3):
            g["type"] = t
    r = rng.random()
    if r < 0.6 or behavior:
        lits, keys = gen_generator_literals(rng, rng.randint(1, 3))
        g["literals"] = lits
    if r >= 0.4 and chance(rng, 0.6):
        files = []
        for i in range(rng.randint(1, 2)):
            fname = node.add_file(f"files/{name}-{i}", file_content(rng),
                                  rng.choice([".txt", ".properties", ".conf", ""]))
            if chance(rng, 0.5):
                key = rng.choice(["config.txt", "app.properties", "k", "weird.key-1"]) + str(i)
                files.append(f"{key}={fname}")
                keys.append(key)
            else:
                files.append(fname)
                keys.append(os.path.basename(fname))
        g["files"] = files
    if (r >= 0.7 or not keys) and chance(rng, 0.8):
        text, ekeys = env_file(rng)
        g["envs"] = [node.add_file(f"{name}", text, ".env")]
        keys += ekeys
    if chance(rng, 0.25):
        opts = {}
        if chance(rng, 0.5):
            opts["labels"] = {"gen": label_value(rng)}
        if chance(rng, 0.5):
            opts["annotations"] = {"gen/note": str_value(rng)}
        if chance(rng, 0.4):
            opts["disableNameSuffixHash"] = True
        if chance(rng, 0.2):
            opts["immutable"] = True
        g["options"] = opts
    return g, keys


def gen_base(tree, path, app, first, shared):
    """A base: resource files of several kinds and generators. `shared`: the base is reached
    twice (diamond), so no kinds a name prefix leaves alone, no vars."""
    rng = tree.rng
    node = tree.node(path)
    res = []
    cms, secrets = [], []
    if chance(rng, 0.75):
        g, keys = gen_cm_generator(node, rng, f"{app}-config")
        node.k.setdefault("configMapGenerator", []).append(g)
        cms.append(Res("v1", "ConfigMap", g["name"], generated=True, keys=keys))
    if chance(rng, 0.5):
        g, keys = gen_cm_generator(node, rng, f"{app}-secret", secret=True)
        node.k.setdefault("secretGenerator", []).append(g)
        secrets.append(Res("v1", "Secret", g["name"], generated=True, keys=keys))
    if (cms or secrets) and chance(rng, 0.25):
        opts = {}
        if chance(rng, 0.5):
            opts["disableNameSuffixHash"] = True
        if chance(rng, 0.5):
            opts["labels"] = {"generated": "true"}
        if chance(rng, 0.4):
            opts["annotations"] = {"generated-by": str_value(rng)}
        node.k["generatorOptions"] = opts

    labels = {"app": app}
    if chance(rng, 0.4):
        labels["tier"] = rng.choice(["frontend", "backend"])
    docs = []

    def add(api, kind, name, doc, cluster=False, keys=()):
        docs.append(doc)
        r = Res(api, kind, name, doc, doc["metadata"].get("labels"), keys=keys, cluster=cluster)
        res.append(r)
        return r

    if chance(rng, 0.5):
        data = {k: odd_value(rng) for k in rng.sample(["a", "b", "port", "url", "flag", "x.y"], 3)}
        cms.append(add("v1", "ConfigMap", f"{app}-static",
                       {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(rng, f"{app}-static"),
                        "data": data}, keys=list(data)))
    if chance(rng, 0.35):
        doc = {"apiVersion": "v1", "kind": "Secret", "metadata": meta(rng, f"{app}-creds"),
               "type": "Opaque"}
        if chance(rng, 0.5):
            doc["data"] = {"password": b64("hunter2"), "user": b64("admin")}
        else:
            doc["stringData"] = {"password": str_value(rng), "user": "admin"}
        secrets.append(add("v1", "Secret", f"{app}-creds", doc, keys=["password", "user"]))
    sa = None
    if chance(rng, 0.6):
        sa = add("v1", "ServiceAccount", f"{app}-sa",
                 {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(rng, f"{app}-sa")})
    pvc = None
    if chance(rng, 0.2):
        pvc = add("v1", "PersistentVolumeClaim", f"{app}-data", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta(rng, f"{app}-data"),
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
    var_ref = None
    if not shared and chance(rng, 0.3):
        var_ref = f"{app.upper()}_SVC"
    if chance(rng, 0.8):
        add("apps/v1", "Deployment", app, {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(rng, app, labels),
            "spec": {"replicas": rng.choice([1, 2, 3]), "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)},
                                  "spec": pod_spec(rng, app, cms, secrets, sa, pvc, var_ref)}}})
    if chance(rng, 0.7):
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": meta(rng, app, labels),
               "spec": {"selector": dict(labels),
                        "ports": [{"name": "http", "port": 80, "targetPort": rng.choice([8080, "http"])}]}}
        if chance(rng, 0.2):
            svc["spec"]["type"] = "NodePort"
        add("v1", "Service", app, svc)
    if chance(rng, 0.25):
        add("apps/v1", "StatefulSet", f"{app}-db", {
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": meta(rng, f"{app}-db", {"app": f"{app}-db"}),
            "spec": {"serviceName": f"{app}-db", "replicas": 1,
                     "selector": {"matchLabels": {"app": f"{app}-db"}},
                     "template": {"metadata": {"labels": {"app": f"{app}-db"}},
                                  "spec": pod_spec(rng, app, cms, secrets, sa, None, None)},
                     "volumeClaimTemplates": [{"metadata": {"name": "pgdata"}, "spec": {
                         "accessModes": ["ReadWriteOnce"],
                         "resources": {"requests": {"storage": "5Gi"}}}}]}})
        add("v1", "Service", f"{app}-db", {
            "apiVersion": "v1", "kind": "Service", "metadata": meta(rng, f"{app}-db"),
            "spec": {"clusterIP": "None", "selector": {"app": f"{app}-db"},
                     "ports": [{"port": 5432}]}})
    if sa and chance(rng, 0.5):
        add("rbac.authorization.k8s.io/v1", "Role", f"{app}-role", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": meta(rng, f"{app}-role"),
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]})
        subj = {"kind": "ServiceAccount", "name": sa.name}
        if chance(rng, 0.4):
            subj["namespace"] = rng.choice(["default", "other"])
        add("rbac.authorization.k8s.io/v1", "RoleBinding", f"{app}-rb", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": meta(rng, f"{app}-rb"),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": f"{app}-role"},
            "subjects": [subj]})
    if sa and chance(rng, 0.25):
        add("rbac.authorization.k8s.io/v1", "ClusterRole", f"{app}-reader", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": meta(rng, f"{app}-reader"),
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}, cluster=True)
        add("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", f"{app}-reader", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": meta(rng, f"{app}-reader"),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": f"{app}-reader"},
            "subjects": [{"kind": "ServiceAccount", "name": sa.name,
                          "namespace": rng.choice(["default", "apps"])}]}, cluster=True)
    services = [r for r in res if r.kind == "Service"]
    if services and chance(rng, 0.4):
        svc = services[0]
        ing = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta(rng, app),
               "spec": {"rules": [{"host": f"{app}.example.com", "http": {"paths": [{
                   "path": "/", "pathType": "Prefix",
                   "backend": {"service": {"name": svc.name, "port": {"number": 80}}}}]}}]}}
        if secrets and chance(rng, 0.5):
            ing["spec"]["tls"] = [{"hosts": [f"{app}.example.com"], "secretName": secrets[0].name}]
        add("networking.k8s.io/v1", "Ingress", app, ing)
    if chance(rng, 0.3):
        add("batch/v1", "CronJob", f"{app}-backup", {
            "apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(rng, f"{app}-backup", labels),
            "spec": {"schedule": rng.choice(["0 * * * *", "*/5 * * * *", "@daily"]),
                     "jobTemplate": {"spec": {"template": {"spec": dict(
                         pod_spec(rng, app, cms, secrets, sa, None, None), restartPolicy="OnFailure")}}}}})
    deps = [r for r in res if r.kind == "Deployment"]
    if deps and chance(rng, 0.2):
        add("autoscaling/v2", "HorizontalPodAutoscaler", app, {
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta(rng, app),
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": deps[0].name},
                     "minReplicas": 1, "maxReplicas": 5}})
    if chance(rng, 0.15):
        add("networking.k8s.io/v1", "NetworkPolicy", f"{app}-allow", {
            "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": meta(rng, f"{app}-allow"),
            "spec": {"podSelector": {"matchLabels": dict(labels)}, "policyTypes": ["Ingress"]}})
    if chance(rng, 0.35):
        group = f"{app}.example.com"
        if not shared and chance(rng, 0.6):
            add("apiextensions.k8s.io/v1", "CustomResourceDefinition", f"widgets.{group}", {
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": f"widgets.{group}"},
                "spec": {"group": group, "names": {"kind": "Widget", "plural": "widgets"},
                         "scope": "Namespaced",
                         "versions": [{"name": "v1", "served": True, "storage": True,
                                       "schema": {"openAPIV3Schema": {"type": "object",
                                                  "x-kubernetes-preserve-unknown-fields": True}}}]}},
                cluster=True)
        spec = {"size": odd_value(rng), "selector": {"matchLabels": dict(labels)},
                "items": [{"name": "one", "value": odd_value(rng)}, {"name": "two"}]}
        if cms:
            spec["configMapName"] = cms[0].name
        if chance(rng, 0.3):
            spec["image"] = rng.choice(IMAGES)[0]
        if chance(rng, 0.3):
            spec["note"] = odd_value(rng)
        add(f"{group}/v1", "Widget", f"{app}-widget", {
            "apiVersion": f"{group}/v1", "kind": "Widget", "metadata": meta(rng, f"{app}-widget", labels),
            "spec": spec})
    if first and not shared and chance(rng, 0.2):
        add("v1", "Namespace", f"{app}-ns", {"apiVersion": "v1", "kind": "Namespace",
                                               "metadata": meta(rng, f"{app}-ns")}, cluster=True)
    if not docs:
        cms.append(add("v1", "ConfigMap", f"{app}-static", {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{app}-static"},
            "data": {"k": "v"}}, keys=["k"]))

    write_resource_files(node, rng, docs, app)
    if var_ref and any(r.kind == "Service" and r.name == app for r in res) and chance(rng, 0.7):
        tree.var_names.add(var_ref)
        v = {"name": var_ref, "objref": {"apiVersion": "v1", "kind": "Service", "name": app}}
        if chance(rng, 0.4):
            v["fieldref"] = {"fieldpath": rng.choice(["metadata.name", "spec.ports[0].port",
                                                      "metadata.labels.app", "spec.ports[0].name"])}
        node.k["vars"] = [v]
    gen_fields(tree, node, res + cms + secrets, base=True, shared=shared)
    # Not in a base reached twice: its chart's resources would clash (as in kustomize).
    if chance(tree.helm_rng, 0.3) and not shared:
        gen_helm_chart(tree, node, app)
    exports = [r for r in res + [c for c in cms if c.generated] + [s for s in secrets if s.generated]]
    return node, finish_exports(node, exports)


# Charts for tests/helm-standin/helm (kbuild's stand-in for helm; see its docstring): the
# builders run with --enable-helm --helm-command STANDIN.
STANDIN = os.path.join(REPO, "tests", "helm-standin", "helm")

CHART_TEMPLATES = {
    "deployment.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
  labels:
    chart: {{ .Chart.Name }}-{{ .Chart.Version }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      release: {{ .Release.Name }}
  template:
    metadata:
      labels:
        release: {{ .Release.Name }}
    spec:
      containers:
      - name: main
        image: {{ .Values.image }}
        envFrom:
        - configMapRef:
            name: {{ .Release.Name }}-settings
""",
    "configmap.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
  namespace: {{ .Release.Namespace }}
data:
  mode: "{{ .Values.mode }}"
  level: "{{ .Values.settings.level }}"
""",
    "service.yaml": """# standin-if .Values.service.enabled
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-svc
spec:
  selector:
    release: {{ .Release.Name }}
  ports:
  - port: {{ .Values.service.port }}
""",
    "hook.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    helm.sh/hook: pre-install
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: {{ .Values.image }}
""",
}

CHART_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.{app}.example.com
spec:
  group: {app}.example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
"""


def gen_helm_chart(tree, node, app):
    """A vendored chart in the base's chart home and a helmCharts entry using it."""
    rng = tree.helm_rng
    chart = rng.choice(["web", "worker"])
    home = "charts"
    if chance(rng, 0.3):
        home = "vendor"
        node.k["helmGlobals"] = {"chartHome": home}
    y = Yaml(rng)
    node.files[f"{home}/{chart}/Chart.yaml"] = y.dump({"apiVersion": "v2", "name": chart, "version": "1.2.3"})
    values = {"replicas": rng.choice([1, 2]), "image": f"example/{chart}:1.0", "mode": "prod",
              "settings": {"level": "info"}, "service": {"enabled": chance(rng, 0.6), "port": 80}}
    node.files[f"{home}/{chart}/values.yaml"] = y.dump(values)
    for name, text in CHART_TEMPLATES.items():
        node.files[f"{home}/{chart}/templates/{name}"] = text
    node.files[f"{home}/{chart}/crds/widget.yaml"] = CHART_CRD.replace("{app}", app)
    entry = {"name": chart}
    if chance(rng, 0.8):
        entry["releaseName"] = f"{app}-{rng.choice(['rel', 'r2'])}"
    if chance(rng, 0.4):
        entry["namespace"] = rng.choice(["charts", "apps"])
    if chance(rng, 0.5):
        inline = {}
        if chance(rng, 0.6):
            inline["replicas"] = rng.choice([3, 5])
        if chance(rng, 0.5):
            inline["settings"] = {"level": rng.choice(["debug", "warn"])}
        if chance(rng, 0.3):
            inline["service"] = {"enabled": True, "port": 8080}
        entry["valuesInline"] = inline
        if chance(rng, 0.5):
            entry["valuesMerge"] = rng.choice(["override", "merge", "replace"])
    if chance(rng, 0.3):
        extra = node.add_file(f"{chart}-values", y.dump({"mode": rng.choice(["staging", "canary"])}))
        entry["additionalValuesFiles"] = [extra]
    if chance(rng, 0.4):
        entry["includeCRDs"] = True
    if chance(rng, 0.5):
        entry["skipHooks"] = True
    if chance(rng, 0.2):
        entry["kubeVersion"] = "1.31.0"
    node.k.setdefault("helmCharts", []).append(entry)
    tree.notes.append("helm")



def write_resource_files(node, rng, docs, stem):
    """Splits documents over files: multi-document files, a List, JSON; lists them in
    `resources:` (or, rarely, a directory of plain files is not possible, so files only)."""
    docs = list(docs)
    if chance(rng, 0.3):
        rng.shuffle(docs)
    groups = []
    while docs:
        n = rng.randint(1, max(1, len(docs)))
        groups.append(docs[:n])
        docs = docs[n:]
    names = []
    for i, group in enumerate(groups):
        y = Yaml(rng)
        if len(group) == 1 and chance(rng, 0.1) and not has_raw(group[0]):
            names.append(node.add_file(f"{stem}-{i}", json.dumps(group[0], indent=2, ensure_ascii=False) + "\n", ".json"))
            continue
        if len(group) > 1 and chance(rng, 0.12):
            text = y.dump({"apiVersion": "v1", "kind": "List", "items": group})
        else:
            text = y.dump_all(group)
            if chance(rng, 0.08):
                text += "---\n"
        names.append(node.add_file(f"{stem}-{group[0]['kind'].lower()}", text))
    node.k.setdefault("resources", []).extend(names)


def renamed(r, k):
    """r after the namespace, namePrefix and nameSuffix of kustomization fields k."""
    r = r.copy()
    ns, prefix, suffix = k.get("namespace"), k.get("namePrefix"), k.get("nameSuffix")
    if isinstance(ns, str) and not r.cluster:
        r.ns = ns
    if r.kind not in ("Namespace", "CustomResourceDefinition"):
        r.cur = (prefix if isinstance(prefix, str) else "") + r.cur + (suffix if isinstance(suffix, str) else "")
    return r


def finish_exports(node, exports):
    """What a parent sees of this node's resources."""
    return [renamed(r, node.k) for r in exports]


# --------------------------------------------------------------------------------------
# Kustomization fields, for bases, overlays and components alike.


def pick(rng, rs, pred=lambda r: True):
    cands = [r for r in rs if pred(r)]
    return rng.choice(cands) if cands else None


def target_for(rng, r, narrow=False):
    """A patch or selector target that picks resource r (narrow: r alone; else maybe others)."""
    t = {}
    name = r.ref_name(rng)
    style = rng.random() * (0.5 if narrow else 1)
    if style < 0.35:
        t = {"kind": r.kind, "name": name}
    elif style < 0.5:
        t = {"group": r.group, "version": r.version, "kind": r.kind, "name": name}
        if not r.group:
            del t["group"]
    elif narrow:
        t = {"kind": r.kind, "name": name, "version": r.version}
    elif style < 0.6 and r.labels:
        k = rng.choice(sorted(r.labels))
        t = {"labelSelector": f"{k}={r.labels[k]}"}
        if chance(rng, 0.5):
            t["kind"] = r.kind
    elif style < 0.7:
        t = {"kind": r.kind, "name": rng.choice([name[:2] + ".*", f"({name}|nothing)", name + "$"])}
    elif style < 0.78:
        t = {"kind": r.kind}
    elif style < 0.84 and r.doc and r.doc["metadata"].get("annotations"):
        k = sorted(r.doc["metadata"]["annotations"])[0]
        t = {"annotationSelector": k, "kind": r.kind}
    elif style < 0.9:
        t = {"kind": f"{r.kind}|ConfigMap"}
    else:
        t = {"name": name}
        if r.ns and chance(rng, 0.5):
            t["namespace"] = r.ns
    return t


def smp_body(rng, r, node):
    """A strategic-merge patch body for resource r (without apiVersion/kind/metadata.name)."""
    k = r.kind
    gen_cms = [x for x in node.visible if x.kind == "ConfigMap"]
    if k in ("Deployment", "StatefulSet", "DaemonSet"):
        choice = rng.random()
        if choice < 0.2:
            return {"spec": {"replicas": rng.choice([0, 2, 5])}}
        if choice < 0.45:
            c = {"name": rng.choice(["app", "app", "sidecar", "extra"])}
            if chance(rng, 0.5):
                c["image"] = rng.choice(IMAGES)[0]
            c["env"] = [{"name": rng.choice(["LOG_LEVEL", "NEW_VAR"]), "value": odd_value(rng)}]
            return {"spec": {"template": {"spec": {"containers": [c]}}}}
        if choice < 0.6 and gen_cms:
            cm = rng.choice(gen_cms)
            return {"spec": {"template": {"spec": {"volumes": [
                {"name": "extra", "configMap": {"name": cm.name}}]}}}}
        if choice < 0.7:
            return {"spec": {"template": {"metadata": {"annotations": {"patched": odd_value(rng)}}}}}
        if choice < 0.78:
            return {"spec": {"template": {"spec": {"containers": [
                {"name": "app", "$patch": "delete"}]}}}}
        if choice < 0.85:
            return {"spec": {"template": {"spec": {"volumes": None, "serviceAccountName": None}}}}
        if choice < 0.92:
            return {"spec": {"template": {"spec": {"$setElementOrder/containers": [
                {"name": "sidecar"}, {"name": "app"}], "containers": [{"name": "sidecar", "image": "busybox"}]}}}}
        return {"spec": {"strategy": {"type": "Recreate"}}}
    if k == "Service":
        choice = rng.random()
        if choice < 0.4:
            return {"spec": {"ports": [{"port": 80, "name": "http", "targetPort": 9090},
                                       {"port": 443, "name": "https"}]}}
        if choice < 0.6:
            return {"spec": {"type": "LoadBalancer"}}
        return {"spec": {"selector": {"extra": label_value(rng)}}}
    if k == "ConfigMap":
        d = {rng.choice(["a", "new", "port"]): odd_value(rng)}
        if r.keys and chance(rng, 0.3):
            gone = rng.choice(r.keys)
            d[gone] = None
            r.keys.remove(gone)
        return {"data": d}
    if k == "Secret":
        return {"stringData": {"extra": str_value(rng)}}
    if k == "Widget":
        return {"spec": {"size": odd_value(rng), "items": [{"name": "three"}],
                         "selector": {"matchLabels": {"patched": "yes"}}}}
    if k == "CronJob":
        return {"spec": {"schedule": "15 3 * * *", "suspend": True}}
    if k == "Ingress":
        return {"spec": {"ingressClassName": "nginx"}}
    if k in ("RoleBinding", "ClusterRoleBinding"):
        return {"subjects": [{"kind": "ServiceAccount", "name": "other", "namespace": "x"}]}
    if chance(rng, 0.15):
        return {"$patch": "delete"}
    return {"metadata": {"labels": {"patched": label_value(rng)},
                         "annotations": {"patched": odd_value(rng)}}}


def smp_doc(rng, r, node, name=None):
    body = smp_body(rng, r, node)
    ref_name, ref_ns = r.ref(rng)
    m = {"name": name or ref_name}
    if ref_ns and (name is None or chance(rng, 0.3)):
        m["namespace"] = ref_ns
    doc = {"apiVersion": r.api, "kind": r.kind, "metadata": m}
    for k, v in body.items():
        if k == "metadata":
            m.update(v)
        else:
            doc[k] = v
    return doc


def json_pointer_paths(v, prefix=""):
    out = []
    if isinstance(v, dict):
        for k, x in v.items():
            p = prefix + "/" + str(k).replace("~", "~0").replace("/", "~1")
            out.append((p, x))
            out.extend(json_pointer_paths(x, p))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            p = f"{prefix}/{i}"
            out.append((p, x))
            out.extend(json_pointer_paths(x, p))
    return out


def plainify(v):
    """A value as JSON would hold it (Raw texts become strings)."""
    if isinstance(v, dict):
        return {str(k): plainify(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plainify(x) for x in v]
    if isinstance(v, Raw):
        return str(v)
    return v


def _stable(p, x):
    """A value no transformer of a lower level changes, so a `test` op can expect it."""
    if any(w in p for w in ("/labels", "/annotations", "/name", "/image", "/replicas", "/namespace",
                            "/selector", "/env", "/volumes", "/subjects", "/roleRef", "/backend")):
        return False
    if isinstance(x, bool) or isinstance(x, Raw):
        return False
    return isinstance(x, int) or (isinstance(x, str) and _PLAIN.match(x) and x.lower() not in _YAML11_WORDS)


def _tokens(path):
    return [t.replace("~1", "/").replace("~0", "~") for t in path.split("/")[1:]]


def _parent(doc, path):
    *head, last = _tokens(path)
    for t in head:
        doc = doc[int(t)] if isinstance(doc, list) else doc[t]
    return doc, last


def jp_apply(doc, op):
    """Applies one (valid) JSON 6902 operation to plain data, as the generator's model."""
    o = op["op"]
    if o == "test":
        return
    if o in ("move", "copy"):
        src, key = _parent(doc, op["from"])
        value = src[int(key)] if isinstance(src, list) else src[key]
        if o == "move":
            jp_apply(doc, {"op": "remove", "path": op["from"]})
        return jp_apply(doc, {"op": "add", "path": op["path"], "value": json.loads(json.dumps(value))})
    parent, key = _parent(doc, op["path"])
    value = json.loads(json.dumps(op.get("value")))     # the model must not share the op's value
    if isinstance(parent, list):
        if o == "remove":
            del parent[int(key)]
        elif o == "replace":
            parent[int(key)] = value
        elif key == "-":
            parent.append(value)
        else:
            parent.insert(int(key), value)
    elif o == "remove":
        del parent[key]
    else:
        parent[key] = value


def _same_type(rng, x):
    """A new value of the type x has (name references and var expansion want strings)."""
    if isinstance(x, bool):
        return not x
    if isinstance(x, int):
        return rng.choice([0, 7, 8080])
    if isinstance(x, str):
        return str_value(rng)
    return x


def json6902_ops(rng, r):
    """1-4 JSON 6902 operations on resource r, each valid on the document as written with
    the operations before it applied (a model: lower levels may have changed it)."""
    state = json.loads(json.dumps(plainify(r.doc or {"metadata": {}})))
    ops = []

    def paths():
        return [(p, x) for p, x in json_pointer_paths(state)
                if p not in ("/metadata", "/apiVersion", "/kind")
                and not p.startswith(("/metadata/name", "/metadata/namespace"))]

    tests = [(p, x) for p, x in paths() if _stable(p, x)]
    if tests and chance(rng, 0.2):
        p, x = rng.choice(tests)
        ops.append({"op": "test", "path": p, "value": x})
    for i in range(rng.randint(1, 3)):
        kind = rng.random()
        ps = paths()
        lists = [(p, x) for p, x in ps if isinstance(x, list) and x
                 and len({type(e) for e in x}) == 1 and isinstance(x[0], (dict, str))]
        meta = state.setdefault("metadata", {})
        # not from the annotations: kustomize keeps its bookkeeping there
        # (internal.config.kubernetes.io/*), a copy would print it
        sources = [(p, x) for p, x in ps if p != "/metadata/annotations"]
        # the copy/move branch, also reached from the list branch without lists
        if not sources and (kind >= 0.85 or (kind >= 0.7 and not lists)):
            kind = 0
        if kind < 0.3 or not ps:
            if isinstance(meta.get("labels"), dict):
                op = {"op": "add", "path": f"/metadata/labels/added{i}", "value": label_value(rng)}
            else:
                op = {"op": "add", "path": "/metadata/labels", "value": {"added": label_value(rng)}}
        elif kind < 0.55:
            p, x = rng.choice(ps)
            op = {"op": "replace", "path": p, "value": _same_type(rng, x)}
        elif kind < 0.7:
            p, _ = rng.choice(ps)
            op = {"op": "remove", "path": p}
        elif kind < 0.85 and lists:
            p, x = rng.choice(lists)
            value = ({"name": f"added{i}", "image": "busybox"} if "containers" in p else {"name": f"added{i}"}) \
                if isinstance(x[0], dict) else "added"
            op = {"op": "add", "path": p + "/-", "value": value}
        else:
            p, _ = rng.choice(sources)
            op = {"op": rng.choice(["copy", "move"]), "from": p, "path": f"/copied{i}"}
        jp_apply(state, op)
        ops.append(op)
    if r.kind in ("Deployment", "StatefulSet") and chance(rng, 0.3):
        op = {"op": "replace" if "replicas" in state.get("spec", {}) else "add", "path": "/spec/replicas",
              "value": rng.choice([0, 4, 7])}
        if isinstance(state.get("spec"), dict):
            jp_apply(state, op)
            ops.append(op)
    if r.kind == "ConfigMap" and r.doc is not None:
        r.keys = [k for k in (state.get("data") or {})] if isinstance(state.get("data"), dict) else []
    return ops


def json6902_text(rng, ops):
    r = rng.random()
    if r < 0.3:
        return json.dumps(ops, ensure_ascii=False) + ("\n" if chance(rng, 0.5) else "")
    return Yaml(rng).dump(ops)


def yaml_text(rng, doc):
    return Yaml(rng).dump(doc)


def forget(node, r):
    """r is deleted or renamed by a patch: later fields and levels no longer refer to it."""
    node.visible = [x for x in node.visible if x is not r]


def gen_patches(tree, node):
    rng = tree.rng
    vis = [r for r in node.visible if r.doc is not None or r.kind in ("ConfigMap", "Secret")]
    if not vis:
        return
    entries = []
    for _ in range(rng.randint(1, 3)):
        if not vis:
            break
        r = rng.choice(vis)
        rename = False
        if chance(rng, 0.55) or r.doc is None:
            # strategic merge
            if chance(rng, 0.45):
                doc = smp_doc(rng, r, node, name="ignored-when-targeted")
                entry = {"target": target_for(rng, r)}
            else:
                doc = smp_doc(rng, r, node)
                entry = {}
            if doc.get("$patch") == "delete" or (entry and chance(rng, 0.05)):
                forget(node, r)
                vis.remove(r)
                if doc.get("$patch") != "delete":
                    # the targeted patch's own name becomes the resource's name
                    entry = {"target": {"kind": r.kind, "name": r.name},
                             "options": {"allowNameChange": True}}
                    rename = True
            text = yaml_text(rng, doc)
        elif chance(rng, 0.25):
            # a wide target: operations that apply to any resource
            field = rng.choice(["labels", "annotations"])
            ops = [{"op": "add", "path": f"/metadata/{field}",
                    "value": {"json-patched": label_value(rng) if field == "labels" else str_value(rng)}}]
            text = json6902_text(rng, ops)
            entry = {"target": target_for(rng, r)}
        else:
            ops = json6902_ops(rng, r)
            entry = {"target": target_for(rng, r, narrow=True)}
            if chance(rng, 0.05):
                ops.append({"op": "replace", "path": "/metadata/name", "value": r.name + "-renamed"})
                entry = {"target": {"kind": r.kind, "name": r.name}, "options": {"allowNameChange": True}}
                forget(node, r)
                vis.remove(r)
                rename = True
            text = json6902_text(rng, ops)
        if not rename and chance(rng, 0.03):
            entry["options"] = {rng.choice(["allowNameChange", "allowKindChange"]): True}
        if chance(rng, 0.5):
            entry["patch"] = text
        else:
            entry["path"] = node.add_file("patch", text, rng.choice([".yaml", ".yaml", ".json", ".yml"])
                                          if text.startswith("[") else ".yaml")
        entries.append(dict(sorted(entry.items(), key=lambda kv: rng.random())))
    node.k.setdefault("patches", []).extend(entries)


def gen_psm(tree, node):
    rng = tree.rng
    vis = [r for r in node.visible if r.doc is not None or r.kind in ("ConfigMap", "Secret")]
    if not vis:
        return
    out = []
    for _ in range(rng.randint(1, 2)):
        if not vis:
            break
        r = rng.choice(vis)
        docs = [smp_doc(rng, r, node)]
        if chance(rng, 0.2):
            r2 = rng.choice(vis)
            if (r2.kind, r2.name) != (r.kind, r.name):
                docs.append(smp_doc(rng, r2, node))
        for d, x in zip(docs, (r, r2) if len(docs) > 1 else (r,)):
            if d.get("$patch") == "delete":
                forget(node, x)
                vis = [y for y in vis if y is not x]
        if chance(rng, 0.35) and len(docs) == 1:
            out.append(yaml_text(rng, docs[0]))
        else:
            out.append(node.add_file("smp", Yaml(rng).dump_all(docs)))
    node.k["patchesStrategicMerge"] = out


def gen_pj6902(tree, node):
    rng = tree.rng
    vis = [r for r in node.visible if r.doc is not None]
    if not vis:
        return
    out = []
    for _ in range(rng.randint(1, 2)):
        r = rng.choice(vis)
        t = {"version": r.version, "kind": r.kind, "name": r.name}
        if r.group:
            t["group"] = r.group
        if r.ns and chance(rng, 0.3):
            t["namespace"] = r.ns
        text = json6902_text(rng, json6902_ops(rng, r))
        e = {"target": t}
        if chance(rng, 0.3):
            e["patch"] = text
        else:
            e["path"] = node.add_file("json6902", text, ".yaml")
        out.append(e)
    node.k["patchesJson6902"] = out


def sel(r, rng):
    """A replacement selector for resource r alone."""
    s = {"kind": r.kind, "name": r.ref_name(rng)}
    if chance(rng, 0.3):
        s["version"] = r.version
        if r.group:
            s["group"] = r.group
    return s


def gen_replacement(rng, node):
    vis = node.visible
    templates = []
    svc = pick(rng, vis, lambda r: r.kind == "Service")
    ing = pick(rng, vis, lambda r: r.kind == "Ingress")
    dep = pick(rng, vis, lambda r: r.kind in ("Deployment", "StatefulSet"))
    cm = pick(rng, vis, lambda r: r.kind == "ConfigMap" and r.keys)
    wid = pick(rng, vis, lambda r: r.kind == "Widget")
    anyr = pick(rng, vis)
    if svc and ing:
        templates.append({"source": dict(sel(svc, rng)), "targets": [{
            "select": {"kind": "Ingress"},
            "fieldPaths": ["spec.rules.0.http.paths.0.backend.service.name"]}]})
    if cm and dep:
        key = rng.choice(cm.keys)
        templates.append({"source": dict(sel(cm, rng), fieldPath=f"data.{key}" if "." not in key
                                         else f"data.[{key}]"),
                          "targets": [{"select": {"kind": dep.kind, "name": dep.name},
                                       "fieldPaths": ["spec.template.spec.containers.[name=app].env.[name=FROM_REPL].value"],
                                       "options": {"create": True}}]})
    if dep:
        image = dep.doc["spec"]["template"]["spec"]["containers"][0]["image"] if dep.doc else "x"
        t = {"source": dict(sel(dep, rng), fieldPath="spec.template.spec.containers.0.image",
                            options={"delimiter": ":", "index": rng.randrange(len(image.split(":")))}),
             "targets": [{"select": {"kind": rng.choice(["Service", "ConfigMap", "Deployment"])},
                          "fieldPaths": ["metadata.annotations.image-tag"], "options": {"create": True}}]}
        if chance(rng, 0.4):
            t["targets"][0]["reject"] = [{"name": dep.name}]
        templates.append(t)
        templates.append({"source": dict(sel(dep, rng), fieldPath="metadata.labels.app"),
                          "targets": [{"select": {"kind": "Service"}, "fieldPaths": ["spec.selector.app"]}]})
        templates.append({"source": dict(sel(dep, rng), fieldPath="metadata.name"),
                          "targets": [{"select": {"kind": dep.kind},
                                       "fieldPaths": ["spec.template.spec.containers.*.imagePullPolicy"],
                                       "options": {"create": True}}]})
    if cm and wid:
        templates.append({"source": {"kind": "ConfigMap", "name": cm.ref_name(rng)},
                          "targets": [{"select": {"kind": "Widget"}, "fieldPaths": ["spec.configMapName"],
                                       "options": {"create": True}}]})
    if anyr and anyr.ns and not anyr.cluster:
        templates.append({"source": dict(sel(anyr, rng), fieldPath="metadata.namespace"),
                          "targets": [{"select": {"kind": "ConfigMap"},
                                       "fieldPaths": ["data.namespace"], "options": {"create": True}}]})
    if anyr:
        tgt = {"select": {"labelSelector": "app"} if chance(rng, 0.5) else {"kind": anyr.kind},
               "fieldPaths": [".metadata.annotations.[example.com/source]"], "options": {"create": True}}
        templates.append({"source": dict(sel(anyr, rng)), "targets": [tgt]})
    if not templates:
        return None
    return rng.choice(templates)


def gen_chained_replacements(rng, node):
    """Sometimes two replacements: one creates a field from a ConfigMap value, the next
    writes another value of it into that field (issue 32: untagged created fields)."""
    if not chance(rng, 0.3):
        return []
    cms = [r for r in node.visible if r.kind == "ConfigMap" and r.keys]
    deps = [r for r in node.visible if r.kind in ("Deployment", "StatefulSet")]
    if not cms or not deps:
        return []
    cm, dep = rng.choice(cms), rng.choice(deps)
    field = rng.choice(["spec.chained", "metadata.annotations.chained", "spec.template.metadata.labels.chained"])
    def src(key):
        return {"kind": "ConfigMap", "name": cm.ref_name(rng),
                "fieldPath": f"data.{key}" if "." not in key else f"data.[{key}]"}
    tgt = {"select": {"kind": dep.kind, "name": dep.name}, "fieldPaths": [field]}
    first = {"source": src(rng.choice(cm.keys)), "targets": [dict(tgt, options={"create": True})]}
    second = {"source": src(rng.choice(cm.keys)), "targets": [tgt]}
    return [first, second] if chance(rng, 0.7) else [first]


def gen_replacements(tree, node):
    rng = tree.rng
    reps = [r for r in (gen_replacement(rng, node) for _ in range(rng.randint(1, 2))) if r]
    if not reps:
        return
    if chance(rng, 0.3):
        # a file holds a list of replacements, or a single one
        single = len(reps) == 1 and chance(rng, 0.5)
        text = Yaml(rng).dump(reps[0] if single else reps)
        node.k["replacements"] = [{"path": node.add_file("replacements", text)}]
    else:
        node.k["replacements"] = reps
    # In a file of their own, written with their own generator, so that the main
    # generator's draws stay what they were.
    chain = gen_chained_replacements(tree.chain_rng, node)
    if chain:
        path = node.add_file("replacements-chain", Yaml(tree.chain_rng).dump(chain))
        node.k["replacements"].append({"path": path})


def gen_vars(tree, node):
    rng = tree.rng
    cands = [r for r in node.visible if r.kind in ("Service", "Deployment", "ConfigMap")]
    if not cands:
        return
    r = rng.choice(cands)
    name = f"{r.name.upper().replace('-', '_')}_{r.kind.upper()}"
    if name in tree.var_names:
        return
    tree.var_names.add(name)
    v = {"name": name, "objref": {"apiVersion": r.api, "kind": r.kind, "name": r.name}}
    fps = {"Service": ["metadata.name", "spec.ports[0].port", "metadata.namespace"],
           "Deployment": ["metadata.name", "spec.replicas", "spec.template.spec.containers[0].image"],
           "ConfigMap": ["metadata.name"] + [f"data.{k}" for k in r.keys if "." not in k]}[r.kind]
    if chance(rng, 0.7):
        v["fieldref"] = {"fieldpath": rng.choice(fps)}
    node.k.setdefault("vars", []).append(v)
    # and a reference to it, through a patch
    dep = pick(rng, node.visible, lambda x: x.kind == "Deployment")
    if dep and chance(rng, 0.8):
        doc = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": dep.name},
               "spec": {"template": {"spec": {"containers": [{"name": "app", "env": [
                   {"name": f"REF_{name}", "value": f"$({name})"}]}]}}}}
        node.k.setdefault("patches", []).append({"patch": yaml_text(rng, doc)})


def gen_configurations(tree, node):
    rng = tree.rng
    cfg = {}
    if chance(rng, 0.6):
        cfg["nameReference"] = [{"kind": "ConfigMap", "version": "v1", "fieldSpecs": [
            {"kind": "Widget", "path": "spec/configMapName"}]}]
        if chance(rng, 0.3):
            cfg["nameReference"].append({"kind": "Service", "fieldSpecs": [
                {"kind": "Widget", "path": "spec/serviceName"}]})
    if chance(rng, 0.5):
        cfg["commonLabels"] = [{"kind": "Widget", "path": "spec/selector/matchLabels", "create": True}]
    if chance(rng, 0.3):
        cfg["commonAnnotations"] = [{"kind": "Widget", "path": "spec/template/metadata/annotations",
                                     "create": rng.choice([True, False])}]
    if chance(rng, 0.3):
        cfg["varReference"] = [{"kind": "Widget", "path": "spec/note"}]
    if chance(rng, 0.3):
        cfg["images"] = [{"kind": "Widget", "path": "spec/image"}]
    if chance(rng, 0.2):
        cfg["namespace"] = [{"kind": "Widget", "path": "spec/targetNamespace", "create": True}]
    if not cfg:
        cfg["commonLabels"] = [{"kind": "Widget", "path": "spec/selector/matchLabels", "create": False}]
    node.k["configurations"] = [node.add_file("kconfig", Yaml(rng).dump(cfg))]


def gen_images(tree, node):
    rng = tree.rng
    out = []
    for _ in range(rng.randint(1, 2)):
        e = {"name": rng.choice(IMAGE_NAMES)}
        r = rng.random()
        if r < 0.3:
            e["newTag"] = rng.choice(["v2", "1.2.3", "latest", "2024-01-01", "1.20"])
        elif r < 0.5:
            e["newName"] = rng.choice(["mirror.example.com/x", "quay.io/y/z", "other"])
        elif r < 0.65:
            e["digest"] = digest(rng)
        elif r < 0.85:
            e["newName"] = "mirror.example.com/" + e["name"].split("/")[-1]
            e["newTag"] = "v9"
        else:
            e["newName"] = "registry.local/app"
            e["digest"] = digest(rng)
        if e["name"] not in [x["name"] for x in out]:
            out.append(e)
    node.k["images"] = out


def gen_labels(tree, node):
    rng = tree.rng
    out = []
    for i in range(rng.randint(1, 2)):
        e = {"pairs": {rng.choice(["env", "team", "app.kubernetes.io/part-of", "track"]) + ("" if i == 0 else "2"):
                       label_value(rng)}}
        if chance(rng, 0.5):
            e["includeSelectors"] = rng.choice([True, False])
        if chance(rng, 0.5):
            e["includeTemplates"] = rng.choice([True, False])
        if chance(rng, 0.15):
            e["fields"] = [{"kind": "Widget", "path": "spec/labels", "create": True}]
        out.append(e)
    node.k["labels"] = out


def builtin_transformer(rng, node):
    kinds = ["LabelTransformer", "NamespaceTransformer", "PrefixSuffixTransformer",
             "ImageTagTransformer", "PatchTransformer", "ReplacementTransformer", "HashTransformer",
             "ValueAddTransformer", "AnnotationsTransformer", "ReplicaCountTransformer"]
    kind = rng.choice(kinds)
    node.tree.ngen += 1
    c = {"apiVersion": "builtin", "kind": kind, "metadata": {"name": f"t{node.tree.ngen}-{kind.lower()}"}}
    vis = node.visible
    if kind == "LabelTransformer":
        c["labels"] = {"via-transformer": label_value(rng)}
        c["fieldSpecs"] = [{"path": "metadata/labels", "create": True}]
        if chance(rng, 0.5):
            c["fieldSpecs"].append({"path": "spec/selector/matchLabels", "kind": "Deployment", "create": True})
    elif kind == "AnnotationsTransformer":
        c["annotations"] = {"via-transformer": str_value(rng)}
        c["fieldSpecs"] = [{"path": "metadata/annotations", "create": True}]
    elif kind == "NamespaceTransformer":
        c["metadata"]["namespace"] = rng.choice(["tns", "other"])
        c["fieldSpecs"] = [{"path": "metadata/namespace", "create": True}]
        if chance(rng, 0.3):
            c["unsetOnly"] = True
        if chance(rng, 0.3):
            c["setRoleBindingSubjects"] = rng.choice(["defaultOnly", "allServiceAccounts", "none"])
    elif kind == "PrefixSuffixTransformer":
        c["prefix"] = "tp-"
        if chance(rng, 0.5):
            c["suffix"] = "-ts"
        c["fieldSpecs"] = [{"path": "metadata/name"}]
    elif kind == "ImageTagTransformer":
        c["imageTag"] = {"name": rng.choice(IMAGE_NAMES), "newTag": "from-transformer"}
        if chance(rng, 0.5):
            c["fieldSpecs"] = [{"path": "spec/template/spec/containers[]/image", "kind": "Deployment"}]
    elif kind == "PatchTransformer":
        r = pick(rng, vis, lambda x: x.doc is not None)
        if not r:
            return None
        if chance(rng, 0.5):
            c["patch"] = json6902_text(rng, json6902_ops(rng, r)).rstrip("\n")
            c["target"] = target_for(rng, r, narrow=True)
        else:
            c["patch"] = yaml_text(rng, smp_doc(rng, r, node))
            if chance(rng, 0.4):
                c["target"] = target_for(rng, r)
    elif kind == "ReplacementTransformer":
        rep = gen_replacement(rng, node)
        if not rep:
            return None
        c["replacements"] = [rep]
    elif kind == "HashTransformer":
        pass
    elif kind == "ValueAddTransformer":
        c["value"] = rng.choice(["added", "ns-x", "a/b/c"])
        t = {"fieldPath": rng.choice(["metadata/annotations/added", "metadata/labels/added",
                                      "data/added", "metadata/namespace"])}
        if chance(rng, 0.7):
            t["selector"] = {"kind": rng.choice(["ConfigMap", "Deployment", "Service"])}
        if chance(rng, 0.2):
            t["filePathPosition"] = 1
        c["targets"] = [t]
    elif kind == "ReplicaCountTransformer":
        r = pick(rng, vis, lambda x: x.kind in ("Deployment", "StatefulSet"))
        if not r:
            return None
        c["replica"] = {"name": r.ref_name(rng), "count": rng.choice([0, 2, 9])}
        c["fieldSpecs"] = [{"path": "spec/replicas", "create": True, "kind": r.kind}]
    return c


def builtin_generator(rng, node):
    if chance(rng, 0.7):
        c = {"apiVersion": "builtin", "kind": "ConfigMapGenerator",
             "metadata": {"name": f"{node.tree.ngen}-via-generator"}}
        lits, _ = gen_generator_literals(rng, 2)
        c["literals"] = lits
        if chance(rng, 0.3):
            c["options"] = {"disableNameSuffixHash": True}
    else:
        c = {"apiVersion": "builtin", "kind": "SecretGenerator",
             "metadata": {"name": f"{node.tree.ngen}-secret-via-generator"},
             "literals": ["token=abc"], "type": "Opaque"}
    node.tree.ngen += 1
    return c


def add_plugin_configs(tree, node, field, make):
    rng = tree.rng
    out = []
    for _ in range(rng.randint(1, 2)):
        c = make(rng, node)
        if not c:
            continue
        if chance(rng, 0.5):
            out.append(yaml_text(rng, c))
        else:
            out.append(node.add_file(field[:-1], yaml_text(rng, c)))
    if out:
        node.k[field] = out


def gen_generators(tree, node):
    """configMapGenerator/secretGenerator entries in an overlay or component: new ones, and
    merges/replacements of generated ones below."""
    rng = tree.rng
    below = [r for r in node.visible if r.generated]
    for field, kind in (("configMapGenerator", "ConfigMap"), ("secretGenerator", "Secret")):
        if not chance(rng, 0.45):
            continue
        entries = []
        olds = [r for r in below if r.kind == kind]
        if olds and chance(rng, 0.6):
            old = rng.choice(olds)
            behavior = rng.choice(["merge", "merge", "replace"])
            name, ns = old.ref(rng)
            g, keys = gen_cm_generator(node, rng, name, secret=kind == "Secret",
                                       behavior=behavior, namespace=ns)
            entries.append(g)
            new = old.copy()
            new.keys = keys if behavior == "replace" else old.keys + keys
            node.visible = [new if x is old else x for x in node.visible]
        if chance(rng, 0.6) or not entries:
            name = f"{os.path.basename(os.path.abspath('/' + node.path)) or 'top'}-{kind.lower()}"
            name = name.replace(".", "") or "top"
            g, keys = gen_cm_generator(node, rng, name, secret=kind == "Secret")
            entries.append(g)
            r = Res("v1", kind, name, generated=True, keys=keys)
            r.born = node
            node.visible.append(r)
        node.k[field] = entries


def gen_fields(tree, node, own, base=False, shared=False, prefix=None):
    """Random kustomization fields over the resources in scope."""
    node.visible = node.visible + own
    gen_generator_fields(tree, node, base)
    gen_transformer_fields(tree, node, base, shared, prefix)


def gen_generator_fields(tree, node, base):
    """Generators run before the kustomization's components, transformers after them."""
    rng = tree.rng
    d = tree.density
    if not base:
        gen_generators(tree, node)
        if chance(rng, d * 0.3):
            node.k["generatorOptions"] = {"disableNameSuffixHash": chance(rng, 0.5),
                                          "labels": {"overlay-gen": "true"}}
    if chance(rng, d * 0.25):
        add_plugin_configs(tree, node, "generators", builtin_generator)


def gen_transformer_fields(tree, node, base, shared, prefix):
    rng = tree.rng
    d = tree.density
    if base and chance(rng, d * 0.3) or not base and chance(rng, d):
        node.k["namespace"] = rng.choice(["prod", "staging", "team-a", "ns1", "default"])
    if prefix:
        node.k["namePrefix"] = prefix
    elif chance(rng, d * (0.5 if base else 1)):
        node.k["namePrefix"] = rng.choice(["p-", "dev-", "a1-", "x."])
    if chance(rng, d * 0.6):
        node.k["nameSuffix"] = rng.choice(["-v2", "-x", "-01"])
    if chance(rng, d * 0.6):
        node.k["commonLabels"] = {rng.choice(["env", "owner", "app.kubernetes.io/managed"]): label_value(rng)}
    if chance(rng, d * 0.6):
        gen_labels(tree, node)
    if chance(rng, d * 0.7):
        node.k["commonAnnotations"] = {rng.choice(["note", "example.com/team", "a"]): str_value(rng)}
        if chance(rng, 0.3):
            node.k["commonAnnotations"]["long"] = LONG
    if chance(rng, d * 0.6):
        gen_images(tree, node)
    deps = [r for r in node.visible if r.kind in ("Deployment", "StatefulSet")]
    if deps and chance(rng, d * 0.5):
        node.k["replicas"] = [{"name": rng.choice(deps).ref_name(rng), "count": rng.choice([0, 1, 3, 10])}]
    if chance(rng, d * 1.2):
        gen_patches(tree, node)
    if chance(rng, d * 0.35):
        gen_psm(tree, node)
    if chance(rng, d * 0.3):
        gen_pj6902(tree, node)
    if chance(rng, d * 0.6):
        gen_replacements(tree, node)
    if not shared and not tree.diamond and chance(rng, d * 0.25):
        gen_vars(tree, node)
    if chance(rng, d * 0.3):
        gen_configurations(tree, node)
    if chance(rng, d * 0.35):
        add_plugin_configs(tree, node, "transformers", builtin_transformer)
    if node.path == "." and chance(rng, d * 0.4):
        so = {"order": rng.choice(["legacy", "fifo"])}
        if so["order"] == "legacy" and chance(rng, 0.5):
            so["legacySortOptions"] = {"orderFirst": ["Namespace", "ConfigMap"],
                                       "orderLast": ["Deployment", "Widget"]}
        node.k["sortOptions"] = so
    if chance(rng, d * 0.2):
        node.k["buildMetadata"] = rng.sample(["originAnnotations", "transformerAnnotations", "managedByLabel"],
                                             rng.randint(1, 3))


def gen_component(tree, path, visible, shared):
    rng = tree.rng
    node = tree.node(path, component=True)
    node.visible = list(visible)
    own = []
    if chance(rng, 0.4):
        name = f"{os.path.basename(path)}-extra"
        doc = {"apiVersion": "v1", "kind": rng.choice(["ConfigMap", "ServiceAccount"]),
               "metadata": {"name": name, "labels": {"component": os.path.basename(path)}}}
        if doc["kind"] == "ConfigMap":
            doc["data"] = {"from": "component", "odd": odd_value(rng)}
        own.append(Res("v1", doc["kind"], name, doc, doc["metadata"]["labels"],
                       keys=list(doc.get("data", {}))))
        node.k["resources"] = [node.add_file("extra", Yaml(rng).dump(doc))]
    gen_fields(tree, node, own, shared=shared)
    if not node.k:
        # a component with nothing in it is an error ("kustomization.yaml is empty")
        node.k["commonAnnotations"] = {"component": os.path.basename(path)}
    return node, own + [r for r in node.visible if r.born is node]


def gen_overlay(tree, path, children, prefix=None, shared=False, comps=None):
    """An overlay over child nodes ((node, exports) pairs); comps: components to use."""
    rng = tree.rng
    node = tree.node(path)
    vis = []
    res_entries = []
    for child, exports in children:
        res_entries.append(node.rel(child))
        vis.extend(exports)
    names = [(r.kind, r.name) for r in vis]
    for i, r in enumerate(vis):
        if names.count((r.kind, r.name)) > 1:
            vis[i] = r.copy()
            vis[i].ambiguous = True
    if chance(rng, 0.08) and path != ".":
        node.k["bases"] = res_entries
    else:
        node.k["resources"] = list(res_entries)
    own = []
    if chance(rng, 0.15):
        name = f"{os.path.basename(os.path.abspath('/' + path)) or 'top'}-extra".lstrip("-")
        doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
               "data": {"k": odd_value(rng)}}
        own.append(Res("v1", "ConfigMap", name, doc, keys=["k"]))
        node.k.setdefault("resources", []).append(node.add_file("local", Yaml(rng).dump(doc)))
    # the order kustomize runs them in: resources, own generators, components, own transformers
    node.visible = vis + own
    gen_generator_fields(tree, node, False)
    if comps is None and chance(rng, 0.35):
        comps = []
        for i in range(rng.randint(1, 2)):
            cpath = os.path.normpath(os.path.join(path, f"comp-{tree.ncomp}")) if chance(rng, 0.3) \
                else f"comp-{tree.ncomp}"
            tree.ncomp += 1
            comps.append(gen_component(tree, cpath, node.visible, shared))
    if comps:
        node.k["components"] = [node.rel(c) for c, _ in comps]
        for c, new in comps:
            # a component's transformers see everything accumulated so far
            node.visible = [renamed(r, c.k) for r in node.visible + new]
    gen_transformer_fields(tree, node, False, shared, prefix)
    return node, finish_exports(node, node.visible)


def gen_tree(seed, index):
    rng = random.Random(f"difftest:{seed}:{index}")
    tree = Tree(rng)
    # Helm charts draw from their own generator, so the trees of a seed stay what they were
    # before charts were added (only some bases gain a chart).
    tree.helm_rng = random.Random(f"difftest-helm:{seed}:{index}")
    # Chained replacements (a field one creates, a later one writes into) draw from their
    # own generator too.
    tree.chain_rng = random.Random(f"difftest-chain:{seed}:{index}")
    tree.ncomp = 0
    tree.density = rng.uniform(0.15, 0.6)
    levels = rng.choice([1, 2, 2, 3, 3, 4])
    diamond = levels >= 3 and chance(rng, 0.35)
    tree.diamond = diamond
    apps = rng.sample(APPS, 3)
    tree.notes.append(f"levels={levels}" + (" diamond" if diamond else ""))
    if levels == 1:
        gen_base(tree, ".", apps[0], True, False)
    else:
        bases = [gen_base(tree, "base-a", apps[0], True, diamond)]
        if chance(rng, 0.3):
            bases.append(gen_base(tree, "base-b", apps[1], False, diamond))
            tree.notes.append("two bases")
        below = bases
        if levels == 4:
            below = [gen_overlay(tree, "mid", bases, shared=diamond)]
        if levels == 2:
            gen_overlay(tree, ".", below)
        elif diamond:
            comps = None
            if chance(rng, 0.4):
                vis = [r for _, ex in below for r in ex]
                comps = [gen_component(tree, "comp-shared", vis, True)]
                tree.notes.append("shared component")
            left = gen_overlay(tree, "ov-left", below, prefix="left-", shared=True, comps=comps)
            right = gen_overlay(tree, "ov-right", below, prefix="right-", shared=True, comps=comps)
            gen_overlay(tree, ".", [left, right])
        else:
            gen_overlay(tree, ".", [gen_overlay(tree, "ov", below)])
    if chance(rng, 0.1):
        mutate(tree)
    return tree


# --------------------------------------------------------------------------------------
# Invalid trees on purpose.


def mutate(tree):
    rng = tree.rng
    nodes = tree.nodes
    root = [n for n in nodes if n.path == "."][0]
    any_node = rng.choice(nodes)
    comps = [n for n in nodes if n.component]
    res_nodes = [n for n in nodes if n.k.get("resources") and any(f.endswith((".yaml", ".json")) and
                                                                 f in n.files for f in n.k["resources"])]

    def missing_resource():
        any_node.k.setdefault("resources", []).append("missing.yaml")

    def unknown_field():
        any_node.k["namePrefx"] = "typo-"

    def bad_yaml():
        n = rng.choice(res_nodes) if res_nodes else root
        f = [f for f in n.k.get("resources", []) if f in n.files]
        text = rng.choice(["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n data: [\n",
                           "a: b: c\n", "key: 'unterminated\n", "\tkind: Tab\n"])
        if f:
            n.files[f[0]] = text
        else:
            n.k.setdefault("resources", []).append(n.add_file("broken", text))

    def smp_no_target():
        root.k.setdefault("patchesStrategicMerge", []).append(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nonexistent\nspec:\n  replicas: 1\n")

    def merge_missing():
        root.k.setdefault("configMapGenerator", []).append({"name": "nope", "behavior": "merge",
                                                            "literals": ["a=b"]})

    def json_remove_missing():
        r = pick(rng, root.visible, lambda x: x.doc is not None)
        if not r:
            return missing_resource()
        root.k.setdefault("patches", []).append({"target": {"kind": r.kind, "name": r.name},
                                                 "patch": '[{"op": "remove", "path": "/spec/doesNotExist"}]'})

    def component_as_resource():
        if not comps:
            return unknown_field()
        root.k.setdefault("resources", []).append(root.rel(rng.choice(comps)))

    def kustomization_as_component():
        others = [n for n in nodes if not n.component and n.path != "."]
        if not others:
            return bad_kind()
        root.k.setdefault("components", []).append(root.rel(rng.choice(others)))

    def dup_resource():
        if not res_nodes:
            return missing_resource()
        n = rng.choice(res_nodes)
        f = [f for f in n.k["resources"] if f in n.files]
        n.k["resources"].append(f[0])

    def number_field():
        # a number or boolean where the kustomization wants a string
        n = rng.choice(nodes)
        r = rng.random()
        if r < 0.5:
            n.k[rng.choice(["namePrefix", "nameSuffix", "namespace"])] = Raw(rng.choice(["123", "yes", "1.5"]))
        elif r < 0.75:
            n.k.setdefault("commonLabels", {})["bad"] = Raw(rng.choice(["yes", "012", "on"]))
        else:
            n.k.setdefault("images", []).append({"name": "nginx", "newTag": Raw("1.20")})

    def cycle():
        bases = [n for n in nodes if n.path.startswith("base")]
        if not bases:
            return missing_resource()
        b = rng.choice(bases)
        b.k.setdefault("resources", []).append(b.rel(root))

    def no_name():
        root.k.setdefault("resources", []).append(root.add_file(
            "noname", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\ndata: {k: v}\n"))

    def bad_kind():
        root.k["kind"] = "Kustomisation"
        root.k["apiVersion"] = KAPI

    def replacement_missing_source():
        root.k.setdefault("replacements", []).append({
            "source": {"kind": "ConfigMap", "name": "does-not-exist"},
            "targets": [{"select": {"kind": "ConfigMap"}, "fieldPaths": ["data.x"]}]})

    def dup_var():
        v = {"name": "DUP", "objref": {"apiVersion": "v1", "kind": "ConfigMap", "name": "x"}}
        root.k.setdefault("vars", []).extend([v, dict(v)])

    def bad_op():
        r = pick(rng, root.visible, lambda x: x.doc is not None)
        if not r:
            return bad_kind()
        root.k.setdefault("patches", []).append({"target": {"kind": r.kind},
                                                 "patch": '[{"op": "frobnicate", "path": "/x"}]'})

    def missing_patch_file():
        root.k.setdefault("patches", []).append({"path": "no-such-patch.yaml"})

    def outside_root():
        # a file of another directory, read by a kustomization that is not the root
        # (everything is below the root, so the root may read any file)
        pairs = [(a, b, f) for a in nodes for b in nodes for f in b.files
                 if a.path != "." and b is not a and f.endswith(".yaml") and not a.component]
        if not pairs:
            return missing_resource()
        a, b, f = rng.choice(pairs)
        a.k.setdefault("resources", []).append(os.path.relpath(os.path.join(b.path, f), a.path))

    def bad_regex():
        root.k.setdefault("patches", []).append({"target": {"name": "(["},
                                                 "patch": '[{"op": "add", "path": "/x", "value": 1}]'})

    def bad_sort():
        root.k["sortOptions"] = {"order": "random"}

    def bad_literal():
        root.k.setdefault("configMapGenerator", []).append({"name": "badlit", "literals": ["novalue"]})

    def empty_json_patch():
        # v5.5.0 refuses it ("illegally qualifies as both an SM and JSON patch"),
        # v5.8.1 takes it as no operation
        r = pick(rng, root.visible)
        root.k.setdefault("patches", []).append({"target": {"kind": r.kind if r else "ConfigMap"},
                                                 "patch": "[]"})

    def missing_generator_file():
        root.k.setdefault("configMapGenerator", []).append({"name": "nofile", "files": ["no-such-file.txt"]})

    muts = [missing_resource, unknown_field, bad_yaml, smp_no_target, merge_missing,
            json_remove_missing, component_as_resource, kustomization_as_component, dup_resource,
            number_field, cycle, no_name, bad_kind, replacement_missing_source, dup_var, bad_op,
            missing_patch_file, outside_root, bad_regex, bad_sort, bad_literal, missing_generator_file,
            empty_json_patch]
    m = rng.choice(muts)
    tree.invalid = m.__name__
    m()


# --------------------------------------------------------------------------------------
# Running and comparing.


class Outcome:
    def __init__(self, rc, out, err, secs):
        self.rc, self.out, self.err, self.secs = rc, out, err, secs

    @property
    def ok(self):
        return self.rc == 0


def run_build(cmd, cwd, timeout):
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout)
        return Outcome(p.returncode, p.stdout, p.stderr, time.monotonic() - t)
    except subprocess.TimeoutExpired:
        return Outcome(None, b"", b"timeout after %ds" % timeout, time.monotonic() - t)


def classify(kb, ref):
    if kb.ok and ref.ok:
        return "identical" if kb.out == ref.out else "differs"
    if not kb.ok and not ref.ok:
        return "both-error"
    return "one-error"


def write_tree(tree, root):
    for rel, text in tree.files().items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)


def oracle_cmds(args):
    # kbuild builds as each version in turn (--kustomize-version), and each build is
    # compared with that version's kustomize.
    cmds = {}
    helm = ["--enable-helm", "--helm-command", STANDIN]
    if args.v550:
        cmds["kbuild-v5.5.0"] = [args.kbuild, "build", "--kustomize-version", "v5.5.0", *helm, "."]
        cmds["v5.5.0"] = [args.v550, "kustomize", *helm, "."]
    if args.v581:
        cmds["kbuild-v5.8.1"] = [args.kbuild, "build", "--kustomize-version", "v5.8.1", *helm, "."]
        cmds["v5.8.1"] = [args.v581, "kustomize", *helm, "."]
    return cmds


def build_all(cmds, cwd, timeout):
    return {name: run_build(cmd, cwd, timeout) for name, cmd in cmds.items()}


def test_one(args, seed, index):
    tree = gen_tree(seed, index)
    tmp = tempfile.mkdtemp(prefix=f"difftest-{seed}-{index}-")
    try:
        write_tree(tree, tmp)
        outs = build_all(oracle_cmds(args), tmp, args.timeout)
        verdicts = {v: classify(outs["kbuild-" + v], outs[v]) for v in ("v5.5.0", "v5.8.1") if v in outs}
        bad = [v for v, c in verdicts.items() if c in ("differs", "one-error")]
        kept = None
        if args.keep and bad:
            kept = os.path.join(args.keep, f"{seed}-{index}")
            if os.path.exists(kept):
                shutil.rmtree(kept)
            shutil.copytree(tmp, os.path.join(kept, "tree"))
            for name, o in outs.items():
                with open(os.path.join(kept, f"{name}.out"), "wb") as f:
                    f.write(o.out)
                with open(os.path.join(kept, f"{name}.err"), "wb") as f:
                    f.write(o.err)
            with open(os.path.join(kept, "verdict"), "w") as f:
                f.write(f"seed {seed} index {index} ({' '.join(tree.notes)}"
                        f"{', invalid: ' + tree.invalid if tree.invalid else ''})\n")
                for v, c in verdicts.items():
                    f.write(f"{v}: {c}\n")
        return {"seed": seed, "index": index, "notes": tree.notes, "invalid": tree.invalid,
                "verdicts": verdicts, "outs": outs, "kept": kept}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def v581_class(res):
    """Whether a difference from v5.8.1 is also one from v5.5.0, and if not, whether the two
    kustomize versions agree on the tree (then kbuild's v5.8.1 mode alone is wrong)."""
    verdicts, outs = res["verdicts"], res["outs"]
    if "v5.5.0" not in verdicts:
        return "v5.8.1 differs (no v5.5.0 to compare with)"
    if verdicts["v5.5.0"] in ("differs", "one-error"):
        return "also differs from v5.5.0"
    old, new = outs["v5.5.0"], outs["v5.8.1"]
    if old.ok == new.ok and old.out == new.out:
        return "v5.8.1 only (both kustomize versions agree)"
    return "v5.8.1 only (the kustomize versions differ here)"


def trimmed_diff(a, b, name_a, name_b, limit):
    lines = list(difflib.unified_diff(a.decode(errors="replace").splitlines(),
                                      b.decode(errors="replace").splitlines(),
                                      name_a, name_b, lineterm="", n=2))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join(lines)


def describe(res, oracle, limit):
    kb, ref = res["outs"]["kbuild-" + oracle], res["outs"][oracle]
    v = res["verdicts"][oracle]
    head = (f"--- tree {res['seed']}:{res['index']} ({' '.join(res['notes'])}"
            f"{', invalid on purpose: ' + res['invalid'] if res['invalid'] else ''}): {v} vs {oracle}"
            + (f" [{v581_class(res)}]" if oracle == "v5.8.1" else ""))
    lines = [head, f"    reproduce: tools/difftest.py --only {res['seed']}:{res['index']} --keep DIR"]
    if res["kept"]:
        lines.append(f"    kept in {res['kept']}")
    if v == "differs":
        lines.append(trimmed_diff(ref.out, kb.out, oracle, "kbuild", limit))
    else:
        for name, o in (("kbuild", kb), (oracle, ref)):
            if o.ok:
                lines.append(f"    {name}: succeeded ({len(o.out)} bytes)")
            elif name == "kbuild":
                err = o.err.decode(errors="replace").strip().splitlines()
                lines.append(f"    {name}: failed: " + (" | ".join(err[:3])[:300] if err else f"rc {o.rc}"))
            else:
                lines.append(f"    {name}: failed: ..." + kustomize_error(o.err))
    return "\n".join(lines)


def kustomize_version(kubectl):
    try:
        p = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    m = re.search(r"Kustomize Version:\s*(\S+)", p.stdout)
    return m.group(1) if m else None


def find_under(d, name):
    if not d or not os.path.isdir(d):
        return None
    for cand in (os.path.join(d, "bin", name), os.path.join(d, name)):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    for top, _, files in os.walk(d):
        if name in files and os.access(os.path.join(top, name), os.X_OK):
            return os.path.join(top, name)
    return None


def resolve_oracles(args):
    """Fills args.v550/args.v581 with usable paths or None, and says what was found."""
    msgs = []
    v550 = args.kubectl_v550 or shutil.which("kubectl")
    v581 = args.kubectl_v581 or find_under(args.tools_dir, "kubectl")
    args.v550 = args.v581 = None
    for attr, path, want, how in (("v550", v550, "v5.5.0", "--kubectl-v550 or kubectl on PATH"),
                                  ("v581", v581, "v5.8.1", f"--kubectl-v581 or kubectl under --tools-dir {args.tools_dir}")):
        if not path or not os.path.exists(path):
            msgs.append(f"kustomize {want}: SKIPPED (no kubectl found: {how})")
            continue
        got = kustomize_version(path)
        if got is None:
            msgs.append(f"kustomize {want}: SKIPPED ({path} does not report a Kustomize Version)")
            continue
        if got != want:
            msgs.append(f"warning: {path} is kustomize {got}, not {want}; comparing anyway")
        path = os.path.abspath(path)  # the builds run in each tree's directory
        setattr(args, attr, path)
        msgs.append(f"kustomize {want}: {path} ({got})")
    return msgs


def parse_only(s):
    m = re.fullmatch(r"(-?\d+):(\d+)", s)
    if not m:
        raise argparse.ArgumentTypeError("expected SEED:INDEX")
    return int(m.group(1)), int(m.group(2))


def main_test(args):
    if not (os.path.isfile(args.kbuild) and os.access(args.kbuild, os.X_OK)):
        print(f"difftest: kbuild not found at {args.kbuild} (--kbuild PATH)", file=sys.stderr)
        return 2
    for m in resolve_oracles(args):
        print(m)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    jobs = [args.only] if args.only else [(args.seed, i) for i in range(args.trees)]
    counts = {v: {"identical": 0, "differs": 0, "both-error": 0, "one-error": 0} for v in ("v5.5.0", "v5.8.1")}
    shown = {"v5.5.0": 0, "v5.8.1": 0}
    reports = {"v5.5.0": [], "v5.8.1": []}
    invalid = {"total": 0, "both-error": 0}
    classes = {}
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(test_one, args, s, i) for s, i in jobs]
        for n, fut in enumerate(futs):
            res = fut.result()
            status = "  ".join(f"{v}: {c}" for v, c in res["verdicts"].items())
            if args.verbose or any(c in ("differs", "one-error") for c in res["verdicts"].values()):
                print(f"[{res['seed']}:{res['index']}] {' '.join(res['notes'])}"
                      f"{' invalid=' + res['invalid'] if res['invalid'] else ''}  {status}", flush=True)
                if args.verbose and "v5.5.0" in res["outs"] and not res["outs"]["v5.5.0"].ok:
                    err = res["outs"]["v5.5.0"].err.decode(errors="replace").strip().splitlines()
                    print("    v5.5.0: " + ([e for e in err if "command failed" in e] or err or ["?"])[0][-300:], flush=True)
            elif (n + 1) % 50 == 0:
                print(f"... {n + 1}/{len(jobs)} trees ({time.monotonic() - t0:.0f}s)", flush=True)
            if res["invalid"]:
                invalid["total"] += 1
                invalid["both-error"] += res["verdicts"].get("v5.5.0") == "both-error"
            for v, c in res["verdicts"].items():
                counts[v][c] += 1
                if c not in ("differs", "one-error"):
                    continue
                if v == "v5.8.1":
                    cls = v581_class(res)
                    classes[cls] = classes.get(cls, 0) + 1
                    if cls == "also differs from v5.5.0" and classes[cls] > 1:
                        continue        # shown under v5.5.0 already
                if shown[v] < args.show:
                    shown[v] += 1
                    reports[v].append(describe(res, v, args.diff_lines))
    for v in ("v5.5.0", "v5.8.1"):
        if reports[v]:
            print(f"\n=== differences from kustomize {v} (first {len(reports[v])}) ===")
            print("\n\n".join(reports[v]))
    print()
    print(f"trees: {len(jobs)} ({invalid['total']} invalid on purpose, {invalid['both-error']} of them both-error "
          f"vs v5.5.0), {time.monotonic() - t0:.0f}s")
    rc = 0
    for v in ("v5.5.0", "v5.8.1"):
        c = counts[v]
        if v == "v5.5.0" and not args.v550 or v == "v5.8.1" and not args.v581:
            print(f"kustomize {v}: SKIPPED")
            continue
        print(f"kustomize {v}: {c['identical']} identical, {c['both-error']} both-error, "
              f"{c['differs']} differ, {c['one-error']} one-error")
        if v == "v5.8.1":
            for cls, n in sorted(classes.items(), key=lambda kv: -kv[1]):
                print(f"  {n:4d}  {cls}")
    failed = {v: counts[v]["differs"] + counts[v]["one-error"] for v in counts}
    checked = [v for v, on in (("v5.5.0", args.v550), ("v5.8.1", args.v581)) if on]
    for v in checked:
        c = counts[v]
        print(f"difftest {v}: {c['identical'] + c['both-error']} passed, {failed[v]} failed")
    if not checked:
        print("difftest: no kustomize found (SKIPPED): nothing checked")
        rc = 2
    else:
        rc = 1 if any(failed[v] for v in checked) else 0
    return rc


# --------------------------------------------------------------------------------------
# Reducing a kept mismatch: delete files, documents and indented blocks of lines while the
# same kind of mismatch (against v5.5.0) remains.


_HASH = re.compile(r"-[a-z0-9]{10}\b")


def signature(outs):
    """The kind of mismatch with v5.5.0 and, for a difference, its changed lines (generated
    names' hashes masked) so a reduction keeps the same difference, not another one."""
    kb, ref = outs["kbuild-v5.5.0"], outs["v5.5.0"]
    v = classify(kb, ref)
    if v == "one-error":
        if not kb.ok:
            return "kbuild-fails", frozenset([kbuild_error(kb.err)])
        return "kustomize-fails", frozenset([kustomize_error(ref.err)])
    if v != "differs":
        return v, frozenset()
    lines = difflib.unified_diff(ref.out.decode(errors="replace").splitlines(),
                                 kb.out.decode(errors="replace").splitlines(), lineterm="", n=0)
    changed = frozenset(_HASH.sub("-HASH", l) for l in lines
                        if l[:1] in "+-" and not l.startswith(("+++", "---")))
    return v, changed


def kustomize_error(err):
    """The innermost cause of a kustomize error, without paths or addresses."""
    text = err.decode(errors="replace")
    m = re.search(r'(?:err=|Error: )(.*)', text, re.S)
    text = m.group(1) if m else text
    text = re.sub(r"/tmp/\S+", "PATH", text)
    text = re.sub(r"0x[0-9a-f]+", "ADDR", text)
    text = re.sub(r"(?m)^#.*$|^\s*goroutine.*", "", text).strip()
    return text.split("': ")[-1][-120:]


def kbuild_error(err):
    """The gist of kbuild's error: its first line without quoted values or paths."""
    line = err.decode(errors="replace").strip().split("\n", 1)[0]
    line = re.sub(r"\"[^\"]*\"|'[^']*'|`[^`]*`|/\S+", "_", line)
    return line[:80]


def read_tree(root):
    files = {}
    for top, _, names in os.walk(root):
        for n in names:
            p = os.path.join(top, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, root)] = f.read().decode("utf-8")
    return files


def blocks(lines):
    """Candidate (start, end) line ranges: a line with the lines nested under it (a key's
    flush `- ` items too); a `---` line with its document."""
    out = []
    for i, line in enumerate(lines):
        s = line.lstrip(" ")
        if not s.strip():
            continue
        ind = len(line) - len(s)
        j = i + 1
        if line.startswith("---"):
            while j < len(lines) and not lines[j].startswith("---"):
                j += 1
        else:
            flush = s.rstrip().endswith(":") and not s.startswith("- ")
            while j < len(lines):
                t = lines[j]
                ts = t.lstrip(" ")
                if ts.strip():
                    tind = len(t) - len(ts)
                    if not (tind > ind or (flush and tind == ind and ts.startswith("- "))):
                        break
                j += 1
        out.append((i, j))
    return out


def reduce_tree(args):
    src = args.reduce
    tree_dir = os.path.join(src, "tree") if os.path.isdir(os.path.join(src, "tree")) else src
    files = read_tree(tree_dir)
    cmds = oracle_cmds(args)
    cmds.pop("v5.8.1", None)
    if "v5.5.0" not in cmds:
        print("difftest: --reduce needs kustomize v5.5.0", file=sys.stderr)
        return 2

    def outcome(fs):
        tmp = tempfile.mkdtemp(prefix="difftest-reduce-")
        try:
            for rel, text in fs.items():
                p = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w", encoding="utf-8") as f:
                    f.write(text)
            return signature(build_all(cmds, tmp, args.timeout))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    want, want_lines = outcome(files)
    if want in ("identical", "both-error"):
        print(f"difftest: {tree_dir} is not a mismatch against v5.5.0 ({want})", file=sys.stderr)
        return 2
    print(f"reducing a '{want}' mismatch: {len(files)} files, "
          f"{sum(t.count(chr(10)) for t in files.values())} lines")
    tries = 0

    def interesting(fs):
        nonlocal tries
        tries += 1
        got, lines = outcome(fs)
        return got == want and lines <= want_lines and (lines or not want_lines)

    def protected(rel, line):
        # resources keep apiVersion and kind: kustomize accepts some documents without
        # them, which is another story than the one being reduced
        return not rel.endswith("kustomization.yaml") and re.match(r"(apiVersion|kind):", line)

    changed = True
    while changed:
        changed = False
        for rel in sorted(files, key=lambda r: -len(files[r])):
            if rel == "kustomization.yaml":
                continue
            trial = dict(files)
            del trial[rel]
            if interesting(trial):
                files = trial
                changed = True
        failed = set()
        for rel in sorted(files):
            progress = True
            while progress:
                progress = False
                lines = files[rel].split("\n")
                for start, end in sorted(blocks(lines), key=lambda b: (b[0] - b[1], b[0])):
                    key = (rel, "\n".join(lines[max(0, start - 1):end]))
                    if key in failed or any(protected(rel, l) for l in lines[start:end]):
                        continue
                    trial = dict(files)
                    trial[rel] = "\n".join(lines[:start] + lines[end:])
                    if interesting(trial):
                        files = trial
                        changed = progress = True
                        break       # line numbers moved: recompute the blocks
                    failed.add(key)
        print(f"  ... {len(files)} files, {sum(t.count(chr(10)) for t in files.values())} lines, "
              f"{tries} builds", flush=True)
    out = args.out or os.path.join(src, "reduced")
    if os.path.exists(out):
        shutil.rmtree(out)
    for rel, text in files.items():
        p = os.path.join(out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
    print(f"reduced tree ({want}) in {out}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--only", type=parse_only, metavar="SEED:INDEX", help="build exactly one tree")
    ap.add_argument("--jobs", type=int, default=2, help="trees built in parallel (default 2)")
    ap.add_argument("--keep", metavar="DIR", help="keep each mismatching tree (and the outputs) under DIR")
    # Absolute: the builds run with each tree as their working directory.
    ap.add_argument("--kbuild", type=os.path.abspath,
                    default=os.path.join(REPO, "target", "release", "kbuild"))
    ap.add_argument("--kubectl-v550", metavar="PATH", help="kubectl with kustomize v5.5.0 (default: kubectl on PATH)")
    ap.add_argument("--kubectl-v581", metavar="PATH",
                    help="kubectl with kustomize v5.8.1 (default: kubectl under --tools-dir)")
    ap.add_argument("--tools-dir", default=os.environ.get("DIFFTEST_TOOLS_DIR",
                                                         os.path.join(os.path.dirname(REPO), "kubectl-1.37")),
                    help="where to look for the v5.8.1 kubectl (default $DIFFTEST_TOOLS_DIR or ../kubectl-1.37)")
    ap.add_argument("--show", type=int, default=5, help="differences shown in full per oracle (default 5)")
    ap.add_argument("--diff-lines", type=int, default=60, help="diff lines shown per difference")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per build")
    ap.add_argument("--verbose", "-v", action="store_true", help="a line per tree")
    ap.add_argument("--write", nargs=2, metavar=("SEED:INDEX", "DIR"), help="only write one tree to DIR")
    ap.add_argument("--reduce", metavar="KEPT", help="shrink a kept mismatch (KEPT/tree or a tree dir)")
    ap.add_argument("--out", metavar="DIR", help="where --reduce writes (default KEPT/reduced)")
    args = ap.parse_args()
    if args.write:
        seed, index = parse_only(args.write[0])
        tree = gen_tree(seed, index)
        write_tree(tree, args.write[1])
        print(f"tree {seed}:{index} ({' '.join(tree.notes)}"
              f"{', invalid: ' + tree.invalid if tree.invalid else ''}) written to {args.write[1]}")
        return 0
    if args.reduce:
        resolve_oracles(args)
        return reduce_tree(args)
    return main_test(args)


if __name__ == "__main__":
    sys.exit(main())
