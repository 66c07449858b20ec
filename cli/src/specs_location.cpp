#include "gpuspec/cli/specs_location.hpp"

#include <array>
#include <cstdlib>
#include <system_error>

#include "gpuspec/cli/executable_folder.hpp"

namespace gpuspec::cli {

namespace {

// Relative to the executable's folder; cli/CMakeLists.txt derives them from GNUInstallDirs.
constexpr std::array relative_candidates{GPUSPEC_SPECS_RELATIVE_DIRS};

} // namespace

std::filesystem::path specs_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("GPUSPEC_SPECS_DIR"); env != nullptr && *env != '\0')
    return env;
  const fs::path folder = executable_folder();
  std::error_code ec;
  for (const char* relative : relative_candidates) {
    const fs::path candidate = (folder / relative).lexically_normal();
    if (fs::exists(candidate / "gpus.json", ec))
      return candidate;
  }
  return (folder / relative_candidates.front()).lexically_normal();
}

} // namespace gpuspec::cli
