#pragma once
#include <string>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"

namespace gpuspec::cli {

struct health_options {
  std::string format = "table"; ///< table (or text) | json | prom | reason | kube
  bool json = false;
  std::string specs;  ///< spec table (default: the shipped one)
  std::string output; ///< write here atomically instead of stdout
  bool no_kernel_log = false;
  std::string root = "/"; ///< hidden: read /proc, /sys and /etc under another root (tests)
};

void setup_health(CLI::App& app, health_options& options);
/// The passive health check (docs/health.md): no CUDA context, no kernel. Exit code: the
/// node's verdict (0 pass, 1 warn, 2 fail, 3 unknown).
[[nodiscard]] exit_code run_health(const health_options& options);

} // namespace gpuspec::cli
