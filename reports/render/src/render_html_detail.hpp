#pragma once
/// Internal to the HTML renderer: the page's frame and the plots it draws from a report
/// (render_html_data.cpp gathers each plot's inputs from the model; render_html_plots.cpp
/// draws them).

#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/judge/verdict.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline render {} // namespace gpuspec::reports::inline render

namespace gpuspec::reports::inline render::html {

/// A whole page: the <head> with the inline style (one column, print rules), `body`, then each
/// JSON block as <script type="application/json" id="..."> and the optional sorting script.
struct json_block {
  std::string id;   ///< "gpuspec-report-0"
  std::string text; ///< the JSON document as written elsewhere (save_report's text)
};
[[nodiscard]] std::string page(std::string_view title, std::string_view body,
                               const std::vector<json_block>& json);

/// `text` safe inside a <script> element: every '<' written as \u003c (valid JSON: '<' occurs
/// only inside strings), so no "</script>" or "<!--" can end or confuse the element.
[[nodiscard]] std::string script_safe_json(std::string_view text);

/// A figure: the SVG and its text alternative as a caption the reader sees.
[[nodiscard]] std::string figure(std::string_view svg, std::string_view caption);

/// The plots of one node from its report: measured against ceiling (from the verdicts), the
/// bandwidth sweeps, the P2P matrix, telemetry per GPU, the roofline per model. "" for none.
/// `site_temperature_limit_c`: drawn where a GPU reports no slowdown temperature.
[[nodiscard]] std::string node_plots(const node_verdict& node, const report* r,
                                     std::optional<double> site_temperature_limit_c);

/// The three pages: a check outcome (with the reports it judged, when given), a diff (with OLD
/// and NEW), a comparison.
[[nodiscard]] std::string check_page(const check_outcome& outcome,
                                     const std::vector<report>* reports,
                                     std::optional<double> site_temperature_limit_c);
[[nodiscard]] std::string diff_page(const diff_output& d, const std::vector<report>* reports);
[[nodiscard]] std::string compare_page(const compare_output& c);

/// One row of the check page's opening (render_html_answer.cpp): a node's GPUs that share a
/// verdict, codes and action, or its host.
struct answer_row {
  std::size_t node_index = 0; ///< in check_outcome::nodes
  const node_verdict* node = nullptr;
  std::vector<int> devices; ///< empty: the host, or the node as a whole
  verdict_status status = verdict_status::warn;
  std::vector<std::string> codes; ///< worst first
  std::string action;             ///< the worst finding's, or why the node is not passing
};
/// Every node and GPU not passing, worst first, then hosts in natural order.
[[nodiscard]] std::vector<answer_row> answer_rows(const check_outcome& outcome);
/// The opening: the table of answer_rows, and for a page of many nodes the passing ones as
/// hostlist groups. "" for a single passing node.
[[nodiscard]] std::string answer_html(const check_outcome& outcome);
/// "GPU 2", "GPUs 0-7", "GPUs 1,3,5-7"; "host" for none.
[[nodiscard]] std::string gpu_list_text(const std::vector<int>& devices);
/// The node's host name, or its report's file name without one.
[[nodiscard]] std::string node_name(const node_verdict& n);

/// The verdict's badge: <span class="badge fail">FAIL</span>.
[[nodiscard]] std::string badge(std::string_view status);

} // namespace gpuspec::reports::render::html
