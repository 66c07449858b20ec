#pragma once
/// The life of a run, in one place: the inventory and the spec table, the plan, the workers
/// under the watchdog, the journal, the counters after, the report written atomically. The CLI's
/// `run` and the GPU tests both drive it.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/spine/coordinator.hpp"
#include "gpuspec/spine/inventory.hpp"
#include "gpuspec/spine/mig_units.hpp"
#include "gpuspec/spine/protocol.hpp"
#include "gpuspec/spine/worker.hpp"

namespace gpuspec::spine {

struct session_options {
  /// How each case is measured (suite, stopping rule, telemetry period, STREAM arrays, the
  /// burn-in's duration): sent as it is to every worker in its assignment.
  host::measurement_options measurement;
  std::string filter;       ///< ECMAScript regex on the dotted id; "" = all
  std::vector<int> devices; ///< NVML indices; empty = every GPU (unless mig_devices)
  /// MIG devices `--devices` names ("0:mig3", "MIG-<uuid>": mig_units.hpp): their GPUs are
  /// measured as these MIG devices only.
  std::vector<std::string> mig_devices;
  int concurrency = 0;          ///< GPUs measured at once; 0 = all
  std::filesystem::path output; ///< the report; its journal is beside it (journal_path_for)
  std::filesystem::path specs_file;
  bool specs_file_given = false; ///< --specs: a table that does not load is bad input
  /// A worker's argv; the plan is asked with "--plan --suite S --filter F" appended.
  std::vector<std::string> worker_command;
  double kill_grace_s = 5.0;
  /// Measure a GPU even when other processes use it (the idle precondition: such a GPU is
  /// refused otherwise, and the check says why).
  bool allow_busy = false;
  std::filesystem::path root = "/"; ///< read /proc, /sys, /etc under this (tests)
  /// At the end of the run its Xids are read from the kernel log (host
  /// run_kernel_log.hpp): this saved log when set (GPUSPEC_KERNEL_LOG), else /dev/kmsg or dmesg.
  std::filesystem::path kernel_log_file;
  std::string tool_version;
  std::optional<reports::build_info> build; ///< the report's run.build (gpuspec --version's)
  std::vector<std::string> command_line;
};

/// What the run will do, told before it starts.
struct session_plan {
  std::string backend;
  std::vector<int> devices; ///< the GPUs measured, in order
  /// What the one-GPU cases' workers measure, one worker each, in order: every whole GPU, and
  /// every MIG device of a partitioned one (docs/mig.md).
  std::vector<measured_unit> units;
  /// Selected GPUs refused by the idle precondition (other processes on them), with why.
  std::vector<std::pair<int, std::string>> refused;
  std::size_t cases_per_gpu = 0;
  std::size_t node_cases = 0; ///< cases run once over every GPU together, after the others
  int concurrency = 0;        ///< workers (whole GPUs and MIG devices) measured at once
  double expected_s = 0;      ///< a rough estimate: per case, 1 s of setup plus --min-time
  double deadline_s = 0;      ///< the sum of the deadlines: the longest the run can take
};

class session_observer : public coordinator_observer {
public:
  virtual void on_plan(const session_plan& /*plan*/) {}
  /// A warning or a note for the operator ("no spec table ...", "checkpoint written ...").
  virtual void on_note(const std::string& /*text*/) {}
};

/// Bad input found before anything is measured (a --specs file that does not load, a
/// --devices index the host does not have, a filter the worker rejects): exit code 3.
class session_input_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct session_outcome {
  reports::report report;
  /// Why nothing was measured (no GPU, a host-only build); "" when the workers ran.
  std::string no_run_reason;
  std::filesystem::path journal;
  bool journal_kept = false; ///< the final report could not be written: the journal has all
  /// The spec table the run loaded at its start, for the check after it (loaded once); empty
  /// when it did not load, and then `specs_error` says why.
  std::optional<loaded_specs> specs;
  std::optional<reports::input_error> specs_error;
};

/// Runs the whole session and writes the report to options.output (atomically, from the same
/// results the journal holds). Throws session_input_error for bad input, std::system_error
/// when the report or the journal cannot be written at the start (nothing is measured then).
/// Never throws because a GPU or a worker failed: that is in the results.
[[nodiscard]] session_outcome run_session(const session_options& options,
                                          const runtime_enrichment& enrich,
                                          session_observer& observer,
                                          const std::atomic<bool>& interrupted);

/// `gpuspec run --recover JOURNAL`: the report a journal holds, written atomically to `output`
/// (`duplicate_lines` as recover_report's).
[[nodiscard]] reports::outcome<reports::report>
recover_session(const std::filesystem::path& journal, const std::filesystem::path& output,
                std::size_t* duplicate_lines = nullptr);

/// The worker's plan, asked of `worker_command` with --plan. Throws session_input_error when
/// the worker rejects the suite or filter, std::runtime_error when it fails otherwise.
/// The request's GPUs travel as --gpus (the node-wide cases are planned from them).
[[nodiscard]] worker_plan ask_plan(const std::vector<std::string>& worker_command,
                                   const plan_request& request);

} // namespace gpuspec::spine
