#!/usr/bin/env bash
# Installs what gpuspec builds and tests with, on a fresh Debian 12+ or Ubuntu 22.04+ machine.
# Idempotent: packages already present are left as they are.
#
#   Debian packages: cmake, ninja, g++, fmt, nlohmann-json, simdjson (the report loaders'
#                    parser), CLI11, Google Benchmark, GoogleTest, python3 (+pip), clang and its
#                    runtime libraries (libFuzzer), OpenMPI (openmpi-bin, libopenmpi-dev: the
#                    multi-node launcher gpuspec-mpi and its tests, docs/multi-node.md).
#   Browser tests:   chromium, chromium-driver, python3-html5lib (the HTML page, tests/unit/html;
#                    Ubuntu's chromium is a snap: there the tests skip).
#   libsqlite3-dev:  the fleet history database (`gpuspec db`, fleet/, docs/fleet.md), and
#   libzstd-dev:     its reports, kept compressed.
#   Completion and man pages: bash-completion, zsh, groff-base, man-db (their tests, docs/cli.md).
#   cmark-gfm:       GitHub's own Markdown parser: `check --format md` read as a ticket reads it
#                    (screens.cli).
#   Python (into .deps/python of this checkout, never the system's site-packages):
#                    nvidia-nvml-dev (nvml.h), jsonschema (the report-schema tests),
#                    nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm (PTX, SASS and resource
#                    usage for the static-evidence test; PyPI has them from 13.2 on, and
#                    13.2.86 read this project's CUDA 13.0 objects on 2026-11-30), lizard
#                    (function lengths for scripts/architecture-metrics.py and its test),
#                    kubernetes-validate (deploy/kubernetes against Kubernetes' schemas),
#                    axe-selenium-python (for the axe-core it ships: the HTML pages' WCAG 2.1 AA
#                    check in the browser test, tests/unit/html).
#   Not installed:   the CUDA toolkit and NCCL (NVIDIA's own repositories). Without them, use
#                    the host-only preset; this script says so below.
#   With --slurm:    slurm-wlm and munge as well, for the tests that start a real Slurm on this
#                    machine (tests/slurm, GPUSPEC_SLURM_TESTS=ON; .ci/run asks for them).
#                    Only when asked: on a machine with systemd the packages enable their
#                    daemons, which a developer's box does not want.
#   With --package:  lintian, equivs, man-db and help2man, for the Debian packages and their test
#                    (tests/package/package_test.sh, package.deb; .ci/run asks for them).
#   With --minimal:  only what configuring the default preset and building the gpuspec command
#                    need (the README's main job): the compiler, CMake, Ninja, ccache, git, the
#                    libraries gpuspec links, GoogleTest and Google Benchmark (the preset
#                    configures the tests, so that `cmake --workflow` can reuse the build folder)
#                    and nvidia-nvml-dev; no browser, clang, MPI, prometheus or test-only Python.
#                    Run it again without --minimal before building the tests.
set -euo pipefail

with_slurm=0
with_package=0
minimal=0
for arg in "$@"; do
  case "$arg" in
  --slurm) with_slurm=1 ;;
  --package) with_package=1 ;;
  --minimal) minimal=1 ;;
  --aarch64) ;; # the cross build's block below reads it
  *) echo "install-deps: unknown option '$arg' (known: --minimal, --slurm, --package, --aarch64)" >&2; exit 2 ;;
  esac
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$here/.deps/python"

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); else
    echo "install-deps: not root and no sudo: install the Debian packages listed in this script by hand" >&2
    exit 1
  fi
fi

# What the gpuspec command builds with (--minimal stops here).
packages=(cmake ninja-build g++ make pkg-config git libfmt-dev nlohmann-json3-dev libsimdjson-dev
          libcli11-dev libsqlite3-dev libzstd-dev libbenchmark-dev libgtest-dev googletest python3 python3-pip)
packages+=(ccache) # ccache: compiler cache shared by the presets and worktrees (CMakeLists.txt)
if [ "$minimal" = 0 ]; then
  packages+=(prometheus) # prometheus: promtool, for the check's Prometheus-output test
  packages+=(clang) # clang: the libFuzzer targets of the file loaders (scripts/fuzz.sh)
  packages+=(openmpi-bin libopenmpi-dev) # gpuspec-mpi (GPUSPEC_MPI=ON, the host-mpi preset)
  packages+=(shellcheck) # the lint of the scripts/slurm and scripts/node-exporter examples
  packages+=(cmark-gfm) # GitHub's Markdown parser: check's md output as a ticket shows it
  # The generated shell completion and man pages' tests (tests/unit/cli, docs/cli.md):
  # bash-completion (its _filedir), zsh (compinit), groff-base and man-db (groff -ww, man --warnings).
  packages+=(bash-completion zsh groff-base man-db)
  # kubectl (its kustomize renders deploy/kubernetes offline): Debian's kubernetes-client, unless
  # a kubectl is installed already (from Kubernetes' own repository, say).
  command -v kubectl >/dev/null 2>&1 || packages+=(kubernetes-client)
