// nccl-tests logs without their "# Using devices" lines (issue 30): the real H800 log
// (tests/fixtures/import/nccl-tests/h800x8-all_reduce-nvlink.log, posted from its table down)
// and the real H100 NVLS log with its rank lines cut here. Judged where they can be: the rank
// count from the bus factor, #wrong without a model, busbw with the node's inventory; each
// figure that needs a model says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "import_judged.hpp"

namespace gpuspec::reports {
namespace {

constexpr const char* h800_log = "nccl-tests/h800x8-all_reduce-nvlink.log";
constexpr const char* h100_log = "nccl-tests/h100x8-all_reduce-nvls-256M-2G.log";

report import_text(const std::string& text, const std::string& name) {
  auto r = import_log(text, name, tool_from_name("nccl-tests"));
  if (!r)
    throw std::runtime_error(r.error().to_string());
  return std::move(r).value();
}

/// `gpuspec info --json` of an 8-GPU node, made from the check fixtures' DGX H200 (the
/// harness's own inventory), its GPUs given `name` and the PCI device id `pci_device_id` (the
/// spec row's, specs/gpus.json).
std::filesystem::path inventory_of(const std::string& name, int pci_device_id,
                                   const std::string& file) {
  std::ifstream in(std::string(GPUSPEC_SOURCE_DIR) + "/tests/fixtures/check/healthy.json");
  auto node = nlohmann::ordered_json::parse(in);
  nlohmann::ordered_json info;
  info["host"] = node["host"];
  info["devices"] = node["devices"];
  for (std::size_t i = 0; i < info["devices"].size(); ++i) {
    info["devices"][i]["name"] = name;
    info["devices"][i]["spec_id"] = "";
    info["devices"][i]["pci_device_id"] = pci_device_id;
  }
  const auto path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path) << info.dump(1);
  return path;
}

const result_verdict& verdict_at(const check_outcome& o, const report& r, const std::string& size) {
  for (const auto& v : o.nodes.at(0).results) {
    const auto& res = r.results.at(v.result_index);
    if (res.axes.value("size", "") == size && res.axes.value("placement", "") == "out_of_place")
      return v;
  }
  throw std::runtime_error("no verdict at " + size);
}

TEST(NcclTestsNoRanks, TheRankCountIsReadFromTheBusFactor) {
  const auto r = test::imported_fixture(h800_log);
  EXPECT_TRUE(r.devices.empty());
  const auto* big = test::find_imported(r, "collective.all_reduce", {});
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->observations.at("nranks"), 8); // 165.19 / 94.39 = 1.750 = 2 x 7/8
  bool said = false;
  for (const auto& n : r.run.source->notes)
    said = said || n.find("8 ranks, read from busbw / algbw") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(NcclTestsNoRanks, WithoutAnInventoryEachJudgedFigureSaysWhatIsMissing) {
  // It was "no result was judged: all 62 were skipped", naming the first 8-byte row.
  const auto r = test::imported_fixture(h800_log);
  const auto o = test::judged_fixture(h800_log);
  EXPECT_EQ(o.status, verdict_status::inconclusive);
  const auto& v = verdict_at(o, r, "8GiB");
  EXPECT_EQ(v.status, verdict_status::inconclusive);
  EXPECT_NE(v.message.find("the log names no GPU"), std::string::npos) << v.message;
  EXPECT_TRUE(test::has_code(o, "GPUSPEC-LOG-NAMES-NO-GPU"));
  EXPECT_FALSE(test::has_code(o, "GPUSPEC-NO-RESULTS"));
  // Sizes under 1 GiB stay reported, not judged, as ours are.
  EXPECT_EQ(verdict_at(o, r, "512MiB").status, verdict_status::skipped);
}

TEST(NcclTestsNoRanks, AWrongElementFailsWithoutAModel) {
  // #wrong needs no model: the same log with 3 wrong elements at 4 GiB fails.
  auto text = test::read_import_fixture(h800_log);
  const std::string row = "45552   94.29  165.00      0";
  const auto at = text.find(row);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, row.size(), "45552   94.29  165.00      3");
  const auto r = import_text(text, "h800-wrong.log");
  const auto o = check(r, testing::shipped_specs(), testing::shipped_rules());
  EXPECT_EQ(o.status, verdict_status::fail);
  EXPECT_EQ(verdict_at(o, r, "4GiB").status, verdict_status::fail);
  EXPECT_TRUE(test::has_code(o, "GPUSPEC-VERIFICATION-FAILED"));
}

