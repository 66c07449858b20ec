#include "gpuspec/cli/device_dispatch.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fmt/format.h>
#include <unistd.h>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/executable_folder.hpp"
#include "gpuspec/cli/exit_code.hpp"

namespace gpuspec::cli {

namespace {

// The subcommands whose work is device code, and those that report the CUDA runtime's, cuBLAS's
// and NCCL's versions (info, --version): with the CUDA build installed, that build answers them,
// so an operator never reads "not built in" on a node that has the benchmarks.
constexpr std::array<std::string_view, 5> device_commands{"run", "list", "info", "__worker",
                                                          "--version"};

bool needs_device_build(int argc, char** argv) {
  if (argc < 2)
    return false;
  const std::string_view command = argv[1];
  for (const auto name : device_commands)
    if (command == name)
      return true;
  return false;
}

} // namespace

std::filesystem::path device_build_path() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("GPUSPEC_DEVICE_BUILD"); env != nullptr && *env != '\0')
    return env;
  const fs::path folder = executable_folder();
  if (folder.empty())
    return {};
  return (folder / GPUSPEC_DEVICE_BUILD_RELATIVE_PATH).lexically_normal();
}

std::optional<int> dispatch_to_device_build(int argc, char** argv) {
  if (backend_can_run_benchmarks() || !needs_device_build(argc, argv))
    return std::nullopt;
  const auto device = device_build_path();
  if (device.empty() || ::access(device.c_str(), X_OK) != 0)
    return std::nullopt;
  ::execv(device.c_str(), argv); // argv[0] stays "gpuspec": usage messages read as the user typed
  fmt::print(stderr, "gpuspec: cannot start the CUDA build {}: {}\n", device.string(),
             std::strerror(errno));
  return to_int(exit_code::unknown);
}

} // namespace gpuspec::cli
