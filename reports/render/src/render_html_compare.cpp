// The HTML pages of `gpuspec diff` and `gpuspec compare` (render_html.cpp has the frame and the
// check page): verdict first, then the plot, then every row as a table, the document's JSON
// embedded as the json format writes it.

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/host_names.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "render_detail.hpp"
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

/// The opening of a diff page: each metric that warns or fails, worst first, with its GPU, its
/// change and the action of GPUSPEC-BELOW-BASELINE (a result below the figure it is held to).
std::string regressions_html(const diff_output& d) {
  std::vector<const metric_diff*> bad;
  for (const auto& m : d.metrics)
    if (m.verdict == check_status::fail || m.verdict == check_status::warn)
      bad.push_back(&m);
  if (bad.empty())
    return "";
  std::stable_sort(bad.begin(), bad.end(), [](const auto* a, const auto* b) {
    return a->verdict == check_status::fail && b->verdict != check_status::fail;
  });
  const auto& reason = find_reason("GPUSPEC-BELOW-BASELINE");
  std::string out = "<h2>Not passing, worst first</h2>\n<table class=\"answer\"><thead><tr><th>"
                    "metric</th><th>GPU</th><th>verdict</th><th>change</th><th>action</th></tr>"
                    "</thead><tbody>\n";
  for (const auto* m : bad) {
    const std::string v = format_values(m->axes);
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td><span class=\"code\">{}</span> {}"
                       "</td><td>{}</td></tr>\n",
                       escape(v.empty() ? m->bench_id : m->bench_id + " " + v), escape(m->device),
                       badge(to_string(m->verdict)), escape(to_string(m->kind)), escape(m->note),
                       escape(reason.action));
  }
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
      "improvements (false-discovery rate {}, smallest change {}, fail from {}).</p>\n",
      badge(verdict), escape(d.old_label), escape(d.new_label), d.metrics.size(), regressions,
      improvements, d.options.alpha, format_percent(d.options.min_effect),
      format_percent(d.options.fail_threshold));
  body += regressions_html(d);
  body += "</header>\n<main>\n";
  if (!bars.empty())
    body += figure(diff_plot(bars, d.options.min_effect),
                   "Change of each metric's median, coloured by significance, with the band of "
                   "changes too small to count shaded.");
  body += diff_tables(d) + "</main>\n";
  body += fmt::format("<footer>\n<p>Verdict: {} (exit code {})</p>\n</footer>\n", badge(verdict),
                      exit_code_of(d.verdict == check_status::fail   ? verdict_status::fail
                                   : d.verdict == check_status::warn ? verdict_status::warn
                                                                     : verdict_status::pass));
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

/// `text` escaped, with a line-break opportunity after each '.' and '_': a header of a long bench
/// id breaks between its parts, never inside a word.
std::string breakable(std::string_view text) {
  std::string out;
  for (const char ch : escape(text)) { // no entity holds a '.' or a '_'
    out += ch;
    if (ch == '.' || ch == '_')
      out += "<wbr>";
  }
  return out;
}

/// The node a column belongs to: its host name, or its report's label without one.
std::string node_of(const compare_column& col) {
  return col.hostname.empty() ? col.report : col.hostname;
}

/// A column's GPU as the text output names it: "GPU 3", or a MIG device's instance
/// ("GPU 0 MIG 1g.10gb, GI 7 CI 0"): a partitioned GPU's devices are told apart.
std::string gpu_label(const compare_column& col) {
  return col.mig ? fmt::format("GPU {} {}", col.device_index, mig_label(*col.mig))
                 : fmt::format("GPU {}", col.device_index);
}

/// Columns in natural order of their node, then GPU index: the heatmap's rows and the table's.
std::vector<std::size_t> columns_in_order(const compare_output& c) {
  std::vector<std::size_t> order(c.columns.size());
  for (std::size_t j = 0; j < order.size(); ++j)
    order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto &x = c.columns[a], &y = c.columns[b];
    if (node_of(x) != node_of(y))
      return natural_less(node_of(x), node_of(y));
    if (x.report != y.report)
      return natural_less(x.report, y.report);
    return x.device_index < y.device_index;
  });
  return order;
}

