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
- every architecture we build for (stand-ins of nvidia-smi, gpuspec and the GPU test binaries,
  with the real test names and their own GTEST_SKIP conditions, answering as an H100, H200 (sm_90),
  B200 (sm_100) or RTX PRO 6000 (sm_120), and the stand-in PyTorch of tests/unit/scripts/fake_torch):
  the first call exits 0 (PASS), running only the tests tests/gpu/gpu_tests.json declares for the
  machine and listing the others with the reason; one failing test, a skip where a test applies,
  a step cut for time, a side-by-side that differs or a missing binary is no pass; the FP8 GEMMs
  run first and alone, and must pass (all skipped is no pass); --rerun runs the other binaries;
  a no-GPU machine is exit 3;
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


FAKE_TORCH_ENV = {"PYTHONPATH": str(Path(__file__).resolve().parent / "fake_torch"),
                  "FAKE_TORCH_COPY_MS": "0.5369", "FAKE_TORCH_MATMUL_MS": "0.1963"}


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
        self.assertIn("of the 250s budget", log)


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


BUDGET_S = 40


class OutOfBudget(unittest.TestCase, Summary):
    # Long enough that the steps before the quick suite (stand-ins, fast on an idle machine) keep
    # within their share on a loaded CI machine too: the quick suite is then timed out, not cut.
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        cls.proc, cls.seconds, cls.out, cls.summary = run_script(
            tmp, WORKING_SMI, stand_in_build(tmp), {"FAKE_RUN_SLEEP": "120", "GPU_VALIDATE_BUDGET_S": str(BUDGET_S)})

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_long_step_is_timed_out_and_the_rest_cut(self):
        # The shares scale with the budget: about a third of it for the quick suite, which sleeps
        # past it; what is kept for the burn-in leaves nothing for PyTorch.
        line, fields = self.step("quick-suite")
        self.assertEqual(fields[1], "124", line)
        self.assertIn("TIMED OUT", line)
        self.assertEqual(self.step("torch-side-by-side")[1][1], "cut")
        self.assertIn(self.step("burnin")[1][1], ("cut", "124"))
        self.assertIn("steps cut or timed out: quick-suite", self.summary)

    def test_ends_on_time_with_its_files(self):
        self.assertLess(self.seconds, BUDGET_S + 10 + 10)  # the budget, one kill grace, the rest
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


# The machines we build for, as nvidia-smi and the CUDA runtime name them: (name, compute
# capability).
MACHINES = {
    "H100": ("NVIDIA H100 80GB HBM3", "9.0"),
    "H200": ("NVIDIA H200", "9.0"),
    "B200": ("NVIDIA B200", "10.0"),
    "RTX PRO 6000": ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
}


def machine_smi(name, cc):
    """nvidia-smi of a machine with one idle GPU."""
    return f"""#!/bin/sh
case "$*" in
  *compute_cap*) echo '{cc}' ;;
  *compute-apps*) echo 'gpu_bus_id, pid, process_name, used_memory' ;;
  *) echo 'index, name'; echo '0, {name}' ;;
esac
"""


