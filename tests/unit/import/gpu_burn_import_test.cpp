// gpu-burn logs (tests/fixtures/import/gpu-burn, real public logs; README.md names each source):
// figures read from the logs by hand, and the false passes gpu-burn printed as OK.
#include <gtest/gtest.h>

#include <string>

#include "gpuspec/reports/import/import.hpp"
#include "import_fixtures.hpp"

namespace gpuspec::reports {
namespace {

report burn(const std::string& name) {
  auto r = load_log(test::import_fixture_path("gpu-burn/" + name));
  if (!r)
    throw std::runtime_error(r.error().to_string());
  return std::move(r).value();
}

TEST(GpuBurnImport, EightGpusAtZeroGflopsSaidOkAreNotPasses) {
  const auto r = burn("v100x8-gpuburn-cuda-error-unknown.log");
  EXPECT_EQ(r.run.source->tool, "gpu-burn");
  ASSERT_EQ(r.results.size(), 8u);
  EXPECT_EQ(r.devices[0].name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(r.devices[7].uuid, "GPU-143b6dac-9b44-419a-3799-ed5fcdf2552c");
  for (const auto& res : r.results) {
    EXPECT_EQ(res.status, result_status::failed) << res.devices[0];
    EXPECT_NE(res.reason.find("0 Gflop/s"), std::string::npos) << res.reason;
    EXPECT_NE(res.reason.find("CUDA_ERROR_UNKNOWN"), std::string::npos) << res.reason;
  }
  EXPECT_EQ(r.results[0].observations.at("gpu_burn_verdict"), "OK");
  EXPECT_EQ(r.results[0].observations.at("source_line"), 14); // the last progress line
}

TEST(GpuBurnImport, HealthyRunsKeepTheirFigures) {
  const auto two = burn("rtx4090x2-gpuburn-ok.log");
  ASSERT_EQ(two.results.size(), 2u);
  for (const auto& res : two.results)
    EXPECT_EQ(res.status, result_status::ok) << res.reason;
  // Judged as our own SGEMM: the same rule, the spec table's FP32 peak for the model named.
  EXPECT_EQ(two.results[0].bench_id, "gemm.cublas.fp32");
  EXPECT_EQ(two.results[0].observations.at("m"), 8192);
  EXPECT_EQ(two.results[0].ceiling_value.reference, reference_kind::datasheet);
  EXPECT_EQ(two.results[0].ceiling_value.spec_figure, "peaks.fp32");
  const auto k80 = burn("k80x1-gpuburn-ok.log");
  ASSERT_EQ(k80.results.size(), 1u);
  EXPECT_DOUBLE_EQ(k80.results[0].stats.median, 2273);
  EXPECT_EQ(k80.results[0].status, result_status::ok);
  // The post ends at the last progress line, without gpu-burn's "Tested 1 GPUs" summary.
  EXPECT_TRUE(k80.run.source->truncated);
  // An older gpu-burn ("Burning for 10 secs"): 2048x2048 matrices.
  EXPECT_EQ(k80.results[0].observations.at("k"), 2048);
}

TEST(GpuBurnImport, ThePrecisionIsTakenFromTheLog) {
  const auto text = test::read_import_fixture("gpu-burn/rtx4090x2-gpuburn-ok.log");
  std::string doubles = text;
  for (auto at = doubles.find("using FLOATS"); at != std::string::npos;
       at = doubles.find("using FLOATS"))
    doubles.replace(at, 12, "using DOUBLES");
  const auto d = import_log(doubles, "d.log");
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d.value().results[0].bench_id, "gemm.cublas.fp64");
  EXPECT_EQ(d.value().results[0].ceiling_value.reference, reference_kind::none);
  const auto tc = import_log("$ ./gpu_burn -tc 60\n" + text, "tc.log");
  ASSERT_TRUE(tc) << tc.error().to_string();
  EXPECT_EQ(tc.value().results[0].bench_id, "gemm.cublas.tf32_tc");
  EXPECT_EQ(tc.value().results[0].ceiling_value.spec_figure, "peaks.tf32_tc");
}

TEST(GpuBurnImport, NoProgressSaidOkIsNotAPass) {
  const auto r = burn("rtxa2000x1-gpuburn-no-progress-ok.log");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].status, result_status::failed);
  EXPECT_NE(r.results[0].reason.find("no progress line"), std::string::npos);
}

TEST(GpuBurnImport, FaultyDiedAndAbortedRunsFail) {
  const auto faulty = burn("v100sxm3x16-gpuburn-faulty-exit0.log");
  ASSERT_EQ(faulty.results.size(), 16u);
  EXPECT_EQ(faulty.results[1].failure, failure_kind::verification);
  EXPECT_EQ(faulty.results[1].observations.at("errors"), -524288000);
  EXPECT_DOUBLE_EQ(faulty.results[10].stats.median, 6660);
  const auto died = burn("unknownx8-gpuburn-all-died.log");
  ASSERT_EQ(died.results.size(), 8u);
  EXPECT_NE(died.results[3].reason.find("DIED"), std::string::npos);
  const auto k80 = burn("k80x4-gpuburn-load-module-died.log");
  EXPECT_EQ(k80.results[0].status, result_status::failed);
  EXPECT_TRUE(k80.run.source->truncated); // cut before the poster's SNIP marker
}

TEST(GpuBurnImport, AMangledProgressLineNamesItsLine) {
  const auto r = import_log("GPU 0: X (UUID: GPU-1)\n10.0%  proc'd: 5 (10 Gflop/s)\n", "m.log");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "line 2");
}

TEST(GpuBurnImport, FiguresOutOfRangeNameTheirLine) {
  const auto big =
      import_log("GPU 99999999999: X (UUID: GPU-1)\n", "big.log", tool_from_name("gpu-burn"));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().field, "line 1");
  const auto dot =
      import_log("GPU 0: X (UUID: GPU-1)\n10.0%  proc'd: 5 (. Gflop/s)   errors: 0\n", "dot.log");
  ASSERT_FALSE(dot);
  EXPECT_EQ(dot.error().field, "line 2");
}

} // namespace
} // namespace gpuspec::reports
