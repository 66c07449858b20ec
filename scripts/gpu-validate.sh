#!/usr/bin/env bash
# The unattended check on a real GPU, in ONE call of a lent machine (one GPU, an H100 or H200, or
# another card of the architectures we build), within 300 s by its own budget, its steps in order
# of the evidence's value: the binaries and the machine, `gpuspec info` and `gpuspec health`
# (timed), the quick suite (every family, H2D/D2H/bidir and the one-rank collectives among them)
# and `gpuspec check --format nccl-tests` on it, the GPU tests of device code no GPU has run yet
# (every wgmma and tcgen05 kind, the FP8 and block-scaled GEMMs), a side-by-side with code
# nobody here wrote (PyTorch's device-to-device copy and matmul, one Python process), and a
# 45-second burn-in last. Never changes the card's settings.
#
#   scripts/gpu-validate.sh [--rerun] OUTDIR
#
# --rerun: the second call. The machine, info and health again, then the GPU tests of device code
# that has run on a GPU before (tests/gpu/gpu_tests.json, "call": "rerun"), in what the first
# call left out; no quick suite, PyTorch or burn-in (the first call's evidence).
#
# Binaries: the build folder named by GPU_VALIDATE_BUILD (e.g. build/host-only, to try the
# script on a machine without a GPU) when set; else .gpu-bundle/ (made here by
# scripts/gpu-bundle.sh and carried there). Without either it refuses at once, exit 3: a build on
# the lent machine does not fit its budget (and has none of our dependencies there).
#
# What comes back: a lent machine returns at most 8 files from OUTDIR, so OUTDIR holds only
#   validate.log         everything printed, the summary last
#   summary.txt          each step's exit code and wall time (rewritten after every step)
#   report.json          the quick suite's report
#   burnin-report.json   the burn-in's report
#   interconnect-report.json  transfers and all-reduce alone, only when the quick suite ran
#                        out of time before them
#   evidence.tar.gz      every other output (nvidia-smi -q, /proc/meminfo, info, health,
#                        checks, PyTorch's figures, side-by-side, GPU test logs, any journal a
#                        killed run left), repacked after every step
# A run cut short by its timeout writes its report on SIGTERM; one killed before it could
# leaves REPORT.journal, which the script recovers into REPORT (`gpuspec run --recover`) and
# moves into the evidence, with any temporary file of the report's, so OUTDIR keeps its six
# files at most and nothing measured is lost. A call that is cut short still brings back what
# the finished steps wrote.
#
# Budget: the whole call within 300 s. BUDGET_S = 250 s of steps; past it at most one gpuspec
# run's kill-after (RUN_KILL_AFTER_S, 35 s) and one journal recovery (12 s) can run on: 297 s.
# Every step has its own `timeout`, clamped to what is left of the budget less what the steps
# after it are kept (RESERVE_S), and is CUT when under 5 s are left for it. The shares below are
# budgets, not measured durations: each gpuspec run prints every case's wall time ("[wall N s]")
# and PyTorch's step each of its cases', which is what resizes them after a call.
#   the small steps (unpack 20, --version 5, nvidia-smi 10 + 10 + 5 + compute capability 5,
#     /proc/meminfo 2, NCCL's search, info 10 + 10, health 15, checks and evidence 5 each):
#     timeouts for a hang; each is expected to take a second or two                 ~  15
#   quick suite (a refusal of a busy GPU takes a second or two: the rerun with
#     --allow-busy then has its own timeout, clamped the same way)                    =  90
#   GPU tests of device code that never ran (TESTS_SHARE_S): the cuBLASLt FP8 GEMMs alone
#     (fp8-gemms, 30), then gpuspec_tensor_gpu_test and gpuspec_gemm_cublas_gpu_test   =  45
#   PyTorch: one process, one import of torch, its copy, its matmul on the report's GEMM
#     cases and both side-by-sides (TORCH_SHARE_S; its own budget 25 of them)         =  30
#   burn-in --duration 45s (45 s of load + setup) and its three checks (BURNIN_SHARE_S) =  70
#                                                                                    = 250
# Steps that are only there on some machines take from the GPU tests' share: transfers and
# all-reduce alone when the quick suite timed out before them (35), nccl-tests' all_reduce_perf
# where installed (20).
# Each timeout sends SIGTERM first to the step's process group, then SIGKILL: a gpuspec run gets
# RUN_KILL_AFTER_S = 35 s, longer than the 30 s its coordinator gives its workers after an
# interrupt to return their case (coordinator.hpp: interrupt_grace_s; the workers stop between
# samples), so it writes its report before the SIGKILL; every other step gets KILL_GRACE_S =
# 10 s.
#
# GPU tests: each binary's tests (its --gtest_list_tests) are matched against their declarations
# in tests/gpu/gpu_tests.json (scripts/gpu_tests.py): a test that does not apply to this machine
# (its compute capability, its GPU count, NCCL) is not run and is listed with the reason ("not
# for sm_90", "needs 2 GPUs"); the others run, and each must pass: a skip among them, a test with
# no declaration, or fewer passed than selected is a failure. There is no list of acceptable skip
# messages.
#
# Exit code: 0 when everything ran and agreed (the quick suite's verdict pass or warn, the
# burn-in's under the validation's minimum too, the side-by-side agreeing, every selected GPU test
# passing, no step cut or timed out, no GPU busy); 1 otherwise, with the reasons in the summary
# ("NOT A PASS: ..."); 3 when there is no GPU, or no binary to run.
set -uo pipefail
CALL=first
if [ "${1:-}" = --rerun ]; then CALL=rerun; shift; fi
if [ $# -ne 1 ]; then echo "usage: $0 [--rerun] OUTDIR" >&2; exit 3; fi
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

BUDGET_S=${GPU_VALIDATE_BUDGET_S:-250} # another budget only for the script's own tests
KILL_GRACE_S=10     # SIGTERM to SIGKILL for a step
RUN_KILL_AFTER_S=35 # for a gpuspec run: longer than its coordinator's 30 s interrupt grace
# The shares of the budget (the header's table), scaled with it when a test gives another one.
share() { local s=$(($1 * BUDGET_S / 250)); echo $((s > 0 ? s : 1)); }
QUICK_TIMEOUT_S=$(share 90) # the quick suite
TESTS_SHARE_S=$(share 45)   # the GPU tests of device code that never ran
TORCH_SHARE_S=$(share 30)   # PyTorch's step (its own budget a sixth less)
BURNIN_SHARE_S=$(share 70)  # the burn-in's run and its three checks
BURNIN_RUN_S=$(share 55)    # the burn-in's run: its duration and setup
TEST_MIN_S=$(share 15)      # a GPU test binary is cut when less is left for it
BURNIN_DURATION=45s # the validation's burn-in: shorter than the acceptance minimum (10 min)
BURNIN_MIN_S=45     # the minimum its second check judges by (a site setting, --rules)
GPU_TEST_TIMEOUT_S=90 # one GPU test binary, at most
RESERVE_S=0         # seconds kept for the steps after the current one (set before each phase)
DECLARATIONS="$PWD/tests/gpu/gpu_tests.json" # what each GPU test needs
started=$(date +%s.%N)
steps=()    # "name|exit code|wall seconds|note", one per step, for the summary
notes=()    # loud remarks repeated in the summary (busy GPU, cut steps)
not_pass=() # why the script will not exit 0

elapsed() { awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }'; }
budget_left() { awk -v a="$started" -v b="$(date +%s.%N)" -v n="$BUDGET_S" 'BEGIN { printf "%d", n - (b - a) }'; }
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

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
# file, stderr printed and kept as $stage/NAME.stderr), SIGKILL $STEP_KILL_AFTER (default
# KILL_GRACE_S) seconds after the SIGTERM, its exit code and wall time in the summary. Returns
# the command's exit code.
run_step() {
  local name="$1" cap="$2" left note="" rc t0 wall kill_after="${STEP_KILL_AFTER:-$KILL_GRACE_S}"
  shift 2
  left=$(($(budget_left) - RESERVE_S))
  if [ "$left" -lt 5 ]; then
    echo; echo "=== [$(elapsed)s] $name: CUT (the ${BUDGET_S}s budget is spent, ${RESERVE_S}s of it kept for the steps after it)"
    steps+=("$name|cut|0|budget spent")
    pack
    return 125
  fi
  if [ "$left" -lt "$cap" ]; then
    note="timeout shortened from ${cap}s to fit the budget"
    cap="$left"
  fi
  echo; echo "=== [$(elapsed)s] $name (timeout ${cap}s, kill ${kill_after}s after): $*"
  t0=$(date +%s.%N)
  if [ -n "${STEP_STDOUT:-}" ]; then
    timeout -k "$kill_after" "$cap" "$@" > "$STEP_STDOUT" 2> "$stage/$name.stderr"
    rc=$?
    cat "$stage/$name.stderr"
  else
    timeout -k "$kill_after" "$cap" "$@" 2>&1 | tee "$stage/$name.log"
    rc=${PIPESTATUS[0]}
  fi
  wall=$(seconds_since "$t0")
  case $rc in
    124) note="TIMED OUT after ${cap}s${note:+; $note}" ;;
    137) note="KILLED after ${cap}s + ${kill_after}s grace${note:+; $note}" ;;
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

