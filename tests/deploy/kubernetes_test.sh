#!/usr/bin/env bash
# deploy/kubernetes, offline: the manifests as `kubectl kustomize` renders them, validated against
# Kubernetes' own schemas (PyPI's kubernetes-validate, strict: no unknown field), the policies an
# operator relies on (GPU tolerations, no GPU taken by the DaemonSet, least-privilege RBAC), the
# Job template filled in, and the two scripts run against the fake NVML with a fake kubectl that
# records what they ask of the API server.
# Usage: kubernetes_test.sh GPUSPEC FAKE_NVML FIXTURES DEPLOY PYTHONPATH OUTDIR
# Exit 77 without kubectl or kubernetes-validate, unless GPUSPEC_REQUIRE_KUBE=1 (CI).
set -u
bin=$1 fake=$2 fx=$3 deploy=$4 pypath=$5 out=$6
base=$deploy/kubernetes/base
rm -rf "$out"
mkdir -p "$out/bin"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
missing() {
  if [ "${GPUSPEC_REQUIRE_KUBE:-0}" = 1 ]; then
    echo "FAIL: $1 (GPUSPEC_REQUIRE_KUBE=1)"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}
real_kubectl=$(command -v kubectl) || missing "no kubectl (scripts/install-deps.sh installs kubernetes-client)"
validate() { PYTHONPATH="$pypath" python3 -m kubernetes_validate --strict --quiet "$@"; }
PYTHONPATH="$pypath" python3 -c 'import kubernetes_validate' 2>/dev/null ||
  missing "no kubernetes-validate in $pypath (scripts/install-deps.sh installs it)"

# 1. The manifests render and validate.
"$real_kubectl" kustomize "$base" >"$out/rendered.yaml" || fail "kubectl kustomize $base failed"
validate "$out/rendered.yaml" >"$out/validate.txt" 2>&1 || fail "kubernetes-validate: $(cat "$out/validate.txt")"

# 2. The policies, read from the rendered objects.
PYTHONPATH="$pypath" python3 - "$out/rendered.yaml" <<'PY' || fail "policy: see above"
import sys, yaml
docs = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(open(sys.argv[1])) if d}
bad = []
ds = docs[("DaemonSet", "gpuspec-node-health")]["spec"]["template"]["spec"]
keys = {t.get("key") for t in ds.get("tolerations", [])}
if "nvidia.com/gpu" not in keys:
    bad.append("the DaemonSet does not tolerate nvidia.com/gpu: it would skip tainted GPU nodes")
if "gpuspec.io/unhealthy" not in keys:
    bad.append("the DaemonSet does not tolerate its own taint: a tainted node would never pass again")
for c in ds["containers"]:
    for kind in ("limits", "requests"):
        if "nvidia.com/gpu" in c.get("resources", {}).get(kind, {}):
            bad.append("the DaemonSet takes a GPU: " + c["name"])
if ds.get("hostPID") is not True:
    bad.append("the DaemonSet is not in the host's PID namespace: it cannot see the fabric manager")
names = {e["name"] for e in ds["containers"][0]["env"]}
if "NODE_NAME" not in names:
    bad.append("no NODE_NAME for the health loop")
allowed = {
    ("ClusterRole", "gpuspec-node-health"): [([""], ["nodes"], ["get", "patch"])],
    ("ClusterRole", "gpuspec-idle-sweep"): [([""], ["nodes", "pods"], ["get", "list"])],
    ("Role", "gpuspec-idle-sweep"): [(["batch"], ["jobs"], ["create", "get", "list"])],
}
for (kind, name), d in docs.items():
    if kind in ("ClusterRole", "Role"):
        got = [(r["apiGroups"], r["resources"], r["verbs"]) for r in d["rules"]]
        if got != allowed.get((kind, name)):
            bad.append(f"{kind} {name}: rules {got}, least privilege is {allowed.get((kind, name))}")
        for r in d["rules"]:
            if "*" in r["verbs"] or "*" in r["resources"]:
                bad.append(f"{kind} {name}: a wildcard")
