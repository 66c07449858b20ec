#pragma once
/// Sample statistics and the noise-based stopping rule (docs/design.md, measurement rules 4 and 5).

#include <span>
#include <string>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model {

/// n, median, quartiles (linear interpolation between order statistics, type 7), mean,
/// sample standard deviation (n-1), cv = stddev / mean (0 when mean is 0 or n < 2; |mean| is
/// used so that a negative metric still gives a non-negative cv). An empty span gives all zeros.
/// Samples must be finite: a NaN or infinity is a bug in the caller and throws
/// std::invalid_argument naming its index.
[[nodiscard]] sample_stats summarize(std::span<const double> samples);

/// The arithmetic mean, held within [min, max] of the values (sum / n alone can round an ulp
/// outside: ten equal samples must not have a mean above their maximum). 0 for an empty span;
/// values must be finite (std::invalid_argument otherwise). summarize()'s mean.
[[nodiscard]] double mean_of(std::span<const double> values);

/// The type-7 quantile p in [0, 1] of `values` (linear interpolation between order statistics,
/// R's default and NumPy's "linear"): the one quantile every part of gpuspec uses. 0 for an
/// empty span; values must be finite (std::invalid_argument otherwise).
[[nodiscard]] double quantile_of(std::span<const double> values, double p);
/// quantile_of(values, 0.5).
[[nodiscard]] double median_of(std::span<const double> values);
/// The median absolute deviation from `median`: median of |x - median|.
[[nodiscard]] double median_absolute_deviation(std::span<const double> values, double median);

/// The one outlier rule (Iglewicz and Hoaglin's modified z-score): z = 0.6745 (x - median) /
/// MAD. With MAD 0 (at least half the values equal) z is -inf, 0 or +inf by the sign of
/// x - median.
[[nodiscard]] double modified_z_score(double x, double median, double mad);

/// Where a value sits against a group (the sibling, fleet and compare frames all ask this).
struct outlier_test {
  double median = 0;
  double mad = 0;
  double z = 0;         ///< modified_z_score(x, median, mad)
  double deviation = 0; ///< (x - median) / |median|; 0 when the median is 0
};
/// A group's median and median absolute deviation, computed once for all its members.
struct spread {
  double median = 0;
  double mad = 0;
};
[[nodiscard]] spread spread_of(std::span<const double> group);
/// Tests `x` against a group of that spread (x itself may or may not be in it; the caller
/// decides).
[[nodiscard]] outlier_test test_outlier(double x, const spread& group);
/// test_outlier(x, spread_of(group)).
[[nodiscard]] outlier_test test_outlier(double x, std::span<const double> group);
/// True when the test puts x at least `min_deviation` (relative) from the median and its
/// |modified z| above `z_bound` (MAD 0 counts as beyond any bound). `direction` -1 looks below
/// the median only, +1 above only, 0 both ways.
[[nodiscard]] bool is_outlier(const outlier_test& t, double min_deviation, double z_bound,
                              int direction);

/// When to stop taking samples. Defaults follow docs/design.md: at least 10 samples and 0.5 s of
/// device time, stop when the CV is under 1% or has stopped improving, cap at 15 s.
///
/// The exact rule, checked after each sample (n = samples taken, t = device_seconds):
///  1. n >= min_samples, n >= 2 and t >= min_seconds, and cv(all n samples) <= cv_target:
///     "cv_target".
///  2. n >= min_samples and t >= min_seconds, and the CV has stalled: "stalled". With cv_k the
///     CV of the first k samples, W = stall_window and m = max(min_samples, 2), it has stalled
///     when n - W >= m and  min{cv_k : n-W < k <= n}  >=  (1 - stall_tolerance) *
///     min{cv_k : m <= k <= n-W},  i.e. the last W samples did not bring the best CV seen so
///     far down by more than stall_tolerance (relative). A plateau of noisy samples (the CV
///     settles at the noise level, above the target) stops here instead of running to the cap,
///     as nvbench's "noise is stable" rule does; a CV still falling (a transient being diluted)
///     keeps going.
///     stall_window <= 0 turns the rule off.
///  3. t >= max_seconds: "time_cap", even before the minimums (a slow benchmark must end).
///  4. n >= max_samples: "sample_cap", even before the minimums.
/// The first that holds wins, so a measurement that converged on the sample that also reached
/// a cap says "cv_target" or "stalled", not the cap.
struct stopping_rule {
  int min_samples = 10;
  int max_samples = 10000;
  double min_seconds = 0.5;  ///< device time summed over samples
  double max_seconds = 15.0; ///< hard cap on device time
  double cv_target = 0.01;
  /// "stopped improving": the best CV over the last `stall_window` samples has not improved on
  /// the best CV seen before them by more than `stall_tolerance` (relative); rule 2 above.
  int stall_window = 20;
  double stall_tolerance = 0.05;
};

struct stop_decision {
  bool stop = false;
  std::string reason; ///< "cv_target" | "stalled" | "time_cap" | "sample_cap" | ""
};

/// Decides after each sample. `samples` are the metric values (or seconds; CV is scale-free),
/// `device_seconds` the device time accumulated so far. Stateless: O(n) per call. Samples
/// must be finite (see summarize).
[[nodiscard]] stop_decision should_stop(const stopping_rule& rule, std::span<const double> samples,
                                        double device_seconds);

} // namespace gpuspec::reports::model
