#!/usr/bin/env bash
# The DaemonSet's loop (node-health-daemonset.yaml): every GPUSPEC_HEALTH_INTERVAL seconds,
# `gpuspec health --format kube` and apply what it says to this pod's Node:
#   - the merge patch (labels gpuspec.io/health and gpuspec.io/health-reason, annotation
#     gpuspec.io/health-summary), always;
#   - with GPUSPEC_TAINT=1, the taint: added on a fail, removed on a pass, left as it is on a
#     warn or no verdict (gpuspec decides which: reports/render/src/kubernetes.cpp).
# It never cordons, drains or deletes the node. A run with no verdict on bad input (nothing
# printed) publishes nothing and says why. GPUSPEC_HEALTH_ONCE=1 runs once (tests).
# Environment: NODE_NAME (the Downward API's spec.nodeName), GPUSPEC, KUBECTL.
set -u
gpuspec=${GPUSPEC:-gpuspec}
kubectl=${KUBECTL:-kubectl}
interval=${GPUSPEC_HEALTH_INTERVAL:-300}
node=${NODE_NAME:?NODE_NAME is not set: the DaemonSet sets it from spec.nodeName}

say() { echo "gpuspec-node-health: $(date -u +%Y-%m-%dT%H:%M:%SZ) $node: $*" >&2; }

publish_once() {
  local output rc patch taint
  output=$("$gpuspec" health --format kube 2>/tmp/gpuspec-health.err)
  rc=$?
  patch=$(printf '%s\n' "$output" | sed -n 1p)
  taint=$(printf '%s\n' "$output" | sed -n 2p)
  if [ -z "$patch" ] || [ -z "$taint" ]; then
    say "gpuspec health exited $rc and printed no publication: nothing published: $(tail -n 2 /tmp/gpuspec-health.err)"
    return
  fi
  if ! "$kubectl" patch node "$node" --type merge --patch "$patch" >/dev/null; then
    say "kubectl patch failed (exit code $rc's verdict not published)"
    return
  fi
  say "published (gpuspec health exit $rc)"
  [ "${GPUSPEC_TAINT:-0}" = 1 ] || return
  case "$taint" in
  -) ;;
  *NoSchedule-)
    # Removing a taint the node does not have is "not found": not an error here.
    "$kubectl" taint node "$node" "$taint" >/dev/null 2>&1 && say "untainted ($taint): it passes" ;;
  *)
    "$kubectl" taint node "$node" "$taint" --overwrite >/dev/null && say "tainted $taint" ;;
  esac
}

while :; do
  publish_once
  [ "${GPUSPEC_HEALTH_ONCE:-0}" = 1 ] && exit 0
  sleep "$interval"
done
