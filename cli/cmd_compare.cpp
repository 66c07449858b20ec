#include "cmd_compare.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "format.hpp"
#include "gpuspec/reports/diff.hpp"
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/spec_table.hpp"
#include "gpuspec/reports/units.hpp"
#include "specs_location.hpp"
#include "text_table.hpp"

namespace gpuspec::cli {

void setup_compare(CLI::App& app, compare_cli_options& options) {
  auto* cmd = app.add_subcommand(
      "compare", "Reports side by side, normalised by each GPU's own spec; outliers marked");
  cmd->add_option("REPORTS", options.files,
                  "Reports (one is enough to compare the GPUs of one node)")
      ->required();
  cmd->add_option("--specs", options.specs,
                  "Spec table (default: $GPUSPEC_SPECS, else the source tree's specs/gpus.json)");
  cmd->add_option("--format", options.format, "Output: table, md or json")
      ->check(CLI::IsMember({"table", "md", "json"}))
      ->capture_default_str();
  cmd->add_flag("--json", options.json, "Print JSON for programs (same as --format json)");
  cmd->add_option("--outlier-z", options.compare.outlier_z,
                  "Outlier when |modified z-score| (median absolute deviation) exceeds this")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--min-deviation", options.compare.min_relative_deviation,
                  "An outlier is also at least this far from its model's median (0.03 = 3%)")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
}

std::string compare_table(const reports::compare_output& c, std::size_t width) {
  std::string out;
  text_table cols({"column", "report", "host", "gpu", "spec"});
  cols.set_shrinkable({2, 3, 1}, 12);
  for (const auto& col : c.columns)
    cols.add_row({col.label, col.report, col.hostname, col.gpu_name,
                  col.spec_id.empty() ? "no spec row" : col.spec_id});
  out += cols.render(width) + '\n';
  std::vector<std::string> header{"benchmark", "unit"};
  std::vector<text_table::align> align(2, text_table::align::left);
  for (const auto& col : c.columns) {
    header.push_back(col.label);
    align.push_back(text_table::align::right);
  }
  text_table rows(header, align);
  rows.set_shrinkable({0}, 20);
  for (const auto& row : c.rows) {
    const std::string axes = reports::format_values(row.axes);
    std::vector<std::string> cells{row.bench_id + (axes.empty() ? "" : " " + axes),
                                   std::string(reports::to_string(row.unit))};
    for (const auto& cell : row.cells)
      cells.push_back(reports::format_cell(cell));
    rows.add_row(std::move(cells));
  }
  out += rows.render(width);
  out += fmt::format(
      "\nIn brackets: the fraction of the result's reference, the ceiling check judges it by "
      "(\"clk\": at the clock seen; else the datasheet). \"not supported\" and \"failed\" are "
      "the report's; \"-\" a case not run. {} outlier(s) (|modified z| > {} and at least {:.1f}% "
      "from the median of the GPU model).\n",
      c.outliers, c.options.outlier_z, 100 * c.options.min_relative_deviation);
  return out;
}

exit_code run_compare(const compare_cli_options& options) {
  std::vector<reports::report> loaded;
  for (const auto& file : options.files) {
    auto r = reports::load_report(file);
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
  const std::string format = options.json ? "json" : options.format;
  if (format == "json")
    std::cout << reports::to_json(c).dump(2) << '\n';
  else if (format == "md")
    std::cout << reports::to_markdown(c);
  else
    std::cout << compare_table(c, stdout_table_width());
  return c.outliers > 0 ? exit_code::warn : exit_code::pass;
}

} // namespace gpuspec::cli
