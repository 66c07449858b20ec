// The opening of `gpuspec check`'s terminal output (issue 31, "the answer comes last"): the
// verdict on the first line, then every node that is not passing, worst first, with the GPUs and
// codes that make it so, then one action per code. With 50 reports and a few bad ones, the first
// screen names every bad node; the details and the verdict again follow (render_text.cpp).

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "gpuspec/reports/model/text_table.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render::detail {

namespace {

/// The GPUs of a node that are not passing ("2,5"); "host" for a finding on the node itself.
std::string bad_gpus_text(const node_verdict& node) {
  std::string out;
  for (const auto& g : node.gpus)
    if (g.selected && g.status != verdict_status::pass && g.status != verdict_status::skipped)
      out += (out.empty() ? "" : ",") + std::to_string(g.index);
  if (out.empty() && !node.diagnoses.empty())
    out = "host";
  return out.empty() ? "-" : out;
}

/// The node's groups, worst first (a stable sort keeps the judge's order within a severity).
std::vector<diagnosis_group> worst_first(const node_verdict& node) {
  auto groups = grouped_diagnoses(node);
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.severity > b.severity; });
  return groups;
}

} // namespace

std::string short_code(std::string_view code) {
  constexpr std::string_view prefix = "GPUSPEC-";
  return std::string(code.starts_with(prefix) ? code.substr(prefix.size()) : code);
}

std::string wrap_hanging(std::string_view first, std::string_view text, std::size_t width,
                         std::size_t indent) {
  std::string out(first);
  std::size_t used = text_table::display_width(first);
  // A prefix longer than the indent counts as a word: a long first word goes under it.
  bool fresh = used <= indent; // no word on this line yet
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty())
      continue;
    const std::size_t w = text_table::display_width(word);
    const bool spaced = out.empty() || out.back() == ' ' || out.back() == '\n';
    if (!fresh && width > 0 && used + (spaced ? 0 : 1) + w > width) {
      out += "\n" + std::string(indent, ' ');
      used = indent;
      fresh = true;
    } else if (!spaced) {
      out += ' ';
      ++used;
    }
    out += word;
    used += w;
    fresh = false;
  }
  return out + "\n";
}

std::string check_summary_text(const check_outcome& outcome, std::size_t width) {
  std::vector<const node_verdict*> bad;
  for (const auto& n : outcome.nodes)
    if (n.status != verdict_status::pass)
      bad.push_back(&n);
  std::stable_sort(bad.begin(), bad.end(),
                   [](const auto* a, const auto* b) { return a->status > b->status; });
  const std::size_t nodes = outcome.nodes.size();
  std::string out =
      fmt::format("Verdict: {} (exit code {}); {} node{}, {}\n", upper(to_string(outcome.status)),
                  exit_code_of(outcome.status), nodes, nodes == 1 ? "" : "s",
                  bad.empty() ? std::string(nodes == 1 ? "passing" : "all passing")
                              : fmt::format("{} not passing", bad.size()));
  if (bad.empty())
    return out;
  // Codes are identifiers: the table wraps them at ", " and never cuts one.
  text_table t({"host", "verdict", "gpus", "codes"});
  t.set_shrinkable({3}, 12);
  t.set_wrap();
  t.set_below(3);
  std::vector<const diagnosis_group*> actions;
  std::set<std::string> said;
  std::vector<std::vector<diagnosis_group>> keep;
  keep.reserve(bad.size());
  for (const auto* n : bad) {
    const auto& groups = keep.emplace_back(worst_first(*n));
    std::string codes;
    std::set<std::string> in_node;
    for (const auto& g : groups) {
      if (in_node.insert(g.shown->code).second)
        codes += (codes.empty() ? "" : ", ") + short_code(g.shown->code);
      if (said.insert(g.shown->code).second)
        actions.push_back(&g);
    }
    t.add_row({escape_control(n->hostname.empty() ? n->source : n->hostname),
               std::string(to_string(n->status)), bad_gpus_text(*n),
               codes.empty() ? escape_control(n->message) : codes});
  }
  out += "\nNot passing, worst first\n" + t.render(width);
  if (!actions.empty()) {
    std::stable_sort(actions.begin(), actions.end(),
                     [](const auto* a, const auto* b) { return a->severity > b->severity; });
    out += "\nActions\n";
    for (const auto* g : actions)
      out += wrap_hanging(fmt::format("  {}: ", short_code(g->shown->code)),
                          escape_control(g->shown->action), width, 6);
  }
  return out;
}

} // namespace gpuspec::reports::render::detail
