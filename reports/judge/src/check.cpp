// gpuspec check (check.hpp): node by node (check_node.cpp and the frames it calls), then the
// relative frames (check_relative.cpp), then the roll-up.

#include "carried_ceilings.hpp"
#include "check_frames.hpp"

namespace gpuspec::reports::inline judge {

using namespace check_detail;

check_outcome check(std::span<const report> given, const spec_table& specs,
                    const expectations& rules, const check_options& options) {
  // A multi-node report is judged node by node (multi_node.hpp): its faults go to the node and
  // GPU that had them. Each node's verdict says which report it came from.
  std::vector<report> by_node;
  std::vector<std::size_t> origin;
  const bool multi_node =
      std::any_of(given.begin(), given.end(), [](const report& r) { return !r.nodes.empty(); });
  // A collective across nodes is recomputed before the split: its ranks' nodes are all in the
  // whole report (carried_ceilings.hpp recompute_network_ceilings).
  std::size_t network_changed = 0;
  if (multi_node)
    for (std::size_t i = 0; i < given.size(); ++i) {
      report whole = given[i];
      network_changed += recompute_network_ceilings(whole, rules.settings.datasheet_tolerance);
      for (auto& n : reports_by_node(whole)) {
        by_node.push_back(std::move(n));
        origin.push_back(i);
      }
    }
  std::span<const report> reports = multi_node ? std::span<const report>(by_node) : given;
  // The carried ceilings recomputed from each report's own inventory (carried_ceilings.hpp),
  // on copies, only where one changes.
  std::vector<report> recomputed;
  recomputed_ceilings changed;
  std::size_t imported_links = 0;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    report copy = reports[i];
    const auto n = recompute_carried_ceilings(copy, specs, rules.settings.datasheet_tolerance);
    if (n.total() == 0 && recomputed.empty())
      continue;
    if (recomputed.empty())
      recomputed.assign(reports.begin(), reports.begin() + static_cast<std::ptrdiff_t>(i));
    recomputed.push_back(std::move(copy));
    changed.c2c += n.c2c;
    // An imported log carries no ceiling of an earlier gpuspec: its copies are held to the
    // link its inventory (or the spec row) gives, and the note says so, not "an earlier gpuspec".
    (reports[i].run.backend == "imported" ? imported_links : changed.host_link) += n.host_link;
    changed.peer += n.peer;
  }
  if (!recomputed.empty())
    reports = recomputed;

  std::optional<baseline_index> baseline;
  if (options.baseline != nullptr)
    baseline.emplace(*options.baseline);
  std::size_t replaced = 0;
  const double tolerance = options.baseline_tolerance.value_or(rules.settings.baseline_tolerance);

  check_outcome out;
  for (const auto& r : reports) {
    node_checker checker(r, specs, rules, baseline ? &*baseline : nullptr, tolerance);
    out.nodes.push_back(checker.run());
    out.nodes.back().report_index =
        multi_node ? origin[out.nodes.size() - 1] : out.nodes.size() - 1;
    replaced += checker.replaced_ceilings();
    for (const auto& note : checker.notes())
      out.notes.push_back(
          fmt::format("{}: {}", r.host.hostname.empty() ? "?" : r.host.hostname, note));
    if (checker.unpaired() > 0)
      out.notes.push_back(fmt::format(
          "{}: {} result(s) found no partner in the baseline (same bench id and axes on the same "
          "GPU) and were judged against their ceiling instead",
          r.host.hostname.empty() ? "?" : r.host.hostname, checker.unpaired()));
  }
  if (replaced > 0)
    out.notes.push_back(fmt::format(
        "{} result(s) carried a datasheet ceiling further than {:.0f}% from the spec table's (a "
        "stale or edited report): judged by the spec table, as each result's message says",
        replaced, 100 * rules.settings.datasheet_tolerance));
  if (changed.c2c > 0)
    out.notes.push_back(fmt::format(
        "{} host transfer(s) on GPUs attached by NVLink-C2C judged against the C2C link of the "
        "spec table, not the ceiling the report carried",
        changed.c2c));
  if (changed.host_link + changed.peer > 0)
    out.notes.push_back(fmt::format(
        "{} host transfer(s) and {} peer cop(ies) carried a ceiling other than the one their "
        "report's own inventory gives (an earlier gpuspec held them to the link as read at "
        "idle): judged against the recomputed one, as each result's message says",
        changed.host_link, changed.peer));
  if (network_changed > 0)
    out.notes.push_back(fmt::format(
        "{} collective(s) across nodes carried a network ceiling of more ports than their ranks "
        "can use (an earlier gpuspec summed every active port of a node): judged against one "
        "port per rank from the report's own inventories, as each result's message says",
        network_changed));
  if (imported_links > 0)
    out.notes.push_back(fmt::format(
        "{} host transfer(s) of imported logs held to the PCIe link the GPU and its slot can "
        "reach (the inventory's, else the spec row's): the log states no link",
        imported_links));
  sibling_frame(reports, out, rules.settings);
  fleet_frame(reports, out, rules.settings);
  for (std::size_t n = 0; n < out.nodes.size(); ++n) {
    roll_up(reports[n], out.nodes[n]);
    out.status = worst(out.status, out.nodes[n].status);
  }
  if (out.nodes.empty())
    out.status = verdict_status::inconclusive;
  return out;
}

check_outcome check(const report& r, const spec_table& specs, const expectations& rules,
                    const check_options& options) {
  return check(std::span<const report>(&r, 1), specs, rules, options);
}

} // namespace gpuspec::reports::judge
