#pragma once
/// The multi-node launcher mode (docs/multi-node.md): one rank per GPU, started by mpirun or
/// srun. Rank 0 gathers every rank's hello, assigns the GPUs, then for each case sends it to
/// every rank, measures its own part and waits for every reply until the case's deadline;
/// the others answer each case and wait for the next. Rank 0 writes one report (atomically,
/// after every case too), with every rank's figures and the slowest rank and node of each case.
/// A rank that does not answer in time, or a job the launcher stops (it SIGTERMs the ranks when
/// one dies), ends the run with a failed result naming the missing ranks, and the report is
/// still written. Every wait has a deadline.

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuspec/collectives/mpi/mpi_case.hpp"
#include "gpuspec/collectives/mpi/mpi_world.hpp"
#include "gpuspec/collectives/mpi/rank_identity.hpp"
#include "gpuspec/collectives/mpi/rank_measure.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/telemetry.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::collectives::mpi {

/// Test hooks, read from the environment (documented as such in docs/multi-node.md): they make
/// one rank misbehave at one case so that the tests can watch the others cope.
///   GPUSPEC_MPI_TEST_KILL_RANK=R   rank R SIGKILLs itself when case GPUSPEC_MPI_TEST_AT_CASE
///                                  (default 1) arrives;
///   GPUSPEC_MPI_TEST_STALL_RANK=R  rank R stops answering at that case (it sleeps until it is
///                                  ended).
struct test_hooks {
  std::optional<int> kill_rank;
  std::optional<int> stall_rank;
  int at_case = 1;
};
[[nodiscard]] test_hooks test_hooks_from_environment(const environment_lookup& env);

struct launcher_options {
  plan_options plan;
  bool pairwise = false;
  int max_all_pairs_nodes = 16;    ///< --pairwise: all pairs up to this many nodes, else bisection
  double bootstrap_timeout_s = 30; ///< for every rank's hello and rank 0's answer
  std::filesystem::path output;    ///< rank 0's report
  std::string tool_version;
  std::optional<reports::build_info> build; ///< the report's run.build (gpuspec --version's)
  std::vector<std::string> command_line;
  test_hooks hooks;
  /// Rank 0: the spec table the cases' link ceilings take each GPU's row from (may be null:
  /// then no datasheet figure, docs/multi-node.md).
  const reports::spec_table* specs = nullptr;
};

/// What this rank's node looks like (the caller takes the inventory).
struct node_view {
  std::string host;
  reports::host_info host_info;
  std::vector<reports::device_info> devices;
  std::string no_gpu_reason; ///< "" when the GPUs are usable
  /// NVML's telemetry on this node, the one-node worker's sampler's source
  /// (make_nvml_telemetry_source); empty when NVML cannot be opened, and then every result of
  /// this rank says so in its telemetry status (`telemetry_unavailable`).
  std::function<std::unique_ptr<host::telemetry_source>()> telemetry;
  std::string telemetry_unavailable = "no telemetry: NVML is not available on this node";
  /// The one-node run's default period (measurement_options), not a second default.
  std::chrono::milliseconds telemetry_period = host::measurement_options{}.telemetry_period;
};

struct launcher_outcome {
  bool root = false;
  /// Rank 0: the report as written to options.output; empty when it could not be written.
  std::optional<reports::report> report;
  /// What to tell the operator (rank 0), or why this rank stopped (others); "" when nothing.
  std::vector<std::string> messages;
  /// Ranks never answered: rank 0 must end them (mpi_world::abort) once it has its exit code.
  bool abort_others = false;
  /// No verdict is possible whatever the report holds (a rank lost rank 0; bad usage): exit 3.
  bool unknown = false;
};

/// Runs this rank's part. Never throws for a peer that is gone or slow: that is in the report.
/// `stop` is the SIGTERM/SIGINT flag (spine/stop_signals.hpp); MPI errors not tied to a peer
/// throw mpi_error.
[[nodiscard]] launcher_outcome run_launcher(mpi_world& world, const launcher_options& options,
                                            const node_view& node, const measure_backend& backend,
                                            const std::atomic<bool>& stop);

} // namespace gpuspec::collectives::mpi
