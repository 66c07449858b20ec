#pragma once
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/reports/import/import.hpp"

namespace gpuspec::cli {

struct import_cli_options {
  std::vector<std::string> logs; ///< one or more foreign logs
  std::string tool;              ///< "" = recognised from each log's lines
  std::string inventory;         ///< gpuspec info --json of the node; "" = none
  std::string output;            ///< one log: the report file; several: a folder; "" = stdout
};

void setup_import(CLI::App& app, import_cli_options& options);
/// Reads each log into a report (docs/import.md) and writes it: one log to -o (atomically) or
/// stdout, several logs each to <folder>/<log's name>.json. Exit code 0 when every log was read,
/// 3 when one cannot be (the message names the file and the line). The verdict is `check`'s.
[[nodiscard]] exit_code run_import(const import_cli_options& options);

/// `--tool`'s choices, for import and check: the names reports::tool_from_name knows.
[[nodiscard]] std::vector<std::string> import_tool_names();

/// `--tool` on a command that reads reports (check, diff, compare, db ingest): every input is
/// read as that tool's log, into `into`.
void add_tool_option(CLI::App* cmd, std::string& into, const std::string& inputs);

/// The tool `--tool` named, or nullopt when it was not given (recognition decides).
[[nodiscard]] std::optional<reports::foreign_tool> chosen_tool(const std::string& name);

} // namespace gpuspec::cli
