#include "gpuspec/reports/check.hpp"
#include "gpuspec/reports/fraction.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "gpuspec/reports/burnin_rules.hpp"
#include "gpuspec/reports/diagnosis.hpp"
#include "gpuspec/reports/event_rules.hpp"
#include "gpuspec/reports/host_rules.hpp"
#include "gpuspec/reports/identity.hpp"
#include "gpuspec/reports/multi_node.hpp"
#include "gpuspec/reports/reference.hpp"
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/statistics.hpp"
#include "gpuspec/reports/text_format.hpp"
#include "gpuspec/reports/units.hpp"
#include "integrity.hpp"

namespace gpuspec::reports {

namespace {

std::string group_of(const std::string& bench_id) {
  const auto dot = bench_id.rfind('.');
  return dot == std::string::npos ? bench_id : bench_id.substr(0, dot);
}

std::string model_key(const device_info& d) { return d.spec_id.empty() ? d.name : d.spec_id; }

/// Why a result that ran cannot be judged, with its reason code; empty when it can.
struct unjudgeable {
  std::string code, why;
};
std::optional<unjudgeable> inconclusive_reason(const result& r, const expectation_settings& s) {
  if (r.samples.empty() || r.stats.n == 0)
    return unjudgeable{"GPUSPEC-NO-WORK", "the result has no samples: it did no work"};
  if (!(r.stats.median > 0))
    return unjudgeable{"GPUSPEC-NO-WORK", fmt::format("median {} {}: no work measured",
                                                      r.stats.median, to_string(r.unit))};
  const auto& t = r.telemetry;
  if (t.status != "ok")
    return unjudgeable{"GPUSPEC-TELEMETRY-MISSING", "telemetry missing: " + t.status};
  if (t.samples <= 0)
    return unjudgeable{"GPUSPEC-TELEMETRY-MISSING",
                       "telemetry missing: no samples in the measurement window"};
  if ((t.power_w_mean && *t.power_w_mean <= 0) || (t.power_w_max && *t.power_w_max <= 0))
    return unjudgeable{"GPUSPEC-TELEMETRY-IMPOSSIBLE",
                       "telemetry impossible: 0 W power draw under load"};
  if (t.temperature_c_max &&
      (*t.temperature_c_max >= s.max_plausible_temperature_c || *t.temperature_c_max < -50))
    return unjudgeable{
        "GPUSPEC-TELEMETRY-IMPOSSIBLE",
        fmt::format("telemetry impossible: temperature {} °C", *t.temperature_c_max)};
  if (t.sm_clock_mhz_median && *t.sm_clock_mhz_median <= 0)
    return unjudgeable{"GPUSPEC-TELEMETRY-IMPOSSIBLE",
                       "telemetry impossible: 0 MHz SM clock under load"};
  return std::nullopt;
}

/// The code that names a failed result's failure (docs/check.md): a worker the watchdog had
/// to stop is not a benchmark to rerun, and a wrong answer is neither.
std::string_view failure_code(failure_kind f) {
  switch (f) {
  case failure_kind::verification:
    return "GPUSPEC-VERIFICATION-FAILED";
  case failure_kind::gpu_start:
    return "GPUSPEC-GPU-START-FAILED";
  case failure_kind::worker_timeout:
    return "GPUSPEC-WORKER-HUNG";
  case failure_kind::worker_signal:
    return "GPUSPEC-WORKER-CRASHED";
  case failure_kind::worker_exit:
    return "GPUSPEC-WORKER-EXITED";
  case failure_kind::worker_protocol:
    return "GPUSPEC-WORKER-PROTOCOL";
  case failure_kind::none:
  case failure_kind::benchmark:
    break;
  }
  return "GPUSPEC-RESULT-FAILED";
}

/// Worker failures are the spine's own judgement (the watchdog saw them): even a stand-in
/// report is judged by them.
bool is_spine_failure(failure_kind f) {
  return f == failure_kind::gpu_start || f == failure_kind::worker_timeout ||
         f == failure_kind::worker_signal || f == failure_kind::worker_exit ||
         f == failure_kind::worker_protocol;
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

/// Baseline results by the same result on the same GPU (identity.hpp).
class baseline_index {
public:
  explicit baseline_index(const report& b) : m_report(b) {}

  /// The partner of `r` (a result of `current`), by the device key both reports share.
  [[nodiscard]] const result* find(const report& current, const result& r) {
    const device_key key = common_device_key(current, m_report);
    auto& map = m_maps[static_cast<std::size_t>(key)];
    if (!m_built[static_cast<std::size_t>(key)]) {
      for (const auto& x : m_report.results)
        if (x.status == result_status::ok && x.stats.median > 0)
          map.emplace(case_key(x) + '\x1e' + devices_identity(m_report, x.devices, key), &x);
      m_built[static_cast<std::size_t>(key)] = true;
    }
    const auto it = map.find(case_key(r) + '\x1e' + devices_identity(current, r.devices, key));
    return it == map.end() ? nullptr : it->second;
  }

private:
  const report& m_report;
  std::array<std::unordered_map<std::string, const result*>, 3> m_maps;
  std::array<bool, 3> m_built{};
};

/// Whether `v` is inconclusive only against the datasheet, for want of a spec row (node_checker::
/// frame_by_rule): a relative frame (siblings, fleet) can still judge it.
bool awaits_relative_frame(const result_verdict& v) {
  if (v.status != verdict_status::inconclusive)
    return false;
  bool waiting = false;
  for (const auto& d : v.diagnoses) {
    const bool row = d.code == "GPUSPEC-NO-SPEC-ROW" && d.evidence.contains("frame");
    if (d.severity == verdict_status::inconclusive && !row)
      return false;
    waiting = waiting || row;
  }
  return waiting;
}

/// `v` judged by a relative frame ("siblings" or "fleet"): the datasheet's inconclusive becomes
/// a note, and the result's other findings (and the frame's outlier finding, added after) set
/// its status.
void judge_relatively(result_verdict& v, std::string frame, const std::string& how) {
  std::erase_if(v.diagnoses, [](const diagnosis& d) {
    return d.code == "GPUSPEC-NO-SPEC-ROW" && d.evidence.contains("frame");
  });
  v.status = verdict_status::pass;
  for (const auto& d : v.diagnoses)
    v.status = worst(v.status, d.severity);
  v.frame = std::move(frame);
  v.message = how + "; inconclusive against the datasheet (no spec-table row matches the GPU)";
}

/// A member of a sibling or fleet group.
struct member {
  std::size_t node, verdict;
  double value;
  std::optional<double> sm_clock;
};

void add_finding(result_verdict& v, diagnosis d) {
  v.status = worst(v.status, d.severity);
  v.diagnoses.push_back(std::move(d));
}

/// Findings first; an explanation of the same code raises the finding to the result's
/// severity instead of repeating it.
void merge_explanations(result_verdict& v, std::vector<diagnosis> explanations) {
  for (auto& e : explanations) {
    const auto same = std::find_if(v.diagnoses.begin(), v.diagnoses.end(),
                                   [&](const diagnosis& d) { return d.code == e.code; });
    if (same != v.diagnoses.end())
      same->severity = worst(same->severity, e.severity);
    else
      v.diagnoses.push_back(std::move(e));
  }
}

/// "spec t4" or "arch hopper": what an override was written for.
std::string override_names(const rule_override& o) {
  std::string out;
  for (const auto* list : {&o.spec, &o.arch})
    for (const auto& name : *list)
      out +=
          fmt::format("{}{} {}", out.empty() ? "" : ", ", list == &o.spec ? "spec" : "arch", name);
  return out;
}

std::string gpus_text(const std::vector<int>& devices) {
  std::string out;
  for (int d : devices) {
    out += out.empty() ? "" : ",";
    out += std::to_string(d);
  }
  return out;
}

class node_checker {
public:
  node_checker(const report& r, const spec_table& specs, const expectations& rules,
               baseline_index* baseline, double tolerance)
      : m_report(r), m_specs(specs), m_rules(rules), m_baseline(baseline), m_tolerance(tolerance) {}

  node_verdict run() {
    node_verdict node;
    node.hostname = m_report.host.hostname;
    node.driver_version = m_report.host.driver_version;
    node.cuda_driver_version = m_report.host.cuda_driver_version;
    node.complete = m_report.complete;
    node.diagnoses = diagnose_host(m_report);
    node_evidence(node);
    index_devices(node);
    judge_gpus(node);

    auto checksums = compare_burnin_checksums(m_report);
    for (auto& [index, d] : checksums.findings)
      m_cross_gpu[index].push_back(std::move(d));
    m_notes = std::move(checksums.notes);

    std::unordered_map<std::string, int> names;
    node.results.reserve(m_report.results.size());
    for (std::size_t i = 0; i < m_report.results.size(); ++i) {
      auto v = judge(i, node);
      add_event_findings(v, m_report.results[i], node);
      add_telemetry_notes(v, m_report.results[i]);
      auto& count = names[v.name];
      if (++count > 1)
        v.name += fmt::format(" #{}", count);
      node.results.push_back(std::move(v));
    }
    return node;
  }

  [[nodiscard]] std::size_t unpaired() const { return m_unpaired; }
  [[nodiscard]] const std::vector<std::string>& notes() const { return m_notes; }
  [[nodiscard]] std::size_t replaced_ceilings() const { return m_replaced; }

private:
  /// Each GPU by index (one listed twice is inconsistent), and the GPUs the run was asked to
  /// measure (one not listed is inconsistent).
  void index_devices(node_verdict& node) {
    for (std::size_t k = 0; k < m_report.devices.size(); ++k) {
      const auto& d = m_report.devices[k];
      const auto [at, fresh] = m_device_of.try_emplace(d.index, &d);
      if (!fresh)
        node.diagnoses.push_back(inconsistent(
            fmt::format("devices[{}].index", k),
            fmt::format("GPU {} is listed twice (devices[{}] and devices[{}]): which is GPU {} "
                        "cannot be told",
                        d.index, at->second - m_report.devices.data(), k, d.index),
            &d));
    }
    for (std::size_t i = 0; i < m_report.run.devices.size(); ++i) {
      const int index = m_report.run.devices[i];
      m_selected.insert(index);
      if (!m_device_of.contains(index))
        node.diagnoses.push_back(inconsistent(
            fmt::format("run.devices[{}]", i),
            fmt::format("GPU {} was selected, but devices[] does not list it", index), nullptr));
    }
    // A report of version 1 does not say which GPUs were asked for: every GPU was.
    if (m_report.run.devices.empty())
      for (const auto& d : m_report.devices)
        m_selected.insert(d.index);
  }

  /// Each GPU's verdict from its own findings (selected GPUs only) and its spec-table row.
  void judge_gpus(node_verdict& node) {
    const auto load = pcie_under_load_by_device();
    std::unordered_map<std::string, std::vector<const device_info*>> by_model;
    for (const auto& d : m_report.devices)
      by_model[model_key(d)].push_back(&d);
    for (const auto& d : m_report.devices) {
      const gpu_spec* spec = spec_of(m_specs, d);
      gpu_verdict g = gpu_verdict_of(d, spec);
      m_spec_of[d.index] = spec;
      g.selected = m_selected.contains(d.index);
      if (!g.selected) {
        g.message = "not selected: the run was told to leave this GPU out (--devices)";
      } else {
        const auto it = load.find(d.index);
        const gpu_facts facts{m_report,
                              d,
                              spec,
                              by_model[model_key(d)],
                              it == load.end() ? std::nullopt : std::optional(it->second),
                              m_rules.settings};
        g.diagnoses = diagnose_device(facts);
        // A GPU NVML lost before it could name it has nothing to match a row by: GPU-LOST says
        // what is wrong with it, and a missing row is not news about the table.
        const bool unnamed_and_lost = gpu_is_lost(d) && d.name.empty() && !d.pci_device_id;
        if (spec == nullptr && !unnamed_and_lost)
          g.diagnoses.push_back(make_diagnosis(
              "GPUSPEC-NO-SPEC-ROW", verdict_status::warn,
              fmt::format("no spec-table row matches '{}' (PCI device id {})", d.name,
                          d.pci_device_id ? fmt::format("{:#06x}", *d.pci_device_id) : "unknown"),
              &d, m_report.host));
        for (const auto& diag : g.diagnoses)
          g.status = worst(g.status, diag.severity);
      }
      m_gpu_pos[d.index] = node.gpus.size();
      node.gpus.push_back(std::move(g));
    }
  }

  /// What makes the whole node inconclusive whatever its results say.
  void node_evidence(node_verdict& node) const {
    const auto& host = m_report.host;
    if (m_report.run.backend == "stand-in")
      node.diagnoses.push_back(make_diagnosis(
          "GPUSPEC-STAND-IN", verdict_status::inconclusive,
          "run.backend is \"stand-in\": a scripted test worker produced these results, nothing "
          "was measured",
          nullptr, host));
    if (!m_report.complete)
      node.diagnoses.push_back(
          make_diagnosis("GPUSPEC-RUN-INCOMPLETE", verdict_status::inconclusive,
                         "the run is incomplete: " + (m_report.incomplete_reason.empty()
                                                          ? std::string("no reason recorded")
                                                          : m_report.incomplete_reason),
                         nullptr, host));
    if (m_report.results.empty())
      node.diagnoses.push_back(make_diagnosis("GPUSPEC-NO-RESULTS", verdict_status::inconclusive,
                                              "the report has no results", nullptr, host));
  }

  [[nodiscard]] diagnosis inconsistent(const std::string& field, const std::string& why,
                                       const device_info* dev) const {
    auto d = make_diagnosis("GPUSPEC-REPORT-INCONSISTENT", verdict_status::inconclusive,
                            fmt::format("{}: {}", field, why), dev, m_report.host);
    d.evidence["field"] = field;
    return d;
  }

  /// The lowest PCIe link each GPU's results saw while busy: its host transfers' where any of
  /// them carries a reading (the load that moves bytes over the link, and the evidence the
  /// rule cites), else any of its one-GPU results'.
  [[nodiscard]] std::unordered_map<int, pcie_under_load> pcie_under_load_by_device() const {
    std::unordered_map<int, pcie_under_load> out;
    std::unordered_set<int> seen_in_transfer;
    const auto is_host_transfer = [](const result& r) {
      return r.bench_id.starts_with("transfer.") && !r.bench_id.starts_with("transfer.p2p");
    };
    for (const auto& r : m_report.results) {
      const auto& t = r.telemetry;
      if (r.devices.size() == 1 && (t.pcie_gen_min || t.pcie_width_min) && is_host_transfer(r))
        seen_in_transfer.insert(r.devices.front());
    }
    for (const auto& r : m_report.results) {
      const auto& t = r.telemetry;
      if (r.devices.size() != 1 || (!t.pcie_gen_min && !t.pcie_width_min))
        continue;
      if (seen_in_transfer.contains(r.devices.front()) && !is_host_transfer(r))
        continue;
      auto& l = out[r.devices.front()];
      const bool lower_gen = t.pcie_gen_min && (!l.gen || *t.pcie_gen_min < *l.gen);
      const bool lower_width = t.pcie_width_min && (!l.width || *t.pcie_width_min < *l.width);
      if (lower_gen)
        l.gen = t.pcie_gen_min;
      if (lower_width)
        l.width = t.pcie_width_min;
      if (lower_gen || lower_width || l.where.empty())
        l.where = r.bench_id;
    }
    return out;
  }

  [[nodiscard]] const device_info* device(int index) const {
    const auto it = m_device_of.find(index);
    return it == m_device_of.end() ? nullptr : it->second;
  }

  /// What names a result: its id, group, axes, parameters, GPUs and unit.
  [[nodiscard]] static result_verdict describe(const result& r, std::size_t i) {
    result_verdict v;
    v.result_index = i;
    v.bench_id = r.bench_id;
    v.group = group_of(r.bench_id);
    v.axes = format_parameters(r.axes);
    v.axes_values = format_values(r.axes);
    v.parameters = format_parameters(parameters_of(r));
    v.devices = r.devices;
    v.unit = r.unit;
    v.name = fmt::format("{}{} gpu {}", r.bench_id, v.axes.empty() ? "" : " [" + v.axes + "]",
                         gpus_text(r.devices));
    return v;
  }

  /// The verdict `status` with one diagnosis of `code` saying `message`.
  [[nodiscard]] result_verdict conclude(result_verdict v, const result& r, const device_info* dev,
                                        verdict_status status, std::string_view code,
                                        std::string message) const {
    v.status = status;
    v.message = message;
    auto d = make_diagnosis(code, status, std::move(message), dev, m_report.host);
    d.evidence["bench_id"] = r.bench_id;
    v.diagnoses.push_back(std::move(d));
    return v;
  }

  result_verdict judge(std::size_t i, const node_verdict& node) {
    const result& r = m_report.results[i];
    result_verdict v = describe(r, i);
    if (names_unknown_gpu(i, v))
      return v;
    const device_info* dev = r.devices.empty() ? nullptr : device(r.devices.front());
    if (auto early = judge_without_ceiling(i, dev, v))
      return std::move(*early);
    return judge_against_ceiling(r, dev, node, std::move(v));
  }

  /// The GPUs a result names must be GPUs of the report that the run was asked to measure:
  /// true (and `v` inconclusive) when one is not.
  bool names_unknown_gpu(std::size_t i, result_verdict& v) const {
    const result& r = m_report.results[i];
    for (std::size_t k = 0; k < r.devices.size(); ++k) {
      const int index = r.devices[k];
      const std::string field = fmt::format("results[{}].devices[{}]", i, k);
      if (device(index) == nullptr) {
        v.status = verdict_status::inconclusive;
        v.message = fmt::format("{}: GPU {} is not in devices[]", field, index);
        v.diagnoses.push_back(
            inconsistent(field, fmt::format("GPU {} is not in devices[]", index), nullptr));
        return true;
      }
      if (!m_selected.contains(index)) {
        v.status = verdict_status::inconclusive;
        v.message = fmt::format("{}: GPU {} was not selected (run.devices)", field, index);
        v.diagnoses.push_back(inconsistent(
            field, fmt::format("GPU {} was not selected (run.devices)", index), device(index)));
        return true;
      }
    }
    return false;
  }

  /// The verdicts reached before any ceiling is asked: a spine failure, a burn-in, a stand-in,
  /// a wrong answer, a collective timeout, a failure or skip, a contradiction, a result not
  /// judged or not measurable. nullopt: the result goes on to its ceiling.
  std::optional<result_verdict> judge_without_ceiling(std::size_t i, const device_info* dev,
                                                      result_verdict& v) {
    const result& r = m_report.results[i];
    // The watchdog's verdict on a worker holds even for a stand-in report; anything else a
    // stand-in wrote is synthetic.
    if (r.status == result_status::failed && is_spine_failure(r.failure))
      return conclude(v, r, dev, verdict_status::fail, failure_code(r.failure),
                      "failed: " + r.reason);
    // A burn-in is judged by its record's rules, not against a ceiling (docs/burnin.md).
    if (r.burnin && (r.status == result_status::ok || r.failure == failure_kind::verification))
      return judge_burnin(i, r, dev, std::move(v));
    if (m_report.run.backend == "stand-in" && r.status != result_status::skipped &&
        r.status != result_status::not_supported)
      return conclude(v, r, dev, verdict_status::inconclusive, "GPUSPEC-STAND-IN",
                      "synthetic result from a stand-in worker: nothing was measured");
    // A wrong answer is a possible silent-data-corruption finding whatever the status says.
    if (r.check.status == verification_status::failed || r.failure == failure_kind::verification) {
      auto why = fmt::format(
          "verification failed{}{}", r.check.detail.empty() ? "" : ": " + r.check.detail,
          r.check.max_rel_error ? fmt::format(" (max relative error {:.3g}, tolerance {:.3g})",
                                              *r.check.max_rel_error, r.check.tolerance.value_or(0))
                                : std::string());
      return conclude(v, r, dev, verdict_status::fail, "GPUSPEC-VERIFICATION-FAILED",
                      std::move(why));
    }
    if (auto timeout = collective_timeout(m_report, r)) {
      // Named on the first GPU that had not arrived; the verdict still covers every GPU.
      v.status = verdict_status::fail;
      v.message = timeout->cause;
      v.diagnoses.push_back(std::move(*timeout));
      return v;
    }
    if (r.status == result_status::failed)
      return conclude(v, r, dev, verdict_status::fail, failure_code(r.failure),
                      "failed: " + r.reason);
    if (r.status != result_status::ok) {
      v.status = verdict_status::skipped;
      v.message = std::string(to_string(r.status)) + ": " + r.reason;
      return v;
    }
    return judge_unmeasurable(i, dev, v);
  }

  /// An ok result that contradicts itself, is not judged (a collective), or whose figures
  /// cannot be judged (too few samples, impossible values).
  std::optional<result_verdict> judge_unmeasurable(std::size_t i, const device_info* dev,
                                                   result_verdict& v) const {
    const result& r = m_report.results[i];
    if (auto c = detail::result_contradiction(r, i)) {
      v.status = verdict_status::inconclusive;
      v.message = fmt::format("{}: {}", c->field, c->why);
      v.diagnoses.push_back(inconsistent(c->field, c->why, dev));
      return v;
    }
    if (auto why = collective_not_judged(r); !why.empty()) {
      v.status = verdict_status::skipped;
      v.message = why;
      return v;
    }
    if (auto why = inconclusive_reason(r, m_rules.settings))
      return conclude(v, r, dev, verdict_status::inconclusive, why->code, why->why);
    if (auto why = impossible(r); !why.empty())
      return conclude(v, r, dev, verdict_status::inconclusive, "GPUSPEC-IMPOSSIBLE-RESULT", why);
    return std::nullopt;
  }

  /// The result's findings, then its median against the baseline's partner or its reference,
  /// by the rule's fractions; a warn or fail is explained.
  result_verdict judge_against_ceiling(const result& r, const device_info* dev,
                                       const node_verdict& node, result_verdict v) {
    v.measured = r.stats.median;
    for (auto& d : result_findings(m_report, r, dev, m_rules.settings))
      add_finding(v, std::move(d));
    for (auto& d : collective_findings(m_report, r, verdict_status::warn))
      add_finding(v, std::move(d));
    const verdict_status findings = v.status;

    std::string code = "GPUSPEC-BELOW-SPEC";
    const result* base = m_baseline ? m_baseline->find(m_report, r) : nullptr;
    if (m_baseline != nullptr && base == nullptr)
      ++m_unpaired;
    std::string frame_note;
    if (base != nullptr) {
      if (!frame_by_baseline(r, *base, findings, v))
        return v;
      code = "GPUSPEC-BELOW-BASELINE";
    } else if (!frame_by_rule(r, dev, findings, v, frame_note)) {
      return v;
    }
    const verdict_status judged = by_fraction(*v.efficiency, *v.pass_fraction, *v.warn_fraction);
    v.status = worst(findings, judged);
    v.message =
        fmt::format("{} of {} (pass at {:.0f}%, warn at {:.0f}%){}", format_percent(*v.efficiency),
                    v.frame == "spec"       ? "the datasheet"
                    : v.frame == "baseline" ? "the baseline"
                                            : "the clock-adjusted ceiling",
                    100 * *v.pass_fraction, 100 * *v.warn_fraction, frame_note);
    if (judged == verdict_status::warn || judged == verdict_status::fail)
      explain(v, judged, r, dev, node, code);
    return v;
  }

  /// Expected, efficiency and fractions from the baseline's partner; false (and `v` concluded)
  /// when the two are in units that do not convert.
  bool frame_by_baseline(const result& r, const result& base, verdict_status findings,
                         result_verdict& v) const {
    v.frame = "baseline";
    const auto factor = conversion_factor(base.unit, r.unit);
    if (!factor) {
      v.status = worst(findings, verdict_status::inconclusive);
      v.message = fmt::format("the baseline's result is in {}, this one in {}: not comparable",
                              to_string(base.unit), to_string(r.unit));
      return false;
    }
    v.expected = base.stats.median * *factor;
    v.efficiency = fraction_of(r.stats.median, v.expected, r.higher_is_better);
    if (!v.efficiency) {
      v.status = worst(findings, verdict_status::inconclusive);
      v.message =
          fmt::format("no fraction of the baseline's {} {} in a median of {}",
                      format_figure(*v.expected), to_string(r.unit), format_figure(r.stats.median));
      return false;
    }
    v.pass_fraction = 1 - m_tolerance;
    v.warn_fraction = 1 - 2 * m_tolerance;
    return true;
  }

  /// Expected, efficiency and fractions from the expectation rule and the result's reference;
  /// false (and `v` concluded) when no rule judges it or its reference has no value.
  bool frame_by_rule(const result& r, const device_info* dev, verdict_status findings,
                     result_verdict& v, std::string& frame_note) {
    const gpu_spec* spec = dev != nullptr ? m_spec_of.at(dev->index) : nullptr;
    const auto rule = m_rules.choose(subject_of(m_report, r, dev, spec));
    if (!rule) {
      v.status = worst(findings, verdict_status::skipped);
      v.message = "no expectation rule matches this benchmark";
      return false;
    }
    if (rule->informational) {
      v.status = worst(findings, verdict_status::skipped);
      v.message = "reported, not judged: " + rule->why;
      return false;
    }
    if (m_baseline != nullptr)
      frame_note = "; no partner in the baseline (same bench id and axes on the same GPU), so "
                   "judged against its reference";
    if (rule->applied != nullptr)
      frame_note +=
          fmt::format("; fractions of the rule's override for {}", override_names(*rule->applied));
    v.pass_fraction = rule->pass;
    v.warn_fraction = rule->warn;
    const auto reference = resolve_reference(r, spec, m_rules.settings.datasheet_tolerance);
    if (!reference.value && spec == nullptr && dev != nullptr &&
        r.ceiling_value.reference == reference_kind::datasheet) {
      // Inconclusive against the datasheet for want of a row; the sibling and fleet frames
      // judge it where they can (judge_relatively).
      v.frame = "spec";
      auto d = make_diagnosis(
          "GPUSPEC-NO-SPEC-ROW", verdict_status::inconclusive,
          fmt::format("inconclusive against the datasheet: no spec-table row matches '{}', so "
                      "its datasheet ceiling is not believed, and it has no clock-adjusted one",
                      dev->name),
          dev, m_report.host);
      d.evidence["bench_id"] = r.bench_id;
      d.evidence["frame"] = "spec";
      v.message = d.cause + "; its siblings and the fleet judge it where they can";
      add_finding(v, std::move(d));
      return false;
    }
    if (!reference.value) {
      v.status = worst(findings, verdict_status::skipped);
      v.message = r.ceiling_value.reference == reference_kind::none
                      ? "no ceiling judges this result (no vendor figure and none at the clock "
                        "seen): it is judged only against a baseline, its siblings and the fleet"
                      : "its reference has no value" +
                            (reference.note.empty() ? std::string() : " (" + reference.note + ")");
      return false;
    }
    if (reference.replaced) {
      ++m_replaced;
      frame_note += "; " + reference.note;
    } else if (!reference.note.empty()) {
      frame_note += "; " + reference.note;
    }
    v.frame = reference.kind == reference_kind::datasheet ? "spec" : "clock_adjusted";
    v.expected = reference.value;
    v.efficiency = fraction_of(r.stats.median, reference.value, r.higher_is_better);
    if (!v.efficiency) {
      v.status = worst(findings, verdict_status::inconclusive);
      v.message = fmt::format("no fraction of the reference {} {} in a median of {}",
                              format_figure(*reference.value), to_string(r.unit),
                              format_figure(r.stats.median));
      return false;
    }
    return true;
  }

  /// A burn-in or memory-test result: its record's findings, the cross-GPU comparison, and its
  /// telemetry's findings (temperature over the site limit, thermal or HW slowdown). A stand-in's
  /// record is judged too, since the stand-in writes it the way the harness does, but its
  /// verdict is never better than inconclusive. Pass when nothing was found.
  result_verdict judge_burnin(std::size_t i, const result& r, const device_info* dev,
                              result_verdict v) {
    v.measured = r.stats.n > 0 ? std::optional(r.stats.median) : std::nullopt;
    v.status = verdict_status::pass;
    for (auto& d : burnin_findings(m_report, r, dev, m_rules.settings))
      add_finding(v, std::move(d));
    if (const auto it = m_cross_gpu.find(i); it != m_cross_gpu.end())
      for (const auto& d : it->second)
        add_finding(v, d);
    if (m_report.run.backend == "stand-in") {
      add_finding(v, make_diagnosis("GPUSPEC-STAND-IN", verdict_status::inconclusive,
                                    "synthetic result from a stand-in worker: nothing was measured",
                                    dev, m_report.host));
    } else {
      for (auto& d : result_findings(m_report, r, dev, m_rules.settings))
        add_finding(v, std::move(d));
    }
    const burnin_record& b = *r.burnin;
    std::string summary;
    if (b.gemm)
      summary = fmt::format("{} GEMM iteration(s), {} checksum mismatch(es)", b.gemm->iterations,
                            b.gemm->checksum_mismatches);
    if (b.memtest)
      summary += fmt::format("{}{} word(s) checked, {} bad", summary.empty() ? "" : "; ",
                             b.memtest->words_checked, b.memtest->bad_words);
    if (const auto drift = drift_of(b.intervals))
      summary += fmt::format("; throughput {:+.1f}% from the first intervals to the last",
                             -100 * drift->drop);
    v.message = v.diagnoses.empty()
                    ? "burn-in: " + summary
                    : fmt::format("burn-in: {} ({})", summary, v.diagnoses.front().cause);
    return v;
  }

  /// The events during the result (event_rules.hpp), whatever its verdict: an Xid during a
  /// failed or skipped result is what explains it. A finding worse than the verdict sets it and
  /// leads the message; the catalog's benign Xids are noted in the message.
  void add_event_findings(result_verdict& v, const result& r, node_verdict& node) const {
    // An event on a GPU the report does not list, or that the result did not run on, is a
    // contradiction: it is named, and the other events are still judged.
    std::optional<result> trusted;
    for (std::size_t k = 0; k < r.events.size(); ++k) {
      const int gpu = r.events[k].device;
      const bool listed = device(gpu) != nullptr;
      if (listed && std::find(r.devices.begin(), r.devices.end(), gpu) != r.devices.end())
        continue;
      const std::string field = fmt::format("results[{}].events[{}].device", v.result_index, k);
      const std::string why = listed ? fmt::format("GPU {} is not one of the result's GPUs ({})",
                                                   gpu, gpus_text(r.devices))
                                     : fmt::format("GPU {} is not in devices[]", gpu);
      if (worst(v.status, verdict_status::inconclusive) != v.status) {
        v.status = verdict_status::inconclusive;
        v.message = fmt::format("{}: {}", field, why);
      }
      v.diagnoses.push_back(
          inconsistent(field, why, r.devices.empty() ? nullptr : device(r.devices.front())));
      if (!trusted)
        trusted = r;
    }
    if (trusted)
      std::erase_if(trusted->events, [&](const gpu_event& e) {
        return device(e.device) == nullptr ||
               std::find(r.devices.begin(), r.devices.end(), e.device) == r.devices.end();
      });
    auto judged = judge_events(m_report, trusted ? *trusted : r);
    for (auto& d : judged.findings) {
      if (diagnosis* counted = counted_by_counters(d, node)) {
        // The GPU's counters already hold these errors: one diagnosis for one GPU, which now
        // also says when NVML saw them; the result notes where.
        merge_event_into(*counted, d, r);
        v.message +=
            fmt::format("{}{} (counted once, in GPU {}'s {} from its counters)",
                        v.message.empty() ? "note: " : "; note: ", d.cause, *d.device, d.code);
        continue;
      }
      if (worst(v.status, d.severity) != v.status) {
        v.status = d.severity;
        v.message = v.message.empty() ? d.cause : d.cause + "; " + v.message;
      }
      v.diagnoses.push_back(std::move(d));
    }
    for (const auto& note : judged.notes)
      v.message += (v.message.empty() ? "note: " : "; note: ") + note;
  }

  /// The GPU's own ECC diagnosis from its counters that an ECC event finding repeats (the
  /// counter's delta and NVML's event are two sightings of the same errors); nullptr when the
  /// counters did not see them, or for any other finding.
  [[nodiscard]] diagnosis* counted_by_counters(const diagnosis& d, node_verdict& node) const {
    if (!d.device ||
        (d.code != "GPUSPEC-ECC-UNCORRECTED" && d.code != "GPUSPEC-ECC-CORRECTED-STORM"))
      return nullptr;
    const auto pos = m_gpu_pos.find(*d.device);
    if (pos == m_gpu_pos.end())
      return nullptr;
    auto& list = node.gpus[pos->second].diagnoses;
    const auto it = std::find_if(list.begin(), list.end(), [&](const diagnosis& g) {
      return g.code == d.code &&
             std::any_of(g.evidence.begin(), g.evidence.end(),
                         [](const auto& e) { return e.first.starts_with("counters_delta."); });
    });
    return it == list.end() ? nullptr : &*it;
  }

  static void merge_event_into(diagnosis& counted, const diagnosis& event, const result& r) {
    const auto count = [](const diagnosis& x) {
      const auto it = x.evidence.find("event.count");
      return it == x.evidence.end() ? 0L : std::stol(it->second);
    };
    counted.evidence["event.count"] = std::to_string(count(counted) + count(event));
    if (!counted.evidence.contains("event.bench_id")) {
      counted.evidence["event.bench_id"] = r.bench_id;
      if (const auto t = event.evidence.find("event.time_s"); t != event.evidence.end())
        counted.evidence["event.time_s"] = t->second;
    }
    counted.cause += "; the run's events saw them too: " + event.cause;
  }

  /// A multi-node result whose telemetry some ranks could not sample (collectives/mpi
  /// rank_merge.hpp): judged by the ranks that did, and the others named in a note.
  static void add_telemetry_notes(result_verdict& v, const result& r) {
    const auto it = r.observations.find("telemetry_missing");
    if (it == r.observations.end() || !it->is_array() || it->empty())
      return;
    for (const auto& m : *it)
      if (m.is_string())
        v.message +=
            (v.message.empty() ? "note: no telemetry from " : "; note: no telemetry from ") +
            m.get<std::string>();
  }

  /// "impossible: ..." when the result beats the hardware by more than its own noise.
  [[nodiscard]] std::string impossible(const result& r) const {
    const auto& c = r.ceiling_value;
    const bool adjusted = c.clock_adjusted && *c.clock_adjusted > 0;
    const std::optional<double> bound = adjusted ? c.clock_adjusted : c.datasheet;
    const auto fraction = fraction_of(r.stats.median, bound, r.higher_is_better);
    const double margin = std::max(m_rules.settings.impossible_margin, 3 * r.stats.cv);
    if (!fraction || !(*fraction > 1 + margin))
      return {};
    const auto unit = to_string(r.unit);
    return fmt::format("impossible: {} {} is {} of the {} ceiling {} {}, beyond the "
                       "measurement's own uncertainty of {} (the larger of {:.0f}% and 3 x "
                       "its cv): the timer saw less work than was done",
                       format_figure(r.stats.median), unit, format_percent(*fraction),
                       adjusted ? "clock-adjusted" : "datasheet", format_figure(*bound), unit,
                       format_percent(margin), 100 * m_rules.settings.impossible_margin);
  }

  /// Every warn or fail gets a probable cause: the result's telemetry, else its GPU's
  /// inventory diagnoses, else the generic code of the frame.
  void explain(result_verdict& v, verdict_status judged, const result& r, const device_info* dev,
               const node_verdict& node, const std::string& code) {
    auto causes = collective_findings(m_report, r, judged);
    for (auto& d : explain_result(m_report, r, dev, m_rules.settings, judged))
      causes.push_back(std::move(d));
    // Else the diagnoses of its GPUs: every GPU of a collective, not only the first.
    if (causes.empty())
      for (int index : r.devices)
        for (const auto& d : node.gpus[m_gpu_pos.at(index)].diagnoses)
          if (d.code != "GPUSPEC-NO-SPEC-ROW" && d.severity != verdict_status::inconclusive)
            causes.push_back(d);
    if (causes.empty()) {
      auto d = make_diagnosis(code, judged,
                              fmt::format("{} is {} of {}", format_quantity(v.measured, v.unit),
                                          format_percent(v.efficiency.value_or(0)),
                                          v.expected ? format_quantity(v.expected, v.unit) : "?"),
                              dev, m_report.host);
      d.evidence["bench_id"] = r.bench_id;
      causes.push_back(std::move(d));
    }
    merge_explanations(v, std::move(causes));
  }

  const report& m_report;
  const spec_table& m_specs;
  const expectations& m_rules;
  baseline_index* m_baseline;
  double m_tolerance;
  std::set<int> m_selected;
  std::unordered_map<int, const gpu_spec*> m_spec_of;
  std::unordered_map<int, const device_info*> m_device_of;
  std::unordered_map<int, std::size_t> m_gpu_pos;
  std::size_t m_unpaired = 0;
  std::size_t m_replaced = 0;
  std::unordered_map<std::size_t, std::vector<diagnosis>> m_cross_gpu; ///< by result index
  std::vector<std::string> m_notes;
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
    std::string key = case_key(res) + '\x1e' + model_key(*it->second);
    if (per_node)
      key += '\x1f' + std::to_string(node_index);
    groups[key].push_back({node_index, i, oriented(res), res.telemetry.sm_clock_mhz_median});
  }
}

const device_info* device_of(const report& r, int index) {
  for (const auto& d : r.devices)
    if (d.index == index)
      return &d;
  return nullptr;
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
                            "median of {} identical GPU(s) in this node (warns under {:.0f}%)",
                            *members[k].sm_clock, res.bench_id, 100 * *members[k].sm_clock / clock,
                            clock, others.clocks, 100 * s.sibling_clock_fraction),
                dev, reports[n].host);
            d.evidence["bench_id"] = v.bench_id;
            add_finding(v, std::move(d));
          }
        }
        const auto& t = others.value;
        if (awaits_relative_frame(v))
          judge_relatively(v, "siblings",
                           fmt::format("judged against {} identical GPU(s) in this node: {:+.1f}% "
                                       "from their median",
                                       members.size() - 1, 100 * t.deviation));
        if (!is_outlier(t, s.sibling_threshold, std::abs(s.outlier_z), -1))
          continue;
        auto d = make_diagnosis(
            "GPUSPEC-SIBLING-OUTLIER", verdict_status::warn,
            fmt::format("{:.1f}% below the median of {} identical GPU(s) in this node{}",
                        -100 * t.deviation, members.size() - 1,
                        std::isfinite(t.z) ? fmt::format(" (modified z {:.1f})", t.z) : ""),
            dev, reports[n].host);
        d.evidence["bench_id"] = v.bench_id;
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
          fmt::format("{:.1f}% below the fleet median over {} reports{}", -100 * t.deviation,
                      distinct, std::isfinite(t.z) ? fmt::format(" (modified z {:.1f})", t.z) : ""),
          device_of(reports[m.node], res.devices.front()), reports[m.node].host);
      d.evidence["bench_id"] = v.bench_id;
      add_finding(v, std::move(d));
    }
  }
  if (too_few > 0)
    out.notes.push_back(fmt::format(
        "fleet frame: {} case(s) had fewer than {} reports of one model and were not compared",
        too_few, s.fleet_min_reports));
}

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

