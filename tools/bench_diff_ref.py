#!/usr/bin/env python3
"""Times `kbuild diff --ref HEAD` on a generated repository of 300 overlays over shared bases
where one base changed (issue 22's performance target: under a second on 2 cores).

The repository (made in a temporary directory, removed afterwards unless --keep):
  bases/b00 .. bases/b09       Deployment, Service, HorizontalPodAutoscaler, a generated
                               ConfigMap; each base also includes components/common
  overlays/<env>/app-NNN       300 overlays, 30 per base (namespace, namePrefix, labels,
                               images, replicas, a strategic-merge patch, a ConfigMap merge)
One commit holds it all (packed, as in a clone); then bases/b03 changes in the working tree (the image tag and a
ConfigMap literal, so hash suffixes change too). `kbuild diff --ref HEAD` must find and build
only bases/b03 and its 30 overlays, on both sides.

Standard library only:
  cargo build --release
  tools/bench_diff_ref.py --kbuild target/release/kbuild [--runs 10] [--keep DIR]
Prints the median, min and max wall time of `kbuild diff --ref HEAD --stat` (its output
discarded after the first run, which is checked: 31 kustomizations, each changed), the load
average (wall times on a busy machine mean little), and the median CPU time of kbuild and
the git processes it runs.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BASES = 10
OVERLAYS = 300
ENVS = ["dev", "staging", "prod"]


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def base(root, b, tag, level):
    d = f"bases/b{b:02d}"
    write(root, f"{d}/kustomization.yaml", f"""resources: [deploy.yaml, svc.yaml, hpa.yaml]
components: [../../components/common]
labels:
- pairs: {{app.kubernetes.io/part-of: b{b:02d}}}
configMapGenerator:
- name: settings
  literals: [LOG_LEVEL={level}, POOL=8, REGION=eu-{b}]
""")
    write(root, f"{d}/deploy.yaml", f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 2
  selector:
    matchLabels: {{app: api}}
  template:
    metadata:
      labels: {{app: api}}
    spec:
      containers:
      - name: api
        image: registry.example.com/b{b:02d}/api:{tag}
        ports:
        - containerPort: 8080
        envFrom:
        - configMapRef: {{name: settings}}
        resources:
          requests: {{cpu: 100m, memory: 128Mi}}
""")
    write(root, f"{d}/svc.yaml", """apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  selector: {app: api}
  ports:
  - port: 80
    targetPort: 8080
""")
    write(root, f"{d}/hpa.yaml", """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: api
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 2
  maxReplicas: 10
""")


def overlay(root, i):
    b = i % BASES
    env = ENVS[i % len(ENVS)]
    d = f"overlays/{env}/app-{i:03d}"
    write(root, f"{d}/kustomization.yaml", f"""resources: [../../../bases/b{b:02d}]
namespace: app-{i:03d}-{env}
namePrefix: a{i:03d}-
labels:
- pairs: {{env: {env}, app-id: "{i}"}}
images:
- name: registry.example.com/b{b:02d}/api
  newTag: "{env}-{i}"
replicas:
- name: api
  count: {1 + i % 5}
patches:
- path: patch.yaml
configMapGenerator:
- name: settings
  behavior: merge
  literals: [OWNER=team-{i % 17}]
""")
    write(root, f"{d}/patch.yaml", f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  template:
    spec:
      containers:
      - name: api
        resources:
          limits: {{memory: {256 + i}Mi}}
""")


def generate(root):
    write(root, "components/common/kustomization.yaml", """apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
commonAnnotations:
  owner: platform
""")
    for b in range(BASES):
        base(root, b, "1.0.0", "info")
    for i in range(OVERLAYS):
        overlay(root, i)
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    # Packed, as a clone is (loose objects would cost git an open per file).
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench tree"],
                 ["gc", "--quiet"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    # The change under review: one base's image tag and a ConfigMap literal.
    base(root, 3, "1.1.0", "debug")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kbuild", default="target/release/kbuild")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--keep", help="generate the repository here and keep it")
    a = p.parse_args()
    kbuild = os.path.abspath(a.kbuild)
    tmp = None
    if a.keep:
        root = os.path.abspath(a.keep)
        if os.path.exists(root):
            sys.exit(f"{root} exists; pick a new directory for --keep")
    else:
        tmp = tempfile.mkdtemp(prefix="kbuild-bench-diff-ref-")
        root = os.path.join(tmp, "repo")
    try:
        generate(root)
        cmd = [kbuild, "diff", "--ref", "HEAD", "--stat"]
        first = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        heads = [l for l in first.stdout.splitlines() if l.startswith("=== ")]
        if first.returncode != 1 or len(heads) != OVERLAYS // BASES + 1:
            sys.exit(f"unexpected result (exit {first.returncode}, {len(heads)} kustomizations):\n"
                     f"{first.stdout[-2000:]}{first.stderr}")
        times, cpu = [], []
        for _ in range(a.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd, cwd=root, stdout=subprocess.DEVNULL, check=False)
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            # kbuild's and its git processes' CPU time: what the machine's other load
            # does not inflate.
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        print(f"kbuild diff --ref HEAD over {OVERLAYS} overlays ({BASES} bases), one base changed: "
              f"{len(heads)} kustomizations compared on both sides")
        print(f"{a.runs} runs: median {statistics.median(times) * 1000:.0f} ms, "
              f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
              f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
        print(f"CPU time (user + system, kbuild and git): median {statistics.median(cpu) * 1000:.0f} ms")
        print(first.stdout.splitlines()[-1])
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
