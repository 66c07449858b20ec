// summarize() on known data, and the stopping rule on synthetic sample sequences.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::reports {
namespace {

// ------------------------------------------------------------------------------------ summarize

TEST(Summarize, EmptyIsAllZero) { EXPECT_EQ(summarize({}), sample_stats{}); }

TEST(Summarize, OneSample) {
  const std::vector<double> one{42.0};
  const sample_stats s = summarize(one);
  EXPECT_EQ(s.n, 1);
  EXPECT_EQ(s.median, 42.0);
  EXPECT_EQ(s.mean, 42.0);
  EXPECT_EQ(s.min, 42.0);
  EXPECT_EQ(s.max, 42.0);
  EXPECT_EQ(s.q1, 42.0);
  EXPECT_EQ(s.q3, 42.0);
  EXPECT_EQ(s.stddev, 0.0);
  EXPECT_EQ(s.cv, 0.0);
}

TEST(Summarize, QuartilesAreType7) {
  // R: quantile(1:10) -> 3.25 5.5 7.75; the input order does not matter.
  const std::vector<double> ten{7, 3, 10, 1, 9, 2, 8, 4, 6, 5};
  sample_stats s = summarize(ten);
  EXPECT_EQ(s.n, 10);
  EXPECT_DOUBLE_EQ(s.q1, 3.25);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.q3, 7.75);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 10.0);

  // R: quantile(c(7, 15, 36, 39, 40, 41)) -> 20.25 37.5 39.75
  const std::vector<double> six{41, 39, 7, 36, 15, 40};
  s = summarize(six);
  EXPECT_DOUBLE_EQ(s.q1, 20.25);
  EXPECT_DOUBLE_EQ(s.median, 37.5);
  EXPECT_DOUBLE_EQ(s.q3, 39.75);

  // Odd count: the median is the middle value.
  const std::vector<double> five{5, 1, 4, 2, 3};
  s = summarize(five);
  EXPECT_EQ(s.median, 3.0);
  EXPECT_EQ(s.q1, 2.0);
  EXPECT_EQ(s.q3, 4.0);
}

TEST(Summarize, SampleStandardDeviationAndCv) {
  const std::vector<double> data{2, 4, 4, 4, 5, 5, 7, 9};
  const sample_stats s = summarize(data);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0)); // n - 1, not n (which gives 2)
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(32.0 / 7.0) / 5.0);
}

TEST(Summarize, CvIsZeroForAZeroMeanAndPositiveForANegativeOne) {
  const std::vector<double> zero_mean{-1, 1, -1, 1};
  EXPECT_EQ(summarize(zero_mean).cv, 0.0);
  EXPECT_GT(summarize(zero_mean).stddev, 0.0);
  const std::vector<double> negative{-9, -10, -11};
  EXPECT_DOUBLE_EQ(summarize(negative).cv, 0.1);
}

TEST(Summarize, LargeOffsetDoesNotCancel) {
  // E[x^2] - E[x]^2 would lose everything here; two passes keep it.
  std::vector<double> data;
  for (int i = 0; i < 1000; ++i) {
    data.push_back(1e9 + (i % 2 == 0 ? 1.0 : -1.0));
  }
  const sample_stats s = summarize(data);
  EXPECT_NEAR(s.stddev, std::sqrt(1000.0 / 999.0), 1e-6);
  EXPECT_DOUBLE_EQ(s.mean, 1e9);
}

