#!/usr/bin/env bash
# An example for node_exporter's textfile collector: writes `gpuspec health --format prom` to
# DIR/gpuspec-health.prom atomically (gpuspec writes a hidden temporary file in DIR, flushes it,
# then renames it, so the collector never reads half a file). Run it from cron or a systemd
# timer, e.g. every 5 minutes:
#   */5 * * * * root /usr/local/sbin/gpuspec-textfile.sh /var/lib/prometheus/node-exporter
# DIR defaults to Debian's (prometheus-node-exporter's --collector.textfile.directory).
# The metrics are gpuspec_health_*, so they never collide with `gpuspec check --format prom`'s in
# the same directory. The file is written for every verdict, unknown (3) included: the status
# gauge says which. The script exits 0 when the file was written, 1 when it could not be.
#
# Environment: GPUSPEC (the binary, default gpuspec on PATH), GPUSPEC_HEALTH_TIMEOUT (default 50).
set -u

gpuspec=${GPUSPEC:-gpuspec}
limit=${GPUSPEC_HEALTH_TIMEOUT:-50}
dir=${1:-/var/lib/prometheus/node-exporter}

if [ ! -d "$dir" ]; then
  echo "gpuspec-textfile: $dir: not a directory" >&2
  exit 1
fi
timeout "$limit" "$gpuspec" health --format prom -o "$dir/gpuspec-health.prom"
rc=$?
case "$rc" in
0 | 1 | 2 | 3) exit 0 ;;
*)
  echo "gpuspec-textfile: gpuspec health exited $rc: $dir/gpuspec-health.prom not updated" >&2
  exit 1
  ;;
esac
