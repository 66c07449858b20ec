// The burn-in's rules (burnin_rules.hpp; docs/burnin.md). Each is one small function over a
// result's burn-in record; the cross-GPU comparison groups the report's GEMMs by everything
// that must be equal for their outputs to be equal, and compares only within a group.

#include "gpuspec/reports/judge/burnin_rules.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::reports::inline judge {
namespace {

void rule_checksums(const burnin_record& b, const report& r, const device_info* device,
                    std::vector<diagnosis>& out) {
  if (!b.gemm || b.gemm->checksum_mismatches == 0)
    return;
  const burnin_gemm& g = *b.gemm;
  std::string first = "no mismatch was recorded in detail";
  if (!g.mismatches.empty()) {
    const auto& m = g.mismatches.front();
    first = fmt::format("first at iteration {} ({:.1f} s into the run): checksum {} where "
                        "iteration 0 gave {}",
                        m.iteration, m.time_s, m.actual, m.expected);
  }
  auto d = make_diagnosis("GPUSPEC-BURNIN-CHECKSUM-MISMATCH", verdict_status::fail,
                          fmt::format("{} of {} GEMM iteration(s) gave a different output than "
                                      "iteration 0 ({} {}x{}x{}, algorithm {}); {}",
                                      g.checksum_mismatches, g.iterations, g.dtype, g.m, g.n, g.k,
                                      g.algorithm, first),
                          device, r.host);
  d.evidence["checksum_mismatches"] = std::to_string(g.checksum_mismatches);
  d.evidence["reference_checksum"] = g.reference_checksum;
  if (!g.mismatches.empty()) {
    d.evidence["first_mismatch_iteration"] = std::to_string(g.mismatches.front().iteration);
    d.evidence["first_mismatch_time_s"] = fmt::format("{:.3f}", g.mismatches.front().time_s);
    d.evidence["first_mismatch_checksum"] = g.mismatches.front().actual;
  }
  out.push_back(std::move(d));
}

void rule_bad_words(const burnin_record& b, const report& r, const device_info* device,
                    std::vector<diagnosis>& out) {
  if (!b.memtest || b.memtest->bad_words == 0)
    return;
  const burnin_memtest& m = *b.memtest;
  std::string first = "none was recorded in detail";
  if (!m.bad.empty()) {
    const auto& w = m.bad.front();
    first = fmt::format("the first at {} under pattern {}: read {}, wrote {}", w.address, w.pattern,
                        w.actual, w.expected);
  }
  auto d = make_diagnosis(
      "GPUSPEC-MEMORY-BAD-WORDS", verdict_status::fail,
      fmt::format("{} bad word(s) of {} checked; {}", m.bad_words, m.words_checked, first), device,
      r.host);
  d.evidence["bad_words"] = std::to_string(m.bad_words);
  if (!m.bad.empty()) {
    d.evidence["first_bad_address"] = m.bad.front().address;
    d.evidence["first_bad_pattern"] = m.bad.front().pattern;
  }
  out.push_back(std::move(d));
}

void rule_drift(const burnin_record& b, const result& res, const report& r,
                const device_info* device, const expectation_settings& s,
                std::vector<diagnosis>& out) {
  const auto drift = drift_of(b.intervals);
  if (!drift || drift->drop <= s.burnin_drift_warn)
    return;
  const auto severity =
      drift->drop > s.burnin_drift_fail ? verdict_status::fail : verdict_status::warn;
  const auto unit = to_string(res.unit);
  auto d = make_diagnosis(
      "GPUSPEC-BURNIN-DRIFT", severity,
      fmt::format("throughput fell {:.1f}% over the run: {:.4g} {} in the first {} interval(s) "
                  "after the {} soak interval(s), {:.4g} {} in the last (warn above {:.0f}%, fail "
                  "above {:.0f}%: initial policy)",
                  100 * drift->drop, drift->first, unit, drift->intervals, drift->soak_intervals,
                  drift->last, unit, 100 * s.burnin_drift_warn, 100 * s.burnin_drift_fail),
      device, r.host);
  d.evidence["drift"] = fmt::format("{:.4f}", drift->drop);
  out.push_back(std::move(d));
}

void rule_work(const burnin_record& b, const result& res, const report& r,
               const device_info* device, const expectation_settings& s,
               std::vector<diagnosis>& out) {
  const auto too_little = [&](std::string why) {
    auto d = make_diagnosis("GPUSPEC-BURNIN-TOO-LITTLE-WORK", verdict_status::inconclusive,
                            std::move(why), device, r.host);
    d.evidence["bench_id"] = res.bench_id;
    out.push_back(std::move(d));
  };
  if (b.gemm && b.gemm->iterations < 2)
    too_little(fmt::format("{} GEMM iteration(s): no checksum to compare with the first",
                           b.gemm->iterations));
  if (b.duration_s && b.busy_s < s.burnin_min_busy_fraction * *b.duration_s)
    too_little(fmt::format("busy {:.1f} s of the {:.1f} s asked (under {:.0f}%): the duration "
                           "implies more work",
                           b.busy_s, *b.duration_s, 100 * s.burnin_min_busy_fraction));
  if (b.gemm && b.idle_power_w && *b.idle_power_w > 0) {
    std::optional<double> peak;
    for (const auto& in : b.intervals)
      if (in.power_w_max && (!peak || *in.power_w_max > *peak))
        peak = in.power_w_max;
    const double bound = *b.idle_power_w * (1 + s.burnin_idle_power_margin);
    if (peak && *peak <= bound)
      too_little(fmt::format("power never rose above idle: at most {:.1f} W, idle {:.1f} W (the "
                             "load must draw more than {:.0f}% above idle)",
                             *peak, *b.idle_power_w, 100 * s.burnin_idle_power_margin));
  }
}

/// What a burn-in verdict needs before anything can pass (docs/burnin.md, "The verdict"): a
/// load of at least `burnin_min_duration_s` (initial policy: the acceptance minimum) and at least
/// one completed memory-test pass on the GPU. A shorter burn-in, or one that never checked a
/// word of device memory, is reported and judged inconclusive, never passed. memory.test results
/// (no --duration) need their pass only. A burn-in result of another suite than `burnin` (`full`
/// runs burnin.gemm for the stopping rule's cap, with no --duration) is a sample of the sustained
/// GEMM, not a burn-in verdict: the rule leaves it to its record's other rules.
void rule_acceptance_minimum(const burnin_record& b, const report& r, const device_info* device,
                             const expectation_settings& s, std::vector<diagnosis>& out) {
  if (b.duration_s && r.run.suite != "burnin")
    return;
  if (b.duration_s && b.elapsed_s < s.burnin_min_duration_s) {
    auto d = make_diagnosis(
        "GPUSPEC-BURNIN-TOO-SHORT", verdict_status::inconclusive,
        fmt::format("the burn-in loaded the GPU for {:.1f} s (--duration {:.0f} s): shorter than "
                    "the acceptance minimum of {:.0f} s (burnin_min_duration_s, an initial "
                    "policy), so it is reported, not passed",
                    b.elapsed_s, *b.duration_s, s.burnin_min_duration_s),
        device, r.host);
    d.evidence["elapsed_s"] = fmt::format("{:.3f}", b.elapsed_s);
    d.evidence["duration_s"] = fmt::format("{:.3f}", *b.duration_s);
    d.evidence["burnin_min_duration_s"] = fmt::format("{:.0f}", s.burnin_min_duration_s);
    out.push_back(std::move(d));
  }
  const bool burn_in = b.duration_s.has_value();
  std::string why;
  if (!b.memtest)
    why = burn_in ? "the burn-in completed no memory-test pass (its record holds no memory test: "
                    "the run ended inside its first GEMM phase, or the GPU had too little free "
                    "memory for the test)"
                  : "the memory test left no record of a pass";
  else if (b.memtest->passes == 0)
    why =
        burn_in ? "the burn-in completed no memory-test pass" : "the memory test completed no pass";
  else if (b.memtest->words_checked == 0)
    why = fmt::format("the memory test's {} pass(es) checked no word", b.memtest->passes);
  if (why.empty())
    return;
  auto d =
      make_diagnosis("GPUSPEC-BURNIN-NO-MEMORY-PASS", verdict_status::inconclusive,
                     why + ": no word of device memory was checked on this GPU", device, r.host);
  d.evidence["memtest_passes"] = std::to_string(b.memtest ? b.memtest->passes : 0);
  out.push_back(std::move(d));
}

/// The power brake (a signal the system asserts: PSUs, the BMC) during a burn-in is a finding
/// whatever the throughput: the load is meant to run at the power limit, not under a brake.
/// HW slowdown and thermal throttling are result_findings' (diagnosis.hpp).
void rule_power_brake(const result& res, const report& r, const device_info* device,
                      std::vector<diagnosis>& out) {
  const auto& reasons = res.telemetry.throttle_reasons;
  if (std::find(reasons.begin(), reasons.end(), "hw_power_brake") == reasons.end())
    return;
  out.push_back(make_diagnosis("GPUSPEC-POWER-THROTTLE", verdict_status::warn,
                               "the system asserted the power brake during the burn-in "
                               "(hw_power_brake): the GPU was slowed below its power limit",
                               device, r.host));
}

/// What must be equal for two GPUs' GEMM outputs to be equal.
using comparison_key = std::tuple<std::string, std::string, std::string, std::int64_t, std::int64_t,
                                  std::int64_t, std::int64_t, std::string>;

/// The model a result ran on, and its MIG profile on a partitioned GPU: a MIG device's GEMM is
/// compared with the same profile's only (docs/mig.md), as the one-GPU checks compare it.
std::string model_of(const report& r, const result& res) {
  std::string model;
  for (const auto& d : r.devices)
    if (d.index == res.devices.front())
      model = d.spec_id.empty() ? d.name : d.spec_id;
  return res.mig ? model + " MIG " + res.mig->profile : model;
}

/// "GPU 3", or "GPU 0 MIG 1g.10gb, GI 11 CI 0" for a MIG device: what a burn-in ran on.
std::string unit_of(const result& res) {
  return res.mig ? fmt::format("GPU {} {}", res.devices.front(), mig_label(*res.mig))
                 : fmt::format("GPU {}", res.devices.front());
}

} // namespace

