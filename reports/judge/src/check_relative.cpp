// The relative frames: a result against the same case on the identical GPUs of its node
// (siblings) and on the same model in every report checked together (fleet).
#include "check_frames.hpp"

namespace gpuspec::reports::inline judge::check_detail {

namespace {

/// Which metric an outlier is low on, as the terminal names it: "memory.stream.triad fp32".
std::string metric_name(const result_verdict& v) {
  return v.bench_id + (v.axes_values.empty() ? "" : " " + v.axes_values);
}

/// Groups of comparable results: same case, same model, judged with a value.
using group_map = std::unordered_map<std::string, std::vector<member>>;

void add_to_groups(group_map& groups, const report& r, const node_verdict& node,
                   std::size_t node_index, bool per_node) {
  std::unordered_map<int, const device_info*> devices;
  for (const auto& d : r.devices)
    devices[d.index] = &d;
  for (std::size_t i = 0; i < node.results.size(); ++i) {
    const auto& v = node.results[i];
    const auto& res = r.results[v.result_index];
    if (!v.measured || res.devices.size() != 1 || res.stats.median <= 0)
      continue;
    const auto it = devices.find(res.devices.front());
    if (it == devices.end())
      continue;
    std::string key = case_key(res) + '\x1e' + model_key(*it->second) + mig_group_suffix(res);
    if (per_node)
      key += '\x1f' + std::to_string(node_index);
    groups[key].push_back({node_index, i, oriented(res), res.telemetry.sm_clock_mhz_median});
  }
}

/// A group member against the others of its group.
struct leave_one_out {
  outlier_test value;          ///< its value against the others' values
  std::optional<double> clock; ///< the others' median SM clock, when any has one
  std::size_t clocks = 0;      ///< how many of the others have one
};

template <class Members> leave_one_out leave_out(const Members& members, std::size_t k) {
  std::vector<double> values, clocks;
  values.reserve(members.size() - 1);
  for (std::size_t j = 0; j < members.size(); ++j)
    if (j != k) {
      values.push_back(members[j].value);
      if (members[j].sm_clock)
        clocks.push_back(*members[j].sm_clock);
    }
  leave_one_out out;
  out.value = test_outlier(members[k].value, values);
  if (!clocks.empty())
    out.clock = median_of(clocks);
  out.clocks = clocks.size();
  return out;
}

} // namespace

void sibling_frame(std::span<const report> reports, check_outcome& out,
                   const expectation_settings& s) {
  for (std::size_t n = 0; n < out.nodes.size(); ++n) {
    group_map groups;
    add_to_groups(groups, reports[n], out.nodes[n], n, true);
    for (auto& [key, members] : groups) {
      if (members.size() < 2)
        continue;
      // Members with the same value and clock have the same others (a report that repeats a
      // case on one GPU): each distinct pair is worked out once, which keeps a group of many
      // repeats from costing its size squared.
      std::map<std::pair<double, std::optional<double>>, leave_one_out> seen;
      for (std::size_t k = 0; k < members.size(); ++k) {
        const auto [at, fresh] = seen.try_emplace({members[k].value, members[k].sm_clock});
        if (fresh)
          at->second = leave_out(members, k);
        const leave_one_out& others = at->second;
        auto& v = out.nodes[n].results[members[k].verdict];
        const auto& res = reports[n].results[v.result_index];
        const device_info* dev = device_of(reports[n], res.devices.front());
        // The SM clock against the siblings', whatever the throughput (issue 10, point 7).
        if (members[k].sm_clock && others.clock) {
          const double clock = *others.clock;
          if (clock > 0 && *members[k].sm_clock < s.sibling_clock_fraction * clock) {
            auto d = make_diagnosis(
                "GPUSPEC-SM-CLOCK-BELOW-SIBLINGS", verdict_status::warn,
                fmt::format("SM clock median {:.0f} MHz during {}, {:.0f}% of the {:.0f} MHz "
                            "median of {} in this node (warns under {:.0f}%)",
                            *members[k].sm_clock, res.bench_id, 100 * *members[k].sm_clock / clock,
                            clock, siblings_text(res, others.clocks),
                            100 * s.sibling_clock_fraction),
                dev, reports[n].host);
            d.evidence["bench_id"] = v.bench_id;
            name_mig_finding(d, res);
            add_finding(v, std::move(d));
          }
        }
        const auto& t = others.value;
        if (awaits_relative_frame(v))
          judge_relatively(v, "siblings",
                           fmt::format("judged against {} in this node: {:+.1f}% from their median",
                                       siblings_text(res, members.size() - 1), 100 * t.deviation));
        if (!is_outlier(t, s.sibling_threshold, std::abs(s.outlier_z), -1))
          continue;
        // Past the widest spread identical healthy GPUs show, the GPU fails whatever its
        // datasheet fraction (a lowered datasheet line must not let a lame GPU pass).
        const bool fails = -t.deviation > s.sibling_fail_threshold;
        auto d = make_diagnosis(
            "GPUSPEC-SIBLING-OUTLIER", fails ? verdict_status::fail : verdict_status::warn,
            fmt::format("{}: {:.1f}% below the median of {} in this node{} ({} beyond {:.0f}%)",
                        metric_name(v), -100 * t.deviation, siblings_text(res, members.size() - 1),
                        std::isfinite(t.z) ? fmt::format(" (modified z {:.1f})", t.z) : "",
                        fails ? "fails" : "warns; fails", 100 * s.sibling_fail_threshold),
            dev, reports[n].host);
        d.evidence["bench_id"] = v.bench_id;
        name_mig_finding(d, res);
        add_finding(v, std::move(d));
      }
    }
  }
}

void fleet_frame(std::span<const report> reports, check_outcome& out,
                 const expectation_settings& s) {
  if (reports.size() < 2)
    return;
  group_map groups;
  for (std::size_t n = 0; n < out.nodes.size(); ++n)
    add_to_groups(groups, reports[n], out.nodes[n], n, false);
  std::size_t too_few = 0;
  for (auto& [key, members] : groups) {
    std::vector<std::size_t> nodes;
    for (const auto& m : members)
      nodes.push_back(m.node);
    std::sort(nodes.begin(), nodes.end());
    const auto distinct = std::unique(nodes.begin(), nodes.end()) - nodes.begin();
    if (distinct < s.fleet_min_reports) {
      ++too_few;
      continue;
    }
    std::vector<double> values;
    values.reserve(members.size());
    for (const auto& m : members)
      values.push_back(m.value);
    const spread fleet = spread_of(values);
    for (const auto& m : members) {
      const auto t = test_outlier(m.value, fleet);
      auto& v = out.nodes[m.node].results[m.verdict];
      if (awaits_relative_frame(v))
        judge_relatively(v, "fleet",
                         fmt::format("judged against the fleet ({} reports of this model): "
                                     "{:+.1f}% from its median",
                                     distinct, 100 * t.deviation));
      if (!is_outlier(t, s.sibling_threshold, std::abs(s.outlier_z), -1))
        continue;
      const auto& res = reports[m.node].results[v.result_index];
      auto d = make_diagnosis(
          "GPUSPEC-FLEET-OUTLIER", verdict_status::warn,
          fmt::format("{}: {:.1f}% below the fleet median over {} reports{}", metric_name(v),
                      -100 * t.deviation, distinct,
                      std::isfinite(t.z) ? fmt::format(" (modified z {:.1f})", t.z) : ""),
          device_of(reports[m.node], res.devices.front()), reports[m.node].host);
      d.evidence["bench_id"] = v.bench_id;
      name_mig_finding(d, res);
      add_finding(v, std::move(d));
    }
  }
  if (too_few > 0)
    out.notes.push_back(fmt::format(
        "fleet frame: {} case(s) had fewer than {} reports of one model and were not compared",
        too_few, s.fleet_min_reports));
}

} // namespace gpuspec::reports::judge::check_detail
