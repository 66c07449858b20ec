#pragma once
// The fixture of the tests that run the gpuspec executable as a user runs it: a scratch folder,
// no driver by default, or the fake NVML (tests/fakes) with one of its configurations.
// GPUSPEC_BINARY, GPUSPEC_FAKE_NVML_PATH and GPUSPEC_FAKE_NVML_CONFIGS come from
// tests/unit/cli/CMakeLists.txt.

#include <string>

#include "run_process.hpp"

namespace gpuspec::testing {

class gpuspec_process_test : public scratch_dir_test {
protected:
  /// Runs `gpuspec ARGS` in the test's folder with the environment prefix `env`.
  process_result gpuspec(const std::string& args, const std::string& env = no_driver()) {
    return run_in(m_dir, "env " + env + " '" GPUSPEC_BINARY "' " + args);
  }

  static std::string no_driver() { return "GPUSPEC_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"; }
  static std::string fake(const std::string& config) {
    return std::string("GPUSPEC_NVML_LIBRARY='" GPUSPEC_FAKE_NVML_PATH
                       "' GPUSPEC_FAKE_NVML_CONFIG='" GPUSPEC_FAKE_NVML_CONFIGS "/") +
           config + "'";
  }
};

} // namespace gpuspec::testing
