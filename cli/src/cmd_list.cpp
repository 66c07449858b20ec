#include "gpuspec/cli/cmd_list.hpp"

#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/format.hpp"
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
  fmt::print("{}", list_table_text(listings, stdout_table_width()));
  return exit_code::pass;
}

std::string list_table_text(const std::vector<host::benchmark_listing>& listings,
                            std::size_t width) {
  text_table table({"id", "suites", "parameters", "description"});
  // The description gives way first, then the parameters, then the suites (issue 31: `list` was
  // 413 columns wide); the id, an identifier, never does.
  table.set_shrinkable({3, 2, 1}, 12);
  table.set_wrap();
  table.set_below(3);
  for (const auto& l : listings) {
    // An axis's values are joined by '|' with no space (registry.cpp, axes_text): ", " lets a
    // sweep of 19 sizes wrap between values on a terminal; --json keeps the listing's own text.
    std::string parameters;
    for (const char c : l.parameters)
      parameters += c == '|' ? std::string(", ") : std::string(1, c);
    table.add_row({l.id, fmt::format("{}", fmt::join(l.suites, ", ")), parameters, l.description});
  }
  return table.render(width);
}

} // namespace gpuspec::cli
