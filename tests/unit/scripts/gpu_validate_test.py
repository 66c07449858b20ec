#!/usr/bin/env python3
"""scripts/gpu-validate.sh run here, as a lent machine would run it:

- no GPU, its dry run (the real gpuspec of this build; NVML points at a file that does not
  exist, nvidia-smi is a stand-in that fails as it does without a driver, CUDA and PyTorch see no
  device): it ends by itself, fast, with exit code 3 and "NO GPU on this machine" in the summary
  (docs/gpu-validation.md), every GPU step recorded with its exit code and wall time in
  summary.txt, /proc/meminfo in the evidence, and at most the 8 files a lent machine returns in
  OUTDIR;
- no carried bundle and no build named: it refuses at once (exit 3, "REFUSED: no carried
  bundle"), and never starts a build;
- one healthy GPU (a stand-in gpuspec, a stand-in GPU test binary whose one skip is the two-GPU
  test's, and the stand-in PyTorch of tests/unit/scripts/fake_torch): it exits 0, the expected
  skip counted and listed, PyTorch imported once; an unexpected skip is no pass;
- a run killed before its report (a stand-in that leaves REPORT.journal and a temporary file):
  the report is recovered from the journal (`gpuspec run --recover`), the journal and the
  temporary file go into the evidence, and OUTDIR keeps within the 8 files;
- a busy GPU (a stand-in gpuspec whose run refuses unless --allow-busy, as the idle
  precondition does): the script never passes --allow-busy silently: the refusal first, then a
  loud message, the rerun with --allow-busy, the burn-in with it, a note in the summary, and an
  exit code that is not a pass;
- a budget too small (a stand-in run that outlasts it): the step is cut short by its timeout
  (exit 124, "TIMED OUT"), the steps after it are CUT, and the script still ends, on time,
  with its files written.

  gpu_validate_test.py REPO_ROOT BUILD_DIR
"""
import json
import os
import re
import shutil
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
out=""; busy_ok=0; recover=""; args="$*"
while [ $# -gt 0 ]; do
  case $1 in -o) out=$2; shift ;; --allow-busy) busy_ok=1 ;; --recover) recover=$2; shift ;; esac
  shift
done
echo "stand-in gpuspec $cmd $args" >> "$FAKE_CALLS"
case $cmd in
  --version) echo "gpuspec stand-in" ;;
  info) echo '{}' ;;
  health) echo '{}' > "$out" ;;
  run)
    if [ -n "$recover" ]; then
      echo "{\"recovered_from\": \"$recover\", \"results\": []}" > "$out"
      echo "gpuspec run --recover: 3 result(s) from $recover written to $out"
      exit 3
    fi
    if [ "${FAKE_KILLED:-0}" = 1 ]; then
      # As a coordinator SIGKILLed mid-run leaves it: the journal and a temporary file, no report.
      echo '{"journal": "gpuspec.journal.v1", "report": {}}' > "$out.journal"
      echo 'partial' > "$(dirname "$out")/.$(basename "$out").tmp.4242.0"
      exit 137
    fi
    if [ -n "${FAKE_REPORT:-}" ]; then echo "$FAKE_REPORT" > "$out"; else echo '{"results": []}' > "$out"; fi
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


# One GPU's quick report, as far as side_by_side.py reads it: its copy and one GEMM, which the
# stand-in PyTorch below matches (4000 GB/s: 2 GiB in 0.5369 ms; 700 TFLOP/s: 0.1963 ms).
ONE_GPU_REPORT = json.dumps({
    "devices": [{"index": 0, "cuda_index": 0}],
    "results": [
        {"bench_id": "memory.stream.copy", "devices": [0], "status": "ok", "parameters": {"dtype": "fp32"},
         "stats": {"median": 4000.0}},
        {"bench_id": "gemm.cublas.fp16_tc", "devices": [0], "status": "ok",
         "parameters": {"shape": "4096x4096x4096", "layout": "NN"}, "stats": {"median": 700.0}},
    ]})
