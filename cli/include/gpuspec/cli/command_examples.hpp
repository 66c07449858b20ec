#pragma once
/// A few command lines per command, shown at the end of its `--help` and in its man page's
/// EXAMPLES, with the exit codes: what an operator copies first. One table
/// (command_examples.cpp); cli_examples_test checks that every public command has examples and
/// that each names only options its command has.

#include <span>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace gpuspec::cli {

struct command_example {
  std::string_view command_line; ///< "gpuspec check node.json"
  std::string_view what;         ///< "judge one node's report"
};

/// The examples of a command by its path below gpuspec ("check", "db"); empty when it has none.
[[nodiscard]] std::span<const command_example> examples_of(std::string_view command);

/// The help footer of a command: its examples, then the exit codes.
[[nodiscard]] std::string help_footer(std::string_view command);

/// Sets help_footer() as the footer of every public subcommand of `app` (hidden ones, such as
/// the worker's, have none).
void add_example_footers(CLI::App& app);

} // namespace gpuspec::cli
