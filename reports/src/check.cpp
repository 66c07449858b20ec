#include "gpuspec/reports/check.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuspec/reports/diagnosis.hpp"
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/text_format.hpp"

namespace gpuspec::reports {

std::optional<unit_info> unit_info_of(std::string_view unit) {
  struct entry {
    std::string_view name;
    unit_info info;
  };
  static constexpr entry units[] = {
      {"B/s", {"bytes_per_second", 1}},
      {"MB/s", {"bytes_per_second", 1e6}},
      {"GB/s", {"bytes_per_second", 1e9}},
      {"TB/s", {"bytes_per_second", 1e12}},
      {"GiB/s", {"bytes_per_second", 1073741824.0}},
      {"FLOP/s", {"flop_per_second", 1}},
      {"GFLOP/s", {"flop_per_second", 1e9}},
      {"TFLOP/s", {"flop_per_second", 1e12}},
      {"PFLOP/s", {"flop_per_second", 1e15}},
      {"GFLOPS", {"flop_per_second", 1e9}},
      {"TFLOPS", {"flop_per_second", 1e12}},
      {"OP/s", {"ops_per_second", 1}},
      {"GOP/s", {"ops_per_second", 1e9}},
      {"TOP/s", {"ops_per_second", 1e12}},
      {"GOPS", {"ops_per_second", 1e9}},
      {"TOPS", {"ops_per_second", 1e12}},
      {"s", {"seconds", 1}},
      {"ms", {"seconds", 1e-3}},
      {"us", {"seconds", 1e-6}},
      {"ns", {"seconds", 1e-9}},
  };
  for (const auto& e : units)
    if (e.name == unit)
      return e.info;
  return std::nullopt;
}

std::optional<double> pcie_bandwidth_gbs(int gen, int width) {
  // GB/s per lane and direction after line coding (8b/10b to Gen2, 128b/130b from Gen3;
  // Gen6 FLIT mode counted at its raw rate).
  static constexpr double per_lane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
  if (gen < 1 || gen > 6 || width <= 0)
    return std::nullopt;
  return per_lane[gen] * width;
}

namespace {

std::string group_of(const std::string& bench_id) {
  const auto dot = bench_id.rfind('.');
  return dot == std::string::npos ? bench_id : bench_id.substr(0, dot);
}

std::string model_key(const device_info& d) { return d.spec_id.empty() ? d.name : d.spec_id; }

/// The datasheet ceiling named by a rule, in `unit`; nullopt when the row lacks it or the
/// units do not convert.
std::optional<double> spec_ceiling(const gpu_spec& s, const std::string& ceiling,
                                   const std::string& unit) {
  std::optional<double> value;
  std::string_view from;
  if (ceiling == "memory_bandwidth_gbs") {
    if (s.memory_bandwidth_gbs > 0)
      value = s.memory_bandwidth_gbs;
    from = "GB/s";
  } else if (ceiling == "nvlink_gbs") {
    value = s.nvlink_gbs;
    from = "GB/s";
  } else if (ceiling == "pcie_gbs") {
    value = pcie_bandwidth_gbs(s.pcie_gen, s.pcie_width);
    from = "GB/s";
  } else if (ceiling.starts_with("peaks.")) {
    const std::string key = ceiling.substr(6);
    if (const auto it = s.peaks.find(key); it != s.peaks.end() && it->second > 0)
      value = it->second;
    from = key == "int8_tc" ? "TOPS" : "TFLOP/s";
  }
  const auto a = unit_info_of(from), b = unit_info_of(unit);
  if (!value || !a || !b)
    return std::nullopt;
  if (a->base != b->base) {
    // Integer Tensor Core rates are sometimes written as FLOP/s-style units: same scale.
    const bool ops_flops = (a->base == "ops_per_second" && b->base == "flop_per_second") ||
                           (a->base == "flop_per_second" && b->base == "ops_per_second");
    if (!ops_flops)
      return std::nullopt;
  }
  return *value * a->scale / b->scale;
}

/// Why a result that ran cannot be judged (did no work, telemetry missing or impossible).
std::string inconclusive_reason(const result& r, const expectation_settings& s) {
  if (r.samples.empty() || r.stats.n == 0)
    return "the result has no samples: it did no work";
  if (!(r.stats.median > 0))
    return fmt::format("median {} {}: no work measured", r.stats.median, r.unit);
  const auto& t = r.telemetry;
  if (t.status != "ok")
    return "telemetry missing: " + t.status;
  if (t.samples <= 0)
    return "telemetry missing: no samples in the measurement window";
  if ((t.power_w_mean && *t.power_w_mean <= 0) || (t.power_w_max && *t.power_w_max <= 0))
    return "telemetry impossible: 0 W power draw under load";
  if (t.temperature_c_max &&
      (*t.temperature_c_max >= s.max_plausible_temperature_c || *t.temperature_c_max < -50))
    return fmt::format("telemetry impossible: temperature {} °C", *t.temperature_c_max);
  if (t.sm_clock_mhz_median && *t.sm_clock_mhz_median <= 0)
    return "telemetry impossible: 0 MHz SM clock under load";
  return {};
}

verdict_status by_fraction(double efficiency, double pass, double warn) {
  if (efficiency >= pass)
    return verdict_status::pass;
  if (efficiency >= warn)
    return verdict_status::warn;
  return verdict_status::fail;
}

/// The value the relative frames compare: higher is better after this.
double oriented(const result& r) {
  return r.higher_is_better ? r.stats.median : 1.0 / r.stats.median;
}

double median_of(std::vector<double> v) {
  if (v.empty())
    return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  const double hi = *mid;
  if (v.size() % 2 == 1)
    return hi;
  const double lo = *std::max_element(v.begin(), mid);
  return 0.5 * (lo + hi);
}

double mad_of(const std::vector<double>& v, double median) {
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v)
    dev.push_back(std::abs(x - median));
  return median_of(std::move(dev));
}

/// Is x an outlier below `median` (MAD `mad`)? Below by more than `threshold` (relative), and
/// beyond the modified z-score bound when the spread is not zero.
bool low_outlier(double x, double median, double mad, const expectation_settings& s, double& z) {
  z = mad > 0 ? 0.6745 * (x - median) / mad : (x < median ? -INFINITY : 0.0);
  return median > 0 && x < (1 - s.sibling_threshold) * median && z < s.outlier_z;
}

std::string identity_key(const report& r, const std::vector<int>& devices, int kind) {
  std::string out;
  for (int index : devices) {
    const auto it = std::find_if(r.devices.begin(), r.devices.end(),
                                 [&](const device_info& d) { return d.index == index; });
    std::string id;
    if (kind == 0)
      id = it != r.devices.end() ? it->serial : "";
    else if (kind == 1)
      id = it != r.devices.end() ? it->uuid : "";
    else
      id = std::to_string(index);
    if (id.empty())
      return {};
    out += id + ',';
  }
  return out;
}

std::string case_key(const result& r) { return r.bench_id + '\x1f' + r.parameters.dump() + '\x1f'; }

/// Baseline results by case and GPU identity (serial, UUID, index).
class baseline_index {
public:
  explicit baseline_index(const report& b) : m_report(b) {
    for (std::size_t i = 0; i < b.results.size(); ++i) {
      const auto& r = b.results[i];
      if (r.status != result_status::ok || r.stats.median <= 0)
        continue;
      for (int kind = 0; kind < 3; ++kind)
        if (auto id = identity_key(b, r.devices, kind); !id.empty())
          m_maps[kind].emplace(case_key(r) + id, &r);
    }
  }
  [[nodiscard]] const result* find(const report& current, const result& r) const {
    for (int kind = 0; kind < 3; ++kind) {
      const auto id = identity_key(current, r.devices, kind);
      if (id.empty())
        continue;
      if (const auto it = m_maps[kind].find(case_key(r) + id); it != m_maps[kind].end())
        return it->second;
    }
    return nullptr;
  }

private:
  const report& m_report;
  std::unordered_map<std::string, const result*> m_maps[3];
};

/// A member of a sibling or fleet group.
struct member {
  std::size_t node, verdict;
  double value;
};

void add_outlier(result_verdict& v, diagnosis d) {
  v.status = worst(v.status, verdict_status::warn);
  v.diagnoses.push_back(std::move(d));
}

class node_checker {
public:
  node_checker(const report& r, const spec_table& specs, const expectations& rules,
               const baseline_index* baseline, double tolerance)
      : m_report(r), m_specs(specs), m_rules(rules), m_baseline(baseline), m_tolerance(tolerance) {}