/// Equal samples at every count and magnitude the harness can produce: sum / n rounds (ten
/// samples of 0.1 sum to 0.9999999999999999), and the mean must still be the samples' value's
/// neighbourhood inside [min, max], the quantiles the value itself.
TEST(Summarize, EqualSamplesHaveTheirValueAsEveryLocationFigure) {
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> exponent(-9.0, 12.0);
  int mean_rounded = 0;
  for (std::size_t n = 1; n <= 1000; n += (n < 30 ? 1 : 37)) {
    for (int k = 0; k < 40; ++k) {
      const double v = std::pow(10.0, exponent(rng)) * (k % 2 == 0 ? 1 : std::sqrt(2.0));
      const std::vector<double> samples(n, v);
      double sum = 0;
      for (double x : samples)
        sum += x;
      if (sum / static_cast<double>(n) != v)
        ++mean_rounded;
      const auto s = summarize(samples);
      EXPECT_EQ(s.min, v);
      EXPECT_EQ(s.max, v);
      EXPECT_EQ(s.median, v);
      EXPECT_EQ(s.q1, v);
      EXPECT_EQ(s.q3, v);
      EXPECT_EQ(s.mean, v) << n << " samples of " << v;
      EXPECT_EQ(mean_of(samples), v);
      EXPECT_LE(s.cv, 1e-12);
    }
  }
  // The case is real: plain sum / n leaves the samples' value for some of them.
  EXPECT_GT(mean_rounded, 0);
}

TEST(Summarize, TheMeanIsWithinTheRangeOfAnySamples) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-9.0, 12.0);
  std::uniform_real_distribution<double> jitter(1.0, 1.0 + 1e-15);
  for (int k = 0; k < 2000; ++k) {
    const double v = std::pow(10.0, exponent(rng));
    std::vector<double> samples(1 + static_cast<std::size_t>(k % 97));
    for (auto& x : samples)
      x = v * jitter(rng);
    const auto s = summarize(samples);
    EXPECT_LE(s.min, s.mean);
    EXPECT_LE(s.mean, s.max);
    EXPECT_LE(s.min, s.q1);
    EXPECT_LE(s.q3, s.max);
  }
  EXPECT_EQ(mean_of({}), 0.0);
  EXPECT_EQ(mean_of(std::vector<double>{1, 2, 3, 6}), 3.0);
}

TEST(Summarize, NonFiniteSamplesThrowNamingTheIndex) {
  const std::vector<double> data{1.0, std::numeric_limits<double>::quiet_NaN()};
  try {
    (void)summarize(data);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sample 1"), std::string::npos) << e.what();
  }
  const std::vector<double> infinite{std::numeric_limits<double>::infinity()};
  EXPECT_THROW((void)summarize(infinite), std::invalid_argument);
}

// ------------------------------------------------------------------------------------ should_stop

/// Device time per fast sample: 1/64 s, so that sums are exact (32 samples = 0.5 s, 960 = 15 s).
constexpr double tick = 1.0 / 64.0;

struct run_outcome {
  std::size_t n = 0;
  std::string reason;
};

/// Takes samples from `next(i)` -> (value, device seconds) until should_stop says stop, as the
/// harness does.
run_outcome run(const stopping_rule& rule,
                const std::function<std::pair<double, double>(std::size_t)>& next) {
  std::vector<double> samples;
  double seconds = 0.0;
  for (std::size_t i = 0; i < 1000000; ++i) {
    const auto [value, time] = next(i);
    samples.push_back(value);
    seconds += time;
    const stop_decision d = should_stop(rule, samples, seconds);
    if (d.stop) {
      return {samples.size(), d.reason};
    }
    EXPECT_EQ(d.reason, "");
  }
  ADD_FAILURE() << "never stopped";
  return {};
}

TEST(StoppingRule, ConstantSamplesStopAtTheMinimumWithCvTarget) {
  const stopping_rule rule; // 10 samples, 0.5 s
  // Slow enough that the sample count is the binding minimum.
  run_outcome r = run(rule, [](std::size_t) { return std::pair{100.0, 0.1}; });
  EXPECT_EQ(r.n, 10U);
  EXPECT_EQ(r.reason, "cv_target");
  // Fast samples: the 0.5 s of device time is the binding minimum (1/64 s adds up exactly).
  r = run(rule, [](std::size_t) { return std::pair{100.0, tick}; });
  EXPECT_EQ(r.n, 32U);
  EXPECT_EQ(r.reason, "cv_target");
}

TEST(StoppingRule, NothingStopsBeforeBothMinimums) {
  const stopping_rule rule;
  const std::vector<double> nine(9, 1.0);
  EXPECT_FALSE(should_stop(rule, nine, 10.0).stop);
  const std::vector<double> twenty(20, 1.0);
  EXPECT_FALSE(should_stop(rule, twenty, 0.49).stop);
  EXPECT_EQ(should_stop(rule, twenty, 0.5).reason, "cv_target");
  EXPECT_FALSE(should_stop(rule, {}, 0.0).stop);
}

