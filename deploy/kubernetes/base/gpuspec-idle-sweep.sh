#!/usr/bin/env bash
# The CronJob's sweep (idle-sweep-cronjob.yaml): one measuring Job (gpuspec-job.sh) for every
# GPU node that gpuspec's health check passes (label gpuspec.io/health=pass), that is not
# cordoned, and on which no running or pending pod requests a GPU. Each Job requests all of
# its node's GPUs, so a node that became busy meanwhile keeps it pending, never shares a GPU.
# Environment: GPUSPEC_SUITE (quick), GPUSPEC_ARGS, GPUSPEC_NAMESPACE, GPUSPEC_IMAGE (default:
# this pod's own image), KUBECTL, GPUSPEC_NODE_SELECTOR (gpuspec.io/health=pass).
set -u
kubectl=${KUBECTL:-kubectl}
here=$(dirname "${BASH_SOURCE[0]}")
namespace=${GPUSPEC_NAMESPACE:-gpuspec}
selector=${GPUSPEC_NODE_SELECTOR:-gpuspec.io/health=pass}
image=${GPUSPEC_IMAGE:-$("$kubectl" -n "$namespace" get pod "${HOSTNAME:-}" -o jsonpath='{.spec.containers[0].image}' 2>/dev/null)}
[ -n "$image" ] || { echo "gpuspec-idle-sweep: no image (GPUSPEC_IMAGE, or this pod's)" >&2; exit 1; }

started=0 skipped=0
# "name|unschedulable|GPUs" a line: '|' because an absent field is empty, which whitespace
# splitting would lose (the next field would take its place).
nodes=$("$kubectl" get nodes -l "$selector" -o jsonpath='{range .items[*]}{.metadata.name}|{.spec.unschedulable}|{.status.allocatable.nvidia\.com/gpu}{"\n"}{end}') || exit 1
while IFS='|' read -r node unschedulable gpus; do
  [ -n "$node" ] || continue
  if [ "$unschedulable" = true ] || [ -z "$gpus" ] || [ "$gpus" = 0 ]; then
    echo "gpuspec-idle-sweep: $node: skipped (cordoned, or no allocatable GPU)"
    skipped=$((skipped + 1))
    continue
  fi
  used=$("$kubectl" get pods -A --field-selector "spec.nodeName=$node,status.phase!=Succeeded,status.phase!=Failed" \
    -o jsonpath='{range .items[*].spec.containers[*]}{.resources.limits.nvidia\.com/gpu}{"\n"}{end}' |
    awk '{ s += $1 } END { print s + 0 }')
  if [ "$used" != 0 ]; then
    echo "gpuspec-idle-sweep: $node: skipped ($used GPU(s) in use)"
    skipped=$((skipped + 1))
    continue
  fi
  if bash "$here/gpuspec-job.sh" "$node" "$gpus" "${GPUSPEC_SUITE:-quick}" "${GPUSPEC_ARGS:-}" "$image" |
    "$kubectl" -n "$namespace" create -f - >/dev/null; then
    echo "gpuspec-idle-sweep: $node: Job created ($gpus GPUs, suite ${GPUSPEC_SUITE:-quick})"
    started=$((started + 1))
  else
    echo "gpuspec-idle-sweep: $node: the Job could not be created" >&2
  fi
done <<<"$nodes"
echo "gpuspec-idle-sweep: $started Job(s) created, $skipped node(s) skipped"
