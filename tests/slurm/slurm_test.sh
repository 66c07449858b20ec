#!/usr/bin/env bash
# gpuspec under a real Slurm (Debian's slurm-wlm and munge) started on this machine by the test
# (slurm_cluster.sh): several node names on one host stand in for several nodes, each with its
# own fake GPUs (the fake NVML), kernel log and fixture host. The test starts everything it
# needs and stops it, and fails if anything is left running.
# Usage: slurm_test.sh MODE GPUSPEC FAKE_NVML FIXTURES SCRIPTS OUTDIR [STAND_IN] [GPUSPEC_MPI]
#   MODE health      scripts/slurm/gpuspec-healthcheck.sh as slurmd's HealthCheckProgram: an
#                    Xid 79 drains its node with gpuspec's reason (read back with scontrol show
#                    node); a warn and an unknown leave theirs up; once the drained node passes
#                    it is resumed, but a warn does not resume it; a drain an operator set is
#                    never lifted
#   MODE jobs        `gpuspec check` in a job (srun, and sbatch --wait) as on a login node
#   MODE acceptance  scripts/slurm/gpuspec-acceptance.sh: one run per node into a shared folder
#                    (the stand-in worker), one ingest, a fleet compare
#   MODE mpi         gpuspec-mpi under srun --mpi=pmix, 2 ranks: the scenarios of
#                    tests/unit/mpi/mpi_launcher_test.sh, launched by srun instead of mpirun
# Exit 77 (skipped) without slurmctld, slurmd or munged, unless GPUSPEC_REQUIRE_SLURM=1 (CI).
set -u
mode=$1 out=$6
# Absolute paths: slurmd runs the health check and the jobs from folders of its own.
abs() { [ -z "$1" ] || realpath -- "$1"; }
bin=$(abs "$2") fake=$(abs "$3") fx=$(abs "$4") scripts=$(abs "$5")
stand_in=$(abs "${7:-}") mpi_bin=$(abs "${8:-}")
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$out"
mkdir -p "$out"
for tool in slurmctld slurmd munged srun sbatch scontrol; do
  if ! command -v "$tool" >/dev/null; then
    if [ "${GPUSPEC_REQUIRE_SLURM:-0}" = 1 ]; then
      echo "FAIL: $tool is not installed and GPUSPEC_REQUIRE_SLURM=1 (scripts/install-deps.sh installs slurm-wlm and munge)"
      exit 1
    fi
    echo "SKIP: $tool is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
    exit 77
  fi
done
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# shellcheck source=tests/slurm/slurm_cluster.sh
. "$here/slurm_cluster.sh"

# The daemons' folder is short and private (munge's socket path must fit in 108 bytes); its
# logs are copied into $out when the test ends.
run_dir=$(mktemp -d /tmp/gpuspec-slurm.XXXXXX)
finish() {
  local rc=$?
  slurm_stop || { echo "FAIL: the cluster did not stop cleanly"; rc=1; }
  cp -r "$run_dir/log" "$out/daemon-logs" 2>/dev/null
  rm -rf "$run_dir"
  exit "$rc"
}
trap finish EXIT
export NO_COLOR=1

# gpuspec as the nodes run it: the fixture host in place of this machine's /proc and /sys.
mkdir -p "$run_dir/bin" "$run_dir/nodes"
cat >"$run_dir/bin/gpuspec" <<EOF
#!/bin/sh
if [ "\$1" = health ]; then exec "$bin" "\$@" --root "$fx/hosts/x86-gpu-node"; fi
exec "$bin" "\$@"
EOF
chmod +x "$run_dir/bin/gpuspec"

# node_gpus NODE NVML_CONFIG KERNEL_LOG: what NODE's health check sees from now on.
node_gpus() {
  cat >"$run_dir/nodes/$1.env.tmp" <<EOF
export GPUSPEC_NVML_LIBRARY='$fake'
export GPUSPEC_FAKE_NVML_CONFIG='$fx/nvml/$2'
export GPUSPEC_KERNEL_LOG='$3'
EOF
  mv "$run_dir/nodes/$1.env.tmp" "$run_dir/nodes/$1.env"
}