std::optional<throughput_drift> drift_of(std::span<const burnin_interval> intervals) {
  std::vector<double> values;
  for (const auto& in : intervals)
    if (in.throughput && *in.throughput > 0)
      values.push_back(*in.throughput);
  // The first interval with a GEMM is the soak: a cold GPU boosts above what it sustains once
  // warm (docs/design.md, measurement rule 10), so it is left out of the comparison.
  if (values.size() < drift_soak_intervals + 3)
    return std::nullopt;
  values.erase(values.begin(), values.begin() + drift_soak_intervals);
  throughput_drift d;
  d.soak_intervals = drift_soak_intervals;
  d.intervals = std::clamp<std::size_t>(values.size() / 4, 1, 5);
  d.first = median_of(std::span<const double>(values.data(), d.intervals));
  d.last =
      median_of(std::span<const double>(values.data() + values.size() - d.intervals, d.intervals));
  d.drop = 1 - d.last / d.first;
  return d;
}

std::vector<diagnosis> burnin_findings(const report& r, const result& res,
                                       const device_info* device,
                                       const expectation_settings& settings) {
  std::vector<diagnosis> out;
  if (!res.burnin)
    return out;
  const burnin_record& b = *res.burnin;
  rule_checksums(b, r, device, out);
  rule_bad_words(b, r, device, out);
  rule_drift(b, res, r, device, settings, out);
  rule_work(b, res, r, device, settings, out);
  rule_acceptance_minimum(b, r, device, settings, out);
  rule_power_brake(res, r, device, out);
  for (auto& d : out)
    d.evidence["bench_id"] = res.bench_id;
  return out;
}

