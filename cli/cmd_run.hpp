#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"

namespace gpuspec::cli {

struct run_cli_options {
  std::string suite = "quick";
  std::string filter;
  std::string devices; ///< "0,2"; empty = all
  std::string output;  ///< report path; default gpuspec-<host>-<UTC>.json
  bool json = false;   ///< print the report instead of the summary table
  int telemetry_period_ms = 20;
  double cv_target = 0.01;
  double min_seconds = 0.5;
  double max_seconds = 15.0;
  int min_samples = 10;
  double stream_array_mib = 1024;
  std::string root = "/"; ///< hidden, tests
  std::vector<std::string> command_line;
};

void setup_run(CLI::App& app, run_cli_options& options);
/// Measures, writes the report atomically (also after each result, and when interrupted),
/// prints the summary. Exit code: see docs/cli.md.
[[nodiscard]] exit_code run_run(const run_cli_options& options);

/// "0,2" -> {0, 2}; throws CLI::ValidationError naming the bad item.
[[nodiscard]] std::vector<int> parse_device_list(const std::string& text);

} // namespace gpuspec::cli
