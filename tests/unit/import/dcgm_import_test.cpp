// dcgmi diag's text table (tests/fixtures/import/dcgm, real public logs; README.md names each
// source): results per test per GPU with DCGM's words, the NVLink states beside them, and the
// variants made here (a complete table, a skipped test) that no post holds.
#include <gtest/gtest.h>

#include <string>

#include "gpuspec/reports/import/import.hpp"
#include "import_fixtures.hpp"

namespace gpuspec::reports {
namespace {

report dcgm(const std::string& name) {
  auto r = load_log(test::import_fixture_path("dcgm/" + name));
  if (!r)
    throw std::runtime_error(r.error().to_string());
  return std::move(r).value();
}

const result* find_result(const report& r, const std::string& id, int gpu) {
  for (const auto& res : r.results)
    if (res.bench_id == id && !res.devices.empty() && res.devices[0] == gpu)
      return &res;
  return nullptr;
}

TEST(DcgmImport, ThePassingDiagBesideDownNvLinksCarriesTheLinkStates) {
  const auto r = dcgm("h100nvlx2-diag-r2-pass-nvlinks-down.log");
  EXPECT_EQ(r.run.source->tool, "dcgm");
  EXPECT_EQ(r.run.source->version, "DCGM 3.3.7");
  EXPECT_EQ(r.host.driver_version, "560.35.03");
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[1].pci_device_id, 0x2321u); // H100 NVL by the PCI ID Repository
  EXPECT_EQ(r.devices[0].counters_after.at("nvlink.links_active").value, 0);
  EXPECT_EQ(r.devices[0].counters_after.at("nvlink.links_down").value, 18);
  const auto* denylist = find_result(r, "dcgm.deployment.denylist", 1);
  ASSERT_NE(denylist, nullptr);
  EXPECT_EQ(denylist->status, result_status::ok);
  EXPECT_EQ(denylist->check.status, verification_status::passed);
  // Cut after the Denylist row, inside the table.
  EXPECT_TRUE(r.run.source->truncated);
}

TEST(DcgmImport, AFailureKeepsDcgmsWordsPerGpu) {
  const auto r = dcgm("unknownx2-diag-gpu0-fail-cuda-busy-fragment.log");
  const auto* gpu0 = find_result(r, "dcgm.hardware.gpu_memory", 0);
  const auto* gpu1 = find_result(r, "dcgm.hardware.gpu_memory", 1);
  ASSERT_NE(gpu0, nullptr);
  ASSERT_NE(gpu1, nullptr);
  EXPECT_EQ(gpu0->status, result_status::failed);
  EXPECT_NE(gpu0->reason.find("cuCtxCreate"), std::string::npos) << gpu0->reason;
  EXPECT_NE(gpu0->reason.find("busy or unavailable"), std::string::npos) << gpu0->reason;
  EXPECT_EQ(gpu1->status, result_status::ok);
  const auto pcie = dcgm("a100-diag-r2-pcie-fail-nvlink-down-warnings.log");
  ASSERT_FALSE(pcie.results.empty());
  EXPECT_EQ(pcie.results[0].bench_id, "dcgm.integration.pcie");
  EXPECT_EQ(pcie.results[0].status, result_status::failed);
  EXPECT_NE(pcie.results[0].reason.find("NvLink link 1 is currently down"), std::string::npos)
      << pcie.results[0].reason;
}

TEST(DcgmImport, DcgmFourPerGpuRowsAreRead) {
  const auto r = dcgm("l40sx4-diag-dcgm4-header.log");
  ASSERT_EQ(r.devices.size(), 4u);
  const auto* software = find_result(r, "dcgm.deployment.software", 3);
  ASSERT_NE(software, nullptr);
  EXPECT_EQ(software->observations.at("dcgm_result"), "Pass");
}

TEST(DcgmImport, ASkippedTestIsSkippedWithItsReason) {
  auto text = test::read_import_fixture("dcgm/unknown-diag-r3-skipped-deployment.log");
  text.replace(text.find("| Inforom                   | Pass"), 34,
               "| Inforom                   | Skip");
  const auto r = import_log(text, "skip.log");
  ASSERT_TRUE(r) << r.error().to_string();
  bool seen = false;
  for (const auto& res : r.value().results)
    if (res.bench_id == "dcgm.deployment.inforom") {
      seen = true;
      EXPECT_EQ(res.status, result_status::skipped);
      EXPECT_NE(res.reason.find("inconclusive"), std::string::npos);
    }
  EXPECT_TRUE(seen);
}

TEST(DcgmImport, AnUnknownResultWordNamesItsLine) {
  auto text = test::read_import_fixture("dcgm/unknown-diag-r3-skipped-deployment.log");
  text.replace(text.find("| NVML Library              | Pass"), 34,
               "| NVML Library              | Maybe");
  const auto r = import_log(text, "mangled.log");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "line 8");
  EXPECT_NE(r.error().message.find("Maybe"), std::string::npos);
}

TEST(DcgmImport, AGpuIndexOutOfRangeNamesItsLine) {
  // Found by fuzz_dcgm_loader.
  const auto r = import_log("| Denylist | Pass |\n|          | GPU99999999999: Fail |\n", "big.log",
                            foreign_tool::dcgm);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "line 2");
}

} // namespace
} // namespace gpuspec::reports