# Refuses the whole call: says why, in the log and the summary, and ends with exit 3.
refuse() {
  echo "gpu-validate: REFUSED: $1"
  notes+=("REFUSED: $1")
  remark refused "$1"
  exit 3
}

# A run killed before it wrote its report (the coordinator SIGKILLed, or crashed) leaves
# REPORT.journal beside REPORT, and maybe the report's temporary file: write the report the
# journal holds (gpuspec run --recover, under its own short timeout, even when the budget is
# spent: what was measured must come back), then move the journal and the temporary file into
# the evidence, so OUTDIR keeps its few files. Nothing to do after a run that ended normally.
recover_journal() { # REPORT
  local report="$1" journal="$1.journal" name t0 rc leftover
  name="recover-$(basename "$report" .json)"
  for leftover in "$out"/.*.tmp.*; do
    [ -f "$leftover" ] && mv "$leftover" "$stage/"
  done
  [ -f "$journal" ] || return 0
  echo; echo "=== [$(elapsed)s] $name: $(basename "$journal") was left behind (the run was killed before its report): recovering the report from it"
  t0=$(date +%s.%N)
  timeout -k 2 10 "$bin" run --recover "$journal" -o "$report" 2>&1 | tee "$stage/$name.log"
  rc=${PIPESTATUS[0]}
  mv "$journal" "$stage/"
  echo "--- $name: exit code $rc, $(seconds_since "$t0")s; the journal is in evidence.tar.gz"
  steps+=("$name|$rc|$(seconds_since "$t0")|from $(basename "$journal"), moved into evidence.tar.gz")
  notes+=("$(basename "$report") was RECOVERED from its journal: its run was killed before it wrote the report")
  pack
}

