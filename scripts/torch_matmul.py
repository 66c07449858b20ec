#!/usr/bin/env python3
"""PyTorch's matmul on the shapes and dtypes of gpuspec's gemm.cublas results: the independent
reference that scripts/gpu-validate.sh sets beside them (scripts/side_by_side.py).

The cases come from a gpuspec report (every ok gemm.cublas.* result: its shape "MxNxK", its
layout and its precision), so both tools run the same problems; without a report, 4096^3 NN in
each dtype. FLOPs are 2*M*N*K, as gpuspec counts them. Inputs are random and non-zero, timed
with CUDA events after a warm-up; the median of the timed runs is reported, with all samples.

Timed as gpuspec's harness times a GEMM: one sample is a batch of back-to-back GEMMs between the
two events, as many as make the batch last at least BATCH_MIN_SECONDS (1 ms; at most
MAX_BATCH), so a small shape's launch latency is not what is timed. Each result says its batch
(gemms_per_batch, batch_seconds), which side_by_side.py reads to compare only shapes both tools
timed in the same regime.

Precisions: fp64, fp32 (TF32 off), tf32_tc (TF32 on), fp16_tc, bf16_tc (fp32 accumulation,
PyTorch's default), int8_tc through torch._int_mm where this PyTorch has it. fp16_tc_acc16 and
fp8_tc have no plain PyTorch matmul counterpart and are left out (the table says so).

Layouts, in gpuspec's row-major convention (benches/harness/include/gpuspec/benches/gemm_cublas.hpp),
which is PyTorch's: D[M,N] = A[M,K] · op(B). NN -> a @ b with b stored [K, N]; NT -> a @ bt.t()
with bt stored [N, K] (F.linear's weight layout), the same storage gpuspec hands cuBLAS.
"""
import argparse
import json
import math
import statistics
import sys

DEFAULT_CASES = [
    (p, 4096, 4096, 4096, "NN") for p in ("fp64", "fp32", "tf32_tc", "fp16_tc", "bf16_tc", "int8_tc")
]


def cases_from_report(path):
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    cases = set()
    for r in report.get("results", []):
        if not r["bench_id"].startswith("gemm.cublas.") or r["status"] != "ok":
            continue
        params = r.get("parameters", {})
        shape = params.get("shape")
        try:
            m, n, k = (int(x) for x in str(shape).split("x"))
        except ValueError:
            continue
        cases.add((r["bench_id"].split(".")[-1], m, n, k, params.get("layout", "NN")))
    return sorted(cases)


def operands(torch, precision, m, n, k, layout):
    gen = torch.Generator(device="cuda").manual_seed(1234)
    if precision == "int8_tc":
        a = torch.randint(1, 8, (m, k), dtype=torch.int8, device="cuda", generator=gen)
        b = torch.randint(1, 8, (k, n) if layout == "NN" else (n, k), dtype=torch.int8, device="cuda", generator=gen)
    else:
        dtype = {"fp64": torch.float64, "fp32": torch.float32, "tf32_tc": torch.float32,
                 "fp16_tc": torch.float16, "bf16_tc": torch.bfloat16}[precision]
        # uniform in [0.5, 1): random and non-zero
        a = (torch.rand((m, k), device="cuda", generator=gen) * 0.5 + 0.5).to(dtype)
        shape_b = (k, n) if layout == "NN" else (n, k)
        b = (torch.rand(shape_b, device="cuda", generator=gen) * 0.5 + 0.5).to(dtype)
    return a, (b if layout == "NN" else b.t())


PLAIN_PRECISIONS = ("fp64", "fp32", "tf32_tc", "fp16_tc", "bf16_tc", "int8_tc")
BATCH_MIN_SECONDS = 1e-3  # one sample's batch lasts at least this (side_by_side.py: the regime)
MAX_BATCH = 10000


def timed_batch(torch, op, count):
    """Seconds of `count` back-to-back calls of op between two CUDA events."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(count):
        op()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / 1e3


def batch_size(seconds_of_one):
    """GEMMs per batch so that a batch lasts at least BATCH_MIN_SECONDS."""
    if seconds_of_one <= 0:
        return MAX_BATCH
    return max(1, min(MAX_BATCH, math.ceil(BATCH_MIN_SECONDS / seconds_of_one)))


def measure(torch, device, precision, m, n, k, layout, min_seconds, max_reps):
    if precision not in PLAIN_PRECISIONS:
        return {"status": "not available", "reason": "no plain PyTorch matmul counterpart"}
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32_tc"
    a, b = operands(torch, precision, m, n, k, layout)
    if precision == "int8_tc":
        if not hasattr(torch, "_int_mm"):
            return {"status": "not available", "reason": "this PyTorch has no torch._int_mm"}
        op = lambda: torch._int_mm(a, b)  # noqa: E731
    else:
        op = lambda: torch.matmul(a, b)  # noqa: E731
    try:
        for _ in range(3):
            c = op()
        torch.cuda.synchronize()
    except RuntimeError as error:
        return {"status": "not available", "reason": str(error).splitlines()[0]}
    # Spot check: one entry against a float64 dot product on the device.
    i, j = m // 3, n // 5
    ref = torch.dot(a[i, :].double(), b[:, j].double()).item()
    got = c[i, j].double().item()
    rel = abs(got - ref) / abs(ref)
    count = batch_size(timed_batch(torch, op, 1))
    samples, batches, total = [], [], 0.0
    while (total < min_seconds or len(samples) < 10) and len(samples) < max_reps:
        seconds = timed_batch(torch, op, count)
        total += seconds
        batches.append(seconds)
        samples.append(2.0 * m * n * k * count / seconds / 1e12)
    return {
        "gemms_per_batch": count,
        "batch_seconds": statistics.median(batches),
        "status": "ok",
        "unit": "TOPS" if precision == "int8_tc" else "TFLOP/s",
        "median": statistics.median(samples),
        "max": max(samples),
        "samples": samples,
        "spot_check_rel_error": rel,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", help="gpuspec report whose gemm.cublas results give the cases")
    parser.add_argument("--min-seconds", type=float, default=0.5)
    parser.add_argument("--max-reps", type=int, default=200)
    parser.add_argument("--out", required=True, help="JSON file to write")
    args = parser.parse_args()
    try:
        import torch
    except ImportError as error:
        print(f"torch_matmul: PyTorch is not importable: {error}", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("torch_matmul: PyTorch sees no CUDA device", file=sys.stderr)
        return 3
    cases = cases_from_report(args.report) if args.report else []
    if not cases:
        cases = DEFAULT_CASES
    results = []
    for device in range(torch.cuda.device_count()):
        torch.cuda.set_device(device)
        for precision, m, n, k, layout in cases:
            r = measure(torch, device, precision, m, n, k, layout, args.min_seconds, args.max_reps)
            r.update({"device": device, "name": torch.cuda.get_device_name(device), "precision": precision,
                      "shape": f"{m}x{n}x{k}", "layout": layout})
            results.append(r)
            shown = f"{r['median']:.1f} {r['unit']}" if r["status"] == "ok" else r["reason"]
            print(f"torch matmul gpu {device} {precision} {m}x{n}x{k} {layout}: {shown}")
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"tool": "torch_matmul", "torch_version": torch.__version__,
                   "cuda_version": torch.version.cuda, "results": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
