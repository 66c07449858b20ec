#pragma once
#include <string>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

namespace gpuspec::cli {

/// `gpuspec __worker`: hidden; what `gpuspec run` starts once per GPU (docs/architecture.md).
struct worker_cli_options {
  bool plan = false;      ///< print the plan of --suite/--filter and exit
  bool probe_mig = false; ///< --probe-mig: the CUDA probe of a MIG device (spine/cuda_probe.hpp)
  std::string suite = "quick";
  std::string filter;
  std::string gpus; ///< "0,1,2": the GPUs the plan is for (spine::plan_request)
};

void setup_worker(CLI::App& app, worker_cli_options& options);
/// The worker's exit code (0, 2 for a malformed assignment, 3 for a bad suite or filter).
[[nodiscard]] int run_worker(const worker_cli_options& options);

} // namespace gpuspec::cli
