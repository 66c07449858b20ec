// The terminal table: a check outcome's layout here, a health outcome's (health_render.cpp), a
// diff's and a comparison's (render_tables.cpp) chosen here. Markdown: render_markdown.cpp.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/text_table.hpp"
#include "gpuspec/reports/render/db_output.hpp"
#include "gpuspec/reports/render/health_render.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render::detail {

std::string efficiency_text(const result_verdict& r) {
  std::string out = format_percent(r.efficiency);
  if (out.empty() || !r.pass_fraction || !std::isfinite(*r.pass_fraction))
    return out;
  // A no-break space between "≥" and the figure: a narrow terminal wraps the cell before the
  // bracket, or at its narrowest after "(pass", never between the sign and its number.
  const double pass = 100 * *r.pass_fraction;
  return out + (pass == std::round(pass) ? fmt::format(" (pass ≥\u00a0{:.0f}%)", pass)
                                         : fmt::format(" (pass ≥\u00a0{:.1f}%)", pass));
}

namespace {

const char* ansi(verdict_status s) {
  switch (s) {
  case verdict_status::pass:
    return "\033[32m";
  case verdict_status::warn:
    return "\033[33m";
  case verdict_status::fail:
    return "\033[31m";
  case verdict_status::inconclusive:
    return "\033[35m";
  case verdict_status::skipped:
    return "\033[2m";
  }
  return "";
}

/// The frame in a few letters: "spec" (the datasheet), "clk" (the ceiling at the clock seen),
/// "base" (the baseline).
std::string frame_text(const std::string& frame) {
  if (frame == "clock_adjusted")
    return "clk";
  if (frame == "baseline")
    return "base";
  return frame;
}

/// The axes' values, without their names: "fp32", "8192x8192x8192 NN".
std::string compact_axes_text(const result_verdict& r) { return r.axes_values; }

class table_renderer final : public renderer {
public:
  explicit table_renderer(render_options options) : m_options(options) {}

protected:
  [[nodiscard]] std::string render_check(const check_outcome& outcome) const override {
    // The answer first (issue 31): the verdict and what is not passing; then each node's
    // details, passing rows counted rather than listed unless verbose; the verdict again last.
    std::string out = check_summary_text(outcome, m_options.width) + "\n";
    std::size_t passing_nodes = 0;
    for (const auto& node : outcome.nodes) {
      // Of many nodes, the passing ones are counted (a fleet's screen is its few bad nodes).
      if (outcome.nodes.size() > 1 && !listed(node.status)) {
        ++passing_nodes;
        continue;
      }
      out += node_line(node);
      const std::string results = results_table(node);
      const std::string gpus = gpus_table(node);
      // The GPU table's blank line parts it from a results table, where one is printed.
      out += results + (results.empty() && !gpus.empty() ? gpus.substr(1) : gpus);
      out += hidden_line(node);
      out += diagnosis_lines(node);
      out += "\n";
    }
    if (passing_nodes > 0)
      out += fmt::format("{} passing node{} not listed (-v lists them)\n\n", passing_nodes,
                         passing_nodes == 1 ? "" : "s");
    for (const auto& n : outcome.notes)
      out += wrap_hanging("note: ", escape_control(n), m_options.width, 6);
    out += fmt::format("Verdict: {} (exit code {})\n", status_text(outcome.status),
                       exit_code_of(outcome.status));
    return out;
  }
  [[nodiscard]] std::string render_health(const health_document& h) const override {
    return render_health_text(h.outcome, h.elapsed_s, m_options);
  }
  [[nodiscard]] std::string render_diff(const diff_output& d) const override {
    return diff_text_table(d, m_options.width);
  }
  [[nodiscard]] std::string render_compare(const compare_output& c) const override {
    return compare_text_table(c, m_options.width, m_options.verbose);
  }
  [[nodiscard]] std::string render_db(const db_output& d) const override {
    return db_text_table(d, m_options.width);
  }

private:
  [[nodiscard]] std::string status_text(verdict_status s) const {
    const std::string t = upper(to_string(s));
    return m_options.colour ? ansi(s) + t + "\033[0m" : t;
  }
  [[nodiscard]] std::string colour_on(verdict_status s) const {
    return m_options.colour ? ansi(s) : "";
  }
  [[nodiscard]] std::string colour_off() const { return m_options.colour ? "\033[0m" : ""; }

  /// "Node host (report): VERDICT" and the node's message.
  [[nodiscard]] std::string node_line(const node_verdict& node) const {
    // The report's path is elided to fit the terminal: where the report lives is the one
    // thing on the line whose length nothing bounds.
    // Every string on a line that gpuspec did not write goes through escape_control.
    const std::string host = node.hostname.empty() ? "?" : escape_control(node.hostname);
    std::string source = escape_control(node.source);
    if (m_options.width > 0 && !source.empty()) {
      const std::size_t rest = text_table::display_width(
          fmt::format("Node {} (): {}", host, upper(to_string(node.status))));
      source = elide_path(source, m_options.width > rest + 16 ? m_options.width - rest : 16);
    }
    std::string out =
        fmt::format("Node {}{}: {}\n", host, source.empty() ? "" : " (" + source + ")",
                    status_text(node.status));
    if (!node.message.empty())
      out += wrap_hanging("  ", escape_control(node.message), m_options.width, 4);
    return out;
  }

