// The HTML pages of `gpuspec diff` and `gpuspec compare` (render_html.cpp has the frame and the
// check page): verdict first, then the plot, then every row as a table, the document's JSON
// embedded as the json format writes it.

#include <fmt/format.h>

#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "render_html_detail.hpp"
#include "render_html_plots.hpp"
#include "svg_writer.hpp"

namespace gpuspec::reports::inline render::html {

namespace {

using svg::escape;

/// At most this many GPUs in the comparison's heatmap: every outlier's GPU first, then the rest
/// in order (the table and the JSON hold them all; the caption says how many are drawn).
constexpr std::size_t max_heat_rows = 400;

std::string metric_label(const metric_diff& m) {
  return fmt::format("{} {} {}", m.bench_id, format_values(m.axes), m.device);
}

std::string diff_tables(const diff_output& d) {
  std::string out;
  if (!d.inventory.empty()) {
    out += "<h2>Inventory changes</h2>\n<table><thead><tr><th>scope</th><th>field</th><th>old"
           "</th><th>new</th></tr></thead><tbody>\n";
    for (const auto& c : d.inventory)
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", escape(c.scope),
                         escape(c.field), escape(c.old_value), escape(c.new_value));
    out += "</tbody></table>\n";
  }
  out += "<h2>Metrics</h2>\n<table class=\"sortable\"><thead><tr><th>metric</th><th>old median"
         "</th><th>new median</th><th>change</th><th>q</th><th>kind</th><th>verdict</th><th>note"
         "</th></tr></thead><tbody>\n";
  for (const auto& m : d.metrics)
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\" "
        "data-v=\"{}\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        escape(metric_label(m)), escape(format_quantity(m.old_median, m.unit)),
        escape(format_quantity(m.new_median, m.unit)), m.relative_change.value_or(0),
        escape(format_percent(m.relative_change)),
        m.q_value ? fmt::format("{:.3g}", *m.q_value) : "", escape(to_string(m.kind)),
        escape(to_string(m.verdict)), escape(m.note));
  return out + "</tbody></table>\n";
}

} // namespace

std::string diff_page(const diff_output& d, const std::vector<report>* reports) {
  const std::string verdict(to_string(d.verdict));
  std::size_t regressions = 0, improvements = 0;
  std::vector<diff_bar> bars;
  for (const auto& m : d.metrics) {
    regressions += m.kind == change_kind::regression || m.kind == change_kind::failed ? 1 : 0;
    improvements += m.kind == change_kind::improved ? 1 : 0;
    bars.push_back({metric_label(m), m.relative_change, std::string(to_string(m.kind))});
  }
  std::string body = fmt::format(
      "<header>\n<h1>gpuspec diff: {}</h1>\n<p>{} &rarr; {}: {} metrics, {} regressions, {} "
      "improvements (false-discovery rate {}, smallest change {}, fail from {}).</p>\n"
      "</header>\n<main>\n",
      badge(verdict), escape(d.old_label), escape(d.new_label), d.metrics.size(), regressions,
      improvements, d.options.alpha, format_percent(d.options.min_effect),
      format_percent(d.options.fail_threshold));
  for (const auto& m : d.metrics)
    if (m.verdict == check_status::fail || m.verdict == check_status::warn)
      body += fmt::format("<div class=\"finding {}\"><p>{} <span class=\"code\">{}</span> {}</p>"
                          "<p>{}</p></div>\n",
                          to_string(m.verdict), badge(to_string(m.verdict)),
                          escape(to_string(m.kind)), escape(metric_label(m)), escape(m.note));
  if (!bars.empty())
    body += figure(diff_plot(bars, d.options.min_effect),
                   "Change of each metric's median, coloured by significance, with the band of "
                   "changes too small to count shaded.");
  body += diff_tables(d) + "</main>\n";
  std::vector<json_block> json = {{"gpuspec-diff", to_json(d).dump(2)}};
  if (reports != nullptr)
    for (std::size_t i = 0; i < reports->size(); ++i)
      json.push_back({fmt::format("gpuspec-report-{}", i), to_json_text((*reports)[i])});
  return page(fmt::format("gpuspec diff: {}", verdict), body, json);
}

