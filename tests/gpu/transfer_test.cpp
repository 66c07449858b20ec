// Device test of transfer.{h2d,d2h,bidir} through the session, as `gpuspec run` runs them
// (runner_support.hpp): every case of the standard suite on CUDA device 0's GPU with a short
// stopping rule, and the quick suite's three. Every measured case must be ok, verified byte for
// byte, plausible (more than 1 GB/s where a copy is large enough to stream, less than twice the
// link ceiling), and say where its host memory was placed; pageable x sm must be skipped with
// its reason.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/kernels/transfer_math.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "runner_support.hpp"

namespace r = gpuspec::reports;
namespace k = gpuspec::kernels;

namespace {

struct transfer_test : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    gpuspec::testing::take_runner_inventory(inv);
  }
  gpuspec::testing::runner_inventory inv;
};

int directions_of(const std::string& id) { return id == "transfer.bidir" ? 2 : 1; }

/// What every measured transfer result must hold.
void expect_measured_transfer(const r::result& res) {
  SCOPED_TRACE(res.bench_id + " " + r::parameters_of(res).dump());
  EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
  EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
  EXPECT_NE(res.check.detail.find("every byte"), std::string::npos) << res.check.detail;
  EXPECT_EQ(res.metric, "bandwidth");
  EXPECT_EQ(r::to_string(res.unit), "GB/s");
  EXPECT_EQ(res.cache_state, "hot");
  EXPECT_GE(res.stats.n, 3);

  const std::uint64_t bytes =
      k::parse_size_text(r::parameters_of(res).at("size").get<std::string>());
  const std::uint64_t copies = k::transfer_copies_per_sample(bytes);
  EXPECT_EQ(r::parameters_of(res).at("bytes_per_copy").get<std::uint64_t>(), bytes);
  EXPECT_EQ(r::parameters_of(res).at("copies_per_sample").get<std::uint64_t>(), copies);
  ASSERT_TRUE(res.bytes_per_iteration.has_value());
  EXPECT_DOUBLE_EQ(*res.bytes_per_iteration, static_cast<double>(bytes) *
                                                 static_cast<double>(copies) *
                                                 directions_of(res.bench_id));

  // Where the host memory went, and how.
  ASSERT_TRUE(r::parameters_of(res).contains("numa_node"));
  ASSERT_TRUE(r::parameters_of(res).contains("host_memory_node"));
  const std::string binding = r::parameters_of(res).at("numa_binding").get<std::string>();
  EXPECT_TRUE(binding == "mbind" || binding.rfind("none: ", 0) == 0 ||
              binding.rfind("h2d source: ", 0) == 0)
      << binding;
  if (binding == "mbind" && !r::parameters_of(res).at("numa_node").is_null() &&
      !r::parameters_of(res).at("host_memory_node").is_null()) {
    EXPECT_EQ(r::parameters_of(res).at("host_memory_node"), r::parameters_of(res).at("numa_node"));
  }
  EXPECT_FALSE(r::parameters_of(res).at("cpu_affinity").get<std::string>().empty());
  EXPECT_EQ(r::parameters_of(res).at("launch_hold").get<bool>(),
            r::parameters_of(res).at("memory") == "pinned");

  // Plausible: any PCIe link streams more than 1 GB/s once copies are large; nothing beats
  // twice the link as trained.
  EXPECT_GT(res.stats.median, 0.0);
  if (bytes >= 4 * (std::uint64_t{1} << 20)) {
    EXPECT_GT(res.stats.median, 1.0);
  }
  if (res.telemetry.status == "ok") {
    ASSERT_TRUE(r::parameters_of(res).contains("pcie_gen_under_load"));
    ASSERT_TRUE(res.ceiling_value.clock_adjusted.has_value())
        << res.ceiling_value.clock_adjusted_source;
    EXPECT_LT(res.stats.median, 2.0 * *res.ceiling_value.clock_adjusted)
        << res.ceiling_value.clock_adjusted_source;
    EXPECT_NE(res.ceiling_value.clock_adjusted_source.find("PCIe Gen"), std::string::npos)
        << res.ceiling_value.clock_adjusted_source;
    ASSERT_TRUE(res.efficiency.has_value());
  }
}

} // namespace

TEST_F(transfer_test, quick_runs_pinned_copy_engine_at_256_mib) {
  auto o =
      gpuspec::testing::short_run_options(inv, "quick", "^transfer\\.(h2d|d2h|bidir)$", 3, 10, 2.0);
  gpuspec::testing::run_quietly(o, inv);
  const r::report& report = inv.report;
  EXPECT_TRUE(report.complete) << report.incomplete_reason;
  ASSERT_EQ(report.results.size(), 3u);
  for (const auto& res : report.results) {
    EXPECT_EQ(r::parameters_of(res).at("memory"), "pinned");
    EXPECT_EQ(r::parameters_of(res).at("engine"), "copy_engine");
    EXPECT_EQ(r::parameters_of(res).at("size"), "256MiB");
    expect_measured_transfer(res);
  }
  EXPECT_NO_THROW((void)r::to_json(report));
}

TEST_F(transfer_test, every_standard_case_is_verified_and_plausible_or_skipped_with_a_reason) {
  auto o = gpuspec::testing::short_run_options(inv, "standard", "^transfer\\.(h2d|d2h|bidir)$", 3,
                                               5, 1.0);
  gpuspec::testing::run_quietly(o, inv);
  const r::report& report = inv.report;
  EXPECT_TRUE(report.complete) << report.incomplete_reason;
  ASSERT_EQ(report.results.size(), 3u * 2 * 2 * 10);
  int measured = 0, skipped = 0;
  for (const auto& res : report.results) {
    if (r::parameters_of(res).at("memory") == "pageable" &&
        r::parameters_of(res).at("engine") == "sm") {
      EXPECT_EQ(res.status, r::result_status::skipped) << res.reason;
      EXPECT_NE(res.reason.find("pinned"), std::string::npos) << res.reason;
      ++skipped;
      continue;
    }
    expect_measured_transfer(res);
    ++measured;
  }
  EXPECT_EQ(measured, 3 * 3 * 10);
  EXPECT_EQ(skipped, 3 * 10);
  EXPECT_NO_THROW((void)r::to_json(report));
}
