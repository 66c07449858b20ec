#!/usr/bin/env bash
# The unattended check on a real GPU, in ONE call of a lent machine: the quick suite (every
# family, H2D/D2H/bidir and the one-rank collectives among them), `gpuspec check --format
# nccl-tests` on it, a 2-minute burn-in and its check, `gpuspec info` and `gpuspec health`
# (timed), a side-by-side with code nobody here wrote (PyTorch's device-to-device copy and
# matmul), and the GPU tests in what time is left. Never changes the card's settings.
#
#   scripts/gpu-validate.sh OUTDIR
#
# Binaries: the build folder named by GPU_VALIDATE_BUILD (e.g. build/host-only, to try the
# script on a machine without a GPU) when set; else .gpu-bundle/ (made by scripts/gpu-bundle.sh
# and carried there); else a build on that machine with the default preset (needs our
# dependencies, and eats the budget: the steps after it are shortened or cut).
#
# What comes back: a lent machine returns at most 8 files from OUTDIR, so OUTDIR holds only
#   validate.log         everything printed, the summary last
#   summary.txt          each step's exit code and wall time (rewritten after every step)
#   report.json          the quick suite's report
#   burnin-report.json   the burn-in's report
#   interconnect-report.json  transfers and all-reduce alone, only when the quick suite ran
#                        out of time before them
#   evidence.tar.gz      every other output (nvidia-smi -q, info, health, checks, PyTorch's
#                        figures, side-by-side, GPU test logs), repacked after every step
# (plus, while a run is in progress, its journal and temporary file). A call that is cut
# short still brings back what the finished steps wrote.
#
# Budget: the lent machine allows 600 s per command; this script keeps to BUDGET_S = 540 s of
# step timeouts, which leaves 60 s for the call's own overhead and a last kill grace. Steps, in
# order of the evidence's value (each has its own `timeout`; every one is also clamped to what
# is left of the 540 s, and cut when under 5 s are left):
#   machine: nvidia-smi query 10 + nvidia-smi -q 10 + processes 5                    =  25
#   binaries: unpacking the bundle 20 + gpuspec --version 5 + NCCL's search at most 10 + 15
#     (a library the loader lacks adds 15 s of search each; none expected, cuBLAS is in
#     /usr/local/cuda there)                                                           =  50
#   gpuspec info 10 + info --json 10 + health --json 15                                =  35
#   quick suite 150 (a refusal of a busy GPU takes a second or two: the rerun with
#     --allow-busy then has its own 150, clamped to the budget)                        = 150
#   only when the quick suite timed out before collective.all_reduce: transfers and
#     all-reduce alone 35 + check 5 + evidence 5 + 5 (taken from the GPU tests below)   = (50)
#   quick check --format nccl-tests 10 + evidence (transfers, collectives) 5 + 5       =  20
#   nccl-tests' all_reduce_perf, only where installed (not on the lent H200s: KINDS.md
#     lists no nccl-tests, so the script says so and spends nothing)                   =  20
#   burn-in --duration 2m 150 (120 s of load + setup, memory.test, one phase's end)    = 150
#   burn-in check 10 + evidence 5                                                      =  15
#   PyTorch copy 30 (its import and CUDA start take most of it) + matmul 40 + side 5  =  75
#   sum of the fixed steps                                                             = 540
#   GPU tests: what is left of 540: none if every step above ran to its timeout (if the
#     interconnect rerun did too, 590: the PyTorch steps are shortened or cut); far more when the steps take their usual time (info, health, checks and evidence
#     a second or two each). Each binary under its own timeout (at most 90 s, never past the
#     budget); those that do not fit are CUT and listed as such. They go last, as the least
#     valuable here: CI builds them, and a run's report already verifies every kernel's output.
# Each timeout sends SIGTERM first (gpuspec run keeps what it measured and writes the report,
# its workers are in timeout's process group and stop too, and die with it: PR_SET_PDEATHSIG),
# then SIGKILL after KILL_GRACE_S.
set -uo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 OUTDIR" >&2; exit 3; fi
mkdir -p "$1" || exit 3
out="$(cd "$1" && pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 3
stage="$(mktemp -d "${TMPDIR:-/tmp}/gpu-validate.XXXXXX")" || exit 3
unpacked="" # where the packed bundle is unpacked, when it is
log="$out/validate.log"
exec > >(tee -a "$log") 2>&1
tee_pid=$!
# At the end: the stage's files are in OUTDIR/evidence.tar.gz by then; and the log's last lines
# are written before the script returns (the lent machine collects OUTDIR right after).
finish() {
  rm -rf "$stage" ${unpacked:+"$unpacked"}
  exec 1>&- 2>&-
  wait "$tee_pid" 2>/dev/null
}
trap finish EXIT