# The HealthCheckProgram: slurmd gives it SLURMD_NODENAME and nothing else, so it sets what the
# shipped script needs and logs the script's stderr per node.
cat >"$run_dir/healthcheck" <<EOF
#!/bin/bash
export SLURM_CONF='$run_dir/slurm.conf' GPUSPEC='$run_dir/bin/gpuspec'
[ -r '$run_dir/nodes/'"\$SLURMD_NODENAME".env ] && . '$run_dir/nodes/'"\$SLURMD_NODENAME".env
exec bash '$scripts/slurm/gpuspec-healthcheck.sh' 2>>'$run_dir/log/health-'"\$SLURMD_NODENAME".log
EOF
chmod +x "$run_dir/healthcheck"

clean=$fx/kernel-log/clean-boot.log
xid79=$fx/kernel-log/xid79-gpu3.log
# log_has NODE TEXT SECONDS: NODE's health log says TEXT within SECONDS.
log_has() {
  local start=$SECONDS
  until grep -qF -- "$2" "$run_dir/log/health-$1.log" 2>/dev/null; do
    if [ $((SECONDS - start)) -ge "$3" ]; then
      fail "$1's health log lacks '$2': $(cat "$run_dir/log/health-$1.log" 2>/dev/null)"
      return 1
    fi
    sleep 0.25
  done
}
expect_state() { # NODE REGEX SECONDS WHAT
  slurm_wait_state "$1" "$2" "$3" || fail "$4: $1 is $(slurm_node_state "$1"), expected /$2/"
}

case "$mode" in
health)
  node_gpus gn1 eight-healthy.json "$xid79"                   # fail: an Xid 79 on GPU 3
  node_gpus gn2 eight-row-remap-pending.json "$clean"         # warn
  node_gpus gn3 eight-healthy.json /nonexistent/kernel.log    # unknown: the log is unread
  node_gpus gn4 eight-healthy.json "$clean"                   # pass
  started=$SECONDS
  slurm_start "$run_dir" "$run_dir/healthcheck" gn1 gn2 gn3 gn4 || exit 1
  expect_state gn1 DRAIN 20 "an Xid 79"
  echo "gn1 drained $((SECONDS - started)) s after slurmd started"
  [ "$(slurm_node_reason gn1)" = "gpuspec:GPUSPEC-XID-HARDWARE:gpu3" ] ||
    fail "gn1's drain reason is '$(slurm_node_reason gn1)'"
  log_has gn1 "fail on gn1: draining with reason gpuspec:GPUSPEC-XID-HARDWARE:gpu3" 10
  log_has gn2 "warn on gn2 (gpuspec:GPUSPEC-ROW-REMAP-PENDING:gpu3): not drained" 10
  log_has gn3 "NOT drained" 10
  # Two more health intervals: the warn, the unknown and the pass are still up.
  sleep 5
  for node in gn2 gn3 gn4; do
    slurm_node_state "$node" | grep -q DRAIN && fail "$node was drained: $(slurm_node_reason "$node")"
  done
  # An operator drains gn4 for their own reason: its passes never lift it.
  scontrol update nodename=gn4 state=drain reason="maintenance: cable swap"
  log_has gn4 "pass on gn4: left drained; its drain reason is not gpuspec's ('maintenance: cable swap')" 10
  # gn1's GPU is replaced but it still warns: not a pass, so it stays drained.
  node_gpus gn1 eight-row-remap-pending.json "$clean"
  log_has gn1 "warn on gn1 (gpuspec:GPUSPEC-ROW-REMAP-PENDING:gpu3): stays drained (gpuspec:GPUSPEC-XID-HARDWARE:gpu3): only a pass resumes it" 10
  sleep 3
  slurm_node_state gn1 | grep -q DRAIN || fail "a warn resumed gn1"
  # Now it passes: resumed, and the log says why.
  node_gpus gn1 eight-healthy.json "$clean"
  expect_state gn1 '^(IDLE|MIXED|ALLOCATED)$' 15 "a pass after gpuspec's drain"
  log_has gn1 "pass on gn1: resumed; it was drained with gpuspec's own reason (gpuspec:GPUSPEC-XID-HARDWARE:gpu3)" 5
  slurm_node_state gn4 | grep -q DRAIN || fail "gn4, drained by an operator, was resumed"
  [ "$(slurm_node_reason gn4)" = "maintenance: cable swap" ] || fail "gn4's reason changed: '$(slurm_node_reason gn4)'"
  ;;
