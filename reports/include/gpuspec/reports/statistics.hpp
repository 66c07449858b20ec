#pragma once
/// Sample statistics and the noise-based stopping rule (DESIGN.md, measurement rules 4 and 5).

#include <span>
#include <string>

#include "gpuspec/reports/report.hpp"

namespace gpuspec::reports {

/// n, median, quartiles (linear interpolation between order statistics, type 7), mean,
/// sample standard deviation (n-1), cv = stddev / mean (0 when mean is 0 or n < 2).
[[nodiscard]] sample_stats summarize(std::span<const double> samples);

/// When to stop taking samples. Defaults follow DESIGN.md: at least 10 samples and 0.5 s of
/// device time, stop when the CV is under 1% or has stopped improving, cap at 15 s.
struct stopping_rule {
  int min_samples = 10;
  int max_samples = 10000;
  double min_seconds = 0.5;     ///< device time summed over samples
  double max_seconds = 15.0;    ///< hard cap on device time
  double cv_target = 0.01;
  /// "stopped improving": the CV over the last `stall_window` samples has not improved on the
  /// best CV seen `stall_window` samples earlier by more than `stall_tolerance` (relative).
  int stall_window = 20;
  double stall_tolerance = 0.05;
};

struct stop_decision {
  bool stop = false;
  std::string reason; ///< "cv_target" | "stalled" | "time_cap" | "sample_cap" | ""
};

/// Decides after each sample. `samples` are the metric values (or seconds; CV is scale-free),
/// `device_seconds` the device time accumulated so far.
[[nodiscard]] stop_decision should_stop(const stopping_rule& rule, std::span<const double> samples,
                                        double device_seconds);

} // namespace gpuspec::reports
