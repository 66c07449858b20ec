#include "cmd_diff.hpp"

#include <iostream>

#include <fmt/format.h>

#include "format.hpp"
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/units.hpp"
#include "text_table.hpp"

namespace gpuspec::cli {

void setup_diff(CLI::App& app, diff_cli_options& options) {
  auto* cmd = app.add_subcommand(
      "diff", "What changed between two reports: inventory, then each metric against its noise");
  cmd->add_option("OLD", options.old_file, "The earlier report")->required();
  cmd->add_option("NEW", options.new_file, "The later report")->required();
  cmd->add_option("--format", options.format, "Output: table, md or json")
      ->check(CLI::IsMember({"table", "md", "json"}))
      ->capture_default_str();
  cmd->add_flag("--json", options.json, "Print JSON for programs (same as --format json)");
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

namespace {
std::string opt_value(const std::optional<double>& v) {
  return v ? fmt::format("{:.4g}", *v) : std::string("-");
}
} // namespace

std::string diff_table(const reports::diff_output& d, std::size_t width) {
  std::string out =
      fmt::format("Old: {}\nNew: {}\n\nInventory differences\n", d.old_label, d.new_label);
  if (d.inventory.empty()) {
    out += "  none\n";
  } else {
    text_table inv({"scope", "field", "old", "new"});
    for (const auto& c : d.inventory)
      inv.add_row({c.scope, c.field, c.old_value.empty() ? "-" : c.old_value,
                   c.new_value.empty() ? "-" : c.new_value});
    out += inv.render(width);
  }
  out += fmt::format("\nGPUs (paired by {})\n", reports::to_string(d.key));
  text_table gpus({"gpu", "name", "old index", "new index"});
  for (const auto& m : d.devices)
    gpus.add_row({m.identity, m.name, m.old_index ? std::to_string(*m.old_index) : "missing",
                  m.new_index ? std::to_string(*m.new_index) : "missing"});
  out += gpus.render(width);
  out += fmt::format("\nMetrics (Mann-Whitney U, two-sided, Benjamini-Hochberg over {} pairs; "
                     "significant: q < {} and |change| >= {:.1f}%; fail: a significant regression "
                     ">= {:.1f}%)\n",
                     d.tested, d.options.alpha, 100 * d.options.min_effect,
                     100 * d.options.fail_threshold);
  using a = text_table::align;
  text_table met(
      {"benchmark", "gpu", "old", "new", "unit", "change", "q", "verdict", "note"},
      {a::left, a::left, a::right, a::right, a::left, a::right, a::right, a::left, a::left});
  met.set_shrinkable({8, 1, 0}, 12);
  for (const auto& m : d.metrics) {
    const std::string axes = reports::format_values(m.axes);
    met.add_row({m.bench_id + (axes.empty() ? "" : " " + axes), m.device, opt_value(m.old_median),
                 opt_value(m.new_median), std::string(reports::to_string(m.unit)),
                 m.relative_change ? fmt::format("{:+.2f}%", 100 * *m.relative_change) : "-",
                 m.q_value ? fmt::format("{:.2g}", *m.q_value) : "-",
                 std::string(reports::to_string(m.verdict)), m.note});
  }
  out += met.render(width);
  out += fmt::format("\nVerdict: {}\n", reports::to_string(d.verdict));
  return out;
}

exit_code run_diff(const diff_cli_options& options) {
  if (options.diff.fail_threshold < options.diff.min_effect) {
    fmt::print(stderr, "gpuspec diff: --fail-threshold ({}) is below --min-effect ({})\n",
               options.diff.fail_threshold, options.diff.min_effect);
    return exit_code::unknown;
  }
  auto old_report = reports::load_report(options.old_file);
  if (!old_report) {
    fmt::print(stderr, "gpuspec diff: {}\n", old_report.error().to_string());
    return exit_code::unknown;
  }
  auto new_report = reports::load_report(options.new_file);
  if (!new_report) {
    fmt::print(stderr, "gpuspec diff: {}\n", new_report.error().to_string());
    return exit_code::unknown;
  }
  const auto d = reports::diff_reports(old_report.value(), new_report.value(), options.diff);
  const std::string format = options.json ? "json" : options.format;
  if (format == "json")
    std::cout << reports::to_json(d).dump(2) << '\n';
  else if (format == "md")
    std::cout << reports::to_markdown(d);
  else
    std::cout << diff_table(d, stdout_table_width());
  switch (d.verdict) {
  case reports::check_status::fail:
    return exit_code::fail;
  case reports::check_status::warn:
    return exit_code::warn;
  case reports::check_status::pass:
  case reports::check_status::skipped:
    return exit_code::pass;
  }
  return exit_code::pass;
}

} // namespace gpuspec::cli
