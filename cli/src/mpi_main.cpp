// gpuspec-mpi: the multi-node launcher mode (docs/multi-node.md). One rank per GPU, started by
// an existing launcher (mpirun, srun), never one of ours; rank 0 writes the one report and
// exits with the check's verdict. This file only wires the options, the inventory, the
// launcher and the check, and owns the one try/catch that turns errors into exit codes.

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include "gpuspec/cli/build_info.hpp"
#include "gpuspec/cli/build_stamp.hpp"
#include "gpuspec/cli/cmd_check.hpp"
#include "gpuspec/cli/exit_code.hpp"
#include "gpuspec/cli/inventory.hpp"
#include "gpuspec/cli/specs_location.hpp"
#include "gpuspec/collectives/mpi/launcher.hpp"
#include "gpuspec/collectives/mpi/mpi_world.hpp"
#include "gpuspec/collectives/mpi/rank_measure.hpp"
#include "gpuspec/host/network_ports.hpp"
#include "gpuspec/host/telemetry.hpp"
#include "gpuspec/reports/model/spec_table.hpp"
#include "gpuspec/spine/stop_signals.hpp"

namespace {

namespace mpi = gpuspec::collectives::mpi;
using gpuspec::cli::exit_code;
using gpuspec::cli::to_int;

struct mpi_cli_options {
  std::string output;
  std::string sizes = "1M,64M";
  std::vector<std::string> collectives = {"all_reduce"};
  double case_timeout_s = 60;
  double bootstrap_timeout_s = 30;
  bool pairwise = false;
  int max_all_pairs_nodes = 16;
  std::string specs;
};

void setup(CLI::App& app, mpi_cli_options& o) {
  app.add_option("-o,--output", o.output,
                 "Rank 0's report (default gpuspec-mpi-<host>-<UTC time>.json)");
  app.add_option("--sizes", o.sizes, "Message sizes, e.g. 1M,64M,1G (bytes; K, M, G binary)");
  app.add_option("--collectives", o.collectives, "Collectives (default all_reduce)")
      ->delimiter(',');
  app.add_option("--case-timeout", o.case_timeout_s,
                 "Seconds every rank has to answer one case; past it the case fails naming the "
                 "ranks that had not arrived")
      ->check(CLI::Range(0.1, 86400.0));
  app.add_option("--bootstrap-timeout", o.bootstrap_timeout_s,
                 "Seconds for every rank to start and for rank 0 to answer")
      ->check(CLI::Range(0.1, 3600.0));
  app.add_flag("--pairwise", o.pairwise,
               "Measure every pair of nodes in turn (a bisection above --max-all-pairs-nodes)");
  app.add_option("--max-all-pairs-nodes", o.max_all_pairs_nodes,
                 "--pairwise: all pairs up to this many nodes, a bisection above")
      ->check(CLI::Range(2, 100000));
  app.add_option("--specs", o.specs, "Spec table for the check (default: specs/gpus.json)");
}

std::string default_output(const std::string& host) {
  std::string name;
  for (char c : host.empty() ? std::string("host") : host)
    name += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.') ? c : '_';
  return fmt::format("gpuspec-mpi-{}-{:%Y%m%dT%H%M%SZ}.json", name,
                     fmt::gmtime(std::time(nullptr)));
}

/// This rank's node: the inventory `gpuspec info` takes, its InfiniBand / RoCE ports, and NVML for
/// the telemetry sampler (the one-node worker's).
mpi::node_view take_node(const mpi::environment_lookup& env) {
  auto inv = gpuspec::cli::take_inventory();
  mpi::node_view node;
  node.host_info = inv.host;
  node.host_info.network_ports = gpuspec::host::read_network_ports("/");
  node.devices = inv.devices;
  node.host = inv.host.hostname;
  if (node.host.empty()) {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) == 0)
      node.host = name;
  }
  // Test hook (docs/multi-node.md): ranks on one machine stand for two nodes.
  if (const auto host = env("GPUSPEC_MPI_TEST_HOSTNAME"); host && !host->empty())
    node.host = *host;
  node.host_info.hostname = node.host;
  if (!gpuspec::cli::has_gpus(inv))
    node.no_gpu_reason =
        inv.host.gpu_status != "ok" ? inv.host.gpu_status : std::string("no GPU in the inventory");
  if (inv.nvml && !env("GPUSPEC_MPI_TEST_NO_TELEMETRY")) {
    auto nvml = std::make_shared<gpuspec::host::nvml_library>(std::move(*inv.nvml));
    node.telemetry = [nvml] { return gpuspec::host::make_nvml_telemetry_source(*nvml); };
  } else {
    node.telemetry_unavailable =
        fmt::format("no telemetry: NVML is not available on {} ({})", node.host,
                    inv.nvml ? "GPUSPEC_MPI_TEST_NO_TELEMETRY is set" : inv.host.gpu_status);
  }
  return node;
}

