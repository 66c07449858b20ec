#pragma once
#include <string>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/reports/judge/diff.hpp"

namespace gpuspec::cli {

struct diff_cli_options {
  std::string old_file, new_file;
  std::string tool;             ///< --tool: both files are this tool's logs; "" = recognised
  std::string format = "table"; ///< table (or text) | md | json | html
  bool json = false;            ///< --json: same as --format json
  std::string output;           ///< -o FILE: written atomically; "" for stdout
  reports::diff_options diff;
};

void setup_diff(CLI::App& app, diff_cli_options& options);
/// Loads both reports (3 with the file and field named when either is bad), prints the diff.
/// Exit code: 2 on a significant regression beyond the fail threshold (or a result that failed
/// anew), 1 on a warning, 0 otherwise.
[[nodiscard]] exit_code run_diff(const diff_cli_options& options);

} // namespace gpuspec::cli
