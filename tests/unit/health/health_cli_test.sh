#!/usr/bin/env bash
# `gpuspec health` end to end, as a scheduler runs it, against the fake NVML (tests/fakes) with
# fixture hosts and fixture kernel logs (tests/fixtures/kernel-log).
# Usage: health_cli_test.sh MODE GPUSPEC FAKE_NVML FIXTURES SCRIPTS OUTDIR STAND_IN
#   MODE cli       exit codes, drain reasons, JSON, the unread kernel log, and the time taken
#                  at 8 GPUs (printed; fails above 5 s)
#   MODE promtool  every scenario's --format prom through `promtool check metrics` (77 without it)
#   MODE scripts   scripts/slurm and scripts/node-exporter: bash -n, shellcheck where installed,
#                  and run against the fake NVML with a fake scontrol that records its arguments
set -u
mode=$1 bin=$2 fake=$3 fx=$4 scripts=$5 out=$6 stand_in=${7:-}
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# health NVML_CONFIG KERNEL_LOG HOST [ARGS...]: runs gpuspec health, stdout in $out/last.out.
# $sysfs, when set, is the PCI bus fixture (GPUSPEC_SYSFS_ROOT); unset, <host>/sys (none there).
sysfs=
health() {
  local nvml=$1 log=$2 host=$3
  shift 3
  env GPUSPEC_NVML_LIBRARY="$fake" GPUSPEC_FAKE_NVML_CONFIG="$fx/nvml/$nvml" \
    GPUSPEC_KERNEL_LOG="$log" GPUSPEC_SYSFS_ROOT="$sysfs" "$bin" health --root "$fx/hosts/$host" "$@" >"$out/last.out" 2>"$out/last.err"
}
clean=$fx/kernel-log/clean-boot.log
xid79=$fx/kernel-log/xid79-gpu3.log

# expect NAME CODE REASON NVML LOG HOST: exit code and drain reason (text and --format reason).
expect() {
  local name=$1 code=$2 reason=$3
  shift 3
  health "$@"
  local rc=$?
  [ "$rc" -eq "$code" ] || fail "$name: exit code $rc, expected $code: $(cat "$out/last.out" "$out/last.err")"
  local got
  got=$(sed -n 's/^drain reason: //p' "$out/last.out")
  [ "$got" = "$reason" ] || fail "$name: drain reason '$got', expected '$reason'"
  cp "$out/last.out" "$out/$name.txt"
  # At 80 columns no line is wider (display width: a cut cell ends in a 3-byte '…'), but for one
  # word longer than a line (a path), which is never cut.
  COLUMNS=80 health "$@"
  python3 -c 'import sys; sys.exit(any(len(l) > 80 and " " in l.strip() for l in open(sys.argv[1], encoding="utf-8").read().splitlines()))' \
    "$out/last.out" || fail "$name: at COLUMNS=80 a line is wider: $(awk 'length($0) > 82' "$out/last.out" | head -1)"
  health "$@" --format reason
  got=$(cat "$out/last.out")
  [ "$got" = "$reason" ] || fail "$name: --format reason printed '$got', expected '$reason'"
}

