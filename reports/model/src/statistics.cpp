#include "gpuspec/reports/model/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace gpuspec::reports::inline model {
namespace {

void require_finite(std::span<const double> samples, const char* caller) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) {
      throw std::invalid_argument(
          fmt::format("{}: sample {} is {}; samples must be finite", caller, i, samples[i]));
    }
  }
}

double coefficient_of_variation(double stddev, double mean) {
  return mean == 0.0 ? 0.0 : stddev / std::abs(mean);
}

/// Type-7 quantile (R's default, NumPy's "linear") of sorted, non-empty data.
double quantile_sorted(const std::vector<double>& sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double fraction = h - static_cast<double>(lo);
  // Interpolation can round past its neighbours by an ulp; a quantile never leaves them.
  return std::clamp(sorted[lo] + fraction * (sorted[hi] - sorted[lo]), sorted[lo], sorted[hi]);
}

/// cv_k for k = 1..n (index k-1), by Welford's running mean and sum of squared deviations.
std::vector<double> prefix_cvs(std::span<const double> samples) {
  std::vector<double> cvs;
  cvs.reserve(samples.size());
  double mean = 0.0;
  double m2 = 0.0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double k = static_cast<double>(i + 1);
    const double delta = samples[i] - mean;
    mean += delta / k;
    m2 += delta * (samples[i] - mean);
    const double variance = i == 0 ? 0.0 : std::max(m2, 0.0) / (k - 1.0);
    cvs.push_back(i == 0 ? 0.0 : coefficient_of_variation(std::sqrt(variance), mean));
  }
  return cvs;
}

} // namespace

sample_stats summarize(std::span<const double> samples) {
  require_finite(samples, "summarize");
  sample_stats s;
  s.n = static_cast<std::int64_t>(samples.size());
  if (samples.empty()) {
    return s;
  }
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = quantile_sorted(sorted, 0.5);
  s.q1 = quantile_sorted(sorted, 0.25);
  s.q3 = quantile_sorted(sorted, 0.75);

  s.mean = mean_of(samples);
  if (samples.size() >= 2) {
    // Two passes: the squared deviations from the mean, not E[x^2] - E[x]^2, which cancels.
    double squares = 0.0;
    for (const double x : samples) {
      squares += (x - s.mean) * (x - s.mean);
    }
    s.stddev = std::sqrt(squares / static_cast<double>(samples.size() - 1));
    s.cv = coefficient_of_variation(s.stddev, s.mean);
  }
  return s;
}

double mean_of(std::span<const double> values) {
  require_finite(values, "mean_of");
  if (values.empty())
    return 0.0;
  double sum = 0.0;
  double lo = values.front();
  double hi = values.front();
  for (const double x : values) {
    sum += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  // sum / n rounds: ten equal samples of 0.1 sum to 0.9999999999999999, a mean an ulp below
  // them. A mean is within its values' range, so it is held there (integrity.cpp still
  // tolerates reports written before, whose mean may sit an ulp outside).
  return std::clamp(sum / static_cast<double>(values.size()), lo, hi);
}

double quantile_of(std::span<const double> values, double p) {
  require_finite(values, "quantile_of");
  if (values.empty())
    return 0.0;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return quantile_sorted(sorted, std::clamp(p, 0.0, 1.0));
}

double median_of(std::span<const double> values) { return quantile_of(values, 0.5); }

double median_absolute_deviation(std::span<const double> values, double median) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double x : values)
    deviations.push_back(std::abs(x - median));
  return median_of(deviations);
}

double modified_z_score(double x, double median, double mad) {
  if (mad > 0)
    return 0.6745 * (x - median) / mad;
  if (x == median)
    return 0.0;
  return x < median ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
}

spread spread_of(std::span<const double> group) {
  spread s;
  s.median = median_of(group);
  s.mad = median_absolute_deviation(group, s.median);
  return s;
}

outlier_test test_outlier(double x, const spread& group) {
  outlier_test t;
  t.median = group.median;
  t.mad = group.mad;
  t.z = modified_z_score(x, t.median, t.mad);
  t.deviation = t.median != 0 ? (x - t.median) / std::abs(t.median) : 0.0;
  return t;
}

outlier_test test_outlier(double x, std::span<const double> group) {
  return test_outlier(x, spread_of(group));
}

bool is_outlier(const outlier_test& t, double min_deviation, double z_bound, int direction) {
  if (direction < 0 && !(t.deviation < 0))
    return false;
  if (direction > 0 && !(t.deviation > 0))
    return false;
  return std::abs(t.deviation) >= min_deviation && std::abs(t.z) > z_bound;
}

stop_decision should_stop(const stopping_rule& rule, std::span<const double> samples,
                          double device_seconds) {
  require_finite(samples, "should_stop");
  const auto n = static_cast<std::ptrdiff_t>(samples.size());
  const bool minimums_met = n >= rule.min_samples && n >= 1 && device_seconds >= rule.min_seconds;

  if (minimums_met) {
    const std::vector<double> cvs = prefix_cvs(samples); // cvs[k-1] = cv_k
    if (n >= 2 && cvs.back() <= rule.cv_target) {
      return {true, "cv_target"};
    }
    const std::ptrdiff_t window = rule.stall_window;
    const std::ptrdiff_t first = std::max<std::ptrdiff_t>(rule.min_samples, 2);
    if (window > 0 && n - window >= first) {
      // Best CV before the window (prefixes first..n-W) and within it (n-W+1..n).
      const double before =
          *std::min_element(cvs.begin() + (first - 1), cvs.begin() + (n - window));
      const double recent = *std::min_element(cvs.begin() + (n - window), cvs.end());
      if (recent >= (1.0 - rule.stall_tolerance) * before) {
        return {true, "stalled"};
      }
    }
  }
  if (device_seconds >= rule.max_seconds) {
    return {true, "time_cap"};
  }
  if (n >= rule.max_samples) {
    return {true, "sample_cap"};
  }
  return {};
}

} // namespace gpuspec::reports::model
