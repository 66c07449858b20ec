#!/usr/bin/env bash
# The screens of `gpuspec diff`, `compare`, `list` and check's md as an operator reads them (issue 31):
# at COLUMNS=80 no line is wider, the answer (the verdict, then what is not passing, naming
# benchmark and GPU in full) comes first and the verdict again last, `-o` writes the file, and
# the format names are the same as check's. check's own sweep is in check_cli_test.sh; health's
# in tests/unit/health/health_cli_test.sh. Usage: screens_cli_test.sh GPUSPEC FIXTURES OUTDIR
set -u
bin=$1
fx=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
failures=0
# expect, has: tests/support/cli_expect.sh.
# shellcheck source=/dev/null # (tests/support/cli_expect.sh, checked on its own)
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_expect.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }

# narrow CODE ARGS...: runs gpuspec at COLUMNS=80 (stdout not a terminal), output in
# $out/stdout, then the same with --json in $out/json.
narrow() {
  local want=$1
  shift
  COLUMNS=80 expect "$want" "$@"
}

# screen KIND: checks $out/stdout against $out/json: every line within 80 columns; the first
# line is the verdict, as check says it ("Verdict: FAIL (exit code 2)"), and the last line too;
# every metric the JSON says is not passing has a row, before the details, that starts with its
# benchmark and names its GPUs whole.
screen() {
  python3 - "$1" "$out/stdout" "$out/json" <<'PY' || failures=$((failures + 1))
import json, sys
kind, text_file, json_file = sys.argv[1:]
text = open(text_file, encoding="utf-8").read().splitlines()
doc = json.load(open(json_file, encoding="utf-8"))
bad = 0
def fail(msg):
    global bad
    bad += 1
    print(f"FAIL: {kind}: {msg}")
for l in text:
    if len(l) > 80:
        fail(f"a line over 80 columns: {l}")
def ranges(ds):
    runs, i = [], 0
    while i < len(ds):
        j = i
        while j + 1 < len(ds) and ds[j + 1] == ds[j] + 1:
            j += 1
        runs.append(f"{ds[i]}-{ds[j]}" if j >= i + 2 else str(ds[i]))
        i = j + 1 if j >= i + 2 else i + 1
    return ",".join(runs)
if kind == "diff":
    verdict, code = doc["verdict"].upper(), {"fail": 2, "warn": 1}.get(doc["verdict"], 0)
    end = next((k for k, l in enumerate(text) if l.startswith("Old: ")), len(text))
    for m in doc["metrics"]:
        if m["verdict"] not in ("fail", "warn"):
            continue
        gpus = ranges(m["new_devices"] or m["old_devices"])
        if not any(l.startswith(m["bench_id"] + " ") and f"  {gpus}  " in l and m["verdict"] in l
                   for l in text[:end]):
            fail(f"no row before the details names {m['bench_id']} on GPU {gpus} in full")
else:
    verdict, code = ("WARN", 1) if doc["outliers"] else ("PASS", 0)
    end = next((k for k, l in enumerate(text) if l.startswith("By case")), len(text))
    cols = doc["columns"]
    for row in doc["rows"]:
        for k, cell in enumerate(row["cells"]):
            if cell and cell["outlier"]:
                host, gpu = cols[k]["hostname"], str(cols[k]["device_index"])
                if not any(host in l and row["bench_id"] in l and
                           any(gpu == g or (("-" in g) and int(g.split("-")[0]) <= int(gpu) <= int(g.split("-")[1]))
                               for part in l.split() for g in part.split(",") if g.replace("-", "").isdigit())
                           for l in text[:end]):
                    fail(f"the outlier {row['bench_id']} on {host} GPU {gpu} is not named first")
want = f"Verdict: {verdict} (exit code {code})"
if not text or not text[0].startswith(want):
    fail(f"the first line is not '{want}': {text[:1]}")
if not text or text[-1] != want:
    fail(f"the last line is not '{want}': {text[-1:]}")
sys.exit(1 if bad else 0)
PY
}

d=$fx/diff
# diff: OLD against every fixture (fail, warn, pass), and back.
for new in regressed slightly-slower improved baseline; do
  case $new in regressed) code=2 ;; slightly-slower) code=1 ;; *) code=0 ;; esac
  narrow "$code" diff "$d/baseline.json" "$d/$new.json"
  NO_COLOR=1 "$bin" diff --json "$d/baseline.json" "$d/$new.json" >"$out/json" 2>/dev/null
  screen diff
