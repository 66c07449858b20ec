#!/usr/bin/env bash
# The Prometheus output of `gpuspec check` through `promtool check metrics` (Debian's
# prometheus package). promtool's lint asks for snake_case label names; the labels UUID,
# modelName and Hostname are dcgm-exporter's, kept so dashboards can join the two, so that one
# lint message is accepted and every other message (and any parse error) fails.
# Usage: check_promtool_test.sh GPUSPEC FIXTURES OUTDIR. Exit 77 (skipped) without promtool.
set -u
bin=$1
fx=$2
out=$3
command -v promtool >/dev/null || { echo "promtool not installed: skipped"; exit 77; }
rm -rf "$out"
mkdir -p "$out"
failures=0
for f in "$fx"/healthy.json "$fx"/degraded-*.json "$fx"/inconclusive-*.json; do
  name=$(basename "$f" .json)
  "$bin" check --specs "$fx/specs.json" --format prom -o "$out/$name.prom" "$f" 2>/dev/null
  promtool check metrics <"$out/$name.prom" >"$out/$name.lint" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && grep -v "label names should be written in 'snake_case' not 'camelCase'" "$out/$name.lint" | grep -q .; then
    echo "FAIL: $name:"
    sed 's/^/  /' "$out/$name.lint" | head -10
    failures=$((failures + 1))
  fi
done
[ "$failures" -eq 0 ] || exit 1
echo "promtool accepted every output"
