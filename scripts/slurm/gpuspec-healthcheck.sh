#!/usr/bin/env bash
# An example Slurm HealthCheckProgram (slurm.conf: HealthCheckProgram=/usr/local/sbin/
# gpuspec-healthcheck.sh, HealthCheckInterval=300), also usable from NHC (nhc.conf:
# `* || check_cmd_status -t 55 -r 0 /usr/local/sbin/gpuspec-healthcheck.sh`).
#
# It runs `gpuspec health` (passive: no CUDA context, no kernel, so running jobs are not
# disturbed) within Slurm's 60-second limit, and acts on its exit code:
#   0 pass     nothing;
#   1 warn     logs the findings, does not drain;
#   2 fail     drains the node with gpuspec's suggested reason (gpuspec:<reason-code>:gpu<N>);
#   3 unknown  does NOT drain (no verdict could be reached: no driver, an unreadable kernel
#              log, bad input) and says so, in the log and on stderr;
#   timeout    does NOT drain either, and says so.
# The script itself exits 0 unless it drained the node (then 1), so NHC sees the failure.
#
# Environment: GPUSPEC (the binary, default gpuspec on PATH), GPUSPEC_HEALTH_TIMEOUT (seconds,
# default 50), SLURMD_NODENAME (set by slurmd; default: the short host name), SCONTROL (default
# scontrol).
set -u

gpuspec=${GPUSPEC:-gpuspec}
scontrol=${SCONTROL:-scontrol}
limit=${GPUSPEC_HEALTH_TIMEOUT:-50}
node=${SLURMD_NODENAME:-$(hostname -s)}

say() {
  echo "gpuspec-healthcheck: $*" >&2
  if command -v logger >/dev/null 2>&1; then
    logger -t gpuspec-healthcheck -- "$*" || true
  fi
}

output=$(timeout "$limit" "$gpuspec" health 2>&1)
rc=$?
reason=$(printf '%s\n' "$output" | sed -n 's/^drain reason: //p' | head -n 1)
verdict=$(printf '%s\n' "$output" | sed -n 's/^Verdict: //p' | head -n 1)

case "$rc" in
0)
  exit 0
  ;;
1)
  say "warn on $node (${reason:-no reason}): not drained; ${verdict}"
  exit 0
  ;;
2)
  # A fail always comes with a reason; the fallback only keeps a drain from having none.
  reason=${reason:-gpuspec:fail:node}
  say "fail on $node: draining with reason $reason"
  if ! "$scontrol" update nodename="$node" state=drain reason="$reason"; then
    say "scontrol could not drain $node (reason $reason)"
  fi
  exit 1
  ;;
3)
  say "unknown on $node: gpuspec health reached no verdict (exit 3), so the node is NOT drained: $(printf '%s\n' "$output" | grep -E '^(kernel log|GPUs|gpuspec health):' | tr '\n' ' ')"
  exit 0
  ;;
124)
  say "gpuspec health did not finish within ${limit} s on $node: the node is NOT drained"
  exit 0
  ;;
*)
  say "gpuspec health exited $rc on $node (not a verdict): the node is NOT drained: $(printf '%s\n' "$output" | tail -n 1)"
  exit 0
  ;;
esac
