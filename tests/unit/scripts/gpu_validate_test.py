#!/usr/bin/env python3
"""scripts/gpu-validate.sh run here, as a lent machine would run it, in three situations:

- no GPU (the real gpuspec of this build; NVML points at a file that does not exist, nvidia-smi
  is a stand-in that fails as it does without a driver, CUDA and PyTorch see no device): it ends
  by itself, fast, with exit code 3, every GPU step recorded with its exit code and wall time in
  summary.txt, and at most the 8 files a lent machine returns in OUTDIR;
- a busy GPU (a stand-in gpuspec whose run refuses unless --allow-busy, as the idle
  precondition does): the script never passes --allow-busy silently: the refusal first, then a
  loud message, the rerun with --allow-busy, the burn-in with it, a note in the summary, and an
  exit code that is not a pass;
- a budget too small (a stand-in run that outlasts it): the step is cut short by its timeout
  (exit 124, "TIMED OUT"), the steps after it are CUT, and the script still ends, on time,
  with its files written.

  gpu_validate_test.py REPO_ROOT BUILD_DIR
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

FAILING_SMI = """#!/bin/sh
echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'
exit 9
"""

# One GPU, one process on it: what nvidia-smi prints on a busy machine.
WORKING_SMI = """#!/bin/sh
case "$*" in
  *compute-apps*) echo 'gpu_bus_id, pid, process_name, used_memory'; echo '00000000:18:00.0, 4242, python3, 20480 MiB' ;;
  *) echo 'index, name'; echo '0, Stand-in GPU' ;;
esac
"""

# A stand-in for gpuspec: its run refuses a busy GPU unless --allow-busy (FAKE_BUSY=1), and
# sleeps FAKE_RUN_SLEEP seconds when told; every command writes what -o names.
FAKE_GPUSPEC = r"""#!/bin/bash
cmd=$1; shift
out=""; busy_ok=0; args="$*"
while [ $# -gt 0 ]; do
  case $1 in -o) out=$2; shift ;; --allow-busy) busy_ok=1 ;; esac
  shift
done
echo "stand-in gpuspec $cmd $args" >> "$FAKE_CALLS"
case $cmd in
  --version) echo "gpuspec stand-in" ;;
  info) echo '{}' ;;
  health) echo '{}' > "$out" ;;
  run)
    echo '{"results": []}' > "$out"
    if [ "${FAKE_BUSY:-0}" = 1 ] && [ $busy_ok = 0 ]; then
      echo "gpuspec run: every selected GPU is in use by another process (--allow-busy measures them anyway)" >&2
      exit 3
    fi
    if [ -n "${FAKE_RUN_SLEEP:-}" ]; then sleep "$FAKE_RUN_SLEEP"; fi
    ;;
  check) if [ -n "$out" ]; then echo '# stand-in' > "$out"; fi ;;
