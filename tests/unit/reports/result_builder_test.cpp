// The one fraction (fraction.hpp) and the one result builder's arithmetic (result_builder.hpp):
// what every harness path derives a result's figure, statistics, reference, efficiency and status
// with.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuspec/reports/model/fraction.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/result_builder.hpp"

namespace gpuspec::reports {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// ------------------------------------------------------------------------------- fraction_of

TEST(FractionOf, HigherIsBetterIsAchievedOverBound) {
  ASSERT_TRUE(fraction_of(3000, 4000.0).has_value());
  EXPECT_DOUBLE_EQ(*fraction_of(3000, 4000.0), 0.75);
  EXPECT_DOUBLE_EQ(*fraction_of(5000, 4000.0, true), 1.25); // above the bound stays above 1
}

TEST(FractionOf, LowerIsBetterIsBoundOverAchieved) {
  // A latency of 800 ns against a floor of 600 ns: 75% of the best it could be.
  ASSERT_TRUE(fraction_of(800, 600.0, false).has_value());
  EXPECT_DOUBLE_EQ(*fraction_of(800, 600.0, false), 0.75);
}

TEST(FractionOf, NoBoundNoFraction) {
  EXPECT_FALSE(fraction_of(3000, std::nullopt));
  EXPECT_FALSE(fraction_of(3000, 0.0));
  EXPECT_FALSE(fraction_of(3000, -4000.0));
  EXPECT_FALSE(fraction_of(3000, nan));
  EXPECT_FALSE(fraction_of(3000, inf));
  EXPECT_FALSE(fraction_of(800, 0.0, false));
}

TEST(FractionOf, NothingAchievedIsNoneOfTheBound) {
  ASSERT_TRUE(fraction_of(0, 4000.0).has_value());
  EXPECT_DOUBLE_EQ(*fraction_of(0, 4000.0), 0.0);
}

TEST(FractionOf, AnImpossibleFigureHasNoFraction) {
  EXPECT_FALSE(fraction_of(-1, 4000.0));
  EXPECT_FALSE(fraction_of(nan, 4000.0));
  EXPECT_FALSE(fraction_of(inf, 4000.0));
  EXPECT_FALSE(fraction_of(0, 600.0, false)); // lower is better: no division by zero
}

// ------------------------------------------------------------------------ metric_of / value

TEST(MetricOf, TheFirstDeclaredWorkDecides) {
  work_per_iteration items;
  items.items = 256.0;
  items.bytes = 1e9;
  EXPECT_EQ(metric_of(items).metric, "latency");
  EXPECT_EQ(metric_of(items).unit, metric_unit::nanoseconds);
  EXPECT_FALSE(metric_of(items).higher_is_better);
  EXPECT_DOUBLE_EQ(metric_value(items, 256e-9), 1.0); // 1 ns per item

  work_per_iteration bytes;
  bytes.bytes = 3e9;
  bytes.ops = 1e12;
  EXPECT_EQ(metric_of(bytes).metric, "bandwidth");
  EXPECT_EQ(metric_of(bytes).unit, metric_unit::gigabytes_per_second);
  EXPECT_TRUE(metric_of(bytes).higher_is_better);
  EXPECT_DOUBLE_EQ(metric_value(bytes, 1e-3), 3000.0);

  work_per_iteration flops;
  flops.ops = 2e12;
  EXPECT_EQ(metric_of(flops).metric, "throughput");
  EXPECT_EQ(metric_of(flops).unit, metric_unit::teraflop_per_second);
  EXPECT_DOUBLE_EQ(metric_value(flops, 0.5), 4.0);

  work_per_iteration integer = flops;
  integer.integer_ops = true;
  EXPECT_EQ(metric_of(integer).unit, metric_unit::teraops_per_second);
}

TEST(MetricOf, NothingDeclaredOrNoOperationsIsTime) {
  work_per_iteration no_ops;
  no_ops.ops = 0.0;
  for (const work_per_iteration& w : {work_per_iteration{}, no_ops}) {
    EXPECT_EQ(metric_of(w).metric, "time");
    EXPECT_EQ(metric_of(w).unit, metric_unit::seconds);
    EXPECT_FALSE(metric_of(w).higher_is_better);
    EXPECT_DOUBLE_EQ(metric_value(w, 0.25), 0.25);
  }
}

// ------------------------------------------------------------------------ settle_measurement

result bandwidth_result(std::vector<double> samples) {
  result r;
  r.metric = "bandwidth";
  r.unit = metric_unit::gigabytes_per_second;
  r.samples = std::move(samples);
  r.sample_seconds.assign(r.samples.size(), 1e-3);
  return r;
}

TEST(SettleMeasurement, DatasheetReferenceForDeviceMemory) {
  // A device-memory figure is judged against the datasheet, the clock-adjusted ceiling apart.
  result r = bandwidth_result({2900, 3000, 3100});
  r.ceiling_value.spec_figure = "memory_bandwidth_gbs";
  r.ceiling_value.datasheet = 4000.0;
  r.ceiling_value.clock_adjusted = 3750.0;
  settle_measurement(r, std::vector<double>{2e-3, 1e-3, 3e-3});
  EXPECT_EQ(r.ceiling_value.reference, reference_kind::datasheet);
  EXPECT_EQ(r.stats.n, 3);
  EXPECT_DOUBLE_EQ(r.stats.median, 3000);
  ASSERT_TRUE(r.efficiency && r.efficiency_clock_adjusted && r.host_seconds_median);
  EXPECT_DOUBLE_EQ(*r.efficiency, 0.75);
  EXPECT_DOUBLE_EQ(*r.efficiency_clock_adjusted, 0.8);
  EXPECT_DOUBLE_EQ(*r.host_seconds_median, 2e-3);
}

TEST(SettleMeasurement, DatasheetFallbackWithoutAClockAdjustedCeiling) {
  // An instruction-level peak is judged at the clock seen; without one the datasheet judges.
  result r = bandwidth_result({10});
  r.ceiling_value.spec_figure = "peaks.fp32";
  r.ceiling_value.datasheet = 20.0;
  settle_measurement(r);
  EXPECT_EQ(r.ceiling_value.reference, reference_kind::datasheet);
  ASSERT_TRUE(r.efficiency);
  EXPECT_DOUBLE_EQ(*r.efficiency, 0.5);
  EXPECT_FALSE(r.efficiency_clock_adjusted);
  EXPECT_FALSE(r.host_seconds_median);
}

TEST(SettleMeasurement, NoSamplesNoEfficiency) {
  result r = bandwidth_result({});
  r.ceiling_value.clock_adjusted = 3750.0;
  settle_measurement(r);
  EXPECT_EQ(r.ceiling_value.reference, reference_kind::clock_adjusted);
  EXPECT_EQ(r.stats.n, 0);
  EXPECT_FALSE(r.efficiency);
  EXPECT_FALSE(r.efficiency_clock_adjusted);
}

TEST(SettleMeasurement, NoCeilingNoReference) {
  result r = bandwidth_result({1, 2, 3});
  settle_measurement(r);
  EXPECT_EQ(r.ceiling_value.reference, reference_kind::none);
  EXPECT_FALSE(r.efficiency);
}

// ------------------------------------------------------------------------------ settle_status

run_ending ended_by(result_status status, std::string reason) {
  run_ending e;
  e.disposition = status;
  e.disposition_reason = std::move(reason);
  return e;
}

TEST(SettleStatus, MeasuredAndUncheckedIsOk) {
  result r = bandwidth_result({1});
  r.reason = "stale";
  settle_status(r, {});
  EXPECT_EQ(r.status, result_status::ok);
  EXPECT_TRUE(r.reason.empty());
  EXPECT_EQ(r.check.detail, "the benchmark has no check");
  EXPECT_EQ(r.failure, failure_kind::none);
}

TEST(SettleStatus, DispositionWinsWithItsReason) {
  result r = bandwidth_result({1});
  settle_status(r, ended_by(result_status::not_supported, "no fp64"));
  EXPECT_EQ(r.status, result_status::not_supported);
  EXPECT_EQ(r.reason, "no fp64");
  result q = bandwidth_result({});
  settle_status(q, ended_by(result_status::skipped, ""));
  EXPECT_EQ(q.reason, "no reason given");
  EXPECT_EQ(q.failure, failure_kind::none);
}

TEST(SettleStatus, InterruptedIsSkippedAndUnjudged) {
  result r = bandwidth_result({1, 2});
  r.check.status = verification_status::failed; // the poison, never overwritten
  run_ending interrupted;
  interrupted.interrupted = true;
  settle_status(r, interrupted);
  EXPECT_EQ(r.status, result_status::skipped);
  EXPECT_EQ(r.reason, "interrupted after 2 sample(s)");
  EXPECT_EQ(r.check.status, verification_status::skipped);
  EXPECT_EQ(r.check.detail, "not checked: the measurement was interrupted");
}

TEST(SettleStatus, NothingMeasuredFails) {
  result never = bandwidth_result({});
  run_ending unmeasured;
  unmeasured.measured = false;
  settle_status(never, unmeasured);
  EXPECT_EQ(never.status, result_status::failed);
  EXPECT_EQ(never.reason, "the benchmark returned without measuring (it never called exec)");
  EXPECT_EQ(never.failure, failure_kind::benchmark);
  result empty = bandwidth_result({});
  settle_status(empty, {});
  EXPECT_EQ(empty.status, result_status::failed);
  EXPECT_EQ(empty.reason, "no sample was taken");
}

TEST(SettleStatus, AWrongAnswerIsAVerificationFailureWhateverEndedIt) {
  result r = bandwidth_result({1});
  r.check.status = verification_status::failed;
  r.check.detail = "3 wrong";
  settle_status(r, {});
  EXPECT_EQ(r.status, result_status::failed);
  EXPECT_EQ(r.reason, "verification failed: 3 wrong");
  EXPECT_EQ(r.failure, failure_kind::verification);
  result thrown = bandwidth_result({1});
  thrown.check.status = verification_status::failed;
  settle_status(thrown, ended_by(result_status::failed, "threw"));
  EXPECT_EQ(thrown.reason, "threw");
  EXPECT_EQ(thrown.failure, failure_kind::verification);
}

} // namespace
} // namespace gpuspec::reports
