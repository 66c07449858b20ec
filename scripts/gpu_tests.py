#!/usr/bin/env python3
"""What each GPU test needs, and which of them apply to this machine (tests/gpu/gpu_tests.json).

gpu-validate.sh runs a GPU test only where it applies, so that a skip among the tests it ran is a
failure, with no list of acceptable skip messages. The declarations are read here without running
a test binary; a binary's tests are what its --gtest_list_tests prints.

  gpu_tests.py binaries TABLE CALL
      the binaries of CALL (first or rerun) in the order to run them, one per line; then each
      binary never run, as "NOT_RUN<TAB>name<TAB>why".
  gpu_tests.py select TABLE BINARY LISTING --cc 9.0 --gpus 1 --nccl 0|1 [--only GLOB] [--except GLOB]
      LISTING: the binary's --gtest_list_tests output. Prints one line per test:
      "RUN<TAB>name", "NOT_RUN<TAB>name<TAB>why" ("not for sm_90", "needs 2 GPUs"), or
      "UNDECLARED<TAB>name" (no rule matches it: a failure of the call).
  gpu_tests.py check TABLE CMAKELISTS
      CI: every binary labelled gpu in tests/gpu/CMakeLists.txt is declared, every test in its
      sources matches one of its rules, and every declared binary exists. Exit 1 with the list.
"""
import argparse
import fnmatch
import json
import re
import sys
from pathlib import Path


def load(table):
    with open(table) as f:
        doc = json.load(f)
    return {b["name"]: b for b in doc["binaries"]}, [b["name"] for b in doc["binaries"]]


def cc_value(text):
    major, _, minor = str(text).partition(".")
    return int(major) * 10 + int(minor or 0)


def cc_text(value):
    return f"sm_{value // 10}{value % 10}"


def why_not(rule, cc, gpus, nccl):
    """Why the rule's test does not apply to a machine with compute capability cc (sm number),
    gpus GPUs and NCCL found or not; None when it applies."""
    if "cc" in rule and cc not in {cc_value(c) for c in rule["cc"]}:
        return f"not for {cc_text(cc)} (for {', '.join(cc_text(cc_value(c)) for c in rule['cc'])})"
    if "cc_min" in rule and cc < cc_value(rule["cc_min"]):
        return f"not for {cc_text(cc)} (needs {cc_text(cc_value(rule['cc_min']))} or newer)"
    if "cc_below" in rule and cc >= cc_value(rule["cc_below"]):
        return f"not for {cc_text(cc)} (for GPUs before {cc_text(cc_value(rule['cc_below']))})"
    if gpus < rule.get("gpus", 1):
        return f"needs {rule['gpus']} GPUs (this machine has {gpus})"
    if rule.get("nccl") and not nccl:
        return "needs NCCL (none was found on this machine)"
    return None


def rule_of(binary, name):
    for rule in binary["tests"]:
        if fnmatch.fnmatchcase(name, rule["filter"]):
            return rule
    return None


def listed_tests(text):
    """Full names from --gtest_list_tests: "Suite." lines, then indented test lines; comments
    ("# TypeParam = float") dropped."""
    names, suite = [], None
    for line in text.splitlines():
        body = line.split("#", 1)[0].rstrip()
        if not body.strip():
            continue
        if not line.startswith(" "):
            suite = body.strip()
        elif suite is not None:
            names.append(suite + body.strip())
    return names


def cmd_binaries(args):
    binaries, order = load(args.table)
    for name in order:
        if "not_run" not in binaries[name] and binaries[name].get("call") == args.call:
            print(name)
    for name in order:
        if "not_run" in binaries[name]:
            print(f"NOT_RUN\t{name}\t{binaries[name]['not_run']}")
    return 0


def cmd_select(args):
    binaries, _ = load(args.table)
    binary = binaries.get(args.binary)
    names = listed_tests(Path(args.listing).read_text())
    cc = cc_value(args.cc)
    for name in names:
        if args.only and not fnmatch.fnmatchcase(name, args.only):
            continue
        if args.exclude and fnmatch.fnmatchcase(name, args.exclude):
            print(f"NOT_RUN\t{name}\tanother step ran it")
            continue
        rule = rule_of(binary, name) if binary else None
        if rule is None:
            print(f"UNDECLARED\t{name}")
            continue
        why = why_not(rule, cc, args.gpus, args.nccl == 1)
        print(f"NOT_RUN\t{name}\t{why}" if why else f"RUN\t{name}")
    return 0


# TEST(suite, name), TEST_F, TEST_P, TYPED_TEST and TYPED_TEST_P: the suite and the test.
TEST_MACRO = re.compile(r"^\s*(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)


def gpu_binaries(cmake_text):
    """{binary: [sources]} of every gpuspec_add_test(... LABEL gpu ...) in a CMakeLists.txt."""
    out = {}
    for call in re.finditer(r"gpuspec_add_test\((.*?)\)", cmake_text, re.S):
        words = call.group(1).split()
        if "NAME" not in words or "LABEL" not in words:
            continue
        if words[words.index("LABEL") + 1] != "gpu":
            continue
        name = words[words.index("NAME") + 1]
        sources = []
        if "SOURCES" in words:
            for w in words[words.index("SOURCES") + 1:]:
                if w.isupper():
                    break
                sources.append(w)
        out[name] = sources
    return out


def cmd_check(args):
    binaries, _ = load(args.table)
    cmake = Path(args.cmakelists)
    declared_gpu = gpu_binaries(cmake.read_text())
    problems = []
    for name, sources in sorted(declared_gpu.items()):
        if name not in binaries:
            problems.append(f"{name}: a GPU test binary with no declaration in {args.table}")
            continue
        b = binaries[name]
        if "not_run" not in b and b.get("call") not in ("first", "rerun"):
            problems.append(f"{name}: call must be first or rerun (or the binary not_run, with why)")
        for source in sources:
            for m in TEST_MACRO.finditer((cmake.parent / source).read_text()):
                # A typed or parameterised suite is listed as Suite/0.test or Prefix/Suite.test/0.
                test = f"{m.group(2)}.{m.group(3)}"
                candidates = [test, f"{m.group(2)}/0.{m.group(3)}", f"P/{m.group(2)}.{m.group(3)}/0"]
                if not any(rule_of(b, c) for c in candidates):
                    problems.append(f"{name}: {test} ({source}) matches none of its rules")
    for name in binaries:
        if name not in declared_gpu:
            problems.append(f"{name}: declared, but no GPU test binary of {cmake} has that name")
    for p in problems:
        print(p)
    print(f"{len(declared_gpu)} GPU test binaries, {len(problems)} problem(s)")
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("binaries")
    p.add_argument("table")
    p.add_argument("call", choices=("first", "rerun"))
    p.set_defaults(run=cmd_binaries)
    p = sub.add_parser("select")
    p.add_argument("table")
    p.add_argument("binary")
    p.add_argument("listing")
    p.add_argument("--cc", required=True)
    p.add_argument("--gpus", type=int, required=True)
    p.add_argument("--nccl", type=int, choices=(0, 1), required=True)
    p.add_argument("--only")
    p.add_argument("--except", dest="exclude")
    p.set_defaults(run=cmd_select)
    p = sub.add_parser("check")
    p.add_argument("table")
    p.add_argument("cmakelists")
    p.set_defaults(run=cmd_check)
    args = parser.parse_args()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