  node_verdict run() {
    node_verdict node;
    node.hostname = m_report.host.hostname;
    node.driver_version = m_report.host.driver_version;
    node.cuda_driver_version = m_report.host.cuda_driver_version;
    node.complete = m_report.complete;
    node.diagnoses = diagnose_host(m_report);

    std::unordered_map<std::string, std::vector<const device_info*>> by_model;
    for (const auto& d : m_report.devices)
      by_model[model_key(d)].push_back(&d);
    for (const auto& d : m_report.devices) {
      gpu_verdict g;
      g.index = d.index;
      g.name = d.name;
      g.uuid = d.uuid;
      g.serial = d.serial;
      g.pci_bus_id = d.pci_bus_id;
      const gpu_spec* spec = d.spec_id.empty() ? nullptr : m_specs.find(d.spec_id);
      if (spec == nullptr)
        spec = match_device(m_specs, d);
      g.spec_id = spec ? spec->id : d.spec_id;
      m_spec_of[d.index] = spec;
      m_device_of[d.index] = &d;
      g.diagnoses = diagnose_device(m_report, d, by_model[model_key(d)], m_rules.settings);
      if (spec == nullptr)
        g.diagnoses.push_back(make_diagnosis(
            "GPUSPEC-NO-SPEC-ROW", verdict_status::warn,
            fmt::format("no spec-table row matches '{}' (PCI device id {})", d.name,
                        d.pci_device_id ? fmt::format("{:#06x}", *d.pci_device_id) : "unknown"),
            &d, m_report.host));
      for (const auto& diag : g.diagnoses)
        g.status = worst(g.status, diag.severity);
      m_gpu_pos[d.index] = node.gpus.size();
      node.gpus.push_back(std::move(g));
    }

    std::unordered_map<std::string, int> names;
    node.results.reserve(m_report.results.size());
    for (std::size_t i = 0; i < m_report.results.size(); ++i) {
      auto v = judge(i, node);
      auto& count = names[v.name];
      if (++count > 1)
        v.name += fmt::format(" #{}", count);
      node.results.push_back(std::move(v));
    }
    return node;
  }