done
narrow 2 diff "$d/baseline.json" "$d/regressed.json"
head -1 "$out/stdout" | grep -q '^Verdict: FAIL (exit code 2); 4 metrics, 1 not passing$' ||
  { echo "FAIL: diff's first line: $(head -1 "$out/stdout")"; failures=$((failures + 1)); }

# compare: one node against a node with an outlier GPU (the same host name: the report named).
c=$fx/check
narrow 1 compare "$c/healthy.json" "$c/degraded-sibling-outlier.json"
NO_COLOR=1 "$bin" compare --json "$c/healthy.json" "$c/degraded-sibling-outlier.json" >"$out/json" 2>/dev/null
screen compare
has stdout "  (degraded-sibling-outlier.json)"

# A fleet of 12 nodes copied from the healthy one, named as a shell's glob sorts them
# (node1, node10, node11, node12, node2, ...); node7's GPUs are all 10% slow at STREAM triad (a
# node pattern: one row naming "0-7"), node10's GPU 3 at copy.
python3 - "$c/healthy.json" "$out/fleet" <<'PY'
import copy, json, os, sys
base = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2], exist_ok=True)
for n in range(1, 13):
    r = copy.deepcopy(base)
    r["host"]["hostname"] = f"node{n}"
    for res in r["results"]:
        slow = (n == 7 and res["bench_id"] == "memory.stream.triad") or \
               (n == 10 and res["bench_id"] == "memory.stream.copy" and res["devices"] == [3])
        if slow:
            res["samples"] = [s * 0.9 for s in res["samples"]]
            for k in ("median", "mean", "min", "max", "p25", "p75", "q1", "q3", "stddev"):
                if isinstance(res["stats"].get(k), (int, float)):
                    res["stats"][k] *= 0.9
    json.dump(r, open(os.path.join(sys.argv[2], f"node{n}.json"), "w"))
PY
fleet=$(printf '%s\n' "$out"/fleet/node*.json | sort) # text order: node1, node10, ..., node2
# shellcheck disable=SC2086 # file names without spaces
narrow 1 compare $fleet
# shellcheck disable=SC2086
NO_COLOR=1 "$bin" compare --json $fleet >"$out/json" 2>/dev/null
screen compare
has stdout "node7   0-7  memory.stream.triad"
has stdout "node10  3    memory.stream.copy"
lines=$(wc -l <"$out/stdout")
[ "$lines" -le 40 ] || { echo "FAIL: compare of 12 nodes printed $lines lines without -v"; failures=$((failures + 1)); }
python3 -c 'import json, sys; h = [c["hostname"] for c in json.load(open(sys.argv[1]))["columns"]][::8]; sys.exit(h != [f"node{n}" for n in range(1, 13)])' "$out/json" ||
  { echo "FAIL: compare's columns are not in natural host order"; failures=$((failures + 1)); }
# -v: every cell, in slices that fit the 80 columns.
# shellcheck disable=SC2086
COLUMNS=80 expect 1 compare -v $fleet
python3 -c 'import sys; sys.exit(any(len(l) > 80 for l in open(sys.argv[1], encoding="utf-8").read().splitlines()))' "$out/stdout" ||
  { echo "FAIL: compare -v has a line over 80 columns"; failures=$((failures + 1)); }
has stdout "node12.json/GPU 7"

# check of peer copies at 80 columns (transfer.p2p and p2pBandwidthLatencyTest's matrices, whose
# 73-character names no column holds): no line wider, no identifier cut; a name longer than its
# column's room starts a line of its own and its GPUs are on the row under it. A report named by a
# long path only (no hostname) has the path elided, as the node's line has it.
for log in a100-sxm4-80gbx8-p2pBandwidthLatencyTest-nvswitch-complete \
  mixed-4090-5090-a6000-3090x7-p2pBandwidthLatencyTest-peer-access; do
  mkdir -p "$out/p2p/a-folder-deep-enough-that-the-report-path-is-over-eighty-columns-long"
  report=$out/p2p/a-folder-deep-enough-that-the-report-path-is-over-eighty-columns-long/$log.json
  "$bin" import "$fx/import/cuda-samples/$log.log" -o "$report" >/dev/null 2>&1
  COLUMNS=80 NO_COLOR=1 "$bin" check -v "$report" >"$out/stdout" 2>/dev/null
  NO_COLOR=1 "$bin" check --json "$report" >"$out/json" 2>/dev/null
  python3 - "$out/stdout" "$out/json" "$log" <<'PY' || failures=$((failures + 1))
