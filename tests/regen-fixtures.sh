#!/usr/bin/env bash
# Regenerates expected.yaml for every fixture case that has one (or has
# neither expected file) by running `kubectl kustomize`, the oracle. Cases
# where kustomize fails keep or get an expected.err written by kbuild, to be
# reviewed by hand. Usage: tests/regen-fixtures.sh [case-dir...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cases=("$@")
[ ${#cases[@]} -gt 0 ] || mapfile -t cases < <(find "$here/fixtures" -mindepth 2 -maxdepth 2 -type d | sort)
for c in "${cases[@]}"; do
  [ -d "$c/in" ] || continue
  [ -f "$c/expected.err" ] && continue
  dir=$(cat "$c/dir" 2>/dev/null || echo .)
  args=()
  [ -f "$c/args" ] && mapfile -t args < "$c/args"
  if (cd "$c/in" && kubectl kustomize "${args[@]}" "$dir") > "$c/expected.yaml.tmp" 2>/dev/null; then
    mv "$c/expected.yaml.tmp" "$c/expected.yaml"
  else
    rm -f "$c/expected.yaml.tmp" "$c/expected.yaml"
    echo "kustomize failed on $c: write expected.err by hand" >&2
  fi
done