namespace {

std::string case_label(const compare_row& r) {
  const std::string v = format_values(r.axes);
  return v.empty() ? r.bench_id : r.bench_id + " " + v;
}

std::string compare_heatmap_section(const compare_output& c) {
  std::vector<std::size_t> order;
  std::vector<bool> taken(c.columns.size(), false);
  for (std::size_t j = 0; j < c.columns.size(); ++j)
    for (const auto& row : c.rows)
      if (row.cells[j] && row.cells[j]->outlier && !taken[j]) {
        taken[j] = true;
        order.push_back(j);
      }
  for (std::size_t j = 0; j < c.columns.size() && order.size() < max_heat_rows; ++j)
    if (!taken[j])
      order.push_back(j);
  if (order.size() > max_heat_rows)
    order.resize(max_heat_rows);
  std::vector<std::string> gpus, cases;
  for (const auto& row : c.rows)
    cases.push_back(case_label(row));
  std::vector<std::vector<heat_cell>> cells;
  for (const std::size_t j : order) {
    gpus.push_back(c.columns[j].label);
    auto& line = cells.emplace_back();
    for (const auto& row : c.rows) {
      const auto& cell = row.cells[j];
      line.push_back({cell ? cell->fraction : std::nullopt, cell && cell->outlier,
                      c.columns[j].label + " " + case_label(row) + ": " + format_cell(cell)});
    }
  }
  return figure(compare_heatmap(gpus, cases, cells),
                fmt::format("Each GPU's fraction of its own spec for each case, on the fixed "
                            "scale shown; outliers ringed. {} of {} GPUs drawn (every outlier's "
                            "first); the table below holds them all.",
                            gpus.size(), c.columns.size()));
}

std::string compare_table(const compare_output& c) {
  std::string out = "<table class=\"sortable\"><thead><tr><th>GPU</th><th>model</th>";
  for (const auto& row : c.rows)
    out += "<th>" + escape(case_label(row)) + " (" + escape(to_string(row.unit)) + ")</th>";
  out += "</tr></thead><tbody>\n";
  for (std::size_t j = 0; j < c.columns.size(); ++j) {
    const auto& col = c.columns[j];
    out += fmt::format("<tr><td>{}</td><td>{}</td>", escape(col.label),
                       escape(col.spec_id.empty() ? col.gpu_name : col.spec_id));
    for (const auto& row : c.rows) {
      const auto& cell = row.cells[j];
      const bool outlier = cell && cell->outlier;
      out += fmt::format("<td class=\"num\"{}>{}</td>",
                         outlier ? " style=\"font-weight:bold\"" : "", escape(format_cell(cell)));
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

} // namespace

std::string compare_page(const compare_output& c) {
  std::string body = fmt::format(
      "<header>\n<h1>gpuspec compare: {} outlier{}</h1>\n<p>{} GPUs, {} cases; each value also "
      "as a fraction of the GPU's own reference; outliers among GPUs of one model (modified "
      "z-score over {}, at least {} from the median).</p>\n</header>\n<main>\n",
      c.outliers, c.outliers == 1 ? "" : "s", c.columns.size(), c.rows.size(), c.options.outlier_z,
      format_percent(c.options.min_relative_deviation));
  for (const auto& row : c.rows)
    for (std::size_t j = 0; j < c.columns.size(); ++j)
      if (const auto& cell = row.cells[j]; cell && cell->outlier)
        body += fmt::format("<div class=\"finding warn\"><p>{} <span class=\"code\">OUTLIER"
                            "</span> {}: {}</p></div>\n",
                            badge("warn"), escape(c.columns[j].label), escape(case_label(row)),
                            escape(format_cell(cell)));
  if (!c.rows.empty() && !c.columns.empty())
    body += compare_heatmap_section(c);
  body += "<h2>All GPUs</h2>\n" + compare_table(c) + "</main>\n";
  return page(fmt::format("gpuspec compare: {} outliers", c.outliers), body,
              {{"gpuspec-compare", to_json(c).dump()}});
}

} // namespace gpuspec::reports::render::html