/// Worst-wins, with no pass without evidence: a selected GPU none of whose results was judged
/// (none at all, or only skipped ones) is inconclusive.
void roll_up(const report& r, node_verdict& node) {
  std::unordered_map<int, std::size_t> pos;
  for (std::size_t i = 0; i < node.gpus.size(); ++i)
    pos[node.gpus[i].index] = i;
  std::unordered_map<int, bool> evidence;
  verdict_status status = verdict_status::skipped;
  for (const auto& d : node.diagnoses)
    status = worst(status, d.severity);
  for (const auto& v : node.results) {
    status = worst(status, v.status);
    for (int d : v.devices)
      if (const auto it = pos.find(d); it != pos.end()) {
        auto& g = node.gpus[it->second];
        if (!g.selected)
          continue;
        g.status = worst(g.status, v.status);
        if (v.status != verdict_status::skipped)
          evidence[d] = true;
      }
  }
  for (auto& g : node.gpus) {
    if (!g.selected) {
      g.status = verdict_status::skipped;
      continue;
    }
    if (!evidence[g.index]) {
      const device_info* dev = device_of(r, g.index);
      // Refused by the idle precondition: say so, naming who used it, rather than "not
      // measured" alone.
      const bool busy = dev != nullptr && dev->activity && !dev->activity->processes.empty();
      auto d = busy ? make_diagnosis("GPUSPEC-GPU-BUSY", verdict_status::inconclusive,
                                     fmt::format("GPU {} was refused: in use by {}", g.index,
                                                 processes_text(dev->activity->processes)),
                                     dev, r.host)
                    : make_diagnosis("GPUSPEC-GPU-NOT-MEASURED", verdict_status::inconclusive,
                                     fmt::format("GPU {} was to be measured but has no judged "
                                                 "result (no result, or only skipped and "
                                                 "not-supported ones)",
                                                 g.index),
                                     dev, r.host);
      g.diagnoses.push_back(std::move(d));
      g.status = worst(g.status, verdict_status::inconclusive);
      g.message = "no result of this GPU was judged";
    }
    status = worst(status, g.status);
  }
  node.status = status;
  for (const auto& d : node.diagnoses)
    if (d.severity == verdict_status::inconclusive && node.message.empty())
      node.message = d.cause;
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

} // namespace gpuspec::reports
