#!/usr/bin/env bash
# End to end: gpuspec-mpi under `mpirun -np 2 --oversubscribe` on this one machine (no GPU), or
# under a real Slurm's srun (GPUSPEC_MPI_SRUN, below):
# rank 0 writes a valid report that the real reader loads and `gpuspec check` judges (exit 3:
# nothing measured), a rank killed mid-run and a rank that stalls past the deadline are named
# in a failed result within a bounded time, more ranks than GPUs is a clear error, --pairwise
# on one node says there is nothing to pair. Every run is bounded by `timeout`: never a hang.
# Usage: mpi_launcher_test.sh SCENARIO GPUSPEC_MPI GPUSPEC FAKE_NVML NVML_CONFIGS SCHEMA OUTDIR
set -u
scenario=$1 bin=$2 gpuspec=$3 fake_nvml=$4 nvml_configs=$5 schema=$6 out=$7
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
validate="$here/../../../scripts/validate-report.py"
rm -rf "$out"
mkdir -p "$out"
# Under Slurm (tests/slurm/slurm_test.sh mpi) GPUSPEC_MPI_SRUN holds the srun that launches the
# two ranks in place of mpirun (e.g. "srun --mpi=pmix -N1 -w gn1"); the scenarios are the same.
srun_cmd=()
[ -n "${GPUSPEC_MPI_SRUN:-}" ] && read -r -a srun_cmd <<<"$GPUSPEC_MPI_SRUN"
if [ ${#srun_cmd[@]} -eq 0 ]; then
  command -v mpirun >/dev/null || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
fi
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# OpenMPI refuses root unless told; CI containers run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One machine: shared memory and loopback TCP only, no probing for fabrics that are not here.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export NO_COLOR=1

# launch SECONDS ARGS...: mpirun -np 2 gpuspec-mpi ARGS, bounded; sets rc and elapsed.
launch() {
  local limit=$1
  shift
  local start=$SECONDS
  if [ ${#srun_cmd[@]} -gt 0 ]; then
    timeout --kill-after=5 "$limit" "${srun_cmd[@]}" -n 2 "$bin" "$@" >"$out/stdout" 2>"$out/stderr"
  else
    timeout --kill-after=5 "$limit" mpirun -np 2 --oversubscribe "$bin" "$@" >"$out/stdout" 2>"$out/stderr"
  fi
  rc=$?
  elapsed=$((SECONDS - start))
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && [ "$elapsed" -ge "$limit" ]; then
    fail "mpirun did not end within $limit s (a hang)"
  fi
}
has() { grep -qF -- "$2" "$1" || { fail "$1 lacks '$2'"; sed 's/^/  /' "$1" | head -20; }; }
# report_ok FILE: the schema and the C++ reader (gpuspec check) both accept the report.
report_ok() {
  [ -s "$1" ] || { fail "no report $1"; return; }
  if command -v python3 >/dev/null; then
    PYTHONPATH="$here/../../../.deps/python" python3 "$validate" "$schema" "$1" >"$out/schema.txt" 2>&1
    case $? in 0 | 77) ;; *) fail "schema rejects $1: $(cat "$out/schema.txt")" ;; esac
  fi
  "$gpuspec" check "$1" >"$out/check.txt" 2>&1
  check_rc=$?
  grep -q "error" "$out/check.txt" && grep -q "$1:" "$out/check.txt" && fail "check cannot read $1"
}
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$3"; }

case "$scenario" in
plain)
  # No GPU, no CUDA: every case skipped with its reason, exit 3, the report valid.
  launch 40 -o "$out/r.json" --case-timeout 5 --bootstrap-timeout 10 --sizes 4K,1M
  [ "$rc" -eq 3 ] || fail "exit $rc, expected 3"
  report_ok "$out/r.json"
  [ "$check_rc" -eq 3 ] || fail "gpuspec check exit $check_rc, expected 3"
  has "$out/r.json" '"status": "skipped"'
  has "$out/r.json" '"nothing measured: '
  # Without CUDA or nccl.h the backend measures nothing; a CUDA build's ranks find no GPU here.
  if [ "$(json r 'r["run"]["backend"]' "$out/r.json")" = "none" ]; then
    grep -qE 'not built with CUDA and NCCL|NCCL: ' "$out/r.json" ||
      fail "the report does not say why nothing can be measured"
  else
    has "$out/r.json" 'no NVIDIA driver'
  fi
  has "$out/r.json" '(ranks 0, 1 on '
  [ "$(json r '"%d %s" % (len(r["results"]), r["complete"])' "$out/r.json")" = "2 False" ] ||
    fail "expected 2 results and complete false"
  [ "$(json r 'len(r["results"][0]["parameters"]["ranks"])' "$out/r.json")" = "2" ] ||
    fail "the ranks observation does not hold both ranks"
  ;;
kill)
  # Rank 1 SIGKILLs itself at case 1: mpirun ends the job; rank 0 writes what it has.
  GPUSPEC_MPI_TEST_KILL_RANK=1 launch 40 -o "$out/r.json" --case-timeout 20 --sizes 4K,1M,4M
  [ "$rc" -ne 0 ] || fail "exit 0 after a rank died"
  [ "$elapsed" -lt 20 ] || fail "took $elapsed s, more than the case deadline"
  report_ok "$out/r.json"
  if [ ${#srun_cmd[@]} -gt 0 ]; then
    # srun --mpi=pmix ends the whole step with SIGKILL when a rank dies (Slurm's PMIx plugin
    # kills the step on a process abort), so rank 0 cannot name the dead rank: what it wrote
    # before then stays, marked incomplete, and check cannot pass it. mpirun inside the
    # allocation names the rank (docs/multi-node.md).
    [ "$check_rc" -eq 3 ] || fail "gpuspec check exit $check_rc, expected 3 (incomplete)"
    has "$out/r.json" '"complete": false'
    has "$out/r.json" 'run in progress: 1 of 3 cases done'
    has "$out/stderr" 'task 1: Killed'
    [ "$failures" -eq 0 ] && echo "ok: $scenario (srun)"
    exit $((failures > 0))
  fi
  [ "$check_rc" -eq 2 ] || fail "gpuspec check exit $check_rc, expected 2 (a failed result)"
  has "$out/r.json" '"complete": false'
  has "$out/r.json" '"failure": "worker_exit"'
  has "$out/r.json" 'rank 1 on '
  has "$out/r.json" 'has died'
  [ "$(json r 'r["results"][1]["parameters"]["missing_ranks"]' "$out/r.json")" = "[1]" ] ||
    fail "case 1 does not name rank 1 as missing"
  ;;
stall)
  # Rank 1 stops answering at case 1: past the 2 s deadline it is named as not arrived, the
  # report is written, the job is ended (MPI_Abort with the check's exit code).
  GPUSPEC_MPI_TEST_STALL_RANK=1 launch 40 -o "$out/r.json" --case-timeout 2 --sizes 4K,1M,4M
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2 (the check's verdict on a failed result)"
  [ "$elapsed" -lt 20 ] || fail "took $elapsed s for a 2 s deadline"
  report_ok "$out/r.json"
  has "$out/r.json" '"failure": "worker_timeout"'
  has "$out/r.json" 'had not arrived when its 2 s deadline passed'
  has "$out/r.json" 'rank 1 on '
  has "$out/r.json" 'at 1048576 bytes'
  [ "$(json r 'len(r["results"])' "$out/r.json")" = "2" ] || fail "expected the results of cases 0 and 1 only"
  ;;
gpus)
  # The fake NVML with two GPUs: one rank each, by PCI bus id order; still skipped (no CUDA).
  # A CUDA build asks the CUDA runtime too, which sees none of the fake's GPUs here: the
  # assignment cannot be exercised that way.
  if GPUSPEC_NVML_LIBRARY="$fake_nvml" GPUSPEC_FAKE_NVML_CONFIG="$nvml_configs/two-healthy.json" \
    "$gpuspec" info 2>&1 | grep -q 'The GPUs cannot be used'; then
    echo "SKIP: a CUDA build without a GPU cannot use the fake NVML's GPUs"
    exit 77
  fi
  GPUSPEC_NVML_LIBRARY="$fake_nvml" GPUSPEC_FAKE_NVML_CONFIG="$nvml_configs/two-healthy.json" \
    launch 40 -o "$out/r.json" --case-timeout 5 --sizes 4K
  [ "$rc" -eq 3 ] || fail "exit $rc, expected 3"
  report_ok "$out/r.json"
  [ "$(json r '[x["pci_bus_id"] for x in r["results"][0]["parameters"]["ranks"]]' "$out/r.json")" = \
    "['00000000:18:00.0', '00000000:2A:00.0']" ] || fail "ranks not given the GPUs in PCI bus id order"
  [ "$(json r 'r["run"]["devices"]' "$out/r.json")" = "[0, 1]" ] || fail "run.devices is not [0, 1]"
  # One GPU, two ranks: a clear error naming the host and the counts, exit 3.
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["devices"]=c["devices"][:1]; json.dump(c, open(sys.argv[2], "w"))' \
    "$nvml_configs/two-healthy.json" "$out/one.json"
  GPUSPEC_NVML_LIBRARY="$fake_nvml" GPUSPEC_FAKE_NVML_CONFIG="$out/one.json" \
    launch 40 -o "$out/one-report.json" --case-timeout 5 --sizes 4K
  [ "$rc" -eq 3 ] || fail "exit $rc, expected 3 for 2 ranks on 1 GPU"
  has "$out/stderr" '2 ranks but 1 GPU: one rank per GPU'
  ;;
nodes)
  # Two "nodes" on this machine: each rank its own host name (GPUSPEC_MPI_TEST_HOSTNAME) and the
  # fake NVML's two-healthy GPUs; rank 1 (node-b) stops answering at case 1. The report holds
  # node-b's inventory in "nodes"; gpuspec check fails node-b's GPU 0 (hung, named with its
  # serial), never node-a's.
  if GPUSPEC_NVML_LIBRARY="$fake_nvml" GPUSPEC_FAKE_NVML_CONFIG="$nvml_configs/two-healthy.json" \
    "$gpuspec" info 2>&1 | grep -q 'The GPUs cannot be used'; then
    echo "SKIP: a CUDA build without a GPU cannot use the fake NVML's GPUs"
    exit 77
  fi
  # shellcheck disable=SC2054 # --sizes takes one comma-separated argument
  args=(-o "$out/r.json" --case-timeout 2 --sizes 4K,1M,4M)
  nvml=(GPUSPEC_NVML_LIBRARY="$fake_nvml" GPUSPEC_FAKE_NVML_CONFIG="$nvml_configs/two-healthy.json")
  start=$SECONDS
  if [ ${#srun_cmd[@]} -gt 0 ]; then
    # srun's form of mpirun's "A : B": one line per rank in a --multi-prog file.
    {
      echo "0 env ${nvml[*]} GPUSPEC_MPI_TEST_HOSTNAME=node-a $bin ${args[*]}"
      echo "1 env ${nvml[*]} GPUSPEC_MPI_TEST_HOSTNAME=node-b GPUSPEC_MPI_TEST_NO_TELEMETRY=1 $bin ${args[*]}"
    } >"$out/ranks.conf"
    GPUSPEC_MPI_TEST_STALL_RANK=1 timeout --kill-after=5 40 "${srun_cmd[@]}" -n 2 \
      --multi-prog "$out/ranks.conf" >"$out/stdout" 2>"$out/stderr"
  else
    GPUSPEC_MPI_TEST_STALL_RANK=1 timeout --kill-after=5 40 mpirun --oversubscribe \
      -np 1 env "${nvml[@]}" GPUSPEC_MPI_TEST_HOSTNAME=node-a "$bin" "${args[@]}" : \
      -np 1 env "${nvml[@]}" GPUSPEC_MPI_TEST_HOSTNAME=node-b GPUSPEC_MPI_TEST_NO_TELEMETRY=1 \
      "$bin" "${args[@]}" >"$out/stdout" 2>"$out/stderr"
  fi
  rc=$?
  [ $((SECONDS - start)) -lt 30 ] || fail "took $((SECONDS - start)) s for a 2 s deadline"
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2 (node-b's GPU fails)"
  report_ok "$out/r.json"
  [ "$(json r '[n["host"]["hostname"] for n in r["nodes"]]' "$out/r.json")" = "['node-b']" ] ||
    fail "the report's nodes do not hold node-b"
  [ "$(json r 'r["nodes"][0]["run_devices"]' "$out/r.json")" = "[0]" ] ||
    fail "node-b's run_devices is not [0]"
  has "$out/r.json" 'rank 1 on node-b, GPU 0 (00000000:18:00.0'
  "$gpuspec" check --format json "$out/r.json" >"$out/check.json" 2>"$out/check.err"
  [ $? -eq 2 ] || fail "gpuspec check exit $?, expected 2"
  verdict() { python3 -c "import json,sys; c=json.load(open(sys.argv[1])); n=[x for x in c['nodes'] if x['hostname']==sys.argv[2]][0]; g=[x for x in n['gpus'] if x['index']==0][0]; print(g['status'], n['source'] == sys.argv[3])" "$out/check.json" "$1" "$out/r.json"; }
  [ "$(verdict node-b)" = "fail True" ] || fail "node-b's GPU 0: $(verdict node-b), expected fail"
  case "$(verdict node-a)" in fail*) fail "node-a's GPU 0 is blamed for node-b's rank" ;; esac
  grep -q 'GPUSPEC-WORKER-HUNG' "$out/check.json" || fail "no GPUSPEC-WORKER-HUNG in the check"
  ;;
pairwise)
  launch 40 -o "$out/r.json" --pairwise --case-timeout 5 --sizes 4K
  [ "$rc" -eq 3 ] || fail "exit $rc, expected 3"
  has "$out/stderr" 'nothing to pair'
  report_ok "$out/r.json"
  ;;
*)
  echo "unknown scenario $scenario"
  exit 2
  ;;
esac
[ "$failures" -eq 0 ] && echo "ok: $scenario" || sed 's/^/  stderr: /' "$out/stderr" | tail -15
exit $((failures > 0))