jobs)
  node_gpus gn1 eight-healthy.json "$clean"
  node_gpus gn2 eight-healthy.json "$clean"
  slurm_start "$run_dir" "$run_dir/healthcheck" gn1 gn2 || exit 1
  expect_state gn1 IDLE 10 "start"
  healthy=$fx/check/healthy.json
  degraded=$fx/check/degraded-below-spec.json
  "$bin" check "$healthy" >"$out/direct.txt" 2>&1
  direct_rc=$?
  timeout 60 srun -w gn2 "$bin" check "$healthy" >"$out/srun.txt" 2>&1
  rc=$?
  [ "$rc" -eq "$direct_rc" ] || fail "srun gpuspec check exited $rc, directly $direct_rc: $(tail -3 "$out/srun.txt")"
  cmp -s "$out/direct.txt" "$out/srun.txt" || fail "srun's check output differs from the direct one"
  timeout 60 srun -w gn1 "$bin" check "$degraded" >"$out/srun-degraded.txt" 2>&1
  [ $? -eq 2 ] || fail "srun gpuspec check of a degraded report did not exit 2"
  grep -q "^Verdict: FAIL" "$out/srun-degraded.txt" || fail "no FAIL verdict from srun"
  # A batch job, as a login node submits it: --wait returns the job's exit code.
  cat >"$run_dir/check.sbatch" <<EOF
#!/bin/bash
#SBATCH --output=$out/sbatch-%j.txt
"$bin" check --format json "$degraded"
EOF
  timeout 60 sbatch --wait -w gn2 "$run_dir/check.sbatch" >"$out/sbatch.txt" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "sbatch --wait of a failing check exited $rc: $(cat "$out/sbatch.txt")"
  python3 -c 'import json,sys,glob; c=json.load(open(glob.glob(sys.argv[1]+"/sbatch-*.txt")[0])); sys.exit(0 if c["status"]=="fail" and c["exit_code"]==2 else 1)' "$out" ||
    fail "the batch job's output is not check's JSON with status fail"
  ;;
acceptance)
  [ -x "$stand_in" ] || {
    echo "SKIP: no stand-in worker given"
    exit 77
  }
  # Every node runs the same gpuspec with the stand-in worker over two fake GPUs; gn3's second
  # GPU hangs in every case, as a broken GPU would.
  cat >"$run_dir/bin/gpuspec-node" <<EOF
