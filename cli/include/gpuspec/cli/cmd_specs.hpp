#pragma once
#include <string>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/reports/judge/spec_check.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::cli {

struct specs_options {
  std::string id; ///< one row to show; empty: list them all
  std::string
      table; ///< --table FILE; empty: $GPUSPEC_SPECS, else the source tree's specs/gpus.json
  bool check = false;
  bool json = false;
};

void setup_specs(CLI::App& app, specs_options& options);
/// Lists the spec table, shows one row, or checks every row's figures (--check).
/// Exit code: 3 for a bad table or an unknown id; with --check, 1 when a figure disagrees with
/// its recomputation by more than 2% and no check note explains it (a data-quality warning, not
/// a failed GPU), else 0.
[[nodiscard]] exit_code run_specs(const specs_options& options);

/// The --check findings as a terminal table.
[[nodiscard]] std::string spec_findings_table(const std::vector<reports::spec_finding>& findings);

} // namespace gpuspec::cli