checksum_comparison compare_burnin_checksums(const report& r) {
  checksum_comparison out;
  std::map<comparison_key, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const result& res = r.results[i];
    if (!res.burnin || !res.burnin->gemm || res.burnin->gemm->reference_checksum.empty() ||
        res.devices.size() != 1)
      continue;
    const burnin_gemm& g = *res.burnin->gemm;
    groups[{res.bench_id + " " + res.axes.dump(), g.dtype, g.algorithm, g.m, g.n, g.k, g.seed,
            model_of(r, res)}]
        .push_back(i);
  }
  // Results of one bench id that fell in different groups: say why they were not compared.
  std::map<std::string, std::size_t> groups_per_case;
  std::map<std::string, bool> mig_in_case;
  for (const auto& [key, members] : groups) {
    ++groups_per_case[std::get<0>(key)];
    for (const std::size_t i : members)
      mig_in_case[std::get<0>(key)] |= r.results[i].mig.has_value();
  }
  for (const auto& [which, count] : groups_per_case)
    if (count > 1)
      out.notes.push_back(fmt::format(
          "{}: the GPUs' burn-in GEMMs differ in shape, seed, algorithm or model{} ({} kinds), "
          "so their checksums were compared only among equals",
          which, mig_in_case[which] ? " or MIG profile" : "", count));
  for (const auto& [key, members] : groups) {
    if (members.size() < 2)
      continue;
    const burnin_gemm& first = *r.results[members.front()].burnin->gemm;
    if (!first.deterministic) {
      out.notes.push_back(fmt::format("{}: not compared across GPUs: {}", std::get<0>(key),
                                      first.determinism_note.empty()
                                          ? "the algorithm is not deterministic"
                                          : first.determinism_note));
      continue;
    }
    std::map<std::string, std::size_t> votes;
    for (const std::size_t i : members)
      ++votes[r.results[i].burnin->gemm->reference_checksum];
    if (votes.size() == 1)
      continue;
    const auto top = std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
      return a.second < b.second;
    });
    const bool majority = 2 * top->second > members.size();
    std::string all;
    for (const std::size_t i : members)
      all += fmt::format("{}{} {}", all.empty() ? "" : ", ", unit_of(r.results[i]),
                         r.results[i].burnin->gemm->reference_checksum);
    // MIG devices are compared with their profile's siblings and named as instances.
    const result& head = r.results[members.front()];
    const std::string equals =
        head.mig ? fmt::format("MIG devices of profile {}", head.mig->profile) : "GPUs";
    for (const std::size_t i : members) {
      const result& res = r.results[i];
      const std::string& mine = res.burnin->gemm->reference_checksum;
      if (majority && mine == top->first)
        continue;
      const int index = res.devices.front();
      const device_info* device = nullptr;
      for (const auto& d : r.devices)
        if (d.index == index)
          device = &d;
      auto d = make_diagnosis(
          "GPUSPEC-BURNIN-CHECKSUM-DIFFERS", verdict_status::fail,
          majority ? fmt::format("{}'s GEMM checksum {} differs from {} of the {} {} with the "
                                 "same inputs, shape, algorithm and model ({}): {}",
                                 unit_of(res), mine, top->first, members.size(), equals,
                                 top->second, all)
                   : fmt::format("the {} {} with the same inputs, shape, algorithm and model "
                                 "disagree and no checksum has a majority, so none can be "
                                 "trusted: {}",
                                 members.size(), equals, all),
          device, r.host);
      d.evidence["checksum"] = mine;
      d.evidence["bench_id"] = res.bench_id;
      if (majority)
        d.evidence["majority_checksum"] = top->first;
      out.findings.emplace_back(i, std::move(d));
    }
  }
  return out;
}

} // namespace gpuspec::reports::judge
