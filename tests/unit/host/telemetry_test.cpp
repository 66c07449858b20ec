// Throttle-reason names, the window summary, the NVML source (on the fake) and the sampler
// thread with a scripted source. Bounded in time: the sampler tests wait on conditions, with
// short sleeps well under 100 ms in total on a healthy machine.

#include "gpuspec/host/telemetry.hpp"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "gpuspec/host/nvml_library.hpp"

namespace gb = gpuspec::host;
using namespace std::chrono_literals;
using gb::telemetry_clock;
using gb::telemetry_sample;

namespace {

telemetry_sample sample(telemetry_clock::time_point at, int device, std::optional<double> sm,
                        std::optional<double> mem = std::nullopt,
                        std::optional<double> temperature = std::nullopt,
                        std::optional<double> power = std::nullopt,
                        std::optional<std::uint64_t> mask = std::nullopt) {
  telemetry_sample s;
  s.at = at;
  s.device = device;
  s.sm_clock_mhz = sm;
  s.mem_clock_mhz = mem;
  s.temperature_c = temperature;
  s.power_w = power;
  s.throttle_mask = mask;
  return s;
}

/// Counts reads and answers a rising SM clock; can be told to throw.
class scripted_source final : public gb::telemetry_source {
public:
  explicit scripted_source(std::atomic<int>& reads, bool throws = false)
      : m_reads(reads), m_throws(throws) {}
  telemetry_sample read(int device) override {
    const int n = ++m_reads;
    if (m_throws)
      throw std::runtime_error("sensor fell over");
    return sample(telemetry_clock::now(), device, 1000.0 + n, 2619, 50, 300, 0x4);
  }

private:
  std::atomic<int>& m_reads;
  bool m_throws;
};

/// Waits (bounded) until `done()` holds.
template <class Pred> bool wait_until(Pred done, std::chrono::milliseconds limit = 2000ms) {
  const auto deadline = telemetry_clock::now() + limit;
  while (!done()) {
    if (telemetry_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

} // namespace

TEST(ThrottleReasons, NamesAndLimiting) {
  EXPECT_TRUE(gb::throttle_reason_names(0).empty());
  EXPECT_EQ(gb::throttle_reason_names(0x1), std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(gb::throttle_reason_names(0x2), std::vector<std::string>{"applications_clocks"});
  EXPECT_EQ(gb::throttle_reason_names(0x1FF),
            (std::vector<std::string>{"gpu_idle", "applications_clocks", "sw_power_cap",
                                      "hw_slowdown", "sync_boost", "sw_thermal", "hw_thermal",
                                      "hw_power_brake", "display_clocks"}));
  EXPECT_EQ(gb::throttle_reason_names(0x60),
            (std::vector<std::string>{"sw_thermal", "hw_thermal"}));
  EXPECT_EQ(gb::throttle_reason_names(0x200), std::vector<std::string>{"unknown_bit_9"});

  EXPECT_FALSE(gb::is_performance_limiting(0));
  EXPECT_FALSE(gb::is_performance_limiting(0x1)) << "idle is not throttling";
  EXPECT_FALSE(gb::is_performance_limiting(0x2)) << "application clocks are a setting";
  EXPECT_FALSE(gb::is_performance_limiting(0x3));
  EXPECT_FALSE(gb::is_performance_limiting(0x200)) << "unknown bits are named, not judged";
  for (const std::uint64_t bit : {0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100})
    EXPECT_TRUE(gb::is_performance_limiting(bit)) << bit;
  EXPECT_TRUE(gb::is_performance_limiting(0x1 | 0x40));
}

TEST(SummarizeTelemetry, Series) {
  const auto t0 = telemetry_clock::now();
  const std::vector<telemetry_sample> s = {
      sample(t0 - 10ms, 0, 100, 100, 99, 999, 0x40), // before the window
      sample(t0 + 0ms, 0, 1980, 2619, 60, 500, 0x0),
      sample(t0 + 20ms, 0, 1400, 2619, 64, 650, 0x4), // under 75% of 1980 (1485)
      sample(t0 + 20ms, 1, 10, 10, 120, 10, 0x40),    // another device
      sample(t0 + 40ms, 0, 1900, 2600, 66, 700, 0x1),
      sample(t0 + 60ms, 0, 1950, 2619, 65, 690, 0x0),
      sample(t0 + 90ms, 0, 1, 1, 1, 1, 0x8), // after the window
  };
  const auto r = gb::summarize_telemetry(s, 0, t0, t0 + 60ms, 1980.0, 20.0);
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.samples, 4);
  EXPECT_EQ(r.period_ms, 20.0);
  EXPECT_EQ(r.sm_clock_mhz_min, 1400.0);
  EXPECT_EQ(r.sm_clock_mhz_median, (1900.0 + 1950.0) / 2);
  EXPECT_EQ(r.sm_clock_mhz_max, 1980.0);
  EXPECT_EQ(r.mem_clock_mhz_min, 2600.0);
  EXPECT_EQ(r.mem_clock_mhz_median, 2619.0);
  EXPECT_EQ(r.temperature_c_max, 66.0);
  EXPECT_DOUBLE_EQ(*r.power_w_mean, (500.0 + 650 + 700 + 690) / 4);
  EXPECT_EQ(r.power_w_max, 700.0);
  EXPECT_DOUBLE_EQ(*r.low_clock_fraction, 0.25);
  EXPECT_EQ(r.throttle_reasons, (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_TRUE(r.throttled);
}

TEST(SummarizeTelemetry, OddCountMedianIdleOnlyAndNoMaximum) {
  const auto t0 = telemetry_clock::now();
  const std::vector<telemetry_sample> s = {
      sample(t0, 0, 300, std::nullopt, std::nullopt, std::nullopt, 0x1),
      sample(t0 + 1ms, 0, 100),
      sample(t0 + 2ms, 0, 200),
  };
  const auto r = gb::summarize_telemetry(s, 0, t0, t0 + 2ms, std::nullopt, 20.0);
  EXPECT_EQ(r.samples, 3);
  EXPECT_EQ(r.sm_clock_mhz_median, 200.0);
  EXPECT_FALSE(r.low_clock_fraction) << "no maximum, no fraction";
  EXPECT_FALSE(r.mem_clock_mhz_min);
  EXPECT_FALSE(r.temperature_c_max);
  EXPECT_FALSE(r.power_w_mean);
  EXPECT_EQ(r.throttle_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_FALSE(r.throttled);
}

TEST(SummarizeTelemetry, NoSamples) {
  const auto t0 = telemetry_clock::now();
  const auto r = gb::summarize_telemetry({}, 0, t0, t0 + 1s, 1980.0, 20.0);
  EXPECT_EQ(r.samples, 0);
  EXPECT_EQ(r.status, "no telemetry samples in the window");
  EXPECT_FALSE(r.sm_clock_mhz_median);
  EXPECT_FALSE(r.throttled);
}

TEST(SummarizeTelemetry, ImpossibleValuesKeptNonFiniteDropped) {
  const auto t0 = telemetry_clock::now();
  const std::vector<telemetry_sample> s = {
      sample(t0, 0, 1500, 2619, 255, 0),
      sample(t0 + 1ms, 0, std::numeric_limits<double>::quiet_NaN(), std::nullopt,
             std::numeric_limits<double>::infinity(), 0),
      sample(t0 + 2ms, 0, std::nullopt),
  };
  const auto r = gb::summarize_telemetry(s, 0, t0, t0 + 2ms, 1980.0, 20.0);
  EXPECT_EQ(r.samples, 3);
  EXPECT_EQ(r.temperature_c_max, 255.0) << "kept as read; the check layer judges it";
  EXPECT_EQ(r.power_w_max, 0.0);
  EXPECT_EQ(r.power_w_mean, 0.0);
  EXPECT_EQ(r.sm_clock_mhz_median, 1500.0);
  EXPECT_EQ(r.low_clock_fraction, 0.0);
}

TEST(SummarizeTelemetry, SamplesWithoutReadings) {
  const auto t0 = telemetry_clock::now();
  const std::vector<telemetry_sample> s = {sample(t0, 0, std::nullopt)};
  const auto r = gb::summarize_telemetry(s, 0, t0, t0, 1980.0, 20.0);
  EXPECT_EQ(r.samples, 1);
  EXPECT_NE(r.status, "ok");
}

TEST(TelemetrySampler, SamplesOnItsThreadAndSummarises) {
  std::atomic<int> reads{0};
  const auto begin = telemetry_clock::now();
  gb::telemetry_sampler sampler(std::make_unique<scripted_source>(reads), {0, 1}, 2ms);
  EXPECT_EQ(sampler.period(), 2ms);
  ASSERT_TRUE(wait_until([&] { return reads.load() >= 10; }));
  const auto end = telemetry_clock::now();
  const auto r = sampler.summary(0, begin, end, 1980.0);
  EXPECT_GE(r.samples, 4);
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.period_ms, 2.0);
  EXPECT_EQ(r.mem_clock_mhz_median, 2619.0);
  EXPECT_EQ(r.temperature_c_max, 50.0);
  EXPECT_EQ(r.power_w_mean, 300.0);
  EXPECT_EQ(r.low_clock_fraction, 1.0); // ~1000 MHz of 1980
  EXPECT_TRUE(r.throttled);
  EXPECT_EQ(r.throttle_reasons, std::vector<std::string>{"sw_power_cap"});
  EXPECT_GE(sampler.summary(1, begin, end, std::nullopt).samples, 4);
}

TEST(TelemetrySampler, IsBoundedInMemoryAndKeepsTheLatestSamples) {
  std::atomic<int> reads{0};
  const auto begin = telemetry_clock::now();
  gb::telemetry_sampler sampler(std::make_unique<scripted_source>(reads), {0}, 1ms, 16);
  ASSERT_TRUE(wait_until([&] { return reads.load() >= 100; }));
  EXPECT_LE(sampler.held(), 16U);
  // A window from the start is summarised over what is kept: the latest samples, whose SM
  // clock (1000 + the read's number) is past the first reads'.
  const auto r = sampler.summary(0, begin, telemetry_clock::now(), std::nullopt);
  EXPECT_LE(r.samples, 16);
  EXPECT_GE(r.samples, 1);
  ASSERT_TRUE(r.sm_clock_mhz_min.has_value());
  EXPECT_GT(*r.sm_clock_mhz_min, 1000.0 + 100 - 17);
}

TEST(TelemetrySampler, ShortWindowIsNotEmpty) {
  std::atomic<int> reads{0};
  gb::telemetry_sampler sampler(std::make_unique<scripted_source>(reads), {0}, 10s);
  ASSERT_TRUE(wait_until([&] { return reads.load() >= 1; }));
  // A window far shorter than the period, with no background sample inside it.
  const auto begin = telemetry_clock::now();
  const auto end = begin + 1us;
  const auto r = sampler.summary(0, begin, end, std::nullopt);
  EXPECT_EQ(r.samples, 1) << r.status;
  EXPECT_EQ(r.status, "ok");
}

TEST(TelemetrySampler, StopsAtOnceWithALongPeriod) {
  std::atomic<int> reads{0};
  const auto start = telemetry_clock::now();
  {
    gb::telemetry_sampler sampler(std::make_unique<scripted_source>(reads), {0}, 60s);
    ASSERT_TRUE(wait_until([&] { return reads.load() >= 1; }));
  }
  EXPECT_LT(telemetry_clock::now() - start, 1s) << "the destructor must not wait out the period";
  EXPECT_EQ(reads.load(), 1);
}

TEST(TelemetrySampler, ThrowingSourceDoesNotKillTheProcess) {
  std::atomic<int> reads{0};
  gb::telemetry_sampler sampler(std::make_unique<scripted_source>(reads, true), {0}, 1ms);
  ASSERT_TRUE(wait_until([&] { return reads.load() >= 3; }));
  const auto now = telemetry_clock::now();
  const auto r = sampler.summary(0, now - 1s, now + 1s, 1980.0);
  EXPECT_GE(r.samples, 3);
  EXPECT_FALSE(r.sm_clock_mhz_median);
}

TEST(TelemetrySampler, NoDevices) {
  std::atomic<int> reads{0};
  gb::telemetry_sampler sampler(std::make_unique<scripted_source>(reads), {}, 1ms);
  std::this_thread::sleep_for(5ms);
  EXPECT_EQ(reads.load(), 0);
  const auto now = telemetry_clock::now();
  EXPECT_EQ(sampler.summary(0, now - 1s, now + 1s, std::nullopt).samples, 1) << "the fresh sample";
}

TEST(NvmlTelemetrySource, ReadsTheFake) {
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG",
           (std::filesystem::path(GPUSPEC_FAKE_NVML_CONFIGS) / "degraded.json").c_str(), 1);
  std::string why;
  auto lib = gb::nvml_library::open(why, GPUSPEC_FAKE_NVML_PATH);
  ASSERT_TRUE(lib) << why;
  auto source = gb::make_nvml_telemetry_source(*lib);
  const auto before = telemetry_clock::now();
  const telemetry_sample s = source->read(0);
  EXPECT_GE(s.at, before);
  EXPECT_EQ(s.device, 0);
  EXPECT_EQ(s.sm_clock_mhz, 1755.0);
  EXPECT_EQ(s.mem_clock_mhz, 1593.0);
  EXPECT_EQ(s.temperature_c, 86.0);
  EXPECT_EQ(s.power_w, 98.0);
  EXPECT_EQ(s.throttle_mask, 0x60u);
  EXPECT_EQ(s.pcie_gen, 5);   // the link as trained while it was read
  EXPECT_EQ(s.pcie_width, 8); // the degraded card's x8

  const telemetry_sample missing = source->read(5); // no such device: an empty sample
  EXPECT_EQ(missing.device, 5);
  EXPECT_FALSE(missing.sm_clock_mhz);
  EXPECT_FALSE(missing.throttle_mask);

  {
    gb::telemetry_sampler sampler(gb::make_nvml_telemetry_source(*lib), {0}, 1ms);
    const auto now = telemetry_clock::now();
    const auto r = sampler.summary(0, now - 1s, now + 1s, 1755.0);
    EXPECT_GE(r.samples, 1);
    EXPECT_EQ(r.throttle_reasons, (std::vector<std::string>{"sw_thermal", "hw_thermal"}));
    EXPECT_TRUE(r.throttled);
    EXPECT_EQ(r.low_clock_fraction, 0.0);
  }
}

// --- the PCIe link under load (transfer ceilings; telemetry.pcie_gen_min / pcie_width_min) ---

namespace {

telemetry_sample link_sample(telemetry_clock::time_point at, int device,
                             std::optional<std::uint8_t> gen, std::optional<std::uint8_t> width) {
  telemetry_sample s = sample(at, device, 1980.0);
  s.pcie_gen = gen;
  s.pcie_width = width;
  return s;
}

} // namespace

TEST(SummarizePcieLink, LowestAndHighestInTheWindow) {
  const auto t0 = telemetry_clock::now();
  const std::vector<telemetry_sample> s = {
      link_sample(t0 - 10ms, 0, 1, 16), // idle before the window: not counted
      link_sample(t0, 0, 5, 16),
      link_sample(t0 + 20ms, 0, 4, 8),
      link_sample(t0 + 20ms, 1, 1, 1), // another device
      link_sample(t0 + 40ms, 0, std::nullopt, 16),
      link_sample(t0 + 60ms, 0, 5, 16),
  };
  const gb::pcie_link_seen seen = gb::summarize_pcie_link(s, 0, t0, t0 + 60ms);
  EXPECT_EQ(seen.samples, 3); // the one without a generation read only its width
  EXPECT_EQ(seen.gen_min, 4);
  EXPECT_EQ(seen.gen_max, 5);
  EXPECT_EQ(seen.width_min, 8);
  EXPECT_EQ(seen.width_max, 16);

  const auto r = gb::summarize_telemetry(s, 0, t0, t0 + 60ms, 1980.0, 20.0);
  EXPECT_EQ(r.pcie_gen_min, 4);
  EXPECT_EQ(r.pcie_width_min, 8);

  EXPECT_EQ(gb::summarize_pcie_link(s, 2, t0, t0 + 60ms), gb::pcie_link_seen{});
  const auto none = gb::summarize_telemetry({}, 0, t0, t0, 1980.0, 20.0);
  EXPECT_FALSE(none.pcie_gen_min);
  EXPECT_FALSE(none.pcie_width_min);
}

TEST(SummarizePcieLink, ASampleWithOnlyALinkReadingIsAReading) {
  const auto t0 = telemetry_clock::now();
  telemetry_sample s;
  s.at = t0;
  s.pcie_gen = 3;
  s.pcie_width = 16;
  const std::vector<telemetry_sample> v{s};
  const auto r = gb::summarize_telemetry(v, 0, t0, t0, std::nullopt, 20.0);
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.pcie_gen_min, 3);
}

TEST(TelemetrySampler, PcieLinkOfAShortWindowTakesTheNearestReading) {
  struct link_source final : gb::telemetry_source {
    telemetry_sample read(int device) override {
      return link_sample(telemetry_clock::now(), device, 5, 16);
    }
  };
  gb::telemetry_sampler sampler(std::make_unique<link_source>(), {0}, 200ms);
  const auto begin = telemetry_clock::now();
  ASSERT_TRUE(wait_until([&] { return sampler.held() >= 1; }));
  const auto end = telemetry_clock::now();
  const auto seen = sampler.pcie_link(0, begin - 1s, end);
  EXPECT_GE(seen.samples, 1);
  EXPECT_EQ(seen.gen_max, 5);
  EXPECT_EQ(seen.width_max, 16);
  // A window after the last sample, within one period of it: the nearest reading.
  const auto later = sampler.pcie_link(0, end + 1ms, end + 2ms);
  EXPECT_EQ(later.samples, 1);
  EXPECT_EQ(later.gen_max, 5);
  // Far from any sample: nothing.
  EXPECT_EQ(sampler.pcie_link(0, end + 10s, end + 11s).samples, 0);
  EXPECT_EQ(sampler.pcie_link(1, begin - 1s, end).samples, 0); // a device it does not sample
}

TEST(NvmlTelemetrySource, ReadsThePcieLinkOfTheFake) {
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG",
           (std::filesystem::path(GPUSPEC_FAKE_NVML_CONFIGS) / "degraded.json").c_str(), 1);
  std::string why;
  auto lib = gb::nvml_library::open(why, GPUSPEC_FAKE_NVML_PATH);
  ASSERT_TRUE(lib) << why;
  const telemetry_sample s = gb::make_nvml_telemetry_source(*lib)->read(0);
  EXPECT_EQ(s.pcie_gen, 5); // degraded.json: a Gen5 link trained at x8
  EXPECT_EQ(s.pcie_width, 8);
}

#if defined(__x86_64__)
TEST(TelemetrySample, StaysNinetySixBytes) {
  // docs/architecture.md: the sampler's 65,536 samples take 6 MiB.
  EXPECT_EQ(sizeof(telemetry_sample), 96u);
}
#endif

// A node-wide case (a collective over every GPU) is judged by its worst GPU: one hot, slow or
// power-capped GPU must not be averaged away by seven healthy ones.
TEST(MergeGpuSummaries, TakesTheWorstGpuForEachFigure) {
  gpuspec::reports::telemetry_summary cool, hot;
  cool.samples = 10;
  cool.period_ms = 20;
  cool.sm_clock_mhz_min = 1900;
  cool.sm_clock_mhz_median = 1980;
  cool.mem_clock_mhz_median = 2619;
  cool.temperature_c_max = 55;
  cool.power_w_mean = 500;
  cool.power_w_max = 600;
  cool.low_clock_fraction = 0.0;
  cool.window_start_s = 1.0;
  cool.window_end_s = 2.0;
  cool.pcie_gen_min = 5;
  cool.pcie_width_min = 16;
  hot = cool;
  hot.sm_clock_mhz_min = 1100;
  hot.sm_clock_mhz_median = 1300;
  hot.temperature_c_max = 91;
  hot.power_w_mean = 300;
  hot.low_clock_fraction = 0.4;
  hot.throttle_reasons = {"hw_thermal"};
  hot.throttled = true;
  hot.window_end_s = 2.5;
  hot.pcie_width_min = 8;
  const auto merged = gpuspec::host::merge_gpu_summaries({{0, cool}, {3, hot}});
  EXPECT_EQ(merged.samples, 20);
  EXPECT_EQ(merged.sm_clock_mhz_min, 1100);
  EXPECT_EQ(merged.sm_clock_mhz_median, 1300);
  EXPECT_EQ(merged.temperature_c_max, 91);
  EXPECT_EQ(merged.power_w_mean, 400);
  EXPECT_EQ(merged.power_w_max, 600);
  EXPECT_EQ(merged.low_clock_fraction, 0.4);
  EXPECT_EQ(merged.throttle_reasons, std::vector<std::string>{"hw_thermal"});
  EXPECT_TRUE(merged.throttled);
  EXPECT_EQ(merged.window_start_s, 1.0);
  EXPECT_EQ(merged.window_end_s, 2.5);
  EXPECT_EQ(merged.pcie_gen_min, 5);
  EXPECT_EQ(merged.pcie_width_min, 8);
  EXPECT_EQ(merged.status, "ok");
}

TEST(MergeGpuSummaries, NamesEveryGpuWithoutTelemetry) {
  gpuspec::reports::telemetry_summary ok, missing;
  ok.temperature_c_max = 40;
  missing.status = "no sample in the window";
  const auto merged = gpuspec::host::merge_gpu_summaries({{0, ok}, {5, missing}, {6, missing}});
  EXPECT_EQ(merged.status, "GPU 5: no sample in the window; GPU 6: no sample in the window");
  EXPECT_EQ(merged.temperature_c_max, 40);
  EXPECT_EQ(gpuspec::host::merge_gpu_summaries({}).status, "no telemetry: no GPU");
}
