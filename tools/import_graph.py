#!/usr/bin/env python3
"""Prints which top-level modules of src/ each one imports (crate::...) and
fails (exit 1) when two of them import each other, directly or through others.
Usage: tools/import_graph.py [SRC_DIR]   (ARCHITECTURE.md says why it matters)"""
import os, re, sys, itertools
root = sys.argv[1] if len(sys.argv) > 1 else 'src'
edges = {}
for dp, dn, fn in os.walk(root):
    for f in fn:
        if not f.endswith('.rs'): continue
        p = os.path.join(dp, f)
        rel = os.path.relpath(p, root)
        top = rel.split('/')[0].removesuffix('.rs')
        if top in ('main', 'bin', 'lib', 'cli'): continue  # the binary crate
        text = open(p).read()
        # strip tests modules roughly: skip files named *tests*.rs
        if 'tests' in f: continue
        text = re.sub(r'#\[cfg\(test\)\]\s*mod tests\s*\{.*', '', text, flags=re.S)
        for m in re.finditer(r'crate::([a-z_0-9]+)', text):
            t = m.group(1)
            if t != top:
                edges.setdefault(top, set()).add(t)
        # use crate::{a, b}
        for m in re.finditer(r'crate::\{([^}]*)\}', text):
            for t in re.findall(r'(?:^|,)\s*([a-z_0-9]+)', m.group(1)):
                if t != top: edges.setdefault(top, set()).add(t)
nodes = sorted(set(edges) | set(itertools.chain(*edges.values())))
for n in nodes:
    print(f"{n} -> {', '.join(sorted(edges.get(n, ())))}")
# SCCs (Tarjan)
idx = {}; low = {}; st = []; on = set(); sccs = []; c = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(sorted(comp))
for n in nodes:
    if n not in idx: sc(n)
print("cycles:", sccs if sccs else "none")
sys.exit(1 if sccs else 0)