# run_gpuspec NAME TIMEOUT REPORT ARGS...: `gpuspec run ARGS -o REPORT` as a step, with the kill
# after its coordinator's interrupt grace, and its journal recovered if it was left.
run_gpuspec() {
  local name="$1" cap="$2" report="$3" rc
  shift 3
  STEP_KILL_AFTER="$RUN_KILL_AFTER_S" run_step "$name" "$cap" "$bin" run "$@" -o "$report"
  rc=$?
  recover_journal "$report"
  return "$rc"
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
# /usr/local/cuda; a lead until the first call there prints where it was found. Sets
# nccl_found=1 when it is.
nccl_found=0
find_nccl() {
  if [ -n "${GPUSPEC_NCCL_LIBRARY:-}" ]; then
    echo "NCCL: GPUSPEC_NCCL_LIBRARY=$GPUSPEC_NCCL_LIBRARY (given)"; nccl_found=1; return
  fi
  if ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2 '; then
    echo "NCCL: libnccl.so.2 is on the loader's path"; nccl_found=1; return
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
    nccl_found=1
    echo "NCCL: found $lib; GPUSPEC_NCCL_LIBRARY set to it"
  else
    echo "NCCL: NO libnccl.so.2 found (the collectives will report NCCL missing)"
  fi
}

# True when a run's output says the idle precondition refused a GPU (every GPU: "in use by
# another process"; some of them: "GPU N refused: in use by ...", spine/src/session.cpp).
refused_busy() { grep -qE 'in use by another process|refused: in use by' "$stage/$1.log" 2>/dev/null; }

# The skipped tests of a gtest log, one "name<TAB>message" line each (the message: the lines
# between "file:line: Skipped" and the test's "[  SKIPPED ]" line, joined).
skipped_tests() { # LOG
  awk '/^\[ RUN      \] / { name = $4; msg = ""; inside = 0; next }
       / Skipped$/ { inside = 1; next }
       /^\[  SKIPPED \] / && $4 == name && $NF ~ /ms\)$/ { print name "\t" msg; inside = 0; next }
       inside && NF { msg = msg (msg == "" ? "" : " ") $0 }' "$1"
}

