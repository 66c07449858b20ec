// gpuspec check (check.hpp): node by node (check_node.cpp and the frames it calls), then the
// relative frames (check_relative.cpp), then the roll-up.

#include "check_frames.hpp"

namespace gpuspec::reports::inline judge {

using namespace check_detail;

namespace {

/// A host transfer on a GPU attached by NVLink-C2C crossed the C2C link, not PCIe: it is judged
/// against the C2C link of the check's own spec table (reference.hpp c2c_transfer_ceiling),
/// whatever ceiling the report carries (a PCIe one from an older harness would make a healthy
/// transfer "impossible"). Returns how many results changed.
std::size_t judge_host_transfers_by_c2c(report& r, const spec_table& specs) {
  std::size_t changed = 0;
  for (auto& x : r.results) {
    if (x.devices.size() != 1 || !(x.bench_id == "transfer.h2d" || x.bench_id == "transfer.d2h" ||
                                   x.bench_id == "transfer.bidir"))
      continue;
    const auto dev = std::find_if(r.devices.begin(), r.devices.end(), [&](const device_info& d) {
      return d.index == x.devices.front();
    });
    if (dev == r.devices.end() || !is_c2c_attached(*dev))
      continue;
    ceiling c = c2c_transfer_ceiling(spec_of(specs, *dev), x.bench_id == "transfer.bidir" ? 2 : 1);
    if (c == x.ceiling_value)
      continue;
    if (x.ceiling_value.datasheet || x.ceiling_value.clock_adjusted)
      c.datasheet_source += "; replaces the ceiling the report carried (" +
                            (x.ceiling_value.datasheet ? x.ceiling_value.datasheet_source
                                                       : x.ceiling_value.clock_adjusted_source) +
                            ")";
    x.ceiling_value = std::move(c);
    settle_efficiency(x);
    ++changed;
  }
  return changed;
}

} // namespace

check_outcome check(std::span<const report> given, const spec_table& specs,
                    const expectations& rules, const check_options& options) {
  // A multi-node report is judged node by node (multi_node.hpp): its faults go to the node and
  // GPU that had them. Each node's verdict says which report it came from.
  std::vector<report> by_node;
  std::vector<std::size_t> origin;
  const bool multi_node =
      std::any_of(given.begin(), given.end(), [](const report& r) { return !r.nodes.empty(); });
  if (multi_node)
    for (std::size_t i = 0; i < given.size(); ++i)
      for (auto& n : reports_by_node(given[i])) {
        by_node.push_back(std::move(n));
        origin.push_back(i);
      }
  std::span<const report> reports = multi_node ? std::span<const report>(by_node) : given;
  // Copies only where a GPU is attached by NVLink-C2C (judge_host_transfers_by_c2c).
  std::vector<report> by_c2c;
  std::size_t c2c_judged = 0;
  if (std::any_of(reports.begin(), reports.end(), [](const report& r) {
        return std::any_of(r.devices.begin(), r.devices.end(), is_c2c_attached);
      })) {
    by_c2c.assign(reports.begin(), reports.end());
    for (auto& r : by_c2c)
      c2c_judged += judge_host_transfers_by_c2c(r, specs);
    reports = by_c2c;
  }

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
  if (c2c_judged > 0)
    out.notes.push_back(fmt::format(
        "{} host transfer(s) on GPUs attached by NVLink-C2C judged against the C2C link of the "
        "spec table, not the ceiling the report carried",
        c2c_judged));
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