TEST(NcclTestsNoRanks, WithTheNodesInventoryTheLogIsJudgedAsWithItsRankLines) {
  // The H100 NVLS log passes with its rank lines; cut them, and the inventory of the node
  // (eight H100 80GB HBM3) gives back what they said: the same verdict.
  const auto with_ranks = test::judged_fixture(h100_log);
  ASSERT_EQ(with_ranks.status, verdict_status::pass);
  const auto text = std::regex_replace(test::read_import_fixture(h100_log),
                                       std::regex(R"(\n *# +Rank +[0-9]+ [^\n]*)"), "");
  auto r = import_text(text, "h100-no-ranks.log");
  ASSERT_TRUE(r.devices.empty());
  const auto bare = check(r, testing::shipped_specs(), testing::shipped_rules());
  EXPECT_EQ(bare.status, verdict_status::inconclusive);
  const auto info = inventory_of("NVIDIA H100 80GB HBM3", 0x2330, "gpuspec-h100-inventory.json");
  ASSERT_FALSE(apply_inventory(r, info).has_value());
  EXPECT_EQ(r.devices.size(), 8U);
  const auto judged = check(r, testing::shipped_specs(), testing::shipped_rules());
  EXPECT_EQ(judged.status, verdict_status::pass);
  EXPECT_EQ(verdict_at(judged, r, "2GiB").status, verdict_status::pass);
  EXPECT_FALSE(test::has_code(judged, "GPUSPEC-LOG-NAMES-NO-GPU"));
}

TEST(NcclTestsNoRanks, AnInventoryOfAnotherGpuCountIsRefusedNamingIt) {
  // 8 ranks by the bus factor; an inventory of 4 GPUs cannot be the node that ran them all.
  auto r = test::imported_fixture(h800_log);
  auto path = inventory_of("NVIDIA H800", 0x2324, "gpuspec-h800-four.json");
  auto info = nlohmann::ordered_json::parse(std::ifstream(path));
  for (int i = 0; i < 4; ++i)
    info["devices"].erase(info["devices"].size() - 1);
  std::ofstream(path) << info.dump(1);
  const auto error = apply_inventory(r, path);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->file, path.string());
  EXPECT_NE(error->to_string().find("8 ranks"), std::string::npos) << error->to_string();
}

TEST(NcclTestsNoRanks, AnH800InventoryNamesTheFigureTheSpecTableLacks) {
  // The H800's spec row states no NVLink figure (specs/gpus.json notes: no NVIDIA document
  // opened gives it), so with the node's inventory the figures are the H800's and still have no
  // ceiling: never held to H100's 900 GB/s.
  auto r = test::imported_fixture(h800_log);
  ASSERT_FALSE(
      apply_inventory(r, inventory_of("NVIDIA H800", 0x2324, "gpuspec-h800.json")).has_value());
  const auto o = check(r, testing::shipped_specs(), testing::shipped_rules());
  EXPECT_EQ(o.status, verdict_status::inconclusive);
  EXPECT_FALSE(test::has_code(o, "GPUSPEC-LOG-NAMES-NO-GPU"));
  const auto& v = verdict_at(o, r, "8GiB");
  EXPECT_NE(v.status, verdict_status::pass);
  EXPECT_EQ(v.expected, std::nullopt);
  EXPECT_NE(v.message.find("the spec row h800-sxm5-80gb states no nvlink_gbs"), std::string::npos)
      << v.message;
}

} // namespace
} // namespace gpuspec::reports
