#!/usr/bin/env bash
# deploy/prometheus and deploy/grafana: the alert rules load (promtool check rules) and fire on
# the degraded series they are for and not on the healthy ones (promtool test rules); the
# dashboard validates against deploy/grafana/dashboard.schema.json and every query in it is
# PromQL that promtool parses; every gpuspec_ metric the rules and the dashboard name is one
# that gpuspec health, gpuspec check or the node_exporter textfile script really writes.
# Usage: dashboards_test.sh GPUSPEC FAKE_NVML FIXTURES DEPLOY SCRIPTS PYTHONPATH OUTDIR
# Exit 77 without promtool, unless GPUSPEC_REQUIRE_KUBE=1 (CI).
set -u
bin=$1 fake=$2 fx=$3 deploy=$4 scripts=$5 pypath=$6 out=$7
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
if ! command -v promtool >/dev/null; then
  [ "${GPUSPEC_REQUIRE_KUBE:-0}" = 1 ] && { echo "FAIL: no promtool (GPUSPEC_REQUIRE_KUBE=1)"; exit 1; }
  echo "SKIP: no promtool (scripts/install-deps.sh installs prometheus)"
  exit 77
fi
rules=$deploy/prometheus/gpuspec-alerts.yml
dashboard=$deploy/grafana/gpuspec-dashboard.json
promtool check rules "$rules" >"$out/check-rules.txt" 2>&1 || fail "promtool check rules: $(cat "$out/check-rules.txt")"
(cd "$deploy/prometheus" && promtool test rules gpuspec-alerts.test.yml) >"$out/test-rules.txt" 2>&1 ||
  fail "promtool test rules: $(cat "$out/test-rules.txt")"

# The dashboard: the schema, then its queries as recording rules for promtool to parse (the
# $model variable stands for what Grafana puts there, a regex).
PYTHONPATH="$pypath" python3 - "$dashboard" "$deploy/grafana/dashboard.schema.json" "$out/dashboard-rules.yml" <<'PY' ||
import json, sys
import jsonschema
dashboard = json.load(open(sys.argv[1]))
jsonschema.validate(dashboard, json.load(open(sys.argv[2])))
ids = [p["id"] for p in dashboard["panels"]]
assert len(ids) == len(set(ids)), f"panel ids repeat: {ids}"
with open(sys.argv[3], "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for p in dashboard["panels"]:
        for t in p["targets"]:
            expr = t["expr"].replace("$model", ".*")
            f.write(f"      - record: gpuspec_dashboard_panel_{p['id']}_{t['refId']}\n")
            f.write(f"        expr: {json.dumps(expr)}\n")
PY
  fail "the dashboard does not validate (see above)"
promtool check rules "$out/dashboard-rules.yml" >"$out/dashboard-check.txt" 2>&1 ||
  fail "a dashboard query is not PromQL: $(cat "$out/dashboard-check.txt")"

# Every gpuspec_ metric named is one we write: health and check over fixtures, and the textfile
# script's own gauges.
env GPUSPEC_NVML_LIBRARY="$fake" GPUSPEC_FAKE_NVML_CONFIG="$fx/nvml/eight-healthy.json" \
  GPUSPEC_KERNEL_LOG="$fx/kernel-log/xid79-gpu3.log" "$bin" health --root "$fx/hosts/x86-gpu-node" \
  --format prom >"$out/written.prom"
for report in "$fx"/check/*.json; do
  "$bin" check --format prom "$report" >>"$out/written.prom" 2>/dev/null
done
grep -o 'gpuspec_textfile_[a-z_]*' "$scripts/node-exporter/gpuspec-textfile.sh" >>"$out/written.prom"
sed -n 's/^\(gpuspec_[a-z_]*\).*/\1/p' "$out/written.prom" | sort -u >"$out/written-names.txt"
grep -oh 'gpuspec_[a-z_]*' "$rules" "$dashboard" | grep -v '^gpuspec_dashboard_' | sort -u >"$out/named.txt"
while read -r name; do
  grep -qx "$name" "$out/written-names.txt" || fail "$name is named by the rules or the dashboard but gpuspec writes no such metric"
done <"$out/named.txt"
[ -s "$out/named.txt" ] || fail "no gpuspec_ metric found in the rules and the dashboard"
[ "$failures" -eq 0 ] || exit 1
echo "dashboards: all checks passed ($(wc -l <"$out/named.txt") metrics named, all written)"
