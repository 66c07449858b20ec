#pragma once
/// The one result builder's arithmetic (docs/design.md, "Report contract"): what a benchmark's
/// samples become (metric, unit, direction), the statistics, the reference, the efficiencies and
/// the status, derived here once for every harness path (one GPU, node-wide, sustained) so that
/// no family or state class settles any of them itself. CUDA-free, so it is tested on the host;
/// the harness's build_result (gpuspec/benches/result_builder.hpp) calls it.

#include <optional>
#include <span>
#include <string>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model {

/// What one run of a benchmark's work is, as the benchmark declared it; the first declared of
/// items, bytes and operations decides the figure.
struct work_per_iteration {
  std::optional<double> items; ///< dependent steps (loads, launches): latency in ns per item
  std::optional<double> bytes; ///< bytes moved: bandwidth in GB/s (1e9 bytes/s)
  std::optional<double> ops;   ///< operations: TFLOP/s, or TOPS with integer_ops (1e12 op/s)
  bool integer_ops = false;
};

/// The figure a result's samples are in.
struct metric_kind {
  std::string metric; ///< "latency", "bandwidth", "throughput", "time"
  metric_unit unit = metric_unit::none;
  bool higher_is_better = true;
};

/// The figure `work` makes: latency (ns) for items, bandwidth (GB/s) for bytes, throughput
/// (TFLOP/s or TOPS) for a positive operation count, else time (seconds).
[[nodiscard]] metric_kind metric_of(const work_per_iteration& work);

/// One sample's value in metric_of(work)'s unit, from the device seconds one run took.
[[nodiscard]] double metric_value(const work_per_iteration& work, double seconds);

/// Settles what the samples and the ceiling give: `stats` from the samples, the ceiling's
/// reference (choose_reference), `efficiency` and `efficiency_clock_adjusted`
/// (settle_efficiency), and host_seconds_median when `host_seconds` (per sample) are given.
/// `r`'s metric, unit, samples and ceiling must be set.
void settle_measurement(result& r, std::span<const double> host_seconds = {});

/// How a benchmark ended, as its state saw it.
struct run_ending {
  /// skip / not_supported / fail, as the benchmark (or the harness, for an exception) said.
  std::optional<result_status> disposition;
  std::string disposition_reason;
  /// The run was asked to stop while the benchmark measured (and it did not run for a set
  /// duration, which keeps what it did).
  bool interrupted = false;
  /// The benchmark reached its measurement (bench_state: exec() or finish_sustained()).
  bool measured = true;
};

/// Settles status, reason, failure kind and the verification's note from how the run ended and
/// what it measured: a disposition wins (its reason, or "no reason given"); an interruption
/// makes the result skipped and unjudged; no measurement or no sample fails it, and so does a
/// failed verification; otherwise it is ok. A failed result's failure names a wrong answer as
/// a verification failure whatever else ended it.
void settle_status(result& r, const run_ending& ending);

} // namespace gpuspec::reports::model
