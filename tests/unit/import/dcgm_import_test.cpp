// dcgmi diag's text table (tests/fixtures/import/dcgm, real public logs; README.md names each
// source): results per test per GPU with DCGM's words, the NVLink states beside them, and the
// variants made here (a complete table, a skipped test) that no post holds.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "gpuspec/reports/import/import.hpp"
#include "import_judged.hpp"

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

TEST(DcgmImport, GpuOneIsNotGivenTheWordsOfGpuTen) {
  // A 16-GPU node in DCGM 4's per-GPU rows (l40sx4-diag-dcgm4-header.log's layout), GPU 1 and
  // GPU 10 failing, each with its own Warning: made here, no public post has a table of more
  // than ten GPUs.
  std::string text = "Successfully ran diagnostic for group.\n"
                     "|-----  Hardware  ----------+--------------------------------------|\n"
                     "| GPU Memory                | Fail                                 |\n";
  for (int gpu = 0; gpu < 16; ++gpu)
    text += fmt::format("|                           | GPU{}: {}                         |\n", gpu,
                        gpu == 1 || gpu == 10 ? "Fail" : "Pass");
  text += "| Warning                   | GPU 1 Error using CUDA API cuCtxCreate |\n"
          "| Warning                   | GPU 10 Pending page retirements        |\n";
  const auto r = import_log(text, "sixteen.log", tool_from_name("dcgm"));
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r.value().devices.size(), 16u);
  const auto* gpu1 = find_result(r.value(), "dcgm.hardware.gpu_memory", 1);
  const auto* gpu10 = find_result(r.value(), "dcgm.hardware.gpu_memory", 10);
  ASSERT_NE(gpu1, nullptr);
  ASSERT_NE(gpu10, nullptr);
  EXPECT_EQ(gpu1->status, result_status::failed);
  EXPECT_EQ(gpu10->status, result_status::failed);
  EXPECT_EQ(gpu1->observations.at("dcgm_warning"), "GPU 1 Error using CUDA API cuCtxCreate");
  EXPECT_EQ(gpu10->observations.at("dcgm_warning"), "GPU 10 Pending page retirements");
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
                            tool_from_name("dcgm"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "line 2");
}

TEST(DcgmImport, ASkippedTestIsInconclusiveNeverAPass) {
  // The r3 JSON passes every test but the EUD Test, which DCGM skipped.
  const auto r = dcgm("virtualclient-diag-r3-pass-eud-skip.json");
  const auto* eud = find_result(r, "dcgm.hardware.eud_test", 0);
  ASSERT_NE(eud, nullptr);
  EXPECT_EQ(eud->status, result_status::skipped);
  const auto outcome = test::judged_fixture("dcgm/virtualclient-diag-r3-pass-eud-skip.json");
  EXPECT_EQ(outcome.status, verdict_status::inconclusive);
  EXPECT_TRUE(test::has_code(outcome, "GPUSPEC-TOOL-TEST-SKIPPED"));
  // The same run at -r 2, nothing skipped: no such finding.
  const auto r2 = test::judged_fixture("dcgm/virtualclient-diag-r2-pass.json");
  EXPECT_FALSE(test::has_code(r2, "GPUSPEC-TOOL-TEST-SKIPPED"));
}

TEST(DcgmImport, ASkippedTestOfTheTableIsInconclusiveToo) {
  auto text = test::read_import_fixture("dcgm/unknown-diag-r3-skipped-deployment.log");
  text.replace(text.find("| Inforom                   | Pass"), 34,
               "| Inforom                   | Skip");
  const auto r = import_log(text, "skip.log");
  ASSERT_TRUE(r) << r.error().to_string();
  const auto outcome =
      check(r.value(), gpuspec::testing::shipped_specs(), gpuspec::testing::shipped_rules());
  EXPECT_TRUE(test::has_code(outcome, "GPUSPEC-TOOL-TEST-SKIPPED"));
}

TEST(DcgmImport, TheJsonDocumentGivesEachTestPerGpuWithItsWords) {
  const auto r = dcgm("virtualclient-diag-r2-pass.json");
  EXPECT_EQ(r.run.source->tool, "dcgm");
  EXPECT_FALSE(r.run.source->truncated);
  const auto* pcie = find_result(r, "dcgm.integration.pcie", 0);
  ASSERT_NE(pcie, nullptr);
  EXPECT_EQ(pcie->observations.at("dcgm_result"), "Pass");
  EXPECT_NE(pcie->observations.at("dcgm_info").get<std::string>().find("13.15 GB/s"),
            std::string::npos);
  EXPECT_EQ(pcie->observations.at("source_line"), 98); // its "name" line
  // A check of a folder of logs takes the JSON for a log, not for a gpuspec report.
  const auto loaded =
      load_report_or_log(test::import_fixture_path("dcgm/virtualclient-diag-r2-pass.json"));
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(loaded.value().run.backend, "imported");
}

