#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/host/measurement_options.hpp"

namespace gpuspec::cli {

struct run_cli_options {
  /// --suite, the stopping rule's flags, --telemetry-period-ms, --stream-array-mib: filled in
  /// place, so their defaults are the options' own (measurement_options.hpp).
  host::measurement_options measurement;
  std::string filter;
  std::string devices;       ///< "0,2"; empty = all
  int concurrency = 0;       ///< GPUs measured at once; 0 = all
  std::string output;        ///< report path; default gpuspec-<host>-<UTC>.json
  std::string specs;         ///< spec table; "" = default_spec_table_path
  std::string recover;       ///< a journal to turn into a report, instead of measuring
  bool json = false;         ///< print the report instead of the summary table
  std::string html;          ///< --html: also write the check's HTML page here; "" = none
  bool allow_busy = false;   ///< measure GPUs that other processes use
  std::string duration;      ///< the burn-in's --duration ("30m"); "" = not given
  double kill_grace_s = 5.0; ///< hidden: SIGTERM to SIGKILL for a worker the watchdog stops
  std::string root = "/";    ///< hidden, tests
  std::vector<std::string> command_line;
};

void setup_run(CLI::App& app, run_cli_options& options);
/// Measures every selected GPU at once through one worker process per GPU, journals each result,
/// writes the report atomically, prints the summary and the check's verdict. With --recover,
/// writes the report a journal holds instead. Exit code: the check's (README, "Commands").
[[nodiscard]] exit_code run_run(const run_cli_options& options);

/// "0,2" -> {0, 2}; throws CLI::ValidationError naming the bad item.
[[nodiscard]] std::vector<int> parse_device_list(const std::string& text);

} // namespace gpuspec::cli
