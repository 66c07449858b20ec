// The CUDA samples' bandwidthTest and p2pBandwidthLatencyTest (tests/fixtures/import/
// cuda-samples, real public logs; README.md names each source): host copies held to the PCIe
// link, peer copies as transfer.p2p pairs, the matrices we have no counterpart of reported.
#include <gtest/gtest.h>

#include "import_judged.hpp"

namespace gpuspec::reports {
namespace {

using test::find_imported;
using test::imported_fixture;
using test::judged_fixture;

TEST(BandwidthTestImport, HostCopiesAreOurTransfersAndTheDeviceCopyIsReported) {
  const auto r = imported_fixture("cuda-samples/t4x1-bandwidthTest-quick.log");
  EXPECT_EQ(r.run.source->tool, "bandwidthTest");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "Tesla T4");
  const auto* h2d = find_imported(r, "transfer.h2d", {0});
  ASSERT_NE(h2d, nullptr);
  EXPECT_DOUBLE_EQ(h2d->stats.median, 9.7);
  EXPECT_EQ(h2d->axes.at("memory"), "pinned");
  EXPECT_EQ(h2d->axes.at("size"), "31250KiB");               // 32000000 bytes
  EXPECT_EQ(h2d->check.status, verification_status::passed); // Result = PASS
  const auto* d2d = find_imported(r, "bandwidthTest.device_to_device", {0});
  ASSERT_NE(d2d, nullptr);
  EXPECT_EQ(d2d->status, result_status::skipped);
  EXPECT_FALSE(r.run.source->truncated);
  // 9.7 of PCIe Gen3 x16's 15.75 GB/s (0.62) warns; 11.1 (0.70) the same.
  EXPECT_EQ(judged_fixture("cuda-samples/t4x1-bandwidthTest-quick.log").status,
            verdict_status::warn);
}

TEST(BandwidthTestImport, AFailedResultFailsEveryFigure) {
  auto text = test::read_import_fixture("cuda-samples/a100-sxm4-40gbx1-bandwidthTest-quick.log");
  text.replace(text.find("Result = PASS"), 13, "Result = FAIL");
  const auto r = import_log(text, "fail.log");
  ASSERT_TRUE(r) << r.error().to_string();
  for (const auto& res : r.value().results)
    EXPECT_EQ(res.status, result_status::failed);
}

TEST(P2pBandwidthLatencyImport, EnabledCopiesArePairsAndTheOthersAreReported) {
  const auto r =
      imported_fixture("cuda-samples/unknownx6-p2pBandwidthLatencyTest-p2p-slower-than-staged.log");
  EXPECT_EQ(r.run.source->tool, "p2pBandwidthLatencyTest");
  ASSERT_EQ(r.devices.size(), 6u);
  const auto* writes = find_imported(r, "transfer.p2p", {0, 1});
  ASSERT_NE(writes, nullptr);
  EXPECT_DOUBLE_EQ(writes->stats.median, 9.90);
  EXPECT_EQ(writes->axes.at("direction"), "one_way");
  EXPECT_EQ(writes->axes.at("size"), "40000000B");
  EXPECT_FALSE(writes->axes.contains("access"));
  bool reads = false, staged = false;
  for (const auto& res : r.results) {
    reads = reads || (res.axes.contains("access") && res.axes.at("access") == "read");
    staged = staged || res.bench_id.find("p2p_disabled") != std::string::npos;
  }
  EXPECT_TRUE(reads);
  EXPECT_TRUE(staged);
  EXPECT_TRUE(r.run.source->truncated); // cut after the Bidirectional P2P=Disabled header
}

TEST(P2pBandwidthLatencyImport, AnH100PairIsHeldToNvlinkAndPeerAccessRefusalsAreSaid) {
  const auto h100 = imported_fixture("cuda-samples/h100-sxmx8-p2pBandwidthLatencyTest-head.log");
  // Only the P2P=Disabled matrix is in the post: staged copies, reported.
  EXPECT_EQ(find_imported(h100, "transfer.p2p", {0, 1}), nullptr);
  const auto mixed = imported_fixture(
      "cuda-samples/mixed-4090-5090-a6000-3090x7-p2pBandwidthLatencyTest-peer-access.log");
  const auto* refused = find_imported(mixed, "transfer.p2p", {0, 2});
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(refused->status, result_status::not_supported);
  EXPECT_NE(refused->reason.find("CANNOT Access Peer"), std::string::npos);
  EXPECT_EQ(refused->observations.at("source_line"), 11);
}

TEST(P2pBandwidthLatencyImport, AMangledCellNamesItsLine) {
  auto text = test::read_import_fixture(
      "cuda-samples/unknownx6-p2pBandwidthLatencyTest-p2p-slower-than-staged.log");
  text.replace(text.find("20.10"), 5, "2O.10");
  const auto r = import_log(text, "mangled.log");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "line 4");
}

TEST(P2pBandwidthLatencyImport, ACompleteNvSwitchMatrixIsEveryPairOverNvlink) {
  // An HGX A100 80GB (NV12 between every pair): P2P writes 265-275 GB/s of NVLink3's 300.
  const auto name =
      std::string("cuda-samples/a100-sxm4-80gbx8-p2pBandwidthLatencyTest-nvswitch-complete.log");
  const auto r = imported_fixture(name);
  ASSERT_EQ(r.devices.size(), 8u);
  EXPECT_FALSE(r.run.source->truncated);
  int pairs = 0;
  for (const auto& res : r.results)
    if (res.bench_id == "transfer.p2p" && res.axes.at("direction") == "one_way")
      ++pairs;
  EXPECT_EQ(pairs, 56); // 8 x 7 ordered pairs
  const auto* first = find_imported(r, "transfer.p2p", {0, 1});
  ASSERT_NE(first, nullptr);
  EXPECT_NEAR(first->stats.median, 268.94, 1e-9);
  EXPECT_EQ(judged_fixture(name).status, verdict_status::pass);
}

} // namespace
} // namespace gpuspec::reports