case "$mode" in
cli)
  expect healthy 0 "" eight-healthy.json "$clean" x86-gpu-node
  expect row-remap-pending 1 "gpuspec:GPUSPEC-ROW-REMAP-PENDING:gpu3" eight-row-remap-pending.json "$clean" x86-gpu-node
  expect pcie-link-capped 1 "gpuspec:GPUSPEC-PCIE-LINK-CAPPED:gpu1" pcie-links.json "$clean" x86-gpu-node
  expect xid79 2 "gpuspec:GPUSPEC-XID-HARDWARE:gpu3" eight-healthy.json "$xid79" x86-gpu-node
  expect application-xids 0 "" eight-healthy.json "$fx/kernel-log/xid13-application.log" x86-gpu-node
  expect driver-library-mismatch 2 "gpuspec:GPUSPEC-DRIVER-MISMATCH:node" driver-library-mismatch.json "$clean" x86-gpu-node
  expect kernel-module-mismatch 2 "gpuspec:GPUSPEC-DRIVER-MISMATCH:node" eight-healthy.json "$clean" x86-gpu-node-old-module
  expect kernel-log-unread 3 "" eight-healthy.json /nonexistent/kernel.log x86-gpu-node
  grep -q "^kernel log: NOT READ: /nonexistent/kernel.log: cannot be read" "$out/kernel-log-unread.txt" ||
    fail "kernel-log-unread: the text does not say the log was not read"
  grep -q "GPUSPEC-KERNEL-LOG-UNREAD" "$out/kernel-log-unread.txt" || fail "kernel-log-unread: no reason code"
  expect no-driver 3 "" driver-not-loaded.json "$clean" x86-gpu-node

  # Issue 16: the kernel log read whole, Xid lines judged by what they say, the PCI bus.
  kl=$fx/kernel-log
  expect earlier-boot-xid79 0 "" eight-healthy.json "$kl/journal-two-boots-xid79-earlier.log" x86-gpu-node
  grep -q "Xids of earlier boots (2 boots in the log; history, not judged)" "$out/earlier-boot-xid79.txt" ||
    fail "earlier-boot-xid79: the history is not listed"
  expect xid94-contained 1 "gpuspec:GPUSPEC-ECC-UNCORRECTED:gpu3" eight-one-uncorrected-ecc.json "$kl/xid94-contained-gpu3.log" x86-gpu-node
  grep -q "reset when convenient" "$out/xid94-contained.txt" || fail "xid94-contained: no 'reset when convenient'"
  expect xid95-uncontained 2 "gpuspec:GPUSPEC-ECC-UNCORRECTED:gpu3" eight-one-uncorrected-ecc.json "$kl/xid95-uncontained-gpu3.log" x86-gpu-node
  expect xid154-reset 2 "gpuspec:GPUSPEC-XID-DRIVER:gpu1" eight-healthy.json "$kl/xid154-reset-required-gpu1.log" x86-gpu-node
  expect xid154-recovered 0 "" eight-healthy.json "$kl/xid154-back-to-none-gpu1.log" x86-gpu-node
  expect xid149-fatal 2 "gpuspec:GPUSPEC-XID-HARDWARE:gpu5" eight-healthy.json "$kl/xid149-netir-fatal-gpu5.log" x86-gpu-node
  expect xid145-nonfatal 1 "gpuspec:GPUSPEC-XID-HARDWARE:gpu5" eight-healthy.json "$kl/xid145-rlw-nonfatal-gpu5.log" x86-gpu-node
  expect mig-xid95 2 "gpuspec:GPUSPEC-XID-HARDWARE:gpu0" eight-healthy.json "$kl/mig-xid-gpu0.log" x86-gpu-node
  grep -q "MIG GPU instance 5" "$out/mig-xid95.txt" || fail "mig-xid95: the instance is not named"
  expect sxid-fatal 2 "gpuspec:GPUSPEC-SXID-FATAL:node" eight-healthy.json "$kl/sxid-fatal-nvswitch.log" x86-gpu-node
  expect sxid-nonfatal 0 "" eight-healthy.json "$kl/sxid-nonfatal-nvswitch.log" x86-gpu-node
  expect caller-tag 2 "gpuspec:GPUSPEC-XID-HARDWARE:gpu3" eight-healthy.json "$kl/caller-tag-xid79-gpu3.log" x86-gpu-node
  for log in utf16-xid79-gpu3.log garbage-bytes.log; do
    expect "undecodable-$log" 3 "" eight-healthy.json "$kl/$log" x86-gpu-node
    grep -q "^kernel log: NOT READ: .*not text" "$out/undecodable-$log.txt" ||
      fail "undecodable $log: the text does not say the log is not text"
  done
  sysfs=$fx/sysfs/hgx-eight-gpu
  expect pci-eight-of-eight 0 "" eight-healthy.json "$clean" x86-gpu-node
  expect pci-seven-of-eight 2 "gpuspec:GPUSPEC-GPU-NOT-IN-NVML:node" seven-of-eight.json "$kl/rminitadapter-9a.log" x86-gpu-node
  grep -q "0000:9a:00.0 is on the bus but NVML does not list it" "$out/pci-seven-of-eight.txt" ||
    fail "pci-seven-of-eight: the bus id is not named"
  # The NVLink fabric's services (read under --root): NVSwitches on the bus and no fabric manager.
  expect fabric-manager-down 2 "gpuspec:GPUSPEC-FABRIC-MANAGER-DOWN:node" eight-healthy.json "$clean" pcie-node
  sysfs=
  # An NVL72 tray whose IMEX node list leaves it out.
  expect imex-node-missing 2 "gpuspec:GPUSPEC-IMEX-NODE-MISSING:node" nvl72-gb200-tray.json "$clean" nvl72-tray-imex-not-listed
  grep -q "10\.0\.0\.3" "$out/imex-node-missing.txt" ||
    fail "imex-node-missing: the node's addresses are not named"
  # Issue 32: a partitioned GPU's MIG devices asked of the CUDA runtime (the stand-in worker's
  # --probe-mig: MIG devices 2 and 4 not opened, 5 hangs and is killed at the 1 s timeout), and
  # the layout a site's rules file declares.
  export GPUSPEC_WORKER=$stand_in GPUSPEC_STAND_IN_SCRIPT=$fx/stand-in/mig-probe.json
  expect mig-not-in-cuda 2 "gpuspec:GPUSPEC-MIG-NOT-IN-CUDA:gpu0" a100-mig-7x1g.json "$clean" x86-gpu-node --mig-probe-timeout 1
  grep -q "GI 9 CI 0" "$out/mig-not-in-cuda.txt" || fail "mig-not-in-cuda: the instance is not named"
  export GPUSPEC_STAND_IN_SCRIPT=$fx/stand-in/two-healthy.json
  expect mig-opened 0 "" a100-mig-7x1g.json "$clean" x86-gpu-node
  expect mig-layout-as-declared 0 "" eight-a100-four-mig.json "$clean" x86-gpu-node --rules "$fx/rules/mig-layout-four-and-four.json"
  expect mig-layout-differs 2 "gpuspec:GPUSPEC-MIG-LAYOUT-DIFFERS:gpu0" eight-a100-four-mig.json "$clean" x86-gpu-node --rules "$fx/rules/mig-layout-all-7x1g.json"
  grep -q "MIG is disabled where the site declares it on" "$out/mig-layout-differs.txt" ||
    fail "mig-layout-differs: a whole GPU declared partitioned is not said"
  health a100-mig-7x1g.json "$clean" x86-gpu-node --rules "$fx/rules/mig-layout-bad-profile.json"
  [ $? -eq 3 ] && grep -q "mig-layout-bad-profile.json: mig_layout\[0\].profiles\[1\]: '1g10gb' is not a MIG profile name" "$out/last.err" ||
    fail "bad mig_layout: not exit 3 with the file and field named: $(cat "$out/last.err")"
  health a100-mig-7x1g.json "$clean" x86-gpu-node --no-mig-probe
  [ $? -eq 0 ] && grep -q "not probed with the CUDA runtime" "$out/last.out" || fail "--no-mig-probe: not said"
  unset GPUSPEC_WORKER GPUSPEC_STAND_IN_SCRIPT
  # The host package alone (a host-only build with no CUDA build beside it): said once, no finding.
  if "$bin" --version | grep -q "not built in (host-only build)" && [ -z "${GPUSPEC_DEVICE_BUILD:-}" ]; then
    expect mig-no-worker 0 "" a100-mig-7x1g.json "$clean" x86-gpu-node
    [ "$(grep -c "no CUDA build of gpuspec is installed" "$out/mig-no-worker.txt")" -eq 1 ] ||
      fail "mig-no-worker: the probe not run is not said once"
  fi

  health eight-healthy.json "$clean" x86-gpu-node --no-kernel-log
  [ $? -eq 0 ] || fail "--no-kernel-log: not a pass"
  grep -q "Xids since boot not checked" "$out/last.out" || fail "--no-kernel-log: not stated"

  # JSON for programs.
  health eight-healthy.json "$xid79" x86-gpu-node --json
  python3 - "$out/last.out" <<'PY' || fail "json: $(cat "$out/last.out" | head -5)"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "gpuspec.health.v1", j["schema"]