FAKE_TORCH_ENV = {"PYTHONPATH": str(Path(__file__).resolve().parent / "fake_torch"),
                  "FAKE_TORCH_COPY_MS": "0.5369", "FAKE_TORCH_MATMUL_MS": "0.1963"}

# A GPU test binary on one GPU: one test passes, one skips with $FAKE_SKIP_MESSAGE (gtest's
# output, as GTEST_SKIP() << message prints it).
FAKE_GPU_TEST = r"""#!/bin/sh
cat <<END
[==========] Running 2 tests from 1 test suite.
[ RUN      ] fake_gpu.passes
[       OK ] fake_gpu.passes (3 ms)
[ RUN      ] fake_gpu.skips
/src/tests/gpu/fake_gpu_test.cpp:57: Skipped
$FAKE_SKIP_MESSAGE

[  SKIPPED ] fake_gpu.skips (0 ms)
[==========] 2 tests from 1 test suite ran. (3 ms total)
[  PASSED  ] 1 test.
[  SKIPPED ] 1 test, listed below:
[  SKIPPED ] fake_gpu.skips
END
"""

# A machine's nvidia-smi with one idle GPU.
IDLE_SMI = """#!/bin/sh
case "$*" in
  *compute-apps*) echo 'gpu_bus_id, pid, process_name, used_memory' ;;
  *) echo 'index, name'; echo '0, Stand-in GPU' ;;
esac
"""


