#!/usr/bin/env bash
# An example for node_exporter's textfile collector: writes `gpuspec health --format prom` to
# DIR/gpuspec-health.prom atomically (gpuspec writes the file beside it, flushed, and the script
# renames it into place, so the collector never reads half a file). Run it from cron or a
# systemd timer, e.g. every 5 minutes:
#   */5 * * * * root /usr/local/sbin/gpuspec-textfile.sh /var/lib/prometheus/node-exporter
# DIR defaults to Debian's (prometheus-node-exporter's --collector.textfile.directory).
# The metrics are gpuspec_health_*, so they never collide with `gpuspec check --format prom`'s in
# the same directory. The file is written for every verdict, unknown (3) included: the status
# gauge says which.
#
# A run that writes nothing (gpuspec health stopped on bad input, timed out, or could not start)
# leaves the last good file in place, which would read as a node still healthy. So every run
# also writes DIR/gpuspec-textfile.prom, whatever happened:
#   gpuspec_textfile_last_success_timestamp_seconds  when gpuspec-health.prom was last written
#                                                    (Unix time; 0: never)
#   gpuspec_textfile_last_run_timestamp_seconds      when this script last ran gpuspec health
#   gpuspec_textfile_exit_code                       gpuspec health's exit code that run (0 pass,
#                                                    1 warn, 2 fail, 3 unknown or bad input,
#                                                    124 timeout, 127 not found)
#   gpuspec_textfile_written                         1 when that run wrote gpuspec-health.prom
# Alert on `gpuspec_textfile_written == 0` or on `time() -
# gpuspec_textfile_last_success_timestamp_seconds` above a few periods (docs/health.md).
# The script exits 0 when gpuspec-health.prom was written, 1 when it was not.
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
health=$dir/gpuspec-health.prom
status=$dir/gpuspec-textfile.prom
# Names the collector does not read (it reads *.prom): gpuspec's output before it is renamed into
# place, and the status file's.
next=$dir/.gpuspec-health.prom.next
status_next=$dir/.gpuspec-textfile.prom.next

rm -f -- "$next"
started=$(date +%s)
timeout "$limit" "$gpuspec" health --format prom -o "$next"
rc=$?
written=0
case "$rc" in
0 | 1 | 2 | 3)
  # Exit 3 is also bad input, which writes nothing: only a file that exists was written.
  if [ -s "$next" ] && mv -f -- "$next" "$health"; then
    written=1
  fi
  ;;
esac
rm -f -- "$next"

last_success=0
if [ -e "$health" ]; then
  last_success=$(stat -c %Y "$health" 2>/dev/null || echo 0)
fi

write_status() {
  echo "# HELP gpuspec_textfile_last_success_timestamp_seconds When gpuspec health last wrote gpuspec-health.prom (Unix time; 0: never)."
  echo "# TYPE gpuspec_textfile_last_success_timestamp_seconds gauge"
  echo "gpuspec_textfile_last_success_timestamp_seconds $last_success"
  echo "# HELP gpuspec_textfile_last_run_timestamp_seconds When gpuspec-textfile.sh last ran gpuspec health (Unix time)."
  echo "# TYPE gpuspec_textfile_last_run_timestamp_seconds gauge"
  echo "gpuspec_textfile_last_run_timestamp_seconds $started"
  echo "# HELP gpuspec_textfile_exit_code The exit code of the last gpuspec health run (0 pass, 1 warn, 2 fail, 3 unknown or bad input, 124 timeout)."
  echo "# TYPE gpuspec_textfile_exit_code gauge"
  echo "gpuspec_textfile_exit_code $rc"
  echo "# HELP gpuspec_textfile_written Whether the last run wrote gpuspec-health.prom (1) or left the previous file in place (0)."
  echo "# TYPE gpuspec_textfile_written gauge"
  echo "gpuspec_textfile_written $written"
}
if ! { write_status >"$status_next" && mv -f -- "$status_next" "$status"; }; then
  rm -f -- "$status_next"
  echo "gpuspec-textfile: $status: could not be written" >&2
  exit 1
fi

if [ "$written" -ne 1 ]; then
  echo "gpuspec-textfile: gpuspec health exited $rc and wrote nothing: $health not updated (last written at $last_success)" >&2
  exit 1
fi
exit 0
