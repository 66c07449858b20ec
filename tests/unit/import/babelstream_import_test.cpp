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

TEST(BabelStreamImport, VersionFiveIsReadWithItsInitAndReadLines) {
  const auto r = imported_fixture("babelstream/a100-sxm4-40gbx1-cuda-v5-double.log");
  EXPECT_EQ(r.run.source->version, "BabelStream 5.0");
  EXPECT_EQ(r.host.cuda_driver_version, "12.2"); // "Driver: 12020"
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "NVIDIA A100-SXM4-40GB");
  const auto* triad = find_imported(r, "memory.stream.triad", {0});
  ASSERT_NE(triad, nullptr);
  EXPECT_NEAR(triad->stats.median, 1377.517491, 1e-6); // 1377517.491 MBytes/sec
  EXPECT_EQ(triad->observations.at("babelstream_init"), "0.065250 s (=12341.874989 MBytes/sec)");
  // 1.40 and 1.38 TB/s of the A100 40GB's 1.555: a pass.
  EXPECT_EQ(judged_fixture("babelstream/a100-sxm4-40gbx1-cuda-v5-double.log").status,
            verdict_status::pass);
}

TEST(BabelStreamImport, TheKernelsAProfilerReplayedFailAndTheOthersDoNot) {
  // The same A100 under ncu, which replayed add and triad 18 passes each: 0.61 GB/s.
  const auto name = std::string("babelstream/a100-sxm4-40gbx1-cuda-v5-double-under-ncu.log");
  const auto r = imported_fixture(name);
  const auto* add = find_imported(r, "memory.stream.add", {0});
  ASSERT_NE(add, nullptr);
  EXPECT_NEAR(add->stats.median, 0.614751, 1e-9);
  EXPECT_EQ(r.results.size(), 5u); // the ==PROF== lines are none of the table's rows
  const auto outcome = judged_fixture(name);
  EXPECT_EQ(outcome.status, verdict_status::fail);
  ASSERT_EQ(outcome.nodes.size(), 1u);
  for (const auto& v : outcome.nodes[0].results) {
    const bool replayed = v.bench_id == "memory.stream.add" || v.bench_id == "memory.stream.triad";
    EXPECT_EQ(v.status == verdict_status::fail, replayed) << v.bench_id;
  }
}

TEST(BabelStreamImport, OneRunPerGpuIsOneGpuEach) {
  // Four runs one after another (a script's --device 0..3) on a GH200 node.
  const auto r = imported_fixture("babelstream/gh200x4-cuda-v5-double.log");
  ASSERT_EQ(r.devices.size(), 4u);
  EXPECT_EQ(r.results.size(), 20u);
  for (int gpu = 0; gpu < 4; ++gpu)
    EXPECT_NE(find_imported(r, "memory.stream.copy", {gpu}), nullptr) << gpu;
  const auto* last = find_imported(r, "memory.stream.triad", {3});
  ASSERT_NE(last, nullptr);
  EXPECT_NEAR(last->stats.median, 3532.032379, 1e-6);
  EXPECT_FALSE(r.run.source->truncated);
  bool said = false;
  for (const auto& note : r.run.source->notes)
    said = said || note.find("4 runs of BabelStream") != std::string::npos;
  EXPECT_TRUE(said);
  // The spec table has no GH200 row: not judged against a datasheet, only among the four.
  const auto outcome = judged_fixture("babelstream/gh200x4-cuda-v5-double.log");
  EXPECT_TRUE(test::has_code(outcome, "GPUSPEC-NO-SPEC-ROW"));
  EXPECT_EQ(outcome.status, verdict_status::warn);
}

TEST(BabelStreamImport, AnErrorBeforeTheTableFailsTheRun) {
  // BabelStream 3.3 on a P100 with a binary not built for sm_60: nothing was measured.
  const auto name = std::string("babelstream/p100-pcie-16gbx1-cuda-v3.3-no-kernel-image.log");
  const auto r = imported_fixture(name);
  EXPECT_EQ(r.run.source->version, "BabelStream 3.3");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].status, result_status::failed);
  EXPECT_NE(r.results[0].reason.find("no kernel image is available"), std::string::npos);
  EXPECT_FALSE(r.run.source->truncated);
  EXPECT_EQ(judged_fixture(name).status, verdict_status::fail);
}

TEST(BabelStreamImport, AnImplementationThatNamesNoDeviceIsNotJudged) {
  // 3.4's OpenMP offload prints no "Using ... device" line: nothing says it ran on a GPU.
  const auto name = std::string("babelstream/a100-openmp-offload-v3.4-no-device.log");
  const auto r = imported_fixture(name);
  EXPECT_EQ(r.run.source->version, "BabelStream 3.4");
  EXPECT_TRUE(r.devices.empty());
  for (const auto& res : r.results) {
    EXPECT_EQ(res.status, result_status::skipped);
    EXPECT_NE(res.reason.find("names no device"), std::string::npos) << res.reason;
  }
  EXPECT_EQ(judged_fixture(name).status, verdict_status::inconclusive);
}

TEST(BabelStreamImport, TheDevelopmentBranchsMbPerSecondHeaderIsRead) {
  // After 5.0 the header reads "MB/s" (src/Unit.h); this post kept only the table.
  const auto name = std::string("babelstream/rtx5090-cuda-mb-per-s-table-only.log");
  ASSERT_TRUE(detect_tool(test::read_import_fixture(name)).has_value());
  const auto r = imported_fixture(name);
  const auto* copy = find_imported(r, "memory.stream.copy", {});
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->axes.count("dtype"), 0u); // the header, which states the precision, is missing
  EXPECT_NEAR(copy->stats.median, 1686.406594, 1e-6);
  EXPECT_EQ(copy->status, result_status::skipped);
  EXPECT_NE(copy->reason.find("no BabelStream header"), std::string::npos) << copy->reason;
  EXPECT_EQ(r.run.source->version, "");
  EXPECT_EQ(judged_fixture(name).status, verdict_status::inconclusive);
  const auto thrust = imported_fixture("babelstream/rtx5090-thrust-mb-per-s-table-only.log");
  const auto* dot = find_imported(thrust, "memory.stream.dot", {});
  ASSERT_NE(dot, nullptr);
  EXPECT_NEAR(dot->stats.median, 1155.684476, 1e-6);
}

TEST(BabelStreamImport, EveryUnitBabelStreamPrintsIsConverted) {
  auto text = test::read_import_fixture("babelstream/rtx5090-cuda-mb-per-s-table-only.log");
  text.replace(text.find("MB/s  "), 6, "GiB/s ");
  const auto r = import_log(text, "gib.log");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_NEAR(r.value().results[0].stats.median, 1686406.594 * 1.073741824, 1e-3);
  text.replace(text.find("GiB/s "), 6, "PB/s  ");
  const auto bad = import_log(text, "pb.log");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "line 3");
}

} // namespace
} // namespace gpuspec::reports
