// nvbandwidth's output (tests/fixtures/import/nvbandwidth, real public logs; README.md names each
// source): host copies as transfer.h2d/.d2h held to the PCIe link, peer copies as transfer.p2p,
// a testcase that stopped at an ASSERT failed, and a mangled matrix named by its line.
#include <gtest/gtest.h>

#include "import_judged.hpp"

namespace gpuspec::reports {
namespace {

using test::find_imported;
using test::imported_fixture;
using test::judged_fixture;

TEST(NvbandwidthImport, AHostCopyIsOurTransferHeldToThePcieLink) {
  const auto r = imported_fixture("nvbandwidth/a100-sxm4-40gbx1-h2d-sm-v0.8.log");
  EXPECT_EQ(r.run.source->tool, "nvbandwidth");
  EXPECT_EQ(r.run.source->version, "nvbandwidth v0.8");
  EXPECT_EQ(r.host.driver_version, "560.35.05");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(r.devices[0].pci_bus_id, "00000000:99:00");
  const auto* h2d = find_imported(r, "transfer.h2d", {0});
  ASSERT_NE(h2d, nullptr);
  EXPECT_DOUBLE_EQ(h2d->stats.median, 25.13);
  EXPECT_EQ(h2d->axes.at("engine"), "sm");
  EXPECT_EQ(h2d->axes.at("size"), "512MiB"); // -b 512 on the command line
  EXPECT_EQ(h2d->observations.at("source_line"), 14);
  EXPECT_EQ(h2d->ceiling_value.spec_figure, "pcie_gbs");
  // 25.13 of PCIe Gen4 x16's 31.5 GB/s (0.80): a healthy SM copy passes.
  EXPECT_EQ(judged_fixture("nvbandwidth/a100-sxm4-40gbx1-h2d-sm-v0.8.log").status,
            verdict_status::pass);
  EXPECT_EQ(imported_fixture("nvbandwidth/a100-sxm4-40gbx1-h2d-sm-v0.8-b1024.log")
                .results.front()
                .axes.at("size"),
            "1GiB");
}

TEST(NvbandwidthImport, EveryGpuOfAHostMatrixIsAResultAndTheCutLogIsTruncated) {
  const auto r = imported_fixture("nvbandwidth/rtx4090x8-nvbandwidth-v0.2-pcie.log");
  ASSERT_EQ(r.devices.size(), 8u);
  const auto* d2h = find_imported(r, "transfer.d2h", {5});
  ASSERT_NE(d2h, nullptr);
  EXPECT_DOUBLE_EQ(d2h->stats.median, 27.11);
  EXPECT_EQ(d2h->axes.at("engine"), "copy_engine");
  EXPECT_EQ(d2h->axes.at("size"), "64MiB"); // v0.2's default: no -b in the log
  // The post goes on past the stored cut, which falls after a SUM line: v0.2 prints no closing
  // line, so a log cut between two testcases cannot be told from a whole one.
  EXPECT_FALSE(r.run.source->truncated);
  // One cut inside a testcase (its matrix, no SUM) is said to be truncated.
  auto text = test::read_import_fixture("nvbandwidth/rtx4090x8-nvbandwidth-v0.2-pcie.log");
  text.resize(text.find("SUM device_to_host_memcpy_ce"));
  const auto cut = import_log(text, "cut.log");
  ASSERT_TRUE(cut) << cut.error().to_string();
  EXPECT_TRUE(cut.value().run.source->truncated);
  EXPECT_FALSE(cut.value().complete);
}

TEST(NvbandwidthImport, PeerCopiesArePairsAndAPcieNodeIsNotHeldToNvlink) {
  // The poster left out the device list and the "Running" line: the matrix and its SUM name it.
  const auto r = imported_fixture("nvbandwidth/a6000x6-d2d-read-ce-v0.8-pcie.log");
  ASSERT_EQ(r.devices.size(), 6u);
  const auto* pair = find_imported(r, "transfer.p2p", {0, 3});
  ASSERT_NE(pair, nullptr);
  EXPECT_DOUBLE_EQ(pair->stats.median, 21.95);
  EXPECT_EQ(pair->axes.at("pair"), "0->3");
  EXPECT_EQ(pair->axes.at("engine"), "ce");
  EXPECT_EQ(pair->axes.at("direction"), "one_way");
  // 26 GB/s is no faster than PCIe: the path is not known, so no NVLink ceiling is claimed.
  EXPECT_EQ(pair->ceiling_value.reference, reference_kind::none);
  EXPECT_EQ(find_imported(r, "transfer.p2p", {0, 0}), nullptr); // the N/A diagonal
  EXPECT_FALSE(r.run.source->truncated);
}

TEST(NvbandwidthImport, APeerCopyFasterThanAnyPcieLinkIsHeldToNvlink) {
  // The RTX A6000 log with its figures scaled to an NVLink node's (made here, not posted).
  auto text = test::read_import_fixture("nvbandwidth/a6000x6-d2d-read-ce-v0.8-pcie.log");
  text.replace(text.find(" 0       N/A     26.34"), 22, " 0       N/A    376.34");
  const auto r = import_log(text, "nvlink.log");
  ASSERT_TRUE(r) << r.error().to_string();
  const auto* pair = find_imported(r.value(), "transfer.p2p", {0, 1});
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->ceiling_value.spec_figure, "nvlink_gbs");
  EXPECT_EQ(pair->observations.at("path"), "NVLink (inferred: faster than any PCIe link)");
}

TEST(NvbandwidthImport, ATestcaseThatStoppedAtItsAssertFails) {
  const auto r =
      imported_fixture("nvbandwidth/a100-sxm4-80gbx8-d2d-read-ce-v0.7-pattern-assert.log");
  const auto* failed =
      find_imported(r, "nvbandwidth.device_to_device_memcpy_read_ce", {0, 1, 2, 3, 4, 5, 6, 7});
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->status, result_status::failed);
  EXPECT_NE(failed->reason.find("Invalid value when checking the pattern"), std::string::npos);
  EXPECT_EQ(
      judged_fixture("nvbandwidth/a100-sxm4-80gbx8-d2d-read-ce-v0.7-pattern-assert.log").status,
      verdict_status::fail);
}

TEST(NvbandwidthImport, AMangledMatrixNamesItsLine) {
  auto text = test::read_import_fixture("nvbandwidth/a100-sxm4-40gbx1-h2d-sm-v0.8.log");
  text.replace(text.find("25.13\n"), 5, "25.x3");
  const auto r = import_log(text, "mangled.log");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, "mangled.log");
  EXPECT_EQ(r.error().field, "line 14");
}

} // namespace
} // namespace gpuspec::reports