  [[nodiscard]] std::string results_table(const node_verdict& node) const {
    using a = text_table::align;
    // Compact for a terminal: the axes' values only, the reason codes rather than the whole
    // message; the full parameters and messages are in the md and json outputs.
    text_table t({"check", "gpu", "measured", "expected", "eff", "vs", "verdict", "note"},
                 {a::left, a::left, a::right, a::right, a::right, a::left, a::left, a::left});
    // At the terminal's width the note, then the check, wrap at spaces (never cut: both are
    // identifiers), and where that is not enough the note goes under its row.
    t.set_highlight(6);
    // The efficiency's bar, then the figures' units, go under their value where still too wide.
    t.set_shrinkable({7, 0, 4, 3, 2}, 8);
    t.set_wrap();
    t.set_below(7);
    // And an identifier longer than the room left (an imported matrix's name) goes above its row.
    t.set_own_line(0);
    for (const auto& r : node.results) {
      if (!listed(r.status))
        continue;
      // The reason codes; a pass needs no note, anything else without a code its message.
      std::string note = r.status == verdict_status::pass ? "" : r.message;
      if (!r.diagnoses.empty()) {
        note.clear();
        for (const auto& d : r.diagnoses) {
          note += note.empty() ? "" : ", ";
          note += short_code(d.code);
        }
      }
      const std::string axes = compact_axes_text(r);
      t.add_row({r.bench_id + (axes.empty() ? "" : " " + axes), format_gpu_ranges(r.devices),
                 format_quantity(r.measured, r.unit), format_quantity(r.expected, r.unit),
                 efficiency_text(r), frame_text(r.frame), std::string(to_string(r.status)), note},
                colour_on(r.status), colour_off());
    }
    return t.empty() ? "" : t.render(m_options.width);
  }

  [[nodiscard]] std::string gpus_table(const node_verdict& node) const {
    text_table g({"gpu", "name", "serial", "bus id", "spec", "verdict"});
    g.set_highlight(5);
    g.set_shrinkable({2, 1}, 12);
    g.set_wrap();
    for (const auto& gpu : node.gpus)
      if (listed(gpu.status) || !gpu.selected)
        g.add_row({std::to_string(gpu.index), gpu.name, gpu.serial, gpu.pci_bus_id,
                   gpu.spec_id.empty() ? "(none)" : gpu.spec_id,
                   gpu.selected ? std::string(to_string(gpu.status)) : "not selected"},
                  colour_on(gpu.status), colour_off());
    if (g.empty())
      return "";
    std::string out = "\n";
    out += g.render(m_options.width);
    return out;
  }

  /// Passing rows are listed only when verbose; the JSON and HTML keep every one.
  [[nodiscard]] bool listed(verdict_status s) const {
    return m_options.verbose || s != verdict_status::pass;
  }

  /// "  21 passing results and 7 passing GPUs not listed (-v lists them)"; "" when none is left
  /// out.
  [[nodiscard]] std::string hidden_line(const node_verdict& node) const {
    if (m_options.verbose)
      return "";
    const auto results = std::count_if(node.results.begin(), node.results.end(), [](const auto& r) {
      return r.status == verdict_status::pass;
    });
    const auto gpus = std::count_if(node.gpus.begin(), node.gpus.end(), [](const auto& g) {
      return g.selected && g.status == verdict_status::pass;
    });
    std::vector<std::string> parts;
    if (results > 0)
      parts.push_back(fmt::format("{} passing result{}", results, results == 1 ? "" : "s"));
    if (gpus > 0)
      parts.push_back(fmt::format("{} passing GPU{}", gpus, gpus == 1 ? "" : "s"));
    if (parts.empty())
      return "";
    return fmt::format("  {} not listed (-v lists them)\n", fmt::join(parts, " and "));
  }

  /// One entry per code and GPU: the same finding on every result of a GPU is said once, with
  /// how many and where (the json output keeps each).
  [[nodiscard]] std::string diagnosis_lines(const node_verdict& node) const {
    const auto groups = grouped_diagnoses(node);
    if (groups.empty())
      return "";
    std::string out = "\nDiagnosis\n";
    for (const auto& grp : groups) {
      const diagnosis& d = *grp.shown;
      const std::string summary = group_summary(grp);
      // Long text wraps under its line with a hanging indent, to the terminal's width.
      out += wrap_hanging(fmt::format("  {} {} {}{}: ", status_text(grp.severity), d.code,
                                      group_where(grp), grp.node_wide ? " (every GPU)" : ""),
                          escape_control(d.cause), m_options.width, 6);
      if (!summary.empty())
        out += wrap_hanging("      ", escape_control(summary), m_options.width, 6);
      out += wrap_hanging("      action: ", action_text(escape_control(group_action(grp)), d.step),
                          m_options.width, 8);
    }
    return out;
  }

  render_options m_options;
};

} // namespace

std::unique_ptr<renderer> make_table_renderer(const render_options& options) {
  return std::make_unique<table_renderer>(options);
}

} // namespace gpuspec::reports::render::detail
