// The HTML format (`--format html`, `run --html FILE`; docs/report.md, "The HTML page"): one
// self-contained page per document. No network, no web font, no script needed to read it (an
// optional inline script only sorts tables); the report's JSON embedded so the page parses back;
// plots inline SVG from our own writer (svg_writer.hpp). Verdict first, then the findings, the
// plots, and every result as a table; one column, printable.

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/host_names.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "render_detail.hpp"
#include "render_html_detail.hpp"
#include "render_html_plots.hpp"
#include "svg_writer.hpp"

namespace gpuspec::reports::inline render {

namespace html {

namespace {

using svg::escape;

// Colours: a badge is black on the Okabe-Ito colour of its verdict (5:1 or more; white on them
// was under 4.5:1), and the verdict classes colour only `.badge`, so that a finding box of that
// verdict keeps the body's dark text on its pale tint (issue 31: white on pale pink).
// html_contrast_test.cpp holds every pair to WCAG 2.1 AA's 4.5:1; the browser test runs axe-core.
// The evidence is a grid of dt/dd pairs, two to a line. A header, a badge, a code and the
// opening's host, GPU and verdict cells never break inside a word (issue 31: "verd ict");
// long bench ids in a header break after their dots (<wbr>).
constexpr std::string_view style = R"(
body{font-family:sans-serif;margin:0 auto;padding:0 16px;max-width:1200px;color:#111;line-height:1.35}
h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.2em;margin:1em 0 .3em}h3{font-size:1.05em}
.badge{display:inline-block;padding:1px 8px;border-radius:3px;font-weight:bold;color:#000}
.badge.pass{background:#009E73}.badge.warn{background:#E69F00}.badge.fail{background:#D55E00}
.badge.inconclusive{background:#CC79A7}.badge.skipped{background:#ccc}
.gpus{display:flex;flex-wrap:wrap;gap:4px;margin:.3em 0;padding:0;list-style:none}
.gpus li{border:1px solid #ccc;padding:1px 6px;font-size:.9em}
.finding{border-left:6px solid #999;padding:2px 10px;margin:6px 0;background:#f6f6f6}
.finding.fail{border-color:#D55E00;background:#fdf1ea}.finding.warn{border-color:#E69F00;background:#fdf6e8}
.finding.inconclusive{border-color:#CC79A7;background:#f8eef4}
.finding p{margin:2px 0}.code{font-family:monospace;font-weight:bold}
table{border-collapse:collapse;width:100%;table-layout:auto;font-size:.85em;margin:.4em 0}
th,td{border:1px solid #ccc;padding:2px 5px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#eee;overflow-wrap:normal}td.num{text-align:right;white-space:nowrap}
.badge,.code{white-space:nowrap}table.answer td{overflow-wrap:normal}
table.answer td:nth-child(-n+3){white-space:nowrap}
figure{margin:.8em 0;break-inside:avoid}figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#333}
dl.evidence{font-size:.8em;margin:2px 0;display:grid;gap:0 6px;
grid-template-columns:auto minmax(0,1fr) auto minmax(0,1fr)}
dl.evidence dt{font-family:monospace}dl.evidence dd{margin:0;overflow-wrap:anywhere}
@media print{body{max-width:none;padding:0}a{color:#000}figure{break-inside:avoid}
table{font-size:.75em}}
)";

/// Sorts a table by the column whose header is clicked; the page reads the same without it.
constexpr std::string_view sort_script = R"(
document.querySelectorAll('table.sortable th').forEach(function(th,i){
th.style.cursor='pointer';th.title='Sort';th.addEventListener('click',function(){
var t=th.closest('table'),b=t.tBodies[0],r=Array.prototype.slice.call(b.rows),d=th.dataset.dir==='a'?'d':'a';
th.dataset.dir=d;r.sort(function(x,y){var p=x.cells[i].dataset.v||x.cells[i].textContent,
q=y.cells[i].dataset.v||y.cells[i].textContent,m=parseFloat(p),n=parseFloat(q);
var c=(!isNaN(m)&&!isNaN(n))?m-n:p.localeCompare(q);return d==='a'?c:-c;});
r.forEach(function(e){b.appendChild(e);});});});
)";

std::string diagnosis_html(const detail::diagnosis_group& g) {
  const diagnosis& d = *g.shown;
  const std::string status(to_string(g.severity));
  std::string evidence;
  for (const auto& [k, v] : d.evidence)
    evidence += fmt::format("<dt>{}</dt><dd>{}</dd>", escape(k), escape(v));
  const std::string summary = detail::group_summary(g);
  return fmt::format("<div class=\"finding {}\">\n<p>{} <span class=\"code\">{}</span> {}</p>\n"
                     "<p><b>Cause:</b> {}</p>\n<p><b>Action:</b> {}</p>\n{}{}</div>\n",
                     status, badge(status), escape(d.code),
                     escape(detail::group_where(g) + (g.node_wide ? " (every GPU)" : "")),
                     escape(d.cause), escape(detail::action_text(detail::group_action(g), d.step)),
                     summary.empty() ? "" : fmt::format("<p>{}</p>\n", escape(summary)),
                     evidence.empty()
                         ? ""
                         : "<details><summary>evidence</summary><dl class=\"evidence\">" +
                               evidence + "</dl></details>\n");
}

std::string gpu_chips(const node_verdict& n) {
  std::string out = "<ul class=\"gpus\">\n";
  for (const auto& g : n.gpus) {
    const std::string status(to_string(g.status));
    out += fmt::format("<li>GPU {} {} {}{}</li>\n", g.index, escape(g.name), badge(status),
                       g.message.empty() ? std::string() : fmt::format(" {}", escape(g.message)));
  }
  return out + "</ul>\n";
}

std::string gpu_table(const node_verdict& n) {
  std::string out = "<table class=\"sortable\"><thead><tr><th>GPU</th><th>name</th><th>serial"
                    "</th><th>UUID</th><th>PCI bus</th><th>spec row</th><th>verdict</th></tr>"
                    "</thead><tbody>\n";
  for (const auto& g : n.gpus)
    out += fmt::format("<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                       "<td>{}</td><td>{}</td></tr>\n",
                       g.index, escape(g.name), escape(g.serial), escape(g.uuid),
                       escape(g.pci_bus_id), escape(g.spec_id), escape(to_string(g.status)));
  return out + "</tbody></table>\n";
}

std::string results_table(const node_verdict& n) {
  std::string out = "<table class=\"sortable\"><thead><tr><th>result</th><th>GPU</th><th>"
                    "verdict</th><th>measured</th><th>reference</th><th>fraction</th><th>frame"
                    "</th><th>note</th></tr></thead><tbody>\n";
  for (const auto& r : n.results) {
    std::string gpus;
    for (const int d : r.devices) {
      if (!gpus.empty())
        gpus += ',';
      gpus += std::to_string(d);
    }
    out += fmt::format(
        "<tr><td>{} {}</td><td>{}</td><td>{}</td><td class=\"num\" data-v=\"{}\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\" data-v=\"{}\">{}</td><td>{}</td><td>{}</td>"
        "</tr>\n",
        escape(r.bench_id), escape(r.axes), gpus, escape(to_string(r.status)),
        r.measured.value_or(0), escape(format_quantity(r.measured, r.unit)),
        escape(format_quantity(r.expected, r.unit)), r.efficiency.value_or(-1),
        escape(format_percent(r.efficiency)), escape(r.frame), escape(r.message));
  }
  return out + "</tbody></table>\n";
}

std::string node_html(const node_verdict& n, const report* r, std::size_t k,
                      std::optional<double> site_temperature_limit_c) {
  std::string out =
      fmt::format("<section id=\"node-{}\">\n<h2>{} {}</h2>\n<p>{}{}{}</p>\n", k,
                  badge(to_string(n.status)), escape(n.hostname.empty() ? n.source : n.hostname),
                  n.source.empty() ? "" : "report " + escape(n.source) + "; ",
                  "driver " + escape(n.driver_version.empty() ? "n/a" : n.driver_version),
                  n.complete ? "" : "; <b>incomplete run</b>");
  if (!n.message.empty())
    out += "<p>" + escape(n.message) + "</p>\n";
  out += gpu_chips(n);
  const auto groups = detail::grouped_diagnoses(n);
  out += groups.empty() ? "<p>No findings.</p>\n"
                        : fmt::format("<h3>Findings ({})</h3>\n", groups.size());
  for (const auto& g : groups)
    out += diagnosis_html(g);
  const std::string plots = node_plots(n, r, site_temperature_limit_c);
  if (!plots.empty())
    out += "<h3>Plots</h3>\n" + plots;
  out += "<h3>GPUs</h3>\n" + gpu_table(n);
  out += fmt::format("<h3>Results ({})</h3>\n", n.results.size()) + results_table(n);
  return out + "</section>\n";
}

/// The passing nodes of a page of many, one row each in natural order: their results are in the
/// embedded gpuspec-check document, and a page of 50 nodes stays small (issue 31: 10 MB).
std::string passing_nodes_html(const check_outcome& outcome) {
  std::vector<const node_verdict*> passing;
  for (const auto& n : outcome.nodes)
    if (n.status == verdict_status::pass || n.status == verdict_status::skipped)
      passing.push_back(&n);
  if (passing.empty())
    return "";
  std::stable_sort(passing.begin(), passing.end(), [](const auto* a, const auto* b) {
    return natural_less(node_name(*a), node_name(*b));
  });
  std::string out = fmt::format(
      "<section id=\"passing\">\n<h2>Passing nodes ({})</h2>\n<p>Each node's results are in the "
      "embedded gpuspec-check document.</p>\n<table class=\"sortable\"><thead><tr><th>host</th>"
      "<th>verdict</th><th>GPUs</th><th>results</th><th>driver</th><th>report</th></tr></thead>"
      "<tbody>\n",
      passing.size());
  for (const auto* n : passing) {
    std::map<std::string, int> models;
    for (const auto& g : n->gpus)
      ++models[g.name];
    std::string gpus;
    for (const auto& [name, count] : models)
      gpus += fmt::format("{}{} x {}", gpus.empty() ? "" : ", ", count, escape(name));
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td>"
                       "<td>{}</td></tr>\n",
                       escape(node_name(*n)), badge(to_string(n->status)), gpus, n->results.size(),
                       escape(n->driver_version), escape(n->source));
  }
  return out + "</tbody></table>\n</section>\n";
}

/// The nodes given a section of their own: every node of a one-node page; on a page of many,
/// those not passing, in the order the opening names them.
std::vector<std::size_t> detailed_nodes(const check_outcome& outcome) {
  std::vector<std::size_t> out;
  if (outcome.nodes.size() == 1)
    return {0};
  for (const auto& row : answer_rows(outcome))
    if (std::find(out.begin(), out.end(), row.node_index) == out.end())
      out.push_back(row.node_index);
  return out;
}

/// The reports a check page embeds: the one report of a one-report page; on a page of many, those
/// holding a node that is not passing (50 reports of a quick suite are 6 MB of JSON).
std::vector<json_block> report_blocks(const check_outcome& outcome,
                                      const std::vector<report>* reports) {
  std::vector<json_block> out;
  if (reports == nullptr)
    return out;
  for (std::size_t i = 0; i < reports->size(); ++i) {
    const bool wanted =
        reports->size() == 1 ||
        std::any_of(outcome.nodes.begin(), outcome.nodes.end(), [&](const node_verdict& n) {
          return n.report_index == i && n.status != verdict_status::pass &&
                 n.status != verdict_status::skipped;
        });
    if (wanted)
      out.push_back({fmt::format("gpuspec-report-{}", i), to_json_text((*reports)[i])});
  }
  return out;
}

} // namespace

std::string badge(std::string_view status) {
  return fmt::format("<span class=\"badge {}\">{}</span>", escape(status),
                     escape(detail::upper(status)));
}

std::string script_safe_json(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

std::string figure(std::string_view svg, std::string_view caption) {
  return fmt::format("<figure>\n{}<figcaption>{}</figcaption>\n</figure>\n", svg, escape(caption));
}

std::string page(std::string_view title, std::string_view body,
                 const std::vector<json_block>& json) {
  std::string out = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8"
                                "\">\n<meta name=\"viewport\" content=\"width=device-width, "
                                "initial-scale=1\">\n<title>{}</title>\n<style>{}</style>\n"
                                "</head>\n<body>\n",
                                escape(title), style);
  out += body;
  for (const auto& j : json)
    out += fmt::format("<script type=\"application/json\" id=\"{}\">\n{}</script>\n", escape(j.id),
                       script_safe_json(j.text));
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", sort_script);
  return out;
}

std::string check_page(const check_outcome& outcome, const std::vector<report>* reports,
                       std::optional<double> site_temperature_limit_c) {
  const std::string status(to_string(outcome.status));
  const auto detailed = detailed_nodes(outcome);
  const std::size_t not_passing = outcome.nodes.size() == 1
                                      ? (outcome.nodes[0].status == verdict_status::pass ? 0 : 1)
                                      : detailed.size();
  std::string body = fmt::format(
      "<header>\n<h1>gpuspec check: {}</h1>\n<p>{}. Written by gpuspec; every figure below "
      "comes from the {}.</p>\n",
      badge(status), escape(detail::verdict_summary_line(outcome, not_passing)),
      outcome.nodes.size() == 1 ? "report embedded in this page"
                                : "reports it judged; those of the nodes not passing are "
                                  "embedded in this page");
  for (const auto& note : outcome.notes)
    body += "<p>" + escape(note) + "</p>\n";
  body += answer_html(outcome) + "</header>\n<main>\n";
  for (const std::size_t k : detailed) {
    const auto& n = outcome.nodes[k];
    const report* r = reports != nullptr && n.report_index < reports->size()
                          ? &(*reports)[n.report_index]
                          : nullptr;
    body += node_html(n, r, k, site_temperature_limit_c);
  }
  if (outcome.nodes.size() > 1)
    body += passing_nodes_html(outcome);
  body += fmt::format("</main>\n<footer>\n<p>Verdict: {} (exit code {})</p>\n</footer>\n",
                      badge(status), exit_code_of(outcome.status));
  auto json = report_blocks(outcome, reports);
  // Compact: the same document as --format json, a third smaller than indented.
  json.insert(json.begin(),
              {"gpuspec-check",
               to_json(outcome).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
  return page(fmt::format("gpuspec check: {}", detail::upper(status)), body, json);
}

} // namespace html

namespace {

class html_renderer final : public renderer {
public:
  explicit html_renderer(const render_options& options)
      : m_reports(options.reports), m_site_temperature_limit_c(options.site_temperature_limit_c) {}

protected:
  [[nodiscard]] std::string render_check(const check_outcome& outcome) const override {
    return html::check_page(outcome, m_reports, m_site_temperature_limit_c);
  }
  [[nodiscard]] std::string render_diff(const diff_output& d) const override {
    return html::diff_page(d, m_reports);
  }
  [[nodiscard]] std::string render_compare(const compare_output& c) const override {
    return html::compare_page(c);
  }

private:
  const std::vector<report>* m_reports;
  std::optional<double> m_site_temperature_limit_c;
};

} // namespace

std::unique_ptr<renderer> detail::make_html_renderer(const render_options& options) {
  return std::make_unique<html_renderer>(options);
}

} // namespace gpuspec::reports::render
