// The A100 bandwidthTest log (tests/fixtures/import/cuda-samples/a100-sxm4-40gbx1-bandwidthTest-
// quick.log, router-gao/cuda-demo): pinned copies of 32,000,000 bytes at 12.3 and 13.2 GB/s.
// Held to the A100 SXM4's own link, PCIe Gen4 x16 (31.5 GB/s per direction), that is 39% and
// 42%: an A100 on a Gen4 host reaches 25-26 GB/s (NVIDIA/nvbandwidth#11, and 25.13 GB/s in
// this folder's nvbandwidth/a100-sxm4-40gbx1-h2d-sm-v0.8.log), so the log alone fails. The
// same post's Gen3 cards (a Tesla T4 and a V100-SXM2) read 9.6-11.4 GB/s: 12.3 is the rate of a
// Gen3 x16 link (15.75 GB/s). With an inventory that says the slot reaches Gen3, the ceiling is
// that link and the figures pass; the log cannot say which link it was (docs/import.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "import_judged.hpp"

namespace gpuspec::reports {
namespace {

constexpr const char* a100_log = "cuda-samples/a100-sxm4-40gbx1-bandwidthTest-quick.log";

/// `gpuspec info --json` of a node with one A100-SXM4-40GB (the check fixtures' DGX H200
/// inventory, its first GPU renamed), whose slot NVML says reaches PCIe `system_gen`.
std::filesystem::path a100_inventory(int system_gen, const std::string& file) {
  std::ifstream in(std::string(GPUSPEC_SOURCE_DIR) + "/tests/fixtures/check/healthy.json");
  auto node = nlohmann::ordered_json::parse(in);
  auto gpu = node["devices"][0];
  gpu["name"] = "NVIDIA A100-SXM4-40GB";
  gpu["pci_device_id"] = 0x20B0; // specs/gpus.json a100-sxm4-40gb
  gpu["spec_id"] = "";
  gpu["pcie"] = {{"gen_current", 1},
                 {"gen_max", 4},
                 {"gen_max_system", system_gen},
                 {"width_current", 16},
                 {"width_max", 16}};
  nlohmann::ordered_json info;
  info["host"] = node["host"];
  info["devices"] = nlohmann::ordered_json::array({gpu});
  const auto path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path) << info.dump(1);
  return path;
}

check_outcome judged_with(int system_gen) {
  auto r = test::imported_fixture(a100_log);
  const auto error = apply_inventory(r, a100_inventory(system_gen, "gpuspec-a100-gen.json"));
  if (error)
    throw std::runtime_error(error->to_string());
  return check(r, testing::shipped_specs(), testing::shipped_rules());
}

verdict_status transfer_verdict(const check_outcome& o, const std::string& prefix) {
  for (const auto& v : o.nodes.at(0).results)
    if (v.name.starts_with(prefix))
      return v.status;
  throw std::runtime_error("no verdict of " + prefix);
}

TEST(BandwidthTestHostLink, TheLogAloneIsHeldToTheA100sGen4LinkAndFails) {
  const auto o = test::judged_fixture(a100_log);
  EXPECT_EQ(o.status, verdict_status::fail);
  EXPECT_TRUE(test::has_code(o, "GPUSPEC-BELOW-SPEC"));
}

TEST(BandwidthTestHostLink, OnAGen3SlotTheCopiesPassAndTheCappedSlotWarns) {
  const auto gen3 = judged_with(3);
  EXPECT_EQ(transfer_verdict(gen3, "transfer.h2d"), verdict_status::pass); // 12.3 / 15.75 = 0.78
  EXPECT_EQ(transfer_verdict(gen3, "transfer.d2h"), verdict_status::pass); // 13.2 / 15.75 = 0.84
  EXPECT_EQ(gen3.status, verdict_status::warn);
  EXPECT_TRUE(test::has_code(gen3, "GPUSPEC-PCIE-LINK-CAPPED"));
  // A Gen4 slot: the card ran at half the link it had.
  const auto gen4 = judged_with(4);
  EXPECT_EQ(transfer_verdict(gen4, "transfer.h2d"), verdict_status::fail);
  EXPECT_EQ(gen4.status, verdict_status::fail);
}

} // namespace
} // namespace gpuspec::reports