  [[nodiscard]] const device_info* device(int index) const {
    const auto it = m_device_of.find(index);
    return it == m_device_of.end() ? nullptr : it->second;
  }

private:
  result_verdict judge(std::size_t i, const node_verdict& node) {
    const result& r = m_report.results[i];
    result_verdict v;
    v.result_index = i;
    v.bench_id = r.bench_id;
    v.group = group_of(r.bench_id);
    v.parameters = format_parameters(r.parameters);
    v.devices = r.devices;
    v.unit = r.unit;
    std::string gpus;
    for (int dv : r.devices) {
      gpus += gpus.empty() ? "" : ",";
      gpus += std::to_string(dv);
    }
    v.name = fmt::format("{}{} gpu {}", r.bench_id,
                         v.parameters.empty() ? "" : " [" + v.parameters + "]", gpus);
    const device_info* dev = r.devices.empty() ? nullptr : device(r.devices.front());
    const gpu_spec* spec = nullptr;
    if (dev != nullptr)
      spec = m_spec_of.at(dev->index);

    if (r.status == result_status::failed) {
      v.status = verdict_status::fail;
      v.message = "failed: " + r.reason;
      v.diagnoses.push_back(make_diagnosis("GPUSPEC-RESULT-FAILED", verdict_status::fail, r.reason,
                                           dev, m_report.host));
      return v;
    }
    if (r.status != result_status::ok) {
      v.status = verdict_status::skipped;
      v.message = std::string(to_string(r.status)) + ": " + r.reason;
      return v;
    }
    if (r.check.status == verification_status::failed) {
      v.status = verdict_status::fail;
      v.message = "verification failed: " + r.check.detail;
      auto d = make_diagnosis(
          "GPUSPEC-VERIFICATION-FAILED", verdict_status::fail,
          fmt::format("verification failed{}{}",
                      r.check.detail.empty() ? "" : ": " + r.check.detail,
                      r.check.max_rel_error
                          ? fmt::format(" (max relative error {:.3g}, tolerance {:.3g})",
                                        *r.check.max_rel_error, r.check.tolerance.value_or(0))
                          : std::string()),
          dev, m_report.host);
      d.evidence["bench_id"] = r.bench_id;
      v.diagnoses.push_back(std::move(d));
      return v;
    }
    if (auto why = inconclusive_reason(r, m_rules.settings); !why.empty()) {
      v.status = verdict_status::inconclusive;
      v.message = why;
      return v;
    }
    v.measured = r.stats.median;

    std::string code = "GPUSPEC-BELOW-SPEC";
    const result* base = m_baseline ? m_baseline->find(m_report, r) : nullptr;
    const expectation_rule* rule = m_rules.find(r.bench_id);
    if (base != nullptr) {
      v.frame = "baseline";
      v.expected = base->stats.median;
      v.efficiency = oriented(r) / oriented(*base);
      v.pass_fraction = 1 - m_tolerance;
      v.warn_fraction = 1 - 2 * m_tolerance;
      code = "GPUSPEC-BELOW-BASELINE";
    } else if (rule == nullptr) {
      v.status = verdict_status::skipped;
      v.message = "no expectation rule matches this benchmark";
      return v;
    } else {
      v.pass_fraction = rule->pass;
      v.warn_fraction = rule->warn;
      std::optional<double> ceiling;
      if (rule->ceiling == "datasheet") {
        // The benchmark's own datasheet ceiling, derived from the spec row when it ran; only
        // while the device still matches a row of the table the check uses.
        if (spec != nullptr && r.ceiling_value.datasheet && *r.ceiling_value.datasheet > 0)
          ceiling = r.ceiling_value.datasheet;
      } else if (spec != nullptr && rule->ceiling != "efficiency")
        ceiling = spec_ceiling(*spec, rule->ceiling, r.unit);
      if (ceiling) {
        v.frame = "spec";
        v.expected = *ceiling;
        v.efficiency = r.higher_is_better ? r.stats.median / *ceiling : *ceiling / r.stats.median;
      } else if (r.efficiency) {
        v.frame = "clock_adjusted";
        v.expected = r.ceiling_value.clock_adjusted;
        v.efficiency = *r.efficiency;
      } else {
        v.status = verdict_status::skipped;
        v.message = rule->ceiling == "datasheet"
                        ? "the result carries no datasheet ceiling and no clock-adjusted efficiency"
                    : spec == nullptr ? "no spec row and no clock-adjusted efficiency"
                                      : "the spec row has no " + rule->ceiling +
                                            " and the result no clock-adjusted efficiency";
        return v;
      }
    }
    v.status = by_fraction(*v.efficiency, *v.pass_fraction, *v.warn_fraction);
    v.message = fmt::format("{:.1f}% of {} (pass at {:.0f}%, warn at {:.0f}%)", 100 * *v.efficiency,
                            v.frame == "spec"       ? "the datasheet"
                            : v.frame == "baseline" ? "the baseline"
                                                    : "the clock-adjusted ceiling",
                            100 * *v.pass_fraction, 100 * *v.warn_fraction);
    if (v.status == verdict_status::warn || v.status == verdict_status::fail)
      explain(v, r, dev, node, code);
    return v;
  }

