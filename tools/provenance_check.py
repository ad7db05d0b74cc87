#!/usr/bin/env python3
"""Checks kbuild's provenance (issue 34) against the build itself, from the outside.

    provenance_check.py --kbuild BIN [--mutate] [--sample N] [--seed S] DIR...

For each kustomization DIR, `kbuild build DIR --provenance FILE` is run in a scratch copy
of DIR's tree (the tree is the nearest ancestor holding every file the provenance names;
`--root` sets it), and:

Coverage (oracle 4): every output leaf (a scalar, or an empty mapping or list) is
attributed when the last step of its chain has a file position (line and column: the value
in a resource or patch file, or the kustomization entry that set it); when that step is one
kustomize runs at the end (a name hash, a name reference, a var), the field is attributed to
where the latest earlier step of its chain wrote it (the reference as written, the
generator entry). The share is printed
with the leaves that are not attributed, counted by the step that set them last and why.

Mutation (oracle 3, --mutate): for each position that attributed leaves come from (all of
them, or a sample of N with --sample), the scalar written there is changed in the scratch
copy (a number incremented, a boolean flipped, a string given one more character), the
tree is built again, and exactly the leaves attributed to that position must change. Other
leaves may change only when the last step that set them derives its value from elsewhere
(a name hash, a name reference, a var, a replacement). Positions that cannot be checked
this way are skipped with a reason: fields that identify a resource (apiVersion, kind,
metadata.name and metadata.namespace: patches, selectors and references find resources by
them), the `name` of a list element (it names the element's other fields) or another key
strategic merge pairs list elements by (`port`, `containerPort`, `mountPath`), block scalars,
and positions where no scalar is written (an entry that is a mapping). A position whose
change only makes other leaves appear, vanish or be set last by another step selects a
patch's or transformer's targets (a label in a `labelSelector`): it is counted apart,
neither passed nor failed.

Annotations (oracles 1 and 2, --kustomize CMD): `buildMetadata: [originAnnotations,
transformerAnnotations]` is added to the scratch copy's kustomization file (one that sets
buildMetadata itself is left out), and kustomize (CMD, e.g. `kubectl kustomize`) and kbuild
build it; their outputs must be byte-identical. Then each resource's origin in the
provenance (the step that made its `kind`: the file it was read from, or the last generator
that made it) must be the file or generator entry kustomize's `config.kubernetes.io/origin`
names, and the transformer steps of each field's chain must appear, in order, in kustomize's
`alpha.config.kubernetes.io/transformations` list for the resource (the same transformer
kind configured in the same file). A resource whose annotations a patch replaced (its
origin names a transformer, or it has none) is not compared: kustomize's bookkeeping went
with them. Remote files are compared by kind of step only. This mode needs PyYAML.

Exit status 1 when a mutation or annotation check fails. Standard library only, but for
--kustomize.
"""

import argparse
import collections
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

DERIVED = {"hash", "name-reference", "substitute", "replace"}
IDENTITY = {"apiVersion", "kind", "metadata.name", "metadata.namespace"}


def build(kbuild, d, out):
    r = subprocess.run(
        # The command's own flags (`--kustomize-version v5.5.0`) follow `build`.
        [shlex.split(kbuild)[0], "build", d, "--provenance", out] + shlex.split(kbuild)[1:],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1:] or ["failed"]
    with open(out) as f:
        return json.load(f), None


def position(step):
    """The position a step's value is written at: the value in a file, else its entry."""
    if step.get("line"):
        return (step["file"], step["line"], step["column"])
    if step.get("entryLine"):
        return (step["entryFile"], step["entryLine"], step["entryColumn"])
    return None


def identities(doc):
    """Each resource's identity across builds: where its `kind` was first written (lines do
    not move when a scalar is changed), else its id; a counter keeps copies apart."""
    seen = collections.Counter()
    out = []
    for r in doc["resources"]:
        key = None
        for f in r["fields"]:
            if f["path"] == "kind" and f["chain"]:
                key = position(f["chain"][0])
        if key is None:
            i = r["id"]
            key = (i["group"], i["kind"], i["namespace"], i["name"])
        seen[key] += 1
        out.append((key, seen[key]))
    return out


