#!/usr/bin/env python3
"""One name per room, and no room includes a room above it.

Reads the table of rooms in docs/architecture.md ("Rooms and layers"): each row is a folder,
its CMake library, its include prefix and its namespace, lowest layer first. Then, for each room:
  - its CMakeLists.txt defines that library and no other (OBJECT libraries named after it,
    whose objects go into it, excepted);
  - its public headers lie under include/<prefix>, and nothing else is under include/;
  - every namespace its files open is the room's namespace or one nested in it (an anonymous
    namespace is fine);
  - every gpuspec header it includes belongs to itself or to a room of a lower layer, and every
    room library it links is of a lower layer.
A room's folder holds no other room's files: a room inside it (collectives/mpi) is its own.
And no source file of a room under reports/ is longer than MAX_REPORTS_FILE_LINES: the host core
is where files grew into drawers (a 1,164-line check.cpp), so its files stay one job each.
Prints each violation as FILE:LINE: what; exits 1 when there is one, 0 otherwise.

Usage: rooms_check.py [ROOT]   (ROOT: the checkout; default: two folders above this script's)
"""
import re
import sys
from pathlib import Path

SOURCE_SUFFIXES = {'.cpp', '.hpp', '.cu', '.cuh'}
MAX_REPORTS_FILE_LINES = 600


def read_rooms(root):
    doc = (root / 'docs' / 'architecture.md').read_text()
    m = re.search(r'<!-- rooms -->(.*?)<!-- /rooms -->', doc, re.S)
    if not m:
        raise SystemExit('docs/architecture.md: no table between <!-- rooms --> and <!-- /rooms -->')
    rooms = []
    for line in m.group(1).splitlines():
        cells = [c.strip().strip('`') for c in line.strip().strip('|').split('|')]
        if len(cells) < 4 or not cells[0] or cells[0] in ('layer', 'folder') or set(cells[0]) <= set('-: '):
            continue
        folder, target, prefix, namespace = cells[1:5] if cells[0].isdigit() else cells[:4]
        rooms.append({'folder': folder.rstrip('/'), 'target': target,
                      'prefix': prefix.rstrip('/'), 'namespace': namespace})
    if not rooms:
        raise SystemExit('docs/architecture.md: the rooms table is empty')
    return rooms


def room_files(root, room, rooms):
    base = root / room['folder']
    inner = [root / r['folder'] for r in rooms
             if r is not room and r['folder'].startswith(room['folder'] + '/')]
    for p in sorted(base.rglob('*')):
        if p.is_file() and not any(p.is_relative_to(i) for i in inner):
            yield p


def check(root):
    rooms = read_rooms(root)
    layer = {r['target']: i for i, r in enumerate(rooms)}
    owner_of_prefix = sorted(((r['prefix'] + '/', i) for i, r in enumerate(rooms)),
                             key=lambda x: -len(x[0]))
    errors = []

    def err(path, line, what):
        errors.append(f'{path.relative_to(root)}:{line}: {what}')

    for i, room in enumerate(rooms):
        base = root / room['folder']
        cmake = base / 'CMakeLists.txt'
        if not cmake.is_file():
            err(base, 0, f'room {room["folder"]} has no CMakeLists.txt')
            continue
        text = cmake.read_text()
        libs = re.findall(r'add_library\(\s*([A-Za-z0-9_${}]+)(\s+OBJECT)?', text)
        own = [n for n, obj in libs if n == room['target']]
        if len(own) != 1:
            err(cmake, 0, f'defines {room["target"]} {len(own)} times (expected once)')
        for n, obj in libs:
            if n != room['target'] and not (obj and (n.startswith(room['target'] + '_') or n.startswith('${'))):
                err(cmake, 0, f'defines another library, {n}: one folder, one library')
        for n in set(re.findall(r'\b(gpuspec_[a-z0-9_]+)\b', text)):
            if n in layer and layer[n] > i:
                err(cmake, 0, f'links {n}, a room above {room["target"]}')
        ns_re = re.compile(r'^\s*namespace\s+([A-Za-z0-9_:]+(?:::inline\s+[A-Za-z0-9_]+[A-Za-z0-9_:]*)*)\s*\{', re.M)
        want = room['namespace']
        for p in room_files(root, room, rooms):
            rel = p.relative_to(base)
            if rel.parts[0] == 'include' and p.suffix in SOURCE_SUFFIXES:
                if not str(p.relative_to(base / 'include')).startswith(room['prefix'] + '/'):
                    err(p, 0, f'a public header outside include/{room["prefix"]}/')
            if p.suffix not in SOURCE_SUFFIXES:
                continue
            src = p.read_text()
            lines = src.count('\n')
            if room['folder'].startswith('reports/') and lines > MAX_REPORTS_FILE_LINES:
                err(p, 0, f'{lines} lines, over {MAX_REPORTS_FILE_LINES}: split it by job')
            for m in ns_re.finditer(src):
                line = src.count('\n', 0, m.start()) + 1
                name = re.sub(r'::inline\s+', '::', m.group(1))
                top = name.split('::')[0]
                if top != 'gpuspec':
                    continue  # a namespace nested in one already opened (detail, html, ...)
                if name != want and not name.startswith(want + '::'):
                    err(p, line, f'opens namespace {name}; the room\'s is {want}')
            for m in re.finditer(r'^\s*#\s*include\s*[<"](gpuspec/[^>"]+)[>"]', src, re.M):
                line = src.count('\n', 0, m.start()) + 1
                inc = m.group(1)
                for prefix, j in owner_of_prefix:
                    if inc.startswith(prefix):
                        if j > i:
                            err(p, line, f'includes {inc}, of {rooms[j]["folder"]}, a room above '
                                         f'{room["folder"]}')
                        break
                else:
                    err(p, line, f'includes {inc}, which is no room\'s prefix')
    return errors


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[3])
    errors = check(root)
    for e in errors:
        print(e)
    print(f'rooms_check: {len(errors)} violation(s)' if errors else 'rooms_check: every room is one name, layered')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
