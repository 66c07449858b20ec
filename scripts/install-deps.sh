#!/usr/bin/env bash
# Installs what gpuspec builds and tests with, on a fresh Debian 12+ or Ubuntu 22.04+ machine.
# Idempotent: packages already present are left as they are.
#
#   Debian packages: cmake, ninja, g++, fmt, nlohmann-json, simdjson (the report loaders'
#                    parser), CLI11, Google Benchmark, GoogleTest, python3 (+pip), clang and its
#                    runtime libraries (libFuzzer), OpenMPI (openmpi-bin, libopenmpi-dev: the
#                    multi-node launcher gpuspec-mpi and its tests, docs/multi-node.md).
#   libsqlite3-dev:  the fleet history database (`gpuspec db`, fleet/, docs/fleet.md).
#   Python (into .deps/python of this checkout, never the system's site-packages):
#                    nvidia-nvml-dev (nvml.h), jsonschema (the report-schema tests),
#                    nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm (PTX, SASS and resource
#                    usage for the static-evidence test; PyPI has them from 13.2 on, and
#                    13.2.86 read this project's CUDA 13.0 objects on 2026-11-30), lizard
#                    (function lengths for scripts/architecture-metrics.py and its test).
#   Not installed:   the CUDA toolkit and NCCL (NVIDIA's own repositories). Without them, use
#                    the host-only preset; this script says so below.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$here/.deps/python"

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); else
    echo "install-deps: not root and no sudo: install the Debian packages listed in this script by hand" >&2
    exit 1
  fi
fi

packages=(cmake ninja-build g++ make pkg-config libfmt-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev
          libbenchmark-dev libgtest-dev googletest python3 python3-pip
          prometheus) # prometheus: promtool, for the check's Prometheus-output test
packages+=(clang) # clang: the libFuzzer targets of the file loaders (scripts/fuzz.sh)
packages+=(openmpi-bin libopenmpi-dev) # gpuspec-mpi (GPUSPEC_MPI=ON, the host-mpi preset)
packages+=(shellcheck) # the lint of the scripts/slurm and scripts/node-exporter examples
packages+=(libsqlite3-dev) # the fleet history, gpuspec db (fleet/, docs/fleet.md)
packages+=(ccache) # ccache: compiler cache shared by the presets and worktrees (CMakeLists.txt)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: Debian packages already installed"
fi
# libFuzzer's runtime: a package of its own since Debian 12 (libclang-rt-dev, which clang only
# recommends); part of clang's own packages on Ubuntu 22.04, which has no such name.
if apt-cache show libclang-rt-dev >/dev/null 2>&1 &&
  ! dpkg-query -W -f='${Status}' libclang-rt-dev 2>/dev/null | grep -q "install ok installed"; then
  echo "install-deps: installing libclang-rt-dev"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends libclang-rt-dev >/dev/null
fi

# Python packages go into a folder of this checkout: works under PEP 668 and leaves the
# system alone. FindNVML.cmake, the schema tests and the static-evidence test look there.
python_pkgs=("nvidia-nvml-dev==13.0.*" "jsonschema>=4" "nvidia-cuda-cuobjdump==13.2.*"
             "nvidia-cuda-nvdisasm==13.2.*" "lizard>=1.17")
if [ -f "$deps/.installed" ] && [ "$(cat "$deps/.installed")" = "${python_pkgs[*]}" ]; then
  echo "install-deps: Python packages already in $deps"
else
  echo "install-deps: installing ${python_pkgs[*]} into $deps"
  mkdir -p "$deps"
  python3 -m pip install --quiet --disable-pip-version-check --no-input --upgrade --root-user-action=ignore \
    --target "$deps" "${python_pkgs[@]}"
  echo "${python_pkgs[*]}" > "$deps/.installed"
fi

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc_bin="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
  echo "install-deps: CUDA toolkit found: $("$nvcc_bin" --version | tail -n 2 | head -n 1)"
  if [ ! -e /usr/local/cuda/include/nccl.h ] && [ ! -e /usr/include/nccl.h ]; then
    echo "install-deps: NCCL not found: collectives will be left out (install libnccl-dev from NVIDIA's repository)"
  fi
else
  cat >&2 <<'MSG'
install-deps: the CUDA toolkit is NOT installed (no nvcc on PATH or in /usr/local/cuda/bin).
  gpuspec's device code needs it: install CUDA 12 or 13 from NVIDIA
  (https://developer.nvidia.com/cuda-downloads, or the cuda-toolkit package of NVIDIA's
  Debian/Ubuntu repository), then run this script again.
  Until then, build the report tools and host checks alone:
      cmake --workflow --preset host-only
MSG
fi
