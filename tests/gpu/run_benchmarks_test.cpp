// Device test of the whole run: spine::run_session (the entry point `gpuspec run` drives) over
// memory.stream.* (fp32 and fp64) on CUDA device 0's GPU, through a worker process, with tiny
// arrays whose element counts leave a scalar tail and a short stopping rule. Every result must be
// ok, verified, with plausible statistics, a ceiling where NVML is present, and the report must
// write. Then an interruption during the first case.

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/kernels/stream_math.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "runner_support.hpp"

namespace r = gpuspec::reports;
namespace spine = gpuspec::spine;
namespace k = gpuspec::kernels;

namespace {

struct run_benchmarks_test : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    gpuspec::testing::take_runner_inventory(inv);
  }

  [[nodiscard]] spine::session_options options() const {
    auto o = gpuspec::testing::short_run_options(inv, "standard", "^memory\\.stream\\.", 5, 40,
                                                 2.0); // standard: fp32 and fp64
    o.measurement.stream_array_bytes =
        (std::int64_t{1} << 20) + 12; // 262147 floats (tail 3), 131073 doubles (tail 1)
    return o;
  }

  gpuspec::testing::runner_inventory inv;
};

} // namespace

TEST_F(run_benchmarks_test, stream_family_is_ok_verified_and_plausible) {
  gpuspec::testing::run_quietly(options(), inv);
  const r::report& report = inv.report;
  const int device = inv.device.value();
  EXPECT_EQ(report.run.backend, "cuda");
  EXPECT_EQ(report.run.devices, std::vector<int>{device});
  EXPECT_TRUE(report.complete) << report.incomplete_reason;
  ASSERT_EQ(report.results.size(), 2 * k::stream_ops.size()); // fp32 and fp64 of every row
  for (const auto& res : report.results) {
    SCOPED_TRACE(res.bench_id + " " + r::parameters_of(res).dump());
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    EXPECT_EQ(res.devices, std::vector<int>{device});
    EXPECT_EQ(res.metric, "bandwidth");
    EXPECT_EQ(r::to_string(res.unit), "GB/s");
    EXPECT_EQ(res.cache_state, "cold");
    EXPECT_GE(res.stats.n, 5);
    EXPECT_LE(res.stats.n, 40);
    EXPECT_EQ(res.samples.size(), static_cast<std::size_t>(res.stats.n));
    EXPECT_EQ(res.sample_seconds.size(), res.samples.size());
    for (double s : res.sample_seconds)
      EXPECT_GT(s, 0.0);
    EXPECT_GT(res.stats.median, 1.0);   // GB/s: any GPU moves more than 1 GB/s
    EXPECT_LT(res.stats.median, 1.0e5); // and less than 100 TB/s, even from L2
    EXPECT_GE(res.stats.max, res.stats.median);
    EXPECT_LE(res.stats.min, res.stats.median);
    EXPECT_FALSE(res.stop_reason.empty());
    ASSERT_TRUE(res.host_seconds_median.has_value());
    EXPECT_GT(*res.host_seconds_median, 0.0);
    EXPECT_EQ(res.gpus_busy, 1);
    ASSERT_TRUE(res.telemetry.window_start_s && res.telemetry.window_end_s);
    EXPECT_LE(*res.telemetry.window_start_s, *res.telemetry.window_end_s);
    EXPECT_GT(*res.telemetry.window_start_s, 0.0); // after the run started

    const bool fp32 = r::parameters_of(res).at("dtype") == "fp32";
    const std::uint64_t elements = fp32 ? 262147u : 131073u;
    EXPECT_EQ(r::parameters_of(res).at("elements").get<std::uint64_t>(), elements);
    EXPECT_EQ(r::parameters_of(res).at("below_4x_l2").get<bool>(), true);
    const int arrays = r::parameters_of(res).at("arrays").get<int>();
    const auto row = std::find_if(k::stream_ops.begin(), k::stream_ops.end(), [&](const auto& o) {
      return res.bench_id == "memory.stream." + std::string(o.name);
    });
    ASSERT_NE(row, k::stream_ops.end());
    EXPECT_EQ(arrays, row->arrays_moved());
    ASSERT_TRUE(res.bytes_per_iteration.has_value());
    EXPECT_DOUBLE_EQ(*res.bytes_per_iteration, static_cast<double>(arrays) *
                                                   static_cast<double>(elements) *
                                                   (fp32 ? 4.0 : 8.0));
    // The metric is the declared bytes over each sample's device seconds.
    EXPECT_NEAR(res.samples[0], *res.bytes_per_iteration / res.sample_seconds[0] / 1e9,
                1e-9 * res.samples[0]);
    if (res.telemetry.status == "ok") {
      ASSERT_TRUE(res.ceiling_value.clock_adjusted.has_value())
          << res.ceiling_value.clock_adjusted_source;
      ASSERT_TRUE(res.efficiency.has_value());
      EXPECT_GT(*res.efficiency, 0.0);
    }
  }
  // Both dtypes of every kernel, in registration order.
  EXPECT_EQ(report.results.front().bench_id,
            "memory.stream." + std::string(k::stream_ops.front().name));
  EXPECT_EQ(report.results.back().bench_id,
            "memory.stream." + std::string(k::stream_ops.back().name));
  EXPECT_NO_THROW((void)r::to_json(report));
}

TEST_F(run_benchmarks_test, an_interruption_keeps_what_was_done_and_starts_nothing_more) {
  // The flag goes up as soon as the first case has started: the worker is told (SIGTERM), stops
  // between samples and returns that case; no other case starts.
  struct interrupting final : spine::session_observer {
    explicit interrupting(std::atomic<bool>& f) : flag(f) {}
    void on_case_started(const spine::worker_job&, int, const spine::planned_case&) override {
      ++starts;
      flag.store(true);
    }
    void on_result(const spine::journal_entry&) override {}
    std::atomic<bool>& flag;
    int starts = 0;
  };
  std::atomic<bool> interrupted{false};
  interrupting observer(interrupted);
  auto o = options();
  // The first case is still running when the flag is seen.
  o.measurement.stopping.min_samples = 1000;
  o.measurement.stopping.max_samples = 1000;
  auto outcome = spine::run_session(o, gpuspec::benches::enrich_with_cuda, observer, interrupted);
  const r::report& report = outcome.report;
  EXPECT_FALSE(report.complete);
  EXPECT_EQ(report.incomplete_reason, "interrupted");
  ASSERT_EQ(report.results.size(), 1u); // the case that was running when the flag went up
  EXPECT_EQ(observer.starts, 1);
  EXPECT_EQ(report.results[0].status, r::result_status::skipped);
  EXPECT_NE(report.results[0].reason.find("interrupted"), std::string::npos)
      << report.results[0].reason;
  EXPECT_NO_THROW((void)r::to_json(report));
}