  /// Every warn or fail gets a probable cause: the result's telemetry, else its GPU's
  /// inventory diagnoses, else the generic code of the frame.
  void explain(result_verdict& v, const result& r, const device_info* dev, const node_verdict& node,
               const std::string& code) {
    v.diagnoses = diagnose_result(m_report, r, dev, m_rules.settings, v.status);
    if (!v.diagnoses.empty())
      return;
    if (dev != nullptr)
      for (const auto& d : node.gpus[m_gpu_pos.at(dev->index)].diagnoses)
        if (d.code != "GPUSPEC-NO-SPEC-ROW")
          v.diagnoses.push_back(d);
    if (!v.diagnoses.empty())
      return;
    auto d =
        make_diagnosis(code, v.status,
                       fmt::format("{} {} is {:.1f}% of {} {}", v.measured.value_or(0), r.unit,
                                   100 * v.efficiency.value_or(0),
                                   v.expected ? fmt::format("{:.4g}", *v.expected) : "?", r.unit),
                       dev, m_report.host);
    d.evidence["bench_id"] = r.bench_id;
    v.diagnoses.push_back(std::move(d));
  }

  const report& m_report;
  const spec_table& m_specs;
  const expectations& m_rules;
  const baseline_index* m_baseline;
  double m_tolerance;
  std::unordered_map<int, const gpu_spec*> m_spec_of;
  std::unordered_map<int, const device_info*> m_device_of;
  std::unordered_map<int, std::size_t> m_gpu_pos;
};

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
    std::string key = case_key(res) + model_key(*it->second);
    if (per_node)
      key += '\x1f' + std::to_string(node_index);
    groups[key].push_back({node_index, i, oriented(res)});
  }
}

