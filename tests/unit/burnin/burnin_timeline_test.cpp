// The burn-in's schedule and time series (host/burnin_timeline.hpp).

#include <gtest/gtest.h>

#include "gpuspec/host/burnin_timeline.hpp"

namespace gpuspec::host {
namespace {

TEST(BurnInSchedule, AlternatesGemmAndMemoryPhasesUntilTheDuration) {
  const burnin_schedule s{300, 45, 15};
  EXPECT_EQ(phase_at(s, 0), burnin_phase::gemm);
  EXPECT_EQ(phase_at(s, 44.9), burnin_phase::gemm);
  EXPECT_EQ(phase_at(s, 45), burnin_phase::memtest);
  EXPECT_EQ(phase_at(s, 59.9), burnin_phase::memtest);
  EXPECT_EQ(phase_at(s, 60), burnin_phase::gemm);
  EXPECT_EQ(phase_at(s, 299.9), burnin_phase::memtest);
  EXPECT_EQ(phase_at(s, 300), burnin_phase::done);
  EXPECT_EQ(phase_at({10, 45, 0}, 9), burnin_phase::gemm) << "no memory phase";
  EXPECT_EQ(phase_at({10, 0, 15}, 9), burnin_phase::memtest) << "no GEMM phase";
}

TEST(BurnInTimeline, SummarisesWorkPerIntervalWithTheThroughputOfItsGemms) {
  burnin_timeline t(10.0, 60);
  // 1 TFLOP in 0.01 s per iteration: 100 TFLOP/s.
  for (int i = 0; i < 50; ++i)
    t.add_gemm(10.0 + 0.5 * i, 0.01, 1e12, i == 17);
  t.add_memtest(60.0, 1000, 0);
  t.add_memtest(80.0, 1000, 2);
  reports::telemetry_summary tel;
  tel.samples = 60;
  tel.temperature_c_max = 70;
  tel.power_w_max = 690;
  tel.throttle_reasons = {"sw_power_cap"};
  t.set_telemetry(20.0, tel);
  const auto in = t.intervals();
  ASSERT_EQ(in.size(), 2u);
  EXPECT_DOUBLE_EQ(in[0].start_s, 10);
  EXPECT_DOUBLE_EQ(in[0].end_s, 70);
  EXPECT_EQ(in[0].gemm_iterations, 50);
  EXPECT_DOUBLE_EQ(*in[0].throughput, 100);
  EXPECT_EQ(in[0].checksum_mismatches, 1);
  EXPECT_EQ(in[0].memtest_words, 1000);
  EXPECT_EQ(in[0].telemetry_samples, 60);
  EXPECT_EQ(*in[0].temperature_c_max, 70);
  EXPECT_FALSE(in[1].throughput) << "a memory-test interval has no GEMM throughput";
  EXPECT_EQ(in[1].memtest_bad_words, 2);
  EXPECT_EQ(t.window_of(75), std::make_pair(70.0, 130.0));
}

TEST(BurnInTimeline, PastTheCapPairsMergeAndTheIntervalDoubles) {
  burnin_timeline t(0.0, 60, 4);
  for (int minute = 0; minute < 9; ++minute) {
    t.add_gemm(60.0 * minute + 1, minute < 4 ? 0.01 : 0.02, 1e12, false);
    reports::telemetry_summary tel;
    tel.samples = 60;
    tel.temperature_c_max = 60 + minute;
    tel.power_w_mean = 600 + 10 * minute;
    t.set_telemetry(60.0 * minute + 1, tel);
  }
  const auto in = t.intervals();
  // 9 minutes in at most 4 intervals: 60 s -> 120 s -> 240 s.
  EXPECT_DOUBLE_EQ(t.interval_s(), 240);
  ASSERT_EQ(in.size(), 3u);
  EXPECT_DOUBLE_EQ(in[0].end_s, 240);
  EXPECT_EQ(in[0].gemm_iterations, 4);
  EXPECT_DOUBLE_EQ(*in[0].throughput, 100);
  EXPECT_DOUBLE_EQ(*in[1].throughput, 50);
  EXPECT_EQ(in[1].telemetry_samples, 240);
  EXPECT_DOUBLE_EQ(*in[1].temperature_c_max, 67);
  EXPECT_DOUBLE_EQ(*in[1].power_w_mean, 655);
  EXPECT_EQ(in[2].gemm_iterations, 1);
}

TEST(BurnInTimeline, KeepsAtMostTheCapOfEventSamples) {
  burnin_timeline t(0.0);
  std::vector<reports::burnin_sample> s(reports::burnin_max_event_samples + 10);
  t.add_event_samples(s);
  t.add_event_samples(s);
  EXPECT_EQ(t.event_samples().size(), reports::burnin_max_event_samples);
}

TEST(BurnInTimeline, HexWordsAreSixteenDigits) {
  EXPECT_EQ(hex_word(0), "0x0000000000000000");
  EXPECT_EQ(hex_word(0x0123456789abcdefull), "0x0123456789abcdef");
}

} // namespace
} // namespace gpuspec::host
