#include "gpuspec/cli/cmd_diff.hpp"

#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/cmd_import.hpp"
#include "gpuspec/cli/format.hpp"
#include "gpuspec/cli/output_file.hpp"
#include "gpuspec/reports/import/import.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::cli {

void setup_diff(CLI::App& app, diff_cli_options& options) {
  auto* cmd = app.add_subcommand(
      "diff", "What changed between two reports: inventory, then each metric against its noise");
  cmd->add_option("OLD", options.old_file, "The earlier report")
      ->required()
      ->type_name(value_name::file);
  cmd->add_option("NEW", options.new_file, "The later report")
      ->required()
      ->type_name(value_name::file);
  add_tool_option(cmd, options.tool, "OLD and NEW");
  cmd->add_option("--format", options.format,
                  "Output: table (or text), md, json or html (one self-contained page)")
      ->check(CLI::IsMember({"table", "text", "md", "json", "html"}))
      ->capture_default_str();
  cmd->add_flag("--json", options.json, "Print JSON for programs (same as --format json)");
  cmd->add_option("-o,--output", options.output, "Write the output to this file (atomically)")
      ->type_name(value_name::file);
  cmd->add_option("--alpha", options.diff.alpha,
                  "False-discovery rate over all metrics (Benjamini-Hochberg q-value bound)")
      ->check(CLI::Range(1e-12, 0.5))
      ->capture_default_str();
  cmd->add_option("--min-effect", options.diff.min_effect,
                  "Smallest relative change of the median that counts (0.02 = 2%)")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--fail-threshold", options.diff.fail_threshold,
                  "A significant regression at least this large fails (0.05 = 5%)")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
}

exit_code run_diff(const diff_cli_options& options) {
  if (options.diff.fail_threshold < options.diff.min_effect) {
    fmt::print(stderr, "gpuspec diff: --fail-threshold ({}) is below --min-effect ({})\n",
               options.diff.fail_threshold, options.diff.min_effect);
    return exit_code::unknown;
  }
  if (!output_is_safe("diff", options.output, {options.old_file, options.new_file}))
    return exit_code::unknown;
  auto old_report = reports::load_report_or_log(options.old_file, chosen_tool(options.tool));
  if (!old_report) {
    fmt::print(stderr, "gpuspec diff: {}\n", old_report.error().to_string());
    return exit_code::unknown;
  }
  auto new_report = reports::load_report_or_log(options.new_file, chosen_tool(options.tool));
  if (!new_report) {
    fmt::print(stderr, "gpuspec diff: {}\n", new_report.error().to_string());
    return exit_code::unknown;
  }
  std::vector<reports::report> both;
  both.push_back(std::move(old_report).value());
  both.push_back(std::move(new_report).value());
  const auto d = reports::diff_reports(both[0], both[1], options.diff);
  const auto format = chosen_format("diff", options.json, options.format);
  if (!format)
    return exit_code::unknown;
  reports::render_options render;
  render.width = options.output.empty() ? stdout_table_width() : 0;
  render.reports = &both; // the html page embeds OLD and NEW
  const int code = reports::exit_code_of(d);
  if (!deliver_output("diff", reports::make_renderer(*format, render)->render(d), options.output,
                      fmt::format("{} (exit code {})", reports::to_string(d.verdict), code)))
    return exit_code::unknown;
  return static_cast<exit_code>(code);
}

} // namespace gpuspec::cli
