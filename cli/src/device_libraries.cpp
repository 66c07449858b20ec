#include "gpuspec/cli/device_libraries.hpp"

#include <array>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <dlfcn.h>
#include <fmt/format.h>

namespace gpuspec::cli {

namespace {

// The CUDA build's NEEDED entries that NVIDIA's packages bring (cli/CMakeLists.txt names them
// with the package, for the CUDA major the packages are built for).
constexpr std::array<std::string_view, 2> device_libraries{GPUSPEC_DEVICE_BUILD_LIBRARIES};

/// The libraries to look for: $GPUSPEC_DEVICE_LIBRARIES when set (colon-separated; empty: none),
/// which the tests of the hand-over set for their stand-in CUDA build, else the built-in list.
std::vector<std::string> libraries_to_find() {
  std::vector<std::string> out;
  const char* env = std::getenv("GPUSPEC_DEVICE_LIBRARIES");
  if (env == nullptr) {
    for (const auto name : device_libraries)
      out.emplace_back(name);
    return out;
  }
  std::string_view rest = env;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    if (const auto name = rest.substr(0, colon); !name.empty())
      out.emplace_back(name);
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  }
  return out;
}

/// Where the loader looks for a library named without a folder (ld.so(8), in its order).
std::string loader_search_path() {
  const char* env = std::getenv("LD_LIBRARY_PATH");
  return fmt::format("LD_LIBRARY_PATH ({}), /etc/ld.so.cache, /lib and /usr/lib",
                     env != nullptr && *env != '\0' ? env : "unset");
}

} // namespace

std::optional<std::string> missing_device_library() {
  for (const auto& file : libraries_to_find()) {
    // RTLD_LAZY | RTLD_LOCAL: nothing resolved or made visible beyond the handle, which is
    // closed at once; this process execs the CUDA build or ends right after.
    if (void* handle = ::dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
      ::dlclose(handle);
      continue;
    }
    const char* why = ::dlerror();
    return fmt::format("gpuspec: gpuspec-cuda13 needs {} (from {}), which the loader did not "
                       "find in {}: {}; install {} from NVIDIA's CUDA repository "
                       "(docs/deploy.md, \"NVIDIA's repository\")",
                       file, GPUSPEC_DEVICE_BUILD_LIBRARY_PACKAGE, loader_search_path(),
                       why != nullptr ? why : "no reason given",
                       GPUSPEC_DEVICE_BUILD_LIBRARY_PACKAGE);
  }
  return std::nullopt;
}

} // namespace gpuspec::cli