fi
if [ "$with_package" = 1 ]; then
  packages+=(lintian equivs man-db binutils help2man) # tests/package: lint, stand-ins, man, strings; gpuspec-mpi's page
  packages+=(mmdebstrap apt-utils) # tests/package: clean Debian roots, the local apt repository
fi
if [ "$with_slurm" = 1 ]; then
  packages+=(slurm-wlm munge) # slurmctld, slurmd, srun, sbatch, munged: tests/slurm
fi
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
# fmt's and simdjson's sources, of the versions of the installed libfmt-dev and libsimdjson-dev,
# which ship headers and shared libraries only: the build compiles them into the executables so
# that the packages need no libfmt<N> or libsimdjson<N>, whose names differ in every release
# (cmake/GpuspecStaticLibraries.cmake). From Debian's source packages, fetched with a deb-src
# list of this script's own (the system's sources are not touched) into .deps/<name>-<version> of
# this checkout; apt checks them against the archive's signed index. About 12 MB of index and
# 2 MB of sources, once per version.
# fetch_debian_source DEV_PACKAGE NAME MEMBER...: MEMBERs (paths in the upstream tarball, below
# its top folder) into .deps/NAME-<upstream version>.
fetch_debian_source() {
  local dev=$1 name=$2
  shift 2
  local debian source upstream dir
  debian="$(dpkg-query -W -f='${Version}\n' "$dev" 2>/dev/null | head -1 || true)" # one line: :arm64 too
  [ -n "$debian" ] || return 0
  source="$(dpkg-query -W -f='${source:Package}\n' "$dev" | head -1)"
  upstream="${debian%-*}"
  dir="$here/.deps/$name-${upstream%+ds*}"
  if [ -f "$dir/$1" ]; then
    echo "install-deps: $name's source already in $dir"
    return 0
  fi
  echo "install-deps: fetching $source $debian's source into $dir"
  local apt_src mirror codename components=main
  apt_src="$(mktemp -d)"
  # The suites of the system's own sources, as deb-src lines ("deb" lines and deb822 files).
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
    2>/dev/null | sed -n 's/^URIs: *//p; s/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' | head -1 || true)"
  codename="$(. /etc/os-release && echo "$VERSION_CODENAME")"
  [ "$(. /etc/os-release && echo "$ID")" = ubuntu ] && components="main universe" # Ubuntu's simdjson
  echo "deb-src ${mirror:-http://deb.debian.org/debian} $codename $components" >"$apt_src/sources.list"
  local apt_opts=(-o Dir::Etc::SourceList="$apt_src/sources.list" -o Dir::Etc::SourceParts=/dev/null
                  -o Dir::State::Lists="$apt_src/lists" -o APT::Sandbox::User=root)
  mkdir -p "$apt_src/lists/partial"
  apt-get "${apt_opts[@]}" update -qq &&
    (cd "$apt_src" && apt-get "${apt_opts[@]}" source -qq --download-only "$source=$debian") ||
    { rm -rf "$apt_src"; return 1; }
  mkdir -p "$dir"
  local members=() # the tarball's top folder is SOURCE-UPSTREAM (fmtlib-9.1.0+ds1, simdjson-3.0.1)
  for member in "$@"; do members+=("$source-$upstream/$member"); done
  # .orig.tar.gz or .tar.xz, as the source package has it
  tar -xf "$(ls "$apt_src/${source}_$upstream".orig.tar.*)" -C "$dir" --strip-components=1 "${members[@]}" ||
    { rm -rf "$apt_src" "$dir"; return 1; }
  rm -rf "$apt_src"
}
# Without them gpuspec still builds, linked to the shared libraries: a warning, not a failure.
for wanted in "libfmt-dev fmt src/format.cc src/os.cc include LICENSE.rst" \
  "libsimdjson-dev simdjson singleheader/simdjson.cpp singleheader/simdjson.h LICENSE"; do
  # shellcheck disable=SC2086 # the words of one entry, split on purpose
  fetch_debian_source $wanted || echo "install-deps: warning: no source of ${wanted%% *} from \
Debian's archive: gpuspec links its shared library, and the packages depend on it" >&2
done
# libFuzzer's runtime: a package of its own since Debian 12 (libclang-rt-dev, which clang only
# recommends); part of clang's own packages on Ubuntu 22.04, which has no such name.
if [ "$minimal" = 0 ] && apt-cache show libclang-rt-dev >/dev/null 2>&1 &&
  ! dpkg-query -W -f='${Status}' libclang-rt-dev 2>/dev/null | grep -q "install ok installed"; then
  echo "install-deps: installing libclang-rt-dev"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends libclang-rt-dev >/dev/null
