#!/usr/bin/env python3
"""gpuspec's memory.stream.copy next to PyTorch's device-to-device copy, per GPU.

Both count read + write bytes. gpuspec's CUDA ordinal is matched to PyTorch's device number
(CUDA_VISIBLE_DEVICES is left alone in gpu-validate.sh, so they number GPUs the same way).
Prints a table and exits 0 when every GPU agrees within --tolerance, 1 otherwise, 3 when a
figure is missing.
"""
import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("report")
    parser.add_argument("torch_json")
    parser.add_argument("--tolerance", type=float, default=0.05, help="relative (default 0.05)")
    args = parser.parse_args()
    with open(args.report, encoding="utf-8") as f:
        report = json.load(f)
    with open(args.torch_json, encoding="utf-8") as f:
        torch_results = {r["device"]: r for r in json.load(f)["results"]}

    cuda_of = {d["index"]: d.get("cuda_index") for d in report.get("devices", [])}
    rows, code = [], 0
    for r in report.get("results", []):
        if r["bench_id"] != "memory.stream.copy" or r["status"] != "ok":
            continue
        ordinal = cuda_of.get(r["devices"][0])
        ref = torch_results.get(ordinal)
        if ref is None:
            rows.append((r["devices"][0], r["parameters"].get("dtype", "?"), r["stats"]["median"], None, None, "no PyTorch figure"))
            code = max(code, 3)
            continue
        ratio = r["stats"]["median"] / ref["median"]
        verdict = "agree" if abs(ratio - 1) <= args.tolerance else "DIFFER"
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


if __name__ == "__main__":
    sys.exit(main())