# A GPU test binary as gtest builds it, with the real binaries' test names and each test's own
# condition, as its code says it (GTEST_SKIP where it does not apply): what the runner must never
# run. $FAKE_CC is the compute capability the CUDA runtime reports ("9.0"), $FAKE_GPUS the GPU
# count; $FAKE_FAIL names a test that fails; $FAKE_SKIP_ALL=1 skips every test (a binary whose
# tests all skipped exits 0); every call is recorded in $FAKE_TEST_CALLS.
FAKE_GTEST = r"""#!/usr/bin/env python3
import fnmatch, os, sys
CATALOG = __CATALOG__
args = sys.argv[1:]
with open(os.environ["FAKE_TEST_CALLS"], "a") as f:
    f.write(os.path.basename(sys.argv[0]) + " " + " ".join(args) + "\n")
if "--gtest_list_tests" in args:
    suites = {}
    for name, _, _ in CATALOG:
        suite, test = name.split(".")
        suites.setdefault(suite, []).append(test)
    for suite, tests in suites.items():
        print(suite + ".")
        for t in tests:
            print("  " + t)
    sys.exit(0)
patterns = ["*"]
for a in args:
    if a.startswith("--gtest_filter="):
        patterns = a.split("=", 1)[1].split(":")
major, minor = os.environ.get("FAKE_CC", "9.0").split(".")
cc, gpus = int(major) * 10 + int(minor), int(os.environ.get("FAKE_GPUS", "1"))
chosen = [c for c in CATALOG if any(fnmatch.fnmatchcase(c[0], p) for p in patterns)]
print(f"[==========] Running {len(chosen)} tests from 1 test suite.")
passed, failed = 0, []
for name, applies, message in chosen:
    print(f"[ RUN      ] {name}")
    if os.environ.get("FAKE_SKIP_ALL") == "1" or not eval(applies):
        print("/src/tests/gpu/fake.cpp:57: Skipped")
        print(message.replace("SM", f"sm_{cc}") if os.environ.get("FAKE_SKIP_ALL") != "1" else "no usable GPU")
        print()
        print(f"[  SKIPPED ] {name} (0 ms)")
    elif os.environ.get("FAKE_FAIL") == name:
        print("/src/tests/gpu/fake.cpp:60: Failure")
        print(f"[  FAILED  ] {name} (1 ms)")
        failed.append(name)
    else:
        print(f"[       OK ] {name} (1 ms)")
        passed += 1
print(f"[==========] {len(chosen)} tests from 1 test suite ran. (3 ms total)")
print(f"[  PASSED  ] {passed} tests.")
for name in failed:
    print(f"[  FAILED  ] {name}")
sys.exit(1 if failed else 0)
"""

# Each carried binary's tests: (full name, the condition under which its code runs it, the skip
# message otherwise). The names are the real ones (tests/gpu/*.cpp), so the real declarations
# (tests/gpu/gpu_tests.json) select them.
CATALOGS = {
    "gpuspec_tensor_gpu_test": [
        ("tc_plan.picks_the_path_each_gpu_supports", "True", ""),
        ("tensor_kernels.every_mma_sync_variant_this_gpu_runs_computes_a_times_b", "cc >= 75",
         "no mma.sync before sm_75; this GPU is SM"),
        ("tensor_kernels.every_wgmma_kernel_computes_a_times_b_on_hopper", "cc == 90",
         "wgmma runs on compute capability 9.0 only; this GPU is SM"),
        ("tensor_kernels.every_tcgen05_kernel_computes_a_times_b_on_blackwell_10x", "cc // 10 == 10",
         "tcgen05 runs on compute capability 10.x only; this GPU is SM"),
    ],
    "gpuspec_gemm_cublas_gpu_test": [
        ("gemm_cublas_host.registration", "True", ""),
        ("gemm_fp8_gpu.fp8_pairs_verify", "True", ""),
        ("gemm_blockscaled_gpu.every_format_verifies_or_says_why_not", "cc >= 100",
         "the block-scaled GEMMs need 10.0 or newer"),
        ("gemm_blockscaled_gpu.older_gpus_say_not_supported", "cc < 100", "a Blackwell GPU: the formats run"),
    ],
    "gpuspec_gemm_custom_gpu_test": [
        ("gemm_custom_gpu.hgemm_every_element_matches_the_host_reference", "cc >= 80", "needs sm_80"),
        ("gemm_custom_gpu.hgemm_launcher_refuses_gpus_before_sm80", "cc < 80", "this GPU is SM: the kernel runs here"),
    ],
    "gpuspec_transfer_p2p_gpu_test": [
        ("transfer_p2p_test.one_gpu_has_no_pair_and_so_no_case", "True", ""),
        ("transfer_p2p_test.two_gpus_verify_every_byte_of_their_pairs", "gpus >= 2", "one GPU: no pair"),
    ],
    "gpuspec_collective_gpu_test": [
        ("collective_gpu_test.OneRankCollectivesAreExactInEveryType", "True", ""),
    ],
    # Never run: the burn-in step repeats it; a host test that travelled along.
    "gpuspec_burnin_gpu_test": [("burnin_test.a_twenty_second_burn_in_keeps_every_checksum_and_word", "True", "")],
    "gpuspec_harness_test": [("harness.host_only", "True", "")],
}
for _name in ("gpuspec_compute_gpu_test", "gpuspec_memory_hierarchy_gpu_test", "gpuspec_kernels_gpu_test",
              "gpuspec_burnin_kernels_gpu_test", "gpuspec_transfer_gpu_test", "gpuspec_benches_gpu_test"):
    CATALOGS[_name] = [("fake_gpu.passes", "True", "")]


