#!/usr/bin/env bash
# Acceptance of many nodes through Slurm: one `gpuspec run` on every node at once (one batch
# job, one task per node, each node whole: --exclusive) into a shared folder, then one check
# per report, one ingest into the fleet database and one fleet compare, run where this script
# runs (a login node). docs/fleet.md walks through it.
#
# Usage: gpuspec-acceptance.sh --out DIR (--nodes LIST | --partition NAME) [--suite SUITE]
#          [--db FILE] [--time LIMIT] [--sbatch-arg ARG]... [-- RUN_ARGS...]
#   --out DIR         the shared folder (every node writes DIR/reports/<node>.json there)
#   --nodes LIST      Slurm node list (gpu[01-16]); or --partition: its idle nodes now
#   --suite SUITE     gpuspec run's suite (default quick); burnin takes RUN_ARGS --duration
#   --db FILE         the fleet database the reports are ingested into (gpuspec db ingest)
#   --time LIMIT      the job's time limit (default 02:00:00)
#   --sbatch-arg ARG  passed to sbatch as is (an account, a QOS, a reservation); repeatable
#   RUN_ARGS          passed to every node's gpuspec run as is
# Writes DIR/summary.txt (a line per node: its verdict, or why it has none), DIR/compare.txt,
# and DIR/logs/<node>.txt (each run's own output). Exits with the worst verdict over the
# nodes, in gpuspec's order: 2 a node fails, else 1 a node warns, else 3 a node has no verdict
# (inconclusive, or no report: the job never ran there, or the run died before writing one),
# else 0, all pass; 4 when the job could not be submitted or the arguments are wrong.
#
# Environment: GPUSPEC (default gpuspec on PATH; every node must run the same binary, e.g. from
# a shared install), SBATCH, SINFO (default sbatch, sinfo).
set -u
gpuspec=${GPUSPEC:-gpuspec}
sbatch=${SBATCH:-sbatch}
sinfo=${SINFO:-sinfo}

usage() {
  sed -n '6,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 4
}
out='' nodes='' partition='' suite=quick db='' time_limit=02:00:00
sbatch_args=() run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
  --out) out=${2:?--out needs a folder} && shift 2 ;;
  --nodes) nodes=${2:?--nodes needs a node list} && shift 2 ;;
  --partition) partition=${2:?--partition needs a name} && shift 2 ;;
  --suite) suite=${2:?--suite needs a name} && shift 2 ;;
  --db) db=${2:?--db needs a file} && shift 2 ;;
  --time) time_limit=${2:?--time needs a limit} && shift 2 ;;
  --sbatch-arg) sbatch_args+=("${2:?--sbatch-arg needs a value}") && shift 2 ;;
  --) shift && run_args=("$@") && break ;;
  -h | --help) usage ;;
  *) echo "gpuspec-acceptance: unknown argument '$1'" >&2 && usage ;;
  esac
done
[ -n "$out" ] || { echo "gpuspec-acceptance: --out DIR is required" >&2; exit 4; }
if [ -z "$nodes" ]; then
  [ -n "$partition" ] || { echo "gpuspec-acceptance: --nodes or --partition is required" >&2; exit 4; }
  nodes=$("$sinfo" -h -p "$partition" -t idle -o '%N' | paste -sd, -)
  [ -n "$nodes" ] || { echo "gpuspec-acceptance: partition $partition has no idle node" >&2; exit 4; }
fi
mkdir -p "$out/reports" "$out/logs" || exit 4
out=$(cd "$out" && pwd)
# The folder goes into an #SBATCH line, quoted there: a '"' or a line break cannot be.
case "$out" in
*'"'* | *$'\n'*)
  echo "gpuspec-acceptance: --out $out: a folder name with a quote or a line break cannot be given to sbatch" >&2
  exit 4
  ;;
esac
# The expanded node names, for the summary: every one must have a report.
expanded=$(scontrol show hostnames "$nodes" 2>/dev/null) || expanded=$(printf '%s\n' "${nodes//,/$'\n'}")
count=$(printf '%s\n' "$expanded" | grep -c .)

# The job: one task per node; each writes its report and exit code under its own name. The
# task always exits 0, so that one node's failure neither ends the others' runs nor hides them.
# shellcheck disable=SC2016 # the $node and $? are the node script's, not this one's
{
  echo '#!/bin/bash'
  echo "# One node's run: written by gpuspec-acceptance.sh, run by srun on every node of the job."
  printf 'node=$SLURMD_NODENAME\n'
  printf '%q ' "$gpuspec" run --suite "$suite" "${run_args[@]}"
  printf -- '-o %q/reports/"$node".json >%q/logs/"$node".txt 2>&1\n' "$out" "$out"
  printf 'echo $? >%q/logs/"$node".rc\nexit 0\n' "$out"
} >"$out/node-run.sh"
cat >"$out/acceptance.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=gpuspec-acceptance
#SBATCH --nodes=$count
#SBATCH --nodelist=$nodes
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive
#SBATCH --time=$time_limit
#SBATCH --output="$out/logs/job-%j.txt"
srun --ntasks-per-node=1 --kill-on-bad-exit=0 bash $(printf '%q' "$out/node-run.sh")
EOF
echo "gpuspec-acceptance: $count node(s) ($nodes), suite $suite, into $out"
if ! "$sbatch" --wait "${sbatch_args[@]}" "$out/acceptance.sbatch" >"$out/logs/sbatch.txt" 2>&1; then
  echo "gpuspec-acceptance: the job failed: $(tail -n 3 "$out/logs/sbatch.txt")" >&2
  ls "$out"/reports/*.json >/dev/null 2>&1 || exit 4
fi

# worse A B: the worse of two exit codes, in gpuspec's order of verdicts (fail over warn over
# inconclusive over pass: reports/judge/src/verdict.cpp), so one node's fail is never hidden by
# another's missing verdict.
worse() {
  local rank=(0 2 3 1) # rank[exit code]: pass 0, warn 2, fail 3, unknown 1
  if [ "${rank[$2]}" -gt "${rank[$1]}" ]; then echo "$2"; else echo "$1"; fi
}

# Judge each node's report; a node without one has no verdict.
worst=0
: >"$out/summary.txt"
while read -r node; do
  [ -n "$node" ] || continue
  report=$out/reports/$node.json
  if [ ! -s "$report" ]; then
    why="no report: the run did not write one (gpuspec run exit $(cat "$out/logs/$node.rc" 2>/dev/null || echo 'unknown: never ran'))"
    echo "$node UNKNOWN $why" >>"$out/summary.txt"
    rc=3
  else
    "$gpuspec" check "$report" >"$out/logs/$node.check.txt" 2>&1
    rc=$?
    echo "$node $(sed -n 's/^Verdict: //p' "$out/logs/$node.check.txt" | tail -n 1)" >>"$out/summary.txt"
  fi
  [ "$rc" -le 3 ] || rc=3
  worst=$(worse "$worst" "$rc")
done <<<"$expanded"

if [ -n "$db" ]; then
  "$gpuspec" db ingest --db "$db" "$out/reports" >"$out/logs/ingest.txt" 2>&1 ||
    echo "gpuspec-acceptance: db ingest: $(tail -n 2 "$out/logs/ingest.txt")" >&2
fi
reports=("$out"/reports/*.json)
if [ -e "${reports[0]}" ]; then
  "$gpuspec" compare "${reports[@]}" >"$out/compare.txt" 2>&1
fi
cat "$out/summary.txt"
echo "gpuspec-acceptance: worst verdict exit code $worst (summary: $out/summary.txt, compare: $out/compare.txt)"
exit "$worst"
