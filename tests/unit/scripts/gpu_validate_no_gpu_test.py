#!/usr/bin/env python3
"""scripts/gpu-validate.sh on a machine without a GPU, as the lent machine's script would run
there: it must end by itself, fast, with exit code 3 (no verdict possible), every GPU step
recorded with its exit code and wall time in summary.txt, and at most the 8 files a lent machine
returns in OUTDIR (the other outputs packed in evidence.tar.gz).

No GPU is guaranteed, even on a developer's machine that has one: NVML points at a file that
does not exist, nvidia-smi is a stand-in that fails as it does without a driver, and CUDA and
PyTorch see no device.

  gpu_validate_no_gpu_test.py REPO_ROOT BUILD_DIR
"""
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(sys.argv[1]).resolve()
BUILD = Path(sys.argv[2]).resolve()
del sys.argv[1:3]


class GpuValidateWithoutGpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        fake_bin = tmp / "bin"
        fake_bin.mkdir()
        smi = fake_bin / "nvidia-smi"
        smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n")
        smi.chmod(0o755)
        cls.out = tmp / "out"
        env = dict(os.environ)
        env.update({
            "PATH": f"{fake_bin}:{env.get('PATH', '/usr/bin:/bin')}",
            "GPUSPEC_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1",
            "CUDA_VISIBLE_DEVICES": "",
            "GPU_VALIDATE_BUILD": str(BUILD),
            "TMPDIR": str(tmp),
        })
        started = time.monotonic()
        cls.proc = subprocess.run(["bash", str(REPO / "scripts" / "gpu-validate.sh"), str(cls.out)],
                                  cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
        cls.seconds = time.monotonic() - started
        cls.summary = (cls.out / "summary.txt").read_text() if (cls.out / "summary.txt").exists() else ""

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def step(self, name):
        for line in self.summary.splitlines():
            fields = line.split()
            if fields and fields[0] == name:
                return fields
        self.fail(f"step {name} not in summary.txt:\n{self.summary}\n--- stdout\n{self.proc.stdout[-4000:]}")

    def test_ends_fast_with_no_verdict(self):
        self.assertEqual(self.proc.returncode, 3, self.proc.stdout[-4000:])
        self.assertLess(self.seconds, 60)

    def test_outdir_holds_what_a_lent_machine_returns(self):
        names = sorted(p.name for p in self.out.iterdir())
        self.assertEqual(names, ["burnin-report.json", "evidence.tar.gz", "report.json", "summary.txt",
                                 "validate.log"])
        self.assertTrue(all(p.is_file() for p in self.out.iterdir()))
        with tarfile.open(self.out / "evidence.tar.gz") as t:
            packed = {Path(n).name for n in t.getnames()}
        for name in ("info.json", "health.json", "nccl-tests-layout.txt", "quick-suite.log", "burnin.log",
                     "burnin-check.log", "summary.txt"):
            self.assertIn(name, packed)

    def test_every_gpu_step_says_no_gpu(self):
        for name in ("info", "health", "quick-suite", "quick-check-nccl-tests", "burnin", "burnin-check",
                     "torch-copy"):
            fields = self.step(name)
            self.assertEqual(fields[1], "3", f"{name}: {fields}")
            float(fields[2])  # a wall time
        self.assertNotEqual(self.step("nvidia-smi")[1], "0")
        self.assertIn("NO GPU on this machine", self.summary)
        self.assertIn("gpuspec health took", self.proc.stdout)

    def test_never_allows_a_busy_gpu_silently(self):
        self.assertNotIn("allow-busy", self.summary)
        self.assertNotIn("--allow-busy", self.proc.stdout.replace("(--allow-busy measures", ""))

    def test_the_log_ends_with_the_summary(self):
        log = (self.out / "validate.log").read_text()
        self.assertIn("=== [", log)
        self.assertIn("summary", log.split("===")[-1])
        self.assertIn("of the 540s budget", log)


if __name__ == "__main__":
    unittest.main()
