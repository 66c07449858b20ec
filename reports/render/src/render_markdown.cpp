// The Markdown layouts (`--format md`): a check outcome's here, a diff's and a comparison's their
// own to_markdown. GitHub-flavoured Markdown that pastes into a ticket (issue 31): the answer
// first, before any table (the verdict, then each finding not passing with where it is and its
// action, worst first), then the nodes table, then each node's diagnosis before its tables; every
// cell holds one thing (a result's observations get a table of their own, one per cell), and the
// verdict again last.

#include <algorithm>

#include <fmt/format.h>

#include "gpuspec/reports/model/text_format.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render::detail {

namespace {

/// A JSON value as a cell: a string without its quotes, anything else as JSON writes it.
std::string value_cell(const nlohmann::ordered_json& v) {
  return markdown_cell(v.is_string() ? v.get<std::string>() : v.dump());
}

std::string result_check(const result_verdict& r) {
  return markdown_cell(r.bench_id + (r.axes.empty() ? "" : " " + r.axes));
}

std::string answer_md(const check_outcome& outcome) {
  const auto bad = summarize_not_passing(outcome);
  std::string out = fmt::format("**{}**\n\n", verdict_summary_line(outcome, bad.nodes.size()));
  if (bad.nodes.empty())
    return out;
  out += "## Not passing, worst first\n\n";
  for (const auto& a : bad.actions)
    out += fmt::format("- **{}** `{}` on {}: {}\n", to_string(a.shown->severity), a.shown->code,
                       markdown_cell(where_text(a)),
                       action_text(markdown_cell(a.action), a.shown->step));
  // A node not passing with no finding (its message says why) is in the table below.
  out += bad.actions.empty() ? "" : "\n";
  out += "| host | verdict | gpus | codes |\n| --- | --- | --- | --- |\n";
  for (const auto& row : bad.nodes) {
    std::string codes;
    for (const auto& c : row.codes)
      codes += (codes.empty() ? "`" : ", `") + c + "`";
    out += fmt::format(
        "| {} | {} | {} | {} |\n",
        markdown_cell(row.node->hostname.empty() ? row.node->source : row.node->hostname),
        to_string(row.node->status), row.gpus,
        codes.empty() ? markdown_cell(row.node->message) : codes);
  }
  return out + "\n";
}

std::string diagnosis_md(const node_verdict& node) {
  const auto groups = grouped_diagnoses(node); // worst first
  if (groups.empty())
    return "";
  std::string out = "### Diagnosis\n\n";
  for (const auto& grp : groups) {
    const diagnosis& d = *grp.shown;
    const std::string summary = group_summary(grp);
    out +=
        fmt::format("- **{}** `{}` ({}{}): {}.{} Action: {}.\n", to_string(grp.severity), d.code,
                    group_where(grp), grp.node_wide ? ", every GPU" : "", markdown_cell(d.cause),
                    summary.empty() ? std::string() : fmt::format(" {}.", markdown_cell(summary)),
                    action_text(markdown_cell(group_action(grp)), d.step));
  }
  return out + "\n";
}

std::string results_md(const node_verdict& node) {
  if (node.results.empty())
    return "";
  std::string out = "| check | gpu | measured | expected | efficiency | frame | verdict | note |\n"
                    "| --- | ---: | ---: | ---: | ---: | --- | --- | --- |\n";
  for (const auto& r : node.results) {
    std::string note = markdown_cell(r.message);
    for (const auto& d : r.diagnoses)
      note += " `" + d.code + "`";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", result_check(r),
                       format_gpu_ranges(r.devices),
                       markdown_cell(format_quantity(r.measured, r.unit)),
                       markdown_cell(format_quantity(r.expected, r.unit)),
                       markdown_cell(efficiency_text(r)), r.frame, to_string(r.status), note);
  }
  return out + "\n";
}

/// The results' observations, one table per check (bench id and axes: results of one check share
/// their observations' names), one column per observation, one row per result.
std::string observations_md(const node_verdict& node) {
  std::vector<std::string> checks;
  for (const auto& r : node.results)
    if (!r.observations.empty() &&
        std::find(checks.begin(), checks.end(), result_check(r)) == checks.end())
      checks.push_back(result_check(r));
  if (checks.empty())
    return "";
  std::string out = "### Observations\n\n";
  for (const auto& check : checks) {
    std::vector<std::string> names;
    for (const auto& r : node.results)
      if (result_check(r) == check)
        for (const auto& [k, v] : r.observations.items())
          if (std::find(names.begin(), names.end(), k) == names.end())
            names.push_back(k);
    out += fmt::format("{}\n\n| gpu |", check);
    for (const auto& n : names)
      out += " " + markdown_cell(n) + " |";
    out += "\n| ---: |";
    for (std::size_t k = 0; k < names.size(); ++k)
      out += " --- |";
    out += "\n";
    for (const auto& r : node.results) {
      if (result_check(r) != check)
        continue;
      out += "| " + format_gpu_ranges(r.devices) + " |";
      for (const auto& n : names)
        out += " " + (r.observations.contains(n) ? value_cell(r.observations.at(n)) : "") + " |";
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

std::string gpus_md(const node_verdict& node) {
  if (node.gpus.empty())
    return "";
  std::string out = "| gpu | name | serial | bus id | spec | verdict |\n"
                    "| ---: | --- | --- | --- | --- | --- |\n";
  for (const auto& g : node.gpus)
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", g.index, markdown_cell(g.name),
                       markdown_cell(g.serial), markdown_cell(g.pci_bus_id),
                       markdown_cell(g.spec_id), to_string(g.status));
  return out + "\n";
}

class markdown_renderer final : public renderer {
protected:
  [[nodiscard]] std::string render_diff(const diff_output& d) const override {
    return to_markdown(d);
  }
  [[nodiscard]] std::string render_compare(const compare_output& c) const override {
    return to_markdown(c);
  }
  [[nodiscard]] std::string render_check(const check_outcome& outcome) const override {
    std::string out = fmt::format("# gpuspec check: {}\n\n", upper(to_string(outcome.status)));
    out += answer_md(outcome);
    for (const auto& node : outcome.nodes) {
      out +=
          fmt::format("## {}: {}\n\n", markdown_cell(node.hostname), upper(to_string(node.status)));
      if (!node.source.empty())
        out += fmt::format("Report `{}`, driver {}.\n\n", node.source,
                           markdown_cell(node.driver_version));
      if (!node.message.empty())
        out += markdown_cell(node.message) + "\n\n";
      out += diagnosis_md(node) + results_md(node) + gpus_md(node) + observations_md(node);
    }
    for (const auto& n : outcome.notes)
      out += "> " + markdown_cell(n) + "\n";
    out += fmt::format("{}**Verdict: {} (exit code {})**\n", outcome.notes.empty() ? "" : "\n",
                       upper(to_string(outcome.status)), exit_code_of(outcome.status));
    return out;
  }
};

} // namespace

std::unique_ptr<renderer> make_markdown_renderer() { return std::make_unique<markdown_renderer>(); }

} // namespace gpuspec::reports::render::detail