import json, sys
text = open(sys.argv[1], encoding="utf-8").read().splitlines()
doc, name = json.load(open(sys.argv[2])), sys.argv[3]
bad = [f"a line over 80 columns: {l}" for l in text if len(l) > 80]
bad += [f"a cut identifier: {l}" for l in text if "…" in l and not l.startswith(("Node", "…"))]
results = [r for n in doc["nodes"] for r in n["results"]]
if not any(r["bench_id"] == "transfer.p2p" for r in results):
    bad.append("no transfer.p2p result")
for r in results:
    ds = r["devices"]
    gpus = f"{ds[0]}-{ds[-1]}" if len(ds) > 2 and ds == list(range(ds[0], ds[-1] + 1)) else ",".join(map(str, ds))
    at = [k for k, l in enumerate(text) if l == r["bench_id"] or l.startswith(r["bench_id"] + " ")]
    if not any(f" {gpus} " in f" {l} " or (l == r["bench_id"] and k + 1 < len(text) and f" {gpus} " in text[k + 1])
               for k in at for l in [text[k]]):
        bad.append(f"no row names {r['bench_id']} whole with its GPUs {gpus}")
for b in bad[:5]:
    print(f"FAIL: check of {name} at 80 columns: {b}")
sys.exit(1 if bad else 0)
PY
done

# -o on diff and compare (README: every report command writes a file with -o), atomically; the
# verdict on stderr; an output that is an input is refused.
expect 2 diff "$d/baseline.json" "$d/regressed.json" -o "$out/diff.md" --format md
[ -s "$out/diff.md" ] && [ ! -s "$out/stdout" ] || { echo "FAIL: diff -o"; failures=$((failures + 1)); }
has stderr "gpuspec diff: fail (exit code 2), written to $out/diff.md"
head -1 "$out/diff.md" | grep -q '^# gpuspec diff: FAIL$' || { echo "FAIL: diff md heading"; failures=$((failures + 1)); }
expect 1 compare "$c/healthy.json" "$c/degraded-sibling-outlier.json" -o "$out/compare.txt"
[ -s "$out/compare.txt" ] && [ ! -s "$out/stdout" ] || { echo "FAIL: compare -o"; failures=$((failures + 1)); }
cp "$d/baseline.json" "$out/old.json"
expect 3 diff "$out/old.json" "$d/regressed.json" -o "$out/old.json"
has stderr "it would be overwritten"

# One set of format names: "table" and its alias "text" on every report command.
for cmd in "check $c/healthy.json" "diff $d/baseline.json $d/baseline.json" "compare $c/healthy.json"; do
  # shellcheck disable=SC2086
  NO_COLOR=1 "$bin" $cmd --format table >"$out/table.txt" 2>/dev/null
  # shellcheck disable=SC2086
  NO_COLOR=1 "$bin" $cmd --format text >"$out/text.txt" 2>"$out/stderr"
  cmp -s "$out/table.txt" "$out/text.txt" || { echo "FAIL: $cmd: --format text is not table: $(head -2 "$out/stderr")"; failures=$((failures + 1)); }
done

# One word for the ladder, and no "(remediation: none)" after a concrete action: the power limit's
# action (rung none) is said alone, a reset's with its rung.
for format in table md junit html; do
  expect 1 check --format "$format" "$c/degraded-power-limit-low.json"
  has stdout "nvidia-smi"
  if grep -q "remediation: none\|remedy" "$out/stdout"; then
    echo "FAIL: check --format $format: $(grep -m1 "remediation: none\|remedy" "$out/stdout")"
    failures=$((failures + 1))
  fi
done
expect 2 check "$c/degraded-ecc-uncorrected.json"
has stdout "(remediation: reset_gpu)"