/// A cell's deviation signed so that negative is worse (lower is worse unless the row's metric
/// is a time).
std::optional<double> signed_deviation(const compare_row& row, const compare_cell& cell) {
  if (!cell.deviation)
    return std::nullopt;
  return row.higher_is_better ? *cell.deviation : -*cell.deviation;
}

/// One node with outliers: its GPUs, each outlier case with its deviation, the worst deviation.
struct outlier_node {
  std::string node;
  std::vector<int> gpus;
  /// The MIG devices among them as the text output lists them ("0 GI 7 CI 0").
  std::vector<std::string> mig_devices;
  std::vector<std::string> cases;
  double worst = 0; ///< the most negative signed deviation (or largest magnitude)
};

std::vector<outlier_node> outlier_nodes(const compare_output& c) {
  std::vector<outlier_node> out;
  for (const std::size_t j : columns_in_order(c)) {
    const auto& col = c.columns[j];
    for (const auto& row : c.rows) {
      const auto& cell = row.cells[j];
      if (!cell || !cell->outlier)
        continue;
      if (out.empty() || out.back().node != node_of(col))
        out.push_back({node_of(col), {}, {}, {}, 0});
      auto& n = out.back();
      if (col.mig) {
        const std::string device =
            fmt::format("{} GI {} CI {}", col.device_index, col.mig->gpu_instance_id,
                        col.mig->compute_instance_id);
        if (std::find(n.mig_devices.begin(), n.mig_devices.end(), device) == n.mig_devices.end())
          n.mig_devices.push_back(device);
      } else if (std::find(n.gpus.begin(), n.gpus.end(), col.device_index) == n.gpus.end()) {
        n.gpus.push_back(col.device_index);
      }
      const auto dev = signed_deviation(row, *cell);
      n.cases.push_back(fmt::format("{} {} {}", gpu_label(col), case_label(row),
                                    dev ? format_percent(*dev) : "?"));
      if (dev && std::fabs(*dev) > std::fabs(n.worst))
        n.worst = *dev;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::fabs(a.worst) > std::fabs(b.worst);
  });
  return out;
}

/// The opening: the nodes with outliers, worst first, with what deviates and one action.
std::string outliers_html(const compare_output& c, std::string_view code) {
  const auto nodes = outlier_nodes(c);
  if (nodes.empty())
    return "";
  const auto& reason = find_reason(code);
  std::string out = "<h2>Outliers, worst first</h2>\n<table class=\"answer\"><thead><tr><th>host"
                    "</th><th>GPUs</th><th>verdict</th><th>what deviates from the model's median"
                    "</th><th>action</th></tr></thead><tbody>\n";
  for (const auto& n : nodes) {
    std::string gpus = n.gpus.empty() ? "" : gpu_list_text(n.gpus);
    for (const auto& m : n.mig_devices)
      gpus += (gpus.empty() ? "" : ", ") + m;
    std::string cases;
    for (const auto& k : n.cases)
      cases += (cases.empty() ? "" : "<br>") + escape(k);
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><span class=\"code\">"
                       "{}</span> {}</td></tr>\n",
                       escape(n.node), escape(gpus), badge("warn"), cases, escape(code),
                       escape(reason.action));
  }
  return out + "</tbody></table>\n";
}

