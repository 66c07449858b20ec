// A result's own evidence, judged before any ceiling: failures, wrong answers, burn-in
// records, contradictions and impossible figures.
#include "check_frames.hpp"

namespace gpuspec::reports::inline judge::check_detail {

/// What names a result: its id, group, axes, parameters, GPUs and unit.
result_verdict node_checker::describe(const result& r, std::size_t i) {
  result_verdict v;
  v.result_index = i;
  v.bench_id = r.bench_id;
  v.group = group_of(r.bench_id);
  v.axes = format_parameters(r.axes);
  v.axes_values = format_values(r.axes);
  v.parameters = format_parameters(parameters_of(r));
  v.observations = r.observations;
  v.devices = r.devices;
  v.unit = r.unit;
  v.name = fmt::format("{}{} gpu {}", r.bench_id, v.axes.empty() ? "" : " [" + v.axes + "]",
                       gpus_text(r.devices));
  return v;
}

/// The verdict `status` with one diagnosis of `code` saying `message`.
result_verdict node_checker::conclude(result_verdict v, const result& r, const device_info* dev,
                                      verdict_status status, std::string_view code,
                                      std::string message) const {
  v.status = status;
  v.message = message;
  auto d = make_diagnosis(code, status, std::move(message), dev, m_report.host);
  d.evidence["bench_id"] = r.bench_id;
  v.diagnoses.push_back(std::move(d));
  return v;
}

result_verdict node_checker::judge(std::size_t i, const node_verdict& node) {
  const result& r = m_report.results[i];
  result_verdict v = describe(r, i);
  if (names_unknown_gpu(i, v))
    return v;
  const device_info* dev = r.devices.empty() ? nullptr : device(r.devices.front());
  if (auto early = judge_without_ceiling(i, dev, v))
    return std::move(*early);
  return judge_against_ceiling(r, dev, node, std::move(v));
}

/// A foreign tool's own test that the tool skipped (dcgmi diag's Skip, marked by its importer):
/// inconclusive for that test, never a pass (docs/import.md).
bool node_checker::imported_test_skipped(const result& r) const {
  if (m_report.run.backend != "imported" || r.status != result_status::skipped)
    return false;
  const auto it = r.observations.find("tool_test_skipped");
  return it != r.observations.end() && it->is_boolean() && it->get<bool>();
}

/// The verdicts reached before any ceiling is asked: a spine failure, a burn-in, a stand-in,
/// a wrong answer, a collective timeout, a failure or skip, a contradiction, a result not
/// judged or not measurable. nullopt: the result goes on to its ceiling.
std::optional<result_verdict>
node_checker::judge_without_ceiling(std::size_t i, const device_info* dev, result_verdict& v) {
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
    return conclude(v, r, dev, verdict_status::fail, "GPUSPEC-VERIFICATION-FAILED", std::move(why));
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
  if (imported_test_skipped(r))
    return conclude(v, r, dev, verdict_status::inconclusive, "GPUSPEC-TOOL-TEST-SKIPPED", r.reason);
  if (r.status != result_status::ok) {
    v.status = verdict_status::skipped;
    v.message = std::string(to_string(r.status)) + ": " + r.reason;
    return v;
  }
  return judge_unmeasurable(i, dev, v);
}

/// An ok result that contradicts itself, is not judged (a collective), or whose figures
/// cannot be judged (too few samples, impossible values).
std::optional<result_verdict>
node_checker::judge_unmeasurable(std::size_t i, const device_info* dev, result_verdict& v) const {
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
  // A foreign log has no telemetry (docs/import.md): its figure is judged, and the verdict
  // says that throttling could not be ruled out, rather than inconclusive for want of it.
  const bool imported = m_report.run.backend == "imported";
  // A foreign tool's own test with no figure (dcgmi diag's Pass): its pass is the tool's
  // verdict, which the GPU's findings (NVLink links down, ...) can still overrule.
  if (imported && r.samples.empty() && r.unit == metric_unit::none &&
      r.check.status == verification_status::passed) {
    v.status = verdict_status::pass;
    v.message = "passed the tool's own test: " + r.check.detail;
    return v;
  }
  if (auto why = inconclusive_reason(r, m_rules.settings);
      why && !(imported && why->code == "GPUSPEC-TELEMETRY-MISSING"))
    return conclude(v, r, dev, verdict_status::inconclusive, why->code, why->why);
  // A collective's bound depends on NCCL's algorithm: judged against its reference with what
  // that algorithm can reach (check_reference.cpp, within_algorithm_reach).
  if (auto why = r.bench_id.starts_with("collective.") ? std::string() : impossible(r);
      !why.empty())
    return conclude(v, r, dev, verdict_status::inconclusive, "GPUSPEC-IMPOSSIBLE-RESULT", why);
  return std::nullopt;
}

/// A burn-in or memory-test result: its record's findings, the cross-GPU comparison, and its
/// telemetry's findings (temperature over the site limit, thermal or HW slowdown). A stand-in's
/// record is judged too, since the stand-in writes it the way the harness does, but its
/// verdict is never better than inconclusive. Pass when nothing was found.
result_verdict node_checker::judge_burnin(std::size_t i, const result& r, const device_info* dev,
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

/// "impossible: ..." when the result beats the hardware by more than its own noise.
std::string node_checker::impossible(const result& r) const {
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

} // namespace gpuspec::reports::judge::check_detail
