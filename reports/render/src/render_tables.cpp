// The terminal tables of `gpuspec diff` and `gpuspec compare` (the table renderer's layouts of
// a diff_output and a compare_output), through the one text table.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
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
    inv.set_shrinkable({3, 2, 0}, 12);
    inv.set_wrap();
    for (const auto& c : d.inventory)
      inv.add_row({escape_control(c.scope), c.field,
                   c.old_value.empty() ? "-" : escape_control(c.old_value),
                   c.new_value.empty() ? "-" : escape_control(c.new_value)});
    out += inv.render(width);
  }
  out += fmt::format("\nGPUs (paired by {})\n", to_string(d.key));
  text_table gpus({"gpu", "name", "old index", "new index"});
  gpus.set_shrinkable({1, 0}, 12);
  gpus.set_wrap();
  for (const auto& m : d.devices)
    gpus.add_row({escape_control(m.identity), escape_control(m.name),
                  m.old_index ? std::to_string(*m.old_index) : "missing",
                  m.new_index ? std::to_string(*m.new_index) : "missing"});
  out += gpus.render(width);
  return out;
}

std::string change_text(const metric_diff& m) {
  return m.relative_change ? fmt::format("{:+.2f}%", 100 * *m.relative_change) : "-";
}

std::string bench_text(const metric_diff& m) {
  const std::string axes = format_values(m.axes);
  return m.bench_id + (axes.empty() ? "" : " " + axes);
}

/// The metrics, one row each: the benchmark and its GPUs (by index; the pairing table above
/// gives each one's identity) whole, the note wrapped and, where the row is still too wide,
/// under it.
std::string diff_metrics_table(const std::vector<const metric_diff*>& metrics, std::size_t width) {
  using a = text_table::align;
  text_table met(
      {"benchmark", "gpu", "old", "new", "unit", "change", "q", "verdict", "note"},
      {a::left, a::left, a::right, a::right, a::left, a::right, a::right, a::left, a::left});
  met.set_shrinkable({8, 0}, 16);
  met.set_wrap();
  met.set_below(8);
  for (const auto* m : metrics)
    met.add_row({bench_text(*m), metric_gpus_text(*m), opt_value(m->old_median),
                 opt_value(m->new_median), std::string(to_string(m->unit)), change_text(*m),
                 m->q_value ? fmt::format("{:.2g}", *m->q_value) : "-",
                 std::string(to_string(m->verdict)), escape_control(m->note)});
  return met.render(width);
}

/// "FAIL (exit code 2)", the words check's verdict line uses.
std::string diff_verdict_text(const diff_output& d) {
  return fmt::format("{} (exit code {})", upper(to_string(d.verdict)), exit_code_of(d));
}

} // namespace

std::string diff_text_table(const diff_output& d, std::size_t width) {
  // The answer first (issue 31), as check prints it: the verdict, then the metrics that fail or
  // warn, naming benchmark and GPU; then the details; the verdict again last.
  const auto bad = not_passing(d);
  std::string out = fmt::format("Verdict: {}; {} metric{}, {}\n", diff_verdict_text(d),
                                d.metrics.size(), d.metrics.size() == 1 ? "" : "s",
                                bad.empty() ? std::string("all passing")
                                            : fmt::format("{} not passing", bad.size()));
  if (!bad.empty())
    out += "\nNot passing, worst first\n" + diff_metrics_table(bad, width);
  out += fmt::format("\nOld: {}\nNew: {}\n\n", escape_control(d.old_label),
                     escape_control(d.new_label));
  out += diff_inventory_tables(d, width);
  out += "\n" + wrap_hanging("Metrics ",
                             fmt::format("(Mann-Whitney U, two-sided, Benjamini-Hochberg over {} "
                                         "pairs; significant: q < {} and |change| >= {:.1f}%; "
                                         "fail: a significant regression >= {:.1f}%)",
                                         d.tested, d.options.alpha, 100 * d.options.min_effect,
                                         100 * d.options.fail_threshold),
                             width, 2);
  std::vector<const metric_diff*> all;
  for (const auto& m : d.metrics)
    all.push_back(&m);
  out += diff_metrics_table(all, width);
  out += fmt::format("\nVerdict: {}\n", diff_verdict_text(d));
  return out;
}