esac
exit 0
"""


def run_script(tmp, smi, build, extra_env=None, timeout=120):
    fake_bin = tmp / "bin"
    fake_bin.mkdir()
    (fake_bin / "nvidia-smi").write_text(smi)
    (fake_bin / "nvidia-smi").chmod(0o755)
    out = tmp / "out"
    env = dict(os.environ)
    env.update({
        "PATH": f"{fake_bin}:{env.get('PATH', '/usr/bin:/bin')}",
        "GPUSPEC_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1",
        "CUDA_VISIBLE_DEVICES": "",
        "GPU_VALIDATE_BUILD": str(build),
        "TMPDIR": str(tmp),
        "FAKE_CALLS": str(tmp / "calls.txt"),
    })
    env.update(extra_env or {})
    started = time.monotonic()
    proc = subprocess.run(["bash", str(REPO / "scripts" / "gpu-validate.sh"), str(out)], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - started
    summary = (out / "summary.txt").read_text() if (out / "summary.txt").exists() else ""
    return proc, seconds, out, summary


def stand_in_build(tmp):
    build = tmp / "stand-in-build"
    (build / "cli").mkdir(parents=True)
    (build / "cli" / "gpuspec").write_text(FAKE_GPUSPEC)
    (build / "cli" / "gpuspec").chmod(0o755)
    return build


class Summary:
    def step(self, name):
        for line in self.summary.splitlines():
            fields = line.split()
            if fields and fields[0] == name:
                return line, fields
        self.fail(f"step {name} not in summary.txt:\n{self.summary}\n--- stdout\n{self.proc.stdout[-4000:]}")


class WithoutGpu(unittest.TestCase, Summary):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.proc, cls.seconds, cls.out, cls.summary = run_script(Path(cls.tmp.name), FAILING_SMI, BUILD)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

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
            _, fields = self.step(name)
            self.assertEqual(fields[1], "3", f"{name}: {fields}")
            float(fields[2])  # a wall time
        self.assertNotEqual(self.step("nvidia-smi")[1][1], "0")
        self.assertIn("NO GPU on this machine", self.summary)
        self.assertIn("gpuspec health took", self.proc.stdout)
        self.assertIn("nccl-tests (all_reduce_perf) is not on this machine", self.summary)

    def test_never_allows_a_busy_gpu_silently(self):
        self.assertNotIn("allow-busy", self.summary)

    def test_the_log_ends_with_the_summary(self):
        log = (self.out / "validate.log").read_text()
        self.assertIn("summary", log.split("===")[-1])
        self.assertIn("of the 540s budget", log)


class BusyGpu(unittest.TestCase, Summary):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        cls.proc, cls.seconds, cls.out, cls.summary = run_script(tmp, WORKING_SMI, stand_in_build(tmp),
                                                                 {"FAKE_BUSY": "1"})
        cls.calls = (tmp / "calls.txt").read_text().splitlines()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_processes_are_printed_before_the_run(self):
        self.assertLess(self.proc.stdout.index("4242, python3"), self.proc.stdout.index("=== [", self.proc.stdout.index("quick-suite (")))

    def test_refused_first_then_loudly_with_allow_busy(self):
        runs = [c for c in self.calls if c.startswith("stand-in gpuspec run")]
        self.assertNotIn("--allow-busy", runs[0])
        self.assertIn("--suite quick", runs[0])
        self.assertIn("--allow-busy", runs[1])
        self.assertIn("--suite quick", runs[1])
        self.assertTrue(any("--suite burnin" in r and "--allow-busy" in r for r in runs))
        self.assertIn("THE GPU IS IN USE BY ANOTHER PROCESS", self.proc.stdout)
        self.assertEqual(self.step("quick-suite")[1][1], "3")
        self.assertEqual(self.step("quick-suite-allow-busy")[1][1], "0")
        self.assertIn("NOTE: THE GPU WAS BUSY", self.summary)

    def test_a_busy_run_is_not_a_pass(self):
        self.assertNotEqual(self.proc.returncode, 0)


class OutOfBudget(unittest.TestCase, Summary):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        cls.proc, cls.seconds, cls.out, cls.summary = run_script(
            tmp, WORKING_SMI, stand_in_build(tmp), {"FAKE_RUN_SLEEP": "60", "GPU_VALIDATE_BUDGET_S": "12"})

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_long_step_is_timed_out_and_the_rest_cut(self):
        line, fields = self.step("quick-suite")
        self.assertEqual(fields[1], "124", line)
        self.assertIn("TIMED OUT", line)
        self.assertIn("shortened", line)
        self.assertEqual(self.step("burnin")[1][1], "cut")
        self.assertEqual(self.step("torch-copy")[1][1], "cut")

    def test_ends_on_time_with_its_files(self):
        self.assertLess(self.seconds, 12 + 10 + 10)  # the budget, one kill grace, the rest
        self.assertNotEqual(self.proc.returncode, 0)
        for name in ("validate.log", "summary.txt", "evidence.tar.gz", "report.json"):
            self.assertTrue((self.out / name).is_file(), name)


if __name__ == "__main__":
    unittest.main()
