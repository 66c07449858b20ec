#!/usr/bin/env bash
# cmake --install of a build tree (no root needed): the installed gpuspec holds no path of the
# source or build tree, and a tree moved to another prefix still finds its spec table (the
# table is found relative to the binary: cli/include/gpuspec/cli/specs_location.hpp).
#   install_tree_test.sh SOURCE_DIR BUILD_DIR OUT_DIR [sanitized|plain]
# sanitized (a GPUSPEC_SANITIZE build): the path check is left out. GCC 12's AddressSanitizer and
# UBSan record each object's source file as given on the command line, which -ffile-prefix-map
# does not rewrite, and CMake gives absolute paths; such a build is for tests, never packaged.
set -euo pipefail
src="$(cd "$1" && pwd)" build="$(cd "$2" && pwd)" out="$3" kind="${4:-plain}"
fail() { echo "install_tree_test: FAIL: $*" >&2; exit 1; }
command -v strings >/dev/null || { echo "install_tree_test: no strings(1) (binutils): skipped"; exit 77; }

rm -rf "$out" && mkdir -p "$out"
cmake --install "$build" --prefix "$out/first" >"$out/install.log"
bin="$out/first/bin/gpuspec"
[ -x "$bin" ] || fail "cmake --install put no bin/gpuspec in $out/first"
[ -f "$out/first/share/gpuspec/specs/gpus.json" ] || fail "no share/gpuspec/specs/gpus.json"
[ -f "$out/first/share/gpuspec/specs/expect.json" ] || fail "no share/gpuspec/specs/expect.json"
[ -f "$out/first/share/doc/gpuspec/copyright" ] || fail "no share/doc/gpuspec/copyright"
[ -d "$out/first/share/gpuspec/deploy/kubernetes" ] || fail "no share/gpuspec/deploy/kubernetes"
[ -x "$out/first/share/gpuspec/scripts/slurm/gpuspec-healthcheck.sh" ] ||
  fail "no executable share/gpuspec/scripts/slurm/gpuspec-healthcheck.sh"

# No source or build path compiled in: every binary installed, the CUDA build's too.
if [ "$kind" = sanitized ]; then
  echo "install_tree_test: sanitized build: the check for checkout paths in the binaries left out"
else
  while IFS= read -r -d '' program; do
    if hits=$(strings -a "$program" | grep -F -e "$src" -e "$build"); then
      fail "$program holds paths of the checkout: $(echo "$hits" | head -3)"
    fi
  done < <(find "$out/first" -type f -perm -u+x -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print0)
fi