# Each result shows its bar (the efficiency and the pass fraction it is held to), and a sibling
# outlier says which metric it is low on.
expect 1 check --format md "$c/degraded-sibling-outlier.json"
has stdout "| 82.4% (pass"
has stdout "memory.stream.copy fp32: 8.0% below the median of 7 identical GPU(s)"

# list at 80 columns (a CUDA build's; the host-only build has no benchmarks and says so): no line
# wider, every id whole (the JSON's ids each start a line).
if COLUMNS=80 "$bin" list >"$out/stdout" 2>/dev/null; then
  "$bin" list --json >"$out/json"
  python3 - "$out/stdout" "$out/json" <<'PY' || failures=$((failures + 1))
import json, sys
text = open(sys.argv[1], encoding="utf-8").read().splitlines()
wide = [l for l in text if len(l) > 80]
cut = [b["id"] for b in json.load(open(sys.argv[2])) if not any(l.startswith(b["id"] + " ") for l in text)]
for l in wide[:3]:
    print(f"FAIL: list: a line over 80 columns: {l}")
for i in cut[:3]:
    print(f"FAIL: list: no line starts with the whole id {i}")
sys.exit(1 if wide or cut else 0)
PY
fi

# check's Markdown as a ticket shows it (GitHub's own parser, cmark-gfm): the answer (the verdict,
# each finding with where it is and its action) before any table; every table row has as many
# cells as its header; a result's check cell is its bench id and axes, each observation a cell of
# its own; a code on every GPU is one finding naming them.
md_tickets() {
  python3 - "$out/md.html" "$out/json" "$1" <<'PY' || failures=$((failures + 1))
import json, sys
from html.parser import HTMLParser
page, doc, name = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2])), sys.argv[3]
class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.cell, self.row = [], None, None
    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.row = []
            self.tables[-1].append(self.row)
        elif tag in ("td", "th"):
            self.cell = ""
    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.row.append(self.cell.strip())
            self.cell = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
p = Tables()
p.feed(page)
bad = []
first_table = page.find("<table>")
if page.find("<strong>" + doc["status"].upper()) > first_table or page.find("<li>") > first_table:
    bad.append("the verdict and the findings do not come before the first table")
checks = {r["bench_id"] + (" " + r["axes"] if r["axes"] else "")
          for n in doc["nodes"] for r in n["results"]}
observations = 0
for t in p.tables:
    if any(len(row) != len(t[0]) for row in t):
        bad.append(f"a row of the table {t[0]} has not {len(t[0])} cells")
    if t[0][0] == "check":
        for row in t[1:]:
            if row[0] not in checks:
                bad.append(f"a check cell holds more than its bench id and axes: {row[0]}")
    if t[0][0] == "gpu" and "name" not in t[0]:
        observations += len(t[0]) - 1
if any(r.get("parameters") for n in doc["nodes"] for r in n["results"]) and observations == 0:
    bad.append("no observation table")
for b in bad[:5]:
    print(f"FAIL: check --format md ({name}): {b}")
sys.exit(1 if bad else 0)
PY
}
if command -v cmark-gfm >/dev/null; then
  for fixture in degraded-sibling-outlier degraded-power-limit-low healthy; do
    "$bin" check --format md "$c/$fixture.json" | cmark-gfm -e table >"$out/md.html"
    "$bin" check --json "$c/$fixture.json" >"$out/json"
    md_tickets "$fixture"
  done
  # Every GPU of node7 slow at triad (a node pattern) and node10's GPU 3 at copy: the fleet's md.
  # shellcheck disable=SC2086
  "$bin" check --format md $fleet | cmark-gfm -e table >"$out/md.html"
  # shellcheck disable=SC2086
  "$bin" check --json $fleet >"$out/json"
  md_tickets fleet
  grep -Eq '<li><strong>[a-z]+</strong> <code>GPUSPEC-[A-Z-]+</code> on node7 gpu 0-7 \(every GPU\), node10 gpu 3 \(2 nodes\)' "$out/md.html" ||
    { echo "FAIL: check --format md: node7's triad on every GPU is not one finding: $(grep -m3 '<li>' "$out/md.html")"; failures=$((failures + 1)); }
else
  echo "cmark-gfm missing (scripts/install-deps.sh installs it): check's md not parsed"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
