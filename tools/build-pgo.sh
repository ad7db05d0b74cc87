#!/usr/bin/env bash
# A profile-guided build of kbuild, as the published binaries are built: the `dist` profile,
# optimised with a profile of kbuild building every kustomization of tests/fixtures and
# examples/ (as each kustomize release it reproduces), and writing the provenance of the
# examples. Its output is the plain `dist` binary's; only its speed differs.
#
#   tools/build-pgo.sh [--static] [--target TRIPLE]
#
# --static builds the static musl binary through tools/build-static.sh (same flags). The
# target must run on this machine: the profile is taken by running it. Needs rustup's
# llvm-tools component (llvm-profdata matching rustc's LLVM), added when missing. The
# profile and the instrumented build go to target/pgo/; the binary to where a plain build
# puts it. The last line printed is the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."

static=false
target=""
while [ $# -gt 0 ]; do
  case "$1" in
    --static) static=true; shift ;;
    --target) target=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "build-pgo.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  echo "== rustup component add llvm-tools" >&2
  rustup component add llvm-tools >&2
fi

# One build, with extra rustc flags; prints the binary's path.
build() {
  local flags=$1
  if $static; then
    RUSTFLAGS="${RUSTFLAGS:-} $flags" tools/build-static.sh --profile dist ${target:+--target "$target"} | tail -n 1
  else
    RUSTFLAGS="${RUSTFLAGS:-} $flags" cargo build --locked --profile dist ${target:+--target "$target"} --bin kbuild >&2
    echo "${CARGO_TARGET_DIR:-target}/${target:+$target/}dist/kbuild"
  fi
}

work="$PWD/target/pgo"
rm -rf "$work/profiles"
mkdir -p "$work/profiles"

echo "== the instrumented build (target/pgo/train)" >&2
# `kbuild_pgo_train`: the binary ends with exit() rather than _exit(), so that the
# profile runtime's exit handler writes the counts (src/main.rs, `end_process`).
trainer=$(CARGO_TARGET_DIR="$work/train" build "-Cprofile-generate=$work/profiles --cfg kbuild_pgo_train")

echo "== the profile: tests/fixtures and examples/" >&2
export LLVM_PROFILE_FILE="$work/profiles/kbuild-%m.profraw"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dirs=$(find tests/fixtures examples \( -name kustomization.yaml -o -name kustomization.yml \
  -o -name Kustomization \) | sed 's|/[^/]*$||' | sort -u)
runs=0
for dir in $dirs; do
  for version in v5.8.1 v5.5.0; do
    # Cases that fail on purpose are part of the profile too: their exit status is not
    # the point.
    "$trainer" build "$dir" --kustomize-version "$version" >/dev/null 2>&1 || true
    runs=$((runs + 1))
  done
done
for dir in $(printf '%s\n' $dirs | grep '^examples/'); do
  "$trainer" build "$dir" --provenance "$scratch/provenance.json" >/dev/null 2>&1 || true
  runs=$((runs + 1))
done
echo "$runs runs" >&2
"$profdata" merge -o "$work/kbuild.profdata" "$work/profiles"

echo "== the optimised build" >&2
bin=$(build "-Cprofile-use=$work/kbuild.profdata")
echo "$(cd "$(dirname "$bin")" && pwd)/kbuild"
