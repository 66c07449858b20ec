#!/usr/bin/env bash
# Prepares .gpu-bundle/ for scripts/gpu-validate.sh on a GPU machine that has the CUDA toolkit
# and PyTorch but none of our Debian packages and no network: the gpuspec binary, the GPU test
# binaries, and the shared libraries they need that such a machine lacks (fmt, simdjson; gtest is
# linked statically). Build here, carry .gpu-bundle/ there.
#
#   scripts/gpu-bundle.sh [PRESET]      (default preset: default)
#
# Built for the GPU's architecture alone (GPUSPEC_BUNDLE_ARCHS, default 90: the lent machines
# are H200s), in its own folder build/gpu-bundle-<preset>, and stripped: the device tool carries
# at most 64 MiB with the working tree, and a build for all five architectures makes every test
# binary hold five copies of every kernel (62 MiB in all on 2026-11-30).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
preset="${1:-default}"
archs="${GPUSPEC_BUNDLE_ARCHS:-90}"
bundle=.gpu-bundle
build="build/gpu-bundle-$preset"

cmake --preset "$preset" -B "$build" -DCMAKE_CUDA_ARCHITECTURES="$archs" >/dev/null
# Only what gpu-validate.sh runs there: gpuspec and the tests/gpu binaries (Ninja's per-folder
# target). Not gpuspec-mpi (one GPU: no MPI there), not the unit tests or the fake NVML (CI's).
cmake --build "$build" --target gpuspec tests/gpu/all

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/tests" "$bundle/lib"
cp "$build/cli/gpuspec" "$bundle/bin/"
# Only the GPU test binaries gpu-validate.sh runs (tests/gpu/gpu_tests.json, either call): not
# the host tests there (CI runs them), nor a binary another step repeats (the burn-in's).
for name in $(python3 scripts/gpu_tests.py binaries tests/gpu/gpu_tests.json first | grep -v '^NOT_RUN') \
  $(python3 scripts/gpu_tests.py binaries tests/gpu/gpu_tests.json rerun | grep -v '^NOT_RUN'); do
  cp "$build/tests/gpu/$name" "$bundle/tests/"
done

# Libraries from this machine's Debian packages that a CUDA image does not ship. The CUDA
# libraries (cuBLAS) and the driver's are taken from the GPU machine itself; NCCL is opened at
# run time, and gpu-validate.sh finds it there (GPUSPEC_NCCL_LIBRARY).
for binary in "$bundle"/bin/* "$bundle"/tests/*; do
  ldd "$binary" | awk '/=> \//{print $3}' | grep -E 'libfmt|libsimdjson|libgtest|libCLI11' || true
done | sort -u | while read -r lib; do cp -L "$lib" "$bundle/lib/"; done

# Symbols only: the device code (fatbin sections) stays.
strip --strip-unneeded "$bundle"/bin/* "$bundle"/tests/*

# Packed: the twelve binaries share most of their bytes (the same libraries and kernels), and
# loose they came to 56 MB on 2026-12-01, which with the 11 MB working tree is over the device
# tool's 64 MiB; gzip brings them to about 20 MB (gzip, not xz: any image has it).
# gpu-validate.sh unpacks bundle.tar.gz there into a folder of its own.
tar -czf "$bundle/bundle.tar.gz" -C "$bundle" bin tests lib
rm -rf "${bundle:?}/bin" "${bundle:?}/tests" "${bundle:?}/lib"

git rev-parse HEAD > "$bundle/COMMIT" 2>/dev/null || echo unknown > "$bundle/COMMIT"
echo "$preset, CUDA architectures $archs" > "$bundle/PRESET"
du -sh "$bundle"
ls -l "$bundle"
tar -tzvf "$bundle/bundle.tar.gz"
