// BabelStream's output (tests/fixtures/import/babelstream, real public logs; README.md names
// each source): our STREAM ids held to the GPU's memory, a run off the GPU reported and never
// judged against one, and BabelStream's own validation failure a failed result.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "import_judged.hpp"

namespace gpuspec::reports {
namespace {

using test::find_imported;
using test::imported_fixture;
using test::judged_fixture;

TEST(BabelStreamImport, TheTableIsOurStreamInGbPerSecond) {
  const auto r = imported_fixture("babelstream/a100-sxm4-80gbx1-cuda-v4-double.log");
  EXPECT_EQ(r.run.source->version, "BabelStream 4.0");
  EXPECT_EQ(r.host.cuda_driver_version, "11.4"); // "Driver: 11040"
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "NVIDIA A100-SXM4-80GB");
  const auto* mul = find_imported(r, "memory.stream.scale", {0}); // BabelStream's Mul
  ASSERT_NE(mul, nullptr);
  EXPECT_NEAR(mul->stats.median, 1745.605363, 1e-6); // 1745605.363 MBytes/sec
  EXPECT_EQ(mul->axes.at("dtype"), "fp64");
  EXPECT_EQ(mul->ceiling_value.spec_figure, "memory_bandwidth_gbs");
  EXPECT_EQ(r.results.size(), 5u);
  // ~1.75 of the A100 80GB's 2.0 TB/s, and a V100 PCIe's ~0.81-0.85 of 0.9: both pass.
  EXPECT_EQ(judged_fixture("babelstream/a100-sxm4-80gbx1-cuda-v4-double.log").status,
            verdict_status::pass);
  EXPECT_EQ(judged_fixture("babelstream/v100-pcie-16gbx1-cuda-v4-double.log").status,
            verdict_status::pass);
}

TEST(BabelStreamImport, ARunOnACpuIsReportedNotJudgedAgainstAGpu) {
  const auto r = imported_fixture("babelstream/intel-i5-1135g7-cpu-opencl-v4-double.log");
  EXPECT_TRUE(r.devices.empty());
  for (const auto& res : r.results) {
    EXPECT_EQ(res.status, result_status::skipped);
    EXPECT_NE(res.reason.find("not on an NVIDIA GPU"), std::string::npos) << res.reason;
  }
  EXPECT_EQ(judged_fixture("babelstream/intel-i5-1135g7-cpu-opencl-v4-double.log").status,
            verdict_status::inconclusive);
}

TEST(BabelStreamImport, AnotherImplementationOnAnNvidiaGpuIsJudged) {
  const auto r = imported_fixture("babelstream/rtx2060x1-alpaka-llama-v4-double.log");
  ASSERT_EQ(r.devices.size(), 1u);
  const auto* triad = find_imported(r, "memory.stream.triad", {0});
  ASSERT_NE(triad, nullptr);
  EXPECT_EQ(triad->status, result_status::ok);
  EXPECT_EQ(triad->observations.at("babelstream_implementation"), "alpaka/LLAMA");
}

TEST(BabelStreamImport, ItsValidationFailureFailsEveryResult) {
  const auto r = imported_fixture("babelstream/v100-openacc-v4-double-validation-failed.log");
  ASSERT_FALSE(r.results.empty());
  for (const auto& res : r.results) {
    EXPECT_EQ(res.status, result_status::failed);
    EXPECT_NE(res.check.detail.find("Validation failed on a[]"), std::string::npos);
  }
  EXPECT_EQ(judged_fixture("babelstream/v100-openacc-v4-double-validation-failed.log").status,
            verdict_status::fail);
}

TEST(BabelStreamImport, TheKernelNamesAreOurStreamTablesBabelStreamNames) {
  // kernels/include/gpuspec/kernels/stream_math.hpp's rows name BabelStream's kernels; the
  // importer repeats them (its room cannot include kernels/), so this holds the two together.
  std::ifstream in(std::string(GPUSPEC_SOURCE_DIR) + "/kernels/include/gpuspec/kernels/"
                                                     "stream_math.hpp");
  std::stringstream s;
  s << in.rdbuf();
  for (const char* pair : {"\"copy\", \"Copy\"", "\"scale\", \"Mul\"", "\"add\", \"Add\"",
                           "\"triad\", \"Triad\"", "\"dot\", \"Dot\""})
    EXPECT_NE(s.str().find(pair), std::string::npos) << pair;
}

TEST(BabelStreamImport, ARowWithTooFewFieldsNamesItsLine) {
  auto text = test::read_import_fixture("babelstream/a100-sxm4-80gbx1-cuda-v4-double.log");
  text.replace(text.find("Add         1772532.835 0.01454"), 31, "Add         1772532.835");
  const auto r = import_log(text, "mangled.log");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "line 13");
}

} // namespace
} // namespace gpuspec::reports
