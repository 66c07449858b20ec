// The opening of `gpuspec check`'s terminal output (issue 31, "the answer comes last"): the
// verdict on the first line, then every node that is not passing, worst first, with the GPUs and
// codes that make it so, then one action per code. With 50 reports and a few bad ones, the first
// screen names every bad node; the details and the verdict again follow (render_text.cpp).

#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/model/host_names.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/text_table.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render::detail {

namespace {

/// The GPUs of a node that are not passing ("2,5"); "host" for a finding on the node itself.
std::string bad_gpus_text(const node_verdict& node) {
  std::vector<int> bad;
  for (const auto& g : node.gpus)
    if (g.selected && g.status != verdict_status::pass && g.status != verdict_status::skipped)
      bad.push_back(g.index);
  std::sort(bad.begin(), bad.end());
  if (!bad.empty())
    return format_gpu_ranges(bad); // "0-7", as the findings name them
  return node.diagnoses.empty() ? "-" : "host";
}

} // namespace

std::string short_code(std::string_view code) {
  constexpr std::string_view prefix = "GPUSPEC-";
  return std::string(code.starts_with(prefix) ? code.substr(prefix.size()) : code);
}

std::string wrap_hanging(std::string_view first, std::string_view text, std::size_t width,
                         std::size_t indent) {
  std::string out(first);
  const auto lines = text_table::wrap(text, width, indent, text_table::display_width(first));
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (k > 0) {
      while (!out.empty() && out.back() == ' ') // a label whose first word went under it
        out.pop_back();
      out += '\n';
    }
    out += lines[k];
  }
  return out + "\n";
}

not_passing_summary summarize_not_passing(const check_outcome& outcome) {
  not_passing_summary out;
  for (std::size_t k = 0; k < outcome.nodes.size(); ++k)
    if (outcome.nodes[k].status != verdict_status::pass)
      out.nodes.push_back({k, &outcome.nodes[k], bad_gpus_text(outcome.nodes[k]), {}});
  // Worst first; among equals, hosts in natural order (node7 before node10).
  std::stable_sort(out.nodes.begin(), out.nodes.end(), [](const auto& a, const auto& b) {
    if (a.node->status != b.node->status)
      return a.node->status > b.node->status;
    return natural_less(a.node->hostname.empty() ? a.node->source : a.node->hostname,
                        b.node->hostname.empty() ? b.node->source : b.node->hostname);
  });
  const bool several = outcome.nodes.size() > 1;
  for (auto& row : out.nodes)
    for (const auto& g : grouped_diagnoses(*row.node)) { // worst first
      if (std::find(row.codes.begin(), row.codes.end(), g.shown->code) == row.codes.end())
        row.codes.push_back(g.shown->code);
      const std::string action = group_action(g);
      std::string where = group_where(g) + (g.node_wide ? " (every GPU)" : "");
      if (several) {
        const node_verdict& n = *row.node;
        where = (n.hostname.empty() ? n.source : n.hostname) + " " + where;
      }
      // One entry per code and action: the same finding on several nodes names them all.
      auto same = std::find_if(out.actions.begin(), out.actions.end(), [&](const auto& a) {
        return a.shown->code == g.shown->code && a.action == action;
      });
      if (same == out.actions.end()) {
        out.actions.push_back({g.shown, action, {}, {}});
        same = std::prev(out.actions.end());
      } else if (graver_finding(*g.shown, *same->shown)) {
        same->shown = g.shown;
      }
      if (std::find(same->where.begin(), same->where.end(), where) == same->where.end())
        same->where.push_back(where);
      if (std::find(same->nodes.begin(), same->nodes.end(), row.index) == same->nodes.end())
        same->nodes.push_back(row.index);
    }
  std::stable_sort(out.actions.begin(), out.actions.end(),
                   [](const auto& a, const auto& b) { return graver_finding(*a.shown, *b.shown); });
  return out;
}

std::string where_text(const summary_action& a, std::size_t max_places) {
  std::string out;
  for (std::size_t k = 0; k < a.where.size() && k < max_places; ++k)
    out += (k == 0 ? "" : ", ") + a.where[k];
  if (a.where.size() > max_places)
    out += fmt::format(" and {} more", a.where.size() - max_places);
  return a.nodes.size() > 1 ? fmt::format("{} ({} nodes)", out, a.nodes.size()) : out;
}

std::string verdict_summary_line(const check_outcome& outcome, std::size_t not_passing) {
  const std::size_t nodes = outcome.nodes.size();
  return fmt::format("{} (exit code {}); {} node{}, {}", upper(to_string(outcome.status)),
                     exit_code_of(outcome.status), nodes, nodes == 1 ? "" : "s",
                     not_passing == 0 ? std::string(nodes == 1 ? "passing" : "all passing")
                                      : fmt::format("{} not passing", not_passing));
}

std::string check_summary_text(const check_outcome& outcome, std::size_t width) {
  const auto summary = summarize_not_passing(outcome);
  std::string out = "Verdict: " + verdict_summary_line(outcome, summary.nodes.size()) + "\n";
  if (summary.nodes.empty())
    return out;
  // Codes are identifiers: the table wraps them at ", " and never cuts one.
  text_table t({"host", "verdict", "gpus", "codes"});
  t.set_shrinkable({3}, 12);
  t.set_wrap();
  t.set_below(3);
  // A host known only by its report's path: the path, elided to the width as the node's line
  // does it, above its row where the row has no room for it.
  t.set_own_line(0);
  for (const auto& row : summary.nodes) {
    std::string codes;
    for (const auto& c : row.codes)
      codes += (codes.empty() ? "" : ", ") + short_code(c);
    const node_verdict& n = *row.node;
    const std::string source =
        width > 0 ? elide_path(escape_control(n.source), width) : escape_control(n.source);
    t.add_row({n.hostname.empty() ? source : escape_control(n.hostname),
               std::string(to_string(n.status)), row.gpus,
               codes.empty() ? escape_control(n.message) : codes});
  }
  out += "\nNot passing, worst first\n" + t.render(width);
  if (!summary.actions.empty()) {
    out += "\nActions\n";
    for (const auto& a : summary.actions)
      out += wrap_hanging(
          fmt::format("  {} on {}: ", short_code(a.shown->code), escape_control(where_text(a))),
          action_text(escape_control(a.action), a.shown->step), width, 6);
  }
  return out;
}

} // namespace gpuspec::reports::render::detail