cron = docs[("CronJob", "gpuspec-idle-sweep")]["spec"]
if cron.get("suspend") is not True:
    bad.append("the idle sweep is not created suspended (opt-in)")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# 3. The Job template, filled in, validates (kubernetes-validate wants a name where the API
# server makes one from generateName); bad values are refused before they reach the YAML.
bash "$base/gpuspec-job.sh" gpu-node-01 8 burnin "--duration 30m" registry.example.com/gpuspec:0.1.0 >"$out/job.yaml" ||
  fail "gpuspec-job.sh failed"
sed 's/^  generateName: \(.*\)$/  name: \1example/' "$out/job.yaml" >"$out/job-named.yaml"
validate "$out/job-named.yaml" >"$out/job-validate.txt" 2>&1 || fail "the Job: $(cat "$out/job-validate.txt")"
grep -q 'nvidia.com/gpu: "8"' "$out/job.yaml" || fail "the Job does not request the node's 8 GPUs"
grep -q 'value: "--duration 30m"' "$out/job.yaml" || fail "the Job lost its run arguments"
# A 71-character node name (Kubernetes refuses a label value over 63): labelled by its hash,
# named in an annotation and the node selector.
long=gpu-node-0123456789-0123456789-0123456789-0123456789.rack7.example.org
bash "$base/gpuspec-job.sh" "$long" 8 quick "" registry.example.com/gpuspec:0.1.0 >"$out/job-long.yaml" ||
  fail "gpuspec-job.sh failed on a ${#long}-character node name"
grep -q "kubernetes.io/hostname: \"$long\"" "$out/job-long.yaml" || fail "the long-named Job is not placed by name"
grep -q "gpuspec.io/node: \"$long\"" "$out/job-long.yaml" || fail "the long node name is not annotated"
grep -Eq '^    gpuspec.io/node-hash: "[0-9a-f]{16}"$' "$out/job-long.yaml" || fail "no node-hash label"
sed 's/^  generateName: \(.*\)$/  name: \1example/' "$out/job-long.yaml" >"$out/job-long-named.yaml"
validate "$out/job-long-named.yaml" >"$out/job-long-validate.txt" 2>&1 || fail "the long-named Job: $(cat "$out/job-long-validate.txt")"
for args in "gpu-node-01 8 quick '' 'img\"; rm -rf /'" "'Bad Node' 8" "gpu-node-01 0" "gpu-node-01 8 fastest" \
  "gpu-node-01 8 quick '--x \$(reboot)' img"; do
  eval "bash '$base/gpuspec-job.sh' $args" >/dev/null 2>&1 && fail "gpuspec-job.sh accepted $args"
done

# 4. The health loop, once per scenario, with a fake kubectl recording its calls.
cat >"$out/bin/kubectl" <<KUBECTL
#!/bin/sh
printf '%s\n' "\$*" >>"$out/kubectl.calls"
KUBECTL
cat >"$out/bin/gpuspec" <<GPUSPEC
#!/bin/sh
exec "$bin" "\$@" --root "$fx/hosts/x86-gpu-node"
GPUSPEC
chmod +x "$out/bin/kubectl" "$out/bin/gpuspec"
loop() { # TAINT NVML LOG: one pass of the DaemonSet's loop
  rm -f "$out/kubectl.calls"
  env PATH="$out/bin:$PATH" NODE_NAME=gpu-node-01 GPUSPEC_HEALTH_ONCE=1 GPUSPEC_TAINT="$1" \
    GPUSPEC_NVML_LIBRARY="$fake" GPUSPEC_FAKE_NVML_CONFIG="$fx/nvml/$2" GPUSPEC_KERNEL_LOG="$3" \
    bash "$base/gpuspec-node-health.sh" 2>"$out/loop.err"
}
calls() { cat "$out/kubectl.calls" 2>/dev/null; }
clean=$fx/kernel-log/clean-boot.log
loop 1 eight-healthy.json "$clean"
calls | head -n 1 | grep -q '^patch node gpu-node-01 --type merge --patch {"metadata":{"labels":{"gpuspec.io/health":"pass","gpuspec.io/health-reason":null}' ||
  fail "pass: no merge patch of the labels: $(calls)"
