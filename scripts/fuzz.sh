#!/usr/bin/env bash
# Builds the libFuzzer targets of the file loaders (the `fuzz` preset: clang, coverage,
# AddressSanitizer, UndefinedBehaviorSanitizer; build/fuzz) and runs each for SECONDS, one target
# per core at a time.
#
#   scripts/fuzz.sh [SECONDS]      SECONDS per target: the argument, else $GPUSPEC_FUZZ_SECONDS,
#                                  else 60.
#
# Each target starts from its seeds in fuzz/corpus/<name>/ plus the repository's current
# fixtures (reports: tests/fixtures/{reports,diff}/**; spec table: specs/gpus.json and
# tests/fixtures/specs/**; the importers: tests/fixtures/import/<tool>/), copied into a temporary
# folder, so the checkout is never modified.
# A crash, a sanitizer report, a leak, an escaping exception or a hang (10 s on one input) stops
# that target: the script names the reproducer (kept under build/fuzz/artifacts/) and exits 1
# after running the others. docs/fuzzing.md says how to reproduce and minimize.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

seconds="${1:-${GPUSPEC_FUZZ_SECONDS:-60}}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: SECONDS must be a positive whole number, not '$seconds'" >&2
  exit 2
fi

# libFuzzer comes with clang's runtime libraries (Debian 12: libclang-rt-14-dev; install-deps.sh).
probe="$(mktemp -d "${TMPDIR:-/tmp}/gpuspec-fuzz-probe.XXXXXX")"
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer - -o "$probe/probe" >"$probe/log" 2>&1; then
  echo "fuzz: clang++ cannot link a libFuzzer target (are clang and its runtime libraries," \
       "libclang-rt-dev, installed? scripts/install-deps.sh installs them):" >&2
  cat "$probe/log" >&2
  rm -rf "$probe"
  exit 2
fi
rm -rf "$probe"

cmake --preset fuzz >/dev/null # its errors go to stderr
cmake --build --preset fuzz

work="$(mktemp -d "${TMPDIR:-/tmp}/gpuspec-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
artifacts="$here/build/fuzz/artifacts"
logs="$here/build/fuzz/logs"
mkdir -p "$artifacts" "$logs"

# seeds NAME FILE...: copies the files that exist into the temporary corpus of NAME.
seeds() {
  local name="$1"
  shift
  mkdir -p "$work/$name"
  cp fuzz/corpus/"$name"/* "$work/$name"/
  local f
  for f in "$@"; do
    # Flattened names: tests/fixtures/reports/invalid/x.json -> tests_fixtures_..._x.json.
    if [ -f "$f" ]; then cp "$f" "$work/$name/${f//\//_}"; fi
  done
}
shopt -s nullglob globstar
seeds report tests/fixtures/reports/**/*.json tests/fixtures/diff/**/*.json
seeds spec specs/gpus.json tests/fixtures/specs/**/*.json
seeds nccl_tests tests/fixtures/import/nccl-tests/*.log
seeds gpu_burn tests/fixtures/import/gpu-burn/*.log
seeds dcgm tests/fixtures/import/dcgm/*.log tests/fixtures/import/dcgm/*.json
seeds detect tests/fixtures/import/*/*.log
seeds any_tool
# any_tool reads its first byte as the reader's row in reports/import/src/readers.hpp (byte %
# count): each fixture of the readers it covers, behind the byte that picks its reader.
any_seed() {
  local byte="$1" f
  shift
  for f in "$@"; do
    if [ -f "$f" ]; then
      { printf "\\$byte"; cat "$f"; } >"$work/any_tool/${f//\//_}"
    fi
  done
}
any_seed 002 tests/fixtures/import/dcgm/*.json
any_seed 003 tests/fixtures/import/nvbandwidth/*.log
any_seed 004 tests/fixtures/import/cuda-samples/*p2pBandwidthLatencyTest*.log
any_seed 005 tests/fixtures/import/cuda-samples/*bandwidthTest*.log
any_seed 006 tests/fixtures/import/babelstream/*.log
shopt -u nullglob globstar

# fuzz_one NAME: runs fuzz_NAME_loader for SECONDS over its corpus; its report, and on failure
# the end of its log and the reproducer it wrote, go to $logs/<target>.summary.
fuzz_one() {
  local name="$1" target="fuzz_${1}_loader" status=0 before f found=0
  mkdir -p "$artifacts/$target"
  before="$(ls -A "$artifacts/$target")"
  {
    echo "fuzz: $target for ${seconds} s ($(find "$work/$name" -maxdepth 1 -type f | wc -l) seed files), log in $logs/$target.log"
    # One process, one thread. Run from its own folder: libFuzzer may drop files where it runs.
    mkdir -p "$work/run-$name"
    (cd "$work/run-$name" && "$here/build/fuzz/fuzz/$target" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -dict="$here/fuzz/json.dict" -print_final_stats=1 \
        -artifact_prefix="$artifacts/$target/" "$work/$name") >"$logs/$target.log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
      grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$logs/$target.log" |
        sed 's/^/  /'
      return 0
    fi
    echo "fuzz: $target FAILED (exit $status); the end of its log:"
    tail -n 60 "$logs/$target.log"
    for f in "$artifacts/$target"/*; do
      if [ -f "$f" ] && ! grep -qxF "$(basename "$f")" <<<"$before"; then
        echo "fuzz: reproducer: $f  (rerun: build/fuzz/fuzz/$target $f)"
        found=1
      fi
    done
    if [ "$found" -eq 0 ]; then
      echo "fuzz: no reproducer was written; see $logs/$target.log"
    fi
    return 1
  } >"$logs/$target.summary" 2>&1
}

# The targets run side by side, one per core (each is one single-threaded process), so the
# wall time is SECONDS per round of as many targets as there are cores, not per target.
names=(report spec nccl_tests gpu_burn dcgm detect any_tool)
jobs="$(nproc 2>/dev/null || echo 1)"
failed=0
pids=()
for name in "${names[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$name" &
  pids+=("$!")
done
for i in "${!names[@]}"; do
  status=0
  wait "${pids[$i]}" || status=$?
  summary="$logs/fuzz_${names[$i]}_loader.summary"
  if [ "$status" -eq 0 ]; then
    cat "$summary"
  else
    failed=1
    cat "$summary" >&2
  fi
done
exit "$failed"