def run_script(tmp, smi, build, extra_env=None, timeout=120, script=None):
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
    env.update({"FAKE_TORCH_IMPORTS": str(tmp / "torch-imports.txt")})
    if build is None:
        del env["GPU_VALIDATE_BUILD"]
    extra_env = dict(extra_env or {})
    if "PATH_PREPEND" in extra_env:
        env["PATH"] = f"{extra_env.pop('PATH_PREPEND')}:{env['PATH']}"
    env.update(extra_env)
    started = time.monotonic()
    proc = subprocess.run(["bash", str(script or REPO / "scripts" / "gpu-validate.sh"), str(out)], cwd=tmp,
                          env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - started
    summary = (out / "summary.txt").read_text() if (out / "summary.txt").exists() else ""
    return proc, seconds, out, summary


def stand_in_build(tmp, gpu_test=False):
    build = tmp / "stand-in-build"
    (build / "cli").mkdir(parents=True)
    (build / "cli" / "gpuspec").write_text(FAKE_GPUSPEC)
    (build / "cli" / "gpuspec").chmod(0o755)
    if gpu_test:
        (build / "tests" / "gpu").mkdir(parents=True)
        (build / "tests" / "gpu" / "fake_gpu_test").write_text(FAKE_GPU_TEST)
        (build / "tests" / "gpu" / "fake_gpu_test").chmod(0o755)
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
        # The dry run CI runs: exit 3 and the message docs/gpu-validation.md documents.
        self.assertEqual(self.proc.returncode, 3, self.proc.stdout[-4000:])
        self.assertLess(self.seconds, 60)
        self.assertIn("NOTE: NO GPU on this machine: the GPU steps above report so", self.summary)

    def test_outdir_holds_what_a_lent_machine_returns(self):
        names = sorted(p.name for p in self.out.iterdir())
        self.assertEqual(names, ["burnin-report.json", "evidence.tar.gz", "report.json", "summary.txt",
                                 "validate.log"])
        self.assertTrue(all(p.is_file() for p in self.out.iterdir()))
        with tarfile.open(self.out / "evidence.tar.gz") as t:
            packed = {Path(n).name for n in t.getnames()}
        for name in ("info.json", "health.json", "nccl-tests-layout.txt", "quick-suite.log", "burnin.log",
                     "burnin-check.log", "burnin-check-validation.log", "validation-rules.json", "meminfo.log",
                     "torch-side-by-side.log", "summary.txt"):
            self.assertIn(name, packed)
        with tarfile.open(self.out / "evidence.tar.gz") as t:
            meminfo = t.extractfile(next(m for m in t.getmembers() if m.name.endswith("meminfo.log"))).read()
        self.assertIn(b"MemTotal:", meminfo)

    def test_every_gpu_step_says_no_gpu(self):
        for name in ("info", "health", "quick-suite", "quick-check-nccl-tests", "burnin", "burnin-check",
                     "burnin-check-validation", "torch-side-by-side"):
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
        self.assertIn("of the 530s budget", log)


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
        self.assertEqual(self.step("torch-side-by-side")[1][1], "cut")

    def test_ends_on_time_with_its_files(self):
        self.assertLess(self.seconds, 12 + 10 + 10)  # the budget, one kill grace, the rest
        self.assertNotEqual(self.proc.returncode, 0)
        for name in ("validate.log", "summary.txt", "evidence.tar.gz", "report.json"):
            self.assertTrue((self.out / name).is_file(), name)


class WithoutBundle(unittest.TestCase):
    """No .gpu-bundle carried and no GPU_VALIDATE_BUILD: refused at once, no build started."""

    def test_refuses_at_once_and_says_so(self):
        with tempfile.TemporaryDirectory() as name:
            tmp = Path(name)
            checkout = tmp / "checkout"  # a checkout without .gpu-bundle/, whatever this one holds
            (checkout / "scripts").mkdir(parents=True)
            shutil.copy(REPO / "scripts" / "gpu-validate.sh", checkout / "scripts")
            tools = tmp / "tools"
            tools.mkdir()
            for tool in ("cmake", "ninja", "make"):  # a build would call one of them
                (tools / tool).write_text(f"#!/bin/sh\necho {tool} >> '{tmp}/builds.txt'\n")
                (tools / tool).chmod(0o755)
            proc, seconds, out, summary = run_script(
                tmp, WORKING_SMI, None, {"PATH_PREPEND": str(tools)},
                script=checkout / "scripts" / "gpu-validate.sh")
            self.assertEqual(proc.returncode, 3, proc.stdout[-4000:])
            self.assertLess(seconds, 10)
            self.assertIn("REFUSED: no carried bundle", proc.stdout)
            self.assertIn("REFUSED: no carried bundle", summary)
            self.assertIn("scripts/gpu-bundle.sh", summary)
            self.assertFalse((tmp / "builds.txt").exists(), "no build was started")
            self.assertFalse((tmp / "calls.txt").exists())
            self.assertEqual(sorted(p.name for p in out.iterdir()), ["evidence.tar.gz", "summary.txt", "validate.log"])


class OneHealthyGpu(unittest.TestCase, Summary):
    """One GPU, everything agreeing, the two-GPU test skipped: a pass, with the skip listed."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        cls.proc, cls.seconds, cls.out, cls.summary = run_script(
            tmp, IDLE_SMI, stand_in_build(tmp, gpu_test=True),
            {**FAKE_TORCH_ENV, "FAKE_REPORT": ONE_GPU_REPORT, "FAKE_SKIP_MESSAGE": "one GPU: no pair"})
        cls.imports = (tmp / "torch-imports.txt").read_text().splitlines()
        cls.calls = (tmp / "calls.txt").read_text().splitlines()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exits_0_with_the_expected_skip_counted_and_listed(self):
        self.assertEqual(self.proc.returncode, 0, self.summary + self.proc.stdout[-3000:])
        # No FP8 GEMM test binary among the stand-in's: said, not failed.
        line, _ = self.step("fp8-gemms")
        self.assertIn("the FP8 GEMMs are not run", line)
        self.assertIn("1 skipped (1 expected here, 0 unexpected)", self.summary)
        self.assertIn("expected skips (this machine, not the code): fake_gpu.skips (two-GPU test on one GPU",
                      self.summary)
        self.assertIn("NOTE: PASS", self.summary)
        self.assertNotIn("NOT A PASS", self.summary)

    def test_pytorch_is_imported_once_for_both_side_by_sides(self):
        self.assertEqual(len(self.imports), 1, self.imports)
        line, fields = self.step("torch-side-by-side")
        self.assertEqual(fields[1], "0", line)
        self.assertIn("gpuspec GB/s", self.proc.stdout)
        self.assertIn("fp16_tc", self.proc.stdout)

    def test_the_burn_in_is_judged_with_the_validations_minimum(self):
        checks = [c for c in self.calls if c.startswith("stand-in gpuspec check") and "burnin-report.json" in c]
        self.assertEqual(len(checks), 2, checks)
        self.assertNotIn("--rules", checks[0])  # the acceptance check, shown
        self.assertIn("--rules", checks[1])  # the validation's, counted
        runs = [c for c in self.calls if c.startswith("stand-in gpuspec run") and "--suite burnin" in c]
        self.assertIn("--duration 2m", runs[0])

    def test_the_steps_have_their_wall_times(self):
        for name in ("version", "nvidia-smi", "meminfo", "quick-suite", "burnin", "fake_gpu_test"):
            float(self.step(name)[1][2])


class AnUnexpectedSkip(unittest.TestCase, Summary):
    def test_is_no_pass(self):
        with tempfile.TemporaryDirectory() as name:
            tmp = Path(name)
            self.proc, _, _, self.summary = run_script(
                tmp, IDLE_SMI, stand_in_build(tmp, gpu_test=True),
                {**FAKE_TORCH_ENV, "FAKE_REPORT": ONE_GPU_REPORT,
                 "FAKE_SKIP_MESSAGE": "this build has no sm_90a kernels (its architecture list lacks 90)"})
        self.assertNotEqual(self.proc.returncode, 0)
        self.assertIn("1 skipped (0 expected here, 1 unexpected)", self.summary)
        self.assertIn("UNEXPECTED SKIPS: fake_gpu.skips: this build has no sm_90a kernels", self.summary)
        self.assertIn("NOT A PASS: 1 unexpected GPU test skips", self.summary)
        self.assertNotIn("side-by-side", self.summary.split("NOT A PASS:")[1])


# The FP8 GEMMs' test binary as a stand-in: records its arguments, then fails or passes.
FAKE_FP8_TEST = r"""#!/bin/sh
echo "$*" >> "$FAKE_FP8_ARGS"
echo "[ RUN      ] gemm_fp8_gpu.fp8_pairs_verify"
if [ -n "$FAKE_FP8_FAIL" ]; then
  echo "[  FAILED  ] gemm_fp8_gpu.fp8_pairs_verify (9 ms)"
  exit 1
fi
echo "[       OK ] gemm_fp8_gpu.fp8_pairs_verify (9 ms)"
echo "[  PASSED  ] 1 test."
"""


class Fp8Gemms(unittest.TestCase, Summary):
    """Issue 19.6's step: the cuBLASLt FP8 GEMMs' test run on its own, its failure no pass."""

    def run_with(self, fail):
        tmp_dir = tempfile.TemporaryDirectory()
        self.addCleanup(tmp_dir.cleanup)
        tmp = Path(tmp_dir.name)
        build = stand_in_build(tmp)
        (build / "tests" / "gpu").mkdir(parents=True)
        fake = build / "tests" / "gpu" / "gpuspec_gemm_cublas_gpu_test"
        fake.write_text(FAKE_FP8_TEST)
        fake.chmod(0o755)
        env = {**FAKE_TORCH_ENV, "FAKE_REPORT": ONE_GPU_REPORT, "FAKE_FP8_ARGS": str(tmp / "fp8-args.txt")}
        if fail:
            env["FAKE_FP8_FAIL"] = "1"
        self.proc, self.seconds, self.out, self.summary = run_script(tmp, IDLE_SMI, build, env)
        return (tmp / "fp8-args.txt").read_text().splitlines()

    def test_runs_the_fp8_tests_alone_first(self):
        args = self.run_with(fail=False)
        self.assertIn("--gtest_filter=gemm_fp8_gpu.*", args[0])
        line, fields = self.step("fp8-gemms")
        self.assertEqual(fields[1], "0", line)
        self.assertNotIn("did not all verify", self.summary)

    def test_a_failing_fp8_gemm_is_not_a_pass(self):
        self.run_with(fail=True)
        line, fields = self.step("fp8-gemms")
        self.assertEqual(fields[1], "1", line)
        self.assertIn("NOT A PASS", self.summary)
        self.assertIn("the cuBLASLt FP8 GEMMs (fp8-gemms) did not all verify", self.summary)
        self.assertNotEqual(self.proc.returncode, 0)


class AKilledRun(unittest.TestCase, Summary):
    """Every gpuspec run is killed before it writes its report: each report is recovered."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        cls.proc, cls.seconds, cls.out, cls.summary = run_script(tmp, IDLE_SMI, stand_in_build(tmp),
                                                                 {"FAKE_KILLED": "1"})
        cls.calls = (tmp / "calls.txt").read_text().splitlines()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_journal_is_recovered_into_its_report(self):
        recovers = [c for c in self.calls if "--recover" in c]
        # The quick suite's, the interconnect rerun's (the quick suite was cut before its
        # all-reduce) and the burn-in's.
        self.assertEqual(len(recovers), 3, self.calls)
        for report in ("report.json", "interconnect-report.json", "burnin-report.json"):
            self.assertTrue(any(f"--recover {self.out}/{report}.journal -o {self.out}/{report}" in c for c in recovers),
                            recovers)
            self.assertIn(f"{report}.journal", json.loads((self.out / report).read_text())["recovered_from"])
        self.assertIn("report.json was RECOVERED from its journal", self.summary)
        self.step("recover-report")
        self.step("recover-burnin-report")

    def test_outdir_keeps_within_the_limit_and_the_journals_are_evidence(self):
        names = sorted(p.name for p in self.out.iterdir())
        self.assertLessEqual(len(names), 8, names)
        self.assertEqual(names, ["burnin-report.json", "evidence.tar.gz", "interconnect-report.json", "report.json",
                                 "summary.txt", "validate.log"])
        with tarfile.open(self.out / "evidence.tar.gz") as t:
            packed = {Path(n).name for n in t.getnames()}
        for name in ("report.json.journal", "interconnect-report.json.journal", "burnin-report.json.journal",
                     ".report.json.tmp.4242.0", ".burnin-report.json.tmp.4242.0"):
            self.assertIn(name, packed)