# Moved to another prefix, with the source tree's specs out of reach (GPUSPEC_SPECS_DIR unset):
mv "$out/first" "$out/moved"
unset GPUSPEC_SPECS_DIR GPUSPEC_SPECS
cd "$out"
"$out/moved/bin/gpuspec" specs >"$out/specs.txt" 2>&1 || fail "gpuspec specs from the moved tree: $(tail -2 "$out/specs.txt")"
grep -q h200 "$out/specs.txt" || fail "gpuspec specs from the moved tree lists no h200 row"
set +e
"$out/moved/bin/gpuspec" check "$src/tests/fixtures/check/degraded-pcie-link-degraded.json" >"$out/check.txt" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "gpuspec check of degraded-pcie-link-degraded.json from the moved tree: exit $rc, expected 2"
# The hand-over to gpuspec-cuda13 (cli/include/gpuspec/cli/device_dispatch.hpp), with a fake device build: a
# host-only gpuspec execs it for run, list, info, __worker and --version with the same arguments, and
# runs every other command itself. A CUDA build runs everything itself.
# The stand-in needs no library: GPUSPEC_DEVICE_LIBRARIES empty (cli/.../device_libraries.hpp).
fake="$out/fake-gpuspec-cuda13"
printf '#!/bin/sh\necho "fake device build: $*"\nexit 7\n' >"$fake" && chmod +x "$fake"
export GPUSPEC_DEVICE_LIBRARIES=
set +e
GPUSPEC_DEVICE_BUILD="$fake" "$out/moved/bin/gpuspec" list --json >"$out/dispatch.txt" 2>&1
rc=$?
set -e
if [ ! -x "$out/moved/libexec/gpuspec/gpuspec-cuda13" ]; then
  [ "$rc" = 7 ] && grep -qx 'fake device build: list --json' "$out/dispatch.txt" ||
    fail "a host-only gpuspec list did not hand over to the device build: exit $rc, $(cat "$out/dispatch.txt")"
  GPUSPEC_DEVICE_BUILD="$fake" "$out/moved/bin/gpuspec" specs >/dev/null ||
    fail "gpuspec specs was handed over (only run, list, info, __worker and --version are)"
  # --version too: the CUDA build knows the CUDA, cuBLAS and NCCL versions the host build lacks.
  set +e
  GPUSPEC_DEVICE_BUILD="$fake" "$out/moved/bin/gpuspec" --version >"$out/dispatch.txt" 2>&1
  rc=$?
  set -e
  [ "$rc" = 7 ] && grep -qx 'fake device build: --version' "$out/dispatch.txt" ||
    fail "a host-only gpuspec --version did not hand over to the device build: exit $rc"
  # A library the CUDA build needs (cuBLAS) that the loader cannot find: one line naming it,
  # where the loader looked and the package that brings it; run exits 3, --version answers itself.
  absent=libgpuspec-test-absent.so.13
  set +e
  GPUSPEC_DEVICE_LIBRARIES="$absent" GPUSPEC_DEVICE_BUILD="$fake" "$out/moved/bin/gpuspec" run \
    >"$out/dispatch.txt" 2>&1
  rc=$?
  set -e
  [ "$rc" = 3 ] && [ "$(wc -l <"$out/dispatch.txt")" = 1 ] &&
    grep -q "needs $absent (from libcublas-13-0), which the loader did not find in LD_LIBRARY_PATH" "$out/dispatch.txt" &&
    grep -q "install libcublas-13-0 from NVIDIA's CUDA repository" "$out/dispatch.txt" ||
    fail "with $absent missing, gpuspec run: exit $rc (expected 3 and one line): $(cat "$out/dispatch.txt")"
  GPUSPEC_DEVICE_LIBRARIES="$absent" GPUSPEC_DEVICE_BUILD="$fake" "$out/moved/bin/gpuspec" --version \
    >"$out/dispatch.txt" 2>"$out/dispatch-err.txt" ||
    fail "with $absent missing, gpuspec --version failed: $(cat "$out/dispatch-err.txt")"
  head -1 "$out/dispatch.txt" | grep -q '^gpuspec ' && grep -q "needs $absent" "$out/dispatch-err.txt" ||
    fail "with $absent missing, gpuspec --version: $(cat "$out/dispatch.txt" "$out/dispatch-err.txt")"
  # The device build moved with the tree, found relative to bin/:
  mkdir -p "$out/moved/libexec/gpuspec" && cp "$fake" "$out/moved/libexec/gpuspec/gpuspec-cuda13"
  set +e
  "$out/moved/bin/gpuspec" run --suite quick >"$out/dispatch.txt" 2>&1
  rc=$?
  set -e
  [ "$rc" = 7 ] && grep -qx 'fake device build: run --suite quick' "$out/dispatch.txt" ||
    fail "gpuspec run did not find libexec/gpuspec/gpuspec-cuda13 beside bin/: exit $rc"
  rm -r "$out/moved/libexec/gpuspec"
  set +e
  "$out/moved/bin/gpuspec" list >"$out/dispatch.txt" 2>&1
  rc=$?
  set -e
  [ "$rc" = 3 ] && grep -q 'gpuspec-cuda13 package' "$out/dispatch.txt" ||
    fail "without gpuspec-cuda13, gpuspec list: exit $rc, $(cat "$out/dispatch.txt")"
fi
echo "install_tree_test: ok (no checkout path in the binaries; moved tree finds its specs)"
