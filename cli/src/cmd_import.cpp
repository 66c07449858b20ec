// `gpuspec import`: another tool's log (nccl-tests, gpu-burn, dcgmi diag) read into a report
// that check, diff, compare and db ingest take as they take ours (docs/import.md).
#include "gpuspec/cli/cmd_import.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/output_file.hpp"
#include "gpuspec/reports/import/import.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::cli {

std::vector<std::string> import_tool_names() {
  std::vector<std::string> out;
  for (const auto name : reports::tool_names())
    out.emplace_back(name);
  return out;
}

void setup_import(CLI::App& app, import_cli_options& o) {
  auto* cmd = app.add_subcommand(
      "import", "Read another tool's log (nccl-tests, gpu-burn, dcgmi diag) into a report");
  cmd->add_option("LOG", o.logs, "Log files; the tool is recognised from each log's lines")
      ->required()
      ->type_name(value_name::file);
  cmd->add_option("--tool", o.tool, "The tool that wrote the logs, overriding recognition")
      ->check(CLI::IsMember(import_tool_names()));
  cmd->add_option("--inventory", o.inventory,
                  "The node's inventory (gpuspec info --json taken there): its GPUs' names, "
                  "serials, clocks and links for the imported report")
      ->type_name(value_name::file);
  cmd->add_option("-o,--output", o.output,
                  "Write the report to this file (atomically); with several logs, a folder "
                  "that receives <log>.json for each")
      ->type_name(value_name::file);
}

void add_tool_option(CLI::App* cmd, std::string& into, const std::string& inputs) {
  cmd->add_option("--tool", into,
                  "Read every " + inputs +
                      " as this tool's log (otherwise a report, or a log whose tool is "
                      "recognised from its lines: docs/import.md)")
      ->check(CLI::IsMember(import_tool_names()));
}

std::optional<reports::foreign_tool> chosen_tool(const std::string& name) {
  if (name.empty())
    return std::nullopt;
  return reports::tool_from_name(name);
}

namespace {

bool write(const std::filesystem::path& file, const std::string& text) {
  try {
    reports::write_file_atomically(file, text);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuspec import: cannot write {}: {}\n", file.string(), e.what());
    return false;
  }
  return true;
}

} // namespace

exit_code run_import(const import_cli_options& o) {
  std::vector<std::string> inputs = o.logs;
  inputs.push_back(o.inventory);
  if (const auto clash = output_clash(o.output, inputs); !clash.empty()) {
    fmt::print(stderr,
               "gpuspec import: -o {} is the input {}: it would be overwritten; write it "
               "elsewhere\n",
               o.output, clash);
    return exit_code::unknown;
  }
  const bool several = o.logs.size() > 1;
  if (several && o.output.empty()) {
    fmt::print(stderr,
               "gpuspec import: {} logs make {} reports: name a folder for them with "
               "-o\n",
               o.logs.size(), o.logs.size());
    return exit_code::unknown;
  }
  std::error_code ec;
  if (several && !std::filesystem::is_directory(o.output, ec)) {
    fmt::print(stderr,
               "gpuspec import: -o {} is not a folder (several logs are written into "
               "one, each as <log>.json)\n",
               o.output);
    return exit_code::unknown;
  }
  bool bad = false;
  for (const auto& log : o.logs) {
    auto r = reports::load_log(log, chosen_tool(o.tool));
    if (!r) {
      fmt::print(stderr, "gpuspec import: {}\n", r.error().to_string());
      bad = true;
      continue;
    }
    if (!o.inventory.empty())
      if (const auto error = reports::apply_inventory(r.value(), o.inventory)) {
        fmt::print(stderr, "gpuspec import: {}\n", error->to_string());
        bad = true;
        continue;
      }
    const std::string text = reports::to_json_text(r.value());
    if (o.output.empty()) {
      std::cout << text << std::flush;
      continue;
    }
    const auto file = several ? std::filesystem::path(o.output) /
                                    (std::filesystem::path(log).filename().string() + ".json")
                              : std::filesystem::path(o.output);
    if (!write(file, text)) {
      bad = true;
      continue;
    }
    fmt::print(stderr, "gpuspec import: {} ({}, {} results) written to {}\n", log,
               r.value().run.source->tool, r.value().results.size(), file.string());
  }
  return bad ? exit_code::unknown : exit_code::pass;
}

} // namespace gpuspec::cli