class Timing(unittest.TestCase):
    """The script's kill-after for a gpuspec run against its coordinator's interrupt grace, and
    the worst case against the lent machine's 600 s."""

    def test_a_run_is_killed_only_after_its_coordinator_gave_up_on_its_workers(self):
        script = (REPO / "scripts" / "gpu-validate.sh").read_text()
        header = (REPO / "spine" / "include" / "gpuspec" / "spine" / "coordinator.hpp").read_text()
        grace = float(re.search(r"double interrupt_grace_s = ([0-9.]+);", header).group(1))
        kill_after = int(re.search(r"^RUN_KILL_AFTER_S=([0-9]+)", script, re.M).group(1))
        budget = int(re.search(r"^BUDGET_S=\$\{GPU_VALIDATE_BUDGET_S:-([0-9]+)\}", script, re.M).group(1))
        recovery = re.search(r'timeout -k ([0-9]+) ([0-9]+) "\$bin" run --recover', script)
        self.assertGreaterEqual(kill_after, grace + 5, "the report is written after the workers' grace")
        worst = budget + kill_after + int(recovery.group(1)) + int(recovery.group(2))
        self.assertLessEqual(worst, 590, f"budget {budget} + kill-after {kill_after} + recovery: {worst} s")


if __name__ == "__main__":
    unittest.main()
