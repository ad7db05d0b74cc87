#!/bin/sh
# The README's `kbuild diff --ref` samples, reproduced without this repository's history:
# copies examples/shop into a new git repository in a temporary directory, commits it, makes
# the changes a pull request might (the base's CACHE_TTL raised, a canary overlay added, the
# dev overlay deleted), runs `kbuild diff --ref HEAD` with the given arguments there, and
# removes the directory. Exits with kbuild's status.
#
#   examples/ci/demo.sh --stat
#   examples/ci/demo.sh --output markdown overlays/prod
#
# KBUILD names the binary (default: kbuild on PATH).
set -eu
kbuild=${KBUILD:-kbuild}
examples=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$examples/shop/." "$tmp"
cd "$tmp"
git init -q
git add -A
git -c user.name=demo -c user.email=demo@example.com commit -q -m "shop"

# The pull request's changes.
cat > base/configmap.yaml <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
data:
  LOG_LEVEL: info
  FEATURE_CHECKOUT: "on"
  CACHE_TTL: "600"
YAML
mkdir overlays/canary
cat > overlays/canary/kustomization.yaml <<'YAML'
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: shop-prod
namePrefix: canary-
labels:
- pairs:
    environment: canary
resources:
- ../../base
YAML
rm -r overlays/dev

status=0
"$kbuild" diff --ref HEAD "$@" || status=$?
exit "$status"
