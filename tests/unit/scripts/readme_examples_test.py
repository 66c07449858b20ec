#!/usr/bin/env python3
"""The README's front door stays short and its examples run.

README.md is at most 180 lines, and every command of its "The report tools, tried on the test
fixtures" blocks runs from the checkout with this build's gpuspec, exiting as the README says
(the first block: check of a degraded fixture 2, a regressed diff 2, specs --check 0, a healthy
check 0, health with an Xid 79 on GPU 3 2 and that drain reason; the HTML block writes a page).

Usage: readme_examples_test.py REPO BUILD_DIR
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parents[3]
BUILD = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else REPO / 'build' / 'host-only'
README = REPO / 'README.md'


def section_commands(title):
    text = README.read_text()
    start = text.index(title)
    end = text.find('\n## ', start + 1)
    body = text[start:end if end > 0 else len(text)]
    commands = []
    for block in re.findall(r'```sh\n(.*?)```', body, re.S):
        commands += [line for line in block.splitlines() if line.strip() and not line.startswith('#')]
    return commands


def run(line, cwd):
    """One README command line, with this build folder for build/default and build/host-only."""
    line = line.split('  #')[0]
    words = shlex.split(line)
    env = dict(os.environ)
    while words and re.match(r'^[A-Z_]+=', words[0]):
        key, value = words.pop(0).split('=', 1)
        env[key] = value
    words = [re.sub(r'^build/(default|host-only)/', str(BUILD) + '/', w) for w in words]
    for key in list(env):
        env[key] = re.sub(r'^build/(default|host-only)/', str(BUILD) + '/', env[key])
    env['COLUMNS'] = '100'
    return subprocess.run(words, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


class Readme(unittest.TestCase):
    def test_at_most_180_lines(self):
        lines = README.read_text().count('\n')
        self.assertLessEqual(lines, 180, f'README.md has {lines} lines')

    def test_report_tool_examples_exit_as_documented(self):
        commands = section_commands('## The report tools, tried on the test fixtures')
        expected = {'check tests/fixtures/check/degraded-pcie-link-degraded.json': 2,
                    'diff tests/fixtures/diff/baseline.json tests/fixtures/diff/regressed.json': 2,
                    'specs --check': 0,
                    'check tests/fixtures/check/healthy.json --format junit': 0,
                    ' health': 2}
        seen = set()
        with tempfile.TemporaryDirectory() as tmp:
            for line in commands:
                if line.startswith('xdg-open'):
                    continue
                p = run(line.replace('-o page.html', f'-o {tmp}/page.html'), REPO)
                for key, code in expected.items():
                    if line.endswith(key) or (key.startswith(' ') and line.endswith(key.strip())):
                        seen.add(key)
                        self.assertEqual(p.returncode, code, f'{line}\n{p.stdout[-800:]}{p.stderr}')
                        if key == ' health':
                            self.assertIn('drain reason: gpuspec:GPUSPEC-XID-HARDWARE:gpu3', p.stdout)
                if '--format html' in line:
                    self.assertIn(p.returncode, (0, 1, 2), p.stderr)
                    self.assertTrue(Path(tmp, 'page.html').read_text().startswith('<!DOCTYPE html>'))
        self.assertEqual(seen, set(expected), 'an example the README promises is missing')


if __name__ == '__main__':
    unittest.main(argv=sys.argv[:1])
