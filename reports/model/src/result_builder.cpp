// The one result builder's arithmetic (result_builder.hpp).

#include "gpuspec/reports/model/result_builder.hpp"

#include <fmt/format.h>

#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::reports::inline model {

namespace {

bool counts_operations(const work_per_iteration& w) { return w.ops && *w.ops > 0.0; }

} // namespace

metric_kind metric_of(const work_per_iteration& work) {
  if (work.items)
    return {"latency", metric_unit::nanoseconds, false};
  if (work.bytes)
    return {"bandwidth", metric_unit::gigabytes_per_second, true};
  if (counts_operations(work))
    return {"throughput",
            work.integer_ops ? metric_unit::teraops_per_second : metric_unit::teraflop_per_second,
            true};
  return {"time", metric_unit::seconds, false};
}

double metric_value(const work_per_iteration& work, double seconds) {
  if (work.items)
    return seconds / *work.items * 1e9;
  if (work.bytes)
    return *work.bytes / seconds / 1e9;
  if (counts_operations(work))
    return *work.ops / seconds / 1e12;
  return seconds;
}

void settle_measurement(result& r, std::span<const double> host_seconds) {
  // Which of the two ceilings judges this result, decided once for check and compare alike.
  r.ceiling_value.reference = choose_reference(r.ceiling_value);
  r.stats = summarize(r.samples);
  if (!host_seconds.empty())
    r.host_seconds_median = summarize(host_seconds).median;
  // Against the reference that judges it, and against the clock-adjusted ceiling apart.
  settle_efficiency(r);
}

void settle_status(result& r, const run_ending& ending) {
  if (ending.disposition) {
    r.status = *ending.disposition;
    r.reason = ending.disposition_reason.empty() ? "no reason given" : ending.disposition_reason;
  } else if (ending.interrupted) {
    r.status = result_status::skipped;
    r.reason = fmt::format("interrupted after {} sample(s)", r.samples.size());
    // The work may never have run (interrupted in the warm-up), so a check of its output
    // would report the poison as a failure: an interrupted result is not judged.
    r.check = verification{};
    r.check.detail = "not checked: the measurement was interrupted";
  } else if (!ending.measured) {
    r.status = result_status::failed;
    r.reason = "the benchmark returned without measuring (it never called exec)";
  } else if (r.samples.empty()) {
    r.status = result_status::failed;
    r.reason = "no sample was taken";
  } else if (r.check.status == verification_status::failed) {
    r.status = result_status::failed;
    r.reason = "verification failed: " + r.check.detail;
  } else {
    r.status = result_status::ok;
    r.reason.clear();
    if (r.check.status == verification_status::skipped && r.check.detail.empty())
      r.check.detail = "the benchmark has no check";
  }
  // A wrong answer is named as such whatever else ended the result: it is a possible
  // silent-data-corruption finding, not a benchmark to rerun.
  if (r.status == result_status::failed)
    r.failure = r.check.status == verification_status::failed ? failure_kind::verification
                                                              : failure_kind::benchmark;
}

} // namespace gpuspec::reports::model
