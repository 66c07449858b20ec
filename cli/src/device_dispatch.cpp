#include "gpuspec/cli/device_dispatch.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <unistd.h>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/build_stamp.hpp"
#include "gpuspec/cli/device_libraries.hpp"
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

// The commands the host build answers itself, with what it can see, when the CUDA build cannot
// start: --version (gpuspec's own version, exit 0) and info (the inventory through NVML).
bool host_answers_without_device_build(std::string_view command) {
  return command == "--version" || command == "info";
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
  // cuBLAS missing or off the loader's path: one line, never the loader's exit 127.
  if (const auto missing = missing_device_library()) {
    fmt::print(stderr, "{}\n", *missing);
    if (host_answers_without_device_build(argv[1]))
      return std::nullopt;
    return to_int(exit_code::unknown);
  }
  // The CUDA build compares this with its own version (handed_over_version_mismatch): the two
  // packages come from one build, and a mix of versions is said in one line, not met as an odd
  // failure half-way through a run.
  ::setenv(handed_over_version_variable, std::string(this_build_stamp().version).c_str(), 1);
  ::execv(device.c_str(), argv); // argv[0] stays "gpuspec": usage messages read as the user typed
  fmt::print(stderr, "gpuspec: cannot start the CUDA build {}: {}\n", device.string(),
             std::strerror(errno));
  return to_int(exit_code::unknown);
}

std::optional<int> handed_over_version_mismatch() {
  const char* host = std::getenv(handed_over_version_variable);
  if (host == nullptr || *host == '\0')
    return std::nullopt;
  const std::string_view mine = this_build_stamp().version;
  if (mine == host)
    return std::nullopt;
  fmt::print(stderr,
             "gpuspec: gpuspec {} handed over to gpuspec-cuda13 {}: install the same version of "
             "both packages (apt-get install gpuspec={} gpuspec-cuda13={})\n",
             host, mine, mine, mine);
  return to_int(exit_code::unknown);
}

} // namespace gpuspec::cli
