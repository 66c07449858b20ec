#!/usr/bin/env python3
"""Device-to-device copy bandwidth through PyTorch: the independent reference that
scripts/gpu-validate.sh sets beside gpuspec's memory.stream.copy.

Bytes are counted as STREAM counts a copy (read + write, no write-allocate), so the figure is
directly comparable with memory.stream.copy. Timed with CUDA events on random, non-zero data;
warm-up discarded; the median of the timed copies is reported, with all samples.
"""
import argparse
import json
import statistics
import sys


def measure(device: int, nbytes: int, warmup: int, reps: int) -> dict:
    import torch

    torch.cuda.set_device(device)
    n = nbytes // 4
    src = torch.randint(1, 2**30, (n,), dtype=torch.int32, device="cuda")
    dst = torch.empty_like(src)
    for _ in range(warmup):
        dst.copy_(src)
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src)
        stop.record()
        stop.synchronize()
        seconds = start.elapsed_time(stop) / 1e3
        samples.append(2 * n * 4 / seconds / 1e9)
    if not torch.equal(dst, src):
        raise RuntimeError("PyTorch copy produced wrong data")
    return {
        "device": device,
        "name": torch.cuda.get_device_name(device),
        "bytes_per_array": n * 4,
        "unit": "GB/s",
        "bytes_counted": "read + write (2 x array), as STREAM copy",
        "median": statistics.median(samples),
        "max": max(samples),
        "samples": samples,
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bytes", type=int, default=1 << 30, help="bytes per array (default 1 GiB)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--out", required=True, help="JSON file to write")
    args = parser.parse_args()
    try:
        import torch
    except ImportError as error:
        print(f"torch_copy_bandwidth: PyTorch is not importable: {error}", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("torch_copy_bandwidth: PyTorch sees no CUDA device", file=sys.stderr)
        return 3
    results = [measure(d, args.bytes, args.warmup, args.reps) for d in range(torch.cuda.device_count())]
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"tool": "torch_copy_bandwidth", "results": results}, f, indent=2)
    for r in results:
        print(f"torch copy gpu {r['device']} ({r['name']}): median {r['median']:.1f} GB/s, max {r['max']:.1f} GB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