BUDGET_S=${GPU_VALIDATE_BUDGET_S:-540} # another budget only for the script's own tests
KILL_GRACE_S=10
started=$(date +%s.%N)
steps=()    # "name|exit code|wall seconds|note", one per step, for the summary
notes=()    # loud remarks repeated in the summary (busy GPU, cut steps)

elapsed() { awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }'; }
budget_left() { awk -v a="$started" -v b="$(date +%s.%N)" -v n="$BUDGET_S" 'BEGIN { printf "%d", n - (b - a) }'; }

# What comes back from a lent machine is OUTDIR's files: keep the evidence packed there.
pack() {
  {
    printf '%-34s %-6s %8s  %s\n' step exit wall_s note
    local row name rc wall note
    for row in "${steps[@]}"; do
      IFS='|' read -r name rc wall note <<< "$row"
      printf '%-34s %-6s %8s  %s\n' "$name" "$rc" "$wall" "$note"
    done
    for note in "${notes[@]}"; do echo "NOTE: $note"; done
  } > "$out/summary.txt"
  cp "$out/summary.txt" "$stage/summary.txt"
  tar -czf "$out/evidence.tar.gz.part" -C "$stage" . && mv "$out/evidence.tar.gz.part" "$out/evidence.tar.gz"
}

# run_step NAME TIMEOUT COMMAND...: one step under its own timeout (clamped to the budget),
# its output printed and kept as $stage/NAME.log (when $STEP_STDOUT is set: stdout into that
# file, stderr printed and kept as $stage/NAME.stderr),
# its exit code and wall time in the summary. Returns the command's exit code.
run_step() {
  local name="$1" cap="$2" left note="" rc t0 t1 wall
  shift 2
  left=$(budget_left)
  if [ "$left" -lt 5 ]; then
    echo; echo "=== [$(elapsed)s] $name: CUT (the ${BUDGET_S}s budget is spent)"
    steps+=("$name|cut|0|budget spent")
    pack
    return 125
  fi
  if [ "$left" -lt "$cap" ]; then
    note="timeout shortened from ${cap}s to fit the budget"
    cap="$left"
  fi
  echo; echo "=== [$(elapsed)s] $name (timeout ${cap}s): $*"
  t0=$(date +%s.%N)
  if [ -n "${STEP_STDOUT:-}" ]; then
    timeout -k "$KILL_GRACE_S" "$cap" "$@" > "$STEP_STDOUT" 2> "$stage/$name.stderr"
    rc=$?
    cat "$stage/$name.stderr"
  else
    timeout -k "$KILL_GRACE_S" "$cap" "$@" 2>&1 | tee "$stage/$name.log"
    rc=${PIPESTATUS[0]}
  fi
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  case $rc in
    124) note="TIMED OUT after ${cap}s${note:+; $note}" ;;
    137) note="KILLED after ${cap}s + ${KILL_GRACE_S}s grace${note:+; $note}" ;;
  esac
  echo "--- $name: exit code $rc, ${wall}s${note:+ ($note)}"
  steps+=("$name|$rc|$wall|$note")
  pack
  return "$rc"
}

# A step's remark that is not a command (what was found, what was decided).
remark() {
  steps+=("$1|-|0|$2")
  echo "--- $1: $2"
  pack
}