std::string compare_heatmap_section(const compare_output& c) {
  // At most max_heat_rows GPUs: the nodes with an outlier first, then the rest in order; drawn
  // in natural order of their nodes.
  const auto order = columns_in_order(c);
  std::vector<bool> drawn(c.columns.size(), false);
  std::set<std::string> bad_nodes;
  for (const auto& n : outlier_nodes(c))
    bad_nodes.insert(n.node);
  std::size_t count = 0;
  for (const bool bad_pass : {true, false})
    for (const std::size_t j : order)
      if (count < max_heat_rows && !drawn[j] &&
          bad_nodes.contains(node_of(c.columns[j])) == bad_pass) {
        drawn[j] = true;
        ++count;
      }
  std::vector<std::string> cases;
  for (const auto& row : c.rows)
    cases.push_back(case_label(row));
  std::vector<heat_row> rows;
  for (const std::size_t j : order) {
    if (!drawn[j])
      continue;
    const auto& col = c.columns[j];
    auto& line = rows.emplace_back();
    line.group = node_of(col);
    line.label = gpu_label(col);
    for (const auto& row : c.rows) {
      const auto& cell = row.cells[j];
      line.cells.push_back({cell ? signed_deviation(row, *cell) : std::nullopt,
                            cell && cell->outlier,
                            col.label + " " + case_label(row) + ": " + format_cell(cell)});
    }
  }
  return figure(compare_heatmap(rows, cases, c.options.min_relative_deviation),
                fmt::format("Each GPU's deviation from the median of the GPUs of its model, for "
                            "each case, on the diverging scale at the top; outliers ringed; GPUs "
                            "grouped by node, nodes in natural order. {} of {} GPUs drawn (the "
                            "nodes with an outlier first); the table below holds them all.",
                            rows.size(), c.columns.size()));
}

std::string compare_table(const compare_output& c) {
  std::string out = "<table class=\"sortable\"><thead><tr><th>GPU</th><th>model</th>";
  for (const auto& row : c.rows)
    out += "<th>" + breakable(case_label(row)) + " (" + escape(to_string(row.unit)) + ")</th>";
  out += "</tr></thead><tbody>\n";
  for (const std::size_t j : columns_in_order(c)) {
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
  std::set<std::string> reports, nodes;
  for (const auto& col : c.columns) {
    reports.insert(col.report);
    nodes.insert(node_of(col));
  }
  // Across nodes an outlier is a fleet outlier; among one node's GPUs, a sibling outlier: the
  // reason code whose action the opening gives.
  const std::string_view code =
      reports.size() > 1 ? "GPUSPEC-FLEET-OUTLIER" : "GPUSPEC-SIBLING-OUTLIER";
  const auto bad = outlier_nodes(c);
  const verdict_status verdict = c.outliers > 0 ? verdict_status::warn : verdict_status::pass;
  const std::string status(to_string(verdict));
  std::string body = fmt::format(
      "<header>\n<h1>gpuspec compare: {}</h1>\n<p>{} (exit code {}); {} outlier{} on {} of {} "
      "node{}; {} GPUs, {} cases. An outlier is a GPU at least {} from the median of the GPUs of "
      "its model and past a modified z-score of {}.</p>\n",
      badge(status), detail::upper(status), exit_code_of(verdict), c.outliers,
      c.outliers == 1 ? "" : "s", bad.size(), nodes.size(), nodes.size() == 1 ? "" : "s",
      c.columns.size(), c.rows.size(), format_percent(c.options.min_relative_deviation),
      c.options.outlier_z);
  body += outliers_html(c, code) + "</header>\n<main>\n";
  if (!c.rows.empty() && !c.columns.empty())
    body += compare_heatmap_section(c);
  body += "<h2>All GPUs</h2>\n" + compare_table(c) + "</main>\n";
  body += fmt::format("<footer>\n<p>Verdict: {} (exit code {}); {} outlier{}</p>\n</footer>\n",
                      badge(status), exit_code_of(verdict), c.outliers, c.outliers == 1 ? "" : "s");
  return page(fmt::format("gpuspec compare: {}, {} outliers", detail::upper(status), c.outliers),
              body, {{"gpuspec-compare", to_json(c).dump()}});
}

} // namespace gpuspec::reports::render::html
