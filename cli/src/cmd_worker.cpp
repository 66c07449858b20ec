#include "gpuspec/cli/cmd_worker.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "gpuspec/cli/backend.hpp"

namespace gpuspec::cli {

void setup_worker(CLI::App& app, worker_cli_options& o) {
  auto* cmd = app.add_subcommand("__worker", "One GPU's measurements, started by gpuspec run");
  cmd->group(""); // hidden from --help: an operator never starts it by hand
  cmd->add_flag("--plan", o.plan, "Print the plan of --suite and --filter, then exit");
  cmd->add_option("--suite", o.suite, "Suite to plan");
  cmd->add_option("--filter", o.filter, "Regex on the benchmark id");
  cmd->add_flag("--probe-mig", o.probe_mig,
                "Ask the CUDA runtime for the device CUDA_VISIBLE_DEVICES names (a MIG device): "
                "its count and UUID, no context; print the answer, then exit");
  cmd->add_option("--gpus", o.gpus,
                  "NVML indices of the GPUs the run measures, comma-separated (plans the "
                  "node-wide cases, e.g. transfer.p2p's pairs)");
}

int run_worker(const worker_cli_options& o) {
  const spine::worker_backend backend = backend_worker();
  if (o.probe_mig)
    return spine::worker_probe_main(backend);
  if (o.plan) {
    if (const auto problem = spine::filter_problem(o.filter); !problem.empty()) {
      fmt::print(stderr, "gpuspec worker: {}\n", problem);
      return 3;
    }
    spine::plan_request request{o.suite, o.filter, {}};
    try {
      request.gpus = spine::parse_plan_gpus(o.gpus);
    } catch (const std::invalid_argument& e) {
      fmt::print(stderr, "gpuspec worker: {}\n", e.what());
      return 3;
    }
    return spine::worker_plan_main(backend, request);
  }
  return spine::worker_main(backend);
}

} // namespace gpuspec::cli
