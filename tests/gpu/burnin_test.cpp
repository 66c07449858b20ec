// Device test of the burn-in through the session, as `gpuspec run --suite burnin --duration 20s`
// runs it (runner_support.hpp), on CUDA device 0's GPU: the GEMM runs for the duration with
// every checksum equal to the first, the memory test checks words and finds none bad, the time
// series has its intervals, and the check of the report finds no burn-in failure. Also
// memory.test on its own. No figure is asserted beyond "more than nothing".

#include <string>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "runner_support.hpp"

namespace r = gpuspec::reports;

namespace {

struct burnin_test : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    gpuspec::testing::take_runner_inventory(inv);
  }
  gpuspec::testing::runner_inventory inv;
};

TEST_F(burnin_test, a_twenty_second_burn_in_keeps_every_checksum_and_word) {
  auto o = gpuspec::testing::short_run_options(inv, "burnin", "^burnin\\.gemm$", 3, 10, 2.0);
  o.measurement.duration_s = 20;
  gpuspec::testing::run_quietly(o, inv);
  ASSERT_EQ(inv.report.results.size(), 1u);
  const r::result& res = inv.report.results.front();
  if (res.status == r::result_status::not_supported)
    GTEST_SKIP() << res.reason;
  ASSERT_TRUE(res.burnin) << res.reason;
  const auto& b = *res.burnin;
  EXPECT_EQ(res.status, r::result_status::ok) << res.reason << " / " << res.check.detail;
  EXPECT_GE(b.elapsed_s, 20.0);
  ASSERT_TRUE(b.gemm);
  EXPECT_GT(b.gemm->iterations, 10);
  EXPECT_EQ(b.gemm->checksum_mismatches, 0) << b.gemm->algorithm;
  EXPECT_EQ(b.gemm->reduction, "none");
  EXPECT_FALSE(b.gemm->reference_checksum.empty());
  // 20 s of one 45 s GEMM phase: no memory phase yet; the intervals are minutes.
  EXPECT_EQ(b.intervals.size(), 1u);
  EXPECT_GT(b.intervals.front().gemm_iterations, 0);
  EXPECT_GT(b.busy_s, 10.0);
  // D checked once against the host reference, within its tolerance.
  EXPECT_NE(res.check.detail.find("Dot2 host reference"), std::string::npos) << res.check.detail;
  ASSERT_TRUE(res.check.max_rel_error && res.check.tolerance) << res.check.detail;
  EXPECT_LE(*res.check.max_rel_error, *res.check.tolerance);
  // The throughput is the GEMMs' own time: the device time of the batches (busy_s, checksum
  // kernels included) is more than the GEMMs' (iterations x flops / throughput).
  ASSERT_TRUE(b.intervals.front().throughput);
  const double gemm_s = 2.0 * 8192.0 * 8192.0 * 8192.0 *
                        static_cast<double>(b.intervals.front().gemm_iterations) /
                        (*b.intervals.front().throughput * 1e12);
  EXPECT_LT(gemm_s, b.busy_s) << "the checksum kernels are not in the GEMMs' time";
}

TEST_F(burnin_test, memory_test_checks_most_of_the_free_memory_and_finds_no_bad_word) {
  auto o = gpuspec::testing::short_run_options(inv, "burnin", "^memory\\.test$", 3, 10, 2.0);
  o.measurement.duration_s = 10;
  gpuspec::testing::run_quietly(o, inv);
  ASSERT_EQ(inv.report.results.size(), 1u);
  const r::result& res = inv.report.results.front();
  ASSERT_TRUE(res.burnin) << res.reason;
  ASSERT_TRUE(res.burnin->memtest);
  const auto& m = *res.burnin->memtest;
  EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
  EXPECT_EQ(m.passes, 5);
  EXPECT_EQ(m.bad_words, 0);
  EXPECT_GT(m.words_checked, 0);
  ASSERT_TRUE(inv.device.has_value());
  EXPECT_EQ(res.stats.n, 5);
}

} // namespace