void sibling_frame(std::span<const report> reports, check_outcome& out,
                   const expectation_settings& s) {
  for (std::size_t n = 0; n < out.nodes.size(); ++n) {
    group_map groups;
    add_to_groups(groups, reports[n], out.nodes[n], n, true);
    for (auto& [key, members] : groups) {
      if (members.size() < 2)
        continue;
      for (std::size_t k = 0; k < members.size(); ++k) {
        std::vector<double> others;
        others.reserve(members.size() - 1);
        for (std::size_t j = 0; j < members.size(); ++j)
          if (j != k)
            others.push_back(members[j].value);
        const double med = median_of(others);
        const double mad = mad_of(others, med);
        double z = 0;
        if (!low_outlier(members[k].value, med, mad, s, z))
          continue;
        auto& v = out.nodes[n].results[members[k].verdict];
        const auto& res = reports[n].results[v.result_index];
        const device_info* dev = nullptr;
        for (const auto& d : reports[n].devices)
          if (d.index == res.devices.front())
            dev = &d;
        auto d = make_diagnosis(
            "GPUSPEC-SIBLING-OUTLIER", verdict_status::warn,
            fmt::format("{:.1f}% below the median of {} identical GPU(s) in this node{}",
                        100 * (1 - members[k].value / med), others.size(),
                        std::isfinite(z) ? fmt::format(" (modified z {:.1f})", z) : ""),
            dev, reports[n].host);
        d.evidence["bench_id"] = v.bench_id;
        add_outlier(v, std::move(d));
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
    const double med = median_of(values);
    const double mad = mad_of(values, med);
    for (const auto& m : members) {
      double z = 0;
      if (!low_outlier(m.value, med, mad, s, z))
        continue;
      auto& v = out.nodes[m.node].results[m.verdict];
      const auto& res = reports[m.node].results[v.result_index];
      const device_info* dev = nullptr;
      for (const auto& d : reports[m.node].devices)
        if (d.index == res.devices.front())
          dev = &d;
      auto d = make_diagnosis(
          "GPUSPEC-FLEET-OUTLIER", verdict_status::warn,
          fmt::format("{:.1f}% below the fleet median over {} reports{}", 100 * (1 - m.value / med),
                      distinct, std::isfinite(z) ? fmt::format(" (modified z {:.1f})", z) : ""),
          dev, reports[m.node].host);
      d.evidence["bench_id"] = v.bench_id;
      add_outlier(v, std::move(d));
    }
  }
  if (too_few > 0)
    out.notes.push_back(fmt::format(
        "fleet frame: {} case(s) had fewer than {} reports of one model and were not compared",
        too_few, s.fleet_min_reports));
}

void roll_up(const report& r, node_verdict& node) {
  std::unordered_map<int, std::size_t> pos;
  for (std::size_t i = 0; i < node.gpus.size(); ++i)
    pos[node.gpus[i].index] = i;
  verdict_status status = verdict_status::skipped;
  for (const auto& d : node.diagnoses)
    status = worst(status, d.severity);
  for (const auto& v : node.results) {
    status = worst(status, v.status);
    for (int d : v.devices)
      if (const auto it = pos.find(d); it != pos.end())
        node.gpus[it->second].status = worst(node.gpus[it->second].status, v.status);
  }
  for (const auto& g : node.gpus)
    status = worst(status, g.status);
  if (!r.complete) {
    status = worst(status, verdict_status::inconclusive);
    node.message = "the run is incomplete: " + r.incomplete_reason;
  } else if (r.results.empty()) {
    status = worst(status, verdict_status::inconclusive);
    node.message = "the report has no results";
  }
  node.status = status;
}

} // namespace

check_outcome check(std::span<const report> reports, const spec_table& specs,
                    const expectations& rules, const check_options& options) {
  std::optional<baseline_index> baseline;
  if (options.baseline != nullptr)
    baseline.emplace(*options.baseline);
  const double tolerance = options.baseline_tolerance.value_or(rules.settings.baseline_tolerance);

  check_outcome out;
  for (const auto& r : reports) {
    node_checker checker(r, specs, rules, baseline ? &*baseline : nullptr, tolerance);
    out.nodes.push_back(checker.run());
  }
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

} // namespace gpuspec::reports
