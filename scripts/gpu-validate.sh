#!/usr/bin/env bash
# The unattended check on a real GPU, in ONE call of a lent machine (at most 600 s, one H200):
# the quick suite (every family, H2D/D2H/bidir and the one-rank collectives among them),
# `gpuspec check --format nccl-tests` on it, a 2-minute burn-in and its checks, `gpuspec info`
# and `gpuspec health` (timed), a side-by-side with code nobody here wrote (PyTorch's
# device-to-device copy and matmul, one Python process), and the GPU tests in what time is left.
# Never changes the card's settings.
#
#   scripts/gpu-validate.sh OUTDIR
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
# Budget: the lent machine allows 600 s per command; this script keeps to BUDGET_S = 530 s of
# step timeouts. Past it at most one step's kill-after (40 s, a gpuspec run's) and one journal
# recovery (12 s) can run on: 582 s, inside the 600. Steps, in order of the evidence's value (each
# has its own `timeout`; every one is also clamped to what is left of the 530 s, and cut when
# under 5 s are left):
#   machine: nvidia-smi query 10 + nvidia-smi -q 10 + processes 5 + /proc/meminfo 2  =  27
#   binaries: unpacking the bundle 20 + gpuspec --version 5 + NCCL's search at most 10 + 15
#     (a library the loader lacks adds 15 s of search each; none expected, cuBLAS is in
#     /usr/local/cuda there)                                                           =  50
#   gpuspec info 10 + info --json 10 + health --json 15                                =  35
#   quick suite 150 (a refusal of a busy GPU takes a second or two: the rerun with
#     --allow-busy then has its own 150, clamped to the budget)                        = 150
#   only when the quick suite timed out before collective.all_reduce: transfers and
#     all-reduce alone 35 + check 5 + evidence 5 + 5 (taken from the GPU tests below)   = (50)
#   quick check --format nccl-tests 5 + evidence (transfers, collectives) 5 + 5        =  15
#   the cuBLASLt FP8 GEMMs (gemm_fp8_gpu.*: three E4M3/E5M2 pairs, an untimed verified
#     run each at 256x512x128 and 4096^3): expected about 10 s (a CUDA context, cuBLASLt's
#     setup, six GEMMs and their checks: a budget, not a measured figure); timeout 30,
#     taken from the GPU tests below                                                 = (30)
#   nccl-tests' all_reduce_perf, only where installed (not on the lent H200s: KINDS.md
#     lists no nccl-tests, so the script says so and spends nothing; else taken from the
#     GPU tests below)                                                                 = (20)
#   burn-in --duration 2m 150 (120 s of load + setup, memory.test, one phase's end)    = 150
#   burn-in checks: acceptance 5 + with the validation's 2-minute minimum 5 + evidence 5 = 15
#   PyTorch: one process, one import of torch (most of the time), its copy, its matmul on
#     the report's GEMM cases and both side-by-sides (scripts/torch_reference.py)       =  65
#   sum of the fixed steps                                                             = 507
#   GPU tests: what is left of 530: 23 s if every step above ran to its timeout (if the
#     interconnect rerun or nccl-tests did too, the PyTorch step is shortened or cut); far
#     more when the steps take their usual time (info, health, checks and evidence a second
#     or two each). Each binary under its own timeout (at most 90 s, never past the budget);
#     those that do not fit are CUT and listed as such. They go last, as the least valuable
#     here: CI builds them, and a run's report already verifies every kernel's output.
# Each timeout sends SIGTERM first to the step's process group, then SIGKILL: a gpuspec run gets
# RUN_KILL_AFTER_S = 40 s, longer than the 30 s its coordinator gives its workers after an
# interrupt to return their case (coordinator.hpp: interrupt_grace_s; the workers stop between
# samples), so it writes its report before the SIGKILL; every other step gets KILL_GRACE_S =
# 10 s. A gpuspec run prints each case's wall time ("[wall N s]") in the log: what sizes the
# next call.
#
# Exit code: 0 when everything ran and agreed (the quick suite's verdict pass or warn, the
# burn-in's under the validation's minimum too, the side-by-side agreeing, no GPU test failing,
# none skipped unexpectedly, no GPU busy); 1 otherwise, with the reasons in the summary ("NOT A
# PASS: ..."); 3 when there is no GPU, or no binary to run. A GPU test that skips for a reason
# of this machine, not of the code (EXPECTED_SKIPS below: the two-GPU tests on one GPU, a
# refusal for older GPUs on a newer one, the collectives where no NCCL was found), is counted
# and listed, never a failure.
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