# The machine a GPU test is selected for: its first GPU's compute capability ("9.0"), its GPU
# count, and whether NCCL was found (machine_cc, machine_gpus, nccl_found).
machine_cc=""
machine_gpus=0
read_machine() {
  local caps
  caps=$(timeout 5 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' ' | grep -E '^[0-9]+\.[0-9]+$')
  if [ -z "$caps" ] && [ -f "$stage/info.json" ]; then
    # An older nvidia-smi without compute_cap: gpuspec info's inventory.
    caps=$(python3 -c 'import json, sys
for d in json.load(open(sys.argv[1])).get("devices", []):
    cc = d.get("compute_capability")
    if isinstance(cc, list): cc = ".".join(map(str, cc))
    if cc: print(cc)' "$stage/info.json" 2>/dev/null)
  fi
  machine_cc=$(printf '%s\n' "$caps" | sed -n 1p)
  machine_gpus=$(printf '%s\n' "$caps" | grep -c .)
  if [ "$(printf '%s\n' "$caps" | sort -u | grep -c .)" -gt 1 ]; then
    notes+=("GPUs of several compute capabilities ($(printf '%s\n' "$caps" | sort -u | tr '\n' ' ')): the GPU tests are selected for GPU 0's, $machine_cc")
  fi
  echo "machine: $machine_gpus GPU(s), compute capability ${machine_cc:-unknown}, NCCL $([ "$nccl_found" -eq 1 ] && echo found || echo 'not found')"
}

# run_gpu_tests STEP BINARY [--only GLOB] [--except GLOB]: one GPU test binary as a step, only
# its tests that apply to this machine (declared in tests/gpu/gpu_tests.json, selected by
# scripts/gpu_tests.py from the binary's --gtest_list_tests); those that do not apply are listed
# with why. Every test run must pass: a failure, a skip, a test without a declaration, or fewer
# passed than were selected makes the call no pass. Returns 0 when all selected passed.
tests_passed=0
tests_selected=0
tests_problems=() # "STEP: what", one per binary or test that fails the call
tests_not_applicable=()
run_gpu_tests() {
  local step="$1" binary="$2" name selection filter selected passed k rc test why message
  shift 2
  name=$(basename "$binary")
  if ! timeout 15 "$binary" --gtest_list_tests > "$stage/$step.list" 2> "$stage/$step.list.stderr"; then
    remark "$step" "$name --gtest_list_tests failed: its tests cannot be selected"
    tests_problems+=("$step: $name does not list its tests")
    return 1
  fi
  selection=$(python3 scripts/gpu_tests.py select "$DECLARATIONS" "$name" "$stage/$step.list" \
    --cc "${machine_cc:-0.0}" --gpus "$machine_gpus" --nccl "$nccl_found" "$@")
  printf '%s\n' "$selection" > "$stage/$step.selection"
  while IFS=$'\t' read -r kind test why; do
    case $kind in
      NOT_RUN) tests_not_applicable+=("$test: $why"); echo "not run: $test: $why" ;;
      UNDECLARED) tests_problems+=("$step: $test has no declaration in tests/gpu/gpu_tests.json"); echo "UNDECLARED: $test" ;;
    esac
  done <<< "$selection"
  filter=$(printf '%s\n' "$selection" | awk -F'\t' '$1 == "RUN" {printf "%s%s", sep, $2; sep = ":"}')
  selected=$(printf '%s\n' "$selection" | grep -c $'^RUN\t')
  if [ "$selected" -eq 0 ]; then
    remark "$step" "none of $name's tests applies to this machine"
    return 0
  fi
  tests_selected=$((tests_selected + selected))
  STEP_STDOUT="$stage/$step.log" run_step "$step" "$GPU_TEST_TIMEOUT_S" "$binary" --gtest_color=no --gtest_filter="$filter"
  rc=$?
  grep -E '^\[ +(FAILED|SKIPPED) +\] [^ ]+\.' "$stage/$step.log" 2>/dev/null | head -n 20
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$stage/$step.log" 2>/dev/null | tail -n 1)
  passed=${passed:-0}
  tests_passed=$((tests_passed + passed))
  k=0
  while IFS=$'\t' read -r test message; do
    [ -n "$test" ] || continue
    k=$((k + 1))
    tests_problems+=("$step: $test SKIPPED where it applies: $message")
    echo "SKIPPED (a failure here: the test applies to this machine): $test: $message"
  done < <(skipped_tests "$stage/$step.log")
  echo "$step: $passed of $selected selected passed, $k skipped"
  case $rc in
    0) ;;
    125) tests_problems+=("$step: CUT for the budget") ;;
    124 | 137) tests_problems+=("$step: timed out") ;;
    *) tests_problems+=("$step: $name exited with $rc") ;;
  esac
  if [ "$rc" -ne 125 ] && [ "$passed" -ne "$selected" ]; then
    tests_problems+=("$step: $passed of $selected selected tests passed")
  fi
  [ "$rc" -eq 0 ] && [ "$k" -eq 0 ] && [ "$passed" -eq "$selected" ]
}

