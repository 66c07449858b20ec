#pragma once
// Internal to check (check.hpp): what its frames share. A result is judged in frames, each in
// its own file:
//   check_node.cpp      the node's own evidence: its GPUs, which were selected, their findings
//                       from the inventory, and the roll-up (no pass without evidence);
//   check_result.cpp    a result's own evidence, before any ceiling: failures, wrong answers,
//                       burn-in records, contradictions, impossible figures;
//   check_reference.cpp the datasheet, clock-adjusted and baseline frames, and what explains a
//                       warn or a fail;
//   check_events.cpp    the events (Xids, ECC, clocks) during a result;
//   check_relative.cpp  the siblings (identical GPUs of one node) and fleet (many reports);
//   check.cpp           the entry: node by node, then the relative frames, then the roll-up.

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/judge/burnin_rules.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/judge/event_rules.hpp"
#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/judge/multi_node.hpp"
#include "gpuspec/reports/model/fraction.hpp"
#include "gpuspec/reports/model/identity.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "integrity.hpp"

namespace gpuspec::reports::inline judge::check_detail {

std::string group_of(const std::string& bench_id);
std::string model_key(const device_info& d);

// A MIG device's results (check_mig.cpp; docs/mig.md).
/// "GPU 0 MIG 1g.10gb, GI 7 CI 0, MIG-...": how a verdict names the instance it judges.
std::string mig_instance_name(int device, const mig_ref& m);
/// A MIG device's verdict named by its instance: the name, the message, each finding's cause
/// and evidence. Nothing for a whole GPU's result.
void name_mig_instance(result_verdict& v, const result& r);
/// One finding of a MIG device's result named by its instance (the relative frames' own).
void name_mig_finding(diagnosis& d, const result& r);
/// What keeps a MIG device's results apart from a whole GPU's and another profile's in the
/// relative frames; "" for a whole GPU's.
std::string mig_group_suffix(const result& r);
/// "3 identical GPU(s)", or "6 MIG device(s) of profile 1g.10gb": a result's siblings.
std::string siblings_text(const result& r, std::size_t others);

/// Why a result that ran cannot be judged, with its reason code; empty when it can.
struct unjudgeable {
  std::string code, why;
};
std::optional<unjudgeable> inconclusive_reason(const result& r, const expectation_settings& s);

/// The code that names a failed result's failure (docs/check.md): a worker the watchdog had
/// to stop is not a benchmark to rerun, and a wrong answer is neither.
std::string_view failure_code(failure_kind f);
/// Worker failures are the spine's own judgement (the watchdog saw them): even a stand-in
/// report is judged by them.
bool is_spine_failure(failure_kind f);
verdict_status by_fraction(double efficiency, double pass, double warn);
/// The value the relative frames compare: higher is better after this.
double oriented(const result& r);

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
bool awaits_relative_frame(const result_verdict& v);
/// `v` judged by a relative frame ("siblings" or "fleet"): the datasheet's inconclusive becomes
/// a note, and the result's other findings (and the frame's outlier finding, added after) set
/// its status.
void judge_relatively(result_verdict& v, std::string frame, const std::string& how);

/// A member of a sibling or fleet group.
struct member {
  std::size_t node, verdict;
  double value;
  std::optional<double> sm_clock;
};

void add_finding(result_verdict& v, diagnosis d);
/// Findings first; an explanation of the same code raises the finding to the result's
/// severity instead of repeating it.
void merge_explanations(result_verdict& v, std::vector<diagnosis> explanations);
/// "spec t4" or "arch hopper": what an override was written for.
std::string override_names(const rule_override& o);
std::string gpus_text(const std::vector<int>& devices);

class node_checker {
public:
  node_checker(const report& r, const spec_table& specs, const expectations& rules,
               baseline_index* baseline, double tolerance)
      : m_report(r), m_specs(specs), m_rules(rules), m_baseline(baseline), m_tolerance(tolerance) {}

  node_verdict run();

  [[nodiscard]] std::size_t unpaired() const { return m_unpaired; }
  [[nodiscard]] const std::vector<std::string>& notes() const { return m_notes; }
  [[nodiscard]] std::size_t replaced_ceilings() const { return m_replaced; }

private:
  /// Each GPU by index (one listed twice is inconsistent), and the GPUs the run was asked to
  /// measure (one not listed is inconsistent).
  void index_devices(node_verdict& node);

  /// Each GPU's verdict from its own findings (selected GPUs only) and its spec-table row.
  void judge_gpus(node_verdict& node);

  /// What makes the whole node inconclusive whatever its results say.
  void node_evidence(node_verdict& node) const;

  [[nodiscard]] diagnosis inconsistent(const std::string& field, const std::string& why,
                                       const device_info* dev) const;

  /// The lowest PCIe link each GPU's results saw while busy: its host transfers' where any of
  /// them carries a reading (the load that moves bytes over the link, and the evidence the
  /// rule cites), else any of its one-GPU results'.
  [[nodiscard]] std::unordered_map<int, pcie_under_load> pcie_under_load_by_device() const;

