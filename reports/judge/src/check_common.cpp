// The helpers check's frames share (check_frames.hpp).
#include "check_frames.hpp"

namespace gpuspec::reports::inline judge::check_detail {

std::string group_of(const std::string& bench_id) {
  const auto dot = bench_id.rfind('.');
  return dot == std::string::npos ? bench_id : bench_id.substr(0, dot);
}

std::string model_key(const device_info& d) { return d.spec_id.empty() ? d.name : d.spec_id; }

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

} // namespace gpuspec::reports::judge::check_detail