echo "gpu-validate: $(date -u +%Y-%m-%dT%H:%M:%SZ), outputs in $out, staged in $stage"
echo "host: $(uname -a)"

# --- the binaries, first: without them nothing here can run, so refuse at once -------------
bin=""
tests_dir=""
bundle=""
if [ -n "${GPU_VALIDATE_BUILD:-}" ]; then
  # Named by whoever runs the script: it wins over a bundle lying in the checkout.
  [ -x "$GPU_VALIDATE_BUILD/cli/gpuspec" ] || refuse "GPU_VALIDATE_BUILD=$GPU_VALIDATE_BUILD has no cli/gpuspec"
  bin="$GPU_VALIDATE_BUILD/cli/gpuspec"
  tests_dir="$GPU_VALIDATE_BUILD/tests/gpu"
  echo "using the build in $GPU_VALIDATE_BUILD"
elif [ -f .gpu-bundle/bundle.tar.gz ]; then
  # Packed to fit the device tool's 64 MiB (gpu-bundle.sh): unpacked outside OUTDIR.
  unpacked="$(mktemp -d "${TMPDIR:-/tmp}/gpuspec-bundle.XXXXXX")"
  run_step unpack-bundle 20 tar -xzf .gpu-bundle/bundle.tar.gz -C "$unpacked" && bundle="$unpacked"
  export LD_LIBRARY_PATH="$unpacked/lib:$LD_LIBRARY_PATH"
  [ -n "$bundle" ] || refuse "the carried .gpu-bundle/bundle.tar.gz did not unpack (see unpack-bundle): make it again with scripts/gpu-bundle.sh"
elif [ -x .gpu-bundle/bin/gpuspec ]; then # a bundle made before it was packed
  bundle=.gpu-bundle
else
  refuse "no carried bundle: .gpu-bundle/bundle.tar.gz is not in this checkout (build it with scripts/gpu-bundle.sh and name .gpu-bundle in the call's carry), and GPU_VALIDATE_BUILD is not set; this script does not build on the lent machine"
