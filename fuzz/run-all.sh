#!/usr/bin/env bash
# Builds every fuzz target and runs each for SECONDS (default 30), one process at a time.
#
#   fuzz/run-all.sh SECONDS
#
# Works on the stable toolchain: cargo-fuzz passes nightly-only flags (-Zsanitizer,
# -Cpasses=sancov-module ...), which stable rustc accepts with RUSTC_BOOTSTRAP=1.
# FUZZ_SANITIZER picks the sanitizer (default `none`: kbuild has no unsafe code and an
# uninstrumented build compiles and runs about twice as fast; use `address` for long local
# campaigns). FUZZ_PROFILE picks the build (default `dev`: unoptimised, compiles about twice
# as fast, runs a few times slower — right for a short CI smoke run; `release` for long
# campaigns). New corpus entries go to fuzz/target/corpus-work/<target> (the committed seeds
# in fuzz/corpus/ stay as they are); crashes go to fuzz/artifacts/<target>/.
# Exits non-zero when a target crashes, and prints executions per target.
set -euo pipefail
secs=${1:-30}
cd "$(dirname "$0")"
sanitizer=${FUZZ_SANITIZER:-none}
export RUSTC_BOOTSTRAP=1
triple=$(rustc -vV | sed -n 's/^host: //p')

profile=${FUZZ_PROFILE:-dev}
case "$profile" in
  dev) cargo fuzz build --dev --sanitizer "$sanitizer"; bin="target/$triple/debug" ;;
  release) cargo fuzz build --release --debug-assertions --sanitizer "$sanitizer"; bin="target/$triple/release" ;;
  *) echo "FUZZ_PROFILE must be dev or release" >&2; exit 2 ;;
esac

targets=(yaml_parse emit_roundtrip smp json6902 kustomization build_tree edit_document helm_args repospec)
failed=()
summary=""
for t in "${targets[@]}"; do
  work="target/corpus-work/$t"
  mkdir -p "$work" "artifacts/$t"
  log="target/fuzz-$t.log"
  echo "== fuzz $t for ${secs}s"
  status=0
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a bound on memory use.
  "$bin/$t" "$work" "corpus/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  summary+="$(printf '%-16s %10s executions  exit %s' "$t" "${runs:-?}" "$status")"$'\n'
  if [ "$status" -ne 0 ]; then
    failed+=("$t")
    grep -E -A20 "panicked|ERROR: libFuzzer|SUMMARY" "$log" | head -40 || true
  fi
done
echo "== fuzz summary (${secs}s per target, $profile build, sanitizer $sanitizer)"
printf '%s' "$summary"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "crashing targets: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
  exit 1
fi
