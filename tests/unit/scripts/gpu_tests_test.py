#!/usr/bin/env python3
"""scripts/gpu_tests.py: every GPU test binary of tests/gpu and every test in its sources has a
declaration (what it needs) in tests/gpu/gpu_tests.json, which gpu-validate.sh reads to run only
the tests that apply to a machine; and the selection on a made-up listing.

  gpu_tests_test.py REPO_ROOT
"""
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(sys.argv.pop(1)).resolve()
SCRIPT = REPO / "scripts" / "gpu_tests.py"
TABLE = REPO / "tests" / "gpu" / "gpu_tests.json"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


class Declarations(unittest.TestCase):
    def test_every_gpu_test_of_the_tree_is_declared(self):
        done = run("check", TABLE, REPO / "tests" / "gpu" / "CMakeLists.txt")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)

    def check_copy(self, change_table=None, extra_source=None):
        """`check` on a copy of tests/gpu with one thing changed."""
        with tempfile.TemporaryDirectory() as tmp:
            gpu = Path(tmp) / "gpu"
            shutil.copytree(REPO / "tests" / "gpu", gpu)
            table = json.loads(TABLE.read_text())
            if change_table:
                change_table(table)
            (gpu / "gpu_tests.json").write_text(json.dumps(table))
            if extra_source:
                with open(gpu / extra_source[0], "a") as f:
                    f.write(extra_source[1])
            return run("check", gpu / "gpu_tests.json", gpu / "CMakeLists.txt")

    def test_a_binary_without_a_declaration_fails(self):
        def drop(table):
            table["binaries"] = [b for b in table["binaries"] if b["name"] != "gpuspec_transfer_gpu_test"]
        done = self.check_copy(drop)
        self.assertEqual(done.returncode, 1)
        self.assertIn("gpuspec_transfer_gpu_test: a GPU test binary with no declaration", done.stdout)

    def test_a_test_no_rule_matches_fails(self):
        def narrow(table):
            for b in table["binaries"]:
                if b["name"] == "gpuspec_tensor_gpu_test":
                    b["tests"] = [r for r in b["tests"] if r["filter"] != "*"]
        done = self.check_copy(narrow, ("tensor_mma_test.cpp", "\nTEST(new_suite, new_test) {}\n"))
        self.assertEqual(done.returncode, 1)
        self.assertIn("gpuspec_tensor_gpu_test: new_suite.new_test (tensor_mma_test.cpp) matches none", done.stdout)


LISTING = """tensor_kernels.
  every_wgmma_kernel_computes_a_times_b_on_hopper
  every_tcgen05_kernel_computes_a_times_b_on_blackwell_10x
stream_fixture/0.  # TypeParam = float
  poison_is_nan
"""


class Select(unittest.TestCase):
    def select(self, cc, gpus=1, binary="gpuspec_tensor_gpu_test", listing=LISTING):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "list.txt"
            path.write_text(listing)
            done = run("select", TABLE, binary, path, "--cc", cc, "--gpus", gpus, "--nccl", 0)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.splitlines()

    def test_sm_90_runs_wgmma_and_says_why_not_tcgen05(self):
        lines = self.select("9.0")
        self.assertIn("RUN\ttensor_kernels.every_wgmma_kernel_computes_a_times_b_on_hopper", lines)
        self.assertIn("NOT_RUN\ttensor_kernels.every_tcgen05_kernel_computes_a_times_b_on_blackwell_10x\t"
                      "not for sm_90 (for sm_100, sm_103)", lines)
        self.assertIn("RUN\tstream_fixture/0.poison_is_nan", lines)

    def test_needs_two_gpus(self):
        lines = self.select("9.0", 1, "gpuspec_transfer_p2p_gpu_test",
                            "transfer_p2p_test.\n  two_gpus_verify_every_byte_of_their_pairs\n")
        self.assertEqual(lines, ["NOT_RUN\ttransfer_p2p_test.two_gpus_verify_every_byte_of_their_pairs\t"
                                 "needs 2 GPUs (this machine has 1)"])

    def test_an_undeclared_binary_is_said(self):
        lines = self.select("9.0", 1, "gpuspec_new_gpu_test", "a.\n  b\n")
        self.assertEqual(lines, ["UNDECLARED\ta.b"])


if __name__ == "__main__":
    unittest.main()
