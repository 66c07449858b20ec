#pragma once
/// The shared libraries of NVIDIA's packages that the CUDA build (gpuspec-cuda13) links: cuBLAS
/// and cuBLASLt. The host gpuspec looks for them before it hands a command over, so that a node
/// without them (or with them off the loader's path) gets one line saying which library, where
/// the loader looked and which package brings it, instead of the loader's own error and exit
/// code 127 (docs/deploy.md, "NVIDIA's repository").

#include <optional>
#include <string>

namespace gpuspec::cli {

/// The first of the CUDA build's libraries (GPUSPEC_DEVICE_BUILD_LIBRARIES, set by CMake, or
/// $GPUSPEC_DEVICE_LIBRARIES, colon-separated, for tests) that the dynamic loader cannot open, as
/// one line for the user; nullopt when it opens them all. The loader is asked itself (dlopen, the
/// same search the CUDA build's start will make), so the answer holds for LD_LIBRARY_PATH, the
/// ld.so.cache and the default folders alike.
[[nodiscard]] std::optional<std::string> missing_device_library();

} // namespace gpuspec::cli