# The binary may have been built elsewhere: take the spec table and rules from this checkout.
export GPUSPEC_SPECS_DIR="$PWD/specs"
export LD_LIBRARY_PATH="$PWD/.gpu-bundle/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# Libraries the binary needs that the loader cannot find yet (cuBLAS may live in the Python
# environment's nvidia-* wheels on such machines): look for each and add its folder.
# One search per library, each under its own timeout (none expected with the bundle: cuBLAS is in
# /usr/local/cuda on a CUDA image).
add_missing_libraries() { # BINARY...
  local lib dir
  for lib in $(for b in "$@"; do ldd "$b" 2>/dev/null | awk '/not found/{print $1}'; done | sort -u); do
    dir=$(timeout 15 find /usr/local/cuda* /usr/lib /opt /usr/local/lib -name "$lib" -printf '%h\n' -quit 2>/dev/null)
    if [ -n "$dir" ]; then
      echo "found $lib in $dir"
      export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir"
    else
      echo "MISSING: $lib"
    fi
  done
}

# NCCL is opened at run time (dlopen), so ldd does not name it: find libnccl.so.2 unless the
# loader already knows it or GPUSPEC_NCCL_LIBRARY is set. On the lent H200s it is expected in
# PyTorch's environment (KINDS.md lists the nvidia-nccl-cu13 wheel; /opt/torch/.venv), not in
# /usr/local/cuda; a lead until the first call there prints where it was found.
find_nccl() {
  if [ -n "${GPUSPEC_NCCL_LIBRARY:-}" ]; then
    echo "NCCL: GPUSPEC_NCCL_LIBRARY=$GPUSPEC_NCCL_LIBRARY (given)"; return
  fi
  if ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2 '; then
    echo "NCCL: libnccl.so.2 is on the loader's path"; return
  fi
  local lib dir
  dir=$(timeout 10 python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null)
  if [ -n "$dir" ] && [ -f "$dir/lib/libnccl.so.2" ]; then
    lib="$dir/lib/libnccl.so.2"
  else
    lib=$(timeout 15 find /usr/local/cuda* /usr/lib /usr/local/lib /opt -name 'libnccl.so.2' -print -quit 2>/dev/null)
  fi
  if [ -n "$lib" ]; then
    export GPUSPEC_NCCL_LIBRARY="$lib"
    echo "NCCL: found $lib; GPUSPEC_NCCL_LIBRARY set to it"
  else
    echo "NCCL: NO libnccl.so.2 found (the collectives will report NCCL missing)"
  fi
}

# True when a run's output says the idle precondition refused a GPU (every GPU: "in use by
# another process"; some of them: "GPU N refused: in use by ...", benches/spine/src/session.cpp).
refused_busy() { grep -qE 'in use by another process|refused: in use by' "$stage/$1.log" 2>/dev/null; }

echo "gpu-validate: $(date -u +%Y-%m-%dT%H:%M:%SZ), outputs in $out, staged in $stage"
echo "host: $(uname -a)"

# --- the machine --------------------------------------------------------------------------
gpu_present=0
if command -v nvidia-smi > /dev/null; then
  run_step nvidia-smi 10 nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,power.default_limit,temperature.gpu,pcie.link.gen.current,pcie.link.width.current --format=csv && gpu_present=1
  STEP_STDOUT="$stage/nvidia-smi-q.txt" run_step nvidia-smi-q 10 nvidia-smi -q
  # The idle precondition: what runs on the GPU before we do (the run refuses a busy GPU).
  run_step processes-before 5 nvidia-smi --query-compute-apps=gpu_bus_id,pid,process_name,used_memory --format=csv
else
  remark nvidia-smi "no nvidia-smi on this machine: no GPU driver, every GPU step reports so"
fi

