#pragma once
#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include <cstddef>
#include <string>
#include <vector>

#include "exit_code.hpp"
#include "gpuspec/host/benchmark_listing.hpp"

namespace gpuspec::cli {

struct list_options {
  bool json = false;
};

void setup_list(CLI::App& app, list_options& options);
/// The listing as a table fitted to `width` columns (0: as wide as it needs): identifiers never
/// cut; the suites, the parameters (each axis's values after ", ", so a long sweep wraps between
/// them) and the description wrap at spaces, the description under its row where still too wide.
[[nodiscard]] std::string list_table_text(const std::vector<host::benchmark_listing>& listings,
                                          std::size_t width);
/// Lists the registered benchmarks. 3 in a host-only build, which has none.
[[nodiscard]] exit_code run_list(const list_options& options);

} // namespace gpuspec::cli
