#!/usr/bin/env python3
"""Build every kustomization directory of real repositories with kbuild and with both
kubectl kustomize versions, and compare.

    tools/repocheck.py --kbuild target/release/kbuild ROOT [ROOT...]

Each ROOT is a checked-out repository (a directory); every directory under it holding
`kustomization.yaml`, `kustomization.yml` or `Kustomization` is built three ways per
version: kbuild as `--kustomize-version v5.5.0` against `kubectl kustomize` v5.5.0
(`--kubectl-v550`, default `kubectl` on PATH) and kbuild (v5.8.1, its default) against
v5.8.1 (`--kubectl-v581`, default `../kubectl-1.37/bin/kubectl` next to the repository).
A version whose kubectl is missing is reported SKIPPED, never passed.

Per directory and version the outcome is `identical` (same stdout bytes, both exit 0),
`both-error` (both fail: kbuild's message is its own, only failure must agree),
`differs` (both succeed, different bytes), `kbuild-error` (only kbuild fails) or
`kustomize-error` (only kustomize fails). Directories are built from the repository
root's parent, with the default load restrictor and no plugins or helm, as Argo CD does
by default; nothing is fetched (a remote base fails both ways, offline).

Python 3.8+, standard library only. Exit status 1 when any directory differs or fails in
kbuild alone.
"""

import argparse
import collections
import concurrent.futures
import os
import subprocess
import sys

NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
HERE = os.path.dirname(os.path.abspath(__file__))


def kustomization_dirs(root):
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if s != ".git")
        if any(n in files for n in NAMES):
            yield d


def run(argv, timeout):
    env = dict(os.environ, HOME=os.environ.get("HOME", "/tmp"), GIT_TERMINAL_PROMPT="0")
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, b"", b"timeout"


def kubectl_version(kubectl):
    try:
        out = subprocess.run([kubectl, "version", "--client"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=60).stdout.decode()
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        if line.startswith("Kustomize Version:"):
            return line.split(":", 1)[1].strip()
    return None


def compare(kbuild, kubectl, version, d, timeout, extra):
    flags = ["--kustomize-version", "v5.5.0"] if version == "v5.5.0" else []
    kc, kout, kerr = run([kbuild, "build", *flags, *extra, d], timeout)
    uc, uout, uerr = run([kubectl, "kustomize", *extra, d], timeout)
    if kc == 0 and uc == 0:
        return ("identical" if kout == uout else "differs"), kerr, uerr
    if kc != 0 and uc != 0:
        return "both-error", kerr, uerr
    return ("kbuild-error" if kc != 0 else "kustomize-error"), kerr, uerr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", metavar="ROOT")
    ap.add_argument("--kbuild", default="target/release/kbuild")
    ap.add_argument("--kubectl-v550", default="kubectl")
    ap.add_argument("--kubectl-v581",
                    default=os.path.join(HERE, "..", "..", "kubectl-1.37", "bin", "kubectl"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120, help="seconds per build")
    ap.add_argument("--show", type=int, default=10, help="mismatches printed in full")
    ap.add_argument("--flag", action="append", default=[], metavar="FLAG",
                    help="a flag for both builds, e.g. --flag=--load-restrictor=LoadRestrictionsNone "
                         "(repeatable)")
    a = ap.parse_args()

    versions = []
    for version, kubectl in (("v5.5.0", a.kubectl_v550), ("v5.8.1", a.kubectl_v581)):
        got = kubectl_version(kubectl)
        if got != version:
            print(f"SKIPPED {version}: {kubectl} reports kustomize {got or 'nothing'}")
            continue
        versions.append((version, kubectl))
    if not versions:
        print("SKIPPED: no kubectl of either version")
        return 0
    jobs = []
    for root in a.roots:
        for d in kustomization_dirs(root):
            for version, kubectl in versions:
                jobs.append((os.path.basename(os.path.normpath(root)), d, version, kubectl))
    counts = collections.defaultdict(collections.Counter)
    bad = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {pool.submit(compare, a.kbuild, kubectl, version, d, a.timeout, a.flag):
                   (repo, d, version) for repo, d, version, kubectl in jobs}
        for f in concurrent.futures.as_completed(futures):
            repo, d, version = futures[f]
            outcome, kerr, uerr = f.result()
            counts[(repo, version)][outcome] += 1
            if outcome in ("differs", "kbuild-error", "kustomize-error"):
                bad.append((repo, d, version, outcome, kerr, uerr))
    print(f"{'repository':44} {'version':8} {'dirs':>5} {'identical':>9} {'both-error':>10} "
          f"{'differs':>7} {'kbuild-error':>12} {'kustomize-error':>15}")
    total = collections.Counter()
    for (repo, version), c in sorted(counts.items()):
        n = sum(c.values())
        total.update(c)
        print(f"{repo:44} {version:8} {n:5} {c['identical']:9} {c['both-error']:10} "
              f"{c['differs']:7} {c['kbuild-error']:12} {c['kustomize-error']:15}")
    print(f"{'all':44} {'':8} {sum(total.values()):5} {total['identical']:9} "
          f"{total['both-error']:10} {total['differs']:7} {total['kbuild-error']:12} "
          f"{total['kustomize-error']:15}")
    for repo, d, version, outcome, kerr, uerr in sorted(bad)[: a.show]:
        print(f"\n{outcome} ({version}): {d}")
        if kerr.strip():
            print("  kbuild:    " + kerr.decode(errors="replace").strip().splitlines()[-1][:300])
        if uerr.strip():
            print("  kustomize: " + uerr.decode(errors="replace").strip().splitlines()[-1][:300])
    failing = total["differs"] + total["kbuild-error"] + total["kustomize-error"]
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