# --- the binaries -------------------------------------------------------------------------
bin=""
tests_dir=""
bundle=""
if [ -n "${GPU_VALIDATE_BUILD:-}" ] && [ -x "$GPU_VALIDATE_BUILD/cli/gpuspec" ]; then
  # Named by whoever runs the script: it wins over a bundle lying in the checkout.
  bin="$GPU_VALIDATE_BUILD/cli/gpuspec"
  tests_dir="$GPU_VALIDATE_BUILD/tests/gpu"
  echo "using the build in $GPU_VALIDATE_BUILD"
elif [ -f .gpu-bundle/bundle.tar.gz ]; then
  # Packed to fit the device tool's 64 MiB (gpu-bundle.sh): unpacked outside OUTDIR.
  unpacked="$(mktemp -d "${TMPDIR:-/tmp}/gpuspec-bundle.XXXXXX")"
  run_step unpack-bundle 20 tar -xzf .gpu-bundle/bundle.tar.gz -C "$unpacked" && bundle="$unpacked"
  export LD_LIBRARY_PATH="$unpacked/lib:$LD_LIBRARY_PATH"
elif [ -x .gpu-bundle/bin/gpuspec ]; then # a bundle made before it was packed
  bundle=.gpu-bundle
fi
if [ -n "$bundle" ] && [ -x "$bundle/bin/gpuspec" ]; then
  bin="$bundle/bin/gpuspec"
  tests_dir="$bundle/tests"
  echo "using the carried bundle (commit $(cat .gpu-bundle/COMMIT 2>/dev/null), preset $(cat .gpu-bundle/PRESET 2>/dev/null))"
  add_missing_libraries "$bin" "$tests_dir"/*
fi
if [ -n "$bin" ] && ! run_step version 5 "$bin" --version; then
  echo "the binary $bin does not start here; building on this machine instead"
  bin=""
fi
if [ -z "$bin" ] && [ "$gpu_present" -eq 0 ]; then
  remark build "no binary (no .gpu-bundle/, no GPU_VALIDATE_BUILD) and no GPU: nothing to build for"
  exit 3
fi
if [ -z "$bin" ]; then
  # The GPU's own architecture, as a number: "native" would hide 90 from kernels/CMakeLists.txt,
  # which then leaves out the sm_90a (wgmma) kernels.
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
  if run_step configure 60 cmake --preset default -DCMAKE_CUDA_ARCHITECTURES="${arch:-native}" &&
    run_step build 300 cmake --build --preset default -j"$(nproc)"; then
    bin=build/default/cli/gpuspec
    tests_dir=build/default/tests/gpu
  else
    remark build "BUILD FAILED: no gpuspec binary (carry .gpu-bundle/ from scripts/gpu-bundle.sh)"
    exit 3
  fi
fi
find_nccl
# The tests that run benchmarks start this gpuspec as their worker (tests/gpu/runner_support.hpp).
GPUSPEC_BINARY="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
export GPUSPEC_BINARY

# --- inventory and passive health (timed: a scheduler's hook must be fast) -----------------
run_step info 10 "$bin" info
STEP_STDOUT="$stage/info.json" run_step info-json 10 "$bin" info --json
health_t0=$(date +%s.%N)
run_step health 15 "$bin" health --json -o "$stage/health.json"
health_t1=$(date +%s.%N)
echo "gpuspec health took $(awk -v a="$health_t0" -v b="$health_t1" 'BEGIN { printf "%.3f", b - a }') s (date +%s.%N before and after)"

# --- the quick suite: the most valuable evidence, so first --------------------------------
# Never --allow-busy silently: without it first; if the run refuses a busy GPU, say so loudly
# and measure anyway for the evidence, marked in the summary.
busy_flag=()
run_step quick-suite 150 "$bin" run --suite quick -o "$out/report.json"
if refused_busy quick-suite; then
  notes+=("THE GPU WAS BUSY: other processes used it (see processes-before); the runs after the refusal used --allow-busy, so every figure is a shared GPU's")
  echo; echo "!!!!! THE GPU IS IN USE BY ANOTHER PROCESS: measuring anyway with --allow-busy, for the evidence only !!!!!"
  busy_flag=(--allow-busy)
  run_step quick-suite-allow-busy 150 "$bin" run --suite quick --allow-busy -o "$out/report.json"
fi

# The transfers and collectives are the suite's last families: if the quick suite ran out of
# time before the all-reduce, measure them alone (35 s, taken from the GPU tests' remainder).
quick_rc=$(printf '%s\n' "${steps[@]}" | awk -F'|' '$1 ~ /^quick-suite/ {c = $2} END {print c}')
if [ "$gpu_present" -eq 1 ] && { [ "$quick_rc" = 124 ] || [ "$quick_rc" = 137 ]; } &&
  ! python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not any(x.get("bench_id") == "collective.all_reduce" for x in r.get("results", [])))' "$out/report.json" 2>/dev/null; then
  notes+=("the quick suite ran out of time before collective.all_reduce: transfers and all-reduce measured alone (the interconnect step, interconnect-report.json)")
  run_step interconnect 35 "$bin" run --suite quick "${busy_flag[@]}" --filter '^(transfer\.(h2d|d2h|bidir|p2p)|collective\.all_reduce)$' -o "$out/interconnect-report.json"
fi

# Issue 11's evidence: pinned H2D/D2H against the trained link, transfer.p2p on one GPU,
# all-reduce busbw in nccl-tests' layout.
if [ -f "$out/interconnect-report.json" ]; then
  run_step interconnect-check-nccl-tests 5 "$bin" check --format nccl-tests -o "$stage/interconnect-nccl-tests-layout.txt" "$out/interconnect-report.json"
  cat "$stage/interconnect-nccl-tests-layout.txt" 2>/dev/null
  run_step evidence-interconnect-transfers 5 python3 scripts/gpu_evidence.py transfers "$out/interconnect-report.json"
  run_step evidence-interconnect-collectives 5 python3 scripts/gpu_evidence.py collectives "$out/interconnect-report.json"
fi
if [ -f "$out/report.json" ]; then
  run_step quick-check-nccl-tests 10 "$bin" check --format nccl-tests -o "$stage/nccl-tests-layout.txt" "$out/report.json"
  cat "$stage/nccl-tests-layout.txt" 2>/dev/null
  run_step evidence-transfers 5 python3 scripts/gpu_evidence.py transfers "$out/report.json"
  run_step evidence-collectives 5 python3 scripts/gpu_evidence.py collectives "$out/report.json"
else
  remark quick-check "no report.json: nothing to check"
fi
nccl_tests=$(command -v all_reduce_perf || find /usr/local /opt -maxdepth 4 -name all_reduce_perf -type f -perm -u+x -print -quit 2>/dev/null)
if [ -n "$nccl_tests" ]; then
  run_step nccl-tests-all-reduce 20 "$nccl_tests" -b 8 -e 1G -f 4 -g 1
else
  remark nccl-tests "nccl-tests (all_reduce_perf) is not on this machine (PATH, /usr/local, /opt): gpuspec's busbw has no nccl-tests figure beside it here"
fi

# --- the burn-in (issue 12): power near the limit during the GEMM phase, checksums equal ---
run_step burnin 150 "$bin" run --suite burnin --duration 2m "${busy_flag[@]}" -o "$out/burnin-report.json"
if refused_busy burnin && [ ${#busy_flag[@]} -eq 0 ]; then
  notes+=("THE GPU WAS BUSY at the burn-in: it ran with --allow-busy, so its figures are a shared GPU's")
  echo; echo "!!!!! THE GPU IS IN USE BY ANOTHER PROCESS: burning in anyway with --allow-busy, for the evidence only !!!!!"
  run_step burnin-allow-busy 150 "$bin" run --suite burnin --duration 2m --allow-busy -o "$out/burnin-report.json"
fi
if [ -f "$out/burnin-report.json" ]; then
  run_step burnin-check 10 "$bin" check "$out/burnin-report.json"
  echo "look at: each interval's power_w_max/mean against the power limit (near it while the GEMM phase runs),"
  echo "gemm.checksum_mismatches (0), memtest bad_words (0)"
  run_step evidence-burnin 5 python3 scripts/gpu_evidence.py burnin "$out/burnin-report.json"
else
  remark burnin-check "no burnin-report.json: nothing to check"
fi

# --- PyTorch beside gpuspec ---------------------------------------------------------------
run_step torch-copy 30 python3 scripts/torch_copy_bandwidth.py --out "$stage/torch-copy.json"
if [ -f "$out/report.json" ]; then
  run_step torch-matmul 40 python3 scripts/torch_matmul.py --report "$out/report.json" --out "$stage/torch-matmul.json"
fi
side_code=3
if [ -f "$out/report.json" ] && [ -f "$stage/torch-copy.json" ]; then
  matmul_args=()
  [ -f "$stage/torch-matmul.json" ] && matmul_args=(--matmul "$stage/torch-matmul.json")
  run_step side-by-side 5 python3 scripts/side_by_side.py "$out/report.json" "$stage/torch-copy.json" "${matmul_args[@]}"
  side_code=$?
else
  remark side-by-side "no report.json or no PyTorch copy figure: no side-by-side"
fi

# --- the GPU tests, in what is left --------------------------------------------------------
tests_failed=0
tests_passed=0
tests_skipped=0
tests_cut=()
for t in "$tests_dir"/*; do
  if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
  name=$(basename "$t")
  # Host-only test binaries also live there; CI runs them, so they spend no GPU time here.
  case $name in *_host_test) continue ;; esac
  if [ "$(budget_left)" -lt 15 ]; then
    tests_cut+=("$name")
    continue
  fi
  STEP_STDOUT="$stage/$name.log" run_step "$name" 90 "$t" --gtest_color=no
  rc=$?
  grep '^\[  FAILED  \]' "$stage/$name.log" | head -n 20
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$stage/$name.log" | tail -n 1)
  k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$stage/$name.log" | tail -n 1)
  [ "$rc" -ne 0 ] && tests_failed=$((tests_failed + 1))
  tests_passed=$((tests_passed + ${p:-0}))
  tests_skipped=$((tests_skipped + ${k:-0}))
  echo "$name: ${p:-0} passed, ${k:-0} skipped"
done
if [ ${#tests_cut[@]} -gt 0 ]; then
  notes+=("GPU test binaries CUT for the budget: ${tests_cut[*]}")
fi

# --- summary -------------------------------------------------------------------------------
# The last numeric exit code of the steps named so (a cut or missing step counts as 3: unknown).
last_code() { printf '%s\n' "${steps[@]}" | awk -F'|' -v re="$1" '$1 ~ re && $2 ~ /^[0-9]+$/ {c = $2} END {print c == "" ? 3 : c}'; }
quick_code=$(last_code '^quick-suite')
burnin_code=$(last_code '^burnin-check$')
notes+=("gpu tests: $tests_passed passed, $tests_skipped skipped, $tests_failed binaries failing, ${#tests_cut[@]} cut")
notes+=("quick suite exit code $quick_code, burn-in check exit code $burnin_code (0 pass, 1 warn, 2 fail, 3 unknown); side-by-side $side_code (0 agree, 1 differ, 3 missing)")
[ "$gpu_present" -eq 1 ] || notes+=("NO GPU on this machine: the GPU steps above report so (exit 3, skipped tests); nothing was measured")
pack
echo
echo "=== [$(elapsed)s] summary"
cat "$out/summary.txt"
echo "files: $(find "$out" -mindepth 1 -printf '%P ')"
echo "elapsed: $(elapsed)s of the ${BUDGET_S}s budget"
pack
[ "$gpu_present" -eq 1 ] || exit 3
[ $tests_failed -eq 0 ] && [ $tests_skipped -eq 0 ] && [ "$quick_code" -le 1 ] && [ "$burnin_code" -le 1 ] &&
  [ $side_code -eq 0 ] && [ ${#busy_flag[@]} -eq 0 ]
