#pragma once
#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"

namespace gpuspec::cli {

struct list_options {
  bool json = false;
};

void setup_list(CLI::App& app, list_options& options);
/// Lists the registered benchmarks. 3 in a host-only build, which has none.
[[nodiscard]] exit_code run_list(const list_options& options);

} // namespace gpuspec::cli