#!/bin/sh
export GPUSPEC_NVML_LIBRARY='$fake' GPUSPEC_FAKE_NVML_CONFIG='$fx/nvml/two-healthy.json'
export GPUSPEC_WORKER='$stand_in' GPUSPEC_KERNEL_LOG='$clean'
export GPUSPEC_STAND_IN_SCRIPT='$fx/stand-in/two-healthy.json'
[ "\${SLURMD_NODENAME:-}" = gn3 ] && export GPUSPEC_STAND_IN_SCRIPT='$fx/stand-in/two-node-wide-hangs.json'
exec "$bin" "\$@"
EOF
  chmod +x "$run_dir/bin/gpuspec-node"
  node_gpus gn1 eight-healthy.json "$clean"
  node_gpus gn2 eight-healthy.json "$clean"
  node_gpus gn3 eight-healthy.json "$clean"
  slurm_start "$run_dir" "$run_dir/healthcheck" gn1 gn2 gn3 || exit 1
  expect_state gn3 IDLE 10 "start"
  shared=$out/acceptance
  GPUSPEC="$run_dir/bin/gpuspec-node" timeout 120 bash "$scripts/slurm/gpuspec-acceptance.sh" \
    --out "$shared" --nodes 'gn[1-3]' --time 5 --db "$out/fleet.sqlite" \
    >"$out/acceptance.txt" 2>&1
  rc=$?
  for node in gn1 gn2 gn3; do
    [ -s "$shared/reports/$node.json" ] ||
      fail "$node wrote no report: $(ls "$shared/reports" 2>&1) $(tail -5 "$out/acceptance.txt")"
  done
  [ "$(wc -l <"$shared/summary.txt")" -eq 3 ] || fail "the summary does not hold 3 nodes: $(cat "$shared/summary.txt")"
  grep -q '^gn3 FAIL' "$shared/summary.txt" || fail "gn3's hung GPU is not a FAIL: $(cat "$shared/summary.txt")"
  [ "$rc" -eq 2 ] || fail "acceptance exit $rc, expected 2 (gn3 fails): $(tail -5 "$out/acceptance.txt")"
  [ -s "$shared/compare.txt" ] || fail "no fleet compare"
  # One ingest of the shared folder: the three runs are in the fleet database, gn3's GPU 1 failed.
  "$bin" db history --db "$out/fleet.sqlite" --node vm --format json >"$out/history.json" 2>&1 ||
    fail "db history after the ingest: $(cat "$shared/logs/ingest.txt" "$out/history.json")"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps(r)[:0]); sys.exit(0 if len({x.get("run_id") or x.get("run") for x in r["rows"]}) == 3 else 1)' "$out/history.json" ||
    fail "the fleet database does not hold the 3 runs: $(head -c 600 "$out/history.json")"
  ;;
mpi)
  [ -x "$mpi_bin" ] || {
    echo "SKIP: gpuspec-mpi is not built (GPUSPEC_MPI=ON)"
    exit 77
  }
  slurm_start "$run_dir" "$run_dir/healthcheck" gn1 || exit 1
  # Both ranks on one node name: Slurm's PMIx plugin keeps each step's client folder in
  # /tmp/spmix_appdir_<uid>_<job>.<step>, one path per host, so two node names of one machine
  # would collide in it; two hosts never do.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  launcher_test() { # HOW SCENARIO [PREFIX...]: one scenario of the mpirun test, run as HOW
    local how=$1 scenario=$2
    shift 2
    "$@" bash "$here/../unit/mpi/mpi_launcher_test.sh" "$scenario" "$mpi_bin" "$bin" "$fake" \
      "$fx/nvml" "$here/../../reports/model/schema/report.v1.schema.json" "$out/$how-$scenario" \
      >"$out/$how-$scenario.txt" 2>&1
    case $? in
    0) echo "$how: $scenario ok" ;;
    77) echo "$how: $scenario skipped: $(tail -n 1 "$out/$how-$scenario.txt")" ;;
    *) fail "$how: $scenario: $(tail -n 15 "$out/$how-$scenario.txt")" ;;
    esac
  }
  # srun launches the ranks itself, through PMIx: every scenario.
  for scenario in plain kill stall gpus nodes pairwise; do
    GPUSPEC_MPI_SRUN="srun --mpi=pmix -N1 -w gn1" launcher_test srun "$scenario"
  done
  # mpirun inside an allocation (salloc runs the test on this host with the job's environment;
  # OpenMPI reads the allocation from it): a run, and the dead rank it names where srun cannot.
  for scenario in plain kill; do
    launcher_test salloc-mpirun "$scenario" timeout 90 salloc --quiet -N1 -w gn1
  done
  ;;
*)
  echo "unknown mode $mode"
  exit 2
  ;;
esac
[ "$failures" -eq 0 ] || exit 1
echo "slurm $mode: all checks passed"
