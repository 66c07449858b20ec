#pragma once
/// The host-only gpuspec (the gpuspec package) hands the commands that need device code to the
/// CUDA build (the gpuspec-cuda13 package), the way DCGM's host tools find their per-CUDA-major
/// modules: one host binary, the device binary beside it.

#include <filesystem>
#include <optional>

namespace gpuspec::cli {

/// Where the CUDA build is looked for: $GPUSPEC_DEVICE_BUILD if set (tests), else
/// <folder of this executable>/../libexec/gpuspec/gpuspec-cuda13 (GNUInstallDirs' layout,
/// relative, so a moved tree still finds it).
[[nodiscard]] std::filesystem::path device_build_path();

/// In a host-only build, for `run`, `list`, `info`, `__worker` and `--version`: execs the CUDA
/// build with the same arguments when it is installed (does not return), returns 3 with a message
/// when the exec fails. When a library the CUDA build needs is missing (device_libraries.hpp),
/// says which in one line and returns 3, or nullopt for `--version` and `info`, which this build
/// then answers itself. Returns nullopt when this build has the device code itself, for every other
/// command, and when no CUDA build is installed (the host-only command then runs and says that
/// benchmarks need the gpuspec-cuda13 package).
[[nodiscard]] std::optional<int> dispatch_to_device_build(int argc, char** argv);

/// The variable through which the host-only gpuspec hands its version to the CUDA build it execs.
inline constexpr const char* handed_over_version_variable = "GPUSPEC_HANDED_OVER_BY_VERSION";

/// In the CUDA build started by a host-only gpuspec: 3, with one line naming both versions and
/// the command that installs matching packages, when that gpuspec's version is not this build's
/// own; nullopt otherwise (the same version, or not started through a hand-over).
[[nodiscard]] std::optional<int> handed_over_version_mismatch();

} // namespace gpuspec::cli
