#include "specs_location.hpp"

#include <cstdlib>
#include <system_error>

namespace gpuspec::cli {

std::filesystem::path specs_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("GPUSPEC_SPECS_DIR"); env != nullptr && *env != '\0')
    return env;
  const fs::path built_from = GPUSPEC_SPECS_DIR;
  std::error_code ec;
  if (fs::exists(built_from / "gpus.json", ec))
    return built_from;
  const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = executable.parent_path().parent_path() / "share/gpuspec/specs";
    if (fs::exists(installed / "gpus.json", ec))
      return installed;
  }
  return built_from;
}

} // namespace gpuspec::cli