def stand_in_gpu_build(tmp, only=None):
    build = stand_in_build(tmp)
    (build / "tests" / "gpu").mkdir(parents=True)
    for name, catalog in CATALOGS.items():
        if only is not None and name not in only:
            continue
        path = build / "tests" / "gpu" / name
        path.write_text(FAKE_GTEST.replace("__CATALOG__", repr(catalog)))
        path.chmod(0o755)
    return build


# One GPU's quick report: its copy and one GEMM, which the stand-in PyTorch matches, the GEMM
# sampled as the harness does (11 GEMMs of 0.196 ms per sample).
ARCH_REPORT = json.dumps({
    "devices": [{"index": 0, "cuda_index": 0}],
    "results": [
        {"bench_id": "memory.stream.copy", "devices": [0], "status": "ok", "parameters": {"dtype": "fp32"},
         "stats": {"median": 4000.0}},
        {"bench_id": "gemm.cublas.fp16_tc", "devices": [0], "status": "ok",
         "parameters": {"shape": "4096x4096x4096", "layout": "NN", "gemms_per_sample": 11},
         "stats": {"median": 700.0}},
    ]})


def run_machine(test, machine, extra_env=None, args=(), only=None):
    """gpu-validate.sh on the machine MACHINES[machine], with the stand-in gpuspec and test
    binaries and the stand-in PyTorch; sets test.proc, .summary, .out and .calls (the test
    binaries' calls)."""
    tmp_dir = tempfile.TemporaryDirectory()
    test.addCleanup(tmp_dir.cleanup)
    tmp = Path(tmp_dir.name)
    name, cc = MACHINES[machine]
    env = {**FAKE_TORCH_ENV, "FAKE_REPORT": ARCH_REPORT, "FAKE_CC": cc, "FAKE_TEST_CALLS": str(tmp / "tests.txt"),
           "GPUSPEC_NCCL_LIBRARY": "/stand-in/libnccl.so.2"}
    env.update(extra_env or {})
    script = None
    if args:
        script = tmp / "run-with-args.sh"
        script.write_text(f'exec bash "{REPO}/scripts/gpu-validate.sh" {" ".join(args)} "$@"\n')
    test.proc, test.seconds, test.out, test.summary = run_script(
        tmp, machine_smi(name, cc), stand_in_gpu_build(tmp, only), env, script=script)
    calls = tmp / "tests.txt"
    test.calls = calls.read_text().splitlines() if calls.exists() else []


def runs_of(calls):
    """The test binaries' runs (not their listings): "binary --gtest_filter=..." lines."""
    return [c for c in calls if "--gtest_list_tests" not in c]


