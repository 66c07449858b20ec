#!/usr/bin/env bash
# End-to-end test of `gpuspec check` on tests/fixtures/check: exit codes of every fixture,
# every output format, atomic -o, site rules, baseline, and bad input (exit 3, file and field
# named, never a crash). Usage: check_cli_test.sh GPUSPEC FIXTURES OUTDIR
set -u
bin=$1
fx=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
failures=0
# The shipped spec table: the fixtures are H200s, matched by its h200-sxm-141gb row.
specs=()

# expect, stderr_has: tests/support/cli_expect.sh.
# shellcheck source=/dev/null # (tests/support/cli_expect.sh, checked on its own)
source "$(dirname "${BASH_SOURCE[0]}")/../../support/cli_expect.sh"

expect 0 check "${specs[@]}" "$fx/healthy.json"
grep -q 'Verdict: PASS (exit code 0)' "$out/stdout" || { echo "FAIL: no verdict line"; failures=$((failures + 1)); }
# The table fits the terminal it is given (COLUMNS when stdout is not one); every line of it.
COLUMNS=100 expect 1 check "$fx/degraded-thermal-throttle.json"
if command -v python3 >/dev/null; then
  python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8") if not l.startswith(("  ", "note:"))))' "$out/stdout" ||
    { echo "FAIL: a table line wider than COLUMNS=100"; failures=$((failures + 1)); }
fi

# Every fixture, with the exit code and reason code variants.tsv gives it (the C++ test
# Fixtures.FilesMatchTheBuildersAndLoad writes and checks that file from the builders).
fixtures_run=0
while IFS=$'\t' read -r name code want; do
  case "$name" in '#'* | '') continue ;; esac
  fixtures_run=$((fixtures_run + 1))
  expect "$want" check "${specs[@]}" "$fx/$name.json"
  if [ "$code" != "-" ]; then
    grep -qF -- "$code" "$out/stdout" || { echo "FAIL: $name: $code not in the table"; failures=$((failures + 1)); }
  fi