fi

# The cross build of the host tools for Grace (aarch64) nodes, only when asked, so that a
# developer's default set-up does not grow: `scripts/install-deps.sh --aarch64`, or
# GPUSPEC_DEPS_AARCH64=1 (.ci/run asks). The host-aarch64 preset
# (cmake/toolchains/aarch64-linux-gnu.cmake) builds with Debian's cross g++ against the :arm64
# -dev packages of what the host-only build links (fmt, GoogleTest, Google Benchmark; nlohmann-json
# and CLI11 are headers for every architecture) and runs the tests under qemu-user. Debian 12's
# libsimdjson-dev:arm64 cannot be installed beside the :amd64 one (it is not Multi-Arch: same), so
# it and its library are unpacked into .deps/aarch64 of this checkout, where the toolchain file
# looks. About 130 MB of packages (qemu-user is most of it).
want_aarch64="${GPUSPEC_DEPS_AARCH64:-0}"
for arg in "$@"; do [ "$arg" = "--aarch64" ] && want_aarch64=1; done
if [ "$want_aarch64" = 1 ]; then
  export DEBIAN_FRONTEND=noninteractive
  cross=(g++-aarch64-linux-gnu qemu-user libfmt-dev:arm64 libgtest-dev:arm64 libbenchmark-dev:arm64
         libsqlite3-dev:arm64 libzstd-dev:arm64)
  cross_missing=()
  for p in "${cross[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || cross_missing+=("$p")
  done
  new_arch=0
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "install-deps: adding the arm64 architecture (dpkg multiarch)"
    "${sudo_cmd[@]}" dpkg --add-architecture arm64
    new_arch=1
  fi
  if [ "${#cross_missing[@]}" -gt 0 ] || [ "$new_arch" = 1 ]; then
    echo "install-deps: installing ${cross_missing[*]}"
    "${sudo_cmd[@]}" apt-get update -qq # arm64's package lists, too
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${cross[@]}" >/dev/null
  else
    echo "install-deps: aarch64 cross toolchain, qemu-user and :arm64 libraries already installed"
  fi
  aarch64_deps="$here/.deps/aarch64"
  simdjson_debs=(libsimdjson-dev:arm64 libsimdjson14:arm64)
  simdjson_version="$(apt-cache policy libsimdjson-dev:arm64 | sed -n 's/^ *Candidate: //p')"
  if [ -f "$aarch64_deps/.installed" ] && [ "$(cat "$aarch64_deps/.installed")" = "$simdjson_version" ]; then
    echo "install-deps: simdjson for arm64 already in $aarch64_deps"
  else
    echo "install-deps: unpacking ${simdjson_debs[*]} $simdjson_version into $aarch64_deps"
    rm -rf "$aarch64_deps" && mkdir -p "$aarch64_deps"
    (cd "$aarch64_deps" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" "${simdjson_debs[@]}" &&
      for d in ./*.deb; do dpkg-deb -x "$d" . && rm "$d"; done)
    echo "$simdjson_version" > "$aarch64_deps/.installed"
  fi
fi
# The HTML page's browser and parser tests (tests/unit/html, issue 20): Debian's headless
# Chromium with its WebDriver, and the HTML5 parser html5lib for Debian's python3. Their own
# block: about 13 s here once the mirror is reached (2026-12-02), and the tests skip without it.
browser_packages=(chromium chromium-driver python3-html5lib)
browser_missing=()
for p in "${browser_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || browser_missing+=("$p")
done
if [ "$minimal" = 0 ] && [ "${#browser_missing[@]}" -gt 0 ] && apt-cache show chromium >/dev/null 2>&1; then
  echo "install-deps: installing ${browser_missing[*]} (the HTML page's browser tests)"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${browser_missing[@]}" >/dev/null
fi

# Python packages go into a folder of this checkout: works under PEP 668 and leaves the
# system alone. FindNVML.cmake, the schema tests and the static-evidence test look there.
python_pkgs=("nvidia-nvml-dev==13.0.*" "jsonschema>=4" "nvidia-cuda-cuobjdump==13.2.*"
             "nvidia-cuda-nvdisasm==13.2.*" "lizard>=1.17"
             "kubernetes-validate>=1.30" # deploy/kubernetes against Kubernetes' schemas, offline
             "axe-selenium-python>=2.1") # its axe-core: the HTML pages' WCAG check, offline
# --minimal: nvml.h alone (FindNVML.cmake); the full set replaces it on the next plain run.
# A full set already there serves it too.
if [ "$minimal" = 1 ]; then
  python_pkgs=("nvidia-nvml-dev==13.0.*")
  [ -f "$deps/.installed" ] && grep -qF "${python_pkgs[0]}" "$deps/.installed" &&
    read -r -a python_pkgs <"$deps/.installed"
fi
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
