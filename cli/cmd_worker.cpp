#include "cmd_worker.hpp"

#include "backend.hpp"

namespace gpuspec::cli {

void setup_worker(CLI::App& app, worker_cli_options& o) {
  auto* cmd = app.add_subcommand("__worker", "One GPU's measurements, started by gpuspec run");
  cmd->group(""); // hidden from --help: an operator never starts it by hand
  cmd->add_flag("--plan", o.plan, "Print the plan of --suite and --filter, then exit");
  cmd->add_option("--suite", o.suite, "Suite to plan");
  cmd->add_option("--filter", o.filter, "Regex on the benchmark id");
}

int run_worker(const worker_cli_options& o) {
  const spine::worker_backend backend = backend_worker();
  if (o.plan)
    return spine::worker_plan_main(backend, o.suite, o.filter);
  return spine::worker_main(backend);
}

} // namespace gpuspec::cli