class EveryArchitecturePasses(unittest.TestCase, Summary):
    """The first call on each machine we build for, everything passing: PASS, exit 0; only the
    tests that apply run, the others are listed with the reason; no skip message list."""

    def check_machine(self, machine, not_run, ran):
        run_machine(self, machine)
        self.assertEqual(self.proc.returncode, 0, self.summary + self.proc.stdout[-3000:])
        self.assertIn("NOTE: PASS", self.summary)
        self.assertNotIn("NOT A PASS", self.summary)
        for test, reason in not_run:
            self.assertIn(f"{test}: {reason}", self.summary)
        runs = "\n".join(runs_of(self.calls))
        for test in ran:
            self.assertIn(test, runs)
        for test, _ in not_run:
            self.assertNotIn(test, runs)
        # The first call's binaries only, the FP8 GEMMs first and alone, and never what repeats.
        self.assertTrue(runs_of(self.calls)[0].startswith("gpuspec_gemm_cublas_gpu_test --gtest_color=no "
                                                          "--gtest_filter=gemm_fp8_gpu.fp8_pairs_verify"),
                        self.calls)
        self.assertEqual(runs.count("gemm_fp8_gpu.fp8_pairs_verify"), 1, runs)
        self.assertNotIn("gpuspec_burnin_gpu_test", "\n".join(self.calls))
        self.assertNotIn("gpuspec_harness_test", runs)
        self.assertNotIn("gpuspec_compute_gpu_test", runs)  # the rerun's
        self.assertIn("gpuspec_burnin_gpu_test (the binary): the burn-in step", self.summary)
        self.assertIn("0 problem(s)", self.summary)

    def test_h100(self):
        self.check_machine("H100", [
            ("tensor_kernels.every_tcgen05_kernel_computes_a_times_b_on_blackwell_10x", "not for sm_90"),
            ("gemm_blockscaled_gpu.every_format_verifies_or_says_why_not", "not for sm_90")],
            ["tensor_kernels.every_wgmma_kernel_computes_a_times_b_on_hopper",
             "gemm_blockscaled_gpu.older_gpus_say_not_supported"])

    def test_h200(self):
        self.check_machine("H200", [
            ("tensor_kernels.every_tcgen05_kernel_computes_a_times_b_on_blackwell_10x", "not for sm_90")],
            ["tensor_kernels.every_wgmma_kernel_computes_a_times_b_on_hopper"])

    def test_b200(self):
        self.check_machine("B200", [
            ("tensor_kernels.every_wgmma_kernel_computes_a_times_b_on_hopper", "not for sm_100"),
            ("gemm_blockscaled_gpu.older_gpus_say_not_supported", "not for sm_100")],
            ["tensor_kernels.every_tcgen05_kernel_computes_a_times_b_on_blackwell_10x",
             "gemm_blockscaled_gpu.every_format_verifies_or_says_why_not"])

    def test_rtx_pro_6000(self):
        self.check_machine("RTX PRO 6000", [
            ("tensor_kernels.every_wgmma_kernel_computes_a_times_b_on_hopper", "not for sm_120"),
            ("tensor_kernels.every_tcgen05_kernel_computes_a_times_b_on_blackwell_10x", "not for sm_120"),
            ("gemm_blockscaled_gpu.older_gpus_say_not_supported", "not for sm_120")],
            ["gemm_blockscaled_gpu.every_format_verifies_or_says_why_not",
             "tensor_kernels.every_mma_sync_variant_this_gpu_runs_computes_a_times_b"])


class NotAPass(unittest.TestCase, Summary):
    """One thing wrong, everything else as on a passing H100: never PASS."""

    def expect_not_a_pass(self, why):
        self.assertNotEqual(self.proc.returncode, 0, self.summary)
        self.assertIn("NOT A PASS", self.summary)
        self.assertIn(why, self.summary.split("NOT A PASS:")[1])

    def test_one_failing_test(self):
        run_machine(self, "H100", {"FAKE_FAIL": "tensor_kernels.every_wgmma_kernel_computes_a_times_b_on_hopper"})
        self.expect_not_a_pass("GPU test problem")
        self.assertIn("gpuspec_tensor_gpu_test: gpuspec_tensor_gpu_test exited with 1", self.summary)

    def test_a_skip_where_the_test_applies(self):
        # The binary skips a test its declaration says applies here (a bundle without sm_90a).
        run_machine(self, "H100", {"FAKE_CC": "10.0"})
        self.expect_not_a_pass("GPU test problem")
        self.assertIn("every_wgmma_kernel_computes_a_times_b_on_hopper SKIPPED where it applies", self.summary)

    def test_a_step_cut_for_time(self):
        # A burn-in that outlasts its share of a budget scaled down to 50 s.
        run_machine(self, "H100", {"GPU_VALIDATE_BUDGET_S": "30", "FAKE_RUN_SLEEP": "30"})
        self.expect_not_a_pass("steps cut or timed out")

    def test_the_side_by_side_differs(self):
        run_machine(self, "H100", {"FAKE_TORCH_MATMUL_MS": "0.1"})
        self.expect_not_a_pass("side-by-side 1")

    def test_a_binary_missing_from_the_bundle(self):
        run_machine(self, "H100", only={"gpuspec_gemm_cublas_gpu_test"})
        self.expect_not_a_pass("GPU test problem")
        self.assertIn("gpuspec_tensor_gpu_test: declared for this call, not among the test binaries", self.summary)


