#!/usr/bin/env python3
"""The measures of docs/architecture.md's before/after table (issue 18), counted from a tree.

Usage:
  scripts/architecture-metrics.py [--tree DIR | --rev REV] [--list]

  --tree DIR  the source tree to measure (default: the checkout this script lives in)
  --rev REV   a revision of this script's checkout, exported with `git archive` to a
              temporary folder and measured there
  --list      after the table, every place each row counts (file:line and name)

Exit status: 0 with the table printed; 2 when lizard cannot be imported (pip install lizard) or
the tree or revision cannot be read.

What it reads: the product's C++ and CUDA sources (.cpp .cc .hpp .h .cu .cuh) under benches/,
cli/, collectives/, reports/ and kernels/; never tests/, fuzz/, scripts/ or docs/. Before the
regular expressions below are applied, comments, string and character literals (raw strings
too) and #include lines are blanked, so a pattern named in a comment or a message never counts.
Lines are counted once however many patterns they match.

The rows, exactly:
- functions over 80 lines: lizard's `length` (first to last line of the function, as
  `python3 -m lizard -L 80` warns on) over 80, in product code outside kernels/, setting aside
  data tables. A data table is a function at least 3/4 of whose non-blank lines are table rows:
  a brace initializer (`{...},`) or a string literal alone on its line. .cu and .cuh files are
  read as C++ (lizard knows them by no extension of their own).
- places that compute an achieved/ceiling fraction: product lines (kernels/ included) matching
    (a) `\\b\\w*(median|achieved|measured)\\s*/`  a median, achieved or measured value divided
        by something (`r.stats.median / *ceiling`, `achieved / peak`), or
    (b) `[^)\\s]\\s*/\\s*\\*?\\s*(\\w+(\\.|->|::))*\\w*(REFERENCE)\\w*`, REFERENCE one of
        ceiling|peak|reference|expected|bound|target:
        something other than a parenthesised difference divided by a value named as a
        reference (`value / reference`, `x / *v.expected`). A parenthesised difference over a
        reference (`(reference - with) / reference`) is a relative change, not a fraction of a
        ceiling, and is not counted; nor are `(x - median) / mad` or `(new - old) / old`.
- spec-table load call sites: calls of `load_spec_table(` or `load_specs(` in product code
  (tests and fuzz targets are not product), not counting the functions' own declarations and
  definitions (the name preceded by a type: `>` or an identifier other than `return`).
  The rules file's loads (`load_expectations(`) are a row of their own, counted the same way.
- `stream_array_bytes`: declarations (a type then the name, then `=`, `{` or `;`: a struct
  member or variable), and every product line that names it, with the files both stand in.
- event pairing: call sites of `cudaEventElapsedTime(` and of the harness's
  `event::elapsed_seconds(` (kernels/'s wrapper around it), not counting the wrapper's
  definition; and how many files under benches/families/ hold one (families that pair their
  own timing events).
- `device_seconds` definitions: `double`, `float` or `auto` then `device_seconds(`.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

PRODUCT_DIRS = ("benches", "cli", "collectives", "reports", "kernels")
SOURCE_EXTENSIONS = (".cpp", ".cc", ".hpp", ".h", ".cu", ".cuh")
CUDA_EXTENSIONS = (".cu", ".cuh")
MAX_FUNCTION_LINES = 80
DATA_TABLE_SHARE = 0.75

FRACTION_PATTERNS = (
    re.compile(r"\b\w*(median|achieved|measured)\s*/"),
    re.compile(
        r"[^)\s]\s*/\s*\*?\s*(\w+(\.|->|::))*\w*(ceiling|peak|reference|expected|bound|target)\w*"
    ),
)
LOAD_CALL = re.compile(r"\b(load_spec_table|load_specs)\s*\(")
RULES_LOAD_CALL = re.compile(r"\bload_expectations\s*\(")
STREAM_BYTES = re.compile(r"\bstream_array_bytes\b")
STREAM_BYTES_DECLARATION = re.compile(r"[\w:>]\s+stream_array_bytes\s*(=|\{|;)")
EVENT_PAIRING = re.compile(r"\b(cudaEventElapsedTime|elapsed_seconds)\s*\(")
EVENT_PAIRING_DEFINITION = re.compile(r"\b(double|float|void)\s+elapsed_seconds\s*\(")
DEVICE_SECONDS_DEFINITION = re.compile(r"\b(double|float|auto)\s+device_seconds\s*\(")
TABLE_ROW = re.compile(r'^\s*(\{.*\}\s*,?|"[^"]*"\s*,?)\s*$')
IDENTIFIER_BEFORE = re.compile(r"(\w+)\s*$")


def scrub(text: str) -> str:
    """`text` with comments, literal contents and #include lines blanked, lines kept."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        prev = text[i - 1] if i > 0 else " "
        if c == "/" and nxt == "/":
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif c == "/" and nxt == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "R" and nxt == '"' and not (prev.isalnum() or prev == "_"):
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2 : open_paren] if open_paren >= 0 else ""
            close = text.find(")" + delimiter + '"', open_paren + 1) if open_paren >= 0 else -1
            end = n if close < 0 else close + len(delimiter) + 2
            out.append('R"' + re.sub(r"[^\n]", " ", text[i + 2 : end - 1]) + '"')
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(c + " " * max(end - i - 2, 0) + (c if end - i >= 2 else ""))
            i = end
        else:
            out.append(c)
            i += 1
    lines = "".join(out).split("\n")
    return "\n".join("" if line.lstrip().startswith("#include") else line for line in lines)


