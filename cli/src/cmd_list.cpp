#include "gpuspec/cli/cmd_list.hpp"

#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/text_table.hpp"

namespace gpuspec::cli {

void setup_list(CLI::App& app, list_options& options) {
  auto* cmd = app.add_subcommand("list", "List the benchmarks, their suites and parameters");
  cmd->add_flag("--json", options.json, "Print JSON for programs instead of a table");
}

exit_code run_list(const list_options& options) {
  if (!backend_can_run_benchmarks()) {
    fmt::print(stderr, "gpuspec: no benchmarks in this build: {}\n", backend_description());
    return exit_code::unknown;
  }
  const auto listings = backend_list();
  if (options.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& l : listings)
      out.push_back({{"id", l.id},
                     {"description", l.description},
                     {"suites", l.suites},
                     {"parameters", l.parameters}});
    std::cout << out.dump(2) << '\n';
    return exit_code::pass;
  }
  text_table table({"id", "suites", "parameters", "description"});
  for (const auto& l : listings)
    table.add_row({l.id, fmt::format("{}", fmt::join(l.suites, ",")), l.parameters, l.description});
  fmt::print("{}", table.render());
  return exit_code::pass;
}

} // namespace gpuspec::cli