BUDGET_S=${GPU_VALIDATE_BUDGET_S:-530} # another budget only for the script's own tests
KILL_GRACE_S=10     # SIGTERM to SIGKILL for a step
RUN_KILL_AFTER_S=40 # for a gpuspec run: longer than its coordinator's 30 s interrupt grace
BURNIN_DURATION=2m  # the validation's burn-in: shorter than the acceptance minimum (10 min)
BURNIN_MIN_S=120    # the minimum its second check judges by (a site setting, --rules)
# GPU tests that skip for a reason of this machine, not of the code: "ERE|why". A skip whose
# message matches none of them is unexpected, and no pass.
EXPECTED_SKIPS=(
  'one GPU: no pair|two-GPU test on one GPU (transfer_p2p_test)'
  ': the kernel runs here$|a refusal for GPUs before sm_80, on a newer GPU (gemm_custom_test)'
  'the block-scaled GEMMs need 10.0 or newer|the Blackwell-only block-scaled GEMMs on an older GPU (gemm_blockscaled_test; its not-supported test runs instead)'
  '^a Blackwell GPU: the formats run|the older-GPU refusal test of the block-scaled GEMMs, on a Blackwell GPU (gemm_blockscaled_test)'
)
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

# The why of an expected skip's message, or nothing when it is unexpected.
expected_skip() { # MESSAGE
  local entry
  for entry in "${EXPECTED_SKIPS[@]}"; do
    if printf '%s\n' "$1" | grep -qE -- "${entry%%|*}"; then echo "${entry#*|}"; return; fi
  done
  if [ "$nccl_found" -eq 0 ] && printf '%s\n' "$1" | grep -qi 'nccl'; then
    echo "no NCCL on this machine (find_nccl found none)"
  fi
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

# --- the quick suite: the most valuable evidence, so first --------------------------------
# Never --allow-busy silently: without it first; if the run refuses a busy GPU, say so loudly
# and measure anyway for the evidence, marked in the summary.
busy_flag=()
run_gpuspec quick-suite 150 "$out/report.json" --suite quick
if refused_busy quick-suite; then
  notes+=("THE GPU WAS BUSY: other processes used it (see processes-before); the runs after the refusal used --allow-busy, so every figure is a shared GPU's")
  echo; echo "!!!!! THE GPU IS IN USE BY ANOTHER PROCESS: measuring anyway with --allow-busy, for the evidence only !!!!!"
  busy_flag=(--allow-busy)
  run_gpuspec quick-suite-allow-busy 150 "$out/report.json" --suite quick --allow-busy
fi

# The transfers and collectives are the suite's last families: if the quick suite ran out of
# time before the all-reduce, measure them alone (35 s, taken from the GPU tests' remainder).
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
# Issue 19.6's Hopper part: the cuBLASLt FP8 GEMMs, E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3,
# one untimed run each at 256x512x128 and 4096^3 (NT), verified against the host reference
# (tests/gpu/gemm_blockscaled_test.cpp). Not in the quick suite, so run here on their own.
fp8_test="$tests_dir/gpuspec_gemm_cublas_gpu_test"
if [ -x "$fp8_test" ]; then
  STEP_STDOUT="$stage/fp8-gemms.log" run_step fp8-gemms 30 "$fp8_test" --gtest_color=no --gtest_filter='gemm_fp8_gpu.*'
  fp8_rc=$?
  grep -E '^\[ +(OK|FAILED|SKIPPED) +\]' "$stage/fp8-gemms.log" | head -n 10
  [ "$fp8_rc" -eq 0 ] || not_pass+=("the cuBLASLt FP8 GEMMs (fp8-gemms) did not all verify")
else
  remark fp8-gemms "no gpuspec_gemm_cublas_gpu_test among the test binaries: the FP8 GEMMs are not run"
fi
nccl_tests=$(command -v all_reduce_perf || find /usr/local /opt -maxdepth 4 -name all_reduce_perf -type f -perm -u+x -print -quit 2>/dev/null)
if [ -n "$nccl_tests" ]; then
  run_step nccl-tests-all-reduce 20 "$nccl_tests" -b 8 -e 1G -f 4 -g 1
else
  remark nccl-tests "nccl-tests (all_reduce_perf) is not on this machine (PATH, /usr/local, /opt): gpuspec's busbw has no nccl-tests figure beside it here"
fi

# --- the burn-in (issue 12): power near the limit during the GEMM phase, checksums equal ---
run_gpuspec burnin 150 "$out/burnin-report.json" --suite burnin --duration "$BURNIN_DURATION" "${busy_flag[@]}"
if refused_busy burnin && [ ${#busy_flag[@]} -eq 0 ]; then
  notes+=("THE GPU WAS BUSY at the burn-in: it ran with --allow-busy, so its figures are a shared GPU's")
  echo; echo "!!!!! THE GPU IS IN USE BY ANOTHER PROCESS: burning in anyway with --allow-busy, for the evidence only !!!!!"
  busy_flag=(--allow-busy)
  run_gpuspec burnin-allow-busy 150 "$out/burnin-report.json" --suite burnin --duration "$BURNIN_DURATION" --allow-busy
fi
burnin_code=3
if [ -f "$out/burnin-report.json" ]; then
  # The acceptance check: a 2-minute burn-in is shorter than the acceptance minimum
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

# --- PyTorch beside gpuspec: one process, one import of torch -----------------------------
side_code=3
if [ -f "$out/report.json" ]; then
  run_step torch-side-by-side 65 python3 scripts/torch_reference.py "$out/report.json" \
    --copy-out "$stage/torch-copy.json" --matmul-out "$stage/torch-matmul.json" --budget-s 55
  side_code=$?
else
  remark torch-side-by-side "no report.json: nothing to set PyTorch beside"
fi

# --- the GPU tests, in what is left --------------------------------------------------------
tests_failed=0
tests_passed=0
tests_skipped=0
skips_expected=()
skips_unexpected=()
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
  [ "$rc" -ne 0 ] && tests_failed=$((tests_failed + 1))
  tests_passed=$((tests_passed + ${p:-0}))
  k=0
  while IFS=$'\t' read -r test message; do
    [ -n "$test" ] || continue
    k=$((k + 1))
    why=$(expected_skip "$message")
    if [ -n "$why" ]; then
      skips_expected+=("$test ($why)")
      echo "expected skip: $test: $message"
    else
      skips_unexpected+=("$test: $message")
      echo "UNEXPECTED SKIP: $test: $message"
    fi
  done < <(skipped_tests "$stage/$name.log")
  tests_skipped=$((tests_skipped + k))
  echo "$name: ${p:-0} passed, $k skipped"
done
if [ ${#tests_cut[@]} -gt 0 ]; then
  notes+=("GPU test binaries CUT for the budget: ${tests_cut[*]}")
fi

# --- summary -------------------------------------------------------------------------------
# The last numeric exit code of the steps named so (a cut or missing step counts as 3: unknown).
last_code() { printf '%s\n' "${steps[@]}" | awk -F'|' -v re="$1" '$1 ~ re && $2 ~ /^[0-9]+$/ {c = $2} END {print c == "" ? 3 : c}'; }
quick_code=$(last_code '^quick-suite')
notes+=("gpu tests: $tests_passed passed, $tests_skipped skipped (${#skips_expected[@]} expected here, ${#skips_unexpected[@]} unexpected), $tests_failed binaries failing, ${#tests_cut[@]} cut")
[ ${#skips_expected[@]} -eq 0 ] || notes+=("expected skips (this machine, not the code): ${skips_expected[*]}")
[ ${#skips_unexpected[@]} -eq 0 ] || notes+=("UNEXPECTED SKIPS: ${skips_unexpected[*]}")
notes+=("quick suite exit code $quick_code, burn-in check (validation minimum ${BURNIN_MIN_S} s) exit code $burnin_code (0 pass, 1 warn, 2 fail, 3 unknown); side-by-side $side_code (0 agree, 1 differ, 3 missing)")
[ "$quick_code" -le 1 ] || not_pass+=("quick suite $quick_code")
[ "$burnin_code" -le 1 ] || not_pass+=("burn-in check $burnin_code")
[ "$side_code" -eq 0 ] || not_pass+=("side-by-side $side_code")
[ "$tests_failed" -eq 0 ] || not_pass+=("$tests_failed GPU test binaries failing")
[ ${#skips_unexpected[@]} -eq 0 ] || not_pass+=("${#skips_unexpected[@]} unexpected GPU test skips")
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