# The steps kustomize runs on its own at the end: their values come from elsewhere (a
# hash of the generated content, the name of the resource referred to, a var's source),
# and the field itself is written where an earlier step of its chain wrote it.
AT_THE_END = {"hash", "name-reference", "substitute"}


def attributed(chain):
    """The position a leaf is attributed to: its last step's, or, when that step is one
    kustomize runs at the end, the latest earlier step's with a position."""
    for step in reversed(chain):
        pos = position(step)
        if pos or step["step"] not in AT_THE_END:
            return pos
    return None


def leaves(doc):
    """{(resource identity, path): (value, last step, attributed position)}."""
    out = {}
    for ident, r in zip(identities(doc), doc["resources"]):
        for f in r["fields"]:
            last = f["chain"][-1] if f["chain"] else None
            out[(ident, f["path"])] = (f["value"], last, attributed(f["chain"]))
    return out


def actor(step):
    """What a step is, across builds: its kind, entry and files (not its values)."""
    if step is None:
        return None
    return tuple(step.get(k) for k in ("step", "entry", "entryFile", "file", "transformer"))


def why_not(last):
    if last is None:
        return "no recorded step"
    kind = last["step"]
    if kind in ("hash", "name-reference", "substitute"):
        return f"{kind}: kustomize computes it at the end (no source position)"
    if last.get("entryFile") or last.get("file"):
        return f"{kind}: the file is known, not the line"
    return f"{kind}: no file"


def coverage(name, doc, report):
    total = attributed = through = 0
    missing = collections.Counter()
    for _, (value, last, pos) in leaves(doc).items():
        total += 1
        if pos:
            attributed += 1
            through += position(last) is None
        else:
            missing[why_not(last)] += 1
    share = 100.0 * attributed / total if total else 100.0
    report["coverage"].append((name, total, attributed))
    print(
        f"coverage {name}: {attributed}/{total} leaves attributed with a position ({share:.2f}%; "
        f"{through} of them set last by a hash, name reference or var, at an earlier step's position)"
    )
    for reason, n in missing.most_common():
        print(f"  not attributed: {n:6d}  {reason}")


SCALAR_END = re.compile(r"\s+#|\s*$")


def mutate_text(text, line, column):
    """The text with the scalar at line:column (1-based) changed, or (None, reason)."""
    lines = text.split("\n")
    if line - 1 >= len(lines):
        return None, "position past the end of the file"
    src = lines[line - 1]
    i = column - 1
    rest = src[i:]
    if not rest:
        return None, "no scalar at the position"
    c = rest[0]
    if c in "|>":
        return None, "block scalar"
    if c in "[{":
        return None, "no scalar at the position (a collection)"
    if c == '"':
        end = 1
        while end < len(rest) and rest[end] != '"':
            end += 2 if rest[end] == "\\" else 1
        new = rest[:end] + "z" + rest[end:]
        lines[line - 1] = src[:i] + new
        return "\n".join(lines), None
    if c == "'":
        end = 1
        while end < len(rest):
            if rest[end] == "'" and rest[end + 1 : end + 2] == "'":
                end += 2
                continue
            if rest[end] == "'":
                break
            end += 1
        new = rest[:end] + "z" + rest[end:]
        lines[line - 1] = src[:i] + new
        return "\n".join(lines), None
    if c == "-" and rest[1:2] in (" ", ""):
        return None, "no scalar at the position (a list item)"
    # A plain scalar: to a comment or the end of the line; in a flow collection, to the
    # next `,`, `]` or `}`.
    flow = "[" in src[:i] or "{" in src[:i]
    m = SCALAR_END.search(rest)
    end = m.start() if m else len(rest)
    if flow:
        for j, ch in enumerate(rest[:end]):
            if ch in ",]}":
                end = j
                break
    # A plain scalar ends before the spaces that follow it (`8080 }` in flow text).
    end = len(rest[:end].rstrip())
    scalar = rest[:end]
    key = re.match(r"^([^:\s]+|\"[^\"]*\"):(\s|$)", scalar)
    if key:
        return None, "no scalar at the position (a mapping)"
    if re.fullmatch(r"-?[0-9]+", scalar):
        new = str(int(scalar) + 1)
    elif scalar in ("true", "false"):
        new = "false" if scalar == "true" else "true"
    elif scalar in ("null", "~", ""):
        return None, "null"
    else:
        new = scalar + "z"
    lines[line - 1] = src[:i] + new + rest[end:]
    return "\n".join(lines), None


