#!/usr/bin/env bash
# An example Slurm HealthCheckProgram (slurm.conf: HealthCheckProgram=/usr/local/sbin/
# gpuspec-healthcheck.sh, HealthCheckInterval=300), also usable from NHC (nhc.conf:
# `* || check_cmd_status -t 55 -r 0 /usr/local/sbin/gpuspec-healthcheck.sh`).
#
# It runs `gpuspec health` (passive: no CUDA context, no kernel, so running jobs are not
# disturbed) within Slurm's 60-second limit, and acts on its exit code:
#   0 pass     returns the node to service (scontrol update state=resume) if, and only if, it
#              is drained with a reason of gpuspec's own (one that starts with "gpuspec:"), as
#              NHC does with its own reasons: a node that this script drained comes back once it
#              passes again (GPU replaced, rebooted). A drain an operator set, with any other
#              reason, is never lifted; the log says which it was;
#   1 warn     logs the findings, does not drain;
#   2 fail     drains the node with gpuspec's suggested reason (gpuspec:<reason-code>:gpu<N>),
#              read from `gpuspec health --format reason` (the reason alone, one line);
#   3 unknown  does NOT drain (no verdict could be reached: no driver, an unreadable kernel
#              log, bad input) and says so, in the log and on stderr;
#   timeout    does NOT drain either, and says so.
# The script itself exits 0 unless it drained the node (then 1), so NHC sees the failure. A warn
# leaves a drained node drained: only a pass is proof that the cause is gone.
#
# Environment: GPUSPEC (the binary, default gpuspec on PATH), GPUSPEC_HEALTH_TIMEOUT (seconds,
# default 50), SLURMD_NODENAME (set by slurmd; default: the short host name), SCONTROL (default
# scontrol).
set -u
# slurmd starts this program with SLURMD_NODENAME as its whole environment: no PATH.
export PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}

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

# drain_reason_now: the node's drain reason as slurmctld holds it, empty when the node is not
# drained; returns 1 when scontrol cannot tell. `scontrol show node` prints
# "State=IDLE+DRAIN ..." and "Reason=TEXT [user@time]".
drain_reason_now() {
  local shown state
  shown=$("$scontrol" show node "$node" 2>&1) || {
    printf '%s' "$shown"
    return 1
  }
  state=$(printf '%s\n' "$shown" | sed -n 's/^ *State=\([^ ]*\).*/\1/p' | head -n 1)
  case "$state" in
  *DRAIN*)
    printf '%s\n' "$shown" | sed -n 's/^ *Reason=\(.*\) \[[^]]*\]$/\1/p; t; s/^ *Reason=//p' | head -n 1
    ;;
  esac
}

# resume_if_ours: after a pass, resumes the node only when its drain reason is gpuspec's own.
resume_if_ours() {
  local drain_reason
  if ! drain_reason=$(drain_reason_now); then
    say "pass on $node: scontrol could not show the node, so its drain state is unknown: $drain_reason"
    return 0
  fi
  [ -n "$drain_reason" ] || return 0
  case "$drain_reason" in
  gpuspec:*)
    if "$scontrol" update nodename="$node" state=resume; then
      say "pass on $node: resumed; it was drained with gpuspec's own reason ($drain_reason)"
    else
      say "pass on $node: scontrol could not resume it (drained with $drain_reason)"
    fi
    ;;
  *)
    say "pass on $node: left drained; its drain reason is not gpuspec's ('${drain_reason:-none}'), so only an operator resumes it"
    ;;
  esac
}

# The decision comes from `--format reason`: the drain reason alone on one line (or nothing) and
# the exit code. It is never picked out of the text output, where a line is only as trustworthy
# as the strings on it (an NVML string with a newline could once forge "drain reason: ...").
reason=$(timeout "$limit" "$gpuspec" health --format reason 2>/dev/null)
rc=$?
reason=$(printf '%s\n' "$reason" | head -n 1)
case "$reason" in
gpuspec:*) ;;
*) reason= ;;
esac
# details: the text output's verdict and why, for the log only (a warn or no verdict), in the
# time left of the limit.
details() {
  local left=$((limit - SECONDS))
  [ "$left" -gt 0 ] || return 0
  timeout "$left" "$gpuspec" health 2>&1 | grep -E "$1" | tr '\n' ' '
}

case "$rc" in
0)
  resume_if_ours
  exit 0
  ;;
1)
  verdict=$(details '^Verdict: ' | sed 's/^Verdict: //')
  drained=$(drain_reason_now) || drained=
  case "$drained" in
  gpuspec:*) say "warn on $node (${reason:-no reason}): stays drained ($drained): only a pass resumes it; ${verdict}" ;;
  *) say "warn on $node (${reason:-no reason}): not drained; ${verdict}" ;;
  esac
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
  say "unknown on $node: gpuspec health reached no verdict (exit 3), so the node is NOT drained: $(details '^(kernel log|GPUs|gpuspec health):')"
  exit 0
  ;;
124)
  say "gpuspec health did not finish within ${limit} s on $node: the node is NOT drained"
  exit 0
  ;;
*)
  say "gpuspec health exited $rc on $node (not a verdict): the node is NOT drained: $(details . | tail -c 200)"
  exit 0
  ;;
esac