assert j["exit_code"] == 2 and j["status"] == "fail"
assert j["drain_reason"] == "gpuspec:GPUSPEC-XID-HARDWARE:gpu3"
assert j["kernel_log"]["state"] == "read" and j["kernel_log"]["xid_lines"] == 3
assert [x["xid"] for x in j["xids"]] == [13, 79, 79]
assert j["xids"][1]["gpu"] == 3 and j["xids"][1]["class"] == "hardware"
PY
  # -o writes the file atomically and nothing to stdout.
  health eight-healthy.json "$clean" x86-gpu-node --json -o "$out/health.json"
  [ -s "$out/health.json" ] && [ ! -s "$out/last.out" ] || fail "-o: file not written or stdout not empty"
  for left in "$out"/.health.json.tmp.*; do
    [ -e "$left" ] && fail "-o: a temporary file was left: $left"
  done
  # Bad usage and bad input: unknown, the option or file named.
  health eight-healthy.json "$clean" x86-gpu-node --format yaml
  [ $? -eq 3 ] || fail "--format yaml: not exit code 3"
  health eight-healthy.json "$clean" x86-gpu-node --specs /nonexistent/gpus.json
  [ $? -eq 3 ] && grep -q "/nonexistent/gpus.json" "$out/last.err" || fail "--specs missing: not exit 3 with the file named"

  # Time at 8 GPUs (fake NVML on this machine): best and worst of 10, from start to exit.
  worst=0
  best=999999
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    t0=$(date +%s%N)
    health eight-healthy.json "$clean" x86-gpu-node
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    [ "$ms" -gt "$worst" ] && worst=$ms
    [ "$ms" -lt "$best" ] && best=$ms
  done
  echo "gpuspec health, 8 GPUs (fake NVML), wall time of 10 runs: best ${best} ms, worst ${worst} ms"
  [ "$worst" -lt 5000 ] || fail "8 GPUs took ${worst} ms (limit 5000 ms)"

  # --format kube: the Node's merge patch, then the taint argument (deploy/kubernetes applies
  # them). kube NAME CODE LABEL REASON_LABEL TAINT NVML LOG: the labels, the taint, and the
  # summary annotation's status, all read back as Kubernetes would take them.
  kube() {
    local name=$1 code=$2 label=$3 reason_label=$4 taint=$5
    shift 5
    health "$@" x86-gpu-node --format kube
    local rc=$?
    [ "$rc" -eq "$code" ] || fail "kube $name: exit code $rc, expected $code"
    [ "$(wc -l <"$out/last.out")" -eq 2 ] || fail "kube $name: not two lines: $(cat "$out/last.out")"
    python3 - "$out/last.out" "$label" "$reason_label" "$taint" <<'PY' || fail "kube $name: $(cat "$out/last.out")"
import json, re, sys
patch_line, taint_line = open(sys.argv[1]).read().splitlines()
label, reason_label, taint = sys.argv[2], sys.argv[3], sys.argv[4]
patch = json.loads(patch_line)
meta = patch["metadata"]
assert set(patch) == {"metadata"} and set(meta) == {"labels", "annotations"}, patch
labels = meta["labels"]
assert labels["gpuspec.io/health"] == label, labels
want = None if reason_label == "-" else reason_label
assert labels["gpuspec.io/health-reason"] == want, labels
value = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
for k, v in labels.items():
    assert v is None or (len(v) <= 63 and value.match(v)), (k, v)
summary = json.loads(meta["annotations"]["gpuspec.io/health-summary"])
assert summary["schema"] == "gpuspec.kube-summary.v1", summary
assert summary["status"] == label, summary
assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", summary["checked_utc"]), summary
assert taint_line == taint, (taint_line, taint)
PY
    cp "$out/last.out" "$out/kube-$name.txt"
  }
  kube healthy 0 pass - "gpuspec.io/unhealthy:NoSchedule-" eight-healthy.json "$clean"
  kube xid79 2 fail GPUSPEC-XID-HARDWARE "gpuspec.io/unhealthy=GPUSPEC-XID-HARDWARE:NoSchedule" eight-healthy.json "$xid79"
  kube row-remap-pending 1 warn GPUSPEC-ROW-REMAP-PENDING - eight-row-remap-pending.json "$clean"
  kube kernel-log-unread 3 unknown - - eight-healthy.json /nonexistent/kernel.log
  python3 -c 'import json,sys; s=json.loads(json.loads(open(sys.argv[1]).readline())["metadata"]["annotations"]["gpuspec.io/health-summary"]); g=s["gpus"]; sys.exit(0 if [x["index"] for x in g]==[3] and "GPUSPEC-XID-HARDWARE" in g[0]["codes"] else 1)' "$out/kube-xid79.txt" ||
    fail "kube xid79: the summary does not name GPU 3 with GPUSPEC-XID-HARDWARE: $(cat "$out/kube-xid79.txt")"
  ;;