def common_root(paths):
    return os.path.commonpath([os.path.dirname(p) for p in paths])


def check(kbuild, d, args, report):
    d = os.path.realpath(d)
    # Find the tree: build once where it is, and take the directory above every file.
    with tempfile.TemporaryDirectory() as t:
        doc, err = build(kbuild, d, os.path.join(t, "p.json"))
        if doc is None:
            print(f"{d}: does not build: {err}")
            return
        files = {
            s[k]
            for r in doc["resources"]
            for f in r["fields"]
            for s in f["chain"]
            for k in ("file", "entryFile")
            if k in s
        }
        files = [f for f in files if f.startswith("/")]
        root = os.path.realpath(args.root) if args.root else common_root(files + [d + "/x"])
        scratch = os.path.join(t, "tree")
        shutil.copytree(root, scratch, symlinks=True)
        sd = os.path.join(scratch, os.path.relpath(d, root))
        out = os.path.join(t, "p.json")
        doc, err = build(kbuild, sd, out)
        if doc is None:
            print(f"{d}: the copy does not build: {err}")
            return
        name = os.path.relpath(d)
        coverage(name, doc, report)
        if args.kustomize:
            annotations(args.kustomize, kbuild, name, sd, doc, report, args.show)
        if not args.mutate:
            return
        before = leaves(doc)
        by_pos = collections.defaultdict(list)
        for key, (value, last, pos) in before.items():
            if pos:
                by_pos[pos].append(key)
        positions = sorted(by_pos)
        if args.sample and args.sample < len(positions):
            positions = random.Random(args.seed).sample(positions, args.sample)
        skipped = collections.Counter()
        checked = passed = 0
        failures = []
        selecting = []
        for pos in positions:
            keys = by_pos[pos]
            paths = {k[1] for k in keys}
            if paths & IDENTITY:
                skipped["identity field (" + ", ".join(sorted(paths & IDENTITY)) + ")"] += len(keys)
                continue
            if any(re.search(r"\.\[name=[^\]]*\]\.name$", p) for p in paths):
                skipped["the name of a list element"] += len(keys)
                continue
            if any(re.search(r"\.[0-9]+\.(port|containerPort|mountPath|devicePath|ip)$", p) for p in paths):
                skipped["the merge key of a list element"] += len(keys)
                continue
            file, line, col = pos
            if not file.startswith(scratch):
                skipped["file outside the tree"] += len(keys)
                continue
            with open(file) as f:
                text = f.read()
            new, reason = mutate_text(text, line, col)
            if new is None:
                skipped[reason] += len(keys)
                continue
            with open(file, "w") as f:
                f.write(new)
            try:
                after_doc, err = build(kbuild, sd, out)
            finally:
                with open(file, "w") as f:
                    f.write(text)
            checked += len(keys)
            if after_doc is None:
                failures.append((pos, keys[0][1], f"the build fails: {err}"))
                continue
            after = leaves(after_doc)
            unchanged = [k for k in keys if k in after and after[k][0] == before[k][0]]
            extra = []
            vanished = set(before) ^ set(after)
            for k in set(before) | set(after):
                if k in keys:
                    continue
                old, new_ = before.get(k), after.get(k)
                if (old and old[0]) == (new_ and new_[0]):
                    continue
                kinds = {x[1]["step"] for x in (old, new_) if x and x[1]}
                if kinds & DERIVED:
                    continue
                extra.append(k)
            # Leaves that appear or disappear, or that another step sets last now: a
            # patch or transformer whose target the value selects (a label in a patch's
            # labelSelector, the kind of a reference) no longer applies.
            selection = [k for k in extra if k in vanished or actor(before[k][1]) != actor(after[k][1])]
            if extra and len(selection) == len(extra) and not unchanged:
                selecting.append((pos, keys[0][1], f"{len(extra)} leaves appear, vanish or are set by another step ({', '.join(sorted({k[1] for k in extra})[:2])})"))
                checked -= len(keys)
                continue
            if unchanged or extra:
                what = []
                if unchanged:
                    what.append(f"{len(unchanged)} of its {len(keys)} leaves did not change ({unchanged[0][1]})")
                if extra:
                    what.append(f"{len(extra)} other leaves changed ({', '.join(sorted({k[1] for k in extra})[:3])})")
                failures.append((pos, keys[0][1], "; ".join(what)))
                passed += len(keys) - len(unchanged)
            else:
                passed += len(keys)
        rel = lambda p: os.path.relpath(p, scratch)
        print(
            f"mutation {name}: {len(positions)} positions, {checked} leaves checked, "
            f"{passed} passed, {len(failures)} positions failed"
        )
        for reason, n in skipped.most_common():
            print(f"  skipped: {n:6d} leaves  {reason}")
        print(
            f"  {len(selecting)} positions select a patch's or transformer's targets "
            "(changing them adds or removes other leaves; neither passed nor failed)"
        )
        for (file, line, col), path, what in selecting[: args.show]:
            print(f"  SELECTS {rel(file)}:{line}:{col} ({path}): {what}")
        for (file, line, col), path, what in failures[: args.show]:
            print(f"  FAIL {rel(file)}:{line}:{col} ({path}): {what}")
        report["mutation"].append((name, checked, passed, len(failures)))


