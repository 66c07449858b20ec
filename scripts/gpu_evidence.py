#!/usr/bin/env python3
"""What to look at in a report that gpu-validate.sh brought back, printed beside the issues'
targets, so the reader of a lent machine's log sees them without opening the JSON:

  transfers    pinned copy-engine H2D / D2H / bidir, 16 MiB and more: median, the reference
               ceiling (the PCIe link the card and its slot can reach), and the fraction of it
               against the 80% target of the interconnect issue; transfer.p2p cases and why
               they were not measured (one GPU: "one GPU: no pair", skipped, never failed)
  collectives  collective.all_reduce: busbw per size, NCCL's algorithm and #wrong
  burnin       per GPU: GEMM iterations and checksum mismatches, memory words checked and bad,
               and each interval's mean and peak power beside the GPU's power limit

It judges nothing (that is `gpuspec check`); it only reads. Exit 0 when the report was read and
held the section asked for, 3 when the file is missing or unreadable or the section is empty.

  gpu_evidence.py transfers|collectives|burnin REPORT
"""
import json
import sys

TRANSFER_TARGET = 0.80  # the interconnect issue's target for pinned H2D and D2H (docs/check.md)
MIN_JUDGED_BYTES = 16 * 1024 * 1024  # docs/check.md: transfers are judged from 16 MiB up


def size_bytes(text):
    units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    for unit in ("KiB", "MiB", "GiB", "B"):
        if text.endswith(unit) and text[: -len(unit)].isdigit():
            return int(text[: -len(unit)]) * units[unit]
    return 0


def reference_value(result):
    ceiling = result.get("ceiling") or {}
    which = ceiling.get("reference")
    return ceiling.get(which) if which in ("datasheet", "clock_adjusted") else None


def median(result):
    return ((result.get("stats") or {}).get("median")) if result.get("status") == "ok" else None


def fmt(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def transfers(report):
    rows = 0
    print(f"{'bench':<16}{'gpu':<5}{'memory':<10}{'engine':<13}{'size':<8}{'status':<14}"
          f"{'GB/s':>9}{'ceiling':>9}{'fraction':>9}  target")
    for r in report.get("results", []):
        bench = r.get("bench_id", "")
        if bench not in ("transfer.h2d", "transfer.d2h", "transfer.bidir"):
            continue
        p = r.get("parameters") or {}
        value, ceiling = median(r), reference_value(r)
        fraction = value / ceiling if value is not None and ceiling else None
        target = ""
        if (bench != "transfer.bidir" and p.get("memory") == "pinned"
                and p.get("engine") == "copy_engine" and size_bytes(p.get("size", "")) >= MIN_JUDGED_BYTES):
            target = "-" if fraction is None else ("met" if fraction >= TRANSFER_TARGET else "MISSED")
            target = f"{target} (>= {TRANSFER_TARGET:.0%})"
        print(f"{bench:<16}{str(r.get('devices')):<5}{p.get('memory', '?'):<10}{p.get('engine', '?'):<13}"
              f"{p.get('size', '?'):<8}{r.get('status', '?'):<14}{fmt(value):>9}{fmt(ceiling):>9}"
              f"{fmt(fraction, 3):>9}  {target}")
        rows += 1
    p2p = [r for r in report.get("results", []) if r.get("bench_id") == "transfer.p2p"]
    by_reason = {}
    for r in p2p:
        key = (r.get("status", "?"), r.get("reason") or "")
        by_reason[key] = by_reason.get(key, 0) + 1
    print(f"transfer.p2p: {len(p2p)} case(s)")
    for (status, reason), count in sorted(by_reason.items()):
        print(f"  {count} {status}: {reason}")
    return rows + len(p2p)


def collectives(report):
    rows = 0
    print(f"{'bench':<24}{'ranks':<6}{'dtype':<6}{'size':<8}{'placement':<14}{'status':<14}"
          f"{'busbw GB/s':>11}{'ceiling':>9}  algorithm/protocol  #wrong")
    for r in report.get("results", []):
        if not r.get("bench_id", "").startswith("collective."):
            continue
        p = r.get("parameters") or {}
        algo = f"{p.get('nccl_algorithm', '-')}/{p.get('nccl_protocol', '-')}"
        print(f"{r['bench_id']:<24}{str(p.get('nranks', '?')):<6}{p.get('dtype', '?'):<6}"
              f"{p.get('size', '?'):<8}{p.get('placement', '?'):<14}{r.get('status', '?'):<14}"
              f"{fmt(median(r)):>11}{fmt(reference_value(r)):>9}  {algo:<19} {p.get('wrong', '-')}")
        if r.get("status") != "ok" and r.get("reason"):
            print(f"    {r['reason']}")
        rows += 1
    return rows


def burnin(report):
    limits = {d.get("index"): d.get("power_limit_w") for d in report.get("devices", [])}
    rows = 0
    for r in report.get("results", []):
        b = r.get("burnin")
        if not b:
            continue
        rows += 1
        gpu = (r.get("devices") or ["?"])[0]
        limit = limits.get(gpu)
        print(f"{r.get('bench_id')} GPU {gpu}: status {r.get('status')}, {fmt(b.get('elapsed_s'))} s "
              f"elapsed of {fmt(b.get('duration_s'))} asked, busy {fmt(b.get('busy_s'))} s, "
              f"idle power {fmt(b.get('idle_power_w'))} W, power limit {fmt(limit)} W")
        g = b.get("gemm")
        if g:
            print(f"  gemm: {g.get('iterations')} iterations, checksum_mismatches {g.get('checksum_mismatches')}"
                  f" (must be 0), deterministic {g.get('deterministic')}, reference {g.get('reference_checksum')}")
        m = b.get("memtest")
        if m:
            print(f"  memtest: {m.get('passes')} passes, words_checked {m.get('words_checked')}, "
                  f"bad_words {m.get('bad_words')} (must be 0)")
        for i in b.get("intervals") or []:
            peak, mean = i.get("power_w_max"), i.get("power_w_mean")
            share = f"{peak / limit:.0%} of the limit" if peak is not None and limit else "no limit known"
            print(f"  interval {fmt(i.get('start_s'), 0)}-{fmt(i.get('end_s'), 0)} s: power mean "
                  f"{fmt(mean)} W, max {fmt(peak)} W ({share}), {i.get('gemm_iterations')} GEMMs at "
                  f"{fmt(i.get('throughput'))} TFLOP/s, SM clock {fmt(i.get('sm_clock_mhz_median'), 0)} MHz, "
                  f"{fmt(i.get('temperature_c_max'), 0)} C max, throttle {i.get('throttle_reasons')}, "
                  f"mismatches {i.get('checksum_mismatches')}, bad words {i.get('memtest_bad_words')}")
    return rows


SECTIONS = {"transfers": transfers, "collectives": collectives, "burnin": burnin}


def main(argv):
    if len(argv) != 3 or argv[1] not in SECTIONS:
        print(f"usage: {argv[0]} {'|'.join(SECTIONS)} REPORT", file=sys.stderr)
        return 3
    try:
        with open(argv[2], encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"gpu_evidence: {argv[2]}: {e}", file=sys.stderr)
        return 3
    if SECTIONS[argv[1]](report) == 0:
        print(f"gpu_evidence: {argv[2]} has no {argv[1]} results", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
