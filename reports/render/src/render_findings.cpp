// How every check layout groups and orders a node's findings (issue 31): one entry per code and
// GPU, the same finding on every result of a GPU said once; one entry per code where every GPU of
// the node has it (a node finding, "gpu 0-7", with the node's action: node_wide.hpp); and worst
// first (graver_finding: severity, then untrusted answers, then the costlier rung).

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/judge/node_wide.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render::detail {

namespace {

/// One entry per (code, GPU), in the order the judge wrote their first members.
std::vector<diagnosis_group> per_gpu_groups(const node_verdict& node) {
  std::vector<diagnosis_group> out;
  std::map<std::pair<std::string, int>, std::size_t> at;
  std::set<std::tuple<std::string, int, std::string>> seen;
  auto add = [&](const diagnosis& d, const result_verdict* from) {
    const auto key = std::make_pair(d.code, d.device.value_or(-1));
    auto [it, fresh] = at.try_emplace(key, out.size());
    if (fresh) {
      out.push_back({&d, d.severity, 0, 0, {}, {}, false});
      if (d.device)
        out.back().devices.push_back(*d.device);
    }
    auto& g = out[it->second];
    if (seen.emplace(d.code, d.device.value_or(-1), d.cause).second)
      ++g.findings;
    if (worst(g.severity, d.severity) != g.severity) {
      g.severity = d.severity;
      g.shown = &d;
    }
    if (from != nullptr) {
      ++g.results;
      if (std::find(g.benches.begin(), g.benches.end(), from->bench_id) == g.benches.end())
        g.benches.push_back(from->bench_id);
    }
  };
  for (const auto& d : node.diagnoses)
    add(d, nullptr);
  for (const auto& g : node.gpus)
    for (const auto& d : g.diagnoses)
      add(d, nullptr);
  for (const auto& r : node.results) {
    // A result counts once per group, however many of the group's diagnoses it carries.
    std::set<std::pair<std::string, int>> counted;
    for (const auto& d : r.diagnoses)
      add(d, counted.emplace(d.code, d.device.value_or(-1)).second ? &r : nullptr);
  }
  return out;
}

/// The node's GPUs a finding can be on: those the run was asked to measure.
std::vector<int> selected_gpus(const node_verdict& node) {
  std::vector<int> out;
  for (const auto& g : node.gpus)
    if (g.selected)
      out.push_back(g.index);
  std::sort(out.begin(), out.end());
  return out;
}

/// The groups of one code that cover every selected GPU of the node (two or more) become one:
/// the worst member shown, the causes counted as distinct texts, the benchmarks joined.
std::vector<diagnosis_group> merge_node_wide(std::vector<diagnosis_group> groups,
                                             const node_verdict& node) {
  const auto gpus = selected_gpus(node);
  if (gpus.size() < 2)
    return groups;
  std::map<std::string, std::vector<std::size_t>> by_code;
  for (std::size_t k = 0; k < groups.size(); ++k)
    if (!groups[k].devices.empty())
      by_code[groups[k].shown->code].push_back(k);
  std::set<std::size_t> absorbed;
  for (const auto& [code, members] : by_code) {
    std::vector<int> covered;
    for (const auto k : members)
      covered.push_back(groups[k].devices.front());
    std::sort(covered.begin(), covered.end());
    if (covered != gpus)
      continue;
    auto& first = groups[members.front()];
    std::set<std::string> causes;
    for (const auto k : members) {
      const auto& g = groups[k];
      causes.insert(g.shown->cause);
      if (k == members.front())
        continue;
      if (worst(first.severity, g.severity) != first.severity) {
        first.severity = g.severity;
        first.shown = g.shown;
      }
      first.results += g.results;
      for (const auto& b : g.benches)
        if (std::find(first.benches.begin(), first.benches.end(), b) == first.benches.end())
          first.benches.push_back(b);
      absorbed.insert(k);
    }
    first.findings = causes.size();
    first.devices = covered;
    first.node_wide = true;
  }
  std::vector<diagnosis_group> out;
  for (std::size_t k = 0; k < groups.size(); ++k)
    if (!absorbed.contains(k))
      out.push_back(std::move(groups[k]));
  return out;
}

} // namespace

std::vector<diagnosis_group> grouped_diagnoses(const node_verdict& node) {
  auto groups = merge_node_wide(per_gpu_groups(node), node);
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return graver_finding(*a.shown, *b.shown); });
  return groups;
}

std::string group_where(const diagnosis_group& g) {
  return g.devices.empty() ? std::string("host") : "gpu " + format_gpu_ranges(g.devices);
}

std::string group_action(const diagnosis_group& g) {
  if (g.node_wide) {
    const auto node = node_wide_action(g.shown->code);
    if (!node.empty())
      return std::string(node);
  }
  return g.shown->action;
}

std::string group_summary(const diagnosis_group& g, std::size_t max_benches) {
  if (g.findings <= 1 && g.results <= 1)
    return "";
  std::string names;
  for (std::size_t k = 0; k < g.benches.size() && k < max_benches; ++k)
    names += (k == 0 ? "" : ", ") + g.benches[k];
  if (g.benches.size() > max_benches)
    names += fmt::format(" and {} more", g.benches.size() - max_benches);
  std::string out = g.findings > 1 ? fmt::format("{} findings", g.findings) : "";
  if (g.results > 0)
    out += fmt::format("{}in {} result{}: {}", out.empty() ? "" : ", ", g.results,
                       g.results == 1 ? "" : "s", names);
  if (g.findings > 1)
    out += " (the worst shown)";
  return out;
}

} // namespace gpuspec::reports::render::detail