namespace {

/// "dgx-07", or "dgx-07 (r.json)" where two reports name the same host.
std::string host_text(const compare_output& c, const std::string& host, const std::string& report) {
  for (const auto& col : c.columns)
    if (col.hostname == host && col.report != report)
      return escape_control(host) + " (" + escape_control(report) + ")";
  return escape_control(host.empty() ? report : host);
}

std::string case_text(const compare_row& row) {
  const std::string axes = format_values(row.axes);
  return row.bench_id + (axes.empty() ? "" : " " + axes);
}

/// The outliers, one row per case and report: host, GPUs, the metric and how far from its
/// model's median. A node whose every GPU is low on a case is one row ("0-7").
std::string compare_findings_table(const compare_output& c, std::size_t width) {
  using a = text_table::align;
  text_table t({"host", "gpu", "benchmark", "vs median"}, {a::left, a::left, a::left, a::right});
  t.set_shrinkable({0, 2}, 16);
  t.set_wrap();
  for (const auto& f : compare_findings(c))
    t.add_row({host_text(c, f.hostname, f.report),
               f.mig_devices.empty() ? format_gpu_ranges(f.gpus)
                                     : fmt::format("{}", fmt::join(f.mig_devices, ", ")),
               case_text(*f.row), fmt::format("{:+.1f}%", 100 * f.deviation)});
  return t.render(width);
}

/// Per GPU model, one row per case: how many GPUs, the median, the lowest and highest as their
/// distance from it, the outliers. Its size does not grow with the fleet.
std::string compare_summary_tables(const compare_output& c, std::size_t width) {
  std::vector<std::string> models;
  std::map<std::string, std::set<std::size_t>> gpus_of;
  for (std::size_t i = 0; i < c.columns.size(); ++i) {
    const auto& col = c.columns[i];
    const std::string model = comparison_group(col); // a MIG profile apart from whole GPUs
    if (gpus_of[model].empty())
      models.push_back(model);
    gpus_of[model].insert(i);
  }
  std::string out;
  for (const auto& model : models) {
    using a = text_table::align;
    text_table t({"benchmark", "gpus", "median", "lowest", "highest", "outliers"},
                 {a::left, a::right, a::right, a::right, a::right, a::right});
    t.set_shrinkable({0}, 16);
    t.set_wrap();
    for (const auto& row : c.rows) {
      std::vector<double> values;
      std::size_t outliers = 0;
      for (const auto i : gpus_of[model])
        if (row.cells[i] && row.cells[i]->state == cell_state::measured) {
          values.push_back(row.cells[i]->value);
          outliers += row.cells[i]->outlier ? 1 : 0;
        }
      if (values.empty())
        continue;
      const double m = median_of(values);
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      const auto from_median = [m](double v) {
        return m != 0 ? fmt::format("{:+.1f}%", 100 * (v - m) / std::fabs(m)) : std::string("-");
      };
      t.add_row({case_text(row), std::to_string(values.size()), format_quantity(m, row.unit),
                 from_median(*lo), from_median(*hi), std::to_string(outliers)});
    }
    out += fmt::format("\n{}, {} GPU{}\n", escape_control(model), gpus_of[model].size(),
                       gpus_of[model].size() == 1 ? "" : "s");
    out += t.empty() ? "  nothing measured\n" : t.render(width);
  }
  return out;
}

/// Every cell, a column per GPU, in as many slices of columns as the width needs (each slice
/// repeats the benchmark), with the legend of the columns before it.
std::string compare_matrix(const compare_output& c, std::size_t width) {
  std::string out;
  text_table cols({"column", "report", "host", "gpu", "spec"});
  cols.set_shrinkable({2, 3, 1}, 12);
  cols.set_wrap();
  for (const auto& col : c.columns)
    cols.add_row({col.label, escape_control(col.report), escape_control(col.hostname),
                  escape_control(col.gpu_name), col.spec_id.empty() ? "no spec row" : col.spec_id});
  out += cols.render(width) + '\n';
  std::vector<std::vector<std::string>> cells(c.columns.size());
  for (std::size_t k = 0; k < c.columns.size(); ++k)
    for (const auto& row : c.rows)
      cells[k].push_back(format_cell(row.cells[k]));
  const auto slice = [&](std::size_t first, std::size_t last) {
    std::vector<std::string> header{"benchmark", "unit"};
    std::vector<text_table::align> align(2, text_table::align::left);
    for (std::size_t k = first; k < last; ++k) {
      header.push_back(c.columns[k].label);
      align.push_back(text_table::align::right);
    }
    text_table rows(header, align);
    rows.set_shrinkable({0}, 20);
    rows.set_wrap();
    for (std::size_t r = 0; r < c.rows.size(); ++r) {
      std::vector<std::string> line{case_text(c.rows[r]), std::string(to_string(c.rows[r].unit))};
      for (std::size_t k = first; k < last; ++k)
        line.push_back(cells[k][r]);
      rows.add_row(std::move(line));
    }
    return rows.render(width);
  };
  const auto widest = [](const std::string& text) {
    std::size_t w = 0, start = 0;
    for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
      w = std::max(w, text_table::display_width(std::string_view(text).substr(start, nl - start)));
      start = nl + 1;
    }
    return w;
  };
  // Each slice takes as many GPU columns as fit (at least one), measured by rendering it.
  for (std::size_t first = 0; first < c.columns.size();) {
    std::size_t last = width == 0 ? c.columns.size() : first + 1;
    std::string text = slice(first, last);
    while (last < c.columns.size()) {
      std::string wider = slice(first, last + 1);
      if (width != 0 && widest(wider) > width)
        break;
      text = std::move(wider);
      ++last;
    }
    out += (first == 0 ? "" : "\n") + text;
    first = last;
  }
  return out;
}

} // namespace

