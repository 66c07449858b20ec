#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::cli {

struct info_options {
  bool json = false;
  std::string root = "/"; ///< hidden: read /proc and /sys under another root (tests)
};

void setup_info(CLI::App& app, info_options& options);
/// Prints the inventory. Exit code: 3 when there is no usable GPU; else the host checks'
/// worst verdict (0 pass, 1 warn, 2 fail).
[[nodiscard]] exit_code run_info(const info_options& options);
/// The host checks as a terminal table.
[[nodiscard]] std::string check_table(const std::vector<reports::host_check>& checks);
/// Worst-wins over the host checks (skipped counts as pass).
[[nodiscard]] exit_code host_check_verdict(const std::vector<reports::host_check>& checks);

} // namespace gpuspec::cli