int run(int argc, char** argv, const mpi_cli_options& o) {
  mpi::mpi_world world(argc, argv);
  const gpuspec::spine::stop_signal_guard interrupt(gpuspec::spine::second_signal::ends_process);
  const auto env = mpi::process_environment();
  const auto node = take_node(env);

  mpi::launcher_options options;
  options.plan.collectives = o.collectives;
  options.plan.sizes = mpi::parse_sizes(o.sizes);
  options.plan.case_timeout_s = o.case_timeout_s;
  options.pairwise = o.pairwise;
  options.max_all_pairs_nodes = o.max_all_pairs_nodes;
  options.bootstrap_timeout_s = o.bootstrap_timeout_s;
  options.output = o.output.empty() ? default_output(node.host) : o.output;
  options.tool_version = std::string(gpuspec::cli::this_build_stamp().version);
  options.build = gpuspec::cli::this_build();
  options.command_line.assign(argv, argv + argc);
  options.hooks = mpi::test_hooks_from_environment(env);
  // The spec table the link ceilings take the GPUs' rows from (rank 0); the check loads its own.
  std::optional<gpuspec::reports::spec_table> specs;
  if (world.rank() == 0) {
    const auto path =
        o.specs.empty()
            ? gpuspec::reports::default_spec_table_path(gpuspec::cli::specs_dir().string())
            : std::filesystem::path(o.specs);
    auto loaded = gpuspec::reports::load_spec_table(path);
    if (loaded)
      specs = std::move(loaded).value();
    else
      fmt::print(stderr, "gpuspec-mpi: warning: {}: the ceilings have no datasheet figure\n",
                 loaded.error().to_string());
  }
  options.specs = specs ? &*specs : nullptr;

  const auto backend = mpi::collective_rank_backend();
  const auto outcome = mpi::run_launcher(world, options, node, backend, interrupt.requested());
  for (const auto& m : outcome.messages)
    fmt::print(stderr, "gpuspec-mpi: {}\n", m);
  if (!outcome.root)
    return to_int(outcome.unknown ? exit_code::unknown : exit_code::pass);

  exit_code code = exit_code::unknown;
  if (outcome.report) {
    fmt::print(stderr, "gpuspec-mpi: {} rank(s), report written to {}{}\n", world.size(),
               options.output.string(),
               outcome.report->complete
                   ? ""
                   : fmt::format(" (incomplete: {})", outcome.report->incomplete_reason));
    code = gpuspec::cli::check_after_run(*outcome.report, options.output.string(), true, o.specs);
  }
  if (outcome.unknown)
    code = exit_code::unknown;
  std::fflush(stdout);
  std::fflush(stderr);
  if (outcome.abort_others)
    world.abort(to_int(code)); // the ranks that never answered are ended with the job
  return to_int(code);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpuspec-mpi: the multi-node launcher mode, one rank per GPU under mpirun or "
               "srun; rank 0 writes one report"};
  // Called only when --version is given (build_info.hpp), before MPI starts: it needs no job.
  app.set_version_flag(
      "--version", [] { return gpuspec::cli::version_text("gpuspec-mpi"); },
      "Print the version, commit, build date and the CUDA, cuBLAS, NCCL and NVML "
      "versions built against and found, and exit");
  mpi_cli_options options;
  setup(app, options);
  try {
    app.parse(argc, argv); // before MPI starts: --help and usage errors need no job
    (void)mpi::parse_sizes(options.sizes);
  } catch (const CLI::ParseError& e) {
    return e.get_exit_code() == 0 ? app.exit(e) : ((void)app.exit(e), to_int(exit_code::unknown));
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "gpuspec-mpi: --sizes: {}\n", e.what());
    return to_int(exit_code::unknown);
  }
  try {
    return run(argc, argv, options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuspec-mpi: error: {}\n", e.what());
    return to_int(exit_code::unknown);
  }
}
