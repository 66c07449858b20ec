#!/usr/bin/env python3
"""gpuspec's figures next to independent code on the same GPU: memory.stream.copy beside
PyTorch's device-to-device copy, and every ok gemm.cublas.* result beside PyTorch's matmul on
the same shape, layout and precision (scripts/torch_matmul.py).

gpuspec's CUDA ordinal is matched to PyTorch's device number (CUDA_VISIBLE_DEVICES is left alone
in gpu-validate.sh, so they number GPUs the same way). Prints tables and exits 0 when every pair
agrees within its tolerance, 1 when one differs, 3 when a figure is missing. A GEMM pair that
differs is listed with what may explain it (both call cuBLAS, but with their own heuristics,
workspace and layout mapping), so "why not" is on the page.
"""
import argparse
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def copy_rows(report, torch_copy, tolerance):
    torch_results = {r["device"]: r for r in torch_copy["results"]}
    cuda_of = {d["index"]: d.get("cuda_index") for d in report.get("devices", [])}
    rows, code = [], 0
    for r in report.get("results", []):
        if r["bench_id"] != "memory.stream.copy" or r["status"] != "ok":
            continue
        ref = torch_results.get(cuda_of.get(r["devices"][0]))
        if ref is None:
            rows.append((r["devices"][0], r["parameters"].get("dtype", "?"), r["stats"]["median"], None, None, "no PyTorch figure"))
            code = max(code, 3)
            continue
        ratio = r["stats"]["median"] / ref["median"]
        verdict = "agree" if abs(ratio - 1) <= tolerance else "DIFFER"
        if verdict != "agree":
            code = max(code, 1)
        rows.append((r["devices"][0], r["parameters"].get("dtype", "?"), r["stats"]["median"], ref["median"], ratio, verdict))
    if not rows:
        print("side_by_side: the report has no ok memory.stream.copy result", file=sys.stderr)
        return 3
    print(f"{'gpu':>3}  {'dtype':<5}  {'gpuspec GB/s':>12}  {'torch GB/s':>10}  {'ratio':>6}  verdict")
    for gpu, dtype, ours, theirs, ratio, verdict in rows:
        theirs_s = f"{theirs:10.1f}" if theirs is not None else f"{'-':>10}"
        ratio_s = f"{ratio:6.3f}" if ratio is not None else f"{'-':>6}"
        print(f"{gpu:>3}  {dtype:<5}  {ours:12.1f}  {theirs_s}  {ratio_s}  {verdict}")
    return code


BATCH_MIN_SECONDS = 1e-3  # torch_matmul.py's: a timed span at least this long is a batch


def gpuspec_sample_seconds(result):
    """The span one gpuspec GEMM sample timed: gemms_per_sample GEMMs (1 where the report does not
    say) of ops_per_gemm (2MNK) at the median rate."""
    params = result.get("parameters", {})
    try:
        m, n, k = (int(x) for x in str(params.get("shape")).split("x"))
    except ValueError:
        return None
    ops = float(params.get("ops_per_gemm", 2.0 * m * n * k))
    gemms = float(params.get("gemms_per_sample", 1))
    median = result["stats"]["median"]
    return ops * gemms / (median * 1e12) if median > 0 else None


def different_regime(result, ref):
    """Why a gpuspec GEMM and PyTorch's are not comparable, or "" when both timed a batch of at
    least 1 ms (throughput, not launch latency). A span shorter than that holds the launch
    latency, which makes small shapes differ by more than the tolerance whatever the kernels."""
    ours = gpuspec_sample_seconds(result)
    theirs = ref.get("batch_seconds")
    if ours is None or theirs is None:
        return "the timed spans are not known (a report or PyTorch figure without them)"
    if ours >= BATCH_MIN_SECONDS and theirs >= BATCH_MIN_SECONDS:
        return ""
    return (f"not the same regime: gpuspec's sample {ours * 1e3:.3f} ms "
            f"({result.get('parameters', {}).get('gemms_per_sample', 1)} GEMMs), PyTorch's batch "
            f"{theirs * 1e3:.3f} ms ({ref.get('gemms_per_batch', 1)} GEMMs); under 1 ms the launch "
            "latency is part of what is timed")


def gemm_rows(report, torch_matmul, tolerance):
    torch_results = {(r["device"], r["precision"], r["shape"], r["layout"]): r for r in torch_matmul["results"]}
    cuda_of = {d["index"]: d.get("cuda_index") for d in report.get("devices", [])}
    print()
    print(f"{'gpu':>3}  {'precision':<13}  {'shape':<17}  {'layout':<6}  {'gpuspec':>9}  {'torch':>9}  {'ratio':>6}  verdict")
    code, any_row = 0, False
    for r in report.get("results", []):
        if not r["bench_id"].startswith("gemm.cublas.") or r["status"] != "ok":
            continue
        any_row = True
        precision = r["bench_id"].split(".")[-1]
        params = r.get("parameters", {})
        key = (cuda_of.get(r["devices"][0]), precision, str(params.get("shape")), params.get("layout", "NN"))
        ref = torch_results.get(key)
        ours = r["stats"]["median"]
        if ref is None or ref.get("status") != "ok":
            why = "no PyTorch counterpart" if ref is None else ref.get("reason", "not measured")
            print(f"{r['devices'][0]:>3}  {precision:<13}  {key[2]:<17}  {key[3]:<6}  {ours:9.1f}  {'-':>9}  {'-':>6}  n/a: {why}")
            continue
        regime = different_regime(r, ref)
        if regime:
            print(f"{r['devices'][0]:>3}  {precision:<13}  {key[2]:<17}  {key[3]:<6}  {ours:9.1f}  {ref['median']:9.1f}  {'-':>6}  not compared: {regime}")
            continue
        ratio = ours / ref["median"]
        verdict = "agree" if abs(ratio - 1) <= tolerance else "DIFFER"
        if verdict != "agree":
            code = max(code, 1)
            verdict += (" (both call cuBLAS; a gap comes from the kernel each heuristic picked, the workspace,"
                        f" or the layout mapping: gpuspec's algorithm is in the report's parameters, {params.get('algo', params.get('heuristic', '?'))})")
        print(f"{r['devices'][0]:>3}  {precision:<13}  {key[2]:<17}  {key[3]:<6}  {ours:9.1f}  {ref['median']:9.1f}  {ratio:6.3f}  {verdict}")
    if not any_row:
        print("side_by_side: the report has no ok gemm.cublas result", file=sys.stderr)
        return 3
    return code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("report")
    parser.add_argument("torch_copy_json")
    parser.add_argument("--matmul", help="scripts/torch_matmul.py output")
    parser.add_argument("--tolerance", type=float, default=0.05, help="copy, relative (default 0.05)")
    parser.add_argument("--gemm-tolerance", type=float, default=0.10, help="GEMM, relative (default 0.10)")
    args = parser.parse_args()
    report = load(args.report)
    code = copy_rows(report, load(args.torch_copy_json), args.tolerance)
    if args.matmul:
        code = max(code, gemm_rows(report, load(args.matmul), args.gemm_tolerance))
    return code


if __name__ == "__main__":
    sys.exit(main())