  [[nodiscard]] const device_info* device(int index) const;

  /// What names a result: its id, group, axes, parameters, GPUs and unit.
  [[nodiscard]] static result_verdict describe(const result& r, std::size_t i);

  /// The verdict `status` with one diagnosis of `code` saying `message`.
  [[nodiscard]] result_verdict conclude(result_verdict v, const result& r, const device_info* dev,
                                        verdict_status status, std::string_view code,
                                        std::string message) const;

  result_verdict judge(std::size_t i, const node_verdict& node);

  /// The GPUs a result names must be GPUs of the report that the run was asked to measure:
  /// true (and `v` inconclusive) when one is not.
  bool names_unknown_gpu(std::size_t i, result_verdict& v) const;

  /// The verdicts reached before any ceiling is asked: a spine failure, a burn-in, a stand-in,
  /// a wrong answer, a collective timeout, a failure or skip, a contradiction, a result not
  /// judged or not measurable. nullopt: the result goes on to its ceiling.
  std::optional<result_verdict> judge_without_ceiling(std::size_t i, const device_info* dev,
                                                      result_verdict& v);

  /// A foreign tool's own test that the tool skipped (dcgmi diag's Skip).
  [[nodiscard]] bool imported_test_skipped(const result& r) const;
  /// An ok result that contradicts itself, is not judged (a collective), or whose figures
  /// cannot be judged (too few samples, impossible values).
  std::optional<result_verdict> judge_unmeasurable(std::size_t i, const device_info* dev,
                                                   result_verdict& v) const;

  /// The result's findings, then its median against the baseline's partner or its reference,
  /// by the rule's fractions; a warn or fail is explained.
  result_verdict judge_against_ceiling(const result& r, const device_info* dev,
                                       const node_verdict& node, result_verdict v);

  /// Expected, efficiency and fractions from the baseline's partner; false (and `v` concluded)
  /// when the two are in units that do not convert.
  bool frame_by_baseline(const result& r, const result& base, verdict_status findings,
                         result_verdict& v) const;

  /// Expected, efficiency and fractions from the expectation rule and the result's reference;
  /// false (and `v` concluded) when no rule judges it or its reference has no value.
  bool frame_by_rule(const result& r, const device_info* dev, verdict_status findings,
                     result_verdict& v, std::string& frame_note);

  /// A collective above the single-path bound within what NCCL's algorithm can reach: a note
  /// naming the algorithm; beyond it, false and `v` inconclusive (impossible).
  bool within_algorithm_reach(const result& r, const device_info* dev, std::string_view arch,
                              result_verdict& v, std::string& frame_note) const;

  /// A burn-in or memory-test result: its record's findings, the cross-GPU comparison, and its
  /// telemetry's findings (temperature over the site limit, thermal or HW slowdown). A stand-in's
  /// record is judged too, since the stand-in writes it the way the harness does, but its
  /// verdict is never better than inconclusive. Pass when nothing was found.
  result_verdict judge_burnin(std::size_t i, const result& r, const device_info* dev,
                              result_verdict v);

  /// The events during the result (event_rules.hpp), whatever its verdict: an Xid during a
  /// failed or skipped result is what explains it. A finding worse than the verdict sets it and
  /// leads the message; the catalog's benign Xids are noted in the message.
  void add_event_findings(result_verdict& v, const result& r, node_verdict& node) const;

  /// The GPU's own ECC diagnosis from its counters that an ECC event finding repeats (the
  /// counter's delta and NVML's event are two sightings of the same errors); nullptr when the
  /// counters did not see them, or for any other finding.
  [[nodiscard]] diagnosis* counted_by_counters(const diagnosis& d, node_verdict& node) const;

  static void merge_event_into(diagnosis& counted, const diagnosis& event, const result& r);

  /// A multi-node result whose telemetry some ranks could not sample (collectives/mpi
  /// rank_merge.hpp): judged by the ranks that did, and the others named in a note.
  static void add_telemetry_notes(result_verdict& v, const result& r);

  /// "impossible: ..." when the result beats the hardware by more than its own noise.
  [[nodiscard]] std::string impossible(const result& r) const;

  /// Every warn or fail gets a probable cause: the result's telemetry, else its GPU's
  /// inventory diagnoses, else the generic code of the frame.
  void explain(result_verdict& v, verdict_status judged, const result& r, const device_info* dev,
               const node_verdict& node, const std::string& code);

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

/// The siblings frame: each result against the same case on the node's identical GPUs
/// (check_relative.cpp).
void sibling_frame(std::span<const report> reports, check_outcome& out,
                   const expectation_settings& s);
/// The fleet frame: each result against the same case on the same model in every report.
void fleet_frame(std::span<const report> reports, check_outcome& out,
                 const expectation_settings& s);
/// Worst-wins, with no pass without evidence (check_node.cpp).
void roll_up(const report& r, node_verdict& node);

} // namespace gpuspec::reports::judge::check_detail
