#!/usr/bin/env bash
# Prints the Job that measures one node (acceptance-job.yaml filled in), for `kubectl create -f -`:
#   gpuspec-job.sh NODE GPUS [SUITE [ARGS [IMAGE]]]
#   deploy/kubernetes/base/gpuspec-job.sh gpu-node-01 8 burnin "--duration 30m" \
#     registry.example.com/gpuspec:0.1.0 | kubectl create -f -
# SUITE defaults to quick, IMAGE to $GPUSPEC_IMAGE. The template is found beside this script
# (or at $GPUSPEC_JOB_TEMPLATE).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,6p' "${BASH_SOURCE[0]}" >&2; exit 2; }
node=$1 gpus=$2 suite=${3:-quick} args=${4:-} image=${5:-${GPUSPEC_IMAGE:-}}
template=${GPUSPEC_JOB_TEMPLATE:-$(dirname "${BASH_SOURCE[0]}")/acceptance-job.yaml}
[ -n "$image" ] || { echo "gpuspec-job.sh: no image (argument 5 or GPUSPEC_IMAGE)" >&2; exit 2; }
# What goes into the YAML is checked, so that a value can never break out of its quotes.
[[ $node =~ ^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$ ]] || { echo "gpuspec-job.sh: '$node' is not a node name" >&2; exit 2; }
[[ $gpus =~ ^[1-9][0-9]*$ ]] || { echo "gpuspec-job.sh: '$gpus' is not a GPU count" >&2; exit 2; }
[[ $suite =~ ^(quick|standard|burnin|full)$ ]] || { echo "gpuspec-job.sh: '$suite' is not a suite" >&2; exit 2; }
[[ $args =~ ^[-A-Za-z0-9_.,=:\ ]*$ ]] || { echo "gpuspec-job.sh: '$args': only plain run options" >&2; exit 2; }
[[ $image =~ ^[-A-Za-z0-9_./:@]+$ ]] || { echo "gpuspec-job.sh: '$image' is not an image" >&2; exit 2; }
# A label value is at most 63 characters and a node name up to 253: the Job is labelled with
# a hash of the name (16 hex digits), the name itself goes in an annotation, and the pod is
# placed by name (nodeSelector kubernetes.io/hostname).
node_hash=$(printf '%s' "$node" | sha256sum | cut -c1-16)
sed -e "s|@NODE@|$node|g" -e "s|@NODE_HASH@|$node_hash|g" -e "s|@GPUS@|$gpus|g" \
  -e "s|@SUITE@|$suite|g" -e "s|@ARGS@|$args|g" -e "s|@IMAGE@|$image|g" "$template"