TEST(DcgmImport, ACutAndElidedJsonIsReadUpToItsCut) {
  // The poster elided the first category ({"..."}) and the post ends inside the Stress one.
  const auto r = dcgm("t400x1-diag-r3-skip-truncated.json");
  EXPECT_TRUE(r.run.source->truncated);
  ASSERT_NE(find_result(r, "dcgm.integration.pcie", 0), nullptr);
  ASSERT_NE(find_result(r, "dcgm.stress.targeted_stress", 0), nullptr);
  for (const auto& res : r.results)
    EXPECT_EQ(res.observations.at("dcgm_result"), "Skip");
}

TEST(DcgmImport, JsonWarningsKeepTheirErrorCodes) {
  // dcgmi diag -j's warning objects (NvvsJsonStrings.h: "warning", "error_id"): the r2 document
  // with one made here, as no posted document with a warning was found.
  auto text = test::read_import_fixture("dcgm/virtualclient-diag-r2-pass.json");
  const std::string pass = "\"info\" : \"GPU 0 Allocated 15206918958 bytes (97.3%)\",\n"
                           "\t\t\t\t\t\t\t\t\"status\" : \"Pass\"";
  ASSERT_NE(text.find(pass), std::string::npos);
  text.replace(text.find(pass), pass.size(),
               "\"status\" : \"Fail\", \"warnings\" : [ { \"error_id\" : 84, \"warning\" : "
               "\"GPU 0 Allocation failed\" } ]");
  const auto r = import_log(text, "fail.json");
  ASSERT_TRUE(r) << r.error().to_string();
  const auto* memory = find_result(r.value(), "dcgm.hardware.gpu_memory", 0);
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->status, result_status::failed);
  EXPECT_EQ(memory->observations.at("dcgm_error_codes"), nlohmann::ordered_json::array({84}));
  EXPECT_NE(memory->reason.find("Allocation failed"), std::string::npos);
}

TEST(DcgmImport, DcgmFourJsonCarriesEntityResultsAndErrorCodes) {
  // dcgmi diag -r 2 -j of DCGM 4.5.2 on a GB10: "DCGM Diagnostic", entity_group and entity_id.
  const auto r = dcgm("gb10x1-diag-r2-dcgm4.5-plugins-allowed.json");
  EXPECT_EQ(r.host.driver_version, "580.82.09");
  EXPECT_NE(r.run.source->version.find("4.5.2"), std::string::npos) << r.run.source->version;
  EXPECT_FALSE(r.run.source->truncated);
  const auto* software = find_result(r, "dcgm.deployment.software", 0);
  ASSERT_NE(software, nullptr);
  EXPECT_EQ(software->status, result_status::failed);
  EXPECT_EQ(software->observations.at("dcgm_error_codes"), nlohmann::ordered_json::array({29}));
  EXPECT_NE(software->reason.find("Persistence mode for GPU 0 is disabled"), std::string::npos);
  const auto* pcie = find_result(r, "dcgm.integration.pcie", 0);
  ASSERT_NE(pcie, nullptr);
  EXPECT_EQ(pcie->observations.at("dcgm_result"), "Pass");
  EXPECT_NE(pcie->observations.at("dcgm_info").get<std::string>().find("58.62 GB/s"),
            std::string::npos);
  // DCGM's failure is carried with its words: a fail.
  const auto outcome = test::judged_fixture("dcgm/gb10x1-diag-r2-dcgm4.5-plugins-allowed.json");
  EXPECT_EQ(outcome.status, verdict_status::fail);
}

TEST(DcgmImport, DcgmFourSkipsAreInconclusiveForTheirTests) {
  // The same GB10 minutes earlier without the plugins allowed: memory and pcie skipped.
  const auto r = dcgm("gb10x1-diag-r2-dcgm4.5-plugins-gated-skip.json");
  for (const char* id : {"dcgm.hardware.memory", "dcgm.integration.pcie"}) {
    const auto* res = find_result(r, id, 0);
    ASSERT_NE(res, nullptr) << id;
    EXPECT_EQ(res->observations.at("dcgm_result"), "Skip");
  }
  const auto outcome = test::judged_fixture("dcgm/gb10x1-diag-r2-dcgm4.5-plugins-gated-skip.json");
  EXPECT_TRUE(test::has_code(outcome, "GPUSPEC-TOOL-TEST-SKIPPED"));
  EXPECT_EQ(outcome.status, verdict_status::fail); // the software failure still stands
}

} // namespace
} // namespace gpuspec::reports
