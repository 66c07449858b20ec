#!/usr/bin/env python3
"""scripts/architecture-metrics.py: its table on this repository, and what each row counts on a
made-up tree (a pattern in a comment or a string is not a place; a relative change is not a
fraction; a declaration is not a call; a data table is not a long function).

Usage: architecture_metrics_test.py <source dir>. Exit 77 (skipped) when lizard is missing.
"""

import os
import re
import subprocess
import sys
import tempfile

try:
    import lizard  # noqa: F401 (only whether it imports)
except ImportError:
    print("lizard is not installed: skipped")
    sys.exit(77)

SOURCE = os.path.abspath(sys.argv[1])
SCRIPT = os.path.join(SOURCE, "scripts", "architecture-metrics.py")
failures = []


def run(*args, env=None):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          env=env, check=False)


def expect(what, ok):
    if not ok:
        failures.append(what)


def counts(table):
    """measure -> (count, files) from the printed markdown table."""
    out = {}
    for line in table.splitlines():
        m = re.fullmatch(r"\| (.+) \| (\d+) \| (\d*) \|", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)) if m.group(3) else None)
    return out


ROWS = (
    "places that compute an achieved/ceiling fraction",
    "spec-table load call sites (`load_spec_table(`, `load_specs(`)",
    "rules-file load call sites (`load_expectations(`)",
    "`stream_array_bytes` declarations",
    "`stream_array_bytes` lines",
    "event pairing call sites (`cudaEventElapsedTime(`, `elapsed_seconds(`)",
    "family files that pair their own events",
    "`device_seconds` definitions",
)


def row_count(table, prefix):
    return next((v for k, v in counts(table).items() if k.startswith(prefix)), None)


# This repository: the table, every row, numbers in each.
repo = run("--tree", SOURCE)
expect(f"on the repo: exit 0 (got {repo.returncode}: {repo.stderr})", repo.returncode == 0)
expect("on the repo: a markdown table", "| measure | count | files |" in repo.stdout)
found = counts(repo.stdout)
for name in ROWS:
    expect(f"on the repo: row {name!r}", name in found)
expect("on the repo: the long-function row",
       row_count(repo.stdout, "product functions over 80 lines") is not None)
listed = run("--tree", SOURCE, "--list")
expect("--list names the places", listed.returncode == 0 and "\n- " in listed.stdout)

# A made-up tree whose every row has a known count.
FILES = {
    "reports/model/src/reference.cpp": """
// r.stats.median / *ceiling in a comment is no place
double fraction(const result& r, double ceiling) {
  const char* why = "median / ceiling in a message is none either";
  return r.higher_is_better ? r.stats.median / ceiling : ceiling / r.stats.median;
}
double behind(double reference, double with) { return (reference - with) / reference; }
double z(double x, double median, double mad) { return (x - median) / mad; }
double of_peak(double achieved, double peak) { return achieved / peak; }
outcome<spec_table> load_spec_table(const std::filesystem::path& file) { return {}; }
""",
    "reports/model/include/gpuspec/reports/model/spec_table.hpp": """
[[nodiscard]] outcome<spec_table> load_spec_table(const std::filesystem::path& file);
struct options { std::int64_t stream_array_bytes = 1; };
""",
    "cli/src/cmd_check.cpp": """
int run_check() {
  auto specs = reports::load_spec_table(path);
  auto rules = reports::load_expectations(path);
  o.stream_array_bytes = 2;
  return 0;
}
""",
    "benches/families/latency.cpp": """
template <class Enqueue> double device_seconds(kernels::stream_ref s, const Enqueue& enqueue) {
  return kernels::event::elapsed_seconds(start, stop);
}
""",
    "benches/families/table.cpp": "const char* names() {\n" + "".join(
        f'  {{"row{i}", {i}}},\n' for i in range(90)) + "}\n",
    "benches/families/long.cpp": "void long_body() {\n" + "".join(
        f"  step({i});\n" for i in range(90)) + "}\n",
    "kernels/src/k.cu": "void kernel_body() {\n" + "".join(
        f"  step({i});\n" for i in range(90)) + "}\n",
    "tests/unit/t.cpp": "void t() { load_spec_table(p); auto x = median / ceiling; }\n",
}
with tempfile.TemporaryDirectory() as tree:
    for path, text in FILES.items():
        os.makedirs(os.path.dirname(os.path.join(tree, path)), exist_ok=True)
        with open(os.path.join(tree, path), "w", encoding="utf-8") as f:
            f.write(text)
    made = run("--tree", tree, "--list")
    expect(f"made-up tree: exit 0 ({made.stderr})", made.returncode == 0)
    want = {
        "places that compute an achieved/ceiling fraction": (2, 1),
        "spec-table load call sites (`load_spec_table(`, `load_specs(`)": (1, 1),
        "rules-file load call sites (`load_expectations(`)": (1, 1),
        "`stream_array_bytes` declarations": (1, 1),
        "`stream_array_bytes` lines": (2, 2),
        "event pairing call sites (`cudaEventElapsedTime(`, `elapsed_seconds(`)": (1, 1),
        "family files that pair their own events": (1, None),
        "`device_seconds` definitions": (1, 1),
    }
    got = counts(made.stdout)
    for name, value in want.items():
        expect(f"made-up tree: {name} is {value}, got {got.get(name)}", got.get(name) == value)
    expect("made-up tree: one long function (kernels/ and the data table set aside), got "
           f"{row_count(made.stdout, 'product functions over 80 lines')}",
           row_count(made.stdout, "product functions over 80 lines") == (1, 1))
    expect("made-up tree: the data table is named as set aside",
           "1 data tables set aside" in made.stdout and "(data table) benches/families/table.cpp"
           in made.stdout)
    expect("made-up tree: the long function is listed", "long_body (92 lines)" in made.stdout)

    # Not a source tree: a clear error, exit 2.
    empty = os.path.join(tree, "empty")
    os.makedirs(empty)
    bad = run("--tree", empty)
    expect(f"not a tree: exit 2 (got {bad.returncode})", bad.returncode == 2)
    expect("not a tree: says so", "not a gpuspec source tree" in bad.stderr)

    # Without lizard: it says so and exits 2.
    shadow = os.path.join(tree, "shadow")
    os.makedirs(shadow)
    with open(os.path.join(shadow, "lizard.py"), "w", encoding="utf-8") as f:
        f.write("raise ImportError('hidden for the test')\n")
    env = dict(os.environ, PYTHONPATH=shadow)
    missing = run("--tree", SOURCE, env=env)
    expect(f"no lizard: exit 2 (got {missing.returncode})", missing.returncode == 2)
    expect("no lizard: says so", "lizard is not installed" in missing.stderr)

for f in failures:
    print("FAIL:", f)
if failures:
    print(repo.stdout)
    sys.exit(1)
print("ok")