fi
if [ -n "$bundle" ]; then
  bin="$bundle/bin/gpuspec"
  tests_dir="$bundle/tests"
  [ -x "$bin" ] || refuse "the carried bundle has no bin/gpuspec: make it again with scripts/gpu-bundle.sh"
  echo "using the carried bundle (commit $(cat .gpu-bundle/COMMIT 2>/dev/null), preset $(cat .gpu-bundle/PRESET 2>/dev/null))"
  add_missing_libraries "$bin" "$tests_dir"/*
fi
run_step version 5 "$bin" --version ||
  refuse "the binary $bin does not start here (see the version step: a library missing, or built for another machine)"

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
# Host memory (issue 17): the host check compares MemTotal with the GPUs' memory.
run_step meminfo 2 cat /proc/meminfo
find_nccl
# The tests that run benchmarks start this gpuspec as their worker (tests/gpu/runner_support.hpp).
GPUSPEC_BINARY="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
export GPUSPEC_BINARY

# --- inventory and passive health (timed: a scheduler's hook must be fast) -----------------
run_step info 10 "$bin" info
STEP_STDOUT="$stage/info.json" run_step info-json 10 "$bin" info --json
health_t0=$(date +%s.%N)
run_step health 15 "$bin" health --json -o "$stage/health.json"
echo "gpuspec health took $(seconds_since "$health_t0") s (date +%s.%N before and after)"
read_machine
echo "call: $CALL"

busy_flag=()
quick_code=3
burnin_code=3
side_code=3
if [ "$CALL" = first ]; then
# --- the quick suite: the most valuable evidence, so first --------------------------------
# Never --allow-busy silently: without it first; if the run refuses a busy GPU, say so loudly
# and measure anyway for the evidence, marked in the summary.
RESERVE_S=$((TESTS_SHARE_S + TORCH_SHARE_S + BURNIN_SHARE_S))
run_gpuspec quick-suite "$QUICK_TIMEOUT_S" "$out/report.json" --suite quick
if refused_busy quick-suite; then
  notes+=("THE GPU WAS BUSY: other processes used it (see processes-before); the runs after the refusal used --allow-busy, so every figure is a shared GPU's")
  echo; echo "!!!!! THE GPU IS IN USE BY ANOTHER PROCESS: measuring anyway with --allow-busy, for the evidence only !!!!!"
  busy_flag=(--allow-busy)
  run_gpuspec quick-suite-allow-busy "$QUICK_TIMEOUT_S" "$out/report.json" --suite quick --allow-busy
fi

# The GPU tests' share now: what the quick suite's checks and any step only some machines have
# take comes from it.
RESERVE_S=$((TORCH_SHARE_S + BURNIN_SHARE_S))
# The transfers and collectives are the suite's last families: if the quick suite ran out of
# time before the all-reduce, measure them alone.
quick_rc=$(printf '%s\n' "${steps[@]}" | awk -F'|' '$1 ~ /^quick-suite/ {c = $2} END {print c}')
if [ "$gpu_present" -eq 1 ] && { [ "$quick_rc" = 124 ] || [ "$quick_rc" = 137 ]; } &&
  ! python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not any(x.get("bench_id") == "collective.all_reduce" for x in r.get("results", [])))' "$out/report.json" 2>/dev/null; then
  notes+=("the quick suite ran out of time before collective.all_reduce: transfers and all-reduce measured alone (the interconnect step, interconnect-report.json)")
  run_gpuspec interconnect 35 "$out/interconnect-report.json" --suite quick "${busy_flag[@]}" --filter '^(transfer\.(h2d|d2h|bidir|p2p)|collective\.all_reduce)$'
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
  run_step quick-check-nccl-tests 5 "$bin" check --format nccl-tests -o "$stage/nccl-tests-layout.txt" "$out/report.json"
  cat "$stage/nccl-tests-layout.txt" 2>/dev/null
  run_step evidence-transfers 5 python3 scripts/gpu_evidence.py transfers "$out/report.json"
  run_step evidence-collectives 5 python3 scripts/gpu_evidence.py collectives "$out/report.json"
else
  remark quick-check "no report.json: nothing to check"
fi

# --- the GPU tests of device code that never ran ------------------------------------------
# Issue 19.6's Hopper part first and alone: the cuBLASLt FP8 GEMMs, E4M3 x E4M3, E4M3 x E5M2 and
# E5M2 x E4M3, one untimed run each at 256x512x128 and 4096^3 (NT), verified against the host
# reference (tests/gpu/gemm_blockscaled_test.cpp). Not in the quick suite. They must pass, each
# one: a binary whose every test skipped exits 0 and proves nothing.
fp8_test="$tests_dir/gpuspec_gemm_cublas_gpu_test"
if [ -x "$fp8_test" ]; then
  run_gpu_tests fp8-gemms "$fp8_test" --only 'gemm_fp8_gpu.*' ||
    not_pass+=("the cuBLASLt FP8 GEMMs (fp8-gemms) did not all verify")
else
  remark fp8-gemms "no gpuspec_gemm_cublas_gpu_test among the test binaries: the FP8 GEMMs are not run"
  not_pass+=("the cuBLASLt FP8 GEMMs (fp8-gemms) were not run: no gpuspec_gemm_cublas_gpu_test")
fi
fi # first call

# The GPU test binaries of this call, in the declarations' order (most valuable first); those
# another step repeats are never run, and said so.
tests_cut=()
while IFS=$'\t' read -r first name why; do
  if [ "$first" = NOT_RUN ]; then
    tests_not_applicable+=("$name (the binary): $why")
    continue
  fi
  name=$first
  t="$tests_dir/$name"
  if [ ! -x "$t" ]; then
    tests_problems+=("$name: declared for this call, not among the test binaries ($tests_dir)")
    continue
  fi
  if [ $(($(budget_left) - RESERVE_S)) -lt "$TEST_MIN_S" ]; then
    tests_cut+=("$name")
    continue
  fi
  if [ "$name" = gpuspec_gemm_cublas_gpu_test ] && [ "$CALL" = first ]; then
    run_gpu_tests "$name" "$t" --except 'gemm_fp8_gpu.*' # the fp8-gemms step ran those
  else
    run_gpu_tests "$name" "$t"
  fi
done < <(python3 scripts/gpu_tests.py binaries "$DECLARATIONS" "$CALL")
if [ ${#tests_cut[@]} -gt 0 ]; then
  notes+=("GPU test binaries CUT for the budget: ${tests_cut[*]}")
fi
# Binaries among the carried ones that no declaration names (a host test travelled along).
for t in "$tests_dir"/*; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  name=$(basename "$t")
  case $name in *_host_test) continue ;; esac
  if ! python3 -c 'import json, sys; sys.exit(sys.argv[2] not in {b["name"] for b in json.load(open(sys.argv[1]))["binaries"]})' "$DECLARATIONS" "$name"; then
    tests_not_applicable+=("$name (the binary): not a GPU test binary of tests/gpu/gpu_tests.json")
  fi
done

if [ "$CALL" = first ]; then
nccl_tests=$(command -v all_reduce_perf || find /usr/local /opt -maxdepth 4 -name all_reduce_perf -type f -perm -u+x -print -quit 2>/dev/null)
if [ -n "$nccl_tests" ]; then
  run_step nccl-tests-all-reduce 20 "$nccl_tests" -b 8 -e 1G -f 4 -g 1
else
  remark nccl-tests "nccl-tests (all_reduce_perf) is not on this machine (PATH, /usr/local, /opt): gpuspec's busbw has no nccl-tests figure beside it here"
fi

# --- PyTorch beside gpuspec: one process, one import of torch -----------------------------
RESERVE_S=$BURNIN_SHARE_S
if [ -f "$out/report.json" ]; then
  run_step torch-side-by-side "$TORCH_SHARE_S" python3 scripts/torch_reference.py "$out/report.json" \
    --copy-out "$stage/torch-copy.json" --matmul-out "$stage/torch-matmul.json" --budget-s $((TORCH_SHARE_S * 5 / 6))
  side_code=$?
else
  remark torch-side-by-side "no report.json: nothing to set PyTorch beside"
fi

# --- the burn-in (issue 12), last: power near the limit during the GEMM phase, checksums equal
RESERVE_S=$((BURNIN_SHARE_S - BURNIN_RUN_S)) # its checks
run_gpuspec burnin "$BURNIN_RUN_S" "$out/burnin-report.json" --suite burnin --duration "$BURNIN_DURATION" "${busy_flag[@]}"
if refused_busy burnin && [ ${#busy_flag[@]} -eq 0 ]; then
  notes+=("THE GPU WAS BUSY at the burn-in: it ran with --allow-busy, so its figures are a shared GPU's")
  echo; echo "!!!!! THE GPU IS IN USE BY ANOTHER PROCESS: burning in anyway with --allow-busy, for the evidence only !!!!!"
  busy_flag=(--allow-busy)
  run_gpuspec burnin-allow-busy "$BURNIN_RUN_S" "$out/burnin-report.json" --suite burnin --duration "$BURNIN_DURATION" --allow-busy
fi
RESERVE_S=0
if [ -f "$out/burnin-report.json" ]; then
  # The acceptance check: a 45-second burn-in is shorter than the acceptance minimum
  # (burnin_min_duration_s, 10 minutes), so it is reported inconclusive (GPUSPEC-BURNIN-TOO-SHORT)
  # by design: this figure is shown, not counted.
  run_step burnin-check 5 "$bin" check "$out/burnin-report.json"
  if grep -q 'GPUSPEC-BURNIN-TOO-SHORT' "$stage/burnin-check.log" 2>/dev/null; then
    notes+=("burn-in: $BURNIN_DURATION is shorter than the acceptance minimum (GPUSPEC-BURNIN-TOO-SHORT): the acceptance check is inconclusive by design; the validation judges it with its own ${BURNIN_MIN_S} s minimum (burnin-check-validation)")
  fi
  # The validation's check: the same rules with the validation's own minimum (a site setting),
  # so everything else the burn-in found (checksums, bad words, drift, no memory pass) counts.
  printf '{"schema": "gpuspec.expect.v2", "settings": {"burnin_min_duration_s": %s}}\n' "$BURNIN_MIN_S" > "$stage/validation-rules.json"
  run_step burnin-check-validation 5 "$bin" check --rules "$stage/validation-rules.json" "$out/burnin-report.json"
  burnin_code=$?
  echo "look at: each interval's power_w_max/mean against the power limit (near it while the GEMM phase runs),"
  echo "gemm.checksum_mismatches (0), memtest bad_words (0)"
  run_step evidence-burnin 5 python3 scripts/gpu_evidence.py burnin "$out/burnin-report.json"
else
  remark burnin-check "no burnin-report.json: nothing to check"
fi
fi # first call

# --- summary -------------------------------------------------------------------------------
# The last numeric exit code of the steps named so (a cut or missing step counts as 3: unknown).
last_code() { printf '%s\n' "${steps[@]}" | awk -F'|' -v re="$1" '$1 ~ re && $2 ~ /^[0-9]+$/ {c = $2} END {print c == "" ? 3 : c}'; }
notes+=("gpu tests: $tests_passed of $tests_selected selected passed, ${#tests_not_applicable[@]} not run here, ${#tests_problems[@]} problem(s), ${#tests_cut[@]} binaries cut")
[ ${#tests_not_applicable[@]} -eq 0 ] || notes+=("not run here (they do not apply to this machine, or another step ran them): $(printf '%s; ' "${tests_not_applicable[@]}" | sed 's/; $//')")
[ ${#tests_problems[@]} -eq 0 ] || notes+=("GPU TEST PROBLEMS: $(printf '%s; ' "${tests_problems[@]}" | sed 's/; $//')")
# Every step cut or timed out: what it would have shown is missing, so the call is no pass.
cut_steps=$(printf '%s\n' "${steps[@]}" | awk -F'|' '$2 == "cut" || $2 == 124 || $2 == 137 {printf "%s%s", sep, $1; sep = " "}')
if [ "$CALL" = first ]; then
  quick_code=$(last_code '^quick-suite')
  notes+=("quick suite exit code $quick_code, burn-in check (validation minimum ${BURNIN_MIN_S} s) exit code $burnin_code (0 pass, 1 warn, 2 fail, 3 unknown); side-by-side $side_code (0 agree, 1 differ, 3 missing)")
  [ "$quick_code" -le 1 ] || not_pass+=("quick suite $quick_code")
  [ "$burnin_code" -le 1 ] || not_pass+=("burn-in check $burnin_code")
  [ "$side_code" -eq 0 ] || not_pass+=("side-by-side $side_code")
fi
[ -z "$cut_steps" ] || not_pass+=("steps cut or timed out: $cut_steps")
[ ${#tests_problems[@]} -eq 0 ] || not_pass+=("${#tests_problems[@]} GPU test problem(s)")
[ ${#tests_cut[@]} -eq 0 ] || not_pass+=("${#tests_cut[@]} GPU test binaries cut")
[ ${#busy_flag[@]} -eq 0 ] || not_pass+=("the GPU was busy")
if [ "$gpu_present" -eq 0 ]; then
  notes+=("NO GPU on this machine: the GPU steps above report so (exit 3, skipped tests); nothing was measured")
elif [ ${#not_pass[@]} -gt 0 ]; then
  notes+=("NOT A PASS: $(printf '%s; ' "${not_pass[@]}" | sed 's/; $//')")
else
  notes+=("PASS: every step ran and agreed")
fi
pack
echo
echo "=== [$(elapsed)s] summary"
cat "$out/summary.txt"
echo "files: $(find "$out" -mindepth 1 -printf '%P ')"
echo "elapsed: $(elapsed)s of the ${BUDGET_S}s budget"
pack
[ "$gpu_present" -eq 1 ] || exit 3
[ ${#not_pass[@]} -eq 0 ]
