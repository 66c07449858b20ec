#!/usr/bin/env python3
"""Tests of scripts/gpu_evidence.py, the reader gpu-validate.sh runs on a lent GPU's reports:
the 80% target for pinned copy-engine H2D/D2H (met and missed), transfer.p2p's reasons on one
GPU, the all-reduce's busbw, and a burn-in's checksums, bad words and power against the limit,
on the check fixtures (reports as the harness writes them) and on made-up transfer results.

  gpu_evidence_test.py SCRIPTS_DIR FIXTURES_DIR
"""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPTS = Path(sys.argv[1])
FIXTURES = Path(sys.argv[2])
del sys.argv[1:3]


def transfer(bench, median, ceiling, memory="pinned", engine="copy_engine", size="256MiB", status="ok", reason=""):
    return {"bench_id": bench, "devices": [0], "status": status, "reason": reason,
            "parameters": {"memory": memory, "engine": engine, "size": size},
            "stats": {"median": median}, "ceiling": {"reference": "clock_adjusted", "clock_adjusted": ceiling}}


def run(section, path):
    p = subprocess.run([sys.executable, str(SCRIPTS / "gpu_evidence.py"), section, str(path)],
                       capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


class GpuEvidence(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, report):
        path = Path(self.tmp.name) / "report.json"
        path.write_text(json.dumps(report))
        return path

    def line(self, out, *words):
        found = [l for l in out.splitlines() if all(w in l for w in words)]
        self.assertEqual(len(found), 1, f"{words} in:\n{out}")
        return found[0]

    def test_transfer_target_met_and_missed(self):
        path = self.write({"devices": [{"index": 0}], "results": [
            transfer("transfer.h2d", 54.0, 63.0),                      # 0.857: met
            transfer("transfer.d2h", 44.0, 63.0),                      # 0.698: missed
            transfer("transfer.h2d", 20.0, 63.0, memory="pageable"),   # not judged
            transfer("transfer.bidir", 90.0, 126.0),                   # not the 80% target
            transfer("transfer.p2p", 0, 0, status="skipped", reason="one GPU: no pair"),
            transfer("transfer.p2p", 0, 0, status="skipped", reason="one GPU: no pair"),
        ]})
        code, out, _ = run("transfers", path)
        self.assertEqual(code, 0)
        self.assertIn("met (>= 80%)", self.line(out, "transfer.h2d", "pinned"))
        self.assertIn("0.857", self.line(out, "transfer.h2d", "pinned"))
        self.assertIn("MISSED (>= 80%)", self.line(out, "transfer.d2h"))
        self.assertNotIn("80%", self.line(out, "transfer.h2d", "pageable"))
        self.assertNotIn("80%", self.line(out, "transfer.bidir"))
        self.assertIn("transfer.p2p: 2 case(s)", out)
        self.assertIn("2 skipped: one GPU: no pair", out)

    def test_small_copies_are_not_held_to_the_target(self):
        code, out, _ = run("transfers", self.write({"results": [transfer("transfer.h2d", 1.0, 63.0, size="4KiB")]}))
        self.assertEqual(code, 0)
        self.assertNotIn("80%", self.line(out, "transfer.h2d"))

    def test_all_reduce_busbw(self):
        code, out, _ = run("collectives", FIXTURES / "degraded-below-spec--collective-slow.json")
        self.assertEqual(code, 0)
        row = self.line(out, "collective.all_reduce", "1GiB")
        self.assertIn("135.1", row)
        self.assertIn("NVLS/SIMPLE", row)

    def test_burnin_checksum_mismatch_shows(self):
        code, out, _ = run("burnin", FIXTURES / "degraded-burnin-checksum-mismatch.json")
        self.assertEqual(code, 0)
        self.assertIn("checksum_mismatches 1 (must be 0)", out)
        self.assertEqual(out.count("checksum_mismatches 0 (must be 0)"), 7)
        self.assertIn("max 699.0 W (100% of the limit)", out)
        self.assertIn("power limit 700.0 W", out)

    def test_burnin_bad_words_show(self):
        code, out, _ = run("burnin", FIXTURES / "degraded-memory-bad-words.json")
        self.assertEqual(code, 0)
        self.assertIn("bad_words 3 (must be 0)", out)

    def test_missing_section_or_file_is_unknown(self):
        self.assertEqual(run("burnin", FIXTURES / "healthy.json")[0], 3)
        self.assertEqual(run("collectives", FIXTURES / "healthy.json")[0], 3)
        code, _, err = run("burnin", Path(self.tmp.name) / "absent.json")
        self.assertEqual(code, 3)
        self.assertIn("absent.json", err)
        self.assertEqual(run("bogus", FIXTURES / "healthy.json")[0], 3)


if __name__ == "__main__":
    unittest.main()