class NoGpuStandIn(unittest.TestCase, Summary):
    def test_no_gpu_is_exit_3_and_runs_no_test(self):
        tmp_dir = tempfile.TemporaryDirectory()
        self.addCleanup(tmp_dir.cleanup)
        tmp = Path(tmp_dir.name)
        env = {"FAKE_TEST_CALLS": str(tmp / "tests.txt"), "FAKE_SKIP_ALL": "1"}
        self.proc, _, _, self.summary = run_script(tmp, FAILING_SMI, stand_in_gpu_build(tmp), env)
        self.assertEqual(self.proc.returncode, 3, self.summary)
        self.assertIn("NO GPU on this machine", self.summary)
        self.assertNotIn("NOTE: PASS", self.summary)


class TheRerun(unittest.TestCase, Summary):
    """--rerun: the GPU tests of device code that ran before; no quick suite, PyTorch or burn-in."""

    def test_runs_the_rerun_tests_and_passes(self):
        run_machine(self, "H100", args=("--rerun",))
        self.assertEqual(self.proc.returncode, 0, self.summary + self.proc.stdout[-3000:])
        runs = "\n".join(runs_of(self.calls))
        self.assertIn("gpuspec_compute_gpu_test", runs)
        self.assertIn("gpuspec_collective_gpu_test", runs)
        self.assertNotIn("gpuspec_tensor_gpu_test", runs)
        self.assertIn("transfer_p2p_test.two_gpus_verify_every_byte_of_their_pairs: needs 2 GPUs", self.summary)
        self.assertNotIn("two_gpus_verify_every_byte_of_their_pairs", runs)
        for step in ("quick-suite", "burnin", "torch-side-by-side"):
            self.assertNotIn(f"\n{step} ", self.summary)


class Fp8Gemms(unittest.TestCase, Summary):
    """Issue 19.6's step: the cuBLASLt FP8 GEMMs' test run on its own; it must pass, each test."""

    def test_a_failing_fp8_gemm_is_not_a_pass(self):
        run_machine(self, "H100", {"FAKE_FAIL": "gemm_fp8_gpu.fp8_pairs_verify"})
        line, fields = self.step("fp8-gemms")
        self.assertEqual(fields[1], "1", line)
        self.assertIn("the cuBLASLt FP8 GEMMs (fp8-gemms) did not all verify", self.summary)
        self.assertNotEqual(self.proc.returncode, 0)

    def test_every_test_skipped_is_not_verified(self):
        # The binary exits 0 with every test skipped: 0 of 1 passed, not a pass.
        run_machine(self, "H100", {"FAKE_SKIP_ALL": "1"})
        line, fields = self.step("fp8-gemms")
        self.assertEqual(fields[1], "0", line)
        self.assertIn("fp8-gemms: 0 of 1 selected tests passed", self.summary)
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
        self.assertLessEqual(worst, 300, f"budget {budget} + kill-after {kill_after} + recovery: {worst} s")


def load_tests(loader, standard_tests, pattern):
    """GPU_VALIDATE_TEST_PART picks the half CTest runs: "dry-run" the classes that run this
    build's own gpuspec (WithoutGpu), the half a build without CUDA must pass again; "stand-ins"
    every other class (stand-in binaries only, the same in every build); unset, all of them."""
    part = os.environ.get("GPU_VALIDATE_TEST_PART", "")
    if part not in ("", "dry-run", "stand-ins"):
        raise SystemExit(f"GPU_VALIDATE_TEST_PART={part!r}: expected dry-run or stand-ins")
    suite = unittest.TestSuite()
    for case in standard_tests:  # one suite per class
        for test in case:
            uses_build = isinstance(test, WithoutGpu)
            if part == "" or (part == "dry-run") == uses_build:
                suite.addTest(test)
    return suite


if __name__ == "__main__":
    unittest.main()
