// The opening of the check page (issue 31, "the answer first"): under the verdict, one row per
// node and GPU that is not passing, worst first, with its codes and the one action of its worst
// finding. GPUs of a node with the same verdict, codes and action share a row ("GPUs 0-7"), so
// one cause on every GPU reads as one node finding; a page of many nodes then names its passing
// nodes as hostlist groups ("node-[0-6,8-49]") in one line.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpuspec/reports/model/host_names.hpp"
#include "render_detail.hpp"
#include "render_html_detail.hpp"
#include "svg_writer.hpp"

namespace gpuspec::reports::inline render::html {

namespace {

using svg::escape;

/// What is wrong with one GPU (or the host, device -1) of a node.
struct unit_answer {
  int device = -1;
  verdict_status status = verdict_status::pass;
  std::vector<std::string> codes; ///< worst first
  std::string action;             ///< its gravest finding's (a node finding's: the node's)
  std::string message;            ///< when no diagnosis says why
};

std::vector<unit_answer> units_not_passing(const node_verdict& n) {
  std::map<int, unit_answer> by_unit;
  for (const auto& g : detail::grouped_diagnoses(n)) { // worst first
    std::vector<int> devices = g.devices;
    if (devices.empty())
      devices.push_back(-1);
    for (const int device : devices) {
      auto& u = by_unit[device];
      u.device = device;
      u.status = worst(u.status, g.severity);
      if (std::find(u.codes.begin(), u.codes.end(), g.shown->code) == u.codes.end())
        u.codes.push_back(g.shown->code);
      if (u.action.empty())
        u.action = detail::action_text(detail::group_action(g), g.shown->step);
    }
  }
  for (const auto& g : n.gpus)
    if (g.selected && g.status != verdict_status::pass && g.status != verdict_status::skipped) {
      auto& u = by_unit[g.index];
      u.device = g.index;
      u.status = worst(u.status, g.status);
      u.message = g.message;
    }
  std::vector<unit_answer> out;
  for (auto& [device, u] : by_unit)
    if (u.status != verdict_status::pass && u.status != verdict_status::skipped)
      out.push_back(std::move(u));
  if (out.empty()) // not passing, and nothing on a GPU or the host says why: the node's message
    out.push_back({-1, n.status, {}, {}, n.message});
  return out;
}

std::string action_of(const unit_answer& u) { return u.action.empty() ? u.message : u.action; }

} // namespace

std::string node_name(const node_verdict& n) { return n.hostname.empty() ? n.source : n.hostname; }

std::string gpu_list_text(const std::vector<int>& devices) {
  if (devices.empty())
    return "host";
  std::string out;
  for (std::size_t i = 0; i < devices.size();) {
    std::size_t j = i;
    while (j + 1 < devices.size() && devices[j + 1] == devices[j] + 1)
      ++j;
    out += (out.empty() ? "" : ",") + std::to_string(devices[i]);
    if (j > i)
      out += (j == i + 1 ? "," : "-") + std::to_string(devices[j]);
    i = j + 1;
  }
  return (devices.size() == 1 ? "GPU " : "GPUs ") + out;
}

std::vector<answer_row> answer_rows(const check_outcome& outcome) {
  std::vector<answer_row> rows;
  for (std::size_t k = 0; k < outcome.nodes.size(); ++k) {
    const node_verdict& n = outcome.nodes[k];
    if (n.status == verdict_status::pass || n.status == verdict_status::skipped)
      continue;
    for (auto& u : units_not_passing(n)) {
      const std::string action = action_of(u);
      const auto same = std::find_if(rows.begin(), rows.end(), [&](const answer_row& r) {
        return r.node_index == k && !r.devices.empty() && u.device >= 0 && r.status == u.status &&
               r.codes == u.codes && r.action == action;
      });
      if (same != rows.end()) {
        same->devices.push_back(u.device);
        continue;
      }
      answer_row row{k, &n, {}, u.status, u.codes, action};
      if (u.device >= 0)
        row.devices.push_back(u.device);
      rows.push_back(std::move(row));
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const answer_row& a, const answer_row& b) {
    if (a.status != b.status)
      return a.status > b.status;
    if (a.node_index != b.node_index)
      return natural_less(node_name(*a.node), node_name(*b.node));
    return false;
  });
  return rows;
}

std::string answer_html(const check_outcome& outcome) {
  const auto rows = answer_rows(outcome);
  std::string out;
  if (!rows.empty()) {
    out += "<h2>Not passing, worst first</h2>\n<table class=\"answer\"><thead><tr><th>host</th>"
           "<th>GPUs</th><th>verdict</th><th>codes</th><th>action</th></tr></thead><tbody>\n";
    for (const auto& r : rows) {
      std::string codes;
      for (const auto& c : r.codes)
        codes +=
            fmt::format("{}<span class=\"code\">{}</span>", codes.empty() ? "" : " ", escape(c));
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                         escape(node_name(*r.node)), escape(gpu_list_text(r.devices)),
                         badge(to_string(r.status)), codes, escape(r.action));
    }
    out += "</tbody></table>\n";
  }
  if (outcome.nodes.size() > 1) {
    std::vector<std::string> passing;
    for (const auto& n : outcome.nodes)
      if (n.status == verdict_status::pass)
        passing.push_back(node_name(n));
    if (!passing.empty()) {
      std::string groups;
      for (const auto& g : host_groups(passing))
        groups += (groups.empty() ? "" : ", ") + escape(g);
      out += fmt::format("<p class=\"passing\">{} passing: {}</p>\n", badge("pass"), groups);
    }
  }
  return out;
}

} // namespace gpuspec::reports::render::html