[ "$(calls | sed -n 2p)" = "taint node gpu-node-01 gpuspec.io/unhealthy:NoSchedule-" ] || fail "pass: not untainted: $(calls)"
loop 1 eight-healthy.json "$fx/kernel-log/xid79-gpu3.log"
calls | head -n 1 | grep -q '"gpuspec.io/health":"fail","gpuspec.io/health-reason":"GPUSPEC-XID-HARDWARE"' ||
  fail "fail: labels: $(calls)"
[ "$(calls | sed -n 2p)" = "taint node gpu-node-01 gpuspec.io/unhealthy=GPUSPEC-XID-HARDWARE:NoSchedule --overwrite" ] ||
  fail "fail: not tainted: $(calls)"
loop 0 eight-healthy.json "$fx/kernel-log/xid79-gpu3.log"
[ "$(calls | wc -l)" -eq 1 ] || fail "GPUSPEC_TAINT=0 tainted the node: $(calls)"
loop 1 eight-row-remap-pending.json "$clean"
[ "$(calls | wc -l)" -eq 1 ] || fail "warn: the taint was touched: $(calls)"
loop 1 eight-healthy.json /nonexistent/kernel.log
calls | grep -q '"gpuspec.io/health":"unknown"' || fail "unknown: not published as unknown: $(calls)"
[ "$(calls | wc -l)" -eq 1 ] || fail "unknown: the taint was touched: $(calls)"
# Bad input (a spec table that is not there): nothing printed, nothing published, and it says so.
printf '#!/bin/sh\nexec "%s" "$@" --specs /nonexistent/gpus.json\n' "$bin" >"$out/bin/gpuspec"
loop 1 eight-healthy.json "$clean"
[ -z "$(calls)" ] || fail "bad input: published anyway: $(calls)"
grep -q "printed no publication: nothing published" "$out/loop.err" || fail "bad input: not said: $(cat "$out/loop.err")"

# 5. The idle sweep: three nodes, one busy, one cordoned, one idle; only the idle one gets a Job.
cat >"$out/bin/kubectl" <<KUBECTL
#!/bin/bash
printf '%s\n' "\$*" >>"$out/kubectl.calls"
case "\$*" in
"get nodes -l gpuspec.io/health=pass"*) printf 'gpu-a||8\ngpu-b||8\ngpu-c|true|8\n' ;;
*"spec.nodeName=gpu-a,"*) printf '4\n\n' ;;
*"spec.nodeName=gpu-b,"*) printf '\n\n' ;;
*"create -f -"*) cat >"$out/created-\$(date +%s%N).yaml" ;;
esac
KUBECTL
rm -f "$out/kubectl.calls" "$out"/created-*.yaml
env PATH="$out/bin:$PATH" GPUSPEC_IMAGE=registry.example.com/gpuspec:0.1.0 bash "$base/gpuspec-idle-sweep.sh" >"$out/sweep.txt" 2>&1 ||
  fail "the sweep failed: $(cat "$out/sweep.txt")"
grep -q "gpu-a: skipped (4 GPU(s) in use)" "$out/sweep.txt" || fail "sweep: busy gpu-a not skipped: $(cat "$out/sweep.txt")"
grep -q "gpu-c: skipped (cordoned" "$out/sweep.txt" || fail "sweep: cordoned gpu-c not skipped: $(cat "$out/sweep.txt")"
grep -q "gpu-b: Job created (8 GPUs, suite quick)" "$out/sweep.txt" || fail "sweep: idle gpu-b got no Job: $(cat "$out/sweep.txt")"
created=("$out"/created-*.yaml)
if [ "${#created[@]}" -ne 1 ] || ! grep -q 'kubernetes.io/hostname: "gpu-b"' "${created[0]}"; then
  fail "sweep: expected one Job for gpu-b"
fi

# 6. The scripts lint.
if command -v shellcheck >/dev/null; then
  shellcheck "$base"/*.sh || fail "shellcheck"
fi
[ "$failures" -eq 0 ] || exit 1
echo "kubernetes: all checks passed"
