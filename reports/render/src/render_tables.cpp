// The terminal tables of `gpuspec diff` and `gpuspec compare` (the table renderer's layouts of
// a diff_output and a compare_output), through the one text table.

#include <fmt/format.h>

#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/text_table.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render::detail {

namespace {

std::string opt_value(const std::optional<double>& v) {
  return v ? fmt::format("{:.4g}", *v) : std::string("-");
}

/// The inventory's differences and the GPUs as they were paired.
std::string diff_inventory_tables(const diff_output& d, std::size_t width) {
  std::string out = "Inventory differences\n";
  if (d.inventory.empty()) {
    out += "  none\n";
  } else {
    text_table inv({"scope", "field", "old", "new"});
    for (const auto& c : d.inventory)
      inv.add_row({c.scope, c.field, c.old_value.empty() ? "-" : c.old_value,
                   c.new_value.empty() ? "-" : c.new_value});
    out += inv.render(width);
  }
  out += fmt::format("\nGPUs (paired by {})\n", to_string(d.key));
  text_table gpus({"gpu", "name", "old index", "new index"});
  for (const auto& m : d.devices)
    gpus.add_row({m.identity, m.name, m.old_index ? std::to_string(*m.old_index) : "missing",
                  m.new_index ? std::to_string(*m.new_index) : "missing"});
  out += gpus.render(width);
  return out;
}

std::string diff_metrics_table(const diff_output& d, std::size_t width) {
  using a = text_table::align;
  text_table met(
      {"benchmark", "gpu", "old", "new", "unit", "change", "q", "verdict", "note"},
      {a::left, a::left, a::right, a::right, a::left, a::right, a::right, a::left, a::left});
  met.set_shrinkable({8, 1, 0}, 12);
  for (const auto& m : d.metrics) {
    const std::string axes = format_values(m.axes);
    met.add_row({m.bench_id + (axes.empty() ? "" : " " + axes), m.device, opt_value(m.old_median),
                 opt_value(m.new_median), std::string(to_string(m.unit)),
                 m.relative_change ? fmt::format("{:+.2f}%", 100 * *m.relative_change) : "-",
                 m.q_value ? fmt::format("{:.2g}", *m.q_value) : "-",
                 std::string(to_string(m.verdict)), m.note});
  }
  return met.render(width);
}

} // namespace

std::string diff_text_table(const diff_output& d, std::size_t width) {
  std::string out = fmt::format("Old: {}\nNew: {}\n\n", d.old_label, d.new_label);
  out += diff_inventory_tables(d, width);
  out += fmt::format("\nMetrics (Mann-Whitney U, two-sided, Benjamini-Hochberg over {} pairs; "
                     "significant: q < {} and |change| >= {:.1f}%; fail: a significant regression "
                     ">= {:.1f}%)\n",
                     d.tested, d.options.alpha, 100 * d.options.min_effect,
                     100 * d.options.fail_threshold);
  out += diff_metrics_table(d, width);
  out += fmt::format("\nVerdict: {}\n", to_string(d.verdict));
  return out;
}

std::string compare_text_table(const compare_output& c, std::size_t width) {
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
    const std::string axes = format_values(row.axes);
    std::vector<std::string> cells{row.bench_id + (axes.empty() ? "" : " " + axes),
                                   std::string(to_string(row.unit))};
    for (const auto& cell : row.cells)
      cells.push_back(format_cell(cell));
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

} // namespace gpuspec::reports::render::detail
