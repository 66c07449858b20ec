#pragma once
/// The folder of the running executable, which what ships beside it is found relative to (the
/// spec table, specs_location.hpp; the CUDA build, device_dispatch.hpp), so that no build or
/// install path is compiled in.

#include <filesystem>
#include <system_error>

namespace gpuspec::cli {

/// The folder of /proc/self/exe, or an empty path where the link cannot be read.
[[nodiscard]] inline std::filesystem::path executable_folder() {
  std::error_code ec;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : executable.parent_path();
}

} // namespace gpuspec::cli
