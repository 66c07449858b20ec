// The self-contradictions of one result (integrity.hpp). The stats are recomputed from the
// samples with the harness's own summarize(): the JSON writer keeps every double's bits, so a
// report as written agrees exactly. Every comparison of the stats allows floating-point
// rounding, `relative_tolerance` of the samples' magnitude: another machine's rounding, and the
// mean of equal samples that sum / n put an ulp outside [min, max] in reports written before
// summarize() held it there.

#include "integrity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::reports::inline judge::detail {
namespace {

/// How far two figures of the same samples may differ by rounding alone, relative to the
/// samples' magnitude. Summing n samples and dividing rounds by at most about n ulps (2.2e-16
/// each); 1e-9 covers ten million samples, and a real contradiction (an edited figure, another
/// run's stats) is far larger.
constexpr double relative_tolerance = 1e-9;

/// The magnitude rounding is relative to: the largest |value| among the stats' location figures.
double magnitude(const sample_stats& s) {
  return std::max({std::abs(s.min), std::abs(s.max), std::abs(s.median), std::abs(s.mean),
                   std::numeric_limits<double>::min()});
}

/// a and b differ by more than rounding at `scale`.
bool differs(double a, double b, double scale) {
  return !(std::abs(a - b) <= relative_tolerance * scale);
}

/// x lies in [lo, hi], allowing rounding at `scale`.
bool within(double x, double lo, double hi, double scale) {
  const double slack = relative_tolerance * scale;
  return x >= lo - slack && x <= hi + slack;
}

std::string field_of(std::size_t index, std::string_view tail) {
  return fmt::format("results[{}].{}", index, tail);
}

std::optional<contradiction> stats_contradiction(const result& r, std::size_t i) {
  const auto& s = r.stats;
  if (s.n != static_cast<std::int64_t>(r.samples.size()))
    return contradiction{field_of(i, "stats.n"),
                         fmt::format("{}, but the result holds {} samples", s.n, r.samples.size())};
  if (r.samples.empty())
    return std::nullopt;
  const double scale = magnitude(s);
  if (!(s.min <= s.max))
    return contradiction{field_of(i, "stats.min"),
                         fmt::format("{} is above the maximum {}", s.min, s.max)};
  if (!within(s.median, s.min, s.max, scale))
    return contradiction{field_of(i, "stats.median"),
                         fmt::format("{} is outside [min {}, max {}]", s.median, s.min, s.max)};
  if (!within(s.mean, s.min, s.max, scale))
    return contradiction{field_of(i, "stats.mean"),
                         fmt::format("{} is outside [min {}, max {}]", s.mean, s.min, s.max)};
  const sample_stats again = summarize(r.samples);
  const struct {
    const char* name;
    double carried, computed, scale;
  } fields[] = {{"median", s.median, again.median, scale},
                {"min", s.min, again.min, scale},
                {"max", s.max, again.max, scale},
                {"mean", s.mean, again.mean, scale},
                {"q1", s.q1, again.q1, scale},
                {"q3", s.q3, again.q3, scale},
                {"stddev", s.stddev, again.stddev, scale},
                // cv is stddev / |mean|: its rounding is relative to 1.
                {"cv", s.cv, again.cv, 1.0}};
  for (const auto& f : fields)
    if (differs(f.carried, f.computed, f.scale))
      return contradiction{
          field_of(i, std::string("stats.") + f.name),
          fmt::format("{}, but the samples' {} is {}", f.carried, f.name, f.computed)};
  return std::nullopt;
}

std::optional<contradiction> time_contradiction(const result& r, std::size_t i) {
  if (!r.sample_seconds.empty() && r.sample_seconds.size() != r.samples.size())
    return contradiction{
        field_of(i, "sample_seconds"),
        fmt::format("{} device times for {} samples", r.sample_seconds.size(), r.samples.size())};
  for (std::size_t k = 0; k < r.sample_seconds.size(); ++k)
    if (r.sample_seconds[k] < 0)
      return contradiction{field_of(i, fmt::format("sample_seconds[{}]", k)),
                           fmt::format("{} s: a time cannot be negative", r.sample_seconds[k])};
  if (r.host_seconds_median && *r.host_seconds_median < 0)
    return contradiction{field_of(i, "host_seconds_median"),
                         fmt::format("{} s: a time cannot be negative", *r.host_seconds_median)};
  return std::nullopt;
}

std::optional<contradiction> verification_contradiction(const result& r, std::size_t i) {
  const auto& v = r.check;
  if (v.status == verification_status::passed && v.max_rel_error && v.tolerance &&
      *v.max_rel_error > *v.tolerance)
    return contradiction{field_of(i, "verification.max_rel_error"),
                         fmt::format("{:.3g} is above its own tolerance {:.3g}, yet the "
                                     "verification says passed",
                                     *v.max_rel_error, *v.tolerance)};
  if (v.max_rel_error && *v.max_rel_error < 0)
    return contradiction{field_of(i, "verification.max_rel_error"),
                         fmt::format("{}: an error bound cannot be negative", *v.max_rel_error)};
  return std::nullopt;
}

std::optional<contradiction> efficiency_contradiction(const result& r, std::size_t i) {
  const auto differs = [](double carried, double expected) {
    return std::abs(carried - expected) > 1e-6 * std::max(1.0, std::abs(expected));
  };
  const auto adjusted = fraction_of_ceiling(r, r.ceiling_value.clock_adjusted);
  if (r.efficiency_clock_adjusted && adjusted && differs(*r.efficiency_clock_adjusted, *adjusted))
    return contradiction{field_of(i, "efficiency_clock_adjusted"),
                         fmt::format("{:.6g}, but the median against the clock-adjusted ceiling "
                                     "gives {:.6g}",
                                     *r.efficiency_clock_adjusted, *adjusted)};
  const auto expected = fraction_of_ceiling(r, reference_value(r.ceiling_value));
  if (!r.efficiency || !expected || !differs(*r.efficiency, *expected))
    return std::nullopt;
  // A report written before efficiency_clock_adjusted held efficiency to the clock-adjusted
  // ceiling whatever the reference: that is no contradiction.
  if (!r.efficiency_clock_adjusted && adjusted && !differs(*r.efficiency, *adjusted))
    return std::nullopt;
  return contradiction{field_of(i, "efficiency"),
                       fmt::format("{:.6g}, but the median against the result's reference ({}) "
                                   "gives {:.6g}",
                                   *r.efficiency, to_string(r.ceiling_value.reference), *expected)};
}

std::optional<contradiction> telemetry_contradiction(const result& r, std::size_t i) {
  const auto& t = r.telemetry;
  if (t.sm_clock_mhz_min && t.sm_clock_mhz_median && t.sm_clock_mhz_max &&
      !(*t.sm_clock_mhz_min <= *t.sm_clock_mhz_median &&
        *t.sm_clock_mhz_median <= *t.sm_clock_mhz_max))
    return contradiction{field_of(i, "telemetry.sm_clock_mhz_median"),
                         fmt::format("{} is outside [min {}, max {}]", *t.sm_clock_mhz_median,
                                     *t.sm_clock_mhz_min, *t.sm_clock_mhz_max)};
  if (t.low_clock_fraction && !(*t.low_clock_fraction >= 0 && *t.low_clock_fraction <= 1))
    return contradiction{field_of(i, "telemetry.low_clock_fraction"),
                         fmt::format("{}: a fraction is between 0 and 1", *t.low_clock_fraction)};
  // A mean of equal readings can round an ulp above them: rounding is not a contradiction.
  if (t.power_w_mean && t.power_w_max &&
      !within(*t.power_w_mean, -std::numeric_limits<double>::infinity(), *t.power_w_max,
              std::max(std::abs(*t.power_w_mean), std::abs(*t.power_w_max))))
    return contradiction{
        field_of(i, "telemetry.power_w_mean"),
        fmt::format("{} W is above the maximum {} W", *t.power_w_mean, *t.power_w_max)};
  if (t.window_start_s && t.window_end_s && *t.window_end_s < *t.window_start_s)
    return contradiction{
        field_of(i, "telemetry.window_end_s"),
        fmt::format("{} s is before the window's start {} s", *t.window_end_s, *t.window_start_s)};
  return std::nullopt;
}

} // namespace

std::optional<contradiction> result_contradiction(const result& r, std::size_t index) {
  for (const auto rule : {stats_contradiction, time_contradiction, verification_contradiction,
                          efficiency_contradiction, telemetry_contradiction})
    if (auto c = rule(r, index))
      return c;
  return std::nullopt;
}

} // namespace gpuspec::reports::judge::detail
