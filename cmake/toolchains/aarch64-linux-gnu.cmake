# Cross-compiles the host tools for aarch64 (the Grace CPUs of GH200, GB200 and GB300 nodes) with
# Debian's cross toolchain (g++-aarch64-linux-gnu) against Debian's multiarch :arm64 libraries in
# /usr/lib/aarch64-linux-gnu; tests run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR). The
# host-aarch64 preset uses it; `scripts/install-deps.sh --aarch64` installs what it needs
# (README.md, "Grace (aarch64) nodes"). Host tools only: the CUDA build for aarch64 is done on
# the node itself, natively, with NVIDIA's sbsa toolkit and the ordinary presets.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's multiarch directory: find_package looks in /usr/lib/aarch64-linux-gnu/cmake and never
# in /usr/lib/x86_64-linux-gnu, so a build machine's own amd64 packages are not picked up.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Packages whose :arm64 -dev cannot be installed beside the :amd64 one (not Multi-Arch: same;
# Debian 12's libsimdjson-dev) are unpacked here by install-deps.sh instead.
get_filename_component(_gpuspec_aarch64_deps "${CMAKE_CURRENT_LIST_DIR}/../../.deps/aarch64/usr"
                       ABSOLUTE)
list(APPEND CMAKE_PREFIX_PATH "${_gpuspec_aarch64_deps}")

# Programs (python3, bash, promtool, ccache) are the build machine's own.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# Tests and gtest's discovery run the aarch64 executables under qemu-user; -L names the cross
# toolchain's loader and libc (libc6-arm64-cross), and the multiarch :arm64 libraries are found
# in /usr/lib/aarch64-linux-gnu through qemu's fallback to the real root. Host-side test scripts
# (bash, Python) are handed wrappers that do the same (gpuspec_test_program, tests/CMakeLists.txt):
# no binfmt_misc registration is needed or assumed.
find_program(GPUSPEC_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(GPUSPEC_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${GPUSPEC_QEMU_AARCH64};-L;/usr/aarch64-linux-gnu")
else()
  message(WARNING "qemu-aarch64 not found (scripts/install-deps.sh --aarch64 installs qemu-user): "
                  "the aarch64 build cannot run its tests here")
endif()
