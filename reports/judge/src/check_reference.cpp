// The reference frames: a result against its datasheet or clock-adjusted ceiling by its
// expectation rule, or against its partner in a baseline; and what explains a warn or a fail.
#include "carried_ceilings.hpp"
#include "check_frames.hpp"

namespace gpuspec::reports::inline judge::check_detail {

/// The result's findings, then its median against the baseline's partner or its reference,
/// by the rule's fractions; a warn or fail is explained.
result_verdict node_checker::judge_against_ceiling(const result& r, const device_info* dev,
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
  // A foreign log has no telemetry (docs/import.md): the figure is judged all the same, and a
  // figure below the line names the telemetry it lacks as what to look at, whatever else
  // explains it.
  if (m_report.run.backend == "imported")
    v.message += judged == verdict_status::pass
                     ? "; imported from a log without telemetry: throttling could not be ruled out"
                     : "; imported from a log without telemetry: throttling could not be ruled "
                       "out, and the clocks, temperature and throttle reasons during the run are "
                       "what to look at";
  if (judged == verdict_status::warn || judged == verdict_status::fail)
    explain(v, judged, r, dev, node, code);
  return v;
}

/// Expected, efficiency and fractions from the baseline's partner; false (and `v` concluded)
/// when the two are in units that do not convert.
bool node_checker::frame_by_baseline(const result& r, const result& base, verdict_status findings,
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
bool node_checker::frame_by_rule(const result& r, const device_info* dev, verdict_status findings,
                                 result_verdict& v, std::string& frame_note) {
  const gpu_spec* spec = dev != nullptr ? m_spec_of.at(dev->index) : nullptr;
  const rule_subject subject = subject_of(m_report, r, dev, spec);
  const auto rule = m_rules.choose(subject);
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
  if (!reference.value && r.devices.empty() && m_report.run.backend == "imported") {
    // A foreign log that names no GPU (nccl-tests without "# Using devices"): a figure the
    // rules judge, with no model to hold it to. Inconclusive, saying what is missing, not
    // "skipped": the figure is there, the node is not known (docs/import.md).
    v.frame = "spec";
    auto d = make_diagnosis(
        "GPUSPEC-LOG-NAMES-NO-GPU", verdict_status::inconclusive,
        "the log names no GPU, so no model and no link to hold this figure to: give the node's "
        "inventory (gpuspec import --inventory INFO.json, INFO.json from gpuspec info --json "
        "there)",
        nullptr, m_report.host);
    d.evidence["bench_id"] = r.bench_id;
    v.message = d.cause;
    add_finding(v, std::move(d));
    return false;
  }
  if (!reference.value) {
    v.status = worst(findings, verdict_status::skipped);
    v.message = r.ceiling_value.reference == reference_kind::none
                    ? "no ceiling judges this result (no vendor figure and none at the clock "
                      "seen): it is judged only against a baseline, its siblings and the fleet"
                    : "its reference has no value" +
                          (!reference.note.empty() ? " (" + reference.note + ")"
                           : spec != nullptr && !r.ceiling_value.spec_figure.empty()
                               ? fmt::format(" (the spec row {} states no {})", spec->id,
                                             r.ceiling_value.spec_figure)
                               : std::string());
    return false;
  }
  if (reference.replaced) {
    ++m_replaced;
    frame_note += "; " + reference.note;
  } else if (!reference.note.empty()) {
    frame_note += "; " + reference.note;
  }
  if (const auto it = r.observations.find(recomputed_ceiling_key); it != r.observations.end())
    frame_note += "; " + it->get<std::string>();
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
  return within_algorithm_reach(r, dev, subject.arch, v, frame_note);
}

/// A collective above the single-path bound is impossible only beyond what NCCL's algorithm
/// can reach (collective_reach_of); within it, the note says which algorithm explains it.
/// False (and `v` inconclusive) beyond it.
bool node_checker::within_algorithm_reach(const result& r, const device_info* dev,
                                          std::string_view arch, result_verdict& v,
                                          std::string& frame_note) const {
  const auto reach = collective_reach_of(r, arch);
  const double margin = std::max(m_rules.settings.impossible_margin, 3 * r.stats.cv);
  if (!reach || !v.efficiency || !(*v.efficiency > 1 + margin))
    return true;
  if (*v.efficiency > reach->factor * (1 + margin)) {
    v = conclude(std::move(v), r, dev, verdict_status::inconclusive, "GPUSPEC-IMPOSSIBLE-RESULT",
                 fmt::format("impossible: busbw {} GB/s is {} of the single-path bound {} GB/s, "
                             "beyond what {} can reach ({:.3g} x, {} margin): {}",
                             format_figure(r.stats.median), format_percent(*v.efficiency),
                             format_figure(v.expected.value_or(0)), reach->algorithm, reach->factor,
                             format_percent(margin), reach->why));
    return false;
  }
  frame_note +=
      fmt::format("; above the single-path (ring) bound, which {} explains{}: {}", reach->algorithm,
                  reach->stated ? " (NCCL's log names it)" : "", reach->why);
  return true;
}

/// Every warn or fail gets a probable cause: the result's telemetry, else its GPU's
/// inventory diagnoses, else the generic code of the frame.
void node_checker::explain(result_verdict& v, verdict_status judged, const result& r,
                           const device_info* dev, const node_verdict& node,
                           const std::string& code) {
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
    auto d = make_diagnosis(
        code, judged,
        fmt::format("{} is {} of {}{}", format_quantity(v.measured, v.unit),
                    format_percent(v.efficiency.value_or(0)),
                    v.expected ? format_quantity(v.expected, v.unit) : "?",
                    m_report.run.backend == "imported"
                        ? "; the log has no telemetry: the clocks, temperature and throttle "
                          "reasons during the run are what to look at"
                        : ""),
        dev, m_report.host);
    d.evidence["bench_id"] = r.bench_id;
    causes.push_back(std::move(d));
  }
  merge_explanations(v, std::move(causes));
}

} // namespace gpuspec::reports::judge::check_detail
