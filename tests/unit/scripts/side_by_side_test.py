#!/usr/bin/env python3
"""Tests of scripts/side_by_side.py, scripts/torch_matmul.py and scripts/torch_reference.py on
made-up reports (no GPU, no PyTorch: torch_reference runs over tests/unit/scripts/fake_torch, a
stand-in that counts its imports): which results are paired, the verdict per pair, and the exit
codes 0 / 1 / 3."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPTS = Path(sys.argv.pop(1)) if len(sys.argv) > 1 else Path(__file__).resolve().parents[3] / "scripts"
sys.path.insert(0, str(SCRIPTS))
import torch_matmul  # noqa: E402


def result(bench_id, median, **params):
    return {"bench_id": bench_id, "devices": [0], "status": "ok", "parameters": params,
            "stats": {"median": median}}


REPORT = {
    "devices": [{"index": 0, "cuda_index": 0}],
    "results": [
        result("memory.stream.copy", 4000.0, dtype="fp32"),
        # The harness's sample: 11 GEMMs of 0.196 ms (its 2 ms target), as gemms_per_sample says.
        result("gemm.cublas.fp16_tc", 700.0, shape="4096x4096x4096", layout="NN", gemms_per_sample=11),
        result("gemm.cublas.fp16_tc_acc16", 800.0, shape="4096x4096x4096", layout="NN"),
        {"bench_id": "gemm.cublas.fp8_tc", "devices": [0], "status": "not_supported",
         "parameters": {"shape": "4096x4096x4096", "layout": "NN"}, "stats": {"median": 0}},
    ],
}
COPY = {"results": [{"device": 0, "median": 4100.0}]}


def matmul(median, batch_seconds=1.2e-3, gemms=6):
    return {"results": [{"device": 0, "precision": "fp16_tc", "shape": "4096x4096x4096", "layout": "NN",
                         "status": "ok", "median": median, "batch_seconds": batch_seconds,
                         "gemms_per_batch": gemms}]}


class SideBySide(unittest.TestCase):
    def run_script(self, report, copy, matmul_json=None):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, doc in (("report", report), ("copy", copy), ("matmul", matmul_json)):
                if doc is None:
                    continue
                path = Path(tmp) / f"{name}.json"
                path.write_text(json.dumps(doc))
                paths.append(str(path))
            args = [sys.executable, str(SCRIPTS / "side_by_side.py"), paths[0], paths[1]]
            if matmul_json is not None:
                args += ["--matmul", paths[2]]
            return subprocess.run(args, capture_output=True, text=True)

    def test_agreeing_copy_and_gemm_exit_0(self):
        done = self.run_script(REPORT, COPY, matmul(720.0))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("fp16_tc", done.stdout)
        self.assertIn("agree", done.stdout)
        # fp16_tc_acc16 has no PyTorch counterpart: shown, not judged
        self.assertIn("n/a: no PyTorch counterpart", done.stdout)
        # not_supported results are not paired
        self.assertNotIn("fp8_tc", done.stdout)

    def test_a_gemm_gap_beyond_tolerance_exits_1_and_says_why(self):
        done = self.run_script(REPORT, COPY, matmul(900.0))
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("DIFFER", done.stdout)
        self.assertIn("heuristic", done.stdout)

    def test_shapes_timed_in_another_regime_are_shown_not_compared(self):
        # A small shape: gpuspec's sample of one GEMM lasts 0.02 ms, launch latency included;
        # PyTorch's batch 1.2 ms. The gap says nothing about the kernels: not judged.
        small = {"devices": REPORT["devices"], "results": [
            REPORT["results"][0], result("gemm.cublas.fp16_tc", 7.0, shape="128x128x4096", layout="NN")]}
        ref = {"results": [{"device": 0, "precision": "fp16_tc", "shape": "128x128x4096", "layout": "NN",
                            "status": "ok", "median": 20.0, "batch_seconds": 1.2e-3, "gemms_per_batch": 300}]}
        done = self.run_script(small, COPY, ref)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("not compared: not the same regime", done.stdout)
        self.assertNotIn("DIFFER", done.stdout)
        # Both batched past 1 ms: compared, and a gap is a difference.
        big = {"devices": REPORT["devices"], "results": [
            REPORT["results"][0], result("gemm.cublas.fp16_tc", 7.0, shape="128x128x4096", layout="NN",
                                         gemms_per_sample=100)]}
        done = self.run_script(big, COPY, ref)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("DIFFER", done.stdout)

    def test_copy_gap_exits_1(self):
        done = self.run_script(REPORT, {"results": [{"device": 0, "median": 5000.0}]})
        self.assertEqual(done.returncode, 1)

    def test_no_copy_result_exits_3(self):
        done = self.run_script({"devices": [], "results": []}, COPY)
        self.assertEqual(done.returncode, 3)

    def test_no_gemm_result_exits_3_when_matmul_is_asked(self):
        report = {"devices": REPORT["devices"], "results": [REPORT["results"][0]]}
        done = self.run_script(report, COPY, matmul(700.0))
        self.assertEqual(done.returncode, 3)


FAKE_TORCH = Path(__file__).resolve().parent / "fake_torch"


class TorchReference(unittest.TestCase):
    """scripts/torch_reference.py: one process, one import of torch, both figures, both
    side-by-sides."""

    def run_reference(self, copy_ms, matmul_ms, extra_args=(), extra_env=None):
        tmp = Path(self.enterContext(tempfile.TemporaryDirectory()))
        (tmp / "report.json").write_text(json.dumps(REPORT))
        env = dict(os.environ, PYTHONPATH=str(FAKE_TORCH), FAKE_TORCH_IMPORTS=str(tmp / "imports"),
                   FAKE_TORCH_COPY_MS=str(copy_ms), FAKE_TORCH_MATMUL_MS=str(matmul_ms))
        env.update(extra_env or {})
        done = subprocess.run([sys.executable, str(SCRIPTS / "torch_reference.py"), str(tmp / "report.json"),
                               "--copy-out", str(tmp / "copy.json"), "--matmul-out", str(tmp / "matmul.json"),
                               *extra_args], capture_output=True, text=True, env=env, timeout=60)
        imports = (tmp / "imports").read_text().splitlines() if (tmp / "imports").exists() else []
        copy = json.loads((tmp / "copy.json").read_text()) if (tmp / "copy.json").exists() else None
        matmul = json.loads((tmp / "matmul.json").read_text()) if (tmp / "matmul.json").exists() else None
        return done, imports, copy, matmul

    # The report's copy is 4000 GB/s (2 GiB moved: 0.5369 ms) and its fp16_tc 4096^3 700 TFLOP/s
    # (1.374e11 flops: 0.1963 ms).
    def test_one_import_both_figures_both_side_by_sides_and_wall_times(self):
        done, imports, copy, matmul = self.run_reference(0.5369, 0.1963)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(len(imports), 1, imports)
        self.assertAlmostEqual(copy["results"][0]["median"], 4000.0, delta=1)
        ok = [r for r in matmul["results"] if r["status"] == "ok"]
        self.assertEqual([(r["precision"], r["shape"]) for r in ok], [("fp16_tc", "4096x4096x4096")])
        self.assertAlmostEqual(ok[0]["median"], 700.0, delta=1)
        # A batch of GEMMs between the events, at least 1 ms of them (6 of 0.1963 ms), not one.
        self.assertEqual(ok[0]["gemms_per_batch"], 6)
        self.assertAlmostEqual(ok[0]["batch_seconds"], 6 * 0.1963e-3, delta=1e-9)
        self.assertIn("gpuspec GB/s", done.stdout)  # the copy's table
        self.assertIn("n/a: no plain PyTorch matmul counterpart", done.stdout)  # fp16_tc_acc16
        self.assertRegex(done.stdout, r"torch copy gpu 0 .*\[wall [0-9.]+ s\]")
        self.assertRegex(done.stdout, r"torch matmul gpu 0 fp16_tc 4096x4096x4096 NN: .*\[wall [0-9.]+ s\]")

    def test_a_figure_that_differs_exits_1(self):
        done, _, _, _ = self.run_reference(0.5369, 0.1963 / 1.5)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("DIFFER", done.stdout)

    def test_cases_past_the_budget_are_not_measured_and_exit_3(self):
        done, _, _, matmul = self.run_reference(0.5369, 0.1963, ["--budget-s", "0"])
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertTrue(all(r["status"] == "not available" for r in matmul["results"]))
        self.assertIn("not measured", done.stderr)

    def test_no_cuda_device_exits_3_and_says_so(self):
        done, imports, copy, _ = self.run_reference(1, 1, extra_env={"FAKE_TORCH_NO_CUDA": "1"})
        self.assertEqual(done.returncode, 3)
        self.assertIn("PyTorch sees no CUDA device", done.stderr)
        self.assertEqual(len(imports), 1)
        self.assertIsNone(copy)


class TorchMatmulBatch(unittest.TestCase):
    def test_a_batch_lasts_at_least_1_ms(self):
        self.assertEqual(torch_matmul.batch_size(0.2e-3), 5)
        self.assertEqual(torch_matmul.batch_size(5e-6), 200)
        self.assertEqual(torch_matmul.batch_size(3e-3), 1)
        self.assertEqual(torch_matmul.batch_size(0.0), torch_matmul.MAX_BATCH)
        self.assertEqual(torch_matmul.batch_size(1e-9), torch_matmul.MAX_BATCH)


class TorchMatmulCases(unittest.TestCase):
    def test_cases_come_from_the_reports_ok_gemm_results(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.json"
            path.write_text(json.dumps(REPORT))
            cases = torch_matmul.cases_from_report(str(path))
        self.assertEqual(cases, [("fp16_tc", 4096, 4096, 4096, "NN"), ("fp16_tc_acc16", 4096, 4096, 4096, "NN")])

    def test_default_cases_cover_every_plain_precision(self):
        self.assertEqual({c[0] for c in torch_matmul.DEFAULT_CASES},
                         {"fp64", "fp32", "tf32_tc", "fp16_tc", "bf16_tc", "int8_tc"})


if __name__ == "__main__":
    unittest.main()