promtool)
  command -v promtool >/dev/null || { echo "promtool not installed: skipped"; exit 77; }
  for s in "healthy eight-healthy.json $clean x86-gpu-node" \
    "remap eight-row-remap-pending.json $clean x86-gpu-node" \
    "xid79 eight-healthy.json $xid79 x86-gpu-node" \
    "mismatch driver-library-mismatch.json $clean x86-gpu-node" \
    "unread eight-healthy.json /nonexistent x86-gpu-node"; do
    set -- $s
    name=$1
    health "$2" "$3" "$4" --format prom
    cp "$out/last.out" "$out/$name.prom"
    grep -q '^gpuspec_health_status{' "$out/$name.prom" || fail "$name: no gpuspec_health_status"
    promtool check metrics <"$out/$name.prom" >"$out/$name.lint" 2>&1
    if [ $? -ne 0 ] && grep -v "label names should be written in 'snake_case' not 'camelCase'" "$out/$name.lint" | grep -q .; then
      fail "$name: promtool: $(head -5 "$out/$name.lint")"
    fi
  done
  ;;
scripts)
  slurm=$scripts/slurm/gpuspec-healthcheck.sh
  textfile=$scripts/node-exporter/gpuspec-textfile.sh
  for s in "$slurm" "$textfile"; do
    bash -n "$s" || fail "bash -n $s"
    if command -v shellcheck >/dev/null; then
      shellcheck "$s" || fail "shellcheck $s"
    else
      echo "shellcheck not installed: lint skipped (scripts/install-deps.sh installs it)"
    fi
  done
  # A fake scontrol that records its arguments, and gpuspec wrapped to read the fixture host.
  mkdir -p "$out/bin"
  # `scontrol show node` answers with $out/show-node (the node as slurmctld would show it),
  # empty for a node that is not drained; only the updates are the script's actions.
  printf '#!/bin/sh\nif [ "$1" = show ]; then cat "%s/show-node" 2>/dev/null; exit 0; fi\nprintf "%%s\\n" "$*" >>"%s/scontrol.calls"\n' "$out" "$out" >"$out/bin/scontrol"
  printf '#!/bin/sh\nexec "%s" "$@" --root "%s/hosts/x86-gpu-node"\n' "$bin" "$fx" >"$out/bin/gpuspec"
  chmod +x "$out/bin/scontrol" "$out/bin/gpuspec"
  # run_slurm NVML LOG: the script as slurmd runs it.
  run_slurm() {
    rm -f "$out/scontrol.calls"
    env PATH="$out/bin:$PATH" SLURMD_NODENAME=gpu-node-01 GPUSPEC_NVML_LIBRARY="$fake" \
      GPUSPEC_FAKE_NVML_CONFIG="$fx/nvml/$1" GPUSPEC_KERNEL_LOG="$2" bash "$slurm" 2>"$out/slurm.err"
  }
  run_slurm eight-healthy.json "$clean"
  [ $? -eq 0 ] || fail "slurm healthy: script exit code not 0"
  [ -e "$out/scontrol.calls" ] && fail "slurm healthy: scontrol was called: $(cat "$out/scontrol.calls")"
  run_slurm eight-healthy.json "$xid79"
  [ $? -eq 1 ] || fail "slurm xid79: script exit code not 1"
  [ "$(cat "$out/scontrol.calls" 2>/dev/null)" = "update nodename=gpu-node-01 state=drain reason=gpuspec:GPUSPEC-XID-HARDWARE:gpu3" ] ||
    fail "slurm xid79: scontrol called with '$(cat "$out/scontrol.calls" 2>/dev/null)'"
  # The drain reason comes from --format reason, never from a line of the text output (which an
  # NVML string with a newline once forged): a gpuspec whose text output holds a forged line.
  printf '#!/bin/sh\nfor a in "$@"; do [ "$a" = --format ] && exec "%s" "$@"; done\necho "drain reason: gpuspec:FORGED:gpu0"\nexec "%s" "$@"\n' "$out/bin/gpuspec.real" "$out/bin/gpuspec.real" >"$out/bin/gpuspec.forging"
  mv "$out/bin/gpuspec" "$out/bin/gpuspec.real"
  mv "$out/bin/gpuspec.forging" "$out/bin/gpuspec"
  chmod +x "$out/bin/gpuspec"
  run_slurm eight-healthy.json "$xid79"
  [ "$(cat "$out/scontrol.calls" 2>/dev/null)" = "update nodename=gpu-node-01 state=drain reason=gpuspec:GPUSPEC-XID-HARDWARE:gpu3" ] ||
    fail "slurm forged line: scontrol called with '$(cat "$out/scontrol.calls" 2>/dev/null)'"
  mv "$out/bin/gpuspec.real" "$out/bin/gpuspec"
  run_slurm eight-row-remap-pending.json "$clean"
  [ -e "$out/scontrol.calls" ] && fail "slurm warn: drained on a warning"
  grep -q "warn on gpu-node-01 (gpuspec:GPUSPEC-ROW-REMAP-PENDING:gpu3): not drained" "$out/slurm.err" ||
    fail "slurm warn: not logged: $(cat "$out/slurm.err")"
  # A pass resumes a node drained with gpuspec's own reason, never one an operator drained.
  printf '   State=IDLE+DRAIN ThreadsPerCore=1\n   Reason=gpuspec:GPUSPEC-XID-HARDWARE:gpu3 [root@2026-12-02T04:01:05]\n' >"$out/show-node"
  run_slurm eight-healthy.json "$clean"
  [ "$(cat "$out/scontrol.calls" 2>/dev/null)" = "update nodename=gpu-node-01 state=resume" ] ||
    fail "slurm pass after gpuspec's drain: scontrol called with '$(cat "$out/scontrol.calls" 2>/dev/null)'"
  grep -q "pass on gpu-node-01: resumed; it was drained with gpuspec's own reason (gpuspec:GPUSPEC-XID-HARDWARE:gpu3)" "$out/slurm.err" ||
    fail "slurm resume: not logged: $(cat "$out/slurm.err")"
  run_slurm eight-row-remap-pending.json "$clean"
  [ -e "$out/scontrol.calls" ] && fail "slurm warn while drained by gpuspec: scontrol $(cat "$out/scontrol.calls")"
  grep -q "stays drained (gpuspec:GPUSPEC-XID-HARDWARE:gpu3): only a pass resumes it" "$out/slurm.err" ||
    fail "slurm warn while drained: not logged: $(cat "$out/slurm.err")"
  printf '   State=IDLE+DRAIN ThreadsPerCore=1\n   Reason=maintenance: cable swap [alice@2026-12-02T04:01:05]\n' >"$out/show-node"
  run_slurm eight-healthy.json "$clean"
  [ -e "$out/scontrol.calls" ] && fail "slurm pass: an operator's drain was lifted: $(cat "$out/scontrol.calls")"
  grep -q "left drained; its drain reason is not gpuspec's ('maintenance: cable swap')" "$out/slurm.err" ||
    fail "slurm operator drain: not logged: $(cat "$out/slurm.err")"
  rm -f "$out/show-node"
  run_slurm eight-healthy.json /nonexistent/kernel.log
  [ $? -eq 0 ] || fail "slurm unknown: script exit code not 0"
  [ -e "$out/scontrol.calls" ] && fail "slurm unknown: drained on exit 3"
  grep -q "NOT drained" "$out/slurm.err" || fail "slurm unknown: does not say it did not drain: $(cat "$out/slurm.err")"
  grep -q "kernel log: NOT READ" "$out/slurm.err" || fail "slurm unknown: does not say why"

  # node_exporter's textfile: written atomically, valid, nothing left behind; its status file
  # says when the health file was last written and how the last run ended.
  mkdir -p "$out/textfile"
  prom_lint() { # FILE: promtool accepts it (its camelCase note on dcgm-exporter's labels aside)
    command -v promtool >/dev/null || return 0
    if ! promtool check metrics <"$1" >"$out/textfile.lint" 2>&1 &&
      grep -v "label names should be written in 'snake_case' not 'camelCase'" "$out/textfile.lint" | grep -q .; then
      fail "textfile: promtool on $1: $(cat "$out/textfile.lint")"
    fi
  }
  gauge() { sed -n "s/^$1 //p" "$out/textfile/gpuspec-textfile.prom"; }
  run_textfile() { # GPUSPEC: the script as cron runs it, over eight healthy GPUs and an Xid 79
    env PATH="$out/bin:$PATH" GPUSPEC="$1" GPUSPEC_NVML_LIBRARY="$fake" \
      GPUSPEC_FAKE_NVML_CONFIG="$fx/nvml/eight-healthy.json" GPUSPEC_KERNEL_LOG="$xid79" \
      bash "$textfile" "$out/textfile" 2>"$out/textfile.err"
  }
  before=$(date +%s)
  run_textfile gpuspec
  [ $? -eq 0 ] || fail "textfile: script exit code not 0: $(cat "$out/textfile.err")"
  [ "$(ls -A "$out/textfile" | tr '\n' ' ')" = "gpuspec-health.prom gpuspec-textfile.prom " ] ||
    fail "textfile: directory holds '$(ls -A "$out/textfile")'"
  grep -q '^gpuspec_health_status{Hostname="gpu-node-01"} 2$' "$out/textfile/gpuspec-health.prom" ||
    fail "textfile: no failing status gauge"
  [ "$(gauge gpuspec_textfile_exit_code)" = 2 ] || fail "textfile: exit code gauge '$(gauge gpuspec_textfile_exit_code)', expected 2"
  [ "$(gauge gpuspec_textfile_written)" = 1 ] || fail "textfile: written gauge not 1"
  good=$(gauge gpuspec_textfile_last_success_timestamp_seconds)
  [ "${good:-0}" -ge "$before" ] || fail "textfile: last success '$good' is before the run ($before)"
  [ "$good" = "$(stat -c %Y "$out/textfile/gpuspec-health.prom")" ] || fail "textfile: last success is not the file's time"
  prom_lint "$out/textfile/gpuspec-health.prom"
  prom_lint "$out/textfile/gpuspec-textfile.prom"
  cp "$out/textfile/gpuspec-health.prom" "$out/last-good.prom"
  # A folder whose name starts with '-' is a path to rm and mv, never an option ("--").
  mkdir -p -- "$out/-dash" && rm -f -- "$out/-dash/"*.prom
  (cd "$out" && env PATH="$out/bin:$PATH" GPUSPEC_NVML_LIBRARY="$fake" \
    GPUSPEC_FAKE_NVML_CONFIG="$fx/nvml/eight-healthy.json" GPUSPEC_KERNEL_LOG="$xid79" \
    bash "$textfile" -dash 2>"$out/textfile-dash.err")
  if ! [ -s "$out/-dash/gpuspec-health.prom" ] || ! [ -s "$out/-dash/gpuspec-textfile.prom" ]; then
    fail "textfile: a folder named -dash: $(cat "$out/textfile-dash.err")"
  fi

  # gpuspec health stops on bad input (a spec table that is not there) and writes nothing: the
  # last good file stays, but the status file says so and the script fails.
  printf '#!/bin/sh\nexec "%s" "$@" --specs /nonexistent/gpus.json\n' "$out/bin/gpuspec" >"$out/bin/gpuspec-bad-input"
  chmod +x "$out/bin/gpuspec-bad-input"
  sleep 1 # a second later, so that the run's time and the last success differ
  run_textfile gpuspec-bad-input
  [ $? -eq 1 ] || fail "textfile bad input: script exit code not 1"
  grep -q "exited 3 and wrote nothing" "$out/textfile.err" || fail "textfile bad input: does not say so: $(cat "$out/textfile.err")"
  cmp -s "$out/textfile/gpuspec-health.prom" "$out/last-good.prom" || fail "textfile bad input: the last good file changed"
  [ "$(gauge gpuspec_textfile_exit_code)" = 3 ] || fail "textfile bad input: exit code gauge '$(gauge gpuspec_textfile_exit_code)', expected 3"
  [ "$(gauge gpuspec_textfile_written)" = 0 ] || fail "textfile bad input: written gauge not 0"
  [ "$(gauge gpuspec_textfile_last_success_timestamp_seconds)" = "$good" ] || fail "textfile bad input: last success moved"
  [ "$(gauge gpuspec_textfile_last_run_timestamp_seconds)" -gt "$good" ] || fail "textfile bad input: last run not after the last success"
  [ "$(ls -A "$out/textfile" | tr '\n' ' ')" = "gpuspec-health.prom gpuspec-textfile.prom " ] ||
    fail "textfile bad input: directory holds '$(ls -A "$out/textfile")'"
  prom_lint "$out/textfile/gpuspec-textfile.prom"
  # A binary that is not there: the same.
  run_textfile /nonexistent/gpuspec
  [ $? -eq 1 ] || fail "textfile no binary: script exit code not 1"
  [ "$(gauge gpuspec_textfile_exit_code)" = 127 ] || fail "textfile no binary: exit code gauge '$(gauge gpuspec_textfile_exit_code)'"
  bash "$textfile" "$out/does-not-exist" 2>/dev/null && fail "textfile: a missing directory is not an error"
  ;;
*)
  echo "unknown mode $mode"
  exit 2
  ;;
esac
[ "$failures" -eq 0 ] || exit 1
echo "health $mode: all checks passed"