done <"$fx/variants.tsv"
[ "$fixtures_run" -ge 50 ] || { echo "FAIL: only $fixtures_run fixtures in variants.tsv"; failures=$((failures + 1)); }
# At 80 columns (issue 31) every line of every fixture's table fits, and each result that is not
# passing has its row naming the benchmark and its GPUs whole (identifiers are wrapped, never
# cut); the JSON says which results those are.
if command -v python3 >/dev/null; then
  for f in "$fx"/*.json; do
    COLUMNS=80 NO_COLOR=1 "$bin" check "$f" >"$out/narrow.txt" 2>/dev/null
    NO_COLOR=1 "$bin" check "$f" --json >"$out/narrow.json" 2>/dev/null
    python3 - "$out/narrow.txt" "$out/narrow.json" "$(basename "$f")" <<'PY' || failures=$((failures + 1))
import json, sys
text = open(sys.argv[1], encoding="utf-8").read().splitlines()
bad = [l for l in text if len(l) > 80]
for l in bad:
    print(f"FAIL: {sys.argv[3]}: a line over 80 columns: {l}")
rows = 0
for node in json.load(open(sys.argv[2]))["nodes"]:
    for r in node["results"]:
        if r["status"] == "pass":
            continue
        # The table's form of the GPUs: runs of three or more as a range ("0-7").
        runs, ds = [], r["devices"]
        i = 0
        while i < len(ds):
            j = i
            while j + 1 < len(ds) and ds[j + 1] == ds[j] + 1:
                j += 1
            runs.append(f"{ds[i]}-{ds[j]}" if j >= i + 2 else str(ds[i]))
            i = j + 1 if j >= i + 2 else i + 1
        gpus = ",".join(runs)
        if not any(l.startswith(r["bench_id"] + " ") and f"  {gpus} " in l for l in text):
            rows += 1
            print(f"FAIL: {sys.argv[3]}: no row names {r['bench_id']} on GPU {gpus} in full")
sys.exit(1 if bad or rows else 0)
PY
  done
fi
# Several reports: worst wins.
expect 2 check "${specs[@]}" "$fx/healthy.json" "$fx/degraded-ecc-uncorrected.json" "$fx/degraded-pcie-replays.json"

for format in table md json junit prom; do
  expect 2 check "${specs[@]}" --format "$format" "$fx/degraded-ecc-uncorrected.json"
  [ -s "$out/stdout" ] || { echo "FAIL: --format $format printed nothing"; failures=$((failures + 1)); }
  if [ "$format" = table ] && grep -q $'\033' "$out/stdout"; then
    echo "FAIL: colour when stdout is not a TTY"
    failures=$((failures + 1))
  fi
  if [ "$format" = junit ] && command -v python3 >/dev/null; then
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$out/stdout" ||
      { echo "FAIL: JUnit output is not well-formed XML"; failures=$((failures + 1)); }
  fi
  if [ "$format" = json ] && command -v python3 >/dev/null; then
    python3 -c 'import sys, json; d = json.load(open(sys.argv[1])); assert d["exit_code"] == 2' "$out/stdout" ||
      { echo "FAIL: JSON output"; failures=$((failures + 1)); }
  fi
done
expect 2 check "${specs[@]}" --json "$fx/degraded-ecc-uncorrected.json"
expect 1 check "${specs[@]}" --format prom -o "$out/gpuspec.prom" "$fx/degraded-pcie-replays.json"
[ -s "$out/gpuspec.prom" ] || { echo "FAIL: -o wrote nothing"; failures=$((failures + 1)); }
find "$out" -maxdepth 1 -name '*.tmp.*' | grep -q . && { echo "FAIL: a temporary file was left behind"; failures=$((failures + 1)); }

# Baseline: a report against itself passes; a degraded one against the healthy one does not.
expect 0 check "${specs[@]}" --baseline "$fx/healthy.json" "$fx/healthy.json"
expect 1 check "${specs[@]}" --baseline "$fx/healthy.json" "$fx/degraded-sibling-outlier.json"
grep -q 'GPUSPEC-BELOW-BASELINE' "$out/stdout" || { echo "FAIL: no GPUSPEC-BELOW-BASELINE"; failures=$((failures + 1)); }

# Site rules: a stricter STREAM bar warns on the healthy node.
cat >"$out/site.json" <<'JSON'
{"schema": "gpuspec.expect.v2", "rules": [{"pattern": "memory.stream.*", "pass": 0.95}]}
JSON
expect 1 check "${specs[@]}" --rules "$out/site.json" "$fx/healthy.json"
echo '{"schema": "gpuspec.expect.v2", "rules": [{"pattern": "memory.stream.*", "pass": "x"}]}' >"$out/bad-site.json"
expect 3 check "${specs[@]}" --rules "$out/bad-site.json" "$fx/healthy.json"
stderr_has "$out/bad-site.json: rules[0].pass:"
# A version 2 file that uses a version 3 key (a selector) is refused, naming the key.
echo '{"schema": "gpuspec.expect.v2", "rules": [{"pattern": "transfer.*", "path": "pcie", "pass": 0.5, "warn": 0.4}]}' >"$out/v2-with-v3-key.json"
expect 3 check "${specs[@]}" --rules "$out/v2-with-v3-key.json" "$fx/healthy.json"
stderr_has "$out/v2-with-v3-key.json: rules[0].path:"
# A version 3 site file with a per-model override: a stricter bar for the H200 row warns.
cat >"$out/site-v3.json" <<'JSON'
{"schema": "gpuspec.expect.v3", "rules": [{"pattern": "memory.stream.*",
  "overrides": [{"spec": "h200-sxm-141gb", "pass": 0.95, "warn": 0.6}]}]}
JSON
expect 1 check "${specs[@]}" --rules "$out/site-v3.json" "$fx/healthy.json"
# A rule file of version 1 named a ceiling per rule: refused, with what to change.
echo '{"schema": "gpuspec.expect.v1", "rules": [{"pattern": "*", "ceiling": "efficiency", "pass": 0.5, "warn": 0.4}]}' >"$out/v1-site.json"
expect 3 check "${specs[@]}" --rules "$out/v1-site.json" "$fx/healthy.json"
stderr_has "$out/v1-site.json: schema:"

# Bad input: exit 3, the file and the field named.
expect 3 check "${specs[@]}" "$out/missing.json"
stderr_has "$out/missing.json"
: >"$out/empty.json"
expect 3 check "${specs[@]}" "$out/empty.json"
stderr_has "$out/empty.json"
head -c 300 "$fx/healthy.json" >"$out/truncated.json"
expect 3 check "${specs[@]}" "$out/truncated.json"
stderr_has "$out/truncated.json"
echo 'not json at all' >"$out/text.json"
expect 3 check "${specs[@]}" "$out/text.json"
stderr_has "$out/text.json"
sed 's/"gpuspec.report.v1[.0-9]*"/"gpuspec.report.v9"/' "$fx/healthy.json" >"$out/schema.json"
grep -q '"gpuspec.report.v9"' "$out/schema.json" || { echo "FAIL: the schema edit did not apply"; failures=$((failures + 1)); }
expect 3 check "${specs[@]}" "$out/schema.json"
stderr_has "$out/schema.json: schema:"
if command -v python3 >/dev/null; then
  python3 - "$fx/healthy.json" "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["results"][3]["stats"]["median"]
json.dump(d, open(sys.argv[2] + "/missing-field.json", "w"))
d = json.load(open(sys.argv[1]))
d["devices"][1]["index"] = "one"
json.dump(d, open(sys.argv[2] + "/mistyped-field.json", "w"))
PY
  expect 3 check "${specs[@]}" "$out/missing-field.json"
  stderr_has "results[3].stats.median"
  expect 3 check "${specs[@]}" "$out/mistyped-field.json"
  stderr_has "devices[1].index"
fi
# One bad report among good ones: still 3, no verdict.
expect 3 check "${specs[@]}" "$fx/healthy.json" "$out/empty.json"
expect 3 check "${specs[@]}" --baseline "$out/empty.json" "$fx/healthy.json"
expect 3 check --specs "$out/empty.json" "$fx/healthy.json"
stderr_has "$out/empty.json"

# An output that is an input is refused (exit 3, both named) and the input left as it was:
# `check r.json -o r.json` wrote the verdict over the report, samples lost, exit 0.
cp "$fx/healthy.json" "$out/r.json"
expect 3 check "${specs[@]}" "$out/r.json" -o "$out/r.json"
stderr_has "-o $out/r.json is the input $out/r.json"
cmp -s "$fx/healthy.json" "$out/r.json" || { echo "FAIL: -o overwrote its input"; failures=$((failures + 1)); }
ln -f "$out/r.json" "$out/r-link.json" # the same file by another name
expect 3 check "${specs[@]}" "$out/r.json" -o "$out/r-link.json" --format json
expect 3 check "${specs[@]}" "$out/r.json" -o "$out/../$(basename "$out")/r.json"
expect 3 check "$out/r.json" --specs "$out/r.json" -o "$out/r.json"
cmp -s "$fx/healthy.json" "$out/r.json" || { echo "FAIL: -o overwrote its input"; failures=$((failures + 1)); }
# `run -o R --html R`: the page would replace the run's report; refused before measuring.
expect 3 run -o "$out/run.json" --html "$out/run.json"
stderr_has "--html $out/run.json is the run's own report $out/run.json"
[ -e "$out/run.json" ] && { echo "FAIL: run wrote $out/run.json"; failures=$((failures + 1)); }

# Out of memory is exit 3 naming what was too large, never an abort (134): a 26 MB JSON array
# under an address-space limit (ulimit -v) of 200 MB beyond what the executable's own shared
# libraries map takes simdjson past it (a CUDA build maps cuBLAS, several hundred MB, before
# main), and the second parse that once followed, nlohmann's, ended in std::terminate.
if [ "$(head -c 4 "$bin" | tr -d '\177')" != "ELF" ]; then
  # A cross build hands a wrapper that runs the executable under qemu-user: the limit would then
  # bound the emulator's own buffers (its JIT alone maps 128 MB), not what gpuspec allocates.
  echo "note: out-of-memory cases left out: $bin is run through an emulator"
elif ldd "$bin" 2>/dev/null | grep -q libasan; then
  # AddressSanitizer reserves terabytes of address space for its shadow at start: no address-space
  # limit leaves it running, so the sanitizer build leaves these cases to the others.
  echo "note: out-of-memory cases left out: $bin is built with AddressSanitizer"
else
  libraries_kb=$(ldd "$bin" 2>/dev/null | awk '/=> \//{print $3}' | xargs -r du -kL 2>/dev/null | awk '{s += $1} END {print s + 0}')
  limit_kb=$((200000 + libraries_kb))
  { printf '['; yes '0,' | head -c 40000000 | tr -d '\n'; printf '0]'; } >"$out/huge.json"
  for args in "check $out/huge.json" "diff $out/huge.json $out/huge.json" "run --recover $out/huge.json -o $out/huge-recovered.json"; do
    # shellcheck disable=SC2086 # the arguments are words without spaces
    (ulimit -v "$limit_kb" && NO_COLOR=1 "$bin" $args >"$out/stdout" 2>"$out/stderr")
    got=$?
    if [ "$got" -ne 3 ]; then
      echo "FAIL: gpuspec $args under ulimit -v $limit_kb -> exit $got, expected 3: $(tail -c 200 "$out/stderr")"
      failures=$((failures + 1))
    fi
  done
  expect 3 check "$out/huge.json" # (unlimited: not a report)
  (ulimit -v "$limit_kb" && "$bin" check "$out/huge.json" 2>"$out/stderr" >/dev/null)
  stderr_has "too large to parse in the memory this process may use"
  rm -f "$out/huge.json"
fi

# A 40 kB --filter of nested groups overflowed std::regex's recursion (a crash); it is refused
# with its reason (exit 3), as is a filter longer than any selection needs.
nested="$(printf '(%.0s' $(seq 20000))memory$(printf ')%.0s' $(seq 20000))"
expect 3 run --filter "$nested" -o "$out/filtered.json"
stderr_has "--filter is 40006 characters long; at most 1024 are accepted"
expect 3 run --filter "$(printf '(%.0s' $(seq 100))memory$(printf ')%.0s' $(seq 100))" -o "$out/filtered.json"
stderr_has "--filter nests its groups 100 deep; at most 32 levels are accepted"
[ -e "$out/filtered.json" ] && { echo "FAIL: run wrote a report for a refused filter"; failures=$((failures + 1)); }

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
