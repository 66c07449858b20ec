#include "gpuspec/cli/cmd_compare.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/format.hpp"
#include "gpuspec/cli/output_file.hpp"
#include "gpuspec/cli/specs_location.hpp"
#include "gpuspec/reports/import/import.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/spec_table.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::cli {

void setup_compare(CLI::App& app, compare_cli_options& options) {
  auto* cmd = app.add_subcommand(
      "compare", "Reports side by side, normalised by each GPU's own spec; outliers marked");
  cmd->add_option("REPORTS", options.files,
                  "Reports (one is enough to compare the GPUs of one node)")
      ->required()
      ->type_name(value_name::file);
  add_tool_option(cmd, options.tool, "file of REPORTS");
  cmd->add_option("--specs", options.specs,
                  "Spec table (default: $GPUSPEC_SPECS, else the source tree's specs/gpus.json)")
      ->type_name(value_name::file);
  cmd->add_option("--format", options.format,
                  "Output: table (or text), md, json or html (one self-contained page)")
      ->check(CLI::IsMember({"table", "text", "md", "json", "html"}))
      ->capture_default_str();
  cmd->add_flag("--json", options.json, "Print JSON for programs (same as --format json)");
  cmd->add_option("-o,--output", options.output, "Write the output to this file (atomically)")
      ->type_name(value_name::file);
  cmd->add_flag("-v,--verbose", options.verbose,
                "Table: every cell side by side, and the legend of the columns (other formats "
                "hold every cell)");
  cmd->add_option("--outlier-z", options.compare.outlier_z,
                  "Outlier when |modified z-score| (median absolute deviation) exceeds this")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--min-deviation", options.compare.min_relative_deviation,
                  "An outlier is also at least this far from its model's median (0.03 = 3%)")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
}

exit_code run_compare(const compare_cli_options& options) {
  std::vector<std::string> inputs = options.files;
  inputs.push_back(options.specs);
  if (!output_is_safe("compare", options.output, inputs))
    return exit_code::unknown;
  std::vector<reports::report> loaded;
  for (const auto& file : options.files) {
    auto r = reports::load_report_or_log(file, chosen_tool(options.tool));
    if (!r) {
      fmt::print(stderr, "gpuspec compare: {}\n", r.error().to_string());
      return exit_code::unknown;
    }
    loaded.push_back(std::move(r).value());
  }
  reports::spec_table specs;
  std::filesystem::path spec_file = options.specs.empty()
                                        ? reports::default_spec_table_path(specs_dir().string())
                                        : std::filesystem::path(options.specs);
  // A table named by --specs or $GPUSPEC_SPECS must load; the source tree's may be absent.
  const char* env = std::getenv("GPUSPEC_SPECS");
  const bool named = !options.specs.empty() || (env != nullptr && *env != '\0');
  std::error_code ec;
  if (named || std::filesystem::exists(spec_file, ec)) {
    auto t = reports::load_spec_table(spec_file);
    if (!t) {
      fmt::print(stderr, "gpuspec compare: {}\n", t.error().to_string());
      return exit_code::unknown;
    }
    specs = std::move(t).value();
  } else {
    fmt::print(stderr, "gpuspec compare: no spec table at {}: fractions of spec are left blank\n",
               spec_file.string());
  }
  // Columns are named by file name, or by the path as given where two names are the same.
  std::vector<std::string> labels;
  std::set<std::string> names;
  for (const auto& file : options.files)
    names.insert(std::filesystem::path(file).filename().string());
  for (const auto& file : options.files)
    labels.push_back(names.size() == options.files.size()
                         ? std::filesystem::path(file).filename().string()
                         : file);
  const auto c = reports::compare_reports(loaded, labels, specs, options.compare);
  const auto format = chosen_format("compare", options.json, options.format);
  if (!format)
    return exit_code::unknown;
  reports::render_options render;
  render.width = options.output.empty() ? stdout_table_width() : 0;
  render.verbose = options.verbose;
  const auto code = static_cast<exit_code>(reports::exit_code_of(c));
  if (!deliver_output("compare", reports::make_renderer(*format, render)->render(c), options.output,
                      fmt::format("{} (exit code {})", c.outliers > 0 ? "warn" : "pass",
                                  static_cast<int>(code))))
    return exit_code::unknown;
  return code;
}

} // namespace gpuspec::cli