def add_build_metadata(d):
    """Adds both annotation options to the kustomization in `d`; returns the file and its
    text before, to put back, or None when it sets buildMetadata itself (or has no
    kustomization file)."""
    for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
        f = os.path.join(d, name)
        if os.path.isfile(f):
            with open(f) as fh:
                text = fh.read()
            if "buildMetadata" in text or re.search(r"^---", text, re.M):
                return None
            with open(f, "w") as fh:
                fh.write(text.rstrip("\n") + "\nbuildMetadata: [originAnnotations, transformerAnnotations]\n")
            return f, text
    return None


def same_file(kustomize_path, kbuild_file, top):
    """Whether kustomize's path (relative to the top kustomization) names kbuild's file,
    or a file inside kbuild's (a `generators:`/`transformers:` entry that is a directory)."""
    if kbuild_file is None:
        return False
    want = os.path.normpath(os.path.join(top, kustomize_path))
    got = os.path.normpath(kbuild_file)
    return want == got or (os.path.isdir(got) and want.startswith(got + os.sep))


def annotations(kustomize, kbuild, name, sd, doc, report, show):
    """Oracles 1 and 2 on the scratch copy `sd` of `name`, whose provenance is `doc`."""
    import yaml  # only this mode needs it

    added = add_build_metadata(sd)
    if not added:
        print(f"annotations {name}: skipped (sets buildMetadata itself)")
        return
    try:
        k = subprocess.run(shlex.split(kustomize) + [sd], capture_output=True, text=True)
        b = subprocess.run(
            [shlex.split(kbuild)[0], "build", sd] + shlex.split(kbuild)[1:], capture_output=True, text=True
        )
    finally:
        # The mutation check runs on the copy as it was.
        with open(added[0], "w") as fh:
            fh.write(added[1])
    problems = []
    if k.returncode != 0:
        print(f"annotations {name}: skipped (kustomize fails: {k.stderr.strip().splitlines()[-1:]})")
        return
    if b.stdout != k.stdout:
        problems.append("the outputs with buildMetadata differ")
    class Loader(yaml.SafeLoader):
        """YAML 1.1's `=` (the value key) is a string in kustomize's output."""

    Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))
    objs = [o for o in yaml.load_all(k.stdout, Loader=Loader) if o]
    if len(objs) != len(doc["resources"]):
        problems.append(f"{len(objs)} resources from kustomize, {len(doc['resources'])} in the provenance")
    origins = transformers = skipped = 0
    for obj, r in zip(objs, doc["resources"]):
        rid = r["resource"]
        meta = obj.get("metadata") or {}
        if (str(obj.get("kind")), str(meta.get("name"))) != (r["id"]["kind"], r["id"]["name"]):
            problems.append(f"{rid}: kustomize's resource at this place is {obj.get('kind')}/{meta.get('name')}")
            continue
        notes = meta.get("annotations") or {}
        origin = yaml.load(notes.get("config.kubernetes.io/origin", "null"), Loader=Loader)
        if not origin or "Transformer" in str((origin.get("configuredBy") or {}).get("kind", "")):
            skipped += 1
            continue
        chains = {f["path"]: f["chain"] for f in r["fields"]}
        made = chains.get("kind") or [{}]
        first = made[0]
        if first.get("step") == "generate":
            # A generator with `behavior: replace` is the origin kustomize names; it shows
            # in the chains of the fields whose value it changed, after the first one.
            for chain in chains.values():
                generated = [s for s in chain if s.get("step") == "generate"]
                if len(generated) > 1:
                    first = generated[-1]
        if "path" in origin:
            ok = first.get("step") == "source" and (
                "repo" in origin or same_file(origin["path"], first.get("file"), sd)
            )
            want = origin["path"]
        else:
            ok = first.get("step") == "generate" and same_file(
                origin.get("configuredIn", ""), first.get("entryFile") or first.get("file"), sd
            )
            want = f"generated in {origin.get('configuredIn')}"
        if ok:
            origins += 1
        else:
            got = first.get("file") or first.get("entryFile")
            problems.append(f"{rid}: kustomize's origin is {want}, kbuild's is {first.get('step')} {got}")
        listed = yaml.load(notes.get("alpha.config.kubernetes.io/transformations", "null"), Loader=Loader) or []
        ok = True
        for path, chain in chains.items():
            at = 0
            for step in chain:
                if not step.get("transformer"):
                    continue
                file = step.get("entryFile") or step.get("file")
                found = None
                for i in range(at, len(listed)):
                    item = listed[i]
                    if (item.get("configuredBy") or {}).get("kind") == step["transformer"] and (
                        "repo" in item or same_file(item.get("configuredIn", ""), file, sd)
                    ):
                        found = i
                        break
                if found is None:
                    ok = False
                    problems.append(
                        f"{rid} {path}: kbuild attributes a step to {step['transformer']} in "
                        f"{os.path.relpath(file, sd) if file else None}, not in kustomize's list after entry {at}"
                    )
                    break
                at = found
            if not ok:
                break
        transformers += ok
    report["annotations"].append((name, origins, transformers, skipped, len(problems)))
    print(
        f"annotations {name}: {len(objs)} resources, {origins} origins agree, {transformers} "
        f"transformer lists agree, {skipped} not compared (annotations replaced), {len(problems)} problems"
    )
    for what in problems[:show]:
        print(f"  FAIL {what}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kbuild", default="kbuild", help="the command (`kbuild --kustomize-version v5.5.0`)")
    p.add_argument("--mutate", action="store_true", help="run the mutation check")
    p.add_argument("--sample", type=int, default=0, help="check N positions (0: all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--root", help="the tree to copy (default: found from the files)")
    p.add_argument("--show", type=int, default=10, help="failures printed per kustomization")
    p.add_argument("--min-coverage", type=float, default=0.0, help="fail below this percentage")
    p.add_argument("--kustomize", help="check origins and transformers against this kustomize (`kubectl kustomize`)")
    p.add_argument("--dirs-from", help="a file with one kustomization directory a line")
    p.add_argument("dirs", nargs="*")
    args = p.parse_args()
    if args.dirs_from:
        with open(args.dirs_from) as f:
            args.dirs += [line.strip() for line in f if line.strip()]
    report = {"coverage": [], "mutation": [], "annotations": []}
    for d in args.dirs:
        check(args.kbuild, d, args, report)
    total = sum(t for _, t, _ in report["coverage"])
    attributed = sum(a for _, _, a in report["coverage"])
    share = 100.0 * attributed / total if total else 100.0
    print(f"coverage total: {attributed}/{total} ({share:.2f}%)")
    failed = sum(f for *_, f in report["mutation"])
    if report["mutation"]:
        checked = sum(c for _, c, _, _ in report["mutation"])
        passed = sum(p for _, _, p, _ in report["mutation"])
        print(f"mutation total: {checked} leaves checked, {passed} passed, {failed} positions failed")
    wrong = sum(n for *_, n in report["annotations"])
    if report["annotations"]:
        origins = sum(o for _, o, _, _, _ in report["annotations"])
        lists = sum(t for _, _, t, _, _ in report["annotations"])
        print(f"annotations total: {origins} origins and {lists} transformer lists agree, {wrong} problems")
    if failed or wrong or share < args.min_coverage:
        sys.exit(1)


if __name__ == "__main__":
    main()
