#pragma once
#include <string>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/spine/cuda_probe.hpp"

namespace gpuspec::cli {

struct health_options {
  std::string format = "table"; ///< table (or text) | json | prom | reason | kube
  bool json = false;
  std::string specs;  ///< spec table (default: the shipped one)
  std::string output; ///< write here atomically instead of stdout
  bool no_kernel_log = false;
  std::string rules;         ///< a site rules file merged over specs/expect.json ("mig_layout")
  bool no_mig_probe = false; ///< do not ask the CUDA runtime about the MIG devices
  double mig_probe_timeout_s = spine::mig_probe_timeout_s; ///< all MIG devices at once
  std::string root = "/"; ///< hidden: read /proc, /sys and /etc under another root (tests)
};

void setup_health(CLI::App& app, health_options& options);
/// The passive health check (docs/health.md): no CUDA context, no kernel (a MIG device's CUDA
/// probe initialises the runtime in a child process, nothing more). Exit code: the
/// node's verdict (0 pass, 1 warn, 2 fail, 3 unknown).
[[nodiscard]] exit_code run_health(const health_options& options);

} // namespace gpuspec::cli