@dataclass
class source:
    path: str  # relative to the tree, with '/'
    text: str
    code: list[str] = field(default_factory=list)  # scrubbed lines


@dataclass
class row:
    measure: str
    count: int
    files: int | None
    places: list[str]


def product_sources(tree: str) -> list[source]:
    found: list[source] = []
    for top in PRODUCT_DIRS:
        for folder, dirs, files in os.walk(os.path.join(tree, top)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(SOURCE_EXTENSIONS):
                    continue
                full = os.path.join(folder, name)
                with open(full, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                rel = os.path.relpath(full, tree).replace(os.sep, "/")
                found.append(source(rel, text, scrub(text).split("\n")))
    return found


def is_data_table(lines: list[str]) -> bool:
    body = [line for line in lines if line.strip()]
    rows = sum(1 for line in body if TABLE_ROW.match(line))
    return bool(body) and rows >= DATA_TABLE_SHARE * len(body)


def long_functions(sources: list[source], lizard) -> tuple[list[str], list[str]]:
    """(functions over the limit, data tables over it that were set aside), as places."""
    over: list[str] = []
    tables: list[str] = []
    for s in sources:
        if s.path.startswith("kernels/"):
            continue
        # lizard picks its reader by extension: CUDA is read as the C++ it is.
        name = s.path + ".cpp" if s.path.endswith(CUDA_EXTENSIONS) else s.path
        analysed = lizard.analyze_file.analyze_source_code(name, s.text)
        lines = s.text.split("\n")
        for fn in analysed.function_list:
            if fn.length <= MAX_FUNCTION_LINES:
                continue
            place = f"{s.path}:{fn.start_line} {fn.name} ({fn.length} lines)"
            body = lines[fn.start_line - 1 : fn.end_line]
            (tables if is_data_table(body) else over).append(place)
    return over, tables


def matching_lines(sources: list[source], accept) -> list[tuple[source, int, str]]:
    hits = []
    for s in sources:
        for number, line in enumerate(s.code, start=1):
            if accept(s, line):
                hits.append((s, number, line))
    return hits


def places(hits) -> list[str]:
    return [f"{s.path}:{number}: {s.text.split(chr(10))[number - 1].strip()}"
            for s, number, _ in hits]


def files_of(hits) -> int:
    return len({s.path for s, _, _ in hits})


def is_call(line: str, match: re.Match) -> bool:
    """A call, not the function's own declaration or definition (a type before the name)."""
    before = line[: match.start()].rstrip()
    if before.endswith("::"):
        before = re.sub(r"(\w+::)+$", "", before).rstrip()
    if before.endswith(">"):
        return False
    word = IDENTIFIER_BEFORE.search(before)
    return word is None or word.group(1) in ("return", "co_return")


def call_rows(sources, pattern: re.Pattern, title: str) -> row:
    product = [s for s in sources if not s.path.startswith("kernels/")]
    hits = matching_lines(
        product, lambda s, line: any(is_call(line, m) for m in pattern.finditer(line))
    )
    return row(title, len(hits), files_of(hits), places(hits))


def measure(tree: str, lizard) -> list[row]:
    sources = product_sources(tree)
    rows: list[row] = []

    over, tables = long_functions(sources, lizard)
    over_files = len({p.split(":", 1)[0] for p in over})
    rows.append(row(f"product functions over {MAX_FUNCTION_LINES} lines (outside kernels/ and data "
                    f"tables; {len(tables)} data tables set aside)", len(over), over_files,
                    over + [f"(data table) {t}" for t in tables]))

    fractions = matching_lines(
        sources, lambda s, line: any(p.search(line) for p in FRACTION_PATTERNS)
    )
    rows.append(row("places that compute an achieved/ceiling fraction", len(fractions),
                    files_of(fractions), places(fractions)))

    rows.append(call_rows(sources, LOAD_CALL, "spec-table load call sites (`load_spec_table(`, "
                          "`load_specs(`)"))
    rows.append(call_rows(sources, RULES_LOAD_CALL, "rules-file load call sites "
                          "(`load_expectations(`)"))

    declarations = matching_lines(
        sources, lambda s, line: bool(STREAM_BYTES_DECLARATION.search(line))
    )
    rows.append(row("`stream_array_bytes` declarations", len(declarations), files_of(declarations),
                    places(declarations)))
    mentions = matching_lines(sources, lambda s, line: bool(STREAM_BYTES.search(line)))
    rows.append(row("`stream_array_bytes` lines", len(mentions), files_of(mentions),
                    places(mentions)))

    pairing = matching_lines(
        sources,
        lambda s, line: bool(EVENT_PAIRING.search(line))
        and not EVENT_PAIRING_DEFINITION.search(line),
    )
    rows.append(row("event pairing call sites (`cudaEventElapsedTime(`, `elapsed_seconds(`)",
                    len(pairing), files_of(pairing), places(pairing)))
    families = sorted({s.path for s, _, _ in pairing if s.path.startswith("benches/families/")})
    rows.append(row("family files that pair their own events", len(families), None, families))

    seconds = matching_lines(sources, lambda s, line: bool(DEVICE_SECONDS_DEFINITION.search(line)))
    rows.append(row("`device_seconds` definitions", len(seconds), files_of(seconds),
                    places(seconds)))
    return rows


def render(rows: list[row], title: str, listing: bool) -> str:
    out = [f"Architecture measures of {title}", "", "| measure | count | files |",
           "| --- | ---: | ---: |"]
    for r in rows:
        out.append(f"| {r.measure} | {r.count} | {'' if r.files is None else r.files} |")
    if listing:
        for r in rows:
            out += ["", f"{r.measure}:"]
            out += [f"- {p}" for p in r.places] or ["- (none)"]
    return "\n".join(out) + "\n"


def export_revision(checkout: str, rev: str, into: str) -> None:
    archive = subprocess.run(["git", "-C", checkout, "archive", "--format=tar", rev],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {rev}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--tree", help="the source tree to measure")
    where.add_argument("--rev", help="a revision of this checkout, measured from git archive")
    parser.add_argument("--list", action="store_true", help="list every place each row counts")
    args = parser.parse_args(argv)

    try:
        import lizard  # noqa: PLC0415 (optional dependency, checked here)
    except ImportError:
        print("architecture-metrics.py: lizard is not installed (pip install lizard)",
              file=sys.stderr)
        return 2

    checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        if args.rev:
            with tempfile.TemporaryDirectory(prefix="gpuspec-metrics-") as tree:
                export_revision(checkout, args.rev, tree)
                rows = measure(tree, lizard)
            title = f"revision {args.rev}"
        else:
            tree = os.path.abspath(args.tree) if args.tree else checkout
            if not all(os.path.isdir(os.path.join(tree, d)) for d in ("benches", "reports")):
                raise RuntimeError(f"{tree}: not a gpuspec source tree (no benches/ and reports/)")
            rows = measure(tree, lizard)
            title = f"tree {args.tree}" if args.tree else "this checkout"
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        print(f"architecture-metrics.py: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(render(rows, title, args.list))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
