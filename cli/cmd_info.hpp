#pragma once
#include <string>

#include <CLI/App.hpp>

#include "exit_code.hpp"

namespace gpuspec::cli {

struct info_options {
  bool json = false;
  std::string root = "/"; ///< hidden: read /proc and /sys under another root (tests)
};

void setup_info(CLI::App& app, info_options& options);
/// Prints the inventory. 0 with at least one GPU, 3 when there is no GPU part.
[[nodiscard]] exit_code run_info(const info_options& options);

} // namespace gpuspec::cli