TEST(StoppingRule, OneSampleIsNotConvergence) {
  stopping_rule rule;
  rule.min_samples = 1;
  rule.min_seconds = 0.0;
  const std::vector<double> one{5.0};
  EXPECT_FALSE(should_stop(rule, one, 1.0).stop);
  const std::vector<double> two{5.0, 5.0};
  EXPECT_EQ(should_stop(rule, two, 1.0).reason, "cv_target");
}

TEST(StoppingRule, NoisyPlateauStallsInsteadOfRunningToTheCap) {
  // 5% noise can never reach a 1% CV; the CV settles near 0.05 and the rule must notice.
  const stopping_rule rule;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 engine(seed);
    std::normal_distribution<double> noise(100.0, 5.0);
    const run_outcome r = run(rule, [&](std::size_t) { return std::pair{noise(engine), tick}; });
    EXPECT_EQ(r.reason, "stalled");
    EXPECT_GE(r.n, 32U);  // not before the minimum time
    EXPECT_LE(r.n, 200U); // far from the 960 samples of the 15 s cap
  }
}

TEST(StoppingRule, FallingCvIsNotAStall) {
  // One +10% outlier first, then constant samples: cv_k = 10/sqrt(k) / (100 + 10/k), which
  // falls steadily and first reaches 1% at k = 100.
  const stopping_rule rule;
  const run_outcome r = run(rule, [](std::size_t i) {
    return std::pair{i == 0 ? 110.0 : 100.0, tick};
  });
  EXPECT_EQ(r.reason, "cv_target");
  EXPECT_EQ(r.n, 100U);
}

TEST(StoppingRule, SlowSamplesEndAtTheTimeCapBeforeTheMinimumCount) {
  const stopping_rule rule; // 15 s cap
  std::mt19937_64 engine(7);
  std::normal_distribution<double> noise(100.0, 5.0);
  const run_outcome r = run(rule, [&](std::size_t) { return std::pair{noise(engine), 5.0}; });
  EXPECT_EQ(r.reason, "time_cap");
  EXPECT_EQ(r.n, 3U);
}

TEST(StoppingRule, NoisyRunWithoutTheStallRuleEndsAtTheTimeCap) {
  stopping_rule rule;
  rule.stall_window = 0;
  std::mt19937_64 engine(3);
  std::normal_distribution<double> noise(100.0, 5.0);
  const run_outcome r = run(rule, [&](std::size_t) { return std::pair{noise(engine), tick}; });
  EXPECT_EQ(r.reason, "time_cap");
  EXPECT_EQ(r.n, 960U);
}

TEST(StoppingRule, SampleCapAppliesEvenBeforeTheMinimums) {
  stopping_rule rule;
  rule.max_samples = 5;
  const run_outcome r = run(rule, [](std::size_t) { return std::pair{1.0, 0.001}; });
  EXPECT_EQ(r.reason, "sample_cap");
  EXPECT_EQ(r.n, 5U);
}

TEST(StoppingRule, ConvergenceOnTheCapSampleIsReportedAsConvergence) {
  stopping_rule rule;
  rule.max_samples = 10;
  const std::vector<double> ten(10, 3.0);
  EXPECT_EQ(should_stop(rule, ten, 15.0).reason, "cv_target");
  // Not converged: the cap says so.
  const std::vector<double> noisy{1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
  EXPECT_EQ(should_stop(rule, noisy, 15.0).reason, "time_cap");
  EXPECT_EQ(should_stop(rule, noisy, 1.0).reason, "sample_cap");
}

TEST(StoppingRule, NonFiniteSamplesThrow) {
  const std::vector<double> bad{1.0, std::numeric_limits<double>::infinity()};
  EXPECT_THROW((void)should_stop(stopping_rule{}, bad, 1.0), std::invalid_argument);
}

} // namespace
} // namespace gpuspec::reports
