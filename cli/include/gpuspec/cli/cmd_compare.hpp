#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/reports/judge/compare.hpp"

namespace gpuspec::cli {

struct compare_cli_options {
  std::vector<std::string> files;
  std::string tool;             ///< --tool: every file is this tool's log; "" = recognised
  std::string specs;            ///< --specs FILE; "" for the default spec table
  std::string format = "table"; ///< table (or text) | md | json | html
  bool json = false;            ///< --json: same as --format json
  std::string output;           ///< -o FILE: written atomically; "" for stdout
  bool verbose = false;         ///< -v: the table holds every cell
  reports::compare_options compare;
};

void setup_compare(CLI::App& app, compare_cli_options& options);
/// Loads the reports and the spec table (3 with the file and field named when one is bad),
/// prints them side by side. Exit code: 1 when an outlier was marked, else 0.
[[nodiscard]] exit_code run_compare(const compare_cli_options& options);

} // namespace gpuspec::cli
