#!/usr/bin/env bash
# The unattended check on a real GPU: GPU tests, `gpuspec info`, the quick suite (every
# family), and a side-by-side with code nobody here wrote (PyTorch's device-to-device copy, and
# PyTorch's matmul on the report's GEMM shapes and dtypes). Everything lands
# in OUTDIR; the last lines printed are a short summary. Never changes the card's settings.
#
#   scripts/gpu-validate.sh OUTDIR
#
# Binaries: .gpu-bundle/ (made by scripts/gpu-bundle.sh and carried here) when present, else
# a build on this machine with the default preset (needs our dependencies installed).
# Budget: about 8 minutes on one GPU (the quick suite's own stopping rule bounds it).
set -uo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 OUTDIR" >&2; exit 3; fi
out="$1"
mkdir -p "$out"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log="$out/validate.log"
exec > >(tee -a "$log") 2>&1
started=$(date +%s)
step() { echo; echo "=== [$(( $(date +%s) - started ))s] $*"; }

# The binary may have been built elsewhere: take the spec table and rules from this checkout.
export GPUSPEC_SPECS_DIR="$PWD/specs"
export LD_LIBRARY_PATH="$PWD/.gpu-bundle/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# Libraries the binary needs that the loader cannot find yet (cuBLAS, NCCL may live in the
# Python environment's nvidia-* wheels on such machines): look for each and add its folder.
add_missing_libraries() {
  local binary="$1" lib dir
  for lib in $(ldd "$binary" 2>/dev/null | awk '/not found/{print $1}'); do
    dir=$(find /usr/local/cuda* /usr/lib /opt /usr/local/lib -name "$lib" -print -quit 2>/dev/null | xargs -r dirname)
    if [ -n "$dir" ]; then
      echo "found $lib in $dir"
      export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir"
    else
      echo "MISSING: $lib (needed by $binary)"
    fi
  done
}

step "machine"
date -u +%Y-%m-%dT%H:%M:%SZ
uname -a
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv || true
nvidia-smi -q > "$out/nvidia-smi-q.txt" 2>&1 || true

step "binaries"
if [ -x .gpu-bundle/bin/gpuspec ]; then
  bin=.gpu-bundle/bin/gpuspec
  tests_dir=.gpu-bundle/tests
  echo "using the carried bundle (commit $(cat .gpu-bundle/COMMIT 2>/dev/null), preset $(cat .gpu-bundle/PRESET 2>/dev/null))"
  for b in "$bin" "$tests_dir"/*; do add_missing_libraries "$b"; done
  if ! "$bin" --version; then
    echo "the carried binary does not start here; building on this machine instead"
    bin=""
  fi
else
  bin=""
fi
if [ -z "$bin" ]; then
  # The GPU's own architecture, as a number: "native" would hide 90 from kernels/CMakeLists.txt,
  # which then leaves out the sm_90a (wgmma) kernels.
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
  if cmake --preset default -DCMAKE_CUDA_ARCHITECTURES="${arch:-native}" >/dev/null && cmake --build --preset default -j"$(nproc)"; then
    bin=build/default/cli/gpuspec
    tests_dir=build/default/tests/gpu
  else
    echo "BUILD FAILED: no gpuspec binary (carry .gpu-bundle/ from scripts/gpu-bundle.sh)"
    exit 3
  fi
fi

step "GPU tests"
# The tests that run benchmarks start this gpuspec as their worker (tests/gpu/runner_support.hpp).
export GPUSPEC_BINARY="$PWD/$bin"
tests_failed=0
tests_passed=0
tests_skipped=0
for t in "$tests_dir"/*; do
  [ -x "$t" ] && [ -f "$t" ] || continue
  one="$out/.one-test.log"
  if ! timeout 300 "$t" --gtest_color=no > "$one" 2>&1; then
    tests_failed=$((tests_failed + 1))
    echo "$(basename "$t") FAILED:"; grep '^\[  FAILED  \]' "$one" | head -n 20
  fi
  cat "$one" >> "$out/gpu-tests.log"
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$one" | tail -n 1)
  k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$one" | tail -n 1)
  tests_passed=$((tests_passed + ${p:-0}))
  tests_skipped=$((tests_skipped + ${k:-0}))
  echo "$(basename "$t"): ${p:-0} passed, ${k:-0} skipped"
  rm -f "$one"
done

step "gpuspec info"
"$bin" info --json > "$out/info.json"; echo "info exit code $?"
"$bin" info | head -n 40

step "gpuspec run --suite quick"
timeout 330 "$bin" run --suite quick -o "$out/report.json"
run_code=$?
echo "run exit code $run_code"

step "PyTorch device-to-device copy"
timeout 120 python3 scripts/torch_copy_bandwidth.py --out "$out/torch-copy.json"
torch_code=$?

step "PyTorch matmul on the report's GEMM shapes"
timeout 150 python3 scripts/torch_matmul.py --report "$out/report.json" --out "$out/torch-matmul.json"
matmul_code=$?

step "side by side"
side_code=3
if [ -f "$out/report.json" ] && [ -f "$out/torch-copy.json" ]; then
  matmul_args=()
  [ -f "$out/torch-matmul.json" ] && matmul_args=(--matmul "$out/torch-matmul.json")
  python3 scripts/side_by_side.py "$out/report.json" "$out/torch-copy.json" "${matmul_args[@]}" | tee "$out/side-by-side.txt"
  side_code=${PIPESTATUS[0]}
fi

step "summary"
echo "gpu tests: $tests_passed passed, $tests_skipped skipped, $tests_failed binaries failing"
echo "gpuspec run exit code: $run_code (0 pass, 1 warn, 2 fail, 3 unknown)"
echo "pytorch copy exit code: $torch_code"
echo "pytorch matmul exit code: $matmul_code"
echo "side-by-side exit code: $side_code (0 agree, 1 differ, 3 missing)"
echo "files: $(ls "$out" | tr '\n' ' ')"
echo "elapsed: $(( $(date +%s) - started ))s"
[ $tests_failed -eq 0 ] && [ $tests_skipped -eq 0 ] && [ $run_code -le 1 ] && [ $side_code -eq 0 ]
