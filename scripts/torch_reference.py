#!/usr/bin/env python3
"""PyTorch beside gpuspec in ONE process: what scripts/gpu-validate.sh runs on a GPU machine.

Importing torch and starting CUDA take most of a short step, so they are done once: the
device-to-device copy (torch_copy_bandwidth.measure), the matmul on the shapes, layouts and
precisions of the report's ok gemm.cublas results (torch_matmul), then both side-by-sides
(side_by_side.copy_rows and gemm_rows). Each figure's JSON is written as the two scripts write
it on their own, and each case's wall time is printed, so the next call can be sized.

  torch_reference.py REPORT --copy-out COPY.json --matmul-out MATMUL.json [--budget-s 55]

Within --budget-s (counted from the start, the import included) the copy runs first, then the
matmul cases while time is left; a case not reached is written "not measured" with the reason.
Exits as side_by_side.py does: 0 every pair agrees, 1 one differs, 3 a figure is missing
(PyTorch not importable, no CUDA device, a case not reached, nothing to pair).
"""
import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import side_by_side  # noqa: E402
import torch_copy_bandwidth  # noqa: E402
import torch_matmul  # noqa: E402


def main() -> int:
    started = time.monotonic()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", help="the gpuspec report (quick suite) to set PyTorch beside")
    parser.add_argument("--copy-out", required=True, help="the copy's JSON (torch_copy_bandwidth.py's)")
    parser.add_argument("--matmul-out", required=True, help="the matmul's JSON (torch_matmul.py's)")
    parser.add_argument("--budget-s", type=float, default=55.0, help="seconds for everything (default 55)")
    parser.add_argument("--tolerance", type=float, default=0.05, help="copy, relative (default 0.05)")
    parser.add_argument("--gemm-tolerance", type=float, default=0.10, help="GEMM, relative (default 0.10)")
    args = parser.parse_args()
    try:
        report = side_by_side.load(args.report)
    except (OSError, ValueError) as error:
        print(f"torch_reference: {args.report}: {error}", file=sys.stderr)
        return 3
    try:
        import torch
    except ImportError as error:
        print(f"torch_reference: PyTorch is not importable: {error}", file=sys.stderr)
        return 3
    print(f"torch_reference: import torch {torch.__version__} took {time.monotonic() - started:.1f} s")
    if not torch.cuda.is_available():
        print("torch_reference: PyTorch sees no CUDA device", file=sys.stderr)
        return 3
    left = lambda: args.budget_s - (time.monotonic() - started)  # noqa: E731

    copies = []
    for device in range(torch.cuda.device_count()):
        t0 = time.monotonic()
        r = torch_copy_bandwidth.measure(device, 1 << 30, 5, 50)
        copies.append(r)
        print(f"torch copy gpu {device} ({r['name']}): median {r['median']:.1f} GB/s "
              f"[wall {time.monotonic() - t0:.1f} s]")
    copy_doc = {"tool": "torch_copy_bandwidth", "results": copies}
    Path(args.copy_out).write_text(json.dumps(copy_doc, indent=2), encoding="utf-8")

    cases = torch_matmul.cases_from_report(args.report) or torch_matmul.DEFAULT_CASES
    results, cut = [], 0
    for device in range(torch.cuda.device_count()):
        torch.cuda.set_device(device)
        for precision, m, n, k, layout in cases:
            t0 = time.monotonic()
            if left() < 3:
                r = {"status": "not available", "reason": f"not measured: the step's {args.budget_s:.0f} s were spent"}
                cut += 1
            else:
                r = torch_matmul.measure(torch, device, precision, m, n, k, layout, 0.5, 200)
            r.update({"device": device, "name": torch.cuda.get_device_name(device), "precision": precision,
                      "shape": f"{m}x{n}x{k}", "layout": layout})
            results.append(r)
            shown = f"{r['median']:.1f} {r['unit']}" if r["status"] == "ok" else r["reason"]
            print(f"torch matmul gpu {device} {precision} {m}x{n}x{k} {layout}: {shown} "
                  f"[wall {time.monotonic() - t0:.1f} s]")
    matmul_doc = {"tool": "torch_matmul", "torch_version": torch.__version__,
                  "cuda_version": torch.version.cuda, "results": results}
    Path(args.matmul_out).write_text(json.dumps(matmul_doc, indent=2), encoding="utf-8")

    print()
    code = side_by_side.copy_rows(report, copy_doc, args.tolerance)
    code = max(code, side_by_side.gemm_rows(report, matmul_doc, args.gemm_tolerance))
    if cut:
        print(f"torch_reference: {cut} matmul case(s) not measured within {args.budget_s:.0f} s", file=sys.stderr)
        code = max(code, 3)
    print(f"torch_reference: {time.monotonic() - started:.1f} s in all")
    return code


if __name__ == "__main__":
    sys.exit(main())