std::string compare_text_table(const compare_output& c, std::size_t width, bool verbose) {
  // The answer first (issue 31): the verdict, then the outliers named (host, GPU, metric, how
  // far from the model's median), then one line per case and model; every cell side by side
  // only with -v (or where it is a few GPUs), since a fleet's would be thousands of columns.
  std::set<std::string> reports;
  for (const auto& col : c.columns)
    reports.insert(col.report);
  const char* verdict = c.outliers > 0 ? "WARN" : "PASS";
  std::string out = fmt::format(
      "Verdict: {} (exit code {}); {} GPU{} in {} report{}, {} outlier{}\n", verdict,
      exit_code_of(c), c.columns.size(), c.columns.size() == 1 ? "" : "s", reports.size(),
      reports.size() == 1 ? "" : "s", c.outliers, c.outliers == 1 ? "" : "s");
  if (c.outliers > 0)
    out += "\nOutliers, worst first\n" + compare_findings_table(c, width);
  out += "\nBy case and GPU model" + compare_summary_tables(c, width);
  out +=
      "\n" + wrap_hanging("",
                          fmt::format("Outlier: |modified z| > {} and at least {:.1f}% from "
                                      "the median of the GPU model.",
                                      c.options.outlier_z, 100 * c.options.min_relative_deviation),
                          width, 0);
  constexpr std::size_t few_gpus = 4;
  if (verbose || c.columns.size() <= few_gpus) {
    out += "\n" + compare_matrix(c, width);
    out += "\n" + wrap_hanging("",
                               "In brackets: the fraction of the result's reference, the "
                               "ceiling check judges it by (\"clk\": at the clock seen; else "
                               "the datasheet). \"not supported\" and \"failed\" are the "
                               "report's; \"-\" a case not run.",
                               width, 0);
  } else {
    out += wrap_hanging("",
                        fmt::format("Every cell of the {} GPUs side by side: -v, or --format "
                                    "md, json or html.",
                                    c.columns.size()),
                        width, 0);
  }
  out += fmt::format("\nVerdict: {} (exit code {})\n", verdict, exit_code_of(c));
  return out;
}

} // namespace gpuspec::reports::render::detail
