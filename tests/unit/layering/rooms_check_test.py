#!/usr/bin/env python3
"""rooms_check.py on made-up trees: a clean two-room tree passes, and each rule, broken once,
fails naming the file."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

CHECKER = Path(__file__).with_name('rooms_check.py')

TABLE = '''<!-- rooms -->
| layer | folder | library | include prefix | namespace |
| --- | --- | --- | --- | --- |
| 1 | `low` | `gpuspec_low` | `gpuspec/low` | `gpuspec::low` |
| 2 | `high` | `gpuspec_high` | `gpuspec/high` | `gpuspec::high` |
<!-- /rooms -->
'''


def make_tree(root: Path):
    (root / 'docs').mkdir()
    (root / 'docs' / 'architecture.md').write_text('# Rooms\n\n' + TABLE)
    for name, links in (('low', ''), ('high', ' PUBLIC gpuspec_low')):
        (root / name / 'src').mkdir(parents=True)
        (root / name / 'include' / 'gpuspec' / name).mkdir(parents=True)
        (root / name / 'CMakeLists.txt').write_text(
            f'add_library(gpuspec_{name} src/{name}.cpp)\n'
            f'target_link_libraries(gpuspec_{name}{links})\n')
        (root / name / 'include' / 'gpuspec' / name / f'{name}.hpp').write_text(
            f'#pragma once\nnamespace gpuspec::{name} {{\nint f();\n}} // namespace gpuspec::{name}\n')
    (root / 'low' / 'src' / 'low.cpp').write_text(
        '#include "gpuspec/low/low.hpp"\nnamespace gpuspec::low {\nnamespace {\n}\n'
        'int f() { return 1; }\n} // namespace gpuspec::low\n')
    (root / 'high' / 'src' / 'high.cpp').write_text(
        '#include "gpuspec/high/high.hpp"\n#include "gpuspec/low/low.hpp"\n'
        'namespace gpuspec::high {\nint f() { return low::f(); }\n} // namespace gpuspec::high\n')


def run(root):
    p = subprocess.run([sys.executable, str(CHECKER), str(root)], capture_output=True, text=True)
    return p.returncode, p.stdout


class RoomsCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        make_tree(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def assert_fails(self, where, what):
        code, out = run(self.root)
        self.assertEqual(code, 1, out)
        self.assertIn(where, out)
        self.assertIn(what, out)

    def test_clean_tree_passes(self):
        code, out = run(self.root)
        self.assertEqual(code, 0, out)

    def test_lower_room_including_a_higher_one_fails(self):
        p = self.root / 'low' / 'src' / 'low.cpp'
        p.write_text('#include "gpuspec/high/high.hpp"\n' + p.read_text())
        self.assert_fails('low/src/low.cpp:1', 'a room above low')

    def test_lower_room_linking_a_higher_one_fails(self):
        p = self.root / 'low' / 'CMakeLists.txt'
        p.write_text(p.read_text() + 'target_link_libraries(gpuspec_low PRIVATE gpuspec_high)\n')
        self.assert_fails('low/CMakeLists.txt', 'links gpuspec_high')

    def test_namespace_of_another_room_fails(self):
        p = self.root / 'high' / 'src' / 'extra.cpp'
        p.write_text('namespace gpuspec::low {\n}\n')
        self.assert_fails('high/src/extra.cpp:1', "the room's is gpuspec::high")

    def test_inline_room_namespace_passes(self):
        p = self.root / 'high' / 'src' / 'extra.cpp'
        p.write_text('namespace gpuspec::inline high::detail {\n}\n')
        code, out = run(self.root)
        self.assertEqual(code, 0, out)

    def test_header_outside_the_prefix_fails(self):
        p = self.root / 'low' / 'include' / 'gpuspec' / 'other.hpp'
        p.write_text('#pragma once\n')
        self.assert_fails('low/include/gpuspec/other.hpp', 'outside include/gpuspec/low/')

    def test_second_library_in_a_room_fails(self):
        p = self.root / 'high' / 'CMakeLists.txt'
        p.write_text(p.read_text() + 'add_library(gpuspec_other src/high.cpp)\n')
        self.assert_fails('high/CMakeLists.txt', 'another library, gpuspec_other')

    def test_include_of_no_room_fails(self):
        p = self.root / 'high' / 'src' / 'high.cpp'
        p.write_text('#include "gpuspec/nowhere/x.hpp"\n' + p.read_text())
        self.assert_fails('high/src/high.cpp:1', "no room's prefix")

    def test_long_file_in_a_reports_room_fails(self):
        doc = self.root / 'docs' / 'architecture.md'
        doc.write_text(doc.read_text().replace(
            '<!-- /rooms -->', '| 3 | `reports/judge` | `gpuspec_judge` | `gpuspec/judge` | `gpuspec::judge` |\n<!-- /rooms -->'))
        room = self.root / 'reports' / 'judge'
        (room / 'src').mkdir(parents=True)
        (room / 'include' / 'gpuspec' / 'judge').mkdir(parents=True)
        (room / 'CMakeLists.txt').write_text('add_library(gpuspec_judge src/a.cpp)\n')
        (room / 'src' / 'a.cpp').write_text('namespace gpuspec::judge {\n' + '\n' * 598 + '}\n')
        code, out = run(self.root)
        self.assertEqual(code, 0, out)  # 600 lines: the limit itself passes
        (room / 'src' / 'a.cpp').write_text('namespace gpuspec::judge {\n' + '\n' * 599 + '}\n')
        self.assert_fails('reports/judge/src/a.cpp', '601 lines, over 600')
        long_elsewhere = self.root / 'low' / 'src' / 'long.cpp'
        long_elsewhere.write_text('\n' * 700)
        (room / 'src' / 'a.cpp').write_text('namespace gpuspec::judge {\n}\n')
        code, out = run(self.root)
        self.assertEqual(code, 0, out)  # the limit is the reports rooms'


if __name__ == '__main__':
    unittest.main()
